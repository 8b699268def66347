#include "advise/features.hpp"

#include <algorithm>
#include <optional>

#include "graph/distribution.hpp"
#include "graph/stats.hpp"
#include "kernels/bfs/bfs.hpp"
#include "kernels/bfs/graph500.hpp"

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

Features compute_features(const Comm& comm, const DistGraph& g, int parts, Balance balance,
                          bool with_levels, std::uint64_t seed) {
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
  if (with_levels) f.levels = bfs_levels(comm, g, seed);
  return f;
}

}  // namespace gc::advise
