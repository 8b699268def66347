// mq/engines/vector_queue.hpp, the vector queues of `vectors` and `partner-vectors`,
// at every SIMD level the CPU has and both widths: find and the
// order-bounded find_before against a plain model (the elements in queue
// order), through holes, merges and compaction; the earliest element over
// several queues that share one order counter, found as partner-vectors
// finds it (the first queue unbounded, the next ones bounded by the best so
// far); and what the scans count.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>

#include <fmt/format.h>

#include "core/error.hpp"
#include "mq/engines/vector_queue.hpp"

namespace gc::mq {
namespace {

template <int W_, Simd L_>
struct Config {
  static constexpr int W = W_;
  static constexpr Simd L = L_;
};

using Configs =
    ::testing::Types<Config<16, Simd::avx512>, Config<16, Simd::avx2>, Config<16, Simd::scalar>,
                     Config<8, Simd::avx512>, Config<8, Simd::avx2>, Config<8, Simd::scalar>>;

struct ConfigNames {
  template <class C>
  static std::string GetName(int) {
    return fmt::format("w{}_{}", C::W, simd_name(C::L));
  }
};

// One queue's elements in queue order, as the model sees them.
struct Element {
  Envelope envelope;
  Id id = 0;
  std::uint64_t order = 0;
};
using Model = std::vector<Element>;

template <class C>
class VectorQueueTest : public ::testing::Test {
 protected:
  static constexpr int W = C::W;
  static constexpr Simd L = C::L;
  using Pool = VectorPool<W, true>;
  using Q = VectorQueue<W, true>;

  void SetUp() override {
    EngineOptions o;
    o.simd = simd_name(L);
    try {
      simd_level(o, "test");
    } catch (const Error&) {
      GTEST_SKIP() << "this CPU lacks " << simd_name(L);
    }
  }

  // kPrq: the queue holds receives (wildcards in the slots) and the key is
  // a message; else it holds messages and the key is a receive.
  template <bool kPrq>
  VectorSlot find(const Q& q, const Envelope& key, std::uint64_t bound, std::uint64_t& t) const {
    const VectorKey k = kPrq ? VectorKey::of_message(key) : VectorKey::of_receive(key);
    return bound == kNoBound ? q.template find<L, kPrq>(pool, k, t)
                             : q.template find_before<L, kPrq>(pool, k, bound, t);
  }
  template <bool kPrq>
  static bool matches(const Element& e, const Envelope& key) {
    return kPrq ? accepts(e.envelope, key) : accepts(key, e.envelope);
  }

  void push(Q& q, Model& m, const Envelope& e, Id id, std::uint64_t order) {
    q.push_back(pool, e, id, order);
    m.push_back({e, id, order});
  }

  // find/find_before on q against the model: the element found, and the
  // slots counted (found at position i: the elements up to i and the rest of
  // its node, at most W - 1; not found: the c elements below the bound, and
  // at most the rest of one node beyond them). Returns the model position or -1.
  template <bool kPrq>
  std::ptrdiff_t check_find(const Q& q, const Model& m, const Envelope& key, std::uint64_t bound,
                            const std::string& what) {
    std::uint64_t traversed = 0;
    const VectorSlot f = find<kPrq>(q, key, bound, traversed);
    const auto first =
        std::find_if(m.begin(), m.end(), [&](const Element& e) { return matches<kPrq>(e, key); });
    const bool expected = first != m.end() && first->order < bound;
    EXPECT_EQ(static_cast<bool>(f), expected) << what;
    if (!f || !expected) {
      const auto c = static_cast<std::uint64_t>(
          std::count_if(m.begin(), m.end(), [&](const Element& e) { return e.order < bound; }));
      EXPECT_GE(traversed, c) << what;
      EXPECT_LE(traversed, std::min<std::uint64_t>(m.size(), c + W - 1)) << what;
      if (bound == kNoBound) {
        EXPECT_EQ(traversed, m.size()) << what;
      }
      return -1;
    }
    const auto i = first - m.begin();
    EXPECT_EQ(pool[f.node].id[f.slot], first->id) << what;
    EXPECT_EQ(pool[f.node].order.of[f.slot], first->order) << what;
    EXPECT_GE(traversed, static_cast<std::uint64_t>(i) + 1) << what;
    EXPECT_LE(traversed, static_cast<std::uint64_t>(i) + W) << what;
    return i;
  }

  template <bool kPrq>
  void random_workload(std::uint64_t seed);

  Pool pool;
};

TYPED_TEST_SUITE(VectorQueueTest, Configs, ConfigNames);

// n = W + 4 messages with even orders 0, 2, .. (another queue would hold the
// odd ones): node 0 holds the first W, node 1 the last 4. Message i has tag i.
TYPED_TEST(VectorQueueTest, BoundedScanStopsAtTheFirstNodeNotEarlier) {
  constexpr int W = TestFixture::W;
  typename TestFixture::Q q;
  Model m;
  for (int i = 0; i < W + 4; ++i) this->push(q, m, {0, 1, i}, static_cast<Id>(i), 2u * i);
  const auto node1_first = 2u * W;  // order of message W
  auto scan = [&](std::int32_t tag, std::uint64_t bound, std::uint64_t& t) {
    t = 0;
    return this->template find<false>(q, Envelope{0, 1, tag}, bound, t);
  };
  std::uint64_t t = 0;
  // Message W + 1 (order 2W + 2) is in node 1.
  EXPECT_FALSE(scan(W + 1, node1_first, t));  // node 1 starts at the bound: not scanned
  EXPECT_EQ(t, std::uint64_t{W});
  EXPECT_FALSE(scan(W + 1, node1_first + 1, t));  // scanned, but the hit is later than the bound
  EXPECT_EQ(t, std::uint64_t{W + 4});
  VectorSlot f = scan(W + 1, node1_first + 3, t);
  ASSERT_TRUE(f);
  EXPECT_EQ(this->pool[f.node].id[f.slot], Id(W + 1));
  EXPECT_EQ(t, std::uint64_t{W + 4});
  EXPECT_TRUE(scan(W + 1, kNoBound, t));
  EXPECT_EQ(t, std::uint64_t{W + 4});
  // Message 3 (order 6), in node 0: a hit not earlier than the bound stops
  // the scan there (nothing later in the queue can be earlier).
  EXPECT_FALSE(scan(3, 6, t));
  EXPECT_EQ(t, std::uint64_t{W});
  EXPECT_TRUE(scan(3, 7, t));
  EXPECT_EQ(t, std::uint64_t{W});
  // No message with tag 99: bounded, the scan stops at node 1; unbounded, all.
  EXPECT_FALSE(scan(99, node1_first, t));
  EXPECT_EQ(t, std::uint64_t{W});
  EXPECT_FALSE(scan(99, kNoBound, t));
  EXPECT_EQ(t, std::uint64_t{W + 4});
  // A hole at node 0's first slot: its first element is now message 1 (order 2).
  f = scan(0, kNoBound, t);
  ASSERT_TRUE(f);
  q.erase(this->pool, f.node, f.slot);
  EXPECT_FALSE(scan(1, 2, t));
  EXPECT_EQ(t, 0u);  // node 0 starts at the bound: nothing compared
  EXPECT_TRUE(scan(1, 3, t));
  EXPECT_EQ(t, std::uint64_t{W - 1});
  EXPECT_FALSE(scan(99, 1, t));
  EXPECT_EQ(t, 0u);
}

TYPED_TEST(VectorQueueTest, OrdersFollowTheirElementsThroughMergesAndCompaction) {
  constexpr int W = TestFixture::W;
  typename TestFixture::Q q;
  Model m;
  std::uint64_t order = 100;
  auto take = [&](int tag) {
    std::uint64_t t = 0;
    const VectorSlot f = this->template find<false>(q, Envelope{0, 2, tag}, kNoBound, t);
    ASSERT_TRUE(f);
    q.erase(this->pool, f.node, f.slot);
    m.erase(
        std::find_if(m.begin(), m.end(), [&](const Element& e) { return e.envelope.tag == tag; }));
  };
  // Three full nodes. Holes in the middle one leave 2 elements; two holes in
  // the first make room for them: they merge into it.
  for (int i = 0; i < 3 * W; ++i) this->push(q, m, {0, 2, i}, static_cast<Id>(i), order += 3);
  EXPECT_EQ(this->pool.in_use(), 3u);
  for (int i = W; i < 2 * W - 2; ++i) take(i);
  take(0);
  EXPECT_EQ(this->pool.in_use(), 3u);
  take(5);
  EXPECT_EQ(this->pool.in_use(), 2u);
  // Holes in the full tail, then appends: the tail is compacted, not extended.
  take(2 * W + 1);
  take(2 * W + 3);
  const auto nodes = this->pool.in_use();
  this->push(q, m, {0, 2, 1000}, 1000, order += 3);
  this->push(q, m, {0, 2, 1001}, 1001, order += 3);
  EXPECT_EQ(this->pool.in_use(), nodes);
  // Every element is where the model says, with its order, at every bound.
  for (const Element& e : m)
    for (std::uint64_t bound : {e.order, e.order + 1, kNoBound})
      this->template check_find<false>(q, m, e.envelope, bound,
                                       fmt::format("tag {}, bound {}", e.envelope.tag, bound));
  EXPECT_EQ(q.size(), m.size());
}

// Random pushes, searches and removals on three queues that share one pool
// and one order counter; after every search, the earliest over the queues
// as partner-vectors takes it, against the model's.
template <class C>
template <bool kPrq>
void VectorQueueTest<C>::random_workload(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  constexpr int kQueues = 3;
  Q queues[kQueues];
  Model models[kQueues];
  std::uint64_t order = 0;
  Id next_id = 0;
  const int sources = 1 + static_cast<int>(seed % 5), tags = 1 + static_cast<int>(seed / 5 % 4);
  const double wild = seed % 3 == 0 ? 0.0 : 0.2;
  const double push_bias = seed % 2 ? 0.55 : 0.7;  // deep queues, or queues that drain often
  auto pick = [&](int n) { return static_cast<std::int32_t>(rng() % static_cast<unsigned>(n)); };
  auto chance = [&](double p) { return std::uniform_real_distribution<double>(0, 1)(rng) < p; };
  auto envelope = [&](bool wildcards) {
    Envelope e{static_cast<std::uint32_t>(pick(2)), pick(sources), pick(tags)};
    if (wildcards && chance(wild)) e.source = kAnySource;
    if (wildcards && chance(wild)) e.tag = kAnyTag;
    return e;
  };
  std::uint64_t taken = 0;
  for (int step = 0; step < 3000; ++step) {
    if (chance(push_bias)) {
      const int qi = pick(kQueues);
      push(queues[qi], models[qi], envelope(kPrq), next_id++, order);
      order += 1 + rng() % 3;  // gaps: other queues' elements in between
      continue;
    }
    const Envelope key = envelope(!kPrq);
    const std::string what = fmt::format("seed {}, step {}", seed, step);
    // Each queue alone, unbounded and at a random bound.
    for (int qi = 0; qi < kQueues; ++qi) {
      check_find<kPrq>(queues[qi], models[qi], key, kNoBound, what);
      check_find<kPrq>(queues[qi], models[qi], key, order == 0 ? 0 : rng() % order, what);
    }
    if (HasFailure()) return;
    // The earliest over all, visiting the queues in a random order.
    int visit[kQueues] = {0, 1, 2};
    std::shuffle(visit, visit + kQueues, rng);
    std::uint64_t best = kNoBound, traversed = 0;
    int best_queue = -1;
    VectorSlot best_slot;
    for (int qi : visit) {
      const VectorSlot f = find<kPrq>(queues[qi], key, best, traversed);
      if (!f) continue;
      const std::uint64_t o = pool[f.node].order.of[f.slot];
      ASSERT_LT(o, best) << what;
      best = o;
      best_queue = qi;
      best_slot = f;
    }
    int expected_queue = -1;
    std::uint64_t expected = kNoBound;
    for (int qi = 0; qi < kQueues; ++qi)
      for (const Element& e : models[qi])
        if (matches<kPrq>(e, key)) {
          if (e.order < expected) {
            expected = e.order;
            expected_queue = qi;
          }
          break;  // the first match of a queue is its earliest
        }
    ASSERT_EQ(best, expected) << what;
    ASSERT_EQ(best_queue, expected_queue) << what;
    if (best_queue < 0 || chance(0.1)) continue;  // a probe: nothing taken
    ++taken;
    Model& m = models[best_queue];
    m.erase(std::find_if(m.begin(), m.end(), [&](const Element& e) { return e.order == best; }));
    queues[best_queue].erase(pool, best_slot.node, best_slot.slot);
  }
  // Merging keeps the nodes at least half full on average: at most 2n/W + 1 per queue.
  std::uint64_t bound = 0;
  for (int qi = 0; qi < kQueues; ++qi) {
    ASSERT_EQ(queues[qi].size(), models[qi].size());
    bound += 2 * models[qi].size() / W + 1;
  }
  EXPECT_LE(pool.in_use(), bound) << "seed " << seed;
  EXPECT_GT(taken, 100u) << "seed " << seed;
  // Drained in order by a receive that takes anything on its communicator.
  for (int qi = 0; qi < kQueues; ++qi)
    while (!models[qi].empty()) {
      const Element front = models[qi].front();
      std::uint64_t t = 0;
      // A message the front receive takes, or a receive taking any message.
      const Envelope& e = front.envelope;
      const Envelope key = kPrq ? Envelope{e.comm, e.source == kAnySource ? 0 : e.source,
                                           e.tag == kAnyTag ? 0 : e.tag}
                                : Envelope{e.comm, kAnySource, kAnyTag};
      const VectorSlot f = find<kPrq>(queues[qi], key, kNoBound, t);
      ASSERT_TRUE(f);
      ASSERT_EQ(pool[f.node].id[f.slot], front.id) << "seed " << seed << ", queue " << qi;
      queues[qi].erase(pool, f.node, f.slot);
      models[qi].erase(models[qi].begin());
    }
  EXPECT_EQ(pool.in_use(), 0u);
}

TYPED_TEST(VectorQueueTest, EarliestAcrossQueuesOnRandomUnexpectedQueues) {
  for (std::uint64_t seed = 0; seed < 40; ++seed) {
    this->template random_workload<false>(seed);
    if (this->HasFailure()) return;
  }
}

TYPED_TEST(VectorQueueTest, EarliestAcrossQueuesOnRandomPostedQueues) {
  for (std::uint64_t seed = 100; seed < 140; ++seed) {
    this->template random_workload<true>(seed);
    if (this->HasFailure()) return;
  }
}

}  // namespace
}  // namespace gc::mq
