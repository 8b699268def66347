// The fixed total order on edges used by the matching: heavier first, ties
// broken by a hash of the (unordered) vertex pair, then by the pair itself.
// A hash rather than the ids breaks ties so that equal-weight paths and grids
// do not turn into long chains of dependent decisions (with ids, every vertex
// of a unit-weight path would wait on its right neighbour: O(n) rounds).
// With a total order the locally dominant matching is unique and equals the
// serial greedy matching (heaviest edge first).
#pragma once

#include <cstdint>
#include <tuple>
#include <utility>

namespace gc::match {

inline std::uint64_t pair_hash(std::uint64_t u, std::uint64_t v) {
  if (u > v) std::swap(u, v);
  // splitmix64 finalizer over a combination of both ids.
  std::uint64_t z = u * 0x9E3779B97F4A7C15ULL + v + 0x632BE59BD9B4E019ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

struct EdgeKey {
  double weight;
  std::uint64_t hash;
  std::uint64_t low, high;  // the pair, ordered
  static EdgeKey of(std::uint64_t u, std::uint64_t v, double w) {
    return {w, pair_hash(u, v), u < v ? u : v, u < v ? v : u};
  }
  friend bool operator<(const EdgeKey& a, const EdgeKey& b) {
    return std::tie(a.weight, a.hash, a.low, a.high) < std::tie(b.weight, b.hash, b.low, b.high);
  }
  friend bool operator==(const EdgeKey&, const EdgeKey&) = default;
};

}  // namespace gc::match
