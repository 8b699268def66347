// DistGraph: owners, ghosts and the ghost relation, checked against what the
// gathered global edge list and the distribution imply; every edge to a ghost
// has its reverse on the ghost's owner; the edge-balanced layout holds the same
// graph with bounded work per rank; compute_stats agrees with a serial
// recomputation. Graphs: hand-made ones (star, path, isolated vertices, more
// ranks than vertices, no edges) given to the builder scattered, reversed,
// duplicated and with self-loops, and generated ones (rmat, rgg).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <tuple>

#include "core/error.hpp"
#include "graph/build.hpp"
#include "graph/generators.hpp"
#include "graph/ghost_index.hpp"
#include "graph/stats.hpp"
#include "unit/graph/graph_checks.hpp"

namespace gc {
namespace {

using test::EdgeKey;
using UndirectedList = std::vector<std::tuple<vid_t, vid_t, weight_t>>;

struct HandMade {
  std::string name;
  vid_t n;
  UndirectedList edges;  // simple: no loops, each pair once
};

std::vector<HandMade> hand_made_graphs() {
  std::vector<HandMade> out;
  auto weight = [](vid_t a, vid_t b) { return 1.0 / static_cast<double>(1 + a + 2 * b); };
  {
    HandMade star{"star at 0", 50, {}};
    for (vid_t i = 1; i < 50; ++i) star.edges.emplace_back(0, i, weight(0, i));
    out.push_back(star);
  }
  {
    HandMade star{"star at 37", 41, {}};
    for (vid_t i = 0; i < 41; ++i)
      if (i != 37) star.edges.emplace_back(i, 37, weight(i, 37));
    out.push_back(star);
  }
  {
    HandMade path{"path", 101, {}};
    for (vid_t i = 0; i + 1 < 101; ++i) path.edges.emplace_back(i + 1, i, weight(i, i + 1));
    out.push_back(path);
  }
  {
    // Isolated vertices at the front, in the middle and at the end.
    HandMade iso{"isolated", 100, {}};
    for (vid_t k = 3; k < 20; ++k) iso.edges.emplace_back(2 * k, 2 * k + 1, weight(k, k));
    iso.edges.emplace_back(6, 60, 0.75);
    iso.edges.emplace_back(7, 81, 1.0);
    out.push_back(iso);
  }
  {
    // All edges among the first quarter of the ids: equal vertex blocks leave
    // the first rank with nearly all the work.
    HandMade front{"dense front", 400, {}};
    for (vid_t i = 0; i < 100; ++i)
      for (vid_t j = i + 1; j <= i + 10; ++j) front.edges.emplace_back(i, j, weight(i, j));
    out.push_back(front);
  }
  {
    // 25-bit ids: the builder's target sort takes three digits.
    const vid_t n = (vid_t{1} << 25) + 7;
    HandMade wide{"25-bit ids", n, {}};
    for (vid_t k = 0; k < 40; ++k) {
      const vid_t u = k * (n / 41);
      wide.edges.emplace_back(u, u + 1 + k, weight(k, k + 1));
      wide.edges.emplace_back(n - 1, u + 3, weight(k, n));
    }
    // Targets of one row that differ only in the lower two digits.
    for (vid_t j = 0; j < 30; ++j) wide.edges.emplace_back(5, (vid_t{1} << 24) + 900 - 29 * j, 0.5);
    out.push_back(wide);
  }
  out.push_back(HandMade{"three vertices", 3, {{0, 1, 0.5}, {1, 2, 0.25}}});
  out.push_back(HandMade{"triangle", 3, {{0, 1, 0.5}, {1, 2, 0.25}, {2, 0, 0.125}}});
  out.push_back(HandMade{"one vertex", 1, {}});
  out.push_back(HandMade{"no edges", 7, {}});
  out.push_back(HandMade{"two vertices", 2, {{1, 0, 0.3}}});
  return out;
}

// Each rank hands the builder every P-th edge, odd ones reversed, some
// duplicated with a smaller weight (in the other direction) and some
// self-loops: the builder must still produce exactly `edges`.
std::vector<Edge> scattered_input(const Comm& comm, const HandMade& h) {
  std::vector<Edge> mine;
  for (size_t i = 0; i < h.edges.size(); ++i) {
    if (static_cast<int>(i % static_cast<size_t>(comm.size())) != comm.rank()) continue;
    auto [u, v, w] = h.edges[i];
    if (i % 2) std::swap(u, v);
    mine.push_back(Edge{u, v, w});
    if (i % 3 == 0) mine.push_back(Edge{v, u, w / 2});
    if (i % 5 == 0) mine.push_back(Edge{u, u, 2.0});
  }
  // Duplicates handed in by another rank than the original.
  const int next = (comm.rank() + 1) % comm.size();
  for (size_t i = 0; i < h.edges.size(); i += 4)
    if (static_cast<int>(i % static_cast<size_t>(comm.size())) == next) {
      auto [u, v, w] = h.edges[i];
      mine.push_back(Edge{u, v, w * 0.25});
    }
  return mine;
}

// Checks one distributed graph against its gathered directed edge list `all`.
void check_ghosts_and_owners(const Comm& comm, const DistGraph& g,
                             const std::vector<EdgeKey>& all) {
  const int me = comm.rank(), p = comm.size();
  const Distribution& dist = g.distribution();
  const vid_t n = g.global_vertex_count();
  ASSERT_EQ(dist.ranks(), p);  // the same on every rank: returning early cannot hang
  ASSERT_EQ(dist.global_count(), n);
  EXPECT_EQ(g.rank(), me);
  EXPECT_EQ(g.first_owned(), dist.begin(me));
  EXPECT_EQ(g.owned_count(), dist.count(me));
  EXPECT_EQ(g.global_edge_count() * 2, all.size());

  // Owned vertices.
  for (lid_t l = 0; l < g.owned_count(); ++l) {
    const vid_t v = g.global_id(l);
    EXPECT_EQ(v, g.first_owned() + l);
    EXPECT_EQ(g.local_id(v), l);
    EXPECT_EQ(g.owner_of(v), me);
    EXPECT_TRUE(g.is_owned(v));
    EXPECT_FALSE(g.is_ghost_local(l));
  }

  // What the edge list implies for this rank: my rows, my ghosts, my cut
  // edges towards each rank.
  std::vector<EdgeKey> my_rows;
  std::set<vid_t> expected_ghosts;
  std::map<int, eid_t> expected_cut;
  for (const EdgeKey& e : all) {
    if (dist.owner_of(e.u) != me) continue;
    my_rows.push_back(e);
    const int q = dist.owner_of(e.v);
    if (q != me) {
      expected_ghosts.insert(e.v);
      ++expected_cut[q];
    }
  }
  std::vector<EdgeKey> local = test::local_edges(g);
  std::sort(local.begin(), local.end());
  EXPECT_TRUE(local == my_rows);
  EXPECT_EQ(g.local_edge_count(), my_rows.size());
  EXPECT_EQ(g.offsets().size(), g.owned_count() + 1);
  EXPECT_EQ(g.offsets().back(), g.local_edge_count());

  // Ghosts: sorted, owned elsewhere, round trip through local ids.
  EXPECT_EQ(std::vector<vid_t>(expected_ghosts.begin(), expected_ghosts.end()), g.ghosts());
  EXPECT_TRUE(std::is_sorted(g.ghosts().begin(), g.ghosts().end()));
  EXPECT_EQ(std::adjacent_find(g.ghosts().begin(), g.ghosts().end()), g.ghosts().end());
  for (lid_t l = g.owned_count(); l < g.owned_count() + g.ghost_count(); ++l) {
    const vid_t v = g.global_id(l);
    EXPECT_TRUE(g.is_ghost_local(l));
    EXPECT_FALSE(g.is_owned(v));
    EXPECT_EQ(g.local_id(v), l);
    EXPECT_EQ(g.owner_of(v), g.ghost_owner(l));
    EXPECT_EQ(dist.owner_of(v), g.ghost_owner(l));
    EXPECT_NE(g.ghost_owner(l), me);
  }
  // Every local target is owned or a ghost; each row is sorted by global
  // target id, without duplicates.
  for (lid_t t : g.targets()) EXPECT_LT(t, g.owned_count() + g.ghost_count());
  for (lid_t l = 0; l < g.owned_count(); ++l) {
    const auto row = g.neighbors(l);
    for (size_t j = 1; j < row.size(); ++j)
      EXPECT_LT(g.global_id(row[j - 1]), g.global_id(row[j])) << "row of " << g.global_id(l);
  }
  // Neither owned nor a ghost: local_id says so.
  const vid_t step = std::max<vid_t>(1, n / 500);
  for (vid_t v = 0; v < n; v += step) {
    if (!g.is_owned(v) && !expected_ghosts.count(v)) {
      EXPECT_EQ(g.local_id(v), kNoLocal) << v;
    }
  }

  // The ghost relation.
  const GhostRelation& rel = g.ghost_relation();
  std::vector<int> expected_ranks;
  for (const auto& [q, count] : expected_cut) expected_ranks.push_back(q);
  EXPECT_EQ(rel.ranks, expected_ranks);
  EXPECT_EQ(rel.degree(), expected_ranks.size());
  // (No ASSERT before the collectives below: a rank returning early would hang the others.)
  const bool shapes_ok = rel.ghost_begin.size() == rel.ranks.size() &&
                         rel.ghost_end.size() == rel.ranks.size() &&
                         rel.cut_edges.size() == rel.ranks.size();
  EXPECT_TRUE(shapes_ok);
  lid_t cursor = g.owned_count();
  for (size_t i = 0; shapes_ok && i < rel.ranks.size(); ++i) {
    const int q = rel.ranks[i];
    EXPECT_EQ(rel.index_of(q), static_cast<int>(i));
    EXPECT_EQ(rel.ghost_begin[i], cursor) << "ghost ranges must be contiguous";
    EXPECT_LT(rel.ghost_begin[i], rel.ghost_end[i]);
    for (lid_t l = rel.ghost_begin[i]; l < rel.ghost_end[i]; ++l) EXPECT_EQ(g.ghost_owner(l), q);
    cursor = rel.ghost_end[i];
    EXPECT_EQ(rel.cut_edges[i], expected_cut[q]) << "towards rank " << q;
  }
  if (shapes_ok) {
    EXPECT_EQ(cursor, g.owned_count() + g.ghost_count());
  }
  EXPECT_EQ(rel.index_of(me), -1);

  // Symmetric across ranks: p lists q iff q lists p, with the same number of
  // cut edges (each cut edge is stored once on either side).
  std::vector<std::uint64_t> row(static_cast<size_t>(p), 0), matrix(static_cast<size_t>(p * p));
  for (size_t i = 0; shapes_ok && i < rel.ranks.size(); ++i)
    row[static_cast<size_t>(rel.ranks[i])] = rel.cut_edges[i];
  MPI_Allgather(row.data(), p, MPI_UINT64_T, matrix.data(), p, MPI_UINT64_T, comm.get());
  for (int a = 0; a < p; ++a)
    for (int b = 0; b < p; ++b)
      EXPECT_EQ(matrix[static_cast<size_t>(a * p + b)], matrix[static_cast<size_t>(b * p + a)])
          << "ranks " << a << " and " << b;

  // Every edge has its reverse, with the same weight, on the other owner.
  EXPECT_EQ(test::asymmetric_edges(comm, g), 0u);
}

// compute_stats against a recomputation from the edge list on one rank.
void check_stats(const Comm& comm, const DistGraph& g, const std::vector<EdgeKey>& all) {
  const GraphStats s = compute_stats(comm, g);
  const Distribution& dist = g.distribution();
  const vid_t n = g.global_vertex_count();
  const int p = comm.size();
  auto near = [](double expected) { return 1e-9 * std::max(1.0, std::abs(expected)); };

  std::vector<double> degree(n, 0);
  for (const EdgeKey& e : all) degree[e.u] += 1;
  double sum = 0, sq = 0, dmin = n ? degree[0] : 0, dmax = 0;
  std::uint64_t isolated = 0;
  for (double d : degree) {
    sum += d;
    dmin = std::min(dmin, d);
    dmax = std::max(dmax, d);
    isolated += d == 0;
  }
  const double avg = sum / static_cast<double>(n);
  for (double d : degree) sq += (d - avg) * (d - avg);
  EXPECT_EQ(s.vertices, n);
  EXPECT_EQ(s.edges, all.size() / 2);
  EXPECT_EQ(s.isolated, isolated);
  EXPECT_EQ(s.degree.min, dmin);
  EXPECT_EQ(s.degree.max, dmax);
  EXPECT_NEAR(s.degree.avg, avg, near(avg));
  EXPECT_NEAR(s.degree.total, sum, near(sum));
  const double sd = std::sqrt(sq / static_cast<double>(n));
  EXPECT_NEAR(s.degree.stddev, sd, 1e-6 * std::max(1.0, sd));

  // Per-rank figures.
  std::vector<std::uint64_t> edges(p, 0), cut(p, 0), with_ghosts(p, 0);
  std::vector<std::set<vid_t>> ghosts(p);
  std::vector<std::set<int>> partners(p);
  std::uint64_t global_cut = 0;
  for (const EdgeKey& e : all) {
    const int a = dist.owner_of(e.u), b = dist.owner_of(e.v);
    ++edges[a];
    if (a != b) {
      ++cut[a];
      ghosts[a].insert(e.v);
      partners[a].insert(b);
    }
    if (e.u < e.v) {  // once per undirected edge
      ++with_ghosts[a];
      if (a != b) {
        ++with_ghosts[b];
        ++global_cut;
      }
    }
  }
  ASSERT_EQ(s.ranks.size(), static_cast<size_t>(p));
  std::set<std::pair<int, int>> process_edges;
  std::vector<double> owned_d, edges_d, ghosts_d, with_d, pdeg_d;
  for (int r = 0; r < p; ++r) {
    const RankFigures& f = s.ranks[r];
    EXPECT_EQ(f.owned, dist.count(r)) << r;
    EXPECT_EQ(f.edges, edges[r]) << r;
    EXPECT_EQ(f.ghosts, ghosts[r].size()) << r;
    EXPECT_EQ(f.cut_edges, cut[r]) << r;
    EXPECT_EQ(f.edges_with_ghosts, with_ghosts[r]) << r;
    EXPECT_EQ(f.process_degree, static_cast<int>(partners[r].size())) << r;
    for (int q : partners[r]) process_edges.insert({std::min(r, q), std::max(r, q)});
    owned_d.push_back(static_cast<double>(dist.count(r)));
    edges_d.push_back(static_cast<double>(edges[r]));
    ghosts_d.push_back(static_cast<double>(ghosts[r].size()));
    with_d.push_back(static_cast<double>(with_ghosts[r]));
    pdeg_d.push_back(static_cast<double>(partners[r].size()));
  }
  EXPECT_EQ(s.cut_edges, global_cut);
  EXPECT_EQ(s.process_edges, process_edges.size());

  auto check_summary = [&](const Summary& got, const std::vector<double>& values,
                           const char* what) {
    double lo = values[0], hi = values[0], total = 0, var = 0;
    for (double v : values) {
      lo = std::min(lo, v);
      hi = std::max(hi, v);
      total += v;
    }
    const double mean = total / static_cast<double>(values.size());
    for (double v : values) var += (v - mean) * (v - mean);
    const double sigma = std::sqrt(var / static_cast<double>(values.size()));
    EXPECT_EQ(got.min, lo) << what;
    EXPECT_EQ(got.max, hi) << what;
    EXPECT_NEAR(got.total, total, near(total)) << what;
    EXPECT_NEAR(got.avg, mean, near(mean)) << what;
    EXPECT_NEAR(got.stddev, sigma, near(sigma)) << what;
  };
  check_summary(s.owned, owned_d, "owned");
  check_summary(s.local_edges, edges_d, "local edges");
  check_summary(s.ghosts, ghosts_d, "ghosts");
  check_summary(s.edges_with_ghosts, with_d, "edges with ghosts");
  check_summary(s.process_degree, pdeg_d, "process degree");
}

// The edge-balanced layout: at most one vertex's work above the average.
// Returns whether that holds (the same on every rank).
bool work_within_one_vertex_of_average(const Comm& comm, const DistGraph& g) {
  const std::uint64_t work = g.local_edge_count() + g.owned_count();
  std::uint64_t max_vertex_work = 0;
  for (lid_t l = 0; l < g.owned_count(); ++l)
    max_vertex_work = std::max<std::uint64_t>(max_vertex_work, g.degree(l) + 1);
  max_vertex_work = max_over_ranks(comm, max_vertex_work);
  const std::uint64_t total = sum_over_ranks(comm, work);
  const std::uint64_t ceil_avg = (total + comm.size() - 1) / comm.size();
  return max_over_ranks(comm, work) <= ceil_avg + max_vertex_work;
}

void check_edge_balance(const Comm& comm, const DistGraph& g) {
  EXPECT_TRUE(work_within_one_vertex_of_average(comm, g));
  // The ranges stay contiguous, in rank order, and cover every vertex.
  const Distribution& d = g.distribution();
  EXPECT_EQ(d.begin(0), 0u);
  EXPECT_EQ(d.end(comm.size() - 1), g.global_vertex_count());
  for (int r = 0; r + 1 < comm.size(); ++r) EXPECT_EQ(d.end(r), d.begin(r + 1));
}

// The packed and the wide records of the builder give the same layout.
void expect_same_layout(const DistGraph& a, const DistGraph& b) {
  EXPECT_EQ(a.offsets(), b.offsets());
  EXPECT_EQ(a.targets(), b.targets());
  EXPECT_EQ(a.edge_weights(), b.edge_weights());
  EXPECT_EQ(a.ghosts(), b.ghosts());
}

// Built without weights (packed and wide records, and redistributed), a graph
// has the weighted graph's rows and no weight at all.
void expect_unweighted_twin(const Comm& comm, const DistGraph& weighted,
                            const std::function<DistGraph(BuildRecords)>& build) {
  for (BuildRecords records : {BuildRecords::automatic, BuildRecords::wide}) {
    const DistGraph plain = build(records);
    EXPECT_TRUE(weighted.weighted());
    EXPECT_FALSE(plain.weighted());
    EXPECT_TRUE(plain.edge_weights().empty());
    EXPECT_EQ(plain.offsets(), weighted.offsets());
    EXPECT_EQ(plain.targets(), weighted.targets());
    EXPECT_EQ(plain.ghosts(), weighted.ghosts());
    for (lid_t l = 0; l < plain.owned_count(); ++l) EXPECT_TRUE(plain.weights(l).empty());
    const Distribution target = edge_balanced(comm, plain.distribution(), plain.offsets());
    const DistGraph moved = redistribute(comm, plain, target);
    EXPECT_FALSE(moved.weighted());
    const test::EdgeSetSummary a = test::summarize_edges(comm, moved),
                               b = test::summarize_edges(comm, plain);
    EXPECT_EQ(a, b);
  }
}

// The ghost index finds every ghost of each neighbour by its global id and
// refuses every other id of that neighbour's range, and the ids just outside.
void check_ghost_index(const DistGraph& g) {
  const GhostIndex index(g);
  const GhostRelation& rel = g.ghost_relation();
  for (size_t i = 0; i < rel.ranks.size(); ++i) {
    const int at = static_cast<int>(i);
    const Distribution& d = g.distribution();
    std::set<vid_t> ghosts;
    for (lid_t l = rel.ghost_begin[i]; l < rel.ghost_end[i]; ++l) {
      ghosts.insert(g.global_id(l));
      EXPECT_EQ(index.local(at, g.global_id(l)), l) << "ghost " << g.global_id(l);
    }
    // Refusals (each an exception, slow): the range's ends, the neighbours of
    // a few ghosts and about 32 ids spread over the range.
    const vid_t first = d.begin(rel.ranks[i]), last = d.end(rel.ranks[i]);
    std::set<vid_t> probes{first, last - 1};
    std::size_t near = 0;
    for (vid_t v : ghosts)
      if (near++ < 16) probes.insert({v - 1, v + 1});
    for (vid_t v = first; v < last; v += std::max<vid_t>(1, (last - first) / 32)) probes.insert(v);
    for (vid_t v : probes) {
      if (v >= first && v < last && !ghosts.count(v)) {
        EXPECT_THROW(index.local(at, v), Error) << "not a ghost: " << v;
      }
    }
    EXPECT_THROW(index.local(at, d.end(rel.ranks[i])), Error);
    if (d.begin(rel.ranks[i]) > 0) {
      EXPECT_THROW(index.local(at, d.begin(rel.ranks[i]) - 1), Error);
    }
  }
}

void check_all(const Comm& comm, const DistGraph& g, const std::vector<EdgeKey>& expected) {
  const std::vector<EdgeKey> all = test::gather_edges(comm, g);
  EXPECT_EQ(all.size(), expected.size());
  EXPECT_TRUE(all == expected);
  check_ghosts_and_owners(comm, g, all);
  check_stats(comm, g, all);
  check_ghost_index(g);
}

TEST(DistGraph, HandMadeGraphs) {
  const Comm world = Comm::world();
  for (const HandMade& h : hand_made_graphs()) {
    SCOPED_TRACE(h.name);
    const std::vector<EdgeKey> expected = test::both_directions(h.edges);
    const DistGraph block = build_graph(world, h.n, scattered_input(world, h));
    EXPECT_EQ(block.global_vertex_count(), h.n);
    EXPECT_EQ(block.global_edge_count(), h.edges.size());
    const Distribution even = Distribution::block(h.n, world.size());
    EXPECT_EQ(block.distribution().offsets(), even.offsets());
    check_all(world, block, expected);
    expect_same_layout(block, build_graph(world, h.n, scattered_input(world, h), Balance::vertices,
                                          BuildRecords::wide));
    expect_unweighted_twin(world, block, [&](BuildRecords r) {
      return build_graph(world, h.n, scattered_input(world, h), Balance::vertices, r,
                         EdgeWeights::none);
    });

    const DistGraph balanced = build_graph(world, h.n, scattered_input(world, h), Balance::edges);
    EXPECT_EQ(test::summarize_edges(world, balanced), test::summarize_edges(world, block));
    check_all(world, balanced, expected);
    check_edge_balance(world, balanced);
  }
}

TEST(DistGraph, GeneratedGraphs) {
  const Comm world = Comm::world();
  RmatParams rp;
  rp.scale = 10;
  RggParams gp;
  gp.n = 5000;
  const std::vector<std::pair<std::string, std::function<std::vector<Edge>()>>> gens = {
      {"rmat", [&] { return rmat_edges(world, rp, 2); }},
      {"rgg", [&] { return rgg_edges(world, gp, 2); }},
  };
  for (const auto& [name, gen] : gens) {
    SCOPED_TRACE(name);
    const vid_t n = name == "rmat" ? vid_t{1} << rp.scale : gp.n;
    const DistGraph block = build_graph(world, n, gen());
    // The reference edge list: the same graph built by this rank alone.
    const Comm self = Comm::self();
    const std::vector<EdgeKey> serial = [&] {
      RmatParams r = rp;
      RggParams q = gp;
      return test::gather_edges(
          self,
          build_graph(self, n, name == "rmat" ? rmat_edges(self, r, 2) : rgg_edges(self, q, 2)));
    }();
    check_all(world, block, serial);
    expect_same_layout(block, build_graph(world, n, gen(), Balance::vertices, BuildRecords::wide));
    expect_unweighted_twin(world, block, [&](BuildRecords r) {
      return build_graph(world, n, gen(), Balance::vertices, r, EdgeWeights::none);
    });
    const DistGraph balanced = build_graph(world, n, gen(), Balance::edges);
    EXPECT_EQ(test::summarize_edges(world, balanced), test::summarize_edges(world, block));
    check_all(world, balanced, serial);
    check_edge_balance(world, balanced);
  }
}

// A rank whose local vertices outnumber the local ids is refused on every
// rank with one message naming the limit and the way out.
TEST(DistGraph, LocalIdLimitIsRefusedOnEveryRank) {
  const Comm world = Comm::world();
  const std::uint64_t mine = 100 + static_cast<std::uint64_t>(world.rank());
  EXPECT_NO_THROW(check_local_ids(world, mine, 100 + world.size() - 1));
  try {
    check_local_ids(world, mine, 100 + world.size() - 2);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_TRUE(e.agreed());
    const std::string what = e.what();
    EXPECT_NE(what.find(fmt::format("rank {} would hold {} local vertices", world.size() - 1,
                                    100 + world.size() - 1)),
              std::string::npos)
        << what;
    EXPECT_NE(what.find("GRAPHCOMM_LOCAL_ID_BITS=64"), std::string::npos) << what;
  }
  static_assert(sizeof(lid_t) * 8 == GRAPHCOMM_LOCAL_ID_BITS);
  EXPECT_EQ(kMaxLocalVertices, ~std::uint64_t{0} >> (64 - GRAPHCOMM_LOCAL_ID_BITS));
}

TEST(DistGraph, RedistributeToUnevenRanges) {
  // Ranges with empty ranks, everything on one rank, and the reverse of block.
  const Comm world = Comm::world();
  const int p = world.size();
  RmatParams rp;
  rp.scale = 8;
  const vid_t n = 256;
  const DistGraph g = build_graph(world, n, rmat_edges(world, rp, 4));
  const std::vector<EdgeKey> expected = test::gather_edges(world, g);
  std::vector<std::vector<vid_t>> layouts;
  {
    std::vector<vid_t> last_has_all(static_cast<size_t>(p) + 1, 0);
    last_has_all.back() = n;
    layouts.push_back(last_has_all);
    std::vector<vid_t> first_has_all(static_cast<size_t>(p) + 1, n);
    first_has_all[0] = 0;
    layouts.push_back(first_has_all);
    std::vector<vid_t> skewed(static_cast<size_t>(p) + 1);
    for (int r = 0; r <= p; ++r)  // quadratic: small ranges first
      skewed[static_cast<size_t>(r)] = n * static_cast<vid_t>(r * r) / static_cast<vid_t>(p * p);
    layouts.push_back(skewed);
  }
  for (const auto& offsets : layouts) {
    SCOPED_TRACE(::testing::PrintToString(offsets));
    const DistGraph moved = redistribute(world, g, Distribution::from_offsets(offsets));
    EXPECT_EQ(moved.distribution().offsets(), offsets);
    check_all(world, moved, expected);
  }
}

TEST(DistGraph, MoreRanksThanVerticesLeavesEmptyRanksValid) {
  const Comm world = Comm::world();
  const std::vector<Edge> input =
      world.rank() == 0 ? std::vector<Edge>{{0, 1, 0.5}, {2, 1, 0.25}} : std::vector<Edge>{};
  const DistGraph g = build_graph(world, 3, input);
  const vid_t owned = sum_over_ranks<std::uint64_t>(world, g.owned_count());
  EXPECT_EQ(owned, 3u);
  if (g.owned_count() == 0) {
    EXPECT_EQ(g.ghost_count(), 0u);
    EXPECT_EQ(g.local_edge_count(), 0u);
    EXPECT_TRUE(g.ghost_relation().ranks.empty());
  }
  EXPECT_EQ(g.global_edge_count(), 2u);
  EXPECT_EQ(compute_stats(world, g).edges, 2u);
}

TEST(DistGraph, BalanceCheckTellsBlocksFromEdgeBalance) {
  // The balance check of the tests above must be able to fail: on the dense
  // front graph the vertex blocks are far off, the edge-balanced ranges not.
  const Comm world = Comm::world();
  HandMade front;
  for (const HandMade& h : hand_made_graphs())
    if (h.name == "dense front") front = h;
  ASSERT_EQ(front.n, 400u);
  const DistGraph block = build_graph(world, front.n, scattered_input(world, front));
  const DistGraph balanced =
      build_graph(world, front.n, scattered_input(world, front), Balance::edges);
  EXPECT_TRUE(work_within_one_vertex_of_average(world, balanced));
  if (world.size() >= 2) {
    EXPECT_FALSE(work_within_one_vertex_of_average(world, block));
  }
}

TEST(DistGraph, ReverseEdgeCheckCanFail) {
  // A CSR handed straight to DistGraph, bypassing the builder: 0->1 and 1->0
  // with different weights, 2->3 twice and 3->2 once, 4->5 without 5->4.
  const Comm world = Comm::world();
  const Distribution dist = Distribution::block(6, world.size());
  std::vector<eid_t> offsets{0};
  std::vector<vid_t> targets;
  std::vector<weight_t> weights;
  for (vid_t v = dist.begin(world.rank()); v < dist.end(world.rank()); ++v) {
    const std::vector<std::pair<vid_t, weight_t>> rows[6] = {
        {{1, 0.5}}, {{0, 0.25}}, {{3, 1.0}, {3, 1.0}}, {{2, 1.0}}, {{5, 1.0}}, {}};
    for (const auto& [t, w] : rows[v]) {
      targets.push_back(t);
      weights.push_back(w);
    }
    offsets.push_back(targets.size());
  }
  const DistGraph g(world, dist, offsets, targets, weights);
  // At least: two weight mismatches, one duplicate row, one missing reverse.
  EXPECT_GE(test::asymmetric_edges(world, g), 4u);
}

TEST(Stats, SummarizeByHand) {
  const Summary s = summarize({4, 1, 3, 2});
  EXPECT_EQ(s.min, 1);
  EXPECT_EQ(s.max, 4);
  EXPECT_EQ(s.total, 10);
  EXPECT_DOUBLE_EQ(s.avg, 2.5);
  EXPECT_DOUBLE_EQ(s.stddev, std::sqrt(1.25));  // population: ((1.5^2+0.5^2)*2)/4
  const Summary empty = summarize({});
  EXPECT_EQ(empty.total, 0);
}

}  // namespace
}  // namespace gc
