// mq/: the replay's check that says FAIL (report.hpp): the outcomes of a
// replay per event, the first event where two replays differ and the line
// that names both sides, and the program's own matches set against them.
// A correct engine never reaches these paths on real workloads, so they are
// exercised here on hand-made outcomes: one engine's outcomes altered.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "mq/engines/engine.hpp"
#include "mq/report.hpp"
#include "unit/mq/mq_events.hpp"

namespace gc::mq {
namespace {

using test::arrive;
using test::post;
using test::probe;

// Rank 0 of a run: message 0 from rank 2 (its first to us), a receive
// from any source takes it; receive 1 (source 3, tag 4) waits for message 1,
// the second from rank 3; a probe finds nothing.
RankWorkload workload() {
  RankWorkload w;
  w.rank = 0;
  w.comms = {{0, 4}};
  w.events = {arrive(2, 4), post(kAnySource, 4), post(3, 4), probe(1, 0), arrive(3, 4)};
  w.messages = {{2, 0}, {3, 1}};
  w.observed = {0, 1};
  return w;
}

std::vector<Id> linked_list_outcomes(const RankWorkload& w) {
  auto engine = make_engine("linked-list");
  return event_outcomes(w.events, replay(w.events, w.comms, *engine));
}

TEST(ReplayCheck, OutcomesPerEvent) {
  const RankWorkload w = workload();
  // The arrival of message 0 found no receive; receive 0 took message 0;
  // receive 1 found nothing; the probe nothing; message 1 went to receive 1.
  EXPECT_EQ(linked_list_outcomes(w), (std::vector<Id>{kNoMatch, 0, kNoMatch, kNoMatch, 1}));
}

TEST(ReplayCheck, EqualOutcomesHaveNoDifference) {
  const RankWorkload w = workload();
  const auto reference = linked_list_outcomes(w);
  EXPECT_FALSE(first_difference(w, reference, "linked-list", reference, "bins").has_value());
}

TEST(ReplayCheck, APostThatTookNothingIsNamed) {
  const RankWorkload w = workload();
  const auto reference = linked_list_outcomes(w);
  auto got = reference;
  got[1] = kNoMatch;
  const auto d = first_difference(w, reference, "linked-list", got, "bins");
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->event, 1u);
  EXPECT_EQ(d->what,
            "post of receive 0 (comm 0, source ANY, tag 4): linked-list took message 0 "
            "(world rank 2, sequence 0), bins took none");
}

TEST(ReplayCheck, AnArrivalThatTookAnotherReceiveIsNamed) {
  const RankWorkload w = workload();
  const auto reference = linked_list_outcomes(w);
  auto got = reference;
  got[4] = 0;
  const auto d = first_difference(w, reference, "linked-list", got, "partner-static");
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->event, 4u);
  EXPECT_EQ(d->what,
            "arrival of message 1 (world rank 3, sequence 1) (comm 0, source 3, tag 4): "
            "linked-list took receive 1, partner-static took receive 0");
}

TEST(ReplayCheck, TheFirstOfSeveralDifferencesIsReported) {
  const RankWorkload w = workload();
  const auto reference = linked_list_outcomes(w);
  auto got = reference;
  got[3] = 1;  // the probe "found" message 1 before it arrived
  got[4] = kNoMatch;
  const auto d = first_difference(w, reference, "linked-list", got, "hash");
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->event, 3u);
  EXPECT_NE(d->what.find("probe 0 (comm 0, source 1, tag 0)"), std::string::npos) << d->what;
}

TEST(ReplayCheck, ShortOutcomesAreADifference) {
  const RankWorkload w = workload();
  const auto reference = linked_list_outcomes(w);
  auto got = reference;
  got.pop_back();
  const auto d = first_difference(w, reference, "linked-list", got, "vectors");
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->what, "linked-list has 5 events, vectors has 4");
}

TEST(ReplayCheck, TheProgramsMatchesAgainstLinkedList) {
  RankWorkload w = workload();
  const auto reference = linked_list_outcomes(w);
  EXPECT_EQ(observed_outcomes(w, reference), reference);
  // Had the program seen receive 1 take nothing (message 1 left over), the
  // check names the arrival linked-list gave to receive 1.
  w.observed = {0, kNoMatch};
  const auto observed = observed_outcomes(w, reference);
  const auto d = first_difference(w, observed, "the program", reference, "linked-list");
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->event, 4u);
  EXPECT_NE(d->what.find("the program took none, linked-list took receive 1"), std::string::npos)
      << d->what;
}

TEST(ReplayCheck, ObservedMatchesThatDoNotFitTheEventsFail) {
  RankWorkload w = workload();
  const auto reference = linked_list_outcomes(w);
  w.observed = {0};
  EXPECT_THROW(observed_outcomes(w, reference), Error);
  w.observed = {0, 7};
  EXPECT_THROW(observed_outcomes(w, reference), Error);
}

}  // namespace
}  // namespace gc::mq
