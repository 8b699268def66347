// Reordering and partitioning (graph/order.hpp): the distributed RCM equals a
// serial queue-based Cuthill-McKee written here (same documented rules:
// components by (degree, id) of their smallest vertex, George-Liu roots with
// at most 8 sweeps, neighbours appended by (degree, id), reversed), at every
// rank count and input distribution; it reduces the bandwidth of scrambled
// paths and grids; relabeled graphs are the input up to relabeling (edges and
// weights mapped back through input ids); parts land on their ranks; the
// matching of a relabeled graph is the serial greedy matching of the input,
// ties included; statistics equal a serial recount; the sample sort sorts.
#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <map>
#include <numeric>
#include <set>

#include "graph/build.hpp"
#include "graph/order.hpp"
#include "graph/sort.hpp"
#include "graph/spec.hpp"
#include "graph/stats.hpp"
#include "kernels/match/match.hpp"
#include "unit/graph/graph_checks.hpp"

namespace gc {
namespace {

const Comm& world() {
  static Comm c = Comm::world();
  return c;
}

using UEdges = std::vector<std::tuple<vid_t, vid_t, weight_t>>;

// A graph from an undirected edge list given on rank 0.
DistGraph from_rank0(vid_t n, const UEdges& es, Balance balance = Balance::vertices) {
  std::vector<Edge> edges;
  if (world().rank() == 0)
    for (const auto& [u, v, w] : es) edges.push_back(Edge{u, v, w});
  return build_graph(world(), n, std::move(edges), balance);
}

// A fixed scrambling of 0..n-1.
std::vector<vid_t> scramble(vid_t n, std::uint64_t seed) {
  std::vector<vid_t> p(n);
  std::iota(p.begin(), p.end(), 0);
  for (vid_t i = n; i > 1; --i) std::swap(p[i - 1], p[test::mix64(seed * 7919 + i) % i]);
  return p;
}

UEdges path(vid_t n, const std::vector<vid_t>& label) {
  UEdges es;
  for (vid_t i = 0; i + 1 < n; ++i) es.emplace_back(label[i], label[i + 1], 1.0);
  return es;
}

UEdges grid(vid_t rows, vid_t cols, const std::vector<vid_t>& label) {
  UEdges es;
  for (vid_t r = 0; r < rows; ++r)
    for (vid_t c = 0; c < cols; ++c) {
      if (c + 1 < cols) es.emplace_back(label[r * cols + c], label[r * cols + c + 1], 1.0);
      if (r + 1 < rows) es.emplace_back(label[r * cols + c], label[(r + 1) * cols + c], 1.0);
    }
  return es;
}

// perm[v] = new id of v, on every rank, from a relabeling's new ids.
std::vector<vid_t> gather_permutation(const DistGraph& g, const std::vector<vid_t>& new_ids) {
  std::vector<vid_t> mine;
  for (lid_t l = 0; l < g.owned_count(); ++l) {
    mine.push_back(g.input_id(l));
    mine.push_back(new_ids[l]);
  }
  const std::vector<vid_t> all = allgatherv(world(), mine);
  std::vector<vid_t> perm(g.global_vertex_count(), kNoVertex);
  for (size_t i = 0; i < all.size(); i += 2) perm[all[i]] = all[i + 1];
  return perm;
}

// ---------------------------------------------------- serial reference RCM

struct Adjacency {
  std::vector<std::vector<vid_t>> nbrs;
  explicit Adjacency(vid_t n, const std::vector<test::EdgeKey>& directed) : nbrs(n) {
    for (const auto& e : directed) nbrs[e.u].push_back(e.v);
    for (auto& row : nbrs) std::sort(row.begin(), row.end());
  }
  std::uint64_t degree(vid_t v) const { return nbrs[v].size(); }
  bool before(vid_t a, vid_t b) const {  // by (degree, id)
    return std::make_pair(degree(a), a) < std::make_pair(degree(b), b);
  }
  // BFS from r: (eccentricity, last level's smallest vertex by (degree, id)).
  std::pair<std::int64_t, vid_t> farthest(vid_t r) const {
    std::map<vid_t, std::int64_t> level{{r, 0}};
    std::deque<vid_t> queue{r};
    std::int64_t ecc = 0;
    vid_t best = r;
    while (!queue.empty()) {
      const vid_t v = queue.front();
      queue.pop_front();
      const std::int64_t d = level[v];
      if (d > ecc || (d == ecc && before(v, best))) {
        ecc = d;
        best = v;
      }
      for (vid_t w : nbrs[v])
        if (level.emplace(w, d + 1).second) queue.push_back(w);
    }
    return {ecc, best};
  }
};

std::vector<vid_t> serial_rcm(vid_t n, const std::vector<test::EdgeKey>& directed) {
  const Adjacency a(n, directed);
  std::vector<vid_t> by_degree(n);
  std::iota(by_degree.begin(), by_degree.end(), 0);
  std::sort(by_degree.begin(), by_degree.end(), [&](vid_t x, vid_t y) { return a.before(x, y); });
  std::vector<char> seen(n, 0);
  std::vector<vid_t> order;
  for (vid_t start : by_degree) {
    if (seen[start]) continue;
    vid_t root = start;
    std::int64_t ecc = -1;
    for (int sweep = 0; sweep < 8; ++sweep) {
      const auto [e, x] = a.farthest(root);
      if (!(e > ecc && e > 0 && sweep + 1 < 8)) break;
      ecc = e;
      root = x;
    }
    std::deque<vid_t> queue{root};
    seen[root] = 1;
    while (!queue.empty()) {
      const vid_t v = queue.front();
      queue.pop_front();
      order.push_back(v);
      std::vector<vid_t> next;
      for (vid_t w : a.nbrs[v])
        if (!seen[w]) {
          seen[w] = 1;
          next.push_back(w);
        }
      std::sort(next.begin(), next.end(), [&](vid_t x, vid_t y) { return a.before(x, y); });
      queue.insert(queue.end(), next.begin(), next.end());
    }
  }
  std::vector<vid_t> perm(n);
  for (vid_t i = 0; i < n; ++i) perm[order[i]] = n - 1 - i;
  return perm;
}

std::uint64_t bandwidth(const std::vector<test::EdgeKey>& directed,
                        const std::vector<vid_t>& perm) {
  std::uint64_t b = 0;
  for (const auto& e : directed)
    b = std::max<std::uint64_t>(
        b, perm[e.u] > perm[e.v] ? perm[e.u] - perm[e.v] : perm[e.v] - perm[e.u]);
  return b;
}

// The distributed RCM of g, checked against the serial one; returns it.
std::vector<vid_t> checked_rcm(const DistGraph& g) {
  const std::vector<vid_t> perm = gather_permutation(g, rcm_order(world(), g));
  const std::vector<test::EdgeKey> edges = test::gather_edges(world(), g);
  EXPECT_EQ(perm, serial_rcm(g.global_vertex_count(), edges)) << world().size() << " ranks";
  std::vector<vid_t> sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  for (vid_t i = 0; i < sorted.size(); ++i) EXPECT_EQ(sorted[i], i) << "not a permutation";
  return perm;
}

TEST(Rcm, ScrambledPathGetsBandwidthOne) {
  const vid_t n = 61;
  const DistGraph g = from_rank0(n, path(n, scramble(n, 3)));
  const std::vector<vid_t> perm = checked_rcm(g);
  const auto edges = test::gather_edges(world(), g);
  std::vector<vid_t> identity(n);
  std::iota(identity.begin(), identity.end(), 0);
  EXPECT_GT(bandwidth(edges, identity), 10u);
  EXPECT_EQ(bandwidth(edges, perm), 1u);
}

TEST(Rcm, ScrambledGridGetsBandwidthOfItsShortSidePlusOne) {
  const vid_t rows = 13, cols = 7;
  const DistGraph g = from_rank0(rows * cols, grid(rows, cols, scramble(rows * cols, 5)));
  const std::vector<vid_t> perm = checked_rcm(g);
  const auto edges = test::gather_edges(world(), g);
  std::vector<vid_t> identity(rows * cols);
  std::iota(identity.begin(), identity.end(), 0);
  EXPECT_GT(bandwidth(edges, identity), 3 * cols);
  // RCM numbers the grid by anti-diagonals (BFS levels from a corner) of at
  // most `cols` vertices; a vertex's neighbour in the next level sits at most
  // one position further along it, hence cols + 1 (row-major order has cols).
  EXPECT_LE(bandwidth(edges, perm), cols + 1);
}

TEST(Rcm, EveryComponentIsOrdered) {
  // A scrambled path, a star, a triangle, a single edge and isolated vertices.
  const vid_t n = 40;
  const std::vector<vid_t> s = scramble(n, 9);
  UEdges es;
  for (vid_t i = 0; i + 1 < 12; ++i) es.emplace_back(s[i], s[i + 1], 1.0);
  for (vid_t i = 13; i < 20; ++i) es.emplace_back(s[12], s[i], 1.0);
  es.emplace_back(s[20], s[21], 1.0);
  es.emplace_back(s[21], s[22], 1.0);
  es.emplace_back(s[22], s[20], 1.0);
  es.emplace_back(s[23], s[24], 1.0);
  checked_rcm(from_rank0(n, es));
  checked_rcm(from_rank0(5, {}));  // no edges at all
}

TEST(Rcm, RealAndGeneratedGraphsAtAnyDistribution) {
  LoadOptions lo;
  for (const std::string& spec : {std::string(GRAPHCOMM_DATASETS) + "/dwt_193.mtx.gz",
                                  std::string("rmat:9"), std::string("rgg:300")}) {
    const LoadedGraph blocks = load_graph(world(), spec, lo);
    const std::vector<vid_t> perm = checked_rcm(blocks.graph);
    lo.balance = Balance::edges;
    const LoadedGraph edges = load_graph(world(), spec, lo);
    lo.balance = Balance::vertices;
    EXPECT_EQ(gather_permutation(edges.graph, rcm_order(world(), edges.graph)), perm)
        << spec << ": differs on edge-balanced ranges";
  }
}

// ---------------------------------------------- relabeled graphs and kernels

// The directed edges of g named by input ids, sorted, on every rank.
std::vector<test::EdgeKey> input_edges(const DistGraph& g) {
  std::vector<vid_t> mine;
  for (lid_t l = 0; l < g.owned_count(); ++l) {
    auto nbrs = g.neighbors(l);
    auto ws = g.weights(l);
    for (size_t j = 0; j < nbrs.size(); ++j) {
      const test::EdgeKey e = test::key(g.input_id(l), g.input_id(nbrs[j]), ws[j]);
      mine.insert(mine.end(), {e.u, e.v, e.w});
    }
  }
  const std::vector<vid_t> all = allgatherv(world(), mine);
  std::vector<test::EdgeKey> out;
  for (size_t i = 0; i < all.size(); i += 3) out.push_back({all[i], all[i + 1], all[i + 2]});
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<Ordering> orderings() {
  std::vector<Ordering> out{Ordering::rcm};
  for (Ordering o : {Ordering::scotch, Ordering::metis})
    if (ordering_unavailable(o).empty()) out.push_back(o);
  return out;
}

TEST(Order, RelabeledGraphIsTheInputUpToRelabeling) {
  const DistGraph g = load_graph(world(), "rmat:10", {}).graph;
  const auto original = test::gather_edges(world(), g);
  for (Ordering o : orderings())
    for (Balance b : {Balance::vertices, Balance::edges}) {
      const OrderedGraph og = order_graph(world(), g, o, b, 1);
      const DistGraph& h = og.graph;
      ASSERT_TRUE(h.relabeled());
      EXPECT_EQ(input_edges(h), original) << ordering_name(o);
      EXPECT_EQ(test::asymmetric_edges(world(), h), 0u);
      // input_id of owned vertices and ghosts agree with the owners'.
      std::vector<vid_t> owned_input(h.owned_count());
      for (lid_t l = 0; l < h.owned_count(); ++l) owned_input[l] = h.input_id(l);
      const std::vector<vid_t> ghosts = ghost_values(world(), h, owned_input);
      for (lid_t x = 0; x < h.ghost_count(); ++x)
        EXPECT_EQ(h.input_id(h.owned_count() + x), ghosts[x]);
      // Back to the input's ids and blocks: the very same graph.
      const DistGraph back = relabel(world(), h, owned_input,
                                     Distribution::block(h.global_vertex_count(), world().size()));
      EXPECT_EQ(test::gather_edges(world(), back), original);
    }
}

TEST(Order, PartsLandOnTheirRanks) {
  const DistGraph g =
      load_graph(world(), std::string(GRAPHCOMM_DATASETS) + "/dwt_193.mtx.gz", {}).graph;
  for (Ordering o : orderings()) {
    if (o == Ordering::rcm) continue;
    const std::vector<int> part = partition_graph(world(), g, o, Balance::vertices, 1);
    const Relabeling r = ranges_of_parts(world(), part);
    for (lid_t l = 0; l < g.owned_count(); ++l)
      EXPECT_EQ(r.target.owner_of(r.new_ids[l]), part[l]) << ordering_name(o);
    // Deterministic for a seed.
    EXPECT_EQ(partition_graph(world(), g, o, Balance::vertices, 1), part) << ordering_name(o);
    if (world().size() > 1) {
      // Every part has vertices, and a partitioner cuts fewer edges than blocks.
      for (int p = 0; p < world().size(); ++p) EXPECT_GT(r.target.count(p), 0u);
      const GraphStats cut = compute_stats(world(), relabel(world(), g, r.new_ids, r.target));
      EXPECT_LT(cut.cut_edges, compute_stats(world(), g).cut_edges) << ordering_name(o);
    }
  }
}

TEST(Order, EdgeBalancedRangesOfTheRcmOrder) {
  const DistGraph g = load_graph(world(), "rmat:9", {}).graph;
  const std::vector<vid_t> order = rcm_order(world(), g);
  const Relabeling blocks = ranges_of_order(world(), g, order, Balance::vertices);
  const Relabeling edges = ranges_of_order(world(), g, order, Balance::edges);
  EXPECT_EQ(blocks.target.offsets(),
            Distribution::block(g.global_vertex_count(), world().size()).offsets());
  const DistGraph in_blocks = relabel(world(), g, order, blocks.target);
  EXPECT_EQ(edges.target.offsets(),
            edge_balanced(world(), in_blocks.distribution(), in_blocks.offsets()).offsets());
}

TEST(Order, MatchingIsTheInputsGreedyMatchingTiesIncluded) {
  // Unit weights everywhere (every order decided by the tie break) and seeded ones.
  const vid_t rows = 9, cols = 8;
  LoadOptions lo;
  const std::vector<DistGraph> inputs = [&] {
    std::vector<DistGraph> out;
    out.push_back(from_rank0(rows * cols, grid(rows, cols, scramble(rows * cols, 2))));
    out.push_back(load_graph(world(), "rmat:9", lo).graph);
    return out;
  }();
  for (const DistGraph& g : inputs) {
    const auto edges = test::gather_edges(world(), g);
    std::vector<Edge> list;
    for (const auto& e : edges)
      if (e.u < e.v) list.push_back(Edge{e.u, e.v, test::weight_of(e)});
    const std::vector<vid_t> reference = match::greedy_matching(g.global_vertex_count(), list);
    for (Ordering o : orderings())
      for (const std::string& algorithm : match::matching_algorithms()) {
        const DistGraph h = order_graph(world(), g, o, Balance::vertices, 1).graph;
        const match::MatchResult r = match::match(world(), h, "nsr", algorithm);
        EXPECT_EQ(match::check(world(), h, r.mate).message, "OK")
            << ordering_name(o) << ' ' << algorithm;
        std::vector<vid_t> mine;  // (input id, input id of mate)
        for (lid_t l = 0; l < h.owned_count(); ++l) {
          mine.push_back(h.input_id(l));
          mine.push_back(r.mate[l] == match::kUnmatched ? match::kUnmatched
                                                        : h.input_id(h.local_id(r.mate[l])));
        }
        const std::vector<vid_t> all = allgatherv(world(), mine);
        std::vector<vid_t> mates(g.global_vertex_count());
        for (size_t i = 0; i < all.size(); i += 2) mates[all[i]] = all[i + 1];
        EXPECT_EQ(mates, reference) << ordering_name(o) << ' ' << algorithm;
      }
  }
}

TEST(Order, StatisticsEqualASerialRecount) {
  const DistGraph g = load_graph(world(), "rmat:9", {}).graph;
  for (Ordering o : orderings()) {
    const DistGraph h = order_graph(world(), g, o, Balance::edges, 1).graph;
    const GraphStats s = compute_stats(world(), h);
    const auto edges = test::gather_edges(world(), h);  // new ids
    const Distribution& d = h.distribution();
    const int p = world().size();
    std::vector<std::set<int>> neighbours(static_cast<size_t>(p));
    std::vector<std::set<vid_t>> ghosts(static_cast<size_t>(p));
    std::vector<std::uint64_t> local(static_cast<size_t>(p), 0);
    std::uint64_t cut = 0;
    for (const auto& e : edges) {
      const int a = d.owner_of(e.u), b = d.owner_of(e.v);
      ++local[static_cast<size_t>(a)];
      if (a != b) {
        neighbours[static_cast<size_t>(a)].insert(b);
        ghosts[static_cast<size_t>(a)].insert(e.v);
        cut += e.u < e.v;
      }
    }
    EXPECT_EQ(s.cut_edges, cut) << ordering_name(o);
    std::uint64_t pairs = 0;
    for (int r = 0; r < p; ++r) {
      const RankFigures& f = s.ranks[static_cast<size_t>(r)];
      EXPECT_EQ(f.owned, d.count(r));
      EXPECT_EQ(f.edges, local[static_cast<size_t>(r)]);
      EXPECT_EQ(f.ghosts, ghosts[static_cast<size_t>(r)].size());
      EXPECT_EQ(static_cast<size_t>(f.process_degree), neighbours[static_cast<size_t>(r)].size());
      pairs += neighbours[static_cast<size_t>(r)].size();
    }
    EXPECT_EQ(s.process_edges, pairs / 2);
  }
}

TEST(Order, GraphIdsAndInputIdsMapBothWays) {
  const DistGraph g = load_graph(world(), "rmat:8", {}).graph;
  const DistGraph h = order_graph(world(), g, Ordering::rcm, Balance::vertices, 1).graph;
  const std::vector<vid_t> input{0, 5, 77, 255, 256};
  const std::vector<vid_t> ids = graph_ids_of(world(), h, input);
  EXPECT_EQ(ids.back(), kNoVertex);
  const std::vector<vid_t> back = input_ids_of(world(), h, {ids[0], ids[1], ids[2], ids[3]});
  EXPECT_EQ(back, std::vector<vid_t>(input.begin(), input.end() - 1));
}

TEST(SampleSort, GlobalOrderAndPositions) {
  // Records made on every rank from (rank, i): the global multiset does not
  // depend on the rank count only through who holds what.
  std::vector<std::uint64_t> mine;
  const std::uint64_t total = 1000;
  for (std::uint64_t i = 0; i < total; ++i)
    if (static_cast<int>(test::mix64(i) % static_cast<std::uint64_t>(world().size())) ==
        world().rank())
      mine.push_back(test::mix64(i + 12345) % 5000 * total + i);  // distinct
  std::vector<std::uint64_t> sorted = mine;
  const SortedSlice slice = sort_globally(world(), sorted);
  EXPECT_EQ(slice.total, total);
  std::vector<std::uint64_t> expected;
  for (std::uint64_t i = 0; i < total; ++i)
    expected.push_back(test::mix64(i + 12345) % 5000 * total + i);
  std::sort(expected.begin(), expected.end());
  for (size_t i = 0; i < sorted.size(); ++i) EXPECT_EQ(sorted[i], expected[slice.first + i]);
  EXPECT_EQ(sum_over_ranks<std::uint64_t>(world(), sorted.size()), total);
}

}  // namespace
}  // namespace gc
