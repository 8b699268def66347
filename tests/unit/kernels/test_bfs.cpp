// BFS (Graph500 kernel 2): for every configuration (top-down and
// direction-optimizing over every exchange model, and replicated), every rank
// count and both distributions, each search must give exactly the levels and
// the canonical parents (smallest-id neighbour one level up) of a serial BFS
// computed here from the gathered edge list, independently of gc::bfs; the
// Graph500 validator must accept those trees and catch each rule broken in a
// hand-corrupted parent array; keys, statistics and tuple counts are checked
// against values worked out by hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <map>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "comm/models.hpp"
#include "graph/build.hpp"
#include "graph/spec.hpp"
#include "kernels/bfs/bfs.hpp"
#include "kernels/bfs/graph500.hpp"
#include "unit/graph/graph_checks.hpp"

namespace gc {
namespace {

using bfs::kNoParent;
using bfs::kUnreached;

const Comm& world() {
  static Comm c = Comm::world();
  return c;
}

DistGraph load(const std::string& spec, Balance balance = Balance::vertices) {
  LoadOptions o;
  o.seed = 7;
  o.balance = balance;
  return load_graph(world(), spec, o).graph;
}

// A graph given by edges on rank 0.
DistGraph from_rank0(vid_t n, const std::vector<Edge>& edges) {
  return build_graph(world(), n, world().rank() == 0 ? edges : std::vector<Edge>{});
}

// The same string on every rank (rank 0's, broadcast, compared everywhere).
bool same_everywhere(const Comm& comm, const std::string& s) {
  unsigned long length = s.size();
  MPI_Bcast(&length, 1, MPI_UNSIGNED_LONG, 0, comm.get());
  std::string first(length, '\0');
  if (comm.rank() == 0) first = s;
  MPI_Bcast(first.data(), static_cast<int>(length), MPI_CHAR, 0, comm.get());
  return test::all_ranks(comm, first == s);
}

bool same_everywhere(const Comm& comm, const std::vector<vid_t>& v) {
  unsigned long length = v.size();
  MPI_Bcast(&length, 1, MPI_UNSIGNED_LONG, 0, comm.get());
  std::vector<vid_t> first(length);
  if (comm.rank() == 0) first = v;
  MPI_Bcast(first.data(), static_cast<int>(length), MPI_UINT64_T, 0, comm.get());
  return test::all_ranks(comm, first == v);
}

// ------------------------------------------------------------ serial reference

// The whole graph as adjacency lists, from the gathered directed edge list.
struct SerialGraph {
  vid_t n = 0;
  std::vector<std::vector<vid_t>> adj;
};

SerialGraph serial_graph(const Comm& comm, const DistGraph& g) {
  SerialGraph s;
  s.n = g.global_vertex_count();
  s.adj.resize(s.n);
  for (const test::EdgeKey& e : test::gather_edges(comm, g)) s.adj[e.u].push_back(e.v);
  return s;
}

struct Reference {
  std::vector<std::int32_t> level;
  std::vector<vid_t> parent;
  std::uint64_t reached = 0;
  std::int32_t depth = 0;  // largest level
};

// A plain queue BFS for the levels; then, separately, the canonical parent of
// every reached vertex but the root: the smallest id among its neighbours one
// level up (whatever order the adjacency lists are in).
Reference serial_bfs(const SerialGraph& s, vid_t root) {
  Reference r;
  r.level.assign(s.n, kUnreached);
  r.parent.assign(s.n, kNoParent);
  std::deque<vid_t> queue{root};
  r.level[root] = 0;
  while (!queue.empty()) {
    const vid_t u = queue.front();
    queue.pop_front();
    ++r.reached;
    r.depth = std::max(r.depth, r.level[u]);
    for (vid_t w : s.adj[u])
      if (r.level[w] == kUnreached) {
        r.level[w] = r.level[u] + 1;
        queue.push_back(w);
      }
  }
  for (vid_t v = 0; v < s.n; ++v) {
    if (r.level[v] <= 0) continue;
    for (vid_t w : s.adj[v])
      if (r.level[w] == r.level[v] - 1) r.parent[v] = std::min(r.parent[v], w);
  }
  r.parent[root] = root;
  return r;
}

std::string id_text(vid_t v) {
  return v == kNoParent ? "none" : std::to_string(v);
}

// The first owned vertex whose level or parent differs from the reference, or "".
std::string local_mismatch(const DistGraph& g, const bfs::SearchResult& r, const Reference& ref) {
  if (r.level.size() != g.owned_count() || r.parent.size() != g.owned_count())
    return fmt::format("{} levels and {} parents for {} owned vertices", r.level.size(),
                       r.parent.size(), g.owned_count());
  for (lid_t l = 0; l < g.owned_count(); ++l) {
    const vid_t v = g.global_id(l);
    if (r.level[l] != ref.level[v])
      return fmt::format("vertex {}: level {}, expected {}", v, r.level[l], ref.level[v]);
    if (r.parent[l] != ref.parent[v])
      return fmt::format("vertex {} (level {}): parent {}, expected {}", v, ref.level[v],
                         id_text(r.parent[l]), id_text(ref.parent[v]));
  }
  return "";
}

// How many levels of the profiled direction-optimizing searches went each way.
struct Directions {
  int top_down = 0, bottom_up = 0, back_to_top_down = 0;
};

// Every configuration, one engine each serving every root: levels, canonical
// parents, `reached` and the per-level profile as the serial reference says,
// and the validator agrees. The exchange is set up with `options` (its
// buffers' bound); `waits` (if given) gets each exchange's flow-control waits
// by model (sum over ranks and searches).
Directions expect_serial_bfs(const DistGraph& g, const std::vector<vid_t>& roots,
                             const std::string& what, const std::string& only_model = "",
                             const ExchangeOptions& options = {},
                             std::map<std::string, std::uint64_t>* waits = nullptr) {
  const Comm& comm = world();
  Directions directions;
  EXPECT_FALSE(roots.empty()) << what;
  const SerialGraph s = serial_graph(comm, g);
  std::vector<Reference> refs;
  for (vid_t root : roots) refs.push_back(serial_bfs(s, root));
  const bfs::BfsGraph bg(comm, g);
  // Every configuration, and the hybrid ones once more with node peers' work
  // taken first (so stolen scans are checked whatever the timing).
  std::vector<std::pair<bfs::Configuration, bool>> runs;
  for (const bfs::Configuration& c : bfs::all_configurations()) {
    if (!only_model.empty() && c.model != only_model) continue;
    runs.emplace_back(c, false);
    if (c.model == "hybrid") runs.emplace_back(c, true);
  }
  for (const auto& [c, share_first] : runs) {
    bfs::Bfs engine(comm, bg, c.algorithm, c.model,
                    share_first ? bfs::Bfs::WorkSharing::first : bfs::Bfs::WorkSharing::on,
                    options);
    EXPECT_EQ(engine.configuration(), c.name());
    std::uint64_t shared = 0, reached = 0;
    for (std::size_t k = 0; k < roots.size(); ++k) {
      const std::string where =
          fmt::format("{} at {} ranks, {}{}, root {}", what, comm.size(), c.name(),
                      share_first ? " (share first)" : "", roots[k]);
      const bool profile = k % 2 == 1;
      const bfs::SearchResult r = engine.search(roots[k], profile);
      shared += r.shared;
      reached += r.reached;
      const std::string problem = local_mismatch(g, r, refs[k]);
      EXPECT_EQ(problem, "") << where << " (rank " << comm.rank() << ")";
      // Agreed, so that rank 0's summary names the test whichever rank differs.
      const bool right_everywhere = test::all_ranks(comm, problem.empty());
      EXPECT_TRUE(right_everywhere) << where << ": see the message of the rank that differs";
      EXPECT_EQ(r.root, roots[k]) << where;
      EXPECT_EQ(r.reached, refs[k].reached) << where;
      const std::string verdict = bfs::check(comm, g, roots[k], r.parent);
      EXPECT_EQ(verdict, "OK") << where;
      if (profile) {
        // One entry per non-empty level; the frontiers add up to the tree.
        EXPECT_EQ(r.levels.size(), static_cast<std::size_t>(refs[k].depth) + 1) << where;
        std::uint64_t frontiers = 0;
        for (std::size_t i = 0; i < r.levels.size(); ++i) {
          EXPECT_EQ(r.levels[i].level, static_cast<std::int32_t>(i)) << where;
          frontiers += r.levels[i].frontier;
          if (c.algorithm != bfs::Algorithm::direction_optimizing) {
            EXPECT_EQ(r.levels[i].bottom_up, c.algorithm == bfs::Algorithm::replicated) << where;
          } else {
            ++(r.levels[i].bottom_up ? directions.bottom_up : directions.top_down);
            directions.back_to_top_down +=
                i > 0 && r.levels[i - 1].bottom_up && !r.levels[i].bottom_up;
          }
        }
        EXPECT_EQ(frontiers, refs[k].reached) << where;
      } else {
        EXPECT_TRUE(r.levels.empty()) << where;
      }
      // Stop this configuration at its first wrong search (the same on all ranks).
      if (!right_everywhere || verdict != "OK") break;
    }
    // Peers take first, so with enough frontier vertices some work is shared.
    if (share_first && comm.size() > 1 && c.algorithm == bfs::Algorithm::top_down &&
        reached >= 500) {
      EXPECT_GT(shared, 0u) << what << ", " << c.name() << ": no work was shared";
    }
    if (c.model != "hybrid") {
      EXPECT_EQ(shared, 0u) << what << ", " << c.name();
    }
    if (waits) (*waits)[c.model] += sum_over_ranks(comm, engine.flow_waits());
  }
  return directions;
}

// Keys of the Graph500 kind, and a vertex of degree 0 when the graph has one,
// searched second (a one-level search between two long ones: exchange phases
// of consecutive searches must not mix).
std::vector<vid_t> roots_of(const DistGraph& g) {
  std::vector<vid_t> roots = bfs::choose_keys(world(), g, 4, 11);
  const SerialGraph s = serial_graph(world(), g);
  for (vid_t v = 0; v < s.n; ++v)
    if (s.adj[v].empty()) {
      roots.insert(roots.begin() + std::min<std::ptrdiff_t>(1, std::ssize(roots)), v);
      break;
    }
  return roots;
}

Directions expect_serial_bfs(const std::string& spec, Balance balance = Balance::vertices) {
  const DistGraph g = load(spec, balance);
  const std::string what =
      fmt::format("{} ({})", spec, balance == Balance::edges ? "edge-balanced" : "block");
  return expect_serial_bfs(g, roots_of(g), what);
}

// ------------------------------------------------------------ 1. against serial BFS

TEST(Bfs, RmatEqualsSerial) {
  Directions all;
  for (const char* spec : {"rmat:8", "rmat:10", "rmat:12", "rmat:14"}) {
    const Directions d = expect_serial_bfs(spec);
    all.top_down += d.top_down;
    all.bottom_up += d.bottom_up;
    all.back_to_top_down += d.back_to_top_down;
  }
  // Direction-optimizing really switched on these graphs, both ways.
  EXPECT_GT(all.bottom_up, 0);
  EXPECT_GT(all.top_down, 0);
  EXPECT_GT(all.back_to_top_down, 0);
}

// ncl-combined's friend groups form only with enough ranks (registered at 8
// ranks as well); its plan built distributed or gathered on rank 0.
TEST(Bfs, NclCombinedEqualsSerial) {
  for (const char* spec : {"rmat:12", "er:3000,d=3"}) {
    const DistGraph g = load(spec);
    for (const bool gathered : {false, true})
      expect_serial_bfs(g, roots_of(g), fmt::format("{} (plan gathered: {})", spec, gathered),
                        "ncl-combined", {.gathered_plan = gathered});
  }
}

// Bounded buffers (one message per neighbour and round) hold traffic back in
// every model that honours the bound (not nsr, nsr-agg, hybrid: see
// exchange.hpp), and change no search.
TEST(Bfs, BoundedBuffersEqualSerial) {
  const DistGraph g = load("rmat:12");
  std::map<std::string, std::uint64_t> waits;
  expect_serial_bfs(g, roots_of(g), "rmat:12 at round_messages 1", "", {.round_messages = 1},
                    &waits);
  if (world().size() == 1) return;
  for (const auto& [model, count] : waits)
    if (model != "" && model != "nsr" && model != "nsr-agg" && model != "hybrid") {
      EXPECT_GT(count, 0u) << model << ": nothing waited";
    }
}

TEST(Bfs, GeneratorsEqualSerial) {
  for (const char* spec : {"er:500", "er:3000,d=3", "rgg:2000", "sbm:800"}) expect_serial_bfs(spec);
}

TEST(Bfs, EdgeBalancedEqualsSerial) {
  const DistGraph g = load("rmat:12", Balance::edges);
  if (world().size() > 1) {  // the test really runs on another distribution
    EXPECT_NE(g.distribution().offsets(),
              Distribution::block(g.global_vertex_count(), world().size()).offsets());
  }
  expect_serial_bfs(g, roots_of(g), "rmat:12 (edge-balanced)");
  expect_serial_bfs("sbm:800", Balance::edges);
  expect_serial_bfs(std::string(GRAPHCOMM_DATASETS) + "/dwt_193.mtx.gz", Balance::edges);
  // A star (its hub heavier than a rank's share) with a path through the leaves.
  for (vid_t hub : {vid_t{0}, vid_t{500}, vid_t{999}}) {
    std::vector<Edge> edges;
    for (vid_t v = 0; v < 1000; ++v)
      if (v != hub) edges.push_back(Edge{hub, v, 1.0});
    for (vid_t v = 1; v + 1 < 1000; v += 2) edges.push_back(Edge{v, v + 1, 1.0});
    const DistGraph star = build_graph(
        world(), 1000, world().rank() == 0 ? edges : std::vector<Edge>{}, Balance::edges);
    expect_serial_bfs(star, {hub, 1, 998, 400}, fmt::format("star at {} (edge-balanced)", hub));
  }
}

// Ranges of any shape: one vertex, none (in the middle and at the end), not
// on a word boundary of the frontier bitmap, or on one.
TEST(Bfs, OddRangesEqualSerial) {
  const int p = world().size();
  const DistGraph g = load("rmat:10");
  const vid_t n = g.global_vertex_count();
  const std::vector<std::vector<vid_t>> cuts = {
      {1, 1, 65}, {n - 1, n, n}, {64, 64, 128}, {3, 500, 501}};
  for (const std::vector<vid_t>& cut : cuts) {
    std::vector<vid_t> offsets = {0};
    for (int r = 1; r < p; ++r)  // more ranks than cuts: the others own nothing
      offsets.push_back(static_cast<std::size_t>(r) <= cut.size() ? cut[r - 1] : n);
    offsets.push_back(n);
    const DistGraph h = redistribute(world(), g, Distribution::from_offsets(offsets));
    expect_serial_bfs(h, roots_of(h), fmt::format("rmat:10 on ranges {}", fmt::join(offsets, ",")));
  }
}

TEST(Bfs, SmallDatasetsEqualSerial) {
  const std::string dir = GRAPHCOMM_DATASETS;
  for (const char* file :
       {"dwt_193.mtx.gz", "ash292.mtx.gz", "Journals.mtx.gz", "bio-grid-yeast.edges.gz",
        "static_lowOverlap_lowBlockSizeVar_1000_nodes.tsv.gz"})
    expect_serial_bfs(dir + "/" + file);
}

// ------------------------------------------------------------ 2. the validator

// The cycle 0-1-...-7-0, the edge 8-9 and the isolated vertex 10; root 0.
// BFS levels: 0:0, 1,7:1, 2,6:2, 3,5:3, 4:4.
constexpr vid_t kCycleVertices = 11;
DistGraph cycle_graph() {
  std::vector<Edge> edges;
  for (vid_t i = 0; i < 8; ++i) edges.push_back(Edge{i, (i + 1) % 8, 1.0});
  edges.push_back(Edge{8, 9, 1.0});
  return from_rank0(kCycleVertices, edges);
}

// The BFS tree of cycle_graph() from 0, written by hand.
std::vector<vid_t> cycle_tree() {
  std::vector<vid_t> parent(kCycleVertices, kNoParent);
  parent[0] = 0;
  parent[1] = 0;
  parent[7] = 0;
  parent[2] = 1;
  parent[6] = 7;
  parent[3] = 2;
  parent[5] = 6;
  parent[4] = 3;  // 3 < 5
  return parent;
}

// This rank's share of a global parent array.
std::vector<vid_t> owned_part(const DistGraph& g, const std::vector<vid_t>& all) {
  const auto first = all.begin() + static_cast<std::ptrdiff_t>(g.first_owned());
  return std::vector<vid_t>(first, first + static_cast<std::ptrdiff_t>(g.owned_count()));
}

struct Corruption {
  const char* what;
  std::vector<std::pair<vid_t, vid_t>> set;  // (vertex, parent), made on the vertex's owner
  const char* expected;                      // part of the validator's message
};

TEST(BfsValidate, CatchesEachBrokenRule) {
  const Comm& comm = world();
  const DistGraph g = cycle_graph();
  const std::vector<vid_t> tree = cycle_tree();
  const std::string ok = bfs::check(comm, g, 0, owned_part(g, tree));
  EXPECT_EQ(ok, "OK");
  EXPECT_TRUE(same_everywhere(comm, ok));
  // The hand-written tree is what every configuration finds.
  expect_serial_bfs(g, {0, 4, 8, 10}, "cycle graph");
  const bfs::BfsGraph bg(comm, g);
  for (const bfs::Configuration& c : bfs::all_configurations()) {
    bfs::Bfs engine(comm, bg, c.algorithm, c.model);
    const bool same = engine.search(0, false).parent == owned_part(g, tree);
    EXPECT_TRUE(test::all_ranks(comm, same)) << c.name() << ": not the tree written by hand";
  }

  const std::vector<Corruption> corruptions = {
      {"root not its own parent", {{0, 1}}, "root 0 is not its own parent"},
      {"root without a parent", {{0, kNoParent}}, "root 0 is not its own parent"},
      {"two vertices pointing at each other", {{3, 4}, {4, 3}}, "cycle"},
      {"a vertex its own parent", {{5, 5}}, "cycle"},
      {"tree edge 2-7 not a graph edge (levels still right)", {{2, 7}}, "not an edge"},
      {"vertex 7 the long way round: edge 0-7 joins levels 0 and 7",
       {{7, 6}, {6, 5}, {5, 4}, {4, 3}},
       "joins levels"},
      {"vertex 4 of the root's component unreached", {{4, kNoParent}}, "outside it"},
      {"vertex 8 outside the component, parent 9 unreached", {{8, 9}}, "which has no parent"},
      {"isolated vertex 10 given the root as parent", {{10, 0}}, "not an edge"},
      {"vertices 8, 9 hung below the root", {{8, 0}, {9, 8}}, "not an edge"},
      {"parent id n", {{5, kCycleVertices}}, "out of range"},
      {"parent id 2^64-2", {{6, kNoParent - 1}}, "out of range"},
  };
  for (const Corruption& c : corruptions) {
    std::vector<vid_t> parent = owned_part(g, tree);
    for (const auto& [v, p] : c.set)
      if (g.is_owned(v)) parent[v - g.first_owned()] = p;
    const std::string verdict = bfs::check(comm, g, 0, parent);
    EXPECT_NE(verdict, "OK") << c.what;
    EXPECT_NE(verdict.find(c.expected), std::string::npos)
        << c.what << ": got '" << verdict << "', expected it to say '" << c.expected << "'";
    EXPECT_TRUE(same_everywhere(comm, verdict)) << c.what << ": " << verdict;
  }

  // A parent array of the wrong length (one entry too many on the last rank).
  std::vector<vid_t> parent = owned_part(g, tree);
  if (comm.rank() == comm.size() - 1) parent.push_back(kNoParent);
  const std::string verdict = bfs::check(comm, g, 0, parent);
  EXPECT_NE(verdict, "OK");
  EXPECT_TRUE(same_everywhere(comm, verdict)) << verdict;
}

// ------------------------------------------------------------ 3.-5. odd graphs

TEST(Bfs, DisconnectedGraphReachesTheRootsComponent) {
  // Interleaved over the ranks: A = {0, 3, 6, 9, 12, 15} a 6-cycle with the
  // chord 0-9; B = {1, 4, 7, 10, 13} a path; 2, 5, 8, 11, 14 isolated.
  std::vector<Edge> edges;
  const vid_t a[] = {0, 3, 6, 9, 12, 15};
  for (int i = 0; i < 6; ++i) edges.push_back(Edge{a[i], a[(i + 1) % 6], 1.0});
  edges.push_back(Edge{0, 9, 1.0});
  for (vid_t v = 1; v + 3 <= 13; v += 3) edges.push_back(Edge{v + 3, v, 1.0});
  const DistGraph g = from_rank0(16, edges);
  expect_serial_bfs(g, {0, 12, 7, 13, 2, 14}, "two components and isolated vertices");
  const bfs::BfsGraph bg(world(), g);
  const std::pair<vid_t, std::uint64_t> expected[] = {{0, 6}, {12, 6}, {7, 5}, {13, 5}, {2, 1}};
  for (const bfs::Configuration& c : bfs::all_configurations()) {
    bfs::Bfs engine(world(), bg, c.algorithm, c.model);
    for (const auto& [root, size] : expected) {
      const bfs::SearchResult r = engine.search(root, false);
      EXPECT_EQ(r.reached, size) << c.name() << " root " << root;
      std::uint64_t levels = 0;
      for (lid_t l = 0; l < g.owned_count(); ++l) levels += r.level[l] != kUnreached;
      EXPECT_EQ(sum_over_ranks<std::uint64_t>(world(), levels), size) << c.name();
      EXPECT_EQ(bfs::check(world(), g, root, r.parent), "OK") << c.name() << " root " << root;
    }
  }
}

TEST(Bfs, NoEdgesReachesOnlyTheRoot) {
  const DistGraph g = from_rank0(10, {});
  EXPECT_TRUE(bfs::choose_keys(world(), g, 4, 1).empty());
  // Self-loops are dropped: still no edges, no keys.
  EXPECT_TRUE(bfs::choose_keys(world(), from_rank0(5, {Edge{2, 2, 1.0}}), 4, 1).empty());
  const bfs::BfsGraph bg(world(), g);
  for (const bfs::Configuration& c : bfs::all_configurations()) {
    bfs::Bfs engine(world(), bg, c.algorithm, c.model);
    for (vid_t root = 0; root < 10; ++root) {
      const bfs::SearchResult r = engine.search(root, true);
      EXPECT_EQ(r.reached, 1u) << c.name() << " root " << root;
      for (lid_t l = 0; l < g.owned_count(); ++l) {
        const vid_t v = g.global_id(l);
        EXPECT_EQ(r.level[l], v == root ? 0 : kUnreached) << c.name() << " vertex " << v;
        EXPECT_EQ(r.parent[l], v == root ? root : kNoParent) << c.name() << " vertex " << v;
      }
      EXPECT_EQ(bfs::check(world(), g, root, r.parent), "OK") << c.name();
    }
  }
  expect_serial_bfs(g, {0, 9, 5}, "no edges");
}

TEST(Bfs, MoreRanksThanVertices) {
  expect_serial_bfs(from_rank0(2, {Edge{0, 1, 1.0}}), {0, 1}, "one edge");
  expect_serial_bfs(from_rank0(3, {Edge{0, 2, 1.0}}), {2, 0, 1}, "edge 0-2 and isolated 1");
  expect_serial_bfs(from_rank0(1, {}), {0}, "one vertex");
  expect_serial_bfs(from_rank0(3, {Edge{0, 1, 1.0}, Edge{1, 2, 1.0}}), {0, 1, 2}, "path of 3");
}

// ------------------------------------------------------------ 6. search keys

TEST(BfsKeys, DistinctOfDegreeOneAndTheSameAtAnyRankCount) {
  const Comm& comm = world();
  LoadOptions o;
  o.seed = 5;
  const std::string spec = "rmat:10";
  const DistGraph g = load_graph(comm, spec, o).graph;
  const SerialGraph s = serial_graph(comm, g);
  const std::vector<vid_t> keys = bfs::choose_keys(comm, g, 16, 3);
  EXPECT_EQ(keys.size(), 16u);
  EXPECT_EQ(std::set<vid_t>(keys.begin(), keys.end()).size(), keys.size()) << "keys repeat";
  for (vid_t k : keys) {
    EXPECT_LT(k, s.n);
    EXPECT_TRUE(k < s.n && !s.adj[k].empty()) << "key " << k << " has degree 0";
  }
  EXPECT_TRUE(same_everywhere(comm, keys));
  EXPECT_NE(bfs::choose_keys(comm, g, 16, 4), keys) << "the seed does not matter";
  EXPECT_TRUE(bfs::choose_keys(comm, g, 0, 3).empty());

  // The same graph and seed on one rank, and on a group of two ranks.
  const Comm self = Comm::self();
  const DistGraph alone = load_graph(self, spec, o).graph;
  EXPECT_EQ(bfs::choose_keys(self, alone, 16, 3), keys) << "1 rank vs " << comm.size();
  if (comm.size() >= 3) {
    const Comm pair = comm.split(comm.rank() < 2 ? 0 : 1, comm.rank());
    const DistGraph halves = load_graph(pair, spec, o).graph;
    EXPECT_EQ(bfs::choose_keys(pair, halves, 16, 3), keys)
        << pair.size() << " ranks vs " << comm.size();
  }
}

TEST(BfsKeys, FewCandidatesGivesThemAll) {
  // 1000 vertices, 5 edges and a self-loop: 9 vertices of degree >= 1.
  const std::vector<Edge> edges = {{3, 998, 1}, {3, 500, 1},   {250, 251, 1},
                                   {0, 999, 1}, {700, 701, 1}, {42, 42, 1}};
  const DistGraph g = from_rank0(1000, edges);
  const std::vector<vid_t> candidates = {0, 3, 250, 251, 500, 700, 701, 998, 999};
  for (int count : {9, 10, 100}) {
    std::vector<vid_t> keys = bfs::choose_keys(world(), g, count, 1);
    EXPECT_TRUE(same_everywhere(world(), keys));
    std::sort(keys.begin(), keys.end());
    EXPECT_EQ(keys, candidates) << "asked for " << count;
  }
  const std::vector<vid_t> four = bfs::choose_keys(world(), g, 4, 1);
  EXPECT_EQ(four.size(), 4u);
  EXPECT_EQ(std::set<vid_t>(four.begin(), four.end()).size(), 4u);
  for (vid_t k : four)
    EXPECT_TRUE(std::binary_search(candidates.begin(), candidates.end(), k)) << k;
  EXPECT_TRUE(same_everywhere(world(), four));
  const Comm self = Comm::self();
  const DistGraph alone = build_graph(self, 1000, edges);
  EXPECT_EQ(bfs::choose_keys(self, alone, 4, 1), four) << "1 rank vs " << world().size();
}

// ------------------------------------------------------------ 7. statistics

TEST(BfsStatistics, HandComputed) {
  // n = 5, sorted 1 3 4 7 10: quartiles are single order statistics.
  bfs::Statistics s = bfs::statistics({7, 1, 4, 10, 3});
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.firstquartile, 3);
  EXPECT_DOUBLE_EQ(s.median, 4);
  EXPECT_DOUBLE_EQ(s.thirdquartile, 7);
  EXPECT_DOUBLE_EQ(s.max, 10);
  EXPECT_DOUBLE_EQ(s.mean, 5);
  EXPECT_DOUBLE_EQ(s.stddev, std::sqrt(50.0 / 4));  // squares 4 16 1 25 4, n - 1 = 4

  // n = 8, sorted 10 20 30 40 50 70 80 160: means of two order statistics,
  // x[1], x[2] / x[3], x[4] / x[5], x[6].
  s = bfs::statistics({10, 40, 20, 80, 30, 160, 50, 70});
  EXPECT_DOUBLE_EQ(s.min, 10);
  EXPECT_DOUBLE_EQ(s.firstquartile, 25);
  EXPECT_DOUBLE_EQ(s.median, 45);
  EXPECT_DOUBLE_EQ(s.thirdquartile, 75);
  EXPECT_DOUBLE_EQ(s.max, 160);
  EXPECT_DOUBLE_EQ(s.mean, 57.5);
  EXPECT_NEAR(s.stddev, std::sqrt(15950.0 / 7), 1e-12);

  // n = 6, sorted 1 2 4 6 9 12: x[1]; x[2], x[3]; x[4].
  s = bfs::statistics({6, 12, 1, 9, 2, 4});
  EXPECT_DOUBLE_EQ(s.firstquartile, 2);
  EXPECT_DOUBLE_EQ(s.median, 5);
  EXPECT_DOUBLE_EQ(s.thirdquartile, 9);

  s = bfs::statistics({2.5});
  EXPECT_DOUBLE_EQ(s.min, 2.5);
  EXPECT_DOUBLE_EQ(s.median, 2.5);
  EXPECT_DOUBLE_EQ(s.max, 2.5);
  EXPECT_DOUBLE_EQ(s.stddev, 0);
}

TEST(BfsStatistics, HarmonicMeanOfTeps) {
  bfs::Graph500Figures f;
  f.seconds = {1, 1, 1, 1};
  f.nedge = {100, 200, 400, 800};  // TEPS 100 200 400 800
  f.validate_seconds = {0.5, 0.5, 0.5, 0.5};
  const bfs::TepsSummary t = bfs::summarize(f);
  EXPECT_NEAR(t.harmonic_mean, 4 / (1.0 / 100 + 1.0 / 200 + 1.0 / 400 + 1.0 / 800), 1e-9);
  EXPECT_NEAR(t.harmonic_mean, 640.0 / 3, 1e-9);
  // The reference code's TEPS order statistics: reciprocals of those of
  // seconds per edge (sorted 1/800 1/400 1/200 1/100).
  EXPECT_NEAR(t.teps.min, 100, 1e-9);
  EXPECT_NEAR(t.teps.max, 800, 1e-9);
  EXPECT_NEAR(t.teps.median, 1 / ((1.0 / 400 + 1.0 / 200) / 2), 1e-9);         // 266.67
  EXPECT_NEAR(t.teps.firstquartile, 1 / ((1.0 / 200 + 1.0 / 100) / 2), 1e-9);  // 133.33
  EXPECT_NEAR(t.teps.thirdquartile, 1 / ((1.0 / 800 + 1.0 / 400) / 2), 1e-9);  // 533.33
  // Norris's standard error: stddev(seconds per edge) / (mean^2 sqrt(n - 1)),
  // mean 0.0046875, squared deviations summing to 4.4921875e-5.
  EXPECT_NEAR(t.harmonic_stddev,
              std::sqrt(4.4921875e-5 / 3) / (0.0046875 * 0.0046875 * std::sqrt(3.0)), 1e-6);
  EXPECT_DOUBLE_EQ(t.nedge.mean, 375);
  EXPECT_DOUBLE_EQ(t.time.median, 1);
  EXPECT_DOUBLE_EQ(t.validate.max, 0.5);

  // Unequal times: TEPS 50, 100, 25 -> harmonic mean 3 / (1/50 + 1/100 + 1/25).
  f.seconds = {2, 1, 4};
  f.nedge = {100, 100, 100};
  f.validate_seconds = {0, 0, 0};
  EXPECT_NEAR(bfs::summarize(f).harmonic_mean, 300.0 / 7, 1e-9);
}

// ------------------------------------------------------------ 8. tuple endpoints

TEST(BfsTuples, EndpointCounts) {
  const Comm& comm = world();
  const int p = comm.size();
  // A self-loop at 2 and the tuple (0, 1) twice; 7 vertices.
  const std::vector<Edge> tuples = {{0, 1, 1}, {1, 2, 1}, {2, 2, 1}, {1, 0, 1},
                                    {3, 6, 1}, {5, 4, 1}, {6, 6, 1}};
  const std::vector<std::uint32_t> expected = {2, 3, 3, 1, 1, 1, 3};
  std::vector<Edge> mine;  // tuple i on rank i mod p
  for (std::size_t i = 0; i < tuples.size(); ++i)
    if (static_cast<int>(i % static_cast<std::size_t>(p)) == comm.rank()) mine.push_back(tuples[i]);
  // Blocks, and ranges where rank 0 owns nothing (for p > 1).
  std::vector<vid_t> offsets(static_cast<std::size_t>(p) + 1, 7);
  offsets[0] = 0;
  for (int r = 1; r < p; ++r)
    offsets[static_cast<std::size_t>(r)] = std::min<vid_t>(7, 3 * (r - 1));
  for (const Distribution& dist :
       {Distribution::block(7, p), Distribution::from_offsets(offsets)}) {
    const std::vector<std::uint32_t> counts = bfs::tuple_endpoint_counts(comm, dist, mine);
    // No ASSERT before a collective: a rank returning early would hang the others.
    bool right = counts.size() == dist.count(comm.rank());
    EXPECT_EQ(counts.size(), dist.count(comm.rank()));
    for (vid_t i = 0; i < std::min<vid_t>(counts.size(), dist.count(comm.rank())); ++i) {
      EXPECT_EQ(counts[i], expected[dist.begin(comm.rank()) + i])
          << "vertex " << dist.begin(comm.rank()) + i;
      right &= counts[i] == expected[dist.begin(comm.rank()) + i];
    }
    EXPECT_TRUE(test::all_ranks(comm, right)) << "see the message of the rank that differs";
    std::uint64_t total = 0;
    for (std::uint32_t c : counts) total += c;
    EXPECT_EQ(sum_over_ranks(comm, total), 2 * tuples.size());
  }
}

TEST(BfsNames, AlgorithmsAndConfigurations) {
  const auto configs = bfs::all_configurations();
  EXPECT_EQ(configs.size(), 2 * exchange_models().size() + 1);
  std::set<std::string> names;
  for (const auto& c : configs) {
    names.insert(c.name());
    EXPECT_EQ(bfs::parse_algorithm(bfs::algorithm_name(c.algorithm)), c.algorithm);
    EXPECT_EQ(c.model.empty(), c.algorithm == bfs::Algorithm::replicated) << c.name();
  }
  EXPECT_EQ(names.size(), configs.size());
  EXPECT_TRUE(names.count("replicated"));
  EXPECT_TRUE(names.count("top-down/nsr"));
  EXPECT_TRUE(names.count("direction-optimizing/ncl"));
}

}  // namespace
}  // namespace gc
