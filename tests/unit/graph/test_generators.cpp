// Generators: the global graph is a function of the seed only. Each generator
// is built on MPI_COMM_WORLD, on each rank alone (Comm::self, the serial
// graph) and on two halves of the ranks; the edge-set checksums must agree.
// Then properties every generated graph must have (simple, symmetric, weights
// in (0,1]) and a few per generator (RMAT's vertex count, RGG's edge set
// against a brute-force O(n^2) recomputation and its path-shaped process
// graph, ER's average degree, SBM's block densities, the grid's edge set
// against its coordinates).
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <string>

#include "core/output.hpp"
#include "core/rng.hpp"
#include "graph/build.hpp"
#include "graph/generators.hpp"
#include "graph/spec.hpp"
#include "unit/graph/graph_checks.hpp"

namespace gc {
namespace {

using test::EdgeKey;
using test::EdgeSetSummary;

using Generate = std::function<DistGraph(const Comm&, std::uint64_t seed)>;

struct Case {
  std::string name;
  Generate generate;
};

constexpr int kRmatScale = 10;
constexpr vid_t kRggN = 5000, kErN = 4000, kSbmN = 3000;

std::vector<Case> cases() {
  return {
      {"rmat",
       [](const Comm& c, std::uint64_t seed) {
         RmatParams p;
         p.scale = kRmatScale;
         return build_graph(c, vid_t{1} << kRmatScale, rmat_edges(c, p, seed));
       }},
      {"rgg",
       [](const Comm& c, std::uint64_t seed) {
         RggParams p;
         p.n = kRggN;
         p.radius = rgg_default_radius(kRggN);
         return build_graph(c, kRggN, rgg_edges(c, p, seed));
       }},
      {"er",
       [](const Comm& c, std::uint64_t seed) {
         ErParams p;
         p.n = kErN;
         p.avg_degree = 10;
         return build_graph(c, kErN, er_edges(c, p, seed));
       }},
      {"sbm",
       [](const Comm& c, std::uint64_t seed) {
         SbmParams p;
         p.n = kSbmN;
         p.blocks = 7;  // blocks of unequal integer sizes (3000/7)
         return build_graph(c, kSbmN, sbm_edges(c, p, seed));
       }},
      {"grid",
       [](const Comm& c, std::uint64_t seed) {
         GridParams p;
         p.side = 7;  // 343 vertices: ranges cut planes and rows unevenly
         return build_graph(c, grid_vertex_count(p), grid_edges(c, p, seed));
       }},
  };
}

// Ranks split into a lower and an upper half (the upper one larger at odd
// sizes); at one rank, the whole world.
Comm half_of_world() {
  Comm world = Comm::world();
  const int color = world.size() >= 2 && world.rank() >= world.size() / 2 ? 1 : 0;
  return world.split(color, world.rank());
}

TEST(Generators, SameGraphOnWorldSelfAndHalves) {
  const Comm world = Comm::world();
  const Comm self = Comm::self();
  const Comm half = half_of_world();
  for (const Case& c : cases()) {
    for (std::uint64_t seed : {1ULL, 12345ULL}) {
      SCOPED_TRACE(c.name + " seed " + std::to_string(seed));
      const EdgeSetSummary on_world = test::summarize_edges(world, c.generate(world, seed));
      const EdgeSetSummary on_self = test::summarize_edges(self, c.generate(self, seed));
      const EdgeSetSummary on_half = test::summarize_edges(half, c.generate(half, seed));
      EXPECT_EQ(on_world, on_self);
      EXPECT_EQ(on_world, on_half);
      EXPECT_GT(on_world.edges, 0u);
      EXPECT_EQ(on_world.directed_edges, 2 * on_world.edges);
    }
  }
}

TEST(Generators, GatheredEdgeListsAgreeAcrossRankCounts) {
  // The checksum could in principle collide; the full lists cannot.
  const Comm world = Comm::world();
  const Comm self = Comm::self();
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    const std::vector<EdgeKey> distributed = test::gather_edges(world, c.generate(world, 7), 0);
    const std::vector<EdgeKey> serial = test::gather_edges(self, c.generate(self, 7));
    if (world.rank() == 0) {
      EXPECT_EQ(distributed.size(), serial.size());
      EXPECT_TRUE(distributed == serial);
    }
  }
}

TEST(Generators, SimpleSymmetricWithWeightsInUnitInterval) {
  const Comm world = Comm::world();
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    const std::uint64_t seed = 3;
    const DistGraph g = c.generate(world, seed);
    EXPECT_EQ(test::asymmetric_edges(world, g), 0u);
    const std::vector<EdgeKey> all = test::gather_edges(world, g);
    EXPECT_EQ(all.size(), 2 * g.global_edge_count());
    std::uint64_t loops = 0, bad_weight = 0, missing_reverse = 0, duplicates = 0, not_from_seed = 0;
    for (size_t i = 0; i < all.size(); ++i) {
      const EdgeKey& e = all[i];
      const double w = test::weight_of(e);
      loops += e.u == e.v;
      bad_weight += !(w > 0.0 && w <= 1.0);
      missing_reverse += !std::binary_search(all.begin(), all.end(), test::key(e.v, e.u, w));
      duplicates += i > 0 && all[i - 1].u == e.u && all[i - 1].v == e.v;
      not_from_seed += w != edge_weight_from_seed(seed, e.u, e.v);
      EXPECT_LT(e.u, g.global_vertex_count());
      EXPECT_LT(e.v, g.global_vertex_count());
    }
    EXPECT_EQ(loops, 0u);
    EXPECT_EQ(bad_weight, 0u);
    EXPECT_EQ(missing_reverse, 0u);
    EXPECT_EQ(duplicates, 0u);
    EXPECT_EQ(not_from_seed, 0u);
  }
}

TEST(Generators, DifferentSeedGivesDifferentGraph) {
  const Comm world = Comm::world();
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    const EdgeSetSummary a = test::summarize_edges(world, c.generate(world, 1));
    const EdgeSetSummary b = test::summarize_edges(world, c.generate(world, 2));
    EXPECT_NE(a.checksum, b.checksum);
    // Same structure ignoring weights would still be a failure of the seeding:
    // compare the edge sets without weights too (the grid's structure is not
    // random: only its weights come from the seed).
    if (c.name == "grid") continue;
    const auto strip = [](std::vector<EdgeKey> es) {
      for (EdgeKey& e : es) e.w = 0;
      return es;
    };
    const auto ea = strip(test::gather_edges(world, c.generate(world, 1)));
    const auto eb = strip(test::gather_edges(world, c.generate(world, 2)));
    EXPECT_FALSE(ea == eb);
  }
}

TEST(Generators, RmatHasTwoToTheScaleVertices) {
  const Comm world = Comm::world();
  for (int scale : {1, 5, kRmatScale}) {
    RmatParams p;
    p.scale = scale;
    p.edgefactor = 8;
    const std::vector<Edge> raw = rmat_edges(world, p, 5);
    // Each rank generates its share of the edgefactor * 2^scale edge slots.
    EXPECT_EQ(sum_over_ranks<std::uint64_t>(world, raw.size()), std::uint64_t{8} << scale);
    std::uint64_t beyond = 0;
    for (const Edge& e : raw) beyond += (e.u >> scale) != 0 || (e.v >> scale) != 0;
    EXPECT_EQ(beyond, 0u);
    const DistGraph g = build_graph(world, vid_t{1} << scale, raw);
    EXPECT_EQ(g.global_vertex_count(), vid_t{1} << scale);
  }
  // Through the graph specification as well.
  Progress::set_quiet(true);
  LoadOptions options;
  options.seed = 9;
  const LoadedGraph loaded = load_graph(world, "rmat:10", options);
  EXPECT_EQ(loaded.graph.global_vertex_count(), vid_t{1} << 10);
  RmatParams p;
  p.scale = 10;
  EXPECT_EQ(test::summarize_edges(world, loaded.graph),
            test::summarize_edges(world, build_graph(world, 1024, rmat_edges(world, p, 9))));
}

// CounterRng's lockstep blocks (its own rounds) are Random123's Philox4x64-10.
TEST(CounterRng, LockstepBlocksAreRandom123Philox) {
  for (std::uint64_t seed : {0ULL, 1ULL, 0x9E3779B97F4A7C15ULL, ~0ULL}) {
    const CounterRng rng(seed);
    for (std::uint64_t base : {0ULL, 12345ULL, ~0ULL - 5}) {
      std::array<std::uint64_t, 3> index{base, base + 1, base * 7 + 3};
      std::array<std::uint64_t, 3> sub{0, base ^ 0xabcdefULL, 20};
      const auto blocks = rng.words(Stream::rmat_edge, index, sub);
      for (std::size_t n = 0; n < 3; ++n)
        EXPECT_EQ(blocks[n], rng.words(Stream::rmat_edge, index[n], sub[n]))
            << "seed " << seed << " index " << index[n] << " sub " << sub[n];
    }
  }
}

// Edge k of R-MAT, by the definition, one Philox block at a time: the
// generator (which makes several edges at once) must give exactly these, on
// every rank's share, for scales whose levels do not fill the last block and
// shares that do not fill the last batch.
// Without scramble the labels are the drawn bits themselves.
TEST(Generators, RmatEdgesAreTheDefinitionsPerEdge) {
  const Comm world = Comm::world();
  for (bool scramble : {true, false})
    for (int scale : {1, 5, 10, 13}) {
      RmatParams p;
      p.scale = scale;
      p.edgefactor = 3;
      p.scramble = scramble;
      const std::uint64_t seed = 41;
      const std::vector<Edge> made = rmat_edges(world, p, seed);
      const std::uint64_t m = std::uint64_t{3} << scale;
      const std::uint64_t first =
          m * static_cast<std::uint64_t>(world.rank()) / static_cast<std::uint64_t>(world.size());
      ASSERT_EQ(made.size(), m * static_cast<std::uint64_t>(world.rank() + 1) /
                                     static_cast<std::uint64_t>(world.size()) -
                                 first);
      auto threshold = [](double x) { return static_cast<std::uint64_t>(x * 4294967296.0); };
      const std::uint64_t t_ab = threshold(0.57 + 0.19), t_a = threshold(0.57 / (0.57 + 0.19)),
                          t_c = threshold(0.19 / (1 - 0.57 - 0.19));
      const CounterRng rng(seed);
      for (std::size_t x = 0; x < made.size(); ++x) {
        const std::uint64_t k = first + x;
        vid_t i = 0, j = 0;
        for (int bit = 0; bit < scale; ++bit) {
          const std::uint64_t word = rng.words(Stream::rmat_edge, k, bit / 4 * 4)[bit % 4];
          const bool row = (word >> 32) > t_ab;
          const bool col = (word & 0xffffffffULL) > (row ? t_c : t_a);
          i |= vid_t{row} << bit;
          j |= vid_t{col} << bit;
        }
        const vid_t u = scramble ? rmat_permute(i, scale, seed) : i;
        const vid_t v = scramble ? rmat_permute(j, scale, seed) : j;
        ASSERT_EQ(made[x].u, u) << "scale " << scale << " edge " << k;
        ASSERT_EQ(made[x].v, v) << "scale " << scale << " edge " << k;
        ASSERT_EQ(made[x].w, edge_weight_from_seed(seed, u, v))
            << "scale " << scale << " edge " << k;
      }
    }
}

TEST(Generators, RmatScrambleIsABijection) {
  for (int scale : {1, 3, 10, 14}) {
    const vid_t n = vid_t{1} << scale;
    std::vector<bool> seen(n, false);
    for (vid_t v = 0; v < n; ++v) {
      const vid_t image = rmat_permute(v, scale, 77);
      ASSERT_LT(image, n);
      EXPECT_FALSE(seen[image]) << "scale " << scale << " v " << v;
      seen[image] = true;
    }
  }
}

TEST(Generators, RggMatchesBruteForce) {
  // Edge {i, j} iff the points are within the radius: recompute over all pairs.
  const Comm world = Comm::world();
  for (vid_t n : {vid_t{1}, vid_t{2}, vid_t{7}, vid_t{300}, vid_t{2000}}) {
    for (double radius : {0.0, 0.05, 0.3, 1e-7}) {  // 1e-7: far below 1/sqrt(n)
      if (radius > 0.1 && n > 300) continue;        // keep the gathered list small
      SCOPED_TRACE("n " + std::to_string(n) + " radius " + std::to_string(radius));
      RggParams p;
      p.n = n;
      p.radius = radius > 0 ? radius : rgg_default_radius(n);
      const std::uint64_t seed = 11;
      const std::vector<EdgeKey> got =
          test::gather_edges(world, build_graph(world, n, rgg_edges(world, p, seed)));
      std::vector<double> xs(n), ys(n);
      for (vid_t i = 0; i < n; ++i) rgg_point(i, n, seed, xs[i], ys[i]);
      std::vector<std::tuple<vid_t, vid_t, weight_t>> expected;
      for (vid_t i = 0; i < n; ++i) {
        EXPECT_GE(xs[i], static_cast<double>(i) / static_cast<double>(n));
        EXPECT_LT(xs[i], static_cast<double>(i + 1) / static_cast<double>(n));
        for (vid_t j = i + 1; j < n; ++j) {
          const double dx = xs[i] - xs[j], dy = ys[i] - ys[j];
          if (dx * dx + dy * dy <= p.radius * p.radius)
            expected.emplace_back(i, j, edge_weight_from_seed(seed, i, j));
        }
      }
      const std::vector<EdgeKey> want = test::both_directions(expected);
      EXPECT_EQ(got.size(), want.size());
      EXPECT_TRUE(got == want);
    }
  }
}

TEST(Generators, RggProcessGraphIsAPath) {
  const Comm world = Comm::world();
  RggParams p;
  p.n = 200000;
  const DistGraph g = build_graph(world, p.n, rgg_edges(world, p, 1));
  const int r = world.rank(), size = world.size();
  std::vector<int> expected;  // strips of width 1/P >> radius: only the adjacent ones
  if (r > 0) expected.push_back(r - 1);
  if (r + 1 < size) expected.push_back(r + 1);
  EXPECT_EQ(g.ghost_relation().ranks, expected) << "rank " << r;
}

TEST(Generators, ErAverageDegreeNearRequested) {
  const Comm world = Comm::world();
  for (double d : {4.0, 16.0}) {
    ErParams p;
    p.n = 20000;
    p.avg_degree = d;
    const DistGraph g = build_graph(world, p.n, er_edges(world, p, 21));
    const double avg = 2.0 * static_cast<double>(g.global_edge_count()) / 20000.0;
    EXPECT_NEAR(avg, d, 0.1 * d);
  }
  // p = 1: the complete graph, exactly.
  ErParams full;
  full.n = 40;
  full.p = 1.0;
  const DistGraph k40 = build_graph(world, full.n, er_edges(world, full, 3));
  EXPECT_EQ(k40.global_edge_count(), 40u * 39u / 2u);
}

TEST(Generators, SbmDenserInsideBlocks) {
  const Comm world = Comm::world();
  SbmParams p;
  p.n = 4000;
  p.blocks = 8;
  p.p_in = 0.02;
  p.p_out = 0.001;
  const std::vector<EdgeKey> all =
      test::gather_edges(world, build_graph(world, p.n, sbm_edges(world, p, 4)));
  // Counts of undirected pairs inside and across blocks, against the
  // expectations p * (number of pairs), within 6 standard deviations.
  double inside = 0, across = 0;
  for (const EdgeKey& e : all) {
    if (e.u > e.v) continue;
    (sbm_block_of(e.u, p.n, p.blocks) == sbm_block_of(e.v, p.n, p.blocks) ? inside : across) += 1;
  }
  const double bs = 500;
  const double pairs_in = p.blocks * bs * (bs - 1) / 2, pairs_out = 4000.0 * 3999 / 2 - pairs_in;
  const double mean_in = p.p_in * pairs_in, mean_out = p.p_out * pairs_out;
  EXPECT_NEAR(inside, mean_in, 6 * std::sqrt(mean_in));
  EXPECT_NEAR(across, mean_out, 6 * std::sqrt(mean_out));
  for (vid_t v : {vid_t{0}, vid_t{499}, vid_t{500}, vid_t{3999}})
    EXPECT_EQ(sbm_block_of(v, p.n, p.blocks), static_cast<int>(v / 500));
}

TEST(Generators, GridIsTheStencilOfItsCoordinates) {
  const Comm world = Comm::world();
  for (int d : {1, 2, 3}) {
    SCOPED_TRACE("d = " + std::to_string(d));
    GridParams p;
    p.side = 5;
    p.dimensions = d;
    const vid_t n = grid_vertex_count(p);
    const std::vector<EdgeKey> all =
        test::gather_edges(world, build_graph(world, n, grid_edges(world, p, 2)));
    // Brute force: an edge iff the coordinates differ by one in exactly one place.
    auto coords = [&](vid_t v) {
      std::array<int, 3> c{};
      for (int i = 0; i < d; ++i, v /= 5) c[static_cast<size_t>(i)] = static_cast<int>(v % 5);
      return c;
    };
    std::set<std::pair<vid_t, vid_t>> expected, got;
    for (vid_t u = 0; u < n; ++u)
      for (vid_t v = 0; v < n; ++v) {
        int distance = 0;
        for (int i = 0; i < 3; ++i) distance += std::abs(coords(u)[i] - coords(v)[i]);
        if (distance == 1) expected.insert({u, v});
      }
    for (const EdgeKey& e : all) got.insert({e.u, e.v});
    EXPECT_EQ(got, expected);
    EXPECT_EQ(expected.size(), 2u * static_cast<size_t>(d) * 4u * (n / 5u));  // d*(K-1)*K^(d-1)
  }
}

}  // namespace
}  // namespace gc
