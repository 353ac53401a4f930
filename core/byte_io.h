// Little-endian binary fields of the project's file formats (training-data chunks,
// selfplay/data.h; value-net files, valuenet/value_net_file.h): a writer that appends them to a
// string and a bounds-checked reader whose failures are the format's own error. Header-only,
// standard library only. Not thread-safe (one reader or writer per thread).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

namespace ps {

namespace byte_io_detail {
// The unsigned integer of T's size, for the byte order.
template <class T>
using Bits = std::conditional_t<
    sizeof(T) == 1, uint8_t,
    std::conditional_t<sizeof(T) == 2, uint16_t, std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>>;
}  // namespace byte_io_detail

/// The little-endian T (see ByteWriter::put) stored at p (sizeof(T) readable bytes).
template <class T>
T get_le(const char* p) {
  byte_io_detail::Bits<T> u = 0;
  for (size_t i = 0; i < sizeof(T); ++i) u |= byte_io_detail::Bits<T>(uint8_t(p[i])) << (8 * i);
  T v;
  std::memcpy(&v, &u, sizeof(T));
  return v;
}

/// Appends fields to a string.
class ByteWriter {
 public:
  /// v (an integer or a float of 1, 2, 4 or 8 bytes) in little-endian byte order.
  template <class T>
  void put(T v) {
    static_assert(std::is_arithmetic_v<T> &&
                  (sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8));
    byte_io_detail::Bits<T> u;
    std::memcpy(&u, &v, sizeof(T));
    for (size_t i = 0; i < sizeof(T); ++i) buf_.push_back(char((u >> (8 * i)) & 0xff));
  }
  void raw(const char* p, size_t n) { buf_.append(p, n); }
  std::string& str() { return buf_; }

 private:
  std::string buf_;
};

/// Reads fields from [data, data + size) (not owned: the bytes must outlive the reader). A
/// format derives from it: fail(why) throws the format's error naming the file; a field that
/// runs past the end fails with truncated(field), e.g. "payload ends inside <field>".
class ByteReader {
 public:
  ByteReader(const char* data, size_t size) : p_(data), end_(data + size) {}
  virtual ~ByteReader() = default;

  /// The next field (see ByteWriter::put); field names it in the error when it is cut off.
  template <class T>
  T get(const char* field) {
    need(sizeof(T), field);
    const T v = get_le<T>(p_);
    p_ += sizeof(T);
    return v;
  }
  /// The next n bytes as they are.
  std::string bytes(size_t n, const char* field) {
    need(n, field);
    std::string s(p_, n);
    p_ += n;
    return s;
  }
  size_t left() const { return size_t(end_ - p_); }
  bool at_end() const { return p_ == end_; }
  [[noreturn]] virtual void fail(const std::string& why) const = 0;

 protected:
  /// The why of fail() for a field cut off by the end of the bytes.
  virtual std::string truncated(const char* field) const = 0;

 private:
  void need(size_t n, const char* field) const {
    if (left() < n) fail(truncated(field));
  }
  const char* p_;
  const char* end_;
};

}  // namespace ps
