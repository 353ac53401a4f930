#include <catch2/catch.hpp>

#include <stdexcept>

#include "core/byte_io.h"

using namespace ps;

namespace {

class TestReader : public ByteReader {
 public:
  using ByteReader::ByteReader;
  [[noreturn]] void fail(const std::string& why) const override { throw std::runtime_error("t.bin: " + why); }

 private:
  std::string truncated(const char* field) const override { return std::string("ends inside ") + field; }
};

}  // namespace

TEST_CASE("byte io: fields are little-endian and read back as written", "[core]") {
  ByteWriter w;
  w.put<uint32_t>(0x01020304u);
  w.put<int8_t>(-2);
  w.put<uint16_t>(0xBEEF);
  w.put<float>(-1.5f);
  w.put<uint64_t>(0x1122334455667788ULL);
  w.raw("ab", 2);
  const std::string& s = w.str();
  REQUIRE(s.size() == 4 + 1 + 2 + 4 + 8 + 2);
  CHECK(s.substr(0, 4) == std::string("\x04\x03\x02\x01", 4));
  CHECK(uint8_t(s[4]) == 0xFE);
  CHECK(s.substr(5, 2) == std::string("\xEF\xBE", 2));
  CHECK(s.substr(7, 4) == std::string("\x00\x00\xC0\xBF", 4));  // IEEE 754 -1.5
  TestReader r(s.data(), s.size());
  CHECK(r.get<uint32_t>("a") == 0x01020304u);
  CHECK(r.get<int8_t>("b") == -2);
  CHECK(r.get<uint16_t>("c") == 0xBEEF);
  CHECK(r.get<float>("d") == -1.5f);
  CHECK(r.get<uint64_t>("e") == 0x1122334455667788ULL);
  CHECK(r.left() == 2);
  CHECK(r.bytes(2, "f") == "ab");
  CHECK(r.at_end());
}

TEST_CASE("byte io: a field cut off by the end fails with the format's message", "[core]") {
  const std::string s("\x01\x02\x03", 3);
  TestReader r(s.data(), s.size());
  CHECK(r.get<uint16_t>("count") == 0x0201);
  CHECK_THROWS_WITH(r.get<uint16_t>("width"), "t.bin: ends inside width");
  CHECK_THROWS_WITH(r.bytes(2, "name"), "t.bin: ends inside name");
  CHECK(r.left() == 1);  // a failed read takes nothing
}
