// SSSP (Graph500 kernel 3): for every algorithm (delta-stepping at several
// bucket widths, Bellman-Ford) over every exchange model, every rank count
// and both distributions, each search must give, to the last bit, the
// distances of a serial Dijkstra computed here from the gathered weighted
// edge list, independently of gc::sssp; the validator must accept every
// result and catch each rule broken in a hand-corrupted one; zero weights,
// disconnected graphs, roots of degree 0, repeated edges and float weights.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <queue>
#include <set>

#include <fmt/format.h>

#include "comm/models.hpp"
#include "graph/build.hpp"
#include "graph/spec.hpp"
#include "kernels/bfs/graph500.hpp"
#include "kernels/sssp/sssp.hpp"
#include "unit/graph/graph_checks.hpp"

namespace gc {
namespace {

using sssp::kNoParent;
using sssp::kUnreached;

const Comm& world() {
  static Comm c = Comm::world();
  return c;
}

DistGraph load(const std::string& spec, Balance balance = Balance::vertices,
               EdgeWeights weights = EdgeWeights::kept) {
  LoadOptions o;
  o.seed = 7;
  o.balance = balance;
  o.edge_weights = weights;
  o.duplicates = Duplicates::lightest;
  return load_graph(world(), spec, o).graph;
}

// A graph given by edges on rank 0 (repeated edges keep the lightest copy).
DistGraph from_rank0(vid_t n, const std::vector<Edge>& edges) {
  return build_graph(world(), n, world().rank() == 0 ? edges : std::vector<Edge>{},
                     Balance::vertices, BuildRecords::automatic, EdgeWeights::kept,
                     Duplicates::lightest);
}

// ------------------------------------------------------------ serial reference

// Dijkstra over the gathered directed edges, each distance the parent's plus
// the weight in double, as the specification's distances are.
std::vector<double> serial_dijkstra(const DistGraph& g, vid_t root) {
  const vid_t n = g.global_vertex_count();
  std::vector<std::vector<std::pair<vid_t, double>>> adj(n);
  for (const test::EdgeKey& e : test::gather_edges(world(), g))
    adj[e.u].emplace_back(e.v, test::weight_of(e));
  std::vector<double> dist(n, kUnreached);
  using Entry = std::pair<double, vid_t>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> queue;
  dist[root] = 0;
  queue.push({0.0, root});
  while (!queue.empty()) {
    const auto [d, u] = queue.top();
    queue.pop();
    if (d > dist[u]) continue;
    for (const auto& [v, w] : adj[u])
      if (d + w < dist[v]) {
        dist[v] = d + w;
        queue.push({dist[v], v});
      }
  }
  return dist;
}

// g's local part of a whole array.
template <class T>
std::vector<T> owned_part(const DistGraph& g, const std::vector<T>& all) {
  return {all.begin() + static_cast<std::ptrdiff_t>(g.first_owned()),
          all.begin() + static_cast<std::ptrdiff_t>(g.first_owned() + g.owned_count())};
}

struct Configuration {
  sssp::Algorithm algorithm;
  double delta;  // 0: auto
  std::string name() const {
    return fmt::format("{} (delta {})", sssp::algorithm_name(algorithm),
                       delta > 0 ? fmt::format("{}", delta) : std::string("auto"));
  }
};

// Auto, one bucket (light edges only, fused) and Bellman-Ford everywhere; a
// narrow bucket (many buckets, heavy edges) on small graphs, where its many
// rounds stay cheap.
std::vector<Configuration> configurations(vid_t vertices) {
  std::vector<Configuration> out = {{sssp::Algorithm::delta_stepping, 0},
                                    {sssp::Algorithm::delta_stepping, 1e9},
                                    {sssp::Algorithm::bellman_ford, 0}};
  if (vertices <= 600) out.push_back({sssp::Algorithm::delta_stepping, 0.05});
  return out;
}

// Every configuration over every model, one engine each serving every root:
// distances bit for bit as Dijkstra's, `reached` as its count, and the
// validator agrees.
void expect_dijkstra(const DistGraph& g, const std::vector<vid_t>& roots, const std::string& what,
                     const std::string& only_model = "", const ExchangeOptions& options = {},
                     std::vector<Configuration> configs = {}) {
  const Comm& comm = world();
  ASSERT_FALSE(roots.empty()) << what;
  std::vector<std::vector<double>> refs;
  for (vid_t root : roots) refs.push_back(serial_dijkstra(g, root));
  const double automatic = sssp::auto_delta(comm, g);
  EXPECT_GT(automatic, 0) << what;
  if (configs.empty()) configs = configurations(g.global_vertex_count());
  for (const std::string& model : exchange_models()) {
    if (!only_model.empty() && model != only_model) continue;
    for (const Configuration& c : configs) {
      sssp::Sssp engine(comm, g, c.algorithm, model, c.delta > 0 ? c.delta : automatic, options);
      for (std::size_t k = 0; k < roots.size(); ++k) {
        const std::string where = fmt::format("{} at {} ranks, {} over {}, root {}", what,
                                              comm.size(), c.name(), model, roots[k]);
        const sssp::SearchResult r = engine.search(roots[k], k % 2 == 1);
        const std::vector<double> want = owned_part(g, refs[k]);
        bool same = r.dist.size() == want.size();
        for (std::size_t i = 0; same && i < want.size(); ++i)
          same = std::bit_cast<std::uint64_t>(r.dist[i]) == std::bit_cast<std::uint64_t>(want[i]);
        EXPECT_TRUE(test::all_ranks(comm, same)) << where << ": distances differ from Dijkstra's";
        std::uint64_t reached = 0;
        for (double d : refs[k]) reached += d != kUnreached;
        EXPECT_EQ(r.reached, reached) << where;
        EXPECT_EQ(sssp::check(comm, g, roots[k], r.dist, r.parent), "OK") << where;
        if (k % 2 == 1) {
          EXPECT_EQ(r.profile.size(), r.buckets) << where;
          std::uint64_t relaxations = 0;
          for (const sssp::BucketFigures& b : r.profile) relaxations += b.relaxations;
          EXPECT_EQ(relaxations, r.relaxations) << where;
        }
        if (!same) break;
      }
    }
  }
}

std::vector<vid_t> roots_of(const DistGraph& g) {
  std::vector<vid_t> roots = bfs::choose_keys(world(), g, 2, 11);
  // And a vertex of degree 0 when there is one, second.
  const std::vector<test::EdgeKey> edges = test::gather_edges(world(), g);
  std::vector<bool> has_edge(g.global_vertex_count());
  for (const test::EdgeKey& e : edges) has_edge[e.u] = true;
  for (vid_t v = 0; v < has_edge.size(); ++v)
    if (!has_edge[v]) {
      roots.insert(roots.begin() + std::min<std::ptrdiff_t>(1, std::ssize(roots)), v);
      break;
    }
  return roots;
}

void expect_dijkstra(const std::string& spec, Balance balance = Balance::vertices) {
  const DistGraph g = load(spec, balance);
  expect_dijkstra(g, roots_of(g),
                  fmt::format("{} ({})", spec, balance == Balance::edges ? "edges" : "block"));
}

// ------------------------------------------------------------ 1. against Dijkstra

TEST(Sssp, RmatEqualsDijkstra) {
  for (const char* spec : {"rmat:8", "rmat:11"}) expect_dijkstra(spec);
}

TEST(Sssp, GeneratorsAndFilesEqualDijkstra) {
  for (const char* spec : {"er:300", "rgg:600", "grid:5"}) expect_dijkstra(spec);
  expect_dijkstra(std::string(GRAPHCOMM_DATASETS) + "/dwt_193.mtx.gz");
  expect_dijkstra("rmat:9", Balance::edges);
}

TEST(Sssp, FloatWeightsEqualDijkstraOfTheRoundedWeights) {
  const DistGraph g = load("rmat:9", Balance::vertices, EdgeWeights::as_float);
  ASSERT_TRUE(g.float_weights());
  expect_dijkstra(g, roots_of(g), "rmat:9 (float weights)");
}

// Bounded buffers (one message per neighbour and round) change no distance.
TEST(Sssp, BoundedBuffersEqualDijkstra) {
  const DistGraph g = load("rmat:9");
  expect_dijkstra(g, roots_of(g), "rmat:9 at round_messages 1", "", {.round_messages = 1});
}

// ------------------------------------------------------------ 2. odd graphs

// Zero weights (a zero-weight cycle too), two components, isolated vertices,
// and a repeated edge whose lightest copy is the shortcut.
TEST(Sssp, ZeroWeightsComponentsAndRepeatedEdges) {
  std::vector<Edge> edges = {
      {0, 3, 0.0}, {3, 6, 0.0},   {6, 0, 0.0},                 // zero-weight triangle
      {6, 9, 0.5}, {9, 12, 0.25}, {0, 12, 2.0}, {0, 12, 0.5},  // repeated: the lighter copy wins
      {1, 4, 1.0}, {4, 7, 0.0},                                // another component
  };
  const DistGraph g = from_rank0(14, edges);
  const std::vector<double> d = serial_dijkstra(g, 0);
  EXPECT_EQ(d[3], 0.0);
  EXPECT_EQ(d[6], 0.0);
  EXPECT_EQ(d[12], 0.5);  // through the light copy of 0-12, not 0.75 or 2.0
  EXPECT_EQ(d[1], kUnreached);
  expect_dijkstra(g, {0, 12, 4, 2, 13}, "zero weights, components, a repeated edge");
}

TEST(Sssp, RepeatedEdgesKeepTheLightestOrTheHeaviestCopy) {
  const std::vector<Edge> edges = {{0, 1, 3.0}, {1, 0, 1.5}, {0, 1, 2.0}, {1, 2, 4.0}};
  for (Duplicates rule : {Duplicates::lightest, Duplicates::heaviest}) {
    const DistGraph g =
        build_graph(world(), 3, world().rank() == 0 ? edges : std::vector<Edge>{},
                    Balance::vertices, BuildRecords::automatic, EdgeWeights::kept, rule);
    std::set<test::EdgeKey> got;
    for (const test::EdgeKey& e : test::gather_edges(world(), g)) got.insert(e);
    const double w01 = rule == Duplicates::lightest ? 1.5 : 3.0;
    const std::set<test::EdgeKey> want = {test::key(0, 1, w01), test::key(1, 0, w01),
                                          test::key(1, 2, 4.0), test::key(2, 1, 4.0)};
    EXPECT_EQ(got, want) << (rule == Duplicates::lightest ? "lightest" : "heaviest");
  }
}

// ncl-combined with its plan gathered on rank 0 (ExchangeOptions::gathered_plan).
TEST(Sssp, NclCombinedGatheredPlanEqualsDijkstra) {
  const DistGraph g = load("rmat:9");
  expect_dijkstra(g, roots_of(g), "rmat:9, plan gathered", "ncl-combined", {.gathered_plan = true});
}

// Bucket numbers far beyond the count of buckets filled: 1e-12 makes them
// about 1e12 (each bucket one distance), 1e-300 sends every distance to the
// last bucket, where heavy edges land in the bucket being emptied.
TEST(Sssp, TinyDeltasEqualDijkstra) {
  const DistGraph g = load("grid:5");
  expect_dijkstra(
      g, roots_of(g), "grid:5 at tiny deltas", "nsr", {},
      {{sssp::Algorithm::delta_stepping, 1e-12}, {sssp::Algorithm::delta_stepping, 1e-300}});
}

TEST(Sssp, MoreRanksThanVertices) {
  expect_dijkstra(from_rank0(2, {Edge{0, 1, 0.5}}), {0, 1}, "one edge");
  expect_dijkstra(from_rank0(3, {Edge{0, 2, 0.5}}), {2, 0, 1}, "edge 0-2 and isolated 1");
  expect_dijkstra(from_rank0(1, {}), {0}, "one vertex");
}

// ------------------------------------------------------------ 3. the validator

// A path 0-1-2-3 (weights 1, 2, 4), a chord 0-3 of weight 10, and vertex 4
// isolated; from root 0: distances 0, 1, 3, 7.
struct Corruption {
  std::string what;
  std::vector<std::pair<vid_t, double>> dist;
  std::vector<std::pair<vid_t, vid_t>> parent;
  std::string expected;
};

TEST(SsspValidate, CatchesEachBrokenRule) {
  const Comm& comm = world();
  const DistGraph g =
      from_rank0(5, {Edge{0, 1, 1.0}, Edge{1, 2, 2.0}, Edge{2, 3, 4.0}, Edge{0, 3, 10.0}});
  const std::vector<double> dist = {0, 1, 3, 7, kUnreached};
  const std::vector<vid_t> parent = {0, 0, 1, 2, kNoParent};
  EXPECT_EQ(sssp::check(comm, g, 0, owned_part(g, dist), owned_part(g, parent)), "OK");
  // What every configuration finds.
  for (const std::string& model : exchange_models()) {
    sssp::Sssp engine(comm, g, sssp::Algorithm::delta_stepping, model, 1.5);
    const sssp::SearchResult r = engine.search(0, false);
    EXPECT_TRUE(
        test::all_ranks(comm, r.dist == owned_part(g, dist) && r.parent == owned_part(g, parent)))
        << model;
  }
  // Each breaks one rule only, so that the problem named does not depend on
  // which rank checks which vertex first.
  const std::vector<Corruption> corruptions = {
      {"root distance not 0", {{0, 0.5}}, {}, "root 0 has distance"},
      {"a distance one ulp short", {{2, std::nextafter(3.0, 0.0)}}, {}, "plus the edge's weight"},
      {"a distance shorter than any path", {{3, 6}}, {}, "plus the edge's weight"},
      {"vertex 3 by the chord: longer than the path", {{3, 10}}, {{3, 0}}, "shortens"},
      {"tree edge not a graph edge", {}, {{3, 1}}, "not an edge"},
      {"unreached vertex with a distance", {{4, 2}}, {}, "has distance"},
      {"reached vertex without a distance", {}, {{4, 0}}, "has distance"},
      {"vertex 3 cut off", {{3, kUnreached}}, {{3, kNoParent}}, "outside it"},
      {"a cycle", {}, {{1, 2}, {2, 1}}, "cycle"},
      {"root not its own parent", {}, {{0, 1}}, "not its own parent"},
      {"parent out of range", {}, {{2, 99}}, "out of range"},
  };
  for (const Corruption& c : corruptions) {
    std::vector<double> d = dist;
    std::vector<vid_t> p = parent;
    for (const auto& [v, x] : c.dist) d[v] = x;
    for (const auto& [v, x] : c.parent) p[v] = x;
    const std::string verdict = sssp::check(comm, g, 0, owned_part(g, d), owned_part(g, p));
    EXPECT_NE(verdict.find(c.expected), std::string::npos)
        << c.what << ": got '" << verdict << "', expected it to say '" << c.expected << "'";
  }
  // Arrays of the wrong length (one entry too many on the last rank).
  std::vector<double> d = owned_part(g, dist);
  if (comm.rank() == comm.size() - 1) d.push_back(0);
  EXPECT_NE(sssp::check(comm, g, 0, d, owned_part(g, parent)), "OK");
}

TEST(SsspNames, Algorithms) {
  EXPECT_EQ(sssp::parse_algorithm("delta-stepping"), sssp::Algorithm::delta_stepping);
  EXPECT_EQ(sssp::algorithm_name(sssp::Algorithm::bellman_ford), std::string("bellman-ford"));
}

}  // namespace
}  // namespace gc
