#include "graph/ghost_index.hpp"

#include <fmt/format.h>

#include "core/error.hpp"

namespace gc {

GhostIndex::GhostIndex(const DistGraph& g) : ghosts_(g.ghosts().data()), owned_(g.owned_count()) {
  const GhostRelation& rel = g.ghost_relation();
  const Distribution& dist = g.distribution();
  for (std::size_t i = 0; i < rel.ranks.size(); ++i) {
    Range r;
    r.first = dist.begin(rel.ranks[i]);
    r.count = dist.count(rel.ranks[i]);
    const lid_t begin = rel.ghost_begin[i] - owned_, end = rel.ghost_end[i] - owned_;
    const vid_t ghosts = std::max<vid_t>(end - begin, 1);
    while ((r.count >> r.shift) > ghosts) ++r.shift;
    r.bucket0 = buckets_.size();
    const vid_t buckets = (r.count >> r.shift) + 1;
    lid_t at = begin;
    for (vid_t b = 0; b <= buckets; ++b) {
      const vid_t start = r.first + (b << r.shift);
      while (at < end && ghosts_[at] < start) ++at;
      buckets_.push_back(at);
    }
    ranges_.push_back(r);
  }
}

void GhostIndex::unknown(vid_t global) {
  fail(fmt::format("internal: message about unknown ghost {}", global));
}

}  // namespace gc
