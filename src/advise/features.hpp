// What the cost model (advise/cost_model.hpp) knows of an input: figures of
// the graph cut into P parts, as P ranks would hold it, computed on however
// many ranks run advise (graph/stats.hpp's part figures; the matching study's
// Tables III-VI name them), for SpMM the words its gathers move (to the
// busiest rank, into the busiest node, in all), and for BFS the depth of one
// search. Nothing here runs a kernel over a communication model but that one
// search.
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
  // SpMM's gather of A's row blocks (kernels/spmm/row_blocks.hpp block_words):
  double words_total = 0;          // every block, what each rank holds after an allgather
  double allgather_words_max = 0;  // what the busiest part receives in one: all but its own block
  double gather_words_max = 0;     // the neighbour parts' blocks, to the busiest part
  double node_words_max = 0;       // the same into the busiest node, from parts on other nodes
  int ranks_per_node = 0;          // the nodes node_words_max assumes (0: not known)
  // The combined gather's plan over the P parts (nbr/plan.hpp; -1: not
  // counted): its friend groups (memberships, summed), and what one gather
  // costs by it (nbr/call_counts.hpp): the words the busiest part receives,
  // its friends' blocks to forward included; the messages of the part that
  // sends or receives the most; the words into the busiest node. With no
  // group they are the neighbour gather's figures: its calls are the same.
  double combined_groups = -1;
  double combined_words_max = -1;
  double combined_messages_max = -1;
  double combined_node_words_max = -1;
  double dense() const { return parts > 1 ? degree_avg / (parts - 1) : 0; }  // d_avg of P-1
};

// Collective. `parts` 0: the ranks as they hold g (its own distribution,
// reordered or partitioned), else g's ids cut into `parts` ranges as `balance`
// cuts them (graph/build.hpp cut_into_parts). `with_levels`: also run one
// top-down search (the Graph500 reference's design, nsr-agg) from the first search key of `seed`,
// for its depth. The nodes: `ranks_per_node` consecutive parts each; 0: the
// nodes of the ranks running when the parts are theirs (`parts` 0 or their
// number), else not known (node_words_max 0, ranks_per_node 0).
// `with_combined_plan`: also count SpMM's combined gather's plan
// (combined_*; else -1), whose plans for every part are built on rank 0 from
// every part's lists: for SpMM's advice only.
Features compute_features(const Comm& comm, const DistGraph& g, int parts, Balance balance,
                          bool with_levels, std::uint64_t seed = 1, int ranks_per_node = 0,
                          bool with_combined_plan = false);

// Levels of one top-down search (over nsr-agg) from the first Graph500 search
// key of `seed`: what compute_features puts in `levels`. Collective.
double bfs_levels(const Comm& comm, const DistGraph& g, std::uint64_t seed);

// JSON {parts, vertices, edges, edges_max, ...}: nlohmann::json(f), j.get<Features>().
// A figure missing from the JSON (a calibration made before it was counted)
// reads as 0; has_gather_figures() tells SpMM's apart.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Features, parts, vertices, edges, edges_max,
                                                cut_max, cut_total, degree_max, degree_avg,
                                                degree_sigma, levels, words_total,
                                                allgather_words_max, gather_words_max,
                                                node_words_max, ranks_per_node, combined_groups,
                                                combined_words_max, combined_messages_max,
                                                combined_node_words_max)

// Whether f has SpMM's gather figures as advise counts them now (a block
// has at least 3 words, so with two parts or more an allgather receives some;
// the combined plan counted).
inline bool has_gather_figures(const Features& f) {
  return f.words_total > 0 && (f.parts <= 1 || f.allgather_words_max > 0) &&
         f.combined_groups >= 0 && f.combined_words_max >= 0;
}

}  // namespace gc::advise
