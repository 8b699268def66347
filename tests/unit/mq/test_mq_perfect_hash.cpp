// mq/engines/perfect_hash.hpp, the row-displacement perfect hash of the partner
// engines (Ghazimirsaeed, Mirsadeghi and Afsahi, "Communication-aware message
// matching in MPI", CCPE 2018), which finds a source's partner queue: every
// key found and every non-key missed on random and clustered key sets, the
// whole universe and the edge cases; the division by the row width exact at
// every width; memory about the keys plus the square root of the universe.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include <fmt/format.h>

#include "mq/engines/perfect_hash.hpp"

namespace gc::mq {
namespace {

void expect_perfect(const std::vector<std::uint32_t>& keys, std::uint32_t universe,
                    std::mt19937_64& rng) {
  const PerfectHash hash(keys, universe);
  ASSERT_EQ(hash.size(), keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i)
    ASSERT_EQ(hash.lookup(keys[i]), static_cast<std::int32_t>(i)) << "key " << keys[i];
  // Non-keys miss: random ones, neighbours of keys, and keys past the universe.
  std::vector<std::uint32_t> sorted = keys;
  std::sort(sorted.begin(), sorted.end());
  auto is_key = [&](std::uint32_t k) {
    return std::binary_search(sorted.begin(), sorted.end(), k);
  };
  for (int i = 0; i < 200; ++i) {
    const auto k = static_cast<std::uint32_t>(rng() % (std::uint64_t{universe} + 64));
    if (!is_key(k)) {
      ASSERT_EQ(hash.lookup(k), -1) << "non-key " << k;
    }
  }
  for (std::uint32_t k : keys)
    for (std::uint32_t n : {k - 1, k + 1, k + hash.width(), k - hash.width()})
      if (!is_key(n)) {
        ASSERT_EQ(hash.lookup(n), -1) << "non-key " << n;
      }
  ASSERT_EQ(hash.lookup(~std::uint32_t{0}), -1);
  // Collapsed: about one slot per key plus one row, never the universe.
  EXPECT_LE(hash.table_slots(), 2 * keys.size() + 2 * hash.width())
      << keys.size() << " keys in [0, " << universe << ")";
}

TEST(PerfectHash, CollisionFreeOnRandomKeySets) {
  std::mt19937_64 rng(7);
  int sets = 0;
  for (std::uint32_t size : {1u, 2u, 3u, 7u, 31u, 100u, 333u, 1000u, 2000u}) {
    for (std::uint32_t universe : {1u << 4, 1u << 10, 1u << 12, 1u << 16, 1u << 20, 4099u}) {
      if (size > universe) continue;
      for (int repeat = 0; repeat < 4; ++repeat) {
        std::vector<std::uint32_t> keys;
        if (repeat == 3 && size <= universe / 4) {
          // Clustered: one dense run of ranks (fills whole rows).
          const auto start = static_cast<std::uint32_t>(rng() % (universe - size + 1));
          for (std::uint32_t k = 0; k < size; ++k) keys.push_back(start + k);
        } else {
          std::vector<bool> taken(universe, false);
          while (keys.size() < size) {
            const auto k = static_cast<std::uint32_t>(rng() % universe);
            if (!taken[k]) {
              taken[k] = true;
              keys.push_back(k);
            }
          }
        }
        SCOPED_TRACE(fmt::format("{} keys in [0, {}), repeat {}", size, universe, repeat));
        expect_perfect(keys, universe, rng);
        ++sets;
      }
    }
  }
  EXPECT_GT(sets, 150);
}

TEST(PerfectHash, WholeUniverseAndEdgeCases) {
  std::mt19937_64 rng(11);
  std::vector<std::uint32_t> all(1000);
  for (std::uint32_t k = 0; k < 1000; ++k) all[k] = 999 - k;
  expect_perfect(all, 1000, rng);
  expect_perfect({0}, 1, rng);
  expect_perfect({5}, 1, rng);  // a key past the universe widens it
  const PerfectHash empty;
  EXPECT_EQ(empty.lookup(0), -1);
  EXPECT_EQ(empty.lookup(12345), -1);
  const PerfectHash none({}, 1 << 20);
  EXPECT_EQ(none.lookup(0), -1);
  EXPECT_LT(none.memory_bytes(), 256u);
  // The paper's layout: m = ceil(sqrt(U)) columns.
  EXPECT_EQ(PerfectHash({3}, 100).width(), 10u);
  EXPECT_EQ(PerfectHash({3}, 101).width(), 11u);
  EXPECT_EQ(PerfectHash({3}, 1u << 20).width(), 1024u);
}

// The lookup divides by m with a 64-bit reciprocal: exact for every key,
// whatever m (small, prime, square, power of two, the largest).
TEST(PerfectHash, ReciprocalDivisionAtEveryWidth) {
  std::mt19937_64 rng(13);
  for (std::uint32_t universe :
       {1u,    2u,    3u,    4u,    5u,     15u,    16u,    17u,      63u,         64u,        65u,
        1000u, 4095u, 4096u, 4097u, 65535u, 65536u, 65537u, 1u << 24, 0xFFFF0000u, 0xFFFFFFF0u}) {
    SCOPED_TRACE(universe);
    std::vector<std::uint32_t> keys{0, universe - 1};
    if (universe > 2) keys.push_back(universe / 2);
    for (int i = 0; i < 20 && universe > 64; ++i) {
      const auto k = static_cast<std::uint32_t>(rng() % universe);
      if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
    }
    if (universe == 1) keys = {0};
    const PerfectHash hash(keys, universe);
    for (std::size_t i = 0; i < keys.size(); ++i)
      ASSERT_EQ(hash.lookup(keys[i]), static_cast<std::int32_t>(i)) << "key " << keys[i];
    // Every key of the first rows, and around every key (row boundaries included).
    const std::uint64_t m = hash.width();
    auto is_key = [&](std::uint64_t k) {
      return std::find(keys.begin(), keys.end(), k) != keys.end();
    };
    for (std::uint64_t k = 0; k < std::min<std::uint64_t>(universe, 4 * m + 3); ++k) {
      if (!is_key(k)) {
        ASSERT_EQ(hash.lookup(static_cast<std::uint32_t>(k)), -1) << "non-key " << k;
      }
    }
    for (std::uint32_t key : keys)
      for (std::uint64_t d : {std::uint64_t{1}, m - 1, m, m + 1})
        for (std::uint64_t k : {key + d, key - d})
          if (k < (std::uint64_t{1} << 32) && !is_key(k)) {
            ASSERT_EQ(hash.lookup(static_cast<std::uint32_t>(k)), -1) << "non-key " << k;
          }
    ASSERT_EQ(hash.lookup(~std::uint32_t{0}), -1);
  }
}

TEST(PerfectHash, MemoryIsPartnersPlusSqrtOfTheUniverse) {
  std::vector<std::uint32_t> keys;
  for (std::uint32_t i = 0; i < 32; ++i) keys.push_back(i * 32771u % (1u << 20));
  const PerfectHash hash(keys, 1u << 20);
  // 1024 displacements and about 1024 + 32 slots: kilobytes, not the
  // megabytes of a per-rank array.
  EXPECT_LT(hash.memory_bytes(), 16u * 1024);
}

}  // namespace
}  // namespace gc::mq
