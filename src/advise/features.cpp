#include "advise/features.hpp"

#include <algorithm>
#include <array>
#include <optional>

#include "core/error.hpp"
#include "graph/distribution.hpp"
#include "graph/stats.hpp"
#include "kernels/bfs/bfs.hpp"
#include "kernels/bfs/graph500.hpp"
#include "kernels/spmm/row_blocks.hpp"
#include "nbr/call_counts.hpp"
#include "nbr/plan.hpp"

namespace gc::advise {

double bfs_levels(const Comm& comm, const DistGraph& g, std::uint64_t seed) {
  const std::vector<vid_t> keys = bfs::choose_keys(comm, g, 1, seed);
  if (keys.empty()) return 0;
  const bfs::BfsGraph bg(comm, g);
  bfs::Bfs engine(comm, bg, bfs::Algorithm::top_down, "nsr-agg");
  const bfs::SearchResult s = engine.search(keys.front(), false);
  std::int32_t deepest = 0;
  for (std::int32_t l : s.level) deepest = std::max(deepest, l);
  return static_cast<double>(max_over_ranks(comm, deepest)) + 1;
}

namespace {

// The node of each of the P parts, or empty when not known.
std::vector<int> nodes_of_parts(const Comm& comm, int parts, int ranks_per_node) {
  if (ranks_per_node > 0) return nbr::consecutive_nodes(parts, ranks_per_node);
  if (parts == comm.size()) return nbr::node_of_every_rank(comm.get(), 0);
  return {};
}

// SpMM's combined gather over the process graph `lists`, its plan (the
// defaults: k auto, agnostic) built on rank 0 alone, the gathered build's
// lockstep, as a simulation at thousands of ranks could not afford on every
// rank; `words`: each part's block; `node`: each part's node (empty: not
// known). Fills f.combined_*.
void count_combined_plan(const Comm& comm, const std::vector<std::vector<int>>& lists,
                         const std::vector<std::uint64_t>& words, const std::vector<int>& node,
                         Features& f) {
  std::array<double, 4> counts{0, 0, 0, 0};  // groups, words, messages, node words
  // An error on rank 0 (the build checks the lists) is raised on every rank,
  // which would otherwise wait in the broadcast.
  collectively(comm.get(), [&] {
    if (comm.rank() != 0) return;
    std::vector<nbr::Topology> every;
    for (const std::vector<int>& l : lists) every.push_back({l, l});  // A is symmetric
    const std::vector<nbr::Plan> plans = nbr::plans_of_every_rank(std::move(every), {});
    const nbr::BlockOf block_of = [&](int part) { return words[static_cast<size_t>(part)]; };
    std::vector<double> into_node(words.size(), 0);  // by node id (< parts)
    for (size_t p = 0; p < plans.size(); ++p) {
      const nbr::CallCounts c =
          nbr::plan_counts(plans[p], static_cast<int>(p), "allgather", block_of, node);
      counts[0] += static_cast<double>(plans[p].figures.groups);
      counts[1] = std::max(counts[1], static_cast<double>(c.bytes_received));
      counts[2] = std::max({counts[2], static_cast<double>(c.messages_sent),
                            static_cast<double>(c.messages_received)});
      if (!node.empty())
        into_node[static_cast<size_t>(node[p])] += static_cast<double>(c.bytes_received_off_node);
    }
    counts[3] = *std::max_element(into_node.begin(), into_node.end());
  });
  MPI_Bcast(counts.data(), 4, MPI_DOUBLE, 0, comm.get());
  f.combined_groups = counts[0];
  f.combined_words_max = counts[1];
  f.combined_messages_max = counts[2];
  f.combined_node_words_max = counts[3];
}

// SpMM's gathers (kernels/spmm/spmm.cpp): an allgather moves every other
// part's block to each part, so the part with the smallest block receives
// the most; the neighbour gathers, each neighbour part's block once to each
// part, node ingress counting those from parts on other nodes.
void count_gather_words(const Comm& comm, const DistGraph& g, const GraphStats& s,
                        const std::vector<std::uint64_t>& words, const std::vector<int>& node,
                        Features& f) {
  for (std::uint64_t w : words) f.words_total += static_cast<double>(w);
  f.allgather_words_max =
      f.words_total - static_cast<double>(*std::min_element(words.begin(), words.end()));
  const std::vector<std::uint64_t> gathered =
      sum_over_neighbours(comm, g, s, [&](int, int q) { return words[static_cast<size_t>(q)]; });
  for (std::uint64_t w : gathered) f.gather_words_max = std::max(f.gather_words_max, double(w));
  if (node.empty()) return;
  const std::vector<std::uint64_t> from_other_nodes =
      sum_over_neighbours(comm, g, s, [&](int p, int q) -> std::uint64_t {
        return node[static_cast<size_t>(p)] == node[static_cast<size_t>(q)]
                   ? 0
                   : words[static_cast<size_t>(q)];
      });
  std::vector<double> into_node(static_cast<size_t>(f.parts), 0);  // by node id (< parts)
  std::vector<int> on_node(static_cast<size_t>(f.parts), 0);
  for (size_t p = 0; p < from_other_nodes.size(); ++p) {
    into_node[static_cast<size_t>(node[p])] += static_cast<double>(from_other_nodes[p]);
    ++on_node[static_cast<size_t>(node[p])];
  }
  f.node_words_max = *std::max_element(into_node.begin(), into_node.end());
  f.ranks_per_node = *std::max_element(on_node.begin(), on_node.end());
}

}  // namespace

Features compute_features(const Comm& comm, const DistGraph& g, int parts, Balance balance,
                          bool with_levels, std::uint64_t seed, int ranks_per_node,
                          bool with_combined_plan) {
  Features f;
  f.parts = parts > 0 ? parts : comm.size();
  f.vertices = g.global_vertex_count();
  f.edges = g.global_edge_count();
  std::optional<Distribution> cut;
  if (parts > 0) cut = cut_into_parts(comm, g, balance, parts);
  const GraphStats s = compute_stats(comm, g, cut ? &*cut : nullptr);
  for (const RankFigures& r : s.ranks) {
    f.edges_max = std::max(f.edges_max, static_cast<double>(r.edges));
    f.cut_max = std::max(f.cut_max, static_cast<double>(r.cut_edges));
  }
  f.cut_total = static_cast<double>(s.cut_edges);
  f.degree_max = s.process_degree.max;
  f.degree_avg = s.process_degree.avg;
  f.degree_sigma = s.process_degree.stddev;
  // SpMM's gathers move A's row blocks (kernels/spmm/row_blocks.hpp).
  std::vector<std::uint64_t> words;
  for (const RankFigures& r : s.ranks) words.push_back(spmm::block_words(r.owned, r.edges));
  const std::vector<int> node = nodes_of_parts(comm, f.parts, ranks_per_node);
  count_gather_words(comm, g, s, words, node, f);
  if (with_levels) f.levels = bfs_levels(comm, g, seed);
  if (with_combined_plan) count_combined_plan(comm, neighbour_lists(comm, g, s), words, node, f);
  return f;
}

}  // namespace gc::advise
