// The one queue pair the partner engines start with (partner-dynamic,
// partner-static, partner-vectors): until some queue would outgrow t, the
// engine is one PRQ and one UMQ for all communicators, searched as
// linked-list searches them, with the same code on the hot path (an MPI
// library's queue mixes communicators too; matching on the communicator is
// part of accepts()). A queue of at most t elements is one a partner queue
// can save little on, while every partner lookup, every second queue to
// search and every branch between layouts costs on each operation: on
// short-queue programs (LAMMPS, median queue length 1, ~5 ns per operation
// here) that was 30-75% of linked-list's time. So short-queue programs stay
// here for good, at linked-list's cost. The first append that would take
// the PRQ or the UMQ past t (wildcards counted) is refused with kFull; the
// engine then hands every element, in order, to its own layout (drain) and
// goes on there.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>

#include "mq/engines/queue.hpp"

namespace gc::mq {

class QueuePairStart {
 public:
  // Not matched, and not appended: the queue holds t elements.
  static constexpr Id kFull = kNoMatch - 1;

  explicit QueuePairStart(std::uint64_t threshold) : threshold_(threshold) {}

  bool active() const { return active_; }

  // An arrival: the matched receive's id, kNoMatch after appending to the
  // UMQ (with order `order++`), or kFull.
  [[gnu::always_inline]] Id arrive(ElementPool& pool, const Envelope& message, Id id,
                                   std::uint64_t& order, Counters& c) {
    return take_or_append(
        pool, prq_, umq_, [&](const QueueElement& r) { return accepts(r.envelope, message); },
        {message, id, order}, order, c.prq_searches, c.prq_traversed, c.prq_max, c.umq_length_max);
  }

  // A posted receive: the matched message's id, kNoMatch after appending to
  // the PRQ, or kFull.
  [[gnu::always_inline]] Id post(ElementPool& pool, const Envelope& receive, Id id,
                                 std::uint64_t& order, Counters& c) {
    return take_or_append(
        pool, umq_, prq_, [&](const QueueElement& m) { return accepts(receive, m.envelope); },
        {receive, id, order}, order, c.umq_searches, c.umq_traversed, c.umq_max, c.prq_length_max);
  }

  [[gnu::always_inline]] Id probe(const ElementPool& pool, const Envelope& receive,
                                  Counters& c) const {
    std::uint64_t traversed = 0;
    const auto n = umq_.find(
        pool, [&](const QueueElement& m) { return accepts(receive, m.envelope); }, traversed);
    count_search(c.umq_searches, c.umq_traversed, c.umq_max, traversed);
    return n == Queue::kNone ? kNoMatch : pool[n].element.id;
  }

  // Leaves the start: visit(prq, element) for every element, the PRQ's
  // first, each queue in order, emptying both. Returns {PRQ, UMQ} lengths.
  template <class Visit>
  std::pair<std::uint64_t, std::uint64_t> drain(ElementPool& pool, Visit&& visit) {
    active_ = false;
    const std::pair<std::uint64_t, std::uint64_t> lengths{prq_.size(), umq_.size()};
    for (const bool prq : {true, false}) {
      Queue& from = prq ? prq_ : umq_;
      while (!from.empty()) {
        const std::uint32_t n = from.head();
        const QueueElement e = pool[n].element;
        from.erase(pool, n);
        visit(prq, e);
      }
    }
    return lengths;
  }

  static constexpr std::uint64_t kMemoryBytes = 2 * Queue::kHeaderBytes;

 private:
  // One operation: the first element of `searched` that accept() holds for
  // (one search, counted), taken out; else `e` appended to `appended` (the
  // order taken, its length maximum kept), unless that holds t already.
  template <class Accept>
  [[gnu::always_inline]] Id take_or_append(ElementPool& pool, Queue& searched, Queue& appended,
                                           const Accept& accept, const QueueElement& e,
                                           std::uint64_t& order, std::uint64_t& searches,
                                           std::uint64_t& total, std::uint64_t& max,
                                           std::uint64_t& appended_length_max) {
    std::uint64_t traversed = 0;
    const auto n = searched.find(pool, accept, traversed);
    count_search(searches, total, max, traversed);
    if (n != Queue::kNone) {
      const Id matched = pool[n].element.id;
      searched.erase(pool, n);
      return matched;
    }
    if (appended.size() >= threshold_) return kFull;
    appended.push_back(pool, e);
    ++order;
    appended_length_max = std::max(appended_length_max, appended.size());
    return kNoMatch;
  }

  std::uint64_t threshold_;
  bool active_ = true;
  Queue prq_, umq_;
};

}  // namespace gc::mq
