// mq/ engines rank-array, bins, hash, vectors and partner-vectors (every
// SIMD level the CPU has, widths 16 and 8; partner-vectors without partners,
// its non-partner and any-source queues both vector queues, and with
// partners from a fixed profile): the same matches, probe results, queue
// lengths and search counts as linked-list on random workloads (short ones
// at many seeds, long ones with deep queues); hand-made cases for each
// design's tricky paths; what each design traverses and how much memory it
// adds. The partner engines' own cases, against profiles taken from each
// workload, are in test_mq_partner.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "core/error.hpp"
#include "mq/engines/engine.hpp"
#include "mq/engines/engines.hpp"
#include "mq/engines/profile.hpp"
#include "mq/engines/queue.hpp"
#include "mq/engines/replay.hpp"
#include "mq/engines/vector_queue.hpp"
#include "unit/mq/mq_events.hpp"

namespace gc::mq {
namespace {

// ---------------------------------------------------------------------------
// Configurations under test

struct Config {
  std::string label;  // gtest parameter name
  std::string engine;
  EngineOptions options;
};

void PrintTo(const Config& c, std::ostream* os) {
  *os << c.label;
}

bool cpu_has(const std::string& level) {
  __builtin_cpu_init();
  if (level == "avx512")
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vl");
  if (level == "avx2") return __builtin_cpu_supports("avx2");
  return level == "scalar";
}

// The vector layouts this CPU runs (SIMD level x node width), as options
// and a label for failure messages.
std::vector<std::pair<EngineOptions, std::string>> vector_layouts() {
  std::vector<std::pair<EngineOptions, std::string>> out;
  for (const char* level : {"avx512", "avx2", "scalar"}) {
    if (!cpu_has(level)) continue;
    for (int width : {8, 16}) {
      EngineOptions o;
      o.vector_width = width;
      o.simd = level;
      out.emplace_back(o, fmt::format("{} width {}", level, width));
    }
  }
  return out;
}

// A profile for partner-vectors: on communicator 0 the odd sources below
// 16 are partners, on communicator 1 the even ones (counts 1 and 2, average
// 1.5); every other source is a non-partner.
Profile alternating_profile() {
  Profile p(2, std::vector<std::uint64_t>(16));
  for (std::size_t s = 0; s < 16; ++s) {
    p[0][s] = 1 + s % 2;
    p[1][s] = 2 - s % 2;
  }
  return p;
}

// Every engine of engine_names() but the reference and the engines tested
// elsewhere, with its default options, plus variants of the options that
// change the code paths. Extend here.
std::vector<Config> configs() {
  const std::set<std::string> elsewhere{"linked-list", "partner-static", "partner-dynamic"};
  std::vector<Config> c;
  for (const std::string& name : engine_names()) {
    if (elsewhere.count(name)) continue;
    std::string label = name;
    std::replace(label.begin(), label.end(), '-', '_');
    c.push_back({label, name, {}});
  }
  EngineOptions o;
  for (int bins : {1, 7}) {
    o.bins = bins;
    c.push_back({fmt::format("bins_{}", bins), "bins", o});
    c.push_back({fmt::format("hash_{}", bins), "hash", o});
  }
  for (int width : {16, 8})
    for (const char* level : {"avx512", "avx2", "scalar"}) {
      if (!cpu_has(level)) continue;
      EngineOptions v;
      v.vector_width = width;
      v.simd = level;
      c.push_back({fmt::format("vectors_{}_{}", width, level), "vectors", v});
      c.push_back({fmt::format("partner_vectors_{}_{}", width, level), "partner-vectors", v});
      v.profile = alternating_profile();
      v.threshold = 0;  // the partner queues from the first element
      c.push_back(
          {fmt::format("partner_vectors_{}_{}_partners", width, level), "partner-vectors", v});
      v.threshold = 4;  // from the one queue pair to the partner queues part way
      c.push_back(
          {fmt::format("partner_vectors_{}_{}_partners_t4", width, level), "partner-vectors", v});
    }
  return c;
}

class Engines : public ::testing::TestWithParam<Config> {
 protected:
  std::unique_ptr<Engine> make() const {
    return make_engine(GetParam().engine, GetParam().options);
  }
  ReplayResult run(const std::vector<Event>& events, int ranks = 4) const {
    auto e = make();
    return replay(events, {{0, ranks}, {1, ranks}}, *e);
  }
};

INSTANTIATE_TEST_SUITE_P(All, Engines, ::testing::ValuesIn(configs()),
                         [](const auto& info) { return info.param.label; });

using test::arrive;
using test::post;
using test::probe;

// Matches, probes, queue lengths and search counts: everything the
// semantics fix (traversal counts and memory are the design's own).
void expect_same(const ReplayResult& reference, const ReplayResult& r, const std::string& what) {
  ASSERT_EQ(r.matches.size(), reference.matches.size()) << what;
  for (std::size_t i = 0; i < r.matches.size(); ++i)
    ASSERT_EQ(r.matches[i], reference.matches[i])
        << what << ": match " << i << " is receive " << r.matches[i].receive << " / message "
        << r.matches[i].message;
  ASSERT_EQ(r.probes, reference.probes) << what;
  EXPECT_EQ(r.counters.prq_length_max, reference.counters.prq_length_max) << what;
  EXPECT_EQ(r.counters.umq_length_max, reference.counters.umq_length_max) << what;
  EXPECT_EQ(r.counters.prq_searches, reference.counters.prq_searches) << what;
  EXPECT_EQ(r.counters.umq_searches, reference.counters.umq_searches) << what;
}

// ---------------------------------------------------------------------------
// Equal to linked-list on random workloads

TEST_P(Engines, EqualLinkedListOnShortRandomWorkloads) {
  constexpr double kFractions[] = {0, 0.1, 0.5};
  constexpr double kBiases[] = {0.2, 0.5, 0.8};
  for (std::uint64_t seed = 0; seed < 200; ++seed) {
    RandomWorkload w;
    w.ranks = 1 + static_cast<int>(seed % 13);
    w.tags = 1 + static_cast<int>(seed / 3 % 6);
    w.comms = 1 + static_cast<int>(seed % 2);
    w.events = 300;
    w.any_source = kFractions[seed % 3];
    w.any_tag = kFractions[seed / 3 % 3];
    w.probes = seed % 4 == 0 ? 0.2 : 0.05;
    w.post_bias = kBiases[seed / 9 % 3];
    const auto events = random_events(w, seed);
    const auto comms = communicators_of(w);
    auto reference = make_engine("linked-list");
    auto engine = make();
    expect_same(replay(events, comms, *reference), replay(events, comms, *engine),
                fmt::format("seed {}", seed));
    if (HasFatalFailure()) return;
  }
}

// Deep queues: 10^4 events, 64 or 1024 sources on two communicators.
TEST_P(Engines, EqualLinkedListOnLongDeepWorkloads) {
  struct Long {
    RandomWorkload w;
    std::vector<Event> events;
    ReplayResult reference;
  };
  static const std::vector<Long> workloads = [] {
    std::vector<Long> all;
    std::uint64_t seed = 1000;
    for (int ranks : {64, 1024})
      for (double bias : {0.2, 0.8})
        for (double wildcard : {0.0, 0.1, 0.5}) {
          Long l;
          l.w.ranks = ranks;
          l.w.tags = 8;
          l.w.comms = 2;
          l.w.events = 10000;
          l.w.post_bias = bias;
          l.w.any_source = l.w.any_tag = wildcard;
          l.events = random_events(l.w, ++seed);
          auto reference = make_engine("linked-list");
          l.reference = replay(l.events, communicators_of(l.w), *reference);
          all.push_back(std::move(l));
        }
    return all;
  }();
  for (const Long& l : workloads) {
    auto engine = make();
    const auto r = replay(l.events, communicators_of(l.w), *engine);
    const std::string what = fmt::format("{} ranks, post bias {}, wildcards {}", l.w.ranks,
                                         l.w.post_bias, l.w.any_source);
    expect_same(l.reference, r, what);
    if (HasFatalFailure()) return;
    // Deep indeed: otherwise this would test little.
    EXPECT_GT(std::max(r.counters.prq_length_max, r.counters.umq_length_max), 2000u) << what;
  }
}

// ---------------------------------------------------------------------------
// Hand-made cases

TEST_P(Engines, EarlierPostedWildcardReceiveWins) {
  // A wildcard receive posted before a specific one for the same message
  // takes it, whether its wildcard is the source or the tag; then the
  // specific one takes the next.
  for (const Event& wildcard : {post(kAnySource, 1), post(2, kAnyTag), post(kAnySource, kAnyTag)}) {
    const auto r = run({wildcard, post(2, 1), arrive(2, 1), arrive(2, 1)});
    ASSERT_EQ(r.matches.size(), 2u);
    EXPECT_EQ(r.matches[0], (Match{0, 0}));
    EXPECT_EQ(r.matches[1], (Match{1, 1}));
  }
  // And the other way round.
  const auto r = run({post(2, 1), post(kAnySource, 1), arrive(2, 1), arrive(3, 1)});
  ASSERT_EQ(r.matches.size(), 2u);
  EXPECT_EQ(r.matches[0], (Match{0, 0}));
  EXPECT_EQ(r.matches[1], (Match{1, 1}));
}

TEST_P(Engines, WildcardPostTakesTheEarliestArrivalAcrossSources) {
  // The highest rank's message arrived first: scanning sources in rank
  // order (as ob1 does) would pick the wrong one.
  const auto r = run({arrive(3, 0), arrive(1, 0), arrive(2, 0), arrive(0, 5), post(kAnySource, 0),
                      probe(kAnySource, kAnyTag), post(kAnySource, 0), probe(kAnySource, kAnyTag),
                      post(kAnySource, kAnyTag), post(kAnySource, kAnyTag), arrive(1, 7),
                      arrive(1, 3), post(1, kAnyTag)});
  ASSERT_EQ(r.matches.size(), 5u);
  EXPECT_EQ(r.matches[0], (Match{0, 0}));
  EXPECT_EQ(r.matches[1], (Match{1, 1}));
  EXPECT_EQ(r.matches[2], (Match{2, 2}));
  EXPECT_EQ(r.matches[3], (Match{3, 3}));
  EXPECT_EQ(r.matches[4], (Match{4, 4}));
  EXPECT_EQ(r.probes, (std::vector<Id>{1, 2}));
}

TEST_P(Engines, CommunicatorsStayApart) {
  const auto r = run({arrive(1, 0, 1), arrive(1, 0, 0), post(1, 0, 0), post(kAnySource, kAnyTag, 1),
                      post(1, 0, 1), arrive(1, 0, 0), probe(1, 0, 1), post(1, 0, 0)});
  ASSERT_EQ(r.matches.size(), 3u);
  EXPECT_EQ(r.matches[0], (Match{0, 1}));
  EXPECT_EQ(r.matches[1], (Match{1, 0}));
  EXPECT_EQ(r.matches[2], (Match{3, 2}));  // receive 2 (comm 1) still waits
  EXPECT_EQ(r.probes, (std::vector<Id>{kNoMatch}));
}

TEST_P(Engines, ProbeLeavesTheMessage) {
  const auto r = run({arrive(3, 0), probe(kAnySource, 0), probe(3, 1), probe(3, 0), post(3, 0),
                      probe(3, kAnyTag)});
  EXPECT_EQ(r.probes, (std::vector<Id>{0, kNoMatch, 0, kNoMatch}));
  ASSERT_EQ(r.matches.size(), 1u);
  EXPECT_EQ(r.matches[0], (Match{0, 0}));
}

TEST_P(Engines, CollidingEnvelopesAreNotConfused) {
  // Envelopes that share a bin at bins = 1, or a UCX bucket (tags 2^24
  // apart pack to the same 64-bit tag), must still be told apart.
  const std::int32_t far = 5 + (1 << 24);
  const auto r = run({arrive(0, 1), arrive(1, 0), arrive(1, far), post(1, 5), post(1, 0),
                      post(1, far), post(0, 0), arrive(0, 0), post(0, 1)});
  ASSERT_EQ(r.matches.size(), 4u);
  EXPECT_EQ(r.matches[0], (Match{1, 1}));
  EXPECT_EQ(r.matches[1], (Match{2, 2}));
  EXPECT_EQ(r.matches[2], (Match{3, 3}));  // receive 0 (tag 5) still waits
  EXPECT_EQ(r.matches[3], (Match{4, 0}));
}

TEST_P(Engines, HolesKeepTheOrder) {
  // 40 messages (tags 0..39, sources 0..3): taking some from the middle
  // leaves holes in vector nodes and splits bins; wildcard receives then
  // take the rest in arrival order, with new arrivals behind them.
  std::vector<Event> events;
  for (int i = 0; i < 40; ++i) events.push_back(arrive(i % 4, i));
  for (int tag : {5, 6, 20, 21, 22, 9, 17, 33, 0, 39}) events.push_back(post(tag % 4, tag));
  for (int i = 40; i < 44; ++i) events.push_back(arrive(i % 4, i));
  for (int i = 0; i < 34; ++i) events.push_back(post(kAnySource, kAnyTag));
  const auto r = run(events);
  std::vector<Id> expected{5, 6, 20, 21, 22, 9, 17, 33, 0, 39};
  for (Id m = 1; m < 44; ++m)
    if (std::find(expected.begin(), expected.end(), m) == expected.end()) expected.push_back(m);
  ASSERT_EQ(r.matches.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(r.matches[i].receive, i);
    EXPECT_EQ(r.matches[i].message, expected[i]) << "match " << i;
  }
  // The PRQ side: receives 0..39 (tag i; any source when i % 4 == 3), six
  // taken out of order, six wildcard receives 40..45; then a message for
  // every tag: the earliest-posted open receive accepting it, computed here
  // by brute force, must take it.
  events.clear();
  for (int i = 0; i < 40; ++i) events.push_back(post(i % 4 == 3 ? kAnySource : i % 4, i));
  const std::vector<Id> taken{11, 12, 13, 30, 2, 38};
  for (Id tag : taken) events.push_back(arrive(static_cast<int>(tag % 4), static_cast<int>(tag)));
  for (int i = 40; i < 46; ++i) events.push_back(post(kAnySource, kAnyTag));
  for (int i = 0; i < 40; ++i) events.push_back(arrive(i % 4, i));
  std::vector<Match> expected_prq;
  std::vector<bool> open(46, true);
  for (std::size_t m = 0; m < taken.size(); ++m) {
    expected_prq.push_back({taken[m], m});
    open[taken[m]] = false;
  }
  for (Id tag = 0; tag < 40; ++tag) {
    Id chosen = 0;
    while (!(open[chosen] && (chosen >= 40 || chosen == tag))) ++chosen;
    open[chosen] = false;
    expected_prq.push_back({chosen, taken.size() + tag});
  }
  EXPECT_EQ(run(events).matches, expected_prq);
}

// ---------------------------------------------------------------------------
// What the designs traverse

std::uint64_t umq_traversed(const std::string& engine, const std::vector<Event>& events, int ranks,
                            EngineOptions options = {}) {
  auto e = make_engine(engine, options);
  return replay(events, {{0, ranks}}, *e).counters.umq_traversed;
}

TEST(Traversal, RankArraySearchesOnlyTheNamedSource) {
  // 99 messages from sources 1..99, then one from 0; a receive from 0 looks
  // at one message in rank-array, at all 100 in linked-list.
  std::vector<Event> events;
  for (int s = 1; s < 100; ++s) events.push_back(arrive(s, 0));
  events.push_back(arrive(0, 0));
  events.push_back(post(0, 0));
  EXPECT_EQ(umq_traversed("linked-list", events, 100), 100u);
  EXPECT_EQ(umq_traversed("rank-array", events, 100), 1u);
  // Hashed designs look at the bucket only: a few collisions at most.
  EXPECT_LE(umq_traversed("bins", events, 100), 5u);
  EXPECT_LE(umq_traversed("hash", events, 100), 5u);
  // bins = 1 is one queue again.
  EngineOptions one;
  one.bins = 1;
  EXPECT_EQ(umq_traversed("bins", events, 100, one), 100u);
  // The PRQ side: 99 receives for sources 1..99, one for 0, its message.
  events.clear();
  for (int s = 1; s < 100; ++s) events.push_back(post(s, 0));
  events.push_back(post(0, 0));
  events.push_back(arrive(0, 0));
  for (const char* engine : {"linked-list", "rank-array"}) {
    auto e = make_engine(engine);
    const auto r = replay(events, {{0, 100}}, *e);
    ASSERT_EQ(r.matches.size(), 1u);
    EXPECT_EQ(r.counters.prq_traversed, std::string(engine) == "rank-array" ? 1u : 100u) << engine;
  }
}

TEST(Traversal, RankArrayWildcardPostStopsAtTheBestSoFar) {
  // Messages from 3, 2, 1, 0 (in that order), each source's queue holding
  // one: the any-source receive compares source 0's (order 3), then 1's
  // (order 2), 2's (order 1), 3's (order 0): all four, each earlier.
  // Arrivals in rank order instead stop after the first: every other head
  // is later.
  const std::vector<Event> reversed{arrive(3, 0), arrive(2, 0), arrive(1, 0), arrive(0, 0),
                                    post(kAnySource, 0)};
  const std::vector<Event> ascending{arrive(0, 0), arrive(1, 0), arrive(2, 0), arrive(3, 0),
                                     post(kAnySource, 0)};
  EXPECT_EQ(umq_traversed("rank-array", reversed, 4), 4u);
  EXPECT_EQ(umq_traversed("rank-array", ascending, 4), 1u);
}

TEST(Traversal, VectorsCountEveryOccupiedSlotOfAScannedNode) {
  // 20 messages (tags 0..19). Taking tag 2 scans the first node: 8 or 16
  // slots. Taking tag 19 then scans every node: the 19 left.
  std::vector<Event> events;
  for (int t = 0; t < 20; ++t) events.push_back(arrive(0, t));
  events.push_back(post(0, 2));
  events.push_back(post(0, 19));
  for (const auto& [o, layout] : vector_layouts())
    EXPECT_EQ(umq_traversed("vectors", events, 1, o),
              static_cast<std::uint64_t>(o.vector_width) + 19u)
        << layout;
  EXPECT_EQ(umq_traversed("linked-list", events, 1), 3u + 19u);
}

TEST(Traversal, PartnerVectorsBoundTheAnySourceScanByTheBestHit) {
  // Source 3 is the only partner. Receives from source 1 with tags 0..19 wait in the
  // non-partner PRQ, then one with MPI_ANY_SOURCE and tag 19 in the
  // any-source PRQ. A message (1, 19) takes receive 19 after comparing all
  // 20 slots; the any-source PRQ's first receive is later than that: not
  // compared. A message (2, 19) finds nothing among the 19 left, then takes
  // the any-source receive: 20 again.
  std::vector<Event> events;
  for (int t = 0; t < 20; ++t) events.push_back(post(1, t));
  events.push_back(post(kAnySource, 19));
  events.push_back(arrive(1, 19));
  events.push_back(arrive(2, 19));
  // An any-source receive posted first wins over a later specific one:
  // the non-partner scan finds receive (1, 5) in the first node, the
  // any-source scan (bounded by it) the earlier wildcard.
  std::vector<Event> earlier{post(kAnySource, 5)};
  for (int t = 0; t < 20; ++t) earlier.push_back(post(1, t));
  earlier.push_back(arrive(1, 5));
  for (auto [o, layout] : vector_layouts()) {
    o.profile = {{1, 1, 1, 100}};
    o.threshold = 0;  // the partner layout from the first element
    auto e = make_engine("partner-vectors", o);
    const auto r = replay(events, {{0, 4}}, *e);
    EXPECT_EQ(r.matches, (std::vector<Match>{{19, 0}, {20, 1}})) << layout;
    EXPECT_EQ(r.counters.prq_traversed, 20u + 20u) << layout;
    auto f = make_engine("partner-vectors", o);
    const auto s = replay(earlier, {{0, 4}}, *f);
    EXPECT_EQ(s.matches, (std::vector<Match>{{0, 0}})) << layout;
    EXPECT_EQ(s.counters.prq_traversed, static_cast<std::uint64_t>(o.vector_width) + 1) << layout;
  }
}

TEST(Traversal, WithoutPartnersTheStaticEnginesSearchAsOneQueuePair) {
  // A communicator without partners is one PRQ (any-source receives in it,
  // in posting order) and one UMQ: partner-static compares what linked-list
  // compares, partner-vectors what vectors does, search by search.
  std::vector<Event> events;
  for (int t = 0; t < 20; ++t) events.push_back(post(t % 3 == 0 ? kAnySource : 1, t));
  for (int t = 19; t >= 0; --t) events.push_back(arrive(1 + t % 2, t));
  for (int t = 0; t < 30; ++t) events.push_back(arrive(2, t % 7));
  for (int t = 0; t < 30; ++t) events.push_back(post(t % 4 == 0 ? kAnySource : 2, t % 7));
  for (const auto& [engine, reference] :
       {std::pair{"partner-static", "linked-list"}, std::pair{"partner-vectors", "vectors"}}) {
    EngineOptions o;
    o.profile = {{5, 5, 5, 5}};  // nobody above the average
    o.threshold = 0;             // the engines' own layout, not the one queue pair they start as
    auto e = make_engine(engine, o);
    auto f = make_engine(reference, o);
    const auto r = replay(events, {{0, 4}}, *e);
    const auto s = replay(events, {{0, 4}}, *f);
    EXPECT_EQ(r.matches, s.matches) << engine;
    EXPECT_EQ(r.counters.prq_traversed, s.counters.prq_traversed) << engine;
    EXPECT_EQ(r.counters.umq_traversed, s.counters.umq_traversed) << engine;
    EXPECT_EQ(r.counters.prq_searches, s.counters.prq_searches) << engine;
    EXPECT_GT(r.counters.prq_traversed, 0u) << engine;
    EXPECT_GT(r.counters.umq_traversed, 0u) << engine;
  }
}

TEST(RankArray, RefusesUnknownCommunicatorsAndSourcesOutside) {
  auto e = make_engine("rank-array");
  e->add_communicator(0, 4);
  EXPECT_THROW(e->arrive({1, 0, 0}, 0), Error);
  EXPECT_THROW(e->arrive({0, 4, 0}, 0), Error);
  EXPECT_THROW(e->post({0, -2, 0}, 0), Error);
  EXPECT_EQ(e->post({0, 3, 0}, 0), kNoMatch);
  EXPECT_EQ(e->arrive({0, 3, 0}, 0), 0u);
}

// ---------------------------------------------------------------------------
// Memory overhead

std::uint64_t memory_with(const std::string& engine, int ranks) {
  auto e = make_engine(engine);
  std::vector<Event> events{arrive(0, 0), post(kAnySource, 1), arrive(ranks - 1, 1)};
  return replay(events, {{0, ranks}, {1, ranks}}, *e).counters.memory_overhead_bytes;
}

TEST(Memory, RankArrayGrowsWithTheCommunicatorBinsAndHashDoNot) {
  // rank-array: a PRQ and a UMQ header per rank per communicator, one
  // wildcard PRQ per communicator.
  EXPECT_EQ(memory_with("rank-array", 16), 2 * (2 * 16 + 1) * Queue::kHeaderBytes);
  EXPECT_EQ(memory_with("rank-array", 1024), 2 * (2 * 1024 + 1) * Queue::kHeaderBytes);
  for (const char* engine : {"bins", "hash"}) {
    EXPECT_GT(memory_with(engine, 16), 0u) << engine;
    EXPECT_EQ(memory_with(engine, 16), memory_with(engine, 1024)) << engine;
  }
  // bins: 256 bins of a PRQ and a UMQ, and the wildcard PRQ.
  EXPECT_EQ(memory_with("bins", 16), (2 * 256 + 1) * Queue::kHeaderBytes);
  // hash: a larger table than bins' (1021 buckets in 1024 slots by default).
  EXPECT_GT(memory_with("hash", 16), 2 * memory_with("bins", 16));
  EXPECT_GT(memory_with("vectors", 16), 0u);
}

TEST(Memory, VectorsReuseTheNodesOfADrainedQueue) {
  // Fill a queue and drain it in order, twice: the second round takes the
  // nodes the first freed, so the peak stays where it was.
  auto e = make_engine("vectors");
  std::uint64_t peak = 0;
  for (Id round = 0; round < 2; ++round) {
    for (Id i = 0; i < 1000; ++i) ASSERT_EQ(e->arrive({0, 0, 0}, i), kNoMatch);
    for (Id i = 0; i < 1000; ++i) ASSERT_EQ(e->post({0, 0, 0}, i), i);
    if (round == 0) peak = e->counters().memory_overhead_bytes;
  }
  EXPECT_GT(peak, 0u);
  EXPECT_EQ(e->counters().memory_overhead_bytes, peak);
}

TEST(Memory, PartnerVectorsCountTheirNodesAsVectorsDoes) {
  // No partners: 1000 messages from source 0 fill 63 nodes of 16 in the
  // non-partner UMQ; the overhead is the nodes' bytes not holding an
  // element, plus partner-static's tables and headers. Taken in order, the
  // first node empties slot by slot: the peak is 63 nodes for 985 elements
  // (no merge: 1 + 16 do not fit in a node). Drained and filled again, the
  // nodes are reused: the peak stays.
  auto e = make_engine("partner-vectors");
  e->add_communicator(0, 4);
  std::uint64_t peak = 0;
  for (Id round = 0; round < 2; ++round) {
    for (Id i = 0; i < 1000; ++i) ASSERT_EQ(e->arrive({0, 0, 0}, i), kNoMatch);
    for (Id i = 0; i < 1000; ++i) ASSERT_EQ(e->post({0, 0, 0}, i), i);
    if (round == 0) peak = e->counters().memory_overhead_bytes;
  }
  auto s = make_engine("partner-static");
  s->add_communicator(0, 4);
  const std::uint64_t nodes =
      63 * sizeof(VectorNode<16, true>) - 985 * VectorPool<16, true>::kSlotBytes;
  EXPECT_EQ(peak, nodes + s->counters().memory_overhead_bytes);
  EXPECT_EQ(e->counters().memory_overhead_bytes, peak);
}

// ---------------------------------------------------------------------------
// Options

TEST(Options, VectorsSimdLevel) {
  EngineOptions o;
  const std::string best = cpu_has("avx512") ? "avx512" : cpu_has("avx2") ? "avx2" : "scalar";
  EXPECT_EQ(vectors_simd_level(o), best);
  for (const char* level : {"avx512", "avx2", "scalar"}) {
    o.simd = level;
    if (cpu_has(level)) {
      EXPECT_EQ(vectors_simd_level(o), level);
    } else {
      EXPECT_THROW(vectors_simd_level(o), Error) << level;
      EXPECT_THROW(make_engine("vectors", o), Error) << level;
    }
  }
  o.simd = "sse9";
  EXPECT_THROW(vectors_simd_level(o), Error);
  EXPECT_THROW(make_engine("vectors", o), Error);
}

TEST(Options, BadWidthAndBinsAreRefused) {
  EngineOptions o;
  o.vector_width = 12;
  EXPECT_THROW(make_engine("vectors", o), Error);
  o = {};
  o.bins = 0;
  EXPECT_THROW(make_engine("bins", o), Error);
  EXPECT_THROW(make_engine("hash", o), Error);
}

}  // namespace
}  // namespace gc::mq
