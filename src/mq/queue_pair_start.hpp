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

#include "mq/queue.hpp"

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
    std::uint64_t traversed = 0;
    const auto n = prq_.find(
        pool, [&](const QueueElement& r) { return accepts(r.envelope, message); }, traversed);
    count_search(c.prq_searches, c.prq_traversed, c.prq_max, traversed);
    if (n != Queue::kNone) {
      const Id matched = pool[n].element.id;
      prq_.erase(pool, n);
      return matched;
    }
    if (umq_.size() >= threshold_) return kFull;
    umq_.push_back(pool, {message, id, order++});
    c.umq_length_max = std::max(c.umq_length_max, umq_.size());
    return kNoMatch;
  }

  // A posted receive: the matched message's id, kNoMatch after appending to
  // the PRQ, or kFull.
  [[gnu::always_inline]] Id post(ElementPool& pool, const Envelope& receive, Id id,
                                 std::uint64_t& order, Counters& c) {
    const auto n = find_message(pool, receive, c);
    if (n != Queue::kNone) {
      const Id matched = pool[n].element.id;
      umq_.erase(pool, n);
      return matched;
    }
    if (prq_.size() >= threshold_) return kFull;
    prq_.push_back(pool, {receive, id, order++});
    c.prq_length_max = std::max(c.prq_length_max, prq_.size());
    return kNoMatch;
  }

  [[gnu::always_inline]] Id probe(const ElementPool& pool, const Envelope& receive,
                                  Counters& c) const {
    const auto n = find_message(pool, receive, c);
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
  [[gnu::always_inline]] std::uint32_t find_message(const ElementPool& pool,
                                                    const Envelope& receive, Counters& c) const {
    std::uint64_t traversed = 0;
    const auto n = umq_.find(
        pool, [&](const QueueElement& m) { return accepts(receive, m.envelope); }, traversed);
    count_search(c.umq_searches, c.umq_traversed, c.umq_max, traversed);
    return n;
  }

  std::uint64_t threshold_;
  bool active_ = true;
  Queue prq_, umq_;
};

}  // namespace gc::mq
