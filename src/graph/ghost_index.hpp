// Positions of ids in a sorted run of distinct ids, in O(1) expected, and
// the local ids of ghosts from their global ids built on it.
//
// A kernel told about vertex `global` by the rank at position `index` of
// the ghost relation needs its local id, once per message. A binary search
// of that rank's ghost range (sorted global ids) costs about log2(ghosts)
// dependent cache misses: with 15.5M messages at 2 ranks (the matching on
// rmat:20) that was 4% of the run. Here the range of ids a run may hold is
// cut into about as many buckets as the run has ids (a power of two wide),
// each bucket holding the position of its first id: a lookup reads two
// adjacent bucket entries and searches the few ids between them. Memory:
// one position per id, about.
#pragma once

#include <algorithm>
#include <vector>

#include "graph/dist_graph.hpp"

namespace gc {

class SortedIdIndex {
 public:
  static constexpr std::size_t kMissing = ~std::size_t{0};

  SortedIdIndex() = default;
  // ids[0, n): sorted, distinct, all in [first, first + count).
  SortedIdIndex(const vid_t* ids, std::size_t n, vid_t first, vid_t count);

  // Prefetches for find(id): the bucket entries (stage 0), then, once they
  // are in cache, the ids they delimit (stage 1).
  void prefetch(vid_t id, int stage) const {
    const vid_t offset = id - first_;
    if (offset >= count_) return;
    const std::size_t* bucket = buckets_.data() + (offset >> shift_);
    if (stage == 0)
      __builtin_prefetch(bucket);
    else
      __builtin_prefetch(ids_ + bucket[0]);
  }

  // The position of `id` in the run, or kMissing.
  std::size_t find(vid_t id) const {
    const vid_t offset = id - first_;
    if (offset >= count_) return kMissing;
    const std::size_t* bucket = buckets_.data() + (offset >> shift_);
    const vid_t* hi = ids_ + bucket[1];
    const vid_t* lo = std::lower_bound(ids_ + bucket[0], hi, id);  // one or two, on average
    return lo != hi && *lo == id ? static_cast<std::size_t>(lo - ids_) : kMissing;
  }

 private:
  const vid_t* ids_ = nullptr;
  vid_t first_ = 0, count_ = 0;
  int shift_ = 0;  // bucket width 2^shift_
  // (count >> shift) + 2 entries: the position of the first id at or above
  // each bucket's start.
  std::vector<std::size_t> buckets_;
};

class GhostIndex {
 public:
  explicit GhostIndex(const DistGraph& g);

  // Prefetches for local(index, global), in two stages (SortedIdIndex::prefetch).
  void prefetch(int index, vid_t global, int stage) const {
    ranges_[static_cast<std::size_t>(index)].ghosts.prefetch(global, stage);
  }

  // Local id of ghost `global`, owned by neighbour `index` of the ghost
  // relation; fails (gc::Error, "internal: ...") if it is no ghost of that rank.
  lid_t local(int index, vid_t global) const {
    const Range& r = ranges_[static_cast<std::size_t>(index)];
    const std::size_t at = r.ghosts.find(global);
    if (at == SortedIdIndex::kMissing) unknown(global);
    return r.first_local + static_cast<lid_t>(at);
  }

 private:
  [[noreturn]] static void unknown(vid_t global);

  struct Range {
    SortedIdIndex ghosts;  // the neighbour's ghosts here
    lid_t first_local;     // local id of the first
  };
  std::vector<Range> ranges_;  // per neighbour
};

}  // namespace gc
