// The exchange's neighbourhood of a kernel that sends each ghost to its
// owner at most once per phase (bfs: a ghost is pushed once per search;
// sssp: the best distance of a ghost once per phase): the graph's ghost
// relation, a neighbour's capacity its ghosts.
#pragma once

#include <cstdint>

#include "comm/exchange.hpp"
#include "graph/dist_graph.hpp"

namespace gc {

inline Neighborhood ghost_neighborhood(const DistGraph& g, const ExchangeOptions& options) {
  const GhostRelation& rel = g.ghost_relation();
  Neighborhood nb;
  nb.options = options;
  nb.ranks = rel.ranks;
  for (size_t i = 0; i < rel.ranks.size(); ++i)
    nb.capacity.push_back(rel.ghost_end[i] - rel.ghost_begin[i]);
  return nb;
}

}  // namespace gc
