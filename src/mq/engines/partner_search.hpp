// Search steps the partner engines share (partner_static.hpp: partner-static
// and partner-vectors; partner_dynamic.cpp; Ghazimirsaeed, Mirsadeghi and
// Afsahi, "Communication-aware message matching in MPI", CCPE 2018). Their
// queues split one MPI queue, so when several queues may hold a candidate the
// earliest `order` wins, as in the single queue of linked-list: scans are
// bounded by the best order found so far and stop at the first element that
// is not earlier (in a vector queue: at the first node whose first element
// is not earlier, vector_queue.hpp).
// A search with MPI_ANY_SOURCE looks at the partner queues that hold
// elements only (OccupiedQueues), so that its cost follows the elements
// there are, not the number of partners: with hundreds of partners, walking
// every empty partner queue made such a search cost more than a whole
// linked-list search on short queues.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

#include "mq/engines/engine.hpp"
#include "mq/engines/queue.hpp"
#include "mq/engines/vector_queue.hpp"

namespace gc::mq {

// What a search accepts: the posted receives that take an arriving message
// (PRQ), or the messages a posted receive or probe takes (UMQ). Called on a
// list element; key() for a vector queue's scan.
struct PrqSearch {
  static constexpr bool kLaneMasks = true;  // the receives' own wildcards
  Envelope message;
  bool operator()(const QueueElement& r) const { return accepts(r.envelope, message); }
  VectorKey key() const { return VectorKey::of_message(message); }
};
struct UmqSearch {
  static constexpr bool kLaneMasks = false;  // the receive's wildcards, broadcast
  Envelope receive;
  bool operator()(const QueueElement& m) const { return accepts(receive, m.envelope); }
  VectorKey key() const { return VectorKey::of_receive(receive); }
};

// An element found in a linked list (node) or a vector queue (node, slot):
// 16 bytes, returned in registers (a larger result, copied through the
// stack, cost partner-static a quarter of its time on short searches).
struct Found {
  std::uint32_t node = Queue::kNone, slot = 0;
  std::uint64_t order = kNoBound;  // kNoBound: none
  explicit operator bool() const { return order != kNoBound; }
};

// A found element and the queue that holds it (to erase it from).
struct Hit {
  Queue* queue = nullptr;
  std::uint32_t node = Queue::kNone;
  std::int32_t level = -1;    // partner-dynamic: index of the non-partner level, if one
  std::int32_t partner = -1;  // index of the partner queue, if one
  explicit operator bool() const { return queue != nullptr; }
};

// Which partner queues of one side hold elements: one bit per partner.
class OccupiedQueues {
 public:
  void resize(std::size_t queues) { words_.resize((queues + 63) / 64, 0); }
  void set(std::int32_t p) { words_[word(p)] |= bit(p); }
  void clear(std::int32_t p) { words_[word(p)] &= ~bit(p); }
  // visit(p) for every occupied queue p, in increasing p.
  template <class Visit>
  void for_each(Visit&& visit) const {
    for (std::size_t w = 0; w < words_.size(); ++w)
      for (std::uint64_t bits = words_[w]; bits != 0; bits &= bits - 1)
        visit(static_cast<std::int32_t>(64 * w + static_cast<std::size_t>(std::countr_zero(bits))));
  }
  std::uint64_t memory_bytes() const { return words_.size() * sizeof(std::uint64_t); }

 private:
  static std::size_t word(std::int32_t p) { return static_cast<std::size_t>(p) / 64; }
  static std::uint64_t bit(std::int32_t p) { return std::uint64_t{1} << (p % 64); }
  std::vector<std::uint64_t> words_;
};

// The first element of `queue` that accept(element) holds for, counting the
// elements compared into `traversed`. Out of line, with a local count, on
// purpose: inlined into the engines' larger operations (several queues to
// search), the walk lost a cycle per element to register pressure, 10-15%
// of the time on queues of tens of elements.
template <class Accept>
[[gnu::noinline]] std::uint32_t scan(const ElementPool& pool, const Queue& queue,
                                     const Accept& accept, std::uint64_t& traversed) {
  std::uint64_t compared = 0;
  std::uint32_t n = queue.head();
  for (; n != Queue::kNone; n = pool[n].next) {
    ++compared;
    if (accept(pool[n].element)) break;
  }
  traversed += compared;
  return n;
}

// The same among the elements with order below `bound`.
template <class Accept>
[[gnu::noinline]] std::uint32_t find_before(const ElementPool& pool, const Queue& queue,
                                            const Accept& accept, std::uint64_t bound,
                                            std::uint64_t& traversed) {
  std::uint64_t compared = 0;
  std::uint32_t n = queue.head();
  for (; n != Queue::kNone; n = pool[n].next) {
    const QueueElement& e = pool[n].element;
    if (e.order >= bound) {
      n = Queue::kNone;
      break;
    }
    ++compared;
    if (accept(e)) break;
  }
  traversed += compared;
  return n;
}

// The first element of `queue` that `search` accepts among those with order
// below `bound` (kNoBound: all), counting the elements compared.
template <class Search>
Found find_earliest(const ElementPool& pool, const Queue& queue, const Search& search,
                    std::uint64_t bound, std::uint64_t& traversed) {
  if (queue.empty()) return {};
  const std::uint32_t n = bound == kNoBound ? scan(pool, queue, search, traversed)
                                            : find_before(pool, queue, search, bound, traversed);
  return n == Queue::kNone ? Found{} : Found{n, 0, pool[n].element.order};
}

// The same in a vector queue of ordered nodes, scanned at SIMD level L
// (counting the occupied slots of the nodes compared).
template <Simd L, class Search, int W>
Found find_earliest(const VectorPool<W, true>& pool, const VectorQueue<W, true>& queue,
                    const Search& search, std::uint64_t bound, std::uint64_t& traversed) {
  if (queue.empty()) return {};
  constexpr bool kLaneMasks = Search::kLaneMasks;
  const VectorSlot f =
      bound == kNoBound
          ? queue.template find<L, kLaneMasks>(pool, search.key(), traversed)
          : queue.template find_before<L, kLaneMasks>(pool, search.key(), bound, traversed);
  return f ? Found{f.node, f.slot, pool[f.node].order.of[f.slot]} : Found{};
}

// Replaces `best` by the first accepting element of `queue` (partner queue
// `partner`, or -1) if that one is earlier.
template <class Accept>
void take_if_earlier(const ElementPool& pool, Queue& queue, const Accept& accept, Hit& best,
                     std::uint64_t& traversed, std::int32_t partner = -1) {
  if (queue.empty()) return;
  const std::uint32_t n =
      best ? find_before(pool, queue, accept, pool[best.node].element.order, traversed)
           : scan(pool, queue, accept, traversed);
  if (n != Queue::kNone) best = {&queue, n, -1, partner};
}

// At most cap_factor * sqrt(size) partner queues (a tiny slack keeps exact
// products, e.g. 0.125 * sqrt(64) = 1, from rounding down).
inline std::uint32_t partner_cap(double cap_factor, int size) {
  const double cap = std::floor(cap_factor * std::sqrt(static_cast<double>(size)) + 1e-9);
  return cap <= 0 ? 0 : static_cast<std::uint32_t>(std::min(cap, 4294967295.0));
}

// The partner cap of an engine bounded or not by default, under the regime
// `memory` asks for: no cap when unbounded.
inline std::uint32_t partner_cap(EngineOptions::Memory memory, double cap_factor,
                                 bool bounded_by_default, int size) {
  const bool bounded = memory == EngineOptions::Memory::bounded ||
                       (memory == EngineOptions::Memory::engine_default && bounded_by_default);
  return bounded ? partner_cap(cap_factor, size) : ~std::uint32_t{0};
}

}  // namespace gc::mq
