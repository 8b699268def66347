// Statistics of a distributed graph and of its process graph: the figures of
// Tables III-VI of Ghosh et al. (IPDPS 2019). Definitions (docs/json-schema.md):
//  - |E'| of a rank: its edges counted with ghost copies, i.e. edges with both
//    endpoints owned once plus cut edges once on each side; summed over ranks
//    it is |E| + (number of cut edges).
//  - the process graph: ranks as vertices, an edge between two ranks that
//    share a cut edge; |Ep| counts those rank pairs, d is a rank's degree.
//  - with `parts`, the same figures for P parts (contiguous ranges of the
//    graph's ids) instead of the ranks that hold the graph: the study's 1K and
//    2K processes, computed on a few ranks. Parts cut as the ranks would be cut
//    give the figures that many ranks would report.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/mpi.hpp"
#include "graph/dist_graph.hpp"

namespace gc {

struct Summary {
  double min = 0, max = 0, avg = 0, stddev = 0, total = 0;
};
Summary summarize(const std::vector<double>& values);

struct RankFigures {
  std::uint64_t owned = 0, edges = 0, ghosts = 0, edges_with_ghosts = 0, cut_edges = 0;
  int process_degree = 0;
};

// A pair (part, neighbour part) of the process graph of parts.
struct PartPair {
  std::uint64_t part, neighbour;
  auto operator<=>(const PartPair&) const = default;
};

struct GraphStats {
  std::uint64_t vertices = 0, edges = 0, isolated = 0;
  Summary degree;                                         // over vertices
  std::vector<RankFigures> ranks;                         // per rank or part (on every rank)
  bool of_parts = false;                                  // ranks holds parts
  Summary owned, local_edges, ghosts, edges_with_ghosts;  // over ranks
  std::uint64_t cut_edges = 0;
  std::uint64_t process_edges = 0;  // |Ep|
  Summary process_degree;           // d_max, d_avg, sigma_d over ranks
  // Of parts: the process graph's pairs, each once, spread over the ranks
  // (each on the rank holding the part's first vertex); sum_over_neighbours
  // reads them, so that its sums cost no second pass over the edges.
  std::vector<PartPair> part_pairs;
};

GraphStats compute_stats(const Comm& comm, const DistGraph& g, const Distribution* parts = nullptr);
// Per rank, or per part when s is of parts, the sum of weight(part,
// neighbour) over its neighbours in the process graph, each once: s is
// compute_stats of g. Collective; complete on every rank.
std::vector<std::uint64_t> sum_over_neighbours(
    const Comm& comm, const DistGraph& g, const GraphStats& s,
    const std::function<std::uint64_t(int part, int neighbour)>& weight);
// Per rank, or per part when s is of parts, its neighbours in the process
// graph, ascending (the lists a distributed-graph communicator over them
// would have). Collective; complete on every rank.
std::vector<std::vector<int>> neighbour_lists(const Comm& comm, const DistGraph& g,
                                              const GraphStats& s);
nlohmann::json to_json(const GraphStats& s);
nlohmann::json to_json(const Summary& s);

}  // namespace gc
