#include "graph/ghost_index.hpp"

#include <fmt/format.h>

#include "core/error.hpp"

namespace gc {

SortedIdIndex::SortedIdIndex(const vid_t* ids, std::size_t n, vid_t first, vid_t count)
    : ids_(ids), first_(first), count_(count) {
  const vid_t wanted = std::max<vid_t>(n, 1);
  while ((count_ >> shift_) > wanted) ++shift_;
  const vid_t buckets = (count_ >> shift_) + 1;
  buckets_.reserve(buckets + 1);
  std::size_t at = 0;
  for (vid_t b = 0; b <= buckets; ++b) {
    const vid_t start = first_ + (b << shift_);
    while (at < n && ids_[at] < start) ++at;
    buckets_.push_back(at);
  }
}

GhostIndex::GhostIndex(const DistGraph& g) {
  const lid_t owned = g.owned_count();
  const GhostRelation& rel = g.ghost_relation();
  const Distribution& dist = g.distribution();
  const vid_t* ghosts = g.ghosts().data();
  for (std::size_t i = 0; i < rel.ranks.size(); ++i) {
    const lid_t begin = rel.ghost_begin[i] - owned, end = rel.ghost_end[i] - owned;
    ranges_.push_back({SortedIdIndex(ghosts + begin, end - begin, dist.begin(rel.ranks[i]),
                                     dist.count(rel.ranks[i])),
                       rel.ghost_begin[i]});
  }
}

void GhostIndex::unknown(vid_t global) {
  fail(fmt::format("internal: message about unknown ghost {}", global));
}

}  // namespace gc
