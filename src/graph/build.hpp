// From edge lists scattered over ranks to a DistGraph: drop self-loops,
// symmetrize, move every directed copy to the owner of its source, merge
// duplicates (keeping the largest weight) and lay out CSR.
#pragma once

#include <vector>

#include "core/mpi.hpp"
#include "graph/dist_graph.hpp"

namespace gc {

enum class Balance {
  vertices,  // equal vertex blocks
  edges,     // contiguous ranges with about equal (edges + vertices)
};

// How the builder holds edges: `automatic` packs them into 16-byte records
// where every id fits in 32 bits; `wide` always uses 24 (the two must build
// the same graph, which the tests check).
enum class BuildRecords { automatic, wide };

// `edges` is this rank's share of the input (any share is fine; together the
// ranks hold every edge at least once, in either direction). Ids must be < n.
DistGraph build_graph(const Comm& comm, vid_t n, std::vector<Edge> edges,
                      Balance balance = Balance::vertices,
                      BuildRecords records = BuildRecords::automatic);

// The edge-balanced distribution, into `parts` ranges (0: one per rank), for
// a graph currently held with CSR `offsets` on a 1D distribution `current`.
// The ranges depend only on the graph, not on how many ranks hold it.
Distribution edge_balanced(const Comm& comm, const Distribution& current,
                           const std::vector<eid_t>& offsets, int parts = 0);

// Re-lays a graph out on another distribution (same global graph, same ids;
// input ids follow the vertices).
DistGraph redistribute(const Comm& comm, const DistGraph& g, const Distribution& target);

// Relabels a graph: owned vertex l becomes new_ids[l] (a permutation of the
// global ids, over all ranks), and the result is laid out on `target`, a
// distribution of the new ids. Weights follow their edges; input_id() of the
// result still names every vertex as the input did.
DistGraph relabel(const Comm& comm, const DistGraph& g, const std::vector<vid_t>& new_ids,
                  const Distribution& target);

// For every ghost of g (in local id order), the value its owner holds for it
// in `owned_values` (one per owned vertex). Collective.
std::vector<vid_t> ghost_values(const Comm& comm, const DistGraph& g,
                                const std::vector<vid_t>& owned_values);

}  // namespace gc
