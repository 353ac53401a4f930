// HashMap64, the position-hash table of turn generation and the win checks: agreement with
// std::unordered_map, probe chains of colliding keys (wrapping at the table's end), growth in
// place, and clear() shrinking a large table to what its use needed, without stale entries.
#include <catch2/catch.hpp>

#include <random>
#include <unordered_map>
#include <vector>

#include "engine/turns.h"

using namespace ps;

namespace {

// The slot HashMap64 probes first for key in a table of `capacity` slots (turns.h: the high
// bits of key * 0x9E3779B97F4A7C15 from bit 7).
size_t home_slot(uint64_t key, size_t capacity) {
  return size_t((key * 0x9E3779B97F4A7C15ULL) >> 7) & (capacity - 1);
}

// n distinct nonzero keys whose home slot in a table of `capacity` slots is `slot`.
std::vector<uint64_t> keys_with_home(size_t slot, size_t capacity, int n, std::mt19937_64& rng) {
  std::vector<uint64_t> out;
  while (int(out.size()) < n) {
    const uint64_t k = rng();
    if (k != 0 && home_slot(k, capacity) == slot) out.push_back(k);
  }
  return out;
}

}  // namespace

TEST_CASE("HashMap64 agrees with std::unordered_map over inserts, lookups and clears") {
  std::mt19937_64 rng(7);
  HashMap64 map;
  for (int round = 0; round < 6; ++round) {
    std::unordered_map<uint64_t, uint64_t> ref;
    // Small and large rounds alternate: a large one grows the table, the next small one must
    // start on the small active table again.
    const int n = round % 2 ? 200 : 60000;
    std::vector<uint64_t> keys;
    for (int i = 0; i < n; ++i) keys.push_back(rng() % 4 == 0 ? rng() % 1000 + 1 : rng());
    for (uint64_t k : keys) {
      bool inserted = false;
      uint64_t* v = map.find_or_insert(k, &inserted);
      REQUIRE(inserted == (ref.count(k) == 0));
      if (inserted) REQUIRE(*v == 0);
      *v += k ^ 0x55;
      ref[k] += k ^ 0x55;
    }
    REQUIRE(map.size() == ref.size());
    REQUIRE(map.capacity() >= 2 * map.size());
    REQUIRE((map.capacity() & (map.capacity() - 1)) == 0);
    for (const auto& [k, v] : ref) {
      const uint64_t* got = map.find(k);
      REQUIRE(got);
      REQUIRE(*got == v);
    }
    for (int i = 0; i < 1000; ++i) {
      const uint64_t k = rng() | (uint64_t(1) << 63);  // almost surely absent
      if (!ref.count(k)) REQUIRE(map.find(k) == nullptr);
    }
    map.clear();
    REQUIRE(map.size() == 0);
    for (uint64_t k : keys) REQUIRE(map.find(k) == nullptr);
  }
}

TEST_CASE("HashMap64: key 0 (the empty slot's marker inside) is a key like any other") {
  HashMap64 map;
  CHECK(map.find(0) == nullptr);
  bool inserted = false;
  *map.find_or_insert(0, &inserted) = 42;
  CHECK(inserted);
  REQUIRE(map.find(0));
  CHECK(*map.find(0) == 42);
  CHECK(map.find(1) == nullptr);
  // The key the old table remapped 0 to is a separate key.
  CHECK(map.find(0x9E3779B97F4A7C15ULL) == nullptr);
  CHECK(map.find_or_set(0x9E3779B97F4A7C15ULL, 5) == nullptr);
  CHECK(*map.find(0) == 42);
  CHECK(map.size() == 2);
  map.find_or_insert(0, &inserted);
  CHECK_FALSE(inserted);
  map.clear();
  CHECK(map.find(0) == nullptr);
  CHECK(map.size() == 0);
}

TEST_CASE("HashMap64: colliding keys probe past each other, also across the table's end") {
  std::mt19937_64 rng(11);
  const size_t cap = HashMap64::kMinCapacity;
  for (size_t slot : {size_t(3), cap - 2, cap - 1}) {
    HashMap64 map;
    // Enough to stay below half load (no growth), so the probe chain is the whole test.
    const std::vector<uint64_t> keys = keys_with_home(slot, cap, int(cap / 2) - 1, rng);
    for (size_t i = 0; i < keys.size(); ++i) {
      bool inserted = false;
      *map.find_or_insert(keys[i], &inserted) = i + 1;
      REQUIRE(inserted);
    }
    REQUIRE(map.capacity() == cap);
    for (size_t i = 0; i < keys.size(); ++i) {
      REQUIRE(map.find(keys[i]));
      CHECK(*map.find(keys[i]) == i + 1);
      CHECK(map.find_or_set(keys[i], 999) != nullptr);  // present: the first value stays
      CHECK(*map.find(keys[i]) == i + 1);
    }
    // An absent key with the same home slot walks the whole chain and stops at an empty slot.
    const uint64_t absent = keys_with_home(slot, cap, 1, rng)[0];
    CHECK(map.find(absent) == nullptr);
    CHECK(map.find_or_set(absent, 7) == nullptr);
    CHECK(*map.find(absent) == 7);
  }
}

TEST_CASE("HashMap64 grows in place, clear() shrinks a large table to the use's size, keeping memory") {
  std::mt19937_64 rng(3);
  HashMap64 map;
  CHECK(map.capacity() == 0);
  CHECK(map.allocated() == 0);
  map.clear();  // on an empty map: nothing to do
  std::vector<uint64_t> big;
  for (int i = 0; i < 100000; ++i) big.push_back(rng() | 1);  // odd keys
  for (size_t i = 0; i < big.size(); ++i) {
    bool inserted;
    *map.find_or_insert(big[i], &inserted) = i;
  }
  REQUIRE(map.size() == big.size());
  const size_t grown = map.capacity();
  CHECK(grown == 262144);  // the smallest power of two >= 2 * 100000
  CHECK(map.allocated() == grown);
  for (size_t i = 0; i < big.size(); i += 97) CHECK(*map.find(big[i]) == i);

  // A like use after it runs on the same size (no rehash), with none of its entries.
  map.clear();
  CHECK(map.size() == 0);
  CHECK(map.capacity() == grown);
  CHECK(map.allocated() == grown);
  for (uint64_t k : big) REQUIRE(map.find(k) == nullptr);

  // A small use, then the next table is small again (the smallest power of two above
  // kKeepCapacity that held it), inside the kept memory.
  std::vector<uint64_t> small;
  for (int i = 0; i < 3000; ++i) small.push_back(rng() & ~uint64_t(1));  // even: not in `big`
  for (size_t i = 0; i < small.size(); ++i) {
    bool inserted = false;
    *map.find_or_insert(small[i], &inserted) = i + 5;
    REQUIRE(inserted);
  }
  for (size_t i = 0; i < small.size(); ++i) REQUIRE(*map.find(small[i]) == i + 5);
  map.clear();
  CHECK(map.capacity() == 8192);  // the smallest power of two >= 2 * 3000
  CHECK(map.allocated() == grown);

  // Growing again in place: 20,000 entries on the kept slots, nothing of the earlier uses seen.
  std::vector<uint64_t> next;
  for (int i = 0; i < 20000; ++i) next.push_back((rng() & ~uint64_t(1)) | (uint64_t(1) << 62));
  for (size_t i = 0; i < next.size(); ++i) {
    bool inserted = false;
    *map.find_or_insert(next[i], &inserted) = i + 9;
    REQUIRE(inserted);
  }
  CHECK(map.capacity() == 65536);
  CHECK(map.allocated() == grown);
  for (size_t i = 0; i < next.size(); ++i) REQUIRE(*map.find(next[i]) == i + 9);
  for (uint64_t k : small)
    if (!(k >> 62 & 1)) REQUIRE(map.find(k) == nullptr);
  for (uint64_t k : big) REQUIRE(map.find(k) == nullptr);

  // A small use after it: a table of kKeepCapacity slots again (it was larger).
  map.clear();
  CHECK(map.capacity() == 65536);
  for (uint64_t k = 1; k <= 10; ++k) map.find_or_set(k, k);
  map.clear();
  CHECK(map.capacity() == HashMap64::kKeepCapacity);
  CHECK(map.size() == 0);
  for (uint64_t k = 1; k <= 10; ++k) CHECK(map.find(k) == nullptr);
  CHECK(map.allocated() == grown);
}
