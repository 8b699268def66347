// Local ids of ghosts from their global ids, for the messages of a
// neighbour rank: a kernel that is told about vertex `global` by the rank
// at position `index` of the ghost relation needs its local id, once per
// message. A binary search of that rank's ghost range (sorted global ids)
// costs about log2(ghosts) dependent cache misses: with 15.5M messages at 2
// ranks (the matching on rmat:20) that was 4% of the run. Here each
// neighbour's range of global ids is cut into about as many buckets as it
// has ghosts here (a power of two wide), each bucket holding the position of
// its first ghost: a lookup reads two adjacent bucket entries and searches
// the few ghosts between them. Memory: one lid_t per ghost, about.
#pragma once

#include <algorithm>
#include <vector>

#include "graph/dist_graph.hpp"

namespace gc {

class GhostIndex {
 public:
  explicit GhostIndex(const DistGraph& g);

  // Local id of ghost `global`, owned by neighbour `index` of the ghost
  // relation; fails (gc::Error, "internal: ...") if it is no ghost of that rank.
  lid_t local(int index, vid_t global) const {
    const Range& r = ranges_[static_cast<std::size_t>(index)];
    const vid_t offset = global - r.first;
    if (offset >= r.count) unknown(global);
    const lid_t* bucket = buckets_.data() + r.bucket0 + (offset >> r.shift);
    const vid_t* hi = ghosts_ + bucket[1];
    const vid_t* lo = std::lower_bound(ghosts_ + bucket[0], hi, global);  // one or two, on average
    if (lo == hi || *lo != global) unknown(global);
    return owned_ + static_cast<lid_t>(lo - ghosts_);
  }

 private:
  [[noreturn]] static void unknown(vid_t global);

  struct Range {
    vid_t first = 0;          // the neighbour's first global id
    vid_t count = 0;          // and how many it owns
    int shift = 0;            // bucket width 2^shift
    std::size_t bucket0 = 0;  // its first bucket in buckets_
  };
  std::vector<Range> ranges_;
  // Per range, (count >> shift) + 2 entries: the ghost position (index into
  // the ghost table) of the first ghost at or above each bucket's start.
  std::vector<lid_t> buckets_;
  const vid_t* ghosts_;
  lid_t owned_;
};

}  // namespace gc
