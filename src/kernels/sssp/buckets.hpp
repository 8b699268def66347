// The buckets of delta-stepping. A bucket's number is its distance over
// delta, which a small delta (or long paths) makes far larger than the count
// of buckets ever filled: the kWindow buckets from the lowest one still to
// empty live in a ring (their lists keep their capacity from search to
// search), those beyond in a map, moved into the ring as it advances.
// Entries never go below the window: a relaxation adds a non-negative weight
// to a distance of the bucket being emptied.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <vector>

#include "graph/types.hpp"

namespace gc::sssp {

class Buckets {
 public:
  static constexpr std::uint64_t kNone = ~std::uint64_t{0};

  void clear() {
    for (auto& r : ring_) r.clear();
    far_.clear();
    base_ = 0;
  }

  void add(std::uint64_t b, lid_t v) { at(b).push_back(v); }

  // Bucket b's entries (b at or above the window's start).
  std::vector<lid_t>& at(std::uint64_t b) {
    return b - base_ < kWindow ? ring_[b % kWindow] : far_[b];
  }

  // The lowest bucket from `from` on for which keep(b, entries) is true
  // (keep may drop dead entries); the buckets below it are let go. kNone
  // when there is none. `from` never decreases within a search.
  template <class Keep>
  std::uint64_t lowest(std::uint64_t from, Keep keep) {
    move_to(from);
    for (std::uint64_t i = 0; i < kWindow && base_ + i != kNone; ++i) {
      std::vector<lid_t>& entries = ring_[(base_ + i) % kWindow];
      if (!entries.empty() && keep(base_ + i, entries)) return base_ + i;
    }
    // Not a jump of the window: another rank's lowest bucket may be lower,
    // and what it sends here lands there.
    for (auto it = far_.begin(); it != far_.end(); it = far_.erase(it))
      if (keep(it->first, it->second)) return it->first;
    return kNone;
  }

 private:
  static constexpr std::uint64_t kWindow = 64;

  // Starts the window at `from` (not below its start): the buckets it leaves
  // are cleared, the far ones it reaches move in.
  void move_to(std::uint64_t from) {
    for (std::uint64_t b = base_; b < from && b - base_ < kWindow; ++b) ring_[b % kWindow].clear();
    base_ = from;
    while (!far_.empty() && far_.begin()->first - base_ < kWindow) {
      auto node = far_.extract(far_.begin());
      ring_[node.key() % kWindow].swap(node.mapped());  // that slot's bucket was left
    }
  }

  std::uint64_t base_ = 0;  // the window: buckets base_ to base_ + kWindow - 1
  std::array<std::vector<lid_t>, kWindow> ring_;
  std::map<std::uint64_t, std::vector<lid_t>> far_;
};

}  // namespace gc::sssp
