#include <gtest/gtest.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <numeric>
#include <set>
#include <vector>

#include "advise/advice.hpp"
#include "advise/calibration.hpp"
#include "advise/cost_model.hpp"
#include "advise/features.hpp"
#include "advise/network_model.hpp"
#include "core/broadcast.hpp"
#include "graph/spec.hpp"
#include "kernels/spmm/row_blocks.hpp"
#include "nbr/call_counts.hpp"
#include "nbr/collectives.hpp"
#include "nbr/plan.hpp"

namespace gc::advise {
namespace {

using Counts = std::array<double, kTerms>;

// Observations whose times are exactly costs . counts, counts varied so that
// every term is told apart (no two columns proportional).
std::vector<Observation> exact(const Counts& costs) {
  std::vector<Observation> obs;
  for (int i = 1; i <= 12; ++i) {
    Observation o;
    o.counts = {
        1e5 * i,    3e4 * (13 - i), 10.0 * (i % 5 + 1), 3.0 + (i * 7) % 11, 1e6 * ((i * 3) % 7 + 1),
        1e3 * i * i};
    for (std::size_t k = 0; k < kTerms; ++k) o.seconds += costs[k] * o.counts[k];
    obs.push_back(o);
  }
  return obs;
}

TEST(CostModel, RecoversExactCosts) {
  const Counts costs = {2e-8, 0, 5e-6, 0, 1e-10, 3e-9};
  const Coefficients c = fit(exact(costs));
  for (std::size_t k = 0; k < kTerms; ++k)
    EXPECT_NEAR(c.cost[k], costs[k], 1e-6 * (costs[k] + 1e-12)) << term_name(static_cast<Term>(k));
  EXPECT_EQ(c.samples, 12u);
  EXPECT_LT(c.max_error, 1e-6);  // leave-one-out on exact data
}

TEST(CostModel, CostsNeverNegative) {
  // Time falls as the message count grows: least squares alone would give the
  // message term a negative cost.
  std::vector<Observation> obs = exact({1e-8, 0, 0, 0, 0});
  for (Observation& o : obs) o.seconds = std::max(1e-9, o.seconds - 1e-9 * o.counts[1]);
  const Coefficients c = fit(obs);
  for (double v : c.cost) EXPECT_GE(v, 0);
  EXPECT_GT(c.cost[0], 0);
}

TEST(CostModel, AbsentTermCostsNothing) {
  std::vector<Observation> obs = exact({1e-8, 2e-8, 0, 0, 0});
  for (Observation& o : obs) o.counts[4] = 0;
  EXPECT_EQ(fit(obs).cost[4], 0);
}

TEST(CostModel, LeaveOneOutSeesNoise) {
  std::vector<Observation> obs = exact({1e-8, 0, 0, 0, 0});
  obs[3].seconds *= 2;  // one run twice as slow
  const Coefficients c = fit(obs);
  EXPECT_GT(c.max_error, 0.4);
  EXPECT_LT(c.median_error, 0.2);
}

TEST(CostModel, FitsWhatIsNotKnownYet) {
  // Times with a part already explained (a first stage's terms): the fit
  // recovers the costs of the rest, and its error counts the whole time.
  std::vector<Observation> obs = exact({2e-8, 0, 5e-6, 0, 0});
  for (Observation& o : obs) {
    o.known = 1e-3 * o.counts[3];
    o.seconds += o.known;
    o.counts[3] = 0;
  }
  const Coefficients c = fit(obs);
  EXPECT_NEAR(c.cost[0], 2e-8, 1e-14);
  EXPECT_NEAR(c.cost[2], 5e-6, 1e-12);
  EXPECT_LT(c.max_error, 1e-6);
}

// Small calibration inputs: five runs whose time follows the neighbour ranks
// and falls a little as the edges grow (noise). The best fit alone charges
// per neighbour only, and so predicts the same time for any size of graph;
// with the work terms required it charges the edges.
TEST(CostModel, RequiredTermsKeptInTheFit) {
  std::vector<Observation> obs;
  for (int i = 1; i <= 5; ++i) {
    Observation o;
    o.counts = {1000.0 * i, 100.0 * i, 4.0 + 3 * (i % 3), 1, 0, 0};
    o.seconds = 1e-4 * o.counts[2] - 1e-9 * o.counts[0];
    obs.push_back(o);
  }
  const unsigned work = term_bit(Term::scan) | term_bit(Term::message);
  const Coefficients free = fit(obs), charged = fit(obs, work);
  EXPECT_EQ(free.cost[0] + free.cost[1], 0);
  EXPECT_GT(free.cost[2], 0);
  EXPECT_GT(charged.cost[0] + charged.cost[1], 0);
  for (double v : charged.cost) EXPECT_GE(v, 0);
}

TEST(CostModel, WorkTermsOfEachKernel) {
  // Bits in the order of Term: scan 1, message 2, neighbour 4, round 8, global 16.
  static_assert(term_bit(Term::scan) == 1u && term_bit(Term::global) == 16u);
  EXPECT_EQ(work_terms("match", "suitor/ncl-combined"), 1u | 2u);
  EXPECT_EQ(work_terms("bfs", "replicated"), 1u | 2u | 16u);
  EXPECT_EQ(work_terms("spmm", "allgather"), 16u);
  EXPECT_EQ(work_terms("spmm", "neighbor"), 2u);
}

// Ring calls as `advise --calibrate --kernel nbr` makes them, priced by a
// platform that charges `message` per message and `hop` once per call (the
// latency: one call's messages overlap theirs), and `byte` per byte, more
// the more neighbours share the link (contention: not linear in the counts,
// as on a simulated fat tree).
std::vector<NetworkSample> rings(double message, double hop, double byte) {
  std::vector<NetworkSample> out;
  for (int degree : {1, 2, 4, 8, 16, 32})
    for (std::uint64_t block : {8, 2048, 32768}) {
      NetworkSample s;
      s.ranks = 64;
      s.degree = degree;
      s.block = block;
      s.messages = 2.0 * degree;
      s.bytes = s.messages * static_cast<double>(block);
      s.node_bytes = s.bytes;
      s.seconds = message * s.messages + hop + byte * s.bytes * (1 + degree / 8.0);
      out.push_back(s);
    }
  return out;
}

TEST(NetworkModel, TwoStagesKeepTheCostPerMessageOfManyMessages) {
  // The smallest calls' latency is a hop; a call of many messages pays the
  // cost per message. A dense neighbourhood (1,000 messages a call) is then
  // predicted from that cost, whatever the latency.
  const NetworkCosts c = fit_network(rings(0.3e-6, 0.6e-6, 1e-11), 64);
  EXPECT_NEAR(c.per_message, 0.3e-6, 1e-9);
  EXPECT_NEAR(c.per_hop, 0.6e-6, 1e-9);
  NbrConfiguration dense;
  dense.messages = 1000;
  dense.bytes = 4000;
  dense.node_bytes = 4000;
  EXPECT_NEAR(predict_seconds(c, dense) / (0.3e-6 * 1000 + 0.6e-6), 1, 0.01);
  EXPECT_EQ(c.samples, 18u);
}

TEST(CostModel, PredictionIsTheSumOfItsTerms) {
  Coefficients c;
  c.cost = {1, 2, 3, 4, 5};
  const Prediction p = predict(c, {1, 1, 1, 1, 2});
  EXPECT_DOUBLE_EQ(p.seconds, 1 + 2 + 3 + 4 + 10);
  EXPECT_DOUBLE_EQ(p.term_seconds[4], 10);
}

TEST(CostModel, TermsOfEachKernel) {
  Features f;
  f.parts = 8;
  f.vertices = 1000;
  f.edges = 300;
  f.edges_max = 500;
  f.cut_max = 40;
  f.degree_max = 7;
  f.levels = 6;
  f.words_total = 900;
  f.allgather_words_max = 800;
  f.gather_words_max = 120;
  f.node_words_max = 60;
  const Counts m = term_counts("match", "ld/nsr", f), b = term_counts("bfs", "top-down/nsr", f);
  EXPECT_EQ(m, (Counts{500, 40, 7, 4, 0, 0}));  // one round, 1 + log2 8 steps
  EXPECT_EQ(b, (Counts{500, 40, 42, 24, 6000, 0}));
  // No scan; words, not edges. The neighbour gathers: to the busiest rank and
  // into the busiest node; the allgather: all but the busiest rank's own.
  EXPECT_EQ(term_counts("spmm", "neighbor", f), (Counts{0, 120, 7, 4, 0, 60}));
  EXPECT_EQ(term_counts("spmm", "combined", f), (Counts{0, 120, 7, 4, 0, 60}));
  EXPECT_EQ(term_counts("spmm", "allgather", f), (Counts{0, 0, 0, 4, 800, 0}));
  // The combined gather whose plan forms groups: the plan's words and
  // messages, and two hops.
  f.combined_groups = 5;
  f.combined_words_max = 130;
  f.combined_messages_max = 4;
  f.combined_node_words_max = 55;
  EXPECT_EQ(term_counts("spmm", "combined", f), (Counts{0, 130, 4, 8, 0, 55}));
  EXPECT_EQ(term_counts("spmm", "neighbor", f), (Counts{0, 120, 7, 4, 0, 60}));
}

// A matching sample at `parts` ranks whose time is `scan_cost` per edge of
// the busiest rank plus 1 us per cut edge.
Sample match_sample(int parts, int i, double scan_cost) {
  Sample s;
  s.kernel = "match";
  s.configuration = "ld/nsr";
  s.features.parts = parts;
  s.features.edges_max = 1000.0 * i;
  s.features.cut_max = 100.0 * ((i * 7) % 5 + 1);
  s.features.degree_max = 1 + i % 3;
  s.seconds = scan_cost * s.features.edges_max + 1e-6 * s.features.cut_max;
  return s;
}

// A configuration with no sample that took time (a broken run recorded as
// 0 s) is not ranked: nothing prices it.
TEST(Advice, ConfigurationWithoutTimedSamplesIsNotRanked) {
  Calibration c;
  for (int i = 1; i <= 8; ++i) {
    c.samples.push_back(match_sample(16, i, 1e-8));
    Sample zero = match_sample(16, i, 1e-8);
    zero.configuration = "ld/rma";
    zero.seconds = 0;
    c.samples.push_back(zero);
  }
  const Advice a = advise(c, "match", c.samples.front().features, {});
  ASSERT_EQ(a.ranked.size(), 1u);
  EXPECT_EQ(a.ranked.front().configuration, "ld/nsr");
}

TEST(Calibration, FitsAtTheRankCountOnlyWithMoreSamplesThanTerms) {
  Calibration c;
  for (int i = 1; i <= 12; ++i) c.samples.push_back(match_sample(16, i, 1e-8));
  for (int i = 1; i <= 2; ++i) c.samples.push_back(match_sample(256, i, 1e-7));
  // Two samples at 256: too few to fit five costs on, so every sample counts.
  EXPECT_EQ(fit_configurations(c, "match", 256).at("ld/nsr").samples, 14u);
  EXPECT_EQ(fit_configurations(c, "match", 16).at("ld/nsr").samples, 12u);
  EXPECT_EQ(fit_configurations(c, "match", 64).at("ld/nsr").samples, 14u);
  for (int i = 3; i <= 6; ++i) c.samples.push_back(match_sample(256, i, 1e-7));
  const Coefficients at256 = fit_configurations(c, "match", 256).at("ld/nsr");
  EXPECT_EQ(at256.samples, 6u);
  EXPECT_NEAR(at256.cost[static_cast<int>(Term::scan)], 1e-7, 1e-12);
}

// The combined plan's figures of an input where it forms no group: the
// neighbour gather's.
void without_groups(Features& f) {
  f.combined_groups = 0;
  f.combined_words_max = f.gather_words_max;
  f.combined_messages_max = f.degree_max;
  f.combined_node_words_max = f.node_words_max;
}

// An SpMM sample whose neighbour gather costs 10 ns a word entering the
// busiest node and 1 ns a word received, and whose allgather 3 ns a word the
// busiest rank receives.
std::vector<Sample> spmm_samples(int i) {
  Sample s;
  s.kernel = "spmm";
  s.input = fmt::format("input {}", i);
  s.features.parts = 64;
  s.features.ranks_per_node = 16;
  s.features.degree_max = 2.0 + (i * 7) % 62;
  s.features.words_total = 1e5 * (i % 4 + 1);
  s.features.allgather_words_max = s.features.words_total * 63 / 64;
  s.features.gather_words_max = s.features.words_total * s.features.degree_max / 64;
  s.features.node_words_max = 12 * s.features.gather_words_max * (i % 3) / 2;
  without_groups(s.features);
  Sample neighbor = s, allgather = s;
  neighbor.configuration = "neighbor";
  neighbor.seconds = 1e-8 * s.features.node_words_max + 1e-9 * s.features.gather_words_max + 1e-6;
  allgather.configuration = "allgather";
  allgather.seconds = 3e-9 * s.features.allgather_words_max;
  return {neighbor, allgather};
}

// An SpMM input of 10^6 words at 64 parts on nodes of 16.
Features spmm_input(double degree_max, double gather_words_max, double node_words_max) {
  Features f;
  f.parts = 64;
  f.ranks_per_node = 16;
  f.degree_max = degree_max;
  f.words_total = 1e6;
  f.allgather_words_max = 1e6 * 63 / 64;
  f.gather_words_max = gather_words_max;
  f.node_words_max = node_words_max;
  return f;
}

// Over a dense process graph of many nodes a neighbour gather moves a node's
// share of A into it once per rank, an allgather once: the words entering the
// node choose, where the words each rank receives alone would say neighbor.
TEST(Advice, SpmmChoosesByTheWordsEnteringANode) {
  Calibration c;
  for (int i = 1; i <= 12; ++i)
    for (const Sample& s : spmm_samples(i)) c.samples.push_back(s);
  const Features dense = spmm_input(63, 0.98e6, 12 * 0.98e6);
  EXPECT_EQ(advise(c, "spmm", dense, {}).ranked.front().configuration, "allgather");
  const Features sparse = spmm_input(2, 3e4, 1.5e4);
  EXPECT_EQ(advise(c, "spmm", sparse, {}).ranked.front().configuration, "neighbor");
}

// At 2 ranks both gathers move each rank the other's block; where one block
// is most of A (a hub-first file cut in two), the busiest rank receives far
// less than all of A, and the allgather, slower per word here, stays slower.
TEST(Advice, SpmmAllgatherCountsWhatTheBusiestRankReceives) {
  Calibration c;
  for (int i = 1; i <= 8; ++i) {
    Sample s;
    s.kernel = "spmm";
    s.input = fmt::format("balanced {}", i);
    s.features.parts = 2;
    s.features.degree_max = 1;
    s.features.words_total = 1e5 * i;
    s.features.allgather_words_max = s.features.words_total / 2;
    s.features.gather_words_max = s.features.words_total / 2;
    without_groups(s.features);
    Sample neighbor = s, allgather = s;
    neighbor.configuration = "neighbor";
    neighbor.seconds = 1e-9 * s.features.gather_words_max + 1e-6;
    allgather.configuration = "allgather";
    allgather.seconds = 1.3e-9 * s.features.allgather_words_max + 1e-6;
    c.samples.push_back(neighbor);
    c.samples.push_back(allgather);
  }
  Features unbalanced;
  unbalanced.parts = 2;
  unbalanced.degree_max = 1;
  unbalanced.words_total = 1e6;
  unbalanced.allgather_words_max = 0.8e6;  // the smaller block's rank receives the larger
  unbalanced.gather_words_max = 0.8e6;
  const Advice a = advise(c, "spmm", unbalanced, {});
  EXPECT_EQ(a.ranked.front().configuration, "neighbor");
  EXPECT_EQ(a.ranked.back().configuration, "allgather");
  EXPECT_NEAR(a.ranked.back().prediction.seconds, 1.3e-9 * 0.8e6 + 1e-6, 5e-5);
}

// Calibrating SpMM again drops the samples made before its gathers' words
// were counted (else advise would refuse the file until every rank count was
// calibrated again); other kernels' samples stay.
TEST(Calibration, NewSpmmSamplesReplaceThoseWithoutGatherFigures) {
  const Comm comm = Comm::world();
  // One file per run: ctest runs this suite at several rank counts at once.
  const int id = broadcast_value(static_cast<int>(getpid()), 0, comm.get());
  const std::string path = ::testing::TempDir() + fmt::format("graphcomm-stale-spmm-{}.json", id);
  std::vector<Sample> old = spmm_samples(1);
  for (Sample& s : old) s.features.words_total = 0;  // as read from an old file
  old.push_back(match_sample(16, 1, 1e-8));
  if (comm.rank() == 0) std::remove(path.c_str());
  comm.barrier();
  EXPECT_EQ(add_samples(comm, path, "test", old), 0u);
  EXPECT_EQ(add_samples(comm, path, "test", {match_sample(16, 2, 1e-8)}), 0u);  // not SpMM
  std::vector<Sample> fresh = spmm_samples(2);
  fresh.front().features.parts = 4;  // another rank count than the old ones
  EXPECT_EQ(add_samples(comm, path, "test", {fresh.front()}), 2u);
  const Calibration c = load_calibration(comm, path);
  EXPECT_NO_THROW(check_spmm_samples(c));
  EXPECT_EQ(c.samples.size(), 2u);  // the match sample and the new SpMM one
  comm.barrier();
  if (comm.rank() == 0) std::remove(path.c_str());
}

TEST(Calibration, SpmmSamplesWithoutGatherFiguresAreRefused) {
  Calibration c;
  c.name = "old";
  c.samples = spmm_samples(1);
  EXPECT_NO_THROW(check_spmm_samples(c));
  c.samples.front().features.words_total = 0;  // read from a file made before the figures
  EXPECT_THROW(check_spmm_samples(c), Error);
  c.samples = spmm_samples(1);
  c.samples.back().features.allgather_words_max = 0;  // made before it was counted
  EXPECT_THROW(check_spmm_samples(c), Error);
  c.samples.back().features.parts = 1;  // one rank: an allgather receives nothing
  EXPECT_NO_THROW(check_spmm_samples(c));
  c.samples.back().features.parts = 64;
  EXPECT_THROW(fit_configurations(c, "spmm", 64), Error);
  EXPECT_NO_THROW(fit_configurations(c, "match", 64));
  c.samples = spmm_samples(1);
  c.samples.back().features.combined_groups = -1;  // made before the plan's groups were counted
  EXPECT_THROW(check_spmm_samples(c), Error);
  c.samples = spmm_samples(1);
  c.samples.back().features.combined_words_max = -1;  // made before the plan's words were counted
  EXPECT_THROW(check_spmm_samples(c), Error);
}

// SpMM's combined gather whose plan forms no friend group makes the
// neighbour gather's calls: its samples are the neighbour gather's, an input
// where none forms prices it as the neighbour gather, and the neighbour
// gather, the plain call, ranks first. Here those samples ran 20% faster,
// which two fits would have turned into a choice.
TEST(Advice, SpmmCombinedWithoutGroupsIsPricedAsTheNeighbourGather) {
  Calibration c;
  for (int i = 1; i <= 12; ++i)
    for (const Sample& s : spmm_samples(i)) {
      c.samples.push_back(s);
      if (s.configuration != "neighbor") continue;
      Sample combined = s;
      combined.configuration = "combined";
      combined.seconds *= 0.8;
      c.samples.push_back(combined);
    }
  const std::map<std::string, Coefficients> fits = fit_configurations(c, "spmm", 64);
  EXPECT_EQ(fits.at("neighbor").samples, 24u);
  EXPECT_FALSE(fits.count("combined"));  // one fit for both
  Features none = spmm_input(6, 1e5, 1e5);
  without_groups(none);
  const Advice a = advise(c, "spmm", none, {});
  ASSERT_EQ(a.ranked.size(), 3u);
  EXPECT_EQ(a.ranked[0].configuration, "neighbor");
  EXPECT_EQ(a.ranked[1].configuration, "combined");
  EXPECT_EQ(a.ranked[1].same_calls_as, "neighbor");
  EXPECT_EQ(a.ranked[1].priced_as, "neighbor");
  EXPECT_EQ(a.ranked[1].prediction.seconds, a.ranked[0].prediction.seconds);
  EXPECT_TRUE(ties(a).empty());  // the same calls, not a tie the model cannot break
}

// Where its plan forms groups, the combined gather is priced by the plan's
// counts with the costs fitted on both gathers' samples: here 1 ns a word,
// 0.5 us a message and 1 us a step of a round's synchronization (7 steps at
// 64 ranks; the combined gather's second hop is a second round), which the
// fit recovers only from both, as only the combined samples have two hops.
TEST(Advice, SpmmCombinedWithGroupsIsPricedByItsPlan) {
  const auto seconds = [](const Counts& n) { return 1e-9 * n[1] + 5e-7 * n[2] + 1e-6 * n[3]; };
  Calibration c;
  for (int i = 1; i <= 12; ++i) {
    Sample s = spmm_samples(i).front();
    s.features.node_words_max = 0;  // one node
    without_groups(s.features);
    s.seconds = seconds(term_counts("spmm", "neighbor", s.features));
    c.samples.push_back(s);
    s.configuration = "combined";
    s.features.combined_groups = 64;
    s.features.combined_words_max = 1.1 * s.features.gather_words_max + 1000 * (i % 3);
    s.features.combined_messages_max = 1 + s.features.degree_max / (2 + i % 2);
    s.seconds = seconds(term_counts("spmm", "combined", s.features));
    c.samples.push_back(s);
  }
  const Coefficients fit = fit_configurations(c, "spmm", 64).at("neighbor");
  EXPECT_EQ(fit.samples, 24u);
  EXPECT_NEAR(fit.cost[static_cast<int>(Term::message)], 1e-9, 1e-12);
  EXPECT_NEAR(fit.cost[static_cast<int>(Term::neighbour)], 5e-7, 1e-10);
  EXPECT_NEAR(fit.cost[static_cast<int>(Term::round)], 1e-6, 1e-9);
  // Many neighbours, few words: fewer messages win over the second hop.
  Features many = spmm_input(60, 1e4, 0);
  many.combined_groups = 64;
  many.combined_words_max = 1.2e4;
  many.combined_messages_max = 20;
  Advice a = advise(c, "spmm", many, {"neighbor", "combined"});
  EXPECT_EQ(a.ranked.front().configuration, "combined");
  EXPECT_TRUE(a.ranked.front().same_calls_as.empty());
  EXPECT_EQ(a.ranked.front().priced_as, "neighbor");
  EXPECT_NEAR(a.ranked.front().prediction.seconds, 1e-9 * 1.2e4 + 5e-7 * 20 + 1e-6 * 14, 1e-8);
  EXPECT_NE(a.ranked.front().why.find("faster than neighbor, most on 60 neighbour ranks"),
            std::string::npos);
  // Few neighbours: the second hop costs more than the messages saved.
  Features few = spmm_input(6, 1e4, 0);
  few.combined_groups = 64;
  few.combined_words_max = 1.2e4;
  few.combined_messages_max = 4;
  a = advise(c, "spmm", few, {"neighbor", "combined"});
  EXPECT_EQ(a.ranked.front().configuration, "neighbor");
  EXPECT_NE(a.ranked.front().why.find("faster than combined, most on two hops"), std::string::npos);
}

// advise --ranks P for SpMM takes the nodes of the calibration's largest
// SpMM runs: the most ranks a node held among those, other kernels aside.
TEST(Calibration, RanksPerNodeOfTheLargestSpmmRuns) {
  Calibration c;
  EXPECT_EQ(calibrated_ranks_per_node(c, "spmm"), 0);  // none recorded
  c.samples = spmm_samples(1);                         // 64 ranks, nodes of 16
  std::vector<Sample> small = spmm_samples(2);
  for (Sample& s : small) {
    s.features.parts = 16;
    s.features.ranks_per_node = 32;
  }
  c.samples.insert(c.samples.end(), small.begin(), small.end());
  Sample big_match = match_sample(256, 1, 1e-8);
  big_match.features.ranks_per_node = 8;
  c.samples.push_back(big_match);
  EXPECT_EQ(calibrated_ranks_per_node(c, "spmm"), 16);
  EXPECT_EQ(calibrated_ranks_per_node(c, "match"), 8);
  c.samples.front().features.ranks_per_node = 0;  // one run at 64 whose nodes were unknown
  EXPECT_EQ(calibrated_ranks_per_node(c, "spmm"), 16);
}

Choice choice(const std::string& name, double seconds, double fit_error) {
  Choice c;
  c.configuration = name;
  c.prediction.seconds = seconds;
  c.costs.samples = 11;
  c.costs.median_error = fit_error;
  return c;
}

TEST(Advice, TiesAreThoseWithinTheChoicesFitError) {
  Advice a;
  a.ranked = {choice("a", 1.0, 0.2), choice("b", 1.15, 0.5), choice("c", 1.2, 0.0),
              choice("d", 1.3, 0.1)};
  EXPECT_EQ(ties(a), (std::vector<std::string>{"b", "c"}));  // the choice's 20%, not theirs
  EXPECT_NE(ties_line(a).find("2 other configurations"), std::string::npos) << ties_line(a);
  EXPECT_NE(ties_line(a).find("(20%): b, c;"), std::string::npos) << ties_line(a);
  a.ranked.front().costs.median_error = 0.05;
  EXPECT_TRUE(ties(a).empty());
  EXPECT_EQ(ties_line(a), "");
  a.ranked.front().costs = Coefficients{};  // one sample: no error measured, no ties claimed
  a.ranked.front().costs.median_error = 1.0;
  EXPECT_TRUE(ties(a).empty());
}

TEST(Advice, ProcessGraphInWordsHasThreeDensities) {
  auto words = [](double degree_avg) {
    Features f;
    f.parts = 256;
    f.degree_avg = degree_avg;
    Calibration c;
    c.samples.push_back(match_sample(16, 1, 1e-8));
    return advise(c, "match", f, {}).process_graph;
  };
  EXPECT_EQ(words(2.0), "d_avg 2.0 of 255: a sparse process graph");
  // The internet graph at 256 ranks: neither sparse nor dense.
  EXPECT_EQ(words(102.0),
            "d_avg 102.0 of 255: a process graph of middling density (each rank talks to 40% of "
            "the others)");
  EXPECT_EQ(words(200.0), "d_avg 200.0 of 255: a dense process graph");
  EXPECT_EQ(words(255.0), "d_avg 255.0 of 255: every rank talks to every rank");
}

// The features of a generated graph, counted here from its edges, for the
// parts cut by `balance`.
void expect_features_counted_independently(Balance balance) {
  const Comm comm = Comm::world();
  const LoadedGraph loaded = load_graph(comm, "rmat:9", LoadOptions{});
  const DistGraph& g = loaded.graph;
  const int parts = 5;
  const int ranks_per_node = 2;
  const Features f = compute_features(comm, g, parts, balance, false, 1, ranks_per_node, true);
  // Every rank gathers all edges (u < v, each once) and counts itself.
  std::vector<std::uint64_t> mine;
  for (lid_t l = 0; l < g.owned_count(); ++l)
    for (lid_t t : g.neighbors(l)) {
      const vid_t u = g.global_id(l), v = g.global_id(t);
      if (u < v) mine.push_back(u << 32 | v);
    }
  const std::vector<std::uint64_t> all = allgatherv(comm, mine);
  const std::uint64_t n = g.global_vertex_count();
  // Part p starts at bounds[p]. Block: floor(p n / P). Edges: the first
  // vertex after which the work (degree + 1 per vertex) so far reaches floor(p W / P).
  std::vector<std::uint64_t> bounds(parts, 0);
  if (balance == Balance::vertices) {
    for (int p = 0; p < parts; ++p) bounds[p] = p * n / parts;
  } else {
    std::vector<std::uint64_t> work(n, 1);
    for (std::uint64_t e : all) {
      ++work[e >> 32];
      ++work[e & 0xffffffffu];
    }
    const std::uint64_t total = std::accumulate(work.begin(), work.end(), std::uint64_t{0});
    std::uint64_t so_far = 0;
    int p = 1;
    for (std::uint64_t v = 0; v < n && p < parts; ++v) {
      so_far += work[v];
      while (p < parts && so_far >= total * p / parts) bounds[p++] = v + 1;
    }
  }
  auto part = [&](std::uint64_t v) {
    int p = 0;
    while (p + 1 < parts && bounds[p + 1] <= v) ++p;
    return p;
  };
  std::vector<double> edges(parts, 0), cut(parts, 0);
  std::vector<std::set<int>> neighbours(parts);
  for (std::uint64_t e : all) {
    const int a = part(e >> 32), b = part(e & 0xffffffffu);
    edges[a] += 1;
    edges[b] += 1;
    if (a != b) {
      cut[a] += 1;
      cut[b] += 1;
      neighbours[a].insert(b);
      neighbours[b].insert(a);
    }
  }
  double dmax = 0, dsum = 0;
  for (const auto& s : neighbours) {
    dmax = std::max(dmax, static_cast<double>(s.size()));
    dsum += static_cast<double>(s.size());
  }
  // SpMM's gathers: a part's block is 3 + rows + 2 x nonzeros words (first,
  // count, offsets, columns, values); nodes of two consecutive parts.
  std::vector<double> words(parts), gathered(parts, 0), into_node(parts, 0);
  for (int p = 0; p < parts; ++p)
    words[p] =
        3 + static_cast<double>((p + 1 < parts ? bounds[p + 1] : n) - bounds[p]) + 2 * edges[p];
  for (int p = 0; p < parts; ++p)
    for (int q : neighbours[p]) {
      gathered[p] += words[q];
      if (q / ranks_per_node != p / ranks_per_node) into_node[p / ranks_per_node] += words[q];
    }
  EXPECT_DOUBLE_EQ(f.words_total, std::accumulate(words.begin(), words.end(), 0.0));
  EXPECT_DOUBLE_EQ(f.allgather_words_max,
                   f.words_total - *std::min_element(words.begin(), words.end()));
  EXPECT_DOUBLE_EQ(f.gather_words_max, *std::max_element(gathered.begin(), gathered.end()));
  EXPECT_DOUBLE_EQ(f.node_words_max, *std::max_element(into_node.begin(), into_node.end()));
  // The combined gather's plan over these lists (nbr/'s own tests check the
  // plan; this checks the lists it is given).
  std::vector<nbr::Topology> lists;
  for (const std::set<int>& s : neighbours) {
    const std::vector<int> l(s.begin(), s.end());
    lists.push_back({l, l});
  }
  const std::vector<nbr::Plan> plans = nbr::plans_of_every_rank(lists, nbr::PlanOptions{});
  double groups = 0, combined_words = 0;
  for (int p = 0; p < parts; ++p) {
    groups += static_cast<double>(plans[p].figures.groups);
    // Every neighbour's block once, directly or in a friend's combined
    // message, and each friend's block to forward.
    double received = gathered[p];
    for (const nbr::GroupRole& role : plans[p].roles)
      for (int m : role.members)
        if (m != p) received += words[m];
    combined_words = std::max(combined_words, received);
  }
  EXPECT_EQ(f.combined_groups, groups);
  EXPECT_DOUBLE_EQ(f.combined_words_max, combined_words);
  if (groups == 0) {  // the neighbour gather's calls
    EXPECT_DOUBLE_EQ(f.combined_messages_max, dmax);
    EXPECT_DOUBLE_EQ(f.combined_node_words_max, f.node_words_max);
  }
  EXPECT_EQ(f.ranks_per_node, ranks_per_node);
  EXPECT_EQ(f.parts, parts);
  EXPECT_EQ(f.edges, all.size());
  EXPECT_DOUBLE_EQ(f.edges_max, *std::max_element(edges.begin(), edges.end()));
  EXPECT_DOUBLE_EQ(f.cut_max, *std::max_element(cut.begin(), cut.end()));
  EXPECT_DOUBLE_EQ(f.degree_max, dmax);
  EXPECT_DOUBLE_EQ(f.degree_avg, dsum / parts);
  EXPECT_EQ(f.levels, 0);
}

// The friend groups advise counts for the ranks as they hold a graph are
// those of the plan spmm's combined gather builds over them (the
// distributed build); at 8 ranks, where groups form, some.
TEST(Features, CombinedGroupsAreThoseOfTheCombinedGathersPlan) {
  const Comm comm = Comm::world();
  const LoadedGraph loaded = load_graph(comm, "rmat:9", LoadOptions{});
  const Features f = compute_features(comm, loaded.graph, 0, Balance::vertices, false, 1, 0, true);
  EXPECT_EQ(compute_features(comm, loaded.graph, 0, Balance::vertices, false).combined_groups, -1);
  const Comm topology = comm.dist_graph_adjacent(loaded.graph.ghost_relation().ranks);
  const nbr::Collectives combined(topology.get(), nbr::PlanOptions{});
  EXPECT_EQ(f.combined_groups,
            static_cast<double>(sum_over_ranks(comm, combined.plan().figures.groups)));
  // The counts of one gather by the plan every rank built, with every
  // rank's block (the same words as the features' blocks: the ranks hold
  // the parts).
  const std::vector<std::uint64_t> words =
      allgatherv(comm, std::vector<std::uint64_t>{spmm::block_words(
                           loaded.graph.owned_count(), loaded.graph.local_edge_count())});
  const nbr::CallCounts mine =
      nbr::plan_counts(combined.plan(), comm.rank(), "allgather",
                       [&](int r) { return words[static_cast<std::size_t>(r)]; }, {});
  EXPECT_EQ(f.combined_words_max, static_cast<double>(max_over_ranks(comm, mine.bytes_received)));
  EXPECT_EQ(f.combined_messages_max,
            static_cast<double>(
                max_over_ranks(comm, std::max(mine.messages_sent, mine.messages_received))));
  if (comm.size() >= 8) {
    EXPECT_GT(f.combined_groups, 0);
  }
}

TEST(Features, OfBlockPartsCountedIndependently) {
  expect_features_counted_independently(Balance::vertices);
}

// advise --ranks P --distribution edges: the parts are edge-balanced ranges.
TEST(Features, OfEdgeBalancedPartsCountedIndependently) {
  expect_features_counted_independently(Balance::edges);
}

}  // namespace
}  // namespace gc::advise
