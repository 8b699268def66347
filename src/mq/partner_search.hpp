// Search steps the two partner engines share (partner_static.cpp,
// partner_dynamic.cpp; Ghazimirsaeed, Mirsadeghi and Afsahi, "Communication-
// aware message matching in MPI", CCPE 2018). Their queues split one MPI
// queue, so when several queues may hold a candidate the earliest `order`
// wins, as in the single queue of linked-list: scans are bounded by the best
// order found so far and stop at the first element that is not earlier.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "mq/queue.hpp"

namespace gc::mq {

constexpr std::uint64_t kNoBound = std::numeric_limits<std::uint64_t>::max();

// A found element and the queue that holds it (to erase it from).
struct Hit {
  Queue* queue = nullptr;
  std::uint32_t node = Queue::kNone;
  std::int32_t level = -1;  // partner-dynamic: index of the non-partner level, if one
  explicit operator bool() const { return queue != nullptr; }
};

// The first element of `queue` that accept(element) holds for among those
// with order below `bound`; counts the elements compared into `traversed`.
template <class Accept>
std::uint32_t find_before(const ElementPool& pool, const Queue& queue, const Accept& accept,
                          std::uint64_t bound, std::uint64_t& traversed) {
  for (std::uint32_t n = queue.head(); n != Queue::kNone; n = pool[n].next) {
    const QueueElement& e = pool[n].element;
    if (e.order >= bound) break;
    ++traversed;
    if (accept(e)) return n;
  }
  return Queue::kNone;
}

// Replaces `best` by the first accepting element of `queue` if that one is earlier.
template <class Accept>
void take_if_earlier(const ElementPool& pool, Queue& queue, const Accept& accept, Hit& best,
                     std::uint64_t& traversed) {
  if (queue.empty()) return;
  const std::uint64_t bound = best ? pool[best.node].element.order : kNoBound;
  const std::uint32_t n = find_before(pool, queue, accept, bound, traversed);
  if (n != Queue::kNone) best = {&queue, n};
}

// At most cap_factor * sqrt(size) partner queues (a tiny slack keeps exact
// products, e.g. 0.125 * sqrt(64) = 1, from rounding down).
inline std::uint32_t partner_cap(double cap_factor, int size) {
  const double cap = std::floor(cap_factor * std::sqrt(static_cast<double>(size)) + 1e-9);
  return cap <= 0 ? 0 : static_cast<std::uint32_t>(std::min(cap, 4294967295.0));
}

}  // namespace gc::mq
