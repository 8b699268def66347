#include "graph/stats.hpp"

#include <algorithm>
#include <cmath>
#include <functional>

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

namespace {

void sort_unique(std::vector<PartPair>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

// The distinct pairs, each on one rank: the pairs of a part held by several
// ranks are merged on the rank holding its first vertex.
std::vector<PartPair> distinct_pairs(const Comm& comm, const DistGraph& g,
                                     const Distribution& parts, std::vector<PartPair> pairs) {
  sort_unique(pairs);  // by part, hence by holder rank
  std::vector<std::uint64_t> counts(static_cast<size_t>(comm.size()), 0);
  for (const PartPair& x : pairs)
    ++counts[static_cast<size_t>(g.owner_of(parts.begin(static_cast<int>(x.part))))];
  pairs = alltoallv(comm, pairs, counts);
  sort_unique(pairs);
  return pairs;
}

// Per part, the sum of weight(pair) over its distinct pairs; complete on every rank.
std::vector<std::uint64_t> sum_per_part(
    const Comm& comm, size_t np, const std::vector<PartPair>& distinct,
    const std::function<std::uint64_t(const PartPair&)>& weight) {
  std::vector<std::uint64_t> mine(np, 0);
  for (const PartPair& x : distinct) mine[x.part] += weight(x);
  return allreduce_each(comm, mine, MPI_SUM);
}

// What this rank's owned vertices add to the parts' figures, in one pass over
// their edges, with no list per cut edge (which at many parts is most of the
// graph, to sort). `sums` holds per part its edges, its cut edges and its
// ghosts (np each). The graph is undirected, so an owned vertex v is a ghost
// of part q exactly when a neighbour of v lies in q: each v counts once for
// each other part among its neighbours. `neighbour_parts` holds each pair
// (part, neighbour part) once per run of owned vertices in one part (a part
// and a rank's owned vertices are both ranges of ids), so about once per
// process-graph edge.
struct CutFigures {
  std::vector<std::uint64_t> sums;
  std::vector<PartPair> neighbour_parts;
};
CutFigures cut_figures(const DistGraph& g, const Distribution& parts) {
  const size_t np = static_cast<size_t>(parts.ranks());
  constexpr std::uint64_t kNone = ~std::uint64_t{0};
  CutFigures out{std::vector<std::uint64_t>(3 * np, 0), {}};
  // Per part q: the last owned vertex counted as its ghost, and the last
  // part that listed q as a neighbour.
  std::vector<std::uint64_t> ghost_counted(np, kNone), listed_by(np, kNone);
  for (lid_t l = 0; l < g.owned_count(); ++l) {
    const auto p = static_cast<std::uint64_t>(parts.owner_of(g.global_id(l)));
    out.sums[p] += g.degree(l);
    for (lid_t t : g.neighbors(l)) {
      const auto q = static_cast<std::uint64_t>(parts.owner_of(g.global_id(t)));
      if (q == p) continue;
      ++out.sums[np + p];
      if (ghost_counted[q] != l) {
        ghost_counted[q] = l;
        ++out.sums[2 * np + q];
      }
      if (listed_by[q] != p) {
        listed_by[q] = p;
        out.neighbour_parts.push_back({p, q});
      }
    }
  }
  return out;
}

// The figures of each part of `parts` (a distribution of g's global ids),
// complete on every rank, and the process graph's pairs, each once on one
// rank. Collective.
std::vector<RankFigures> part_figures(const Comm& comm, const DistGraph& g,
                                      const Distribution& parts, std::vector<PartPair>& pairs) {
  const size_t np = static_cast<size_t>(parts.ranks());
  CutFigures mine = cut_figures(g, parts);
  const std::vector<std::uint64_t> total = allreduce_each(comm, mine.sums, MPI_SUM);
  pairs = distinct_pairs(comm, g, parts, std::move(mine.neighbour_parts));
  const std::vector<std::uint64_t> degrees =
      sum_per_part(comm, np, pairs, [](const PartPair&) -> std::uint64_t { return 1; });
  std::vector<RankFigures> out(np);
  for (size_t p = 0; p < np; ++p) {
    RankFigures& f = out[p];
    f.owned = parts.count(static_cast<int>(p));
    f.edges = total[p];
    f.cut_edges = total[np + p];
    f.ghosts = total[2 * np + p];
    f.edges_with_ghosts = (f.edges - f.cut_edges) / 2 + f.cut_edges;
    f.process_degree = static_cast<int>(degrees[p]);
  }
  return out;
}

}  // namespace

std::vector<std::uint64_t> sum_over_neighbours(
    const Comm& comm, const DistGraph& g, const GraphStats& s,
    const std::function<std::uint64_t(int part, int neighbour)>& weight) {
  if (!s.of_parts) {  // the ranks as they hold g
    std::uint64_t mine = 0;
    for (int q : g.ghost_relation().ranks) mine += weight(comm.rank(), q);
    return allgather(comm, mine);
  }
  return sum_per_part(comm, s.ranks.size(), s.part_pairs, [&](const PartPair& x) {
    return weight(static_cast<int>(x.part), static_cast<int>(x.neighbour));
  });
}

std::vector<std::vector<int>> neighbour_lists(const Comm& comm, const DistGraph& g,
                                              const GraphStats& s) {
  std::vector<int> mine;  // (part, neighbour) pairs
  if (!s.of_parts) {
    for (int q : g.ghost_relation().ranks) mine.insert(mine.end(), {comm.rank(), q});
  } else {
    for (const PartPair& x : s.part_pairs)
      mine.insert(mine.end(), {static_cast<int>(x.part), static_cast<int>(x.neighbour)});
  }
  const std::vector<int> every = allgatherv(comm, mine);
  std::vector<std::vector<int>> out(s.ranks.size());
  for (size_t i = 0; i + 1 < every.size(); i += 2)
    out[static_cast<size_t>(every[i])].push_back(every[i + 1]);
  for (std::vector<int>& l : out) std::sort(l.begin(), l.end());
  return out;
}

GraphStats compute_stats(const Comm& comm, const DistGraph& g, const Distribution* parts) {
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

  if (parts) {
    s.ranks = part_figures(comm, g, *parts, s.part_pairs);
    s.of_parts = true;
  } else {  // per-rank figures, gathered everywhere
    RankFigures mine;
    mine.owned = g.owned_count();
    mine.edges = g.local_edge_count();
    mine.ghosts = g.ghost_count();
    for (eid_t c : g.ghost_relation().cut_edges) mine.cut_edges += c;
    mine.edges_with_ghosts = (mine.edges - mine.cut_edges) / 2 + mine.cut_edges;
    mine.process_degree = static_cast<int>(g.ghost_relation().degree());
    s.ranks = allgather(comm, mine);
  }

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
  const char* unit = s.of_parts ? "part" : "rank";
  for (size_t r = 0; r < s.ranks.size(); ++r) {
    const RankFigures& f = s.ranks[r];
    ranks.push_back({{unit, r},
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
        {s.of_parts ? "per_part" : "per_rank", ranks}}},
      {"process_graph",
       {{s.of_parts ? "parts" : "ranks", s.ranks.size()},
        {"edges", s.process_edges},
        {"degree", to_json(s.process_degree)}}},
  };
}

}  // namespace gc
