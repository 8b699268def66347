// mq/: the reference engine (linked-list) on hand-made cases, and every
// engine equal to it on random workloads with wildcards and probes.
#include <gtest/gtest.h>

#include "mq/engines/engine.hpp"
#include "mq/engines/replay.hpp"
#include "unit/mq/mq_events.hpp"

namespace gc::mq {
namespace {

using test::arrive;
using test::post;
using test::probe;

ReplayResult run(const std::string& engine, const std::vector<Event>& events, int ranks = 4) {
  auto e = make_engine(engine);
  return replay(events, {{0, ranks}, {1, ranks}}, *e);
}

TEST(LinkedList, EarliestPostedReceiveTakesTheMessage) {
  // Receives 0 (any source, tag 1) and 1 (source 2, tag 1) both accept the
  // message from 2: the earlier-posted one gets it.
  const auto r = run("linked-list", {post(kAnySource, 1), post(2, 1), arrive(2, 1)});
  ASSERT_EQ(r.matches.size(), 1u);
  EXPECT_EQ(r.matches[0], (Match{0, 0}));
  EXPECT_EQ(r.counters.prq_traversed, 1u);
}

TEST(LinkedList, EarliestArrivedMessageIsTaken) {
  // Non-overtaking: two messages from 1 with tag 3, a receive with any tag
  // takes the first; a communicator keeps envelopes apart.
  const auto r = run("linked-list", {arrive(1, 5, 1), arrive(1, 3), arrive(1, 3), post(1, kAnyTag),
                                     post(1, 5), post(kAnySource, kAnyTag, 1)});
  ASSERT_EQ(r.matches.size(), 2u);
  EXPECT_EQ(r.matches[0], (Match{0, 1}));
  EXPECT_EQ(r.matches[1], (Match{2, 0}));  // receive 1 (tag 5 on comm 0) waits
  EXPECT_EQ(r.counters.prq_length_max, 1u);
}

TEST(LinkedList, ProbeLeavesTheMessage) {
  const auto r = run("linked-list", {arrive(3, 0), probe(kAnySource, 0), probe(3, 1), post(3, 0)});
  ASSERT_EQ(r.probes.size(), 2u);
  EXPECT_EQ(r.probes[0], 0u);
  EXPECT_EQ(r.probes[1], kNoMatch);
  ASSERT_EQ(r.matches.size(), 1u);
  EXPECT_EQ(r.matches[0], (Match{0, 0}));
}

}  // namespace
}  // namespace gc::mq
