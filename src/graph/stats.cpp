#include "graph/stats.hpp"

#include <cmath>

namespace gc {

Summary summarize(const std::vector<double>& values) {
  Summary s;
  if (values.empty()) return s;
  s.min = values.front();
  s.max = values.front();
  for (double v : values) {
    s.min = std::min(s.min, v);
    s.max = std::max(s.max, v);
    s.total += v;
  }
  s.avg = s.total / static_cast<double>(values.size());
  double sq = 0;
  for (double v : values) sq += (v - s.avg) * (v - s.avg);
  s.stddev = std::sqrt(sq / static_cast<double>(values.size()));  // population σ
  return s;
}

GraphStats compute_stats(const Comm& comm, const DistGraph& g) {
  GraphStats s;
  s.vertices = g.global_vertex_count();
  s.edges = g.global_edge_count();

  // Degree summary over all vertices, from exact integer sums.
  // The sentinel of a rank without vertices stays below 2^63: MPICH 4.0.2's
  // MPI_MIN on MPI_UINT64_T compares as signed.
  std::uint64_t local_min = static_cast<std::uint64_t>(INT64_MAX), local_max = 0,
                local_isolated = 0;
  long double local_sq = 0;
  for (lid_t l = 0; l < g.owned_count(); ++l) {
    const std::uint64_t d = g.degree(l);
    local_min = std::min(local_min, d);
    local_max = std::max(local_max, d);
    local_isolated += d == 0;
    local_sq += static_cast<long double>(d) * d;
  }
  const std::uint64_t min_d = min_over_ranks(comm, local_min);
  const std::uint64_t max_d = max_over_ranks(comm, local_max);
  s.isolated = sum_over_ranks(comm, local_isolated);
  double sq = 0, local_sq_d = static_cast<double>(local_sq);
  MPI_Allreduce(&local_sq_d, &sq, 1, MPI_DOUBLE, MPI_SUM, comm.get());
  const double n = static_cast<double>(s.vertices);
  s.degree.min = static_cast<double>(min_d);
  s.degree.max = static_cast<double>(max_d);
  s.degree.total = 2.0 * static_cast<double>(s.edges);
  s.degree.avg = s.degree.total / n;
  s.degree.stddev = std::sqrt(std::max(0.0, sq / n - s.degree.avg * s.degree.avg));

  // Per-rank figures, gathered everywhere.
  RankFigures mine;
  mine.owned = g.owned_count();
  mine.edges = g.local_edge_count();
  mine.ghosts = g.ghost_count();
  for (eid_t c : g.ghost_relation().cut_edges) mine.cut_edges += c;
  mine.edges_with_ghosts = (mine.edges - mine.cut_edges) / 2 + mine.cut_edges;
  mine.process_degree = static_cast<int>(g.ghost_relation().degree());
  s.ranks = allgather(comm, mine);

  std::vector<double> owned, edges, ghosts, with_ghosts, pdeg;
  for (const RankFigures& r : s.ranks) {
    owned.push_back(static_cast<double>(r.owned));
    edges.push_back(static_cast<double>(r.edges));
    ghosts.push_back(static_cast<double>(r.ghosts));
    with_ghosts.push_back(static_cast<double>(r.edges_with_ghosts));
    pdeg.push_back(r.process_degree);
    s.cut_edges += r.cut_edges;
  }
  s.cut_edges /= 2;  // each cut edge was counted on both sides
  s.owned = summarize(owned);
  s.local_edges = summarize(edges);
  s.ghosts = summarize(ghosts);
  s.edges_with_ghosts = summarize(with_ghosts);
  s.process_degree = summarize(pdeg);
  s.process_edges = static_cast<std::uint64_t>(s.process_degree.total) / 2;
  return s;
}

nlohmann::json to_json(const Summary& s) {
  return {{"min", s.min}, {"max", s.max}, {"avg", s.avg}, {"stddev", s.stddev}, {"total", s.total}};
}

nlohmann::json to_json(const GraphStats& s) {
  nlohmann::json ranks = nlohmann::json::array();
  for (size_t r = 0; r < s.ranks.size(); ++r) {
    const RankFigures& f = s.ranks[r];
    ranks.push_back({{"rank", r},
                     {"owned_vertices", f.owned},
                     {"edges", f.edges},
                     {"ghosts", f.ghosts},
                     {"edges_with_ghosts", f.edges_with_ghosts},
                     {"cut_edges", f.cut_edges},
                     {"process_degree", f.process_degree}});
  }
  return {
      {"graph",
       {{"vertices", s.vertices},
        {"edges", s.edges},
        {"isolated_vertices", s.isolated},
        {"degree", to_json(s.degree)}}},
      {"distribution",
       {{"owned_vertices", to_json(s.owned)},
        {"edges", to_json(s.local_edges)},
        {"ghosts", to_json(s.ghosts)},
        {"edges_with_ghosts", to_json(s.edges_with_ghosts)},
        {"cut_edges", s.cut_edges},
        {"per_rank", ranks}}},
      {"process_graph",
       {{"ranks", s.ranks.size()},
        {"edges", s.process_edges},
        {"degree", to_json(s.process_degree)}}},
  };
}

}  // namespace gc
