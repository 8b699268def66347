// Matching: for every algorithm (locally dominant, Suitor), model and rank
// count the distributed matching must be exactly the serial greedy matching (computed here,
// independently of the kernel and of its verifier, from the gathered edge list and the documented
// edge order), valid and maximal, and at least half the optimum weight
// (computed exactly here by dynamic programming over vertex subsets).
#include <gtest/gtest.h>

#include <set>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <set>

#include <fmt/format.h>

#include "comm/chunk_fifo.hpp"
#include "comm/models.hpp"
#include "graph/build.hpp"
#include "graph/spec.hpp"
#include "kernels/match/edge_order.hpp"
#include "kernels/match/match.hpp"
#include "unit/graph/graph_checks.hpp"

namespace gc {
namespace {

const Comm& world() {
  static Comm c = Comm::world();
  return c;
}

// The whole matching (global id -> mate) on every rank.
std::vector<vid_t> gather_mates(const Comm& comm, const DistGraph& g,
                                const std::vector<vid_t>& mate) {
  std::vector<int> counts(static_cast<size_t>(comm.size())), displs(counts.size());
  const int mine = static_cast<int>(mate.size());
  MPI_Allgather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, comm.get());
  for (size_t r = 1; r < counts.size(); ++r) displs[r] = displs[r - 1] + counts[r - 1];
  std::vector<vid_t> all(g.global_vertex_count());
  MPI_Allgatherv(mate.data(), mine, MPI_UINT64_T, all.data(), counts.data(), displs.data(),
                 MPI_UINT64_T, comm.get());
  return all;
}

// Serial greedy over the documented order: heaviest first, ties by pair hash.
std::vector<vid_t> serial_greedy(vid_t n, const std::vector<test::EdgeKey>& directed) {
  std::vector<test::EdgeKey> edges;
  for (const auto& e : directed)
    if (e.u < e.v) edges.push_back(e);
  std::sort(edges.begin(), edges.end(), [](const test::EdgeKey& a, const test::EdgeKey& b) {
    return match::EdgeKey::of(b.u, b.v, test::weight_of(b)) <
           match::EdgeKey::of(a.u, a.v, test::weight_of(a));
  });
  std::vector<vid_t> mate(n, match::kUnmatched);
  for (const auto& e : edges)
    if (mate[e.u] == match::kUnmatched && mate[e.v] == match::kUnmatched) {
      mate[e.u] = e.v;
      mate[e.v] = e.u;
    }
  return mate;
}

// Exact maximum weight matching of a small graph (n <= 20).
double optimum_weight(vid_t n, const std::vector<test::EdgeKey>& directed) {
  std::vector<std::vector<std::pair<vid_t, double>>> adj(n);
  for (const auto& e : directed) adj[e.u].push_back({e.v, test::weight_of(e)});
  std::vector<double> best(std::size_t{1} << n, 0.0);
  // best[S]: optimum on the vertices of S; take the lowest vertex of S unmatched or matched.
  for (std::size_t s = 1; s < best.size(); ++s) {
    const vid_t low = static_cast<vid_t>(std::countr_zero(s));
    const std::size_t rest = s & ~(std::size_t{1} << low);
    double b = best[rest];
    for (auto [v, w] : adj[low])
      if (rest >> v & 1) b = std::max(b, w + best[rest & ~(std::size_t{1} << v)]);
    best[s] = b;
  }
  return best.back();
}

double weight_of_matching(const std::vector<vid_t>& mate,
                          const std::vector<test::EdgeKey>& directed) {
  double w = 0;
  for (const auto& e : directed)
    if (e.u < e.v && mate[e.u] == e.v) w += test::weight_of(e);
  return w;
}

// What Suitor may send: at most one PROPOSE and one answer per cut edge and
// direction (the capacity the exchange was sized with), none at one rank.
void expect_suitor_traffic(const DistGraph& g, const match::MatchResult& r,
                           const std::string& where) {
  const GhostRelation& rel = g.ghost_relation();
  const auto& to = r.counters.messages_to;
  std::uint64_t to_neighbours = 0;
  for (size_t i = 0; i < rel.ranks.size(); ++i) {
    const std::uint64_t sent = to[static_cast<size_t>(rel.ranks[i])];
    EXPECT_LE(sent, 2 * rel.cut_edges[i]) << where << " to rank " << rel.ranks[i];
    to_neighbours += sent;
  }
  EXPECT_EQ(r.counters.messages(), to_neighbours) << where;
  if (world().size() == 1) {
    EXPECT_EQ(r.counters.messages(), 0u) << where;
    EXPECT_EQ(r.rounds, 0u) << where;
    EXPECT_EQ(r.phases, 0u) << where;
  }
}

// Every algorithm and model (or only `models`) gives the serial greedy
// matching, with the exchange set up by `options` (its buffers' bound); `waits`
// (if given) gets the flow-control waits of each run, sum over ranks.
void expect_greedy_everywhere(const DistGraph& g, const std::string& what,
                              const std::vector<std::string>& models = exchange_models(),
                              const ExchangeOptions& options = {},
                              std::vector<std::uint64_t>* waits = nullptr) {
  const Comm& comm = world();
  const auto edges = test::gather_edges(comm, g);
  const std::vector<vid_t> reference = serial_greedy(g.global_vertex_count(), edges);
  for (const std::string& algorithm : match::matching_algorithms()) {
    for (const std::string& model : models) {
      match::MatchResult r = match::match(comm, g, model, algorithm, options);
      const std::string where =
          fmt::format("{} with {} over {} (round_messages {}, plan {})", what, algorithm, model,
                      options.round_messages, options.gathered_plan ? "gathered" : "distributed");
      const std::uint64_t waited = sum_over_ranks(comm, r.counters.flow_waits);
      if (waits) waits->push_back(waited);
      ASSERT_EQ(r.algorithm, algorithm);
      const std::vector<vid_t> mates = gather_mates(comm, g, r.mate);
      ASSERT_EQ(mates, reference) << where;
      std::uint64_t card = 0;
      for (vid_t v = 0; v < mates.size(); ++v)
        card += mates[v] != match::kUnmatched && v < mates[v];
      EXPECT_EQ(r.cardinality, card) << where;
      EXPECT_NEAR(r.weight, weight_of_matching(mates, edges), 1e-9 * std::max(1.0, r.weight));
      // Maximal: no edge with both ends free.
      for (const auto& e : edges)
        ASSERT_FALSE(mates[e.u] == match::kUnmatched && mates[e.v] == match::kUnmatched)
            << where << " edge " << e.u << "-" << e.v;
      // The project's own verifier agrees.
      EXPECT_EQ(match::check(comm, g, r.mate).message, "OK") << where;
      if (algorithm == "suitor")
        expect_suitor_traffic(g, r, where);
      else
        EXPECT_EQ(r.phases, 1u) << where;
    }
  }
}

DistGraph load(const std::string& spec) {
  LoadOptions o;
  o.seed = 7;
  return load_graph(world(), spec, o).graph;
}

// A graph given by edges on rank 0.
DistGraph from_rank0(vid_t n, const std::vector<Edge>& edges) {
  return build_graph(world(), n, world().rank() == 0 ? edges : std::vector<Edge>{});
}

TEST(Match, GeneratorsEqualSerialGreedy) {
  for (const char* spec : {"rmat:11", "rgg:4000", "er:3000,d=6", "sbm:2000,blocks=5"})
    expect_greedy_everywhere(load(spec), spec);
}

// --weights-precision float: the graph holds each weight rounded to float (4
// bytes, not 8); every algorithm and model gives the serial greedy matching of
// the rounded weights, which the reference reads back from the graph (and
// which are checked here to be the double graph's, rounded).
TEST(Match, FloatWeightsEqualSerialGreedyOfRoundedWeights) {
  for (const char* spec : {"rmat:11", "rgg:4000"}) {
    LoadOptions o;
    o.seed = 7;
    const DistGraph exact = load_graph(world(), spec, o).graph;
    o.edge_weights = EdgeWeights::as_float;
    const DistGraph g = load_graph(world(), spec, o).graph;
    ASSERT_TRUE(g.float_weights());
    EXPECT_TRUE(g.weights(0).empty());  // no double column
    ASSERT_EQ(g.targets(), exact.targets());
    for (eid_t e = 0; e < g.local_edge_count(); ++e)
      ASSERT_EQ(g.weight_at(e), static_cast<double>(static_cast<float>(exact.weight_at(e))));
    EXPECT_EQ(g.csr_bytes(), exact.csr_bytes() - g.local_edge_count() * 4);
    expect_greedy_everywhere(g, fmt::format("{} (float weights)", spec));
    // Redistributed, the weights stay float and the same.
    const DistGraph moved =
        redistribute(world(), g, edge_balanced(world(), g.distribution(), g.offsets()));
    EXPECT_TRUE(moved.float_weights());
    EXPECT_EQ(test::summarize_edges(world(), moved), test::summarize_edges(world(), g));
  }
}

// ncl-combined's friend groups form only with enough ranks (registered at 8
// ranks as well); its plan built distributed or gathered on rank 0.
TEST(Match, NclCombinedEqualsSerialGreedy) {
  for (const char* spec : {"rmat:11", "er:3000,d=6"})
    for (const bool gathered : {false, true})
      expect_greedy_everywhere(load(spec), spec, {"ncl-combined"}, {.gathered_plan = gathered});
}

// The report of ncl-combined's plan: none for the other models; per call,
// without the plan one message per process-graph neighbour (counted here
// from the ghosts' owners); with 8 ranks groups form and save messages.
TEST(Match, NclCombinedReportsItsPlan) {
  const DistGraph g = load("rmat:11");
  EXPECT_FALSE(match::match(world(), g, "ncl", "ld").combined_plan.has_value());
  const match::MatchResult r = match::match(world(), g, "ncl-combined", "ld");
  ASSERT_TRUE(r.combined_plan.has_value());
  std::set<int> owners;
  for (lid_t i = 0; i < g.ghost_count(); ++i) owners.insert(g.ghost_owner(g.owned_count() + i));
  EXPECT_EQ(r.combined_plan->direct_messages,
            sum_over_ranks<std::uint64_t>(world(), owners.size()));
  if (world().size() >= 8) {
    EXPECT_GT(r.combined_plan->groups, 0u);
    EXPECT_LT(r.combined_plan->messages, r.combined_plan->direct_messages);
  } else {
    EXPECT_EQ(r.combined_plan->messages, r.combined_plan->direct_messages);
  }
}

// Bounded buffers (one message per neighbour and round, or a few) hold
// traffic back, and change nothing in the result. Which models wait: those
// that honour round_messages (not nsr, nsr-agg, whose sends are eager, nor
// hybrid, whose packet slots are fixed).
TEST(Match, BoundedBuffersEqualSerialGreedy) {
  const std::vector<std::string>& models = exchange_models();
  for (const char* spec : {"rmat:11", "er:3000,d=6"})
    for (std::uint64_t bound : {1u, 5u}) {
      const DistGraph g = load(spec);
      std::vector<std::uint64_t> waits;
      expect_greedy_everywhere(g, spec, models, {.round_messages = bound}, &waits);
      ASSERT_EQ(waits.size(), 2 * models.size());
      if (world().size() == 1 || bound != 1) continue;
      for (size_t i = 0; i < waits.size(); ++i) {
        const std::string& model = models[i % models.size()];
        if (model != "nsr" && model != "nsr-agg" && model != "hybrid") {
          EXPECT_GT(waits[i], 0u) << spec << " over " << model << ": nothing waited";
        }
      }
    }
}

// ld pushes its first phase in slices between rounds, each bounded by a
// round's batch (at least a queue chunk) to any neighbour, less what still
// waits in the exchange's queues. Where the whole first phase went out before
// the first round, both checks below fail.
// - nsr and nsr-agg count a message when it is pushed: their round 0, the
//   first slice, sends at most a batch per neighbour and the pushes of the
//   vertex that filled it. Their buffers are not bounded here: the answers
//   that processing pushes wait until the neighbours take them, which with
//   more ranks than cores depends on the scheduler.
// - rma and ncl advance their queues with the rounds: their buffers stay a
//   small part of what a rank sends.
TEST(Match, LocallyDominantQueuesHoldAboutARound) {
  // Larger with more ranks: a rank's messages must outweigh its buffers'
  // floor (per neighbour a queue chunk, a spare and the round's arrays).
  const DistGraph g = load(world().size() <= 2 ? "rmat:15" : "rmat:17");
  const std::uint64_t batch = ChunkFifo<Message>::kChunk;  // round_messages, and the slice
  eid_t d_max = 0;
  for (lid_t v = 0; v < g.owned_count(); ++v) d_max = std::max(d_max, g.degree(v));
  d_max = max_over_ranks(world(), d_max);
  const std::uint64_t ranks = static_cast<std::uint64_t>(world().size());
  for (const std::string model : {"nsr", "nsr-agg", "rma", "ncl"}) {
    const match::MatchResult r = match::match(world(), g, model, "ld", {.round_messages = batch});
    const std::uint64_t sent = min_over_ranks(world(), r.counters.messages()) * sizeof(Message);
    if (world().size() == 1) {  // no neighbour: nothing sent, nothing held back
      EXPECT_EQ(sent, 0u) << model;
      EXPECT_EQ(r.counters.flow_waits, 0u) << model;
    } else if (model == "nsr" || model == "nsr-agg") {
      const nlohmann::json& round0 = r.profile.at("buckets").at(0);
      ASSERT_EQ(round0.at("last_round"), 0) << model;
      EXPECT_LE(round0.at("messages").get<std::uint64_t>(), ranks * ((ranks - 1) * batch + d_max))
          << model << ": the first slice, summed over ranks";
    } else {
      EXPECT_LT(4 * r.buffer_bytes, sent) << model << ": buffers " << r.buffer_bytes;
    }
  }
}

// Over the round-based models Suitor proposes in time slices between rounds,
// answering what arrives in between. With the shortest slice (64 vertices a
// round) proposals, answers and displacements interleave across many rounds,
// alone and with the tightest buffers, and the result stays the greedy one.
TEST(Match, SuitorInSlicesEqualsSerialGreedy) {
  const Comm& comm = world();
  for (const char* spec : {"rmat:11", "er:3000,d=6", "rgg:4000"}) {
    const DistGraph g = load(spec);
    const std::vector<vid_t> reference =
        serial_greedy(g.global_vertex_count(), test::gather_edges(comm, g));
    for (const std::string model : {"rma", "ncl", "ncl-combined"})
      for (std::uint64_t bound : {ExchangeOptions::kDefaultRoundMessages, std::uint64_t{1}}) {
        const std::string where = fmt::format("{} over {} (round_messages {})", spec, model, bound);
        const match::MatchResult r =
            match::match(comm, g, model, "suitor", {.round_messages = bound}, 0.0);
        ASSERT_EQ(gather_mates(comm, g, r.mate), reference) << where;
        EXPECT_EQ(match::check(comm, g, r.mate).message, "OK") << where;
        expect_suitor_traffic(g, r, where);
        if (comm.size() == 1) continue;
        // One phase, of at least one round per 64 vertices of the largest range.
        EXPECT_EQ(r.phases, 1u) << where;
        vid_t most = 0;
        for (int q = 0; q < comm.size(); ++q) most = std::max(most, g.distribution().count(q));
        EXPECT_GE(r.rounds, most / 64) << where;
      }
  }
}

TEST(Match, SmallDatasetsEqualSerialGreedy) {
  const std::string dir = GRAPHCOMM_DATASETS;
  for (const char* file : {"ash292.mtx.gz", "dwt_193.mtx.gz", "Journals.mtx.gz",
                           "static_lowOverlap_lowBlockSizeVar_1000_nodes.tsv.gz"})
    expect_greedy_everywhere(load(dir + "/" + file), file);
}

TEST(Match, AtLeastHalfTheOptimum) {
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    LoadOptions o;
    o.seed = seed;
    DistGraph g = load_graph(world(), fmt::format("er:{},d=5", 10 + seed % 7), o).graph;
    const auto edges = test::gather_edges(world(), g);
    const double opt = optimum_weight(g.global_vertex_count(), edges);
    for (const std::string& algorithm : match::matching_algorithms()) {
      match::MatchResult r = match::match(world(), g, "ncl", algorithm);
      EXPECT_GE(r.weight, opt / 2 - 1e-12) << "seed " << seed << " " << algorithm;
      EXPECT_LE(r.weight, opt + 1e-12) << "seed " << seed << " " << algorithm;
    }
  }
}

// Property: on random graphs of every shape, with weights drawn from a few
// values (many ties, so the pair hash and then the ids decide) or all equal,
// both algorithms give the serial greedy matching over every model (each
// seed takes two models in turn, so every model meets many graphs).
TEST(Match, RandomGraphsWithTiesEqualSerialGreedy) {
  const std::vector<std::string>& models = exchange_models();
  for (std::uint64_t seed = 1; seed <= 60; ++seed) {
    std::mt19937_64 rng(seed);  // the same on every rank; only rank 0's edges count
    const vid_t n = 2 + rng() % 120;
    const std::uint64_t m = rng() % (4 * n);
    const int distinct = static_cast<int>(rng() % 4);  // 0: all weights equal
    const vid_t hubs = 1 + rng() % 3;                  // some edges fan out from a few hubs
    std::vector<Edge> edges;
    for (std::uint64_t i = 0; i < m; ++i) {
      const vid_t u = rng() % 3 == 0 ? rng() % hubs : rng() % n;
      const vid_t v = rng() % n;
      const double w = distinct == 0 ? 1.0 : static_cast<double>(rng() % (distinct + 1)) * 0.25;
      edges.push_back(Edge{u, v, w});  // self-loops dropped, duplicates merged by the builder
    }
    DistGraph g = from_rank0(n, edges);
    const auto directed = test::gather_edges(world(), g);
    const std::vector<vid_t> reference = serial_greedy(n, directed);
    const std::string what = fmt::format("seed {} (n {}, m {}, {} weights)", seed, n, m, distinct);
    for (const std::string& algorithm : match::matching_algorithms())
      for (size_t k = 0; k < 2; ++k) {
        const std::string& model = models[(seed * 2 + k) % models.size()];
        match::MatchResult r = match::match(world(), g, model, algorithm);
        ASSERT_EQ(gather_mates(world(), g, r.mate), reference)
            << what << " with " << algorithm << " over " << model;
        if (algorithm == "suitor") expect_suitor_traffic(g, r, what + " over " + model);
      }
  }
}

// Suitor compares a byte per suitor (its weight's level, steps chosen from a
// sample of the weights) before the weights, where a rank's suitors take
// more than 4 MiB (over 262,144 owned and ghost vertices: so 1.1M vertices
// here, their edges among 6,000 of them spread over every rank). Weights the
// sample misses (more than 2^16 directed edges a rank: it takes every few),
// weights one ulp apart, denormals and zeros beside ordinary ones; weights up
// to 8e300; a graph whose sample sees one weight only: the levels must never
// decide a comparison the weights decide otherwise.
TEST(Match, SuitorLevelsNeverDecideAgainstTheWeights) {
  const vid_t n = 1100000, active = 6000;
  std::mt19937_64 rng(11);  // the same on every rank; only rank 0's edges count
  const auto vertex = [&] {
    const vid_t a = rng() % 7 == 0 ? rng() % 20 : rng() % active;  // some hubs
    return a * (n / active);
  };
  std::vector<Edge> mixed, huge, nearly_equal;
  for (std::uint64_t i = 0; i < 100000; ++i) {
    const vid_t u = vertex(), v = vertex();
    const std::uint64_t k = rng() % 9;
    double w = static_cast<double>(rng() % 1000000 + 1) * 1e-6;             // (0, 1]
    if (i % 6 == 0) w = std::nextafter(0.5, 0.5 + static_cast<double>(k));  // 0.5 and one ulp up
    if (i % 6 == 1) w = std::numeric_limits<double>::denorm_min() * static_cast<double>(k);
    if (i % 6 == 2) w = 0;
    // A few hundred heavier than the rest, mostly unsampled: past the steps.
    if (i % 331 == 0) w = 1 + static_cast<double>(rng() % 1000) * 0.01;
    mixed.push_back(Edge{u, v, w});
    huge.push_back(Edge{u, v, i % 3 == 0 ? 1e300 * static_cast<double>(k) : w});
    nearly_equal.push_back(Edge{u, v, i % 5000 == 4999 ? 2.0 : 1.0});
  }
  expect_greedy_everywhere(from_rank0(n, mixed), "mixed extreme weights", {"ncl", "nsr"});
  expect_greedy_everywhere(from_rank0(n, huge), "weights up to 8e300", {"ncl"});
  expect_greedy_everywhere(from_rank0(n, nearly_equal), "all weights 1 but a few", {"ncl"});
}

TEST(Match, PathAtTwoRanksIsNotCutShort) {
  // The flaw of the paper's public code: a 6-vertex path at 2 ranks must give
  // the greedy matching (two or three edges), never one.
  std::vector<Edge> path;
  const double w[] = {0.5, 0.9, 0.6, 0.8, 0.7};
  for (vid_t i = 0; i < 5; ++i) path.push_back(Edge{i, i + 1, w[i]});
  expect_greedy_everywhere(from_rank0(6, path), "6-vertex path");
}

TEST(Match, AdversarialEqualWeights) {
  std::vector<Edge> path, grid, star;
  const vid_t n = 100000;
  for (vid_t i = 0; i + 1 < n; ++i) path.push_back(Edge{i, i + 1, 1.0});
  const vid_t side = 300;
  for (vid_t r = 0; r < side; ++r)
    for (vid_t c = 0; c < side; ++c) {
      if (c + 1 < side) grid.push_back(Edge{r * side + c, r * side + c + 1, 1.0});
      if (r + 1 < side) grid.push_back(Edge{r * side + c, (r + 1) * side + c, 1.0});
    }
  for (vid_t i = 1; i < 1000; ++i) star.push_back(Edge{0, i, 1.0});
  DistGraph p = from_rank0(n, path);
  expect_greedy_everywhere(p, "equal-weight path");
  // Hash tie-breaking keeps the dependency chains short: far fewer rounds
  // (Suitor: supersteps) than n.
  EXPECT_LT(match::match(world(), p, "ncl").rounds, 100u);
  EXPECT_LT(match::match(world(), p, "ncl", "suitor").phases, 100u);
  DistGraph g = from_rank0(side * side, grid);
  expect_greedy_everywhere(g, "equal-weight grid");
  EXPECT_LT(match::match(world(), g, "ncl").rounds, 100u);
  EXPECT_LT(match::match(world(), g, "ncl", "suitor").phases, 100u);
  expect_greedy_everywhere(from_rank0(1000, star), "star");
}

TEST(Match, SuitorSendsNoProposalItsOwnRankDooms) {
  // A hub (the last vertex, owned by the last rank) and 999 leaves whose
  // edges to it get lighter as the leaf's id grows. On every other rank the
  // first leaf proposes to the hub; a later leaf there knows the hub's
  // suitor will weigh at least that first proposal's weight, so its own
  // would be refused, and it sends none: one message to the hub's owner per
  // rank, not one per leaf.
  const vid_t n = 1000, hub = n - 1;
  std::vector<Edge> fan;
  for (vid_t leaf = 0; leaf < hub; ++leaf)
    fan.push_back(Edge{leaf, hub, 1.0 - static_cast<double>(leaf) / static_cast<double>(n)});
  const DistGraph g = from_rank0(n, fan);
  expect_greedy_everywhere(g, "fan of decreasing weights", {"ncl"});
  const match::MatchResult r = match::match(world(), g, "ncl", "suitor");
  const int hub_owner = g.owner_of(hub);
  if (g.rank() != hub_owner) {
    EXPECT_LE(r.counters.messages_to[static_cast<std::size_t>(hub_owner)], 1u);
  }
}

TEST(Match, DegenerateGraphs) {
  expect_greedy_everywhere(from_rank0(10, {}), "no edges");
  expect_greedy_everywhere(from_rank0(3, {Edge{0, 2, 0.5}}),
                           "isolated vertex, fewer vertices than 4 ranks");
  expect_greedy_everywhere(from_rank0(2, {Edge{0, 1, 1.0}}), "one edge");
}

}  // namespace
}  // namespace gc
