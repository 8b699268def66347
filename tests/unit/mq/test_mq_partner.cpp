// mq/ partner engines (Ghazimirsaeed, Mirsadeghi and Afsahi, "Communication-
// aware message matching in MPI", CCPE 2018): partner-static, partner-vectors
// (every SIMD level the CPU has, widths 16 and 8) and partner-dynamic equal
// to linked-list (matches, probes, queue lengths) on random workloads, at
// their threshold and cap boundaries, with wildcards and many partners, and
// far shorter searches than linked-list when a few sources dominate. Their
// parts have suites of their own: the perfect hash that finds a partner's
// queue (test_mq_perfect_hash.cpp), and the partner choice and the profile
// (test_mq_profile.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include <fmt/format.h>

#include "core/error.hpp"
#include "mq/engines/engine.hpp"
#include "mq/engines/profile.hpp"
#include "mq/engines/replay.hpp"
#include "mq/engines/vector_queue.hpp"
#include "unit/mq/mq_events.hpp"

namespace gc::mq {
namespace {

using test::arrive;
using test::post;
using test::probe;

EngineOptions with_metric(const std::string& metric) {
  EngineOptions options;
  options.metric = metric;
  return options;
}
EngineOptions dynamic(int threshold, double cap_factor) {
  EngineOptions options;
  options.threshold = threshold;
  options.cap_factor = cap_factor;
  return options;
}

// The partner engines refuse an unknown metric when they are made, and
// partner-dynamic a negative t or cap factor.
TEST(PartnerEngines, RefuseAnUnknownMetricAndNegativeOptions) {
  EXPECT_THROW(make_engine("partner-static", with_metric("max")), Error);
  EXPECT_THROW(make_engine("partner-dynamic", with_metric("max")), Error);
  EXPECT_THROW(make_engine("partner-dynamic", dynamic(-1, 1)), Error);
  EXPECT_THROW(make_engine("partner-dynamic", dynamic(8, -1)), Error);
}

// Queue elements per (communicator, source) in a linked-list replay: the
// receives with a specific source that had to wait in the PRQ and the
// messages that had to wait in the UMQ.
Profile queue_profile(const std::vector<Event>& events, const std::vector<Communicator>& comms) {
  auto engine = make_engine("linked-list");
  Profile profile;
  for (const Communicator& c : comms) {
    engine->add_communicator(c.id, c.size);
    if (profile.size() <= c.id) profile.resize(c.id + 1);
    profile[c.id].assign(static_cast<std::size_t>(c.size), 0);
  }
  Id receives = 0, messages = 0;
  for (const Event& e : events) {
    const auto& env = e.envelope;
    switch (e.kind) {
      case Event::Kind::post:
        if (engine->post(env, receives++) == kNoMatch && env.source != kAnySource)
          ++profile[env.comm][static_cast<std::size_t>(env.source)];
        break;
      case Event::Kind::arrive:
        if (engine->arrive(env, messages++) == kNoMatch)
          ++profile[env.comm][static_cast<std::size_t>(env.source)];
        break;
      case Event::Kind::probe:
        engine->probe(env);
        break;
    }
  }
  return profile;
}

ReplayResult run(const std::string& name, const EngineOptions& options,
                 const std::vector<Event>& events, const std::vector<Communicator>& comms) {
  auto engine = make_engine(name, options);
  return replay(events, comms, *engine);
}

testing::AssertionResult same_as(const ReplayResult& reference, const ReplayResult& r) {
  const auto first_difference = [](const auto& a, const auto& b) {
    std::size_t i = 0;
    while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
    return i;
  };
  if (r.matches != reference.matches) {
    const auto i = first_difference(r.matches, reference.matches);
    return testing::AssertionFailure() << "matches differ at " << i << " of "
                                       << reference.matches.size() << "/" << r.matches.size();
  }
  if (r.probes != reference.probes)
    return testing::AssertionFailure()
           << "probes differ at " << first_difference(r.probes, reference.probes);
  const Counters &a = reference.counters, &b = r.counters;
  if (a.prq_searches != b.prq_searches || a.umq_searches != b.umq_searches ||
      a.prq_length_max != b.prq_length_max || a.umq_length_max != b.umq_length_max)
    return testing::AssertionFailure()
           << "searches/lengths differ: prq " << b.prq_searches << "/" << b.prq_length_max << " vs "
           << a.prq_searches << "/" << a.prq_length_max << ", umq " << b.umq_searches << "/"
           << b.umq_length_max << " vs " << a.umq_searches << "/" << a.umq_length_max;
  return testing::AssertionSuccess();
}

const std::vector<std::string> kMetrics{"average", "median", "fence"};

// The SIMD levels this CPU has (partner-vectors' options.simd).
const std::vector<std::string>& simd_levels() {
  static const std::vector<std::string> levels = [] {
    std::vector<std::string> have;
    for (const char* level : {"avx512", "avx2", "scalar"}) {
      EngineOptions o;
      o.simd = level;
      try {
        simd_level(o, "test");
        have.push_back(level);
      } catch (const Error&) {
      }
    }
    return have;
  }();
  return levels;
}

// The cap factor that gives `cap` partner queues at size N (cap 0, 1 or "many").
double cap_factor_for(int cap, int ranks) {
  if (cap <= 1) return cap / std::sqrt(static_cast<double>(ranks));
  return 100.0;  // more than N
}

struct Totals {
  std::uint64_t static_partners = 0, extractions = 0, deep = 0, capped_at_one = 0;
};

// Every partner configuration on one workload, against linked-list.
void check_workload(const std::vector<Event>& events, const std::vector<Communicator>& comms,
                    int ranks, std::uint64_t variant, Totals& totals) {
  const ReplayResult reference = run("linked-list", {}, events, comms);
  const Profile profile = queue_profile(events, comms);
  for (std::size_t m = 0; m < kMetrics.size(); ++m) {
    EngineOptions options;
    options.metric = kMetrics[m];
    options.alpha = std::vector<double>{1.5, 0.0, 0.5}[(variant + m) % 3];
    options.profile = profile;
    if ((variant + m) % 5 == 4) options.profile.resize(1);  // communicator 1 unprofiled
    // The partner layout from the first element, from part way, or never.
    options.threshold = std::vector<int>{0, 3, 0, 16}[(variant + m) % 4];
    const auto s = run("partner-static", options, events, comms);
    EXPECT_TRUE(same_as(reference, s)) << "partner-static, metric " << options.metric;
    totals.static_partners += s.counters.partners;
    // partner-vectors: the same partners, at a width and level per metric and workload.
    options.vector_width = (variant + m) % 2 ? 8 : 16;
    options.simd = simd_levels()[(variant + m) % simd_levels().size()];
    const auto v = run("partner-vectors", options, events, comms);
    EXPECT_TRUE(same_as(reference, v)) << "partner-vectors, metric " << options.metric << ", width "
                                       << options.vector_width << ", " << options.simd;
    EXPECT_EQ(v.counters.partners, s.counters.partners);
  }
  for (int t : {0, 1, 2, 8, 64}) {
    for (int cap : {0, 1, 2}) {
      EngineOptions options;
      options.metric = kMetrics[(variant + static_cast<std::uint64_t>(t + cap)) % 3];
      options.alpha = (variant % 2) ? 1.5 : 0.5;
      options.threshold = t;
      options.cap_factor = cap_factor_for(cap, ranks);
      const auto d = run("partner-dynamic", options, events, comms);
      EXPECT_TRUE(same_as(reference, d))
          << "partner-dynamic, t " << t << ", cap " << cap << ", metric " << options.metric;
      const auto sides = 2 * comms.size();
      if (cap == 0) {
        EXPECT_EQ(d.counters.partners, 0u);
      } else if (cap == 1) {
        EXPECT_LE(d.counters.partners, sides);
      }
      if (cap == 1 && d.counters.partners == sides) ++totals.capped_at_one;
      EXPECT_EQ(d.counters.extractions > 0, d.counters.partners > 0);
      EXPECT_LE(d.counters.extractions, d.counters.partners);
      totals.extractions += d.counters.extractions;
      if (d.counters.levels > 3) ++totals.deep;
    }
  }
}

TEST(PartnerEngines, EqualLinkedListOnRandomWorkloads) {
  Totals totals;
  const std::vector<int> ranks{2, 4, 8, 16, 64, 256};
  const std::vector<double> wild{0.0, 0.1, 0.5};
  const std::vector<double> bias{0.2, 0.5, 0.8};
  for (std::uint64_t seed = 0; seed < 240; ++seed) {
    RandomWorkload w;
    w.ranks = ranks[seed % ranks.size()];
    w.tags = 1 + static_cast<int>(seed % 5);
    w.comms = 1 + static_cast<int>(seed / 2 % 2);
    w.events = 200 + (seed * 37) % 1200;
    w.any_source = wild[seed / 7 % 3];
    w.any_tag = wild[seed / 3 % 3];
    w.probes = 0.05;
    w.post_bias = bias[seed / 11 % 3];
    SCOPED_TRACE(fmt::format(
        "seed {}: {} ranks, {} tags, {} comms, {} events, any-source {}, "
        "any-tag {}, post bias {}",
        seed, w.ranks, w.tags, w.comms, w.events, w.any_source, w.any_tag, w.post_bias));
    check_workload(random_events(w, seed), communicators_of(w), w.ranks, seed, totals);
    if (HasFailure()) return;
  }
  // The sweep exercised partners, extractions, deep level stacks and the cap.
  EXPECT_GT(totals.static_partners, 100u);
  EXPECT_GT(totals.extractions, 1000u);
  EXPECT_GT(totals.deep, 50u);
  EXPECT_GT(totals.capped_at_one, 50u);
}

TEST(PartnerEngines, EqualLinkedListOnLongDeepWorkloads) {
  Totals totals;
  std::uint64_t seed = 1000;
  for (int ranks : {64, 256, 1024}) {
    for (double post_bias : {0.2, 0.8}) {
      for (double any_source : {0.0, 0.1, 0.5}) {
        RandomWorkload w;
        w.ranks = ranks;
        w.tags = 2;
        w.comms = 2;
        w.events = 6000;
        w.any_source = any_source;
        w.any_tag = 0.1;
        w.probes = 0.05;
        w.post_bias = post_bias;
        ++seed;
        SCOPED_TRACE(fmt::format("seed {}: {} ranks, post bias {}, any-source {}", seed, ranks,
                                 post_bias, any_source));
        check_workload(random_events(w, seed), communicators_of(w), ranks, seed, totals);
        if (HasFailure()) return;
      }
    }
  }
  EXPECT_GT(totals.extractions, 100u);
  EXPECT_GT(totals.deep, 10u);
}

// A partner extracted at level L finds its messages from levels below L
// first; any-source searches take the earliest over every queue.
TEST(PartnerDynamic, ThresholdLevelsAndOrder) {
  auto engine = make_engine("partner-dynamic", dynamic(4, 4));
  engine->add_communicator(0, 16);
  Id next = 0;
  auto arrive_from = [&](std::int32_t source) {
    EXPECT_EQ(engine->arrive({0, source, 0}, next++), kNoMatch);
  };
  for (std::int32_t s : {0, 0, 1, 0}) arrive_from(s);  // m0..m3: exactly t, no extraction
  EXPECT_EQ(engine->counters().extractions, 0u);
  EXPECT_EQ(engine->counters().levels, 1u);
  arrive_from(2);  // m4: t + 1 elements, {0: 3, 1: 1, 2: 1}, average 5/3: 0 is a partner
  EXPECT_EQ(engine->counters().extractions, 1u);
  EXPECT_EQ(engine->counters().extraction_moved, 3u);
  EXPECT_EQ(engine->counters().partners, 1u);
  EXPECT_EQ(engine->counters().levels, 2u);
  EXPECT_GT(engine->counters().extraction_seconds, 0.0);
  for (std::int32_t s : {1, 1, 1, 3}) arrive_from(s);  // m5..m8 on level 1
  EXPECT_EQ(engine->counters().extractions, 1u);
  arrive_from(4);  // m9: level 1 {1: 3, 3: 1, 4: 1}: 1 is a partner, m2 stays on level 0
  EXPECT_EQ(engine->counters().extractions, 2u);
  EXPECT_EQ(engine->counters().extraction_moved, 6u);
  EXPECT_EQ(engine->counters().partners, 2u);
  EXPECT_EQ(engine->counters().levels, 3u);

  const auto before = engine->counters().umq_traversed;
  EXPECT_EQ(engine->probe({0, 1, kAnyTag}), 2u);
  EXPECT_EQ(engine->counters().umq_traversed - before, 1u);  // level 0's head
  EXPECT_EQ(engine->post({0, 1, kAnyTag}, 0), 2u);
  EXPECT_EQ(engine->post({0, 1, kAnyTag}, 1), 5u);  // then the partner queue
  for (Id m : {0, 1, 3, 4, 6, 7, 8, 9}) EXPECT_EQ(engine->post({0, kAnySource, kAnyTag}, 2), m);
  EXPECT_EQ(engine->probe({0, kAnySource, kAnyTag}), kNoMatch);
}

// A small workload on two communicators whose queues grow past a few
// elements, its linked-list replay and the longest a queue got there.
struct TwoCommunicators {
  std::vector<Event> events;
  std::vector<Communicator> comms;
  ReplayResult reference;
  std::uint64_t longest = 0;
};
TwoCommunicators two_communicators() {
  RandomWorkload w;
  w.ranks = 8;
  w.tags = 3;
  w.comms = 2;
  w.events = 400;
  w.any_source = 0.1;
  w.any_tag = 0.1;
  w.probes = 0.05;
  w.post_bias = 0.5;
  TwoCommunicators t{random_events(w, 7), communicators_of(w), {}, 0};
  t.reference = run("linked-list", {}, t.events, t.comms);
  t.longest = std::max(t.reference.counters.prq_length_max, t.reference.counters.umq_length_max);
  return t;
}

// Until a queue passes t the engine is one PRQ and one UMQ for every
// communicator, as linked-list is: the same elements traversed, search by
// search. Past t, each communicator's elements go on in their order.
TEST(PartnerDynamic, OneQueuePairUntilAQueuePassesT) {
  const auto [events, comms, reference, longest] = two_communicators();
  ASSERT_GT(longest, 4u);  // the workload must take the queues past the small t below
  const ReplayResult single =
      run("partner-dynamic", dynamic(static_cast<int>(longest), 4), events, comms);
  EXPECT_TRUE(same_as(reference, single));
  EXPECT_EQ(single.counters.prq_traversed, reference.counters.prq_traversed);
  EXPECT_EQ(single.counters.umq_traversed, reference.counters.umq_traversed);
  EXPECT_EQ(single.counters.extractions, 0u);
  // A small t: the move to per-communicator queues happens part way, and
  // searches then skip the other communicator's elements.
  const ReplayResult split = run("partner-dynamic", dynamic(4, 0), events, comms);
  EXPECT_TRUE(same_as(reference, split));
  EXPECT_LT(split.counters.prq_traversed + split.counters.umq_traversed,
            reference.counters.prq_traversed + reference.counters.umq_traversed);
}

TEST(PartnerDynamic, PrqSideAgainstAnySourceReceives) {
  auto engine = make_engine("partner-dynamic", dynamic(4, 4));
  engine->add_communicator(0, 16);
  // r1 waits in the any-source PRQ; r0 r2 r3 r4 r5 on level 0 (5 > t): 0 becomes a partner.
  const std::vector<std::int32_t> sources{0, kAnySource, 0, 1, 0, 2};
  for (Id r = 0; r < sources.size(); ++r) EXPECT_EQ(engine->post({0, sources[r], 0}, r), kNoMatch);
  EXPECT_EQ(engine->counters().extractions, 1u);
  EXPECT_EQ(engine->counters().partners, 1u);
  EXPECT_EQ(engine->arrive({0, 0, 0}, 0), 0u);  // partner queue's r0 before any-source r1
  EXPECT_EQ(engine->arrive({0, 0, 0}, 1), 1u);  // r1 before r2
  EXPECT_EQ(engine->arrive({0, 0, 0}, 2), 2u);
  EXPECT_EQ(engine->arrive({0, 1, 0}, 3), 3u);
  EXPECT_EQ(engine->arrive({0, 0, 0}, 4), 4u);
  EXPECT_EQ(engine->arrive({0, 2, 0}, 5), 5u);
  EXPECT_EQ(engine->arrive({0, 2, 0}, 6), kNoMatch);
}

// Before the PRQ has partners, receives with MPI_ANY_SOURCE wait in level 0
// with the others (not counted towards t); the extraction that makes the
// first partners moves them to the any-source PRQ in order.
TEST(PartnerDynamic, WildcardsWaitInLevelZeroUntilTheFirstPartners) {
  auto engine = make_engine("partner-dynamic", dynamic(4, 4));
  engine->add_communicator(0, 16);
  const std::vector<std::int32_t> sources{kAnySource, 0, 0, kAnySource, 1, 0};
  for (Id r = 0; r < sources.size(); ++r) EXPECT_EQ(engine->post({0, sources[r], 0}, r), kNoMatch);
  EXPECT_EQ(engine->counters().extractions, 0u);    // 6 waiting, 4 with a source: not past t
  EXPECT_EQ(engine->post({0, 2, 0}, 6), kNoMatch);  // 5 with a source: {0: 3, 1: 1, 2: 1}
  EXPECT_EQ(engine->counters().extractions, 1u);
  EXPECT_EQ(engine->counters().partners, 1u);
  EXPECT_EQ(engine->counters().extraction_moved, 5u);        // r1 r2 r5 to 0's queue, r0 r3 out
  EXPECT_EQ(engine->post({0, kAnySource, 0}, 7), kNoMatch);  // after the others
  // Posting order across queues: the wildcards where they were posted.
  EXPECT_EQ(engine->arrive({0, 1, 0}, 0), 0u);  // r0 (any) before r4
  EXPECT_EQ(engine->arrive({0, 0, 0}, 1), 1u);  // the partner's r1 before r3 (any)
  EXPECT_EQ(engine->arrive({0, 1, 0}, 2), 3u);  // r3 (any) before r4
  EXPECT_EQ(engine->arrive({0, 1, 0}, 3), 4u);
  EXPECT_EQ(engine->arrive({0, 3, 0}, 4), 7u);  // r7, the later wildcard
  EXPECT_EQ(engine->arrive({0, 0, 0}, 5), 2u);
  EXPECT_EQ(engine->arrive({0, 0, 0}, 6), 5u);
  EXPECT_EQ(engine->arrive({0, 2, 0}, 7), 6u);
  EXPECT_EQ(engine->arrive({0, 2, 0}, 8), kNoMatch);
}

TEST(PartnerDynamic, CapStopsExtraction) {
  for (int cap : {0, 1}) {
    SCOPED_TRACE(cap);
    // N = 16: cap factor 0.25 gives 0.25 * 4 = 1 partner queue per side.
    auto engine = make_engine("partner-dynamic", dynamic(4, cap * 0.25));
    engine->add_communicator(0, 16);
    Id next = 0;
    for (std::int32_t s : {0, 0, 1, 0, 2, 1, 1, 1, 3, 4, 1, 1, 5, 1, 1, 1})
      engine->arrive({0, s, 0}, next++);
    const Counters& c = engine->counters();
    EXPECT_EQ(c.partners, static_cast<std::uint64_t>(cap));
    EXPECT_EQ(c.extractions, static_cast<std::uint64_t>(cap));
    EXPECT_EQ(c.levels, 1u + cap);
    EXPECT_EQ(c.extraction_moved, cap == 1 ? 3u : 0u);
    // Still MPI order: source 1's messages in arrival order.
    for (Id m : {2, 5, 6, 7, 10, 11, 13, 14, 15}) EXPECT_EQ(engine->post({0, 1, kAnyTag}, 0), m);
  }
}

TEST(PartnerDynamic, NoPartnerFoundWaitsForTheQueueToDouble) {
  auto engine = make_engine("partner-dynamic", dynamic(2, 4));
  engine->add_communicator(0, 16);
  Id next = 0;
  for (std::int32_t s : {0, 1, 2}) engine->arrive({0, s, 0}, next++);  // equal counts: none
  EXPECT_EQ(engine->counters().extractions, 0u);
  for (std::int32_t s : {0, 0, 0}) engine->arrive({0, s, 0}, next++);  // 6 elements: not past 6
  EXPECT_EQ(engine->counters().extractions, 0u);
  engine->arrive({0, 0, 0}, next++);  // 7 > 2 * 3
  EXPECT_EQ(engine->counters().extractions, 1u);
  EXPECT_EQ(engine->counters().extraction_moved, 5u);
  EXPECT_EQ(engine->counters().levels, 2u);
}

TEST(PartnerStatic, ProfilePicksPartnersPerCommunicator) {
  // Communicator 0: average 4 over {10, 1, 1}, so source 1 is a partner.
  // Communicator 1: equal counts, no partner.
  EngineOptions options;
  options.profile = {{0, 10, 1, 1}, {2, 2, 2, 2}};
  options.threshold = 0;  // the partner queues from the first element, as in the paper
  const std::vector<Event> events{arrive(1),
                                  arrive(2),
                                  post(kAnySource, 0),
                                  post(1, 0),
                                  post(1, 0),
                                  post(3, 0),
                                  post(kAnySource, 0),
                                  arrive(1),
                                  arrive(3),
                                  arrive(1, 0, 1),
                                  post(1, 0, 1),
                                  arrive(1),
                                  probe(kAnySource, kAnyTag)};
  const std::vector<Communicator> comms{{0, 4}, {1, 4}};
  for (const std::string name : {"partner-static", "partner-vectors"}) {
    SCOPED_TRACE(name);
    const auto r = run(name, options, events, comms);
    EXPECT_TRUE(same_as(run("linked-list", {}, events, comms), r));
    EXPECT_EQ(r.matches, (std::vector<Match>{{0, 0}, {4, 1}, {1, 2}, {3, 3}, {5, 4}, {2, 5}}));
    EXPECT_EQ(r.probes, std::vector<Id>{kNoMatch});
    EXPECT_EQ(r.counters.partners, 2u);  // source 1's PRQ and UMQ queues on communicator 0
    EXPECT_EQ(r.counters.extractions, 0u);
  }
}

// Until a queue would outgrow t, partner-static and partner-vectors are the
// one queue pair of linked-list (partner-vectors: a list too), comparing
// what it compares; past it, the profile's partner queues take over with
// the queued elements moved in order.
TEST(PartnerStatic, OneQueuePairUntilAQueuePassesT) {
  const auto [events, comms, reference, longest] = two_communicators();
  ASSERT_GT(longest, 4u);
  EngineOptions options;
  options.profile = queue_profile(events, comms);
  for (const std::string name : {"partner-static", "partner-vectors"}) {
    SCOPED_TRACE(name);
    options.threshold = static_cast<int>(longest);
    const ReplayResult start = run(name, options, events, comms);
    EXPECT_TRUE(same_as(reference, start));
    EXPECT_EQ(start.counters.prq_traversed, reference.counters.prq_traversed);
    EXPECT_EQ(start.counters.umq_traversed, reference.counters.umq_traversed);
    EXPECT_EQ(start.counters.partners, 0u);
    options.threshold = static_cast<int>(longest) - 1;  // left at the last possible append
    const ReplayResult late = run(name, options, events, comms);
    EXPECT_TRUE(same_as(reference, late));
    EXPECT_GT(late.counters.partners, 0u);
    options.threshold = 4;
    const ReplayResult split = run(name, options, events, comms);
    EXPECT_TRUE(same_as(reference, split));
    EXPECT_EQ(split.counters.partners, late.counters.partners);
    EXPECT_LT(split.counters.prq_traversed + split.counters.umq_traversed,
              reference.counters.prq_traversed + reference.counters.umq_traversed);
  }
}

// Hundreds of partners: searches with MPI_ANY_SOURCE visit the partner
// queues that hold messages, which fill and drain again and again.
TEST(PartnerStatic, AnySourceOverManyPartnerQueues) {
  constexpr int kRanks = 1024;
  std::mt19937_64 rng(5);
  std::vector<Event> events;
  for (int round = 0; round < 40; ++round) {
    for (int i = 0; i < 30; ++i)
      events.push_back(
          arrive(static_cast<std::int32_t>(rng() % kRanks), static_cast<std::int32_t>(rng() % 2)));
    events.push_back(probe(kAnySource, kAnyTag));
    for (int i = 0; i < 30; ++i) {
      const bool any = rng() % 3 == 0;
      events.push_back(post(any ? kAnySource : static_cast<std::int32_t>(rng() % kRanks),
                            rng() % 4 == 0 ? kAnyTag : static_cast<std::int32_t>(rng() % 2)));
    }
  }
  const std::vector<Communicator> comms{{0, kRanks}};
  EngineOptions options;  // counts 1 and 2, average 1.5: the odd sources are partners
  options.profile = {std::vector<std::uint64_t>(kRanks)};
  for (int s = 0; s < kRanks; ++s) options.profile[0][static_cast<std::size_t>(s)] = 1 + s % 2;
  const auto reference = run("linked-list", {}, events, comms);
  for (const std::string name : {"partner-static", "partner-vectors"}) {
    SCOPED_TRACE(name);
    const auto r = run(name, options, events, comms);
    EXPECT_TRUE(same_as(reference, r));
    EXPECT_EQ(r.counters.partners, kRanks);  // the odd sources, PRQ and UMQ
    EXPECT_LT(r.counters.umq_traversed, reference.counters.umq_traversed);
  }
}

TEST(PartnerEngines, MemoryIsNotPerRank) {
  // One communicator of 2^20 ranks, 20 of them talking, 4 heavily.
  constexpr int kRanks = 1 << 20;
  std::vector<Event> events;
  std::mt19937_64 rng(3);
  std::vector<std::int32_t> talkers;
  for (int i = 0; i < 20; ++i) talkers.push_back(static_cast<std::int32_t>(rng() % kRanks));
  for (int i = 0; i < 4000; ++i) {
    const auto s = talkers[(rng() % 4 == 0) ? rng() % 20 : rng() % 4];
    events.push_back(arrive(s, static_cast<std::int32_t>(rng() % 3)));
  }
  for (int i = 0; i < 4000; ++i)
    events.push_back(post(talkers[rng() % 20], static_cast<std::int32_t>(rng() % 3)));
  const std::vector<Communicator> comms{{0, kRanks}};
  const auto reference = run("linked-list", {}, events, comms);
  EngineOptions options;
  options.threshold = 64;
  options.profile = queue_profile(events, comms);
  for (const std::string name : {"partner-static", "partner-dynamic", "partner-vectors"}) {
    SCOPED_TRACE(name);
    const auto r = run(name, options, events, comms);
    EXPECT_TRUE(same_as(reference, r));
    EXPECT_GT(r.counters.partners, 0u);
    EXPECT_GT(r.counters.memory_overhead_bytes, 0u);
    EXPECT_LT(r.counters.memory_overhead_bytes, 64u * 1024);  // a per-rank array: megabytes
  }
}

// One rank receiving from 256 sources, 8 of which send 80% of the messages:
// rounds of unexpected messages then receives in another order (deep UMQ),
// and of pre-posted receives then messages in another order (deep PRQ).
std::vector<Event> many_to_one(int ranks, int heavy, int per_round, int rounds,
                               std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto pick = [&] {
    const auto source = rng() % 10 < 8 ? rng() % static_cast<unsigned>(heavy)
                                       : heavy + rng() % static_cast<unsigned>(ranks - heavy);
    return Envelope{0, static_cast<std::int32_t>(source), static_cast<std::int32_t>(rng() % 4)};
  };
  std::vector<Event> events;
  for (int round = 0; round < rounds; ++round) {
    std::vector<Envelope> batch;
    for (int i = 0; i < per_round; ++i) batch.push_back(pick());
    const bool unexpected = round % 2 == 0;
    for (const Envelope& e : batch)
      events.push_back({unexpected ? Event::Kind::arrive : Event::Kind::post, e});
    std::shuffle(batch.begin(), batch.end(), rng);
    for (const Envelope& e : batch)
      events.push_back({unexpected ? Event::Kind::post : Event::Kind::arrive, e});
  }
  return events;
}

TEST(PartnerEngines, ManyToOneSearchesFarFewerElements) {
  const auto events = many_to_one(256, 8, 2000, 6, 42);
  const std::vector<Communicator> comms{{0, 256}};
  const auto reference = run("linked-list", {}, events, comms);
  EngineOptions options;
  options.profile = queue_profile(events, comms);
  options.threshold = 64;
  for (const std::string metric : {"average", "fence"}) {
    options.metric = metric;
    for (const std::string name : {"partner-static", "partner-dynamic", "partner-vectors"}) {
      SCOPED_TRACE(name + " " + metric);
      const auto r = run(name, options, events, comms);
      ASSERT_TRUE(same_as(reference, r));
      const Counters &a = reference.counters, &b = r.counters;
      EXPECT_GE(b.partners, 16u);  // the 8 heavy sources, PRQ and UMQ
      EXPECT_GT(a.umq_traversed, 5 * b.umq_traversed)
          << a.umq_traversed << " vs " << b.umq_traversed;
      EXPECT_GT(a.prq_traversed, 5 * b.prq_traversed)
          << a.prq_traversed << " vs " << b.prq_traversed;
    }
  }
}

}  // namespace
}  // namespace gc::mq
