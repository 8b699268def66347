// What the cost model (advise/cost_model.hpp) knows of an input: figures of
// the graph cut into P parts, as P ranks would hold it, computed on however
// many ranks run advise (graph/stats.hpp's part figures; the matching study's
// Tables III-VI name them), and for BFS the depth of one search. Nothing here
// runs a kernel over a communication model but that one search.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "core/mpi.hpp"
#include "graph/build.hpp"
#include "graph/dist_graph.hpp"

namespace gc::advise {

struct Features {
  int parts = 0;               // P, the rank count advised for
  std::uint64_t vertices = 0;  // |V|
  std::uint64_t edges = 0;     // |E|, undirected
  double edges_max = 0;        // adjacency entries of the busiest part (its scan)
  double cut_max = 0;          // cut edges of the part with the most
  double cut_total = 0;        // cut edges of the whole cut, each once
  double degree_max = 0;       // process graph: d_max
  double degree_avg = 0;       // d_avg
  double degree_sigma = 0;     // sigma_d
  double levels = 0;           // BFS levels from the first Graph500 key (0: not asked)
  double dense() const { return parts > 1 ? degree_avg / (parts - 1) : 0; }  // d_avg of P-1
};

// Collective. `parts` 0: the ranks as they hold g (its own distribution,
// reordered or partitioned), else g's ids cut into `parts` ranges as `balance`
// cuts them (graph/build.hpp cut_into_parts). `with_levels`: also run one
// top-down search (the Graph500 reference's design, nsr-agg) from the first search key of `seed`,
// for its depth.
Features compute_features(const Comm& comm, const DistGraph& g, int parts, Balance balance,
                          bool with_levels, std::uint64_t seed = 1);

// Levels of one top-down search (over nsr-agg) from the first Graph500 search
// key of `seed`: what compute_features puts in `levels`. Collective.
double bfs_levels(const Comm& comm, const DistGraph& g, std::uint64_t seed);

// JSON {parts, vertices, edges, edges_max, ...}: nlohmann::json(f), j.get<Features>().
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Features, parts, vertices, edges, edges_max, cut_max, cut_total,
                                   degree_max, degree_avg, degree_sigma, levels)

}  // namespace gc::advise
