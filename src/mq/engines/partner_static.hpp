// partner-static: the static approach of Ghazimirsaeed, Mirsadeghi and
// Afsahi, "Communication-aware message matching in MPI" (CCPE 2018).
//
// A profile of a previous run (queue elements per source) picks, per
// communicator, the partners: the sources above the edge point (profile.hpp).
// Each partner gets a dedicated PRQ queue and a dedicated UMQ queue, found by
// a row-displacement perfect hash of its rank (perfect_hash.hpp); every other
// source shares one non-partner queue per side. Receives with
// MPI_ANY_SOURCE wait in an any-source PRQ of their own.
//
//   arrival from s:  s's own PRQ queue (partner or non-partner) against the
//                    any-source PRQ: the earlier-posted accepting receive wins.
//   post/probe from s: s's own UMQ queue (a message from s lives nowhere else).
//   post/probe with MPI_ANY_SOURCE: the non-partner UMQ and every partner UMQ
//                    queue that holds messages (a bit per partner says which),
//                    the earliest-arrived accepting message wins.
// Partners never change, so a source's elements are all in one queue per side.
// Beyond the paper: the engine starts as the one queue pair of
// queue_pair_start.hpp (linked-list's hot path) and takes up its partner
// queues only when a queue would outgrow t (options.threshold, as for
// partner-dynamic; 0: at the first element, the paper's static engine).
// Partner queues cannot save much on queues of at most t elements, and they
// cost a lookup and a second search on every operation.
// A communicator without partners is one PRQ (its any-source receives in it,
// in posting order) and one UMQ, searched once per operation as linked-list
// does: the profile of a short-queue program often names no partner.
// No cap here (partner-dynamic has one): every source above the edge point
// is a partner, so memory follows the profile's partners, O(partners + sqrt N).
// Counters: `partners` counts the partner queues in use (two per partner: PRQ
// and UMQ), so 0 for a program that never left the start.
//
// partner-vectors: the same partners and partner queues, with the
// non-partner queues and the any-source PRQ as SIMD vector queues
// (vector_queue.hpp, options.vector_width and options.simd as for
// `vectors`). The partners take the heavy sources out; what is left, the
// light senders' elements (a long queue when there are many of them), is
// scanned a node of 8 or 16 at a time. Each slot keeps its order, so a scan
// there is bounded by the best candidate found elsewhere, as a list's is.
// Partner queues stay linked lists: one source's elements, taken at or near
// the head, where a list costs one compare and no node.
// Traversed counts list elements compared and occupied slots of the vector
// nodes compared; memory adds, as `vectors` counts it, the vector nodes'
// bytes that hold no element.
#pragma once

#include <algorithm>
#include <type_traits>

#include <fmt/format.h>

#include "core/error.hpp"
#include "mq/engines/partner_search.hpp"
#include "mq/engines/perfect_hash.hpp"
#include "mq/engines/profile.hpp"
#include "mq/engines/queue_pair_start.hpp"

namespace gc::mq {

// partner-static's queues: every queue a linked list, in one element pool.
class ListQueues {
 public:
  using Other = Queue;  // the non-partner queues and the any-source PRQ
  static constexpr std::uint64_t kOtherHeaderBytes = Queue::kHeaderBytes;

  template <class Search>
  Found find(const Queue& queue, const Search& search, std::uint64_t bound,
             std::uint64_t& traversed) const {
    return find_earliest(pool_, queue, search, bound, traversed);
  }
  void push_back(Queue& queue, const QueueElement& e) { queue.push_back(pool_, e); }
  void erase(Queue& queue, const Found& f) { queue.erase(pool_, f.node); }
  Id id(const Queue&, const Found& f) const { return pool_[f.node].element.id; }
  ElementPool& pool() { return pool_; }
  // Bytes of the queues' own structures beyond the elements and headers.
  std::uint64_t overhead_bytes() const { return 0; }

 private:
  ElementPool pool_;
};

// The engine over a queue layout: ListQueues (partner-static) or one whose
// Other queues are vector queues (partner-vectors, partner_vectors.cpp).
// Each is instantiated in a file of its own: in one translation unit, GCC
// stopped inlining the list operations into partner-static's hot paths.
template <class Queues>
class PartnerStaticEngine final : public Engine {
 public:
  static constexpr bool kVectors = !std::is_same_v<typename Queues::Other, Queue>;
  static constexpr const char* kNeverAdded =
      kVectors ? "partner-vectors: event on a communicator never added"
               : "partner-static: event on a communicator never added";

  explicit PartnerStaticEngine(const EngineOptions& options)
      : options_(options), start_(static_cast<std::uint64_t>(std::max(options.threshold, 0))) {
    check_metric(options_.metric);
    if (options.threshold < 0)
      fail(fmt::format("{}: threshold {} must be >= 0",
                       kVectors ? "partner-vectors" : "partner-static", options.threshold));
  }

  void add_communicator(std::uint32_t id, int size) override {
    if (comms_.size() <= id) comms_.resize(id + 1);
    Comm& c = comms_[id];
    if (c.added) return;
    c.added = true;
    std::vector<std::uint32_t> partners;
    if (id < options_.profile.size()) {
      partners = choose_partners(options_.profile[id], options_.metric, options_.alpha);
      keep_fullest(partners, options_.profile[id],
                   partner_cap(options_.memory, options_.cap_factor, false, size));
    }
    c.partners = PerfectHash(partners, static_cast<std::uint32_t>(std::max(size, 0)));
    c.single = partners.empty();
    c.prq.partner.assign(partners.size(), Queue{});
    c.umq.partner.assign(partners.size(), Queue{});
    c.umq_occupied.resize(partners.size());
    partner_queues_ += 2 * partners.size();
    memory_ += c.partners.memory_bytes() + c.umq_occupied.memory_bytes() +
               2 * partners.size() * Queue::kHeaderBytes + 3 * Queues::kOtherHeaderBytes;
  }

  Id arrive(const Envelope& message, Id id) override {
    if (start_.active()) [[likely]] {
      const Id matched = start_.arrive(queues_.pool(), message, id, order_, c_);
      if (matched != QueuePairStart::kFull) return matched;
      leave_start();
      append_message(comm(message.comm), {message, id, order_++});
      return kNoMatch;
    }
    Comm& c = comm(message.comm);
    const PrqSearch search{message};
    if (c.single) [[likely]]
      return single_search(c.prq.non_partner, c.umq.non_partner, search, {message, id, order_},
                           c_.prq_searches, c_.prq_traversed, c_.prq_max, prq_length_, umq_length_,
                           c_.umq_length_max);
    const std::int32_t p = c.partners.lookup(static_cast<std::uint32_t>(message.source));
    std::uint64_t traversed = 0;
    Hit best;
    if (p >= 0)
      take_if_earlier(c.prq.partner[static_cast<std::size_t>(p)], search, best, traversed);
    else
      take_if_earlier(c.prq.non_partner, search, best, traversed);
    take_if_earlier(c.any_source, search, best, traversed);
    count_search(c_.prq_searches, c_.prq_traversed, c_.prq_max, traversed);
    if (best) {
      const Id matched = id_of(best);
      erase(best);
      --prq_length_;
      return matched;
    }
    append_message(c, {message, id, order_++}, p);
    return kNoMatch;
  }

  Id post(const Envelope& receive, Id id) override {
    if (start_.active()) [[likely]] {
      const Id matched = start_.post(queues_.pool(), receive, id, order_, c_);
      if (matched != QueuePairStart::kFull) return matched;
      leave_start();
      append_receive(comm(receive.comm), {receive, id, order_++});
      return kNoMatch;
    }
    Comm& c = comm(receive.comm);
    if (c.single) [[likely]]
      return single_search(c.umq.non_partner, c.prq.non_partner, UmqSearch{receive},
                           {receive, id, order_}, c_.umq_searches, c_.umq_traversed, c_.umq_max,
                           umq_length_, prq_length_, c_.prq_length_max);
    const Hit found = search_umq(c, receive);
    if (found) {
      const Id matched = id_of(found);
      erase(found);
      if (found.partner >= 0 && found.list->empty()) c.umq_occupied.clear(found.partner);
      --umq_length_;
      return matched;
    }
    append_receive(c, {receive, id, order_++});
    return kNoMatch;
  }

  Id probe(const Envelope& receive) override {
    if (start_.active()) [[likely]]
      return start_.probe(queues_.pool(), receive, c_);
    const Hit found = search_umq(comm(receive.comm), receive);
    return found ? id_of(found) : kNoMatch;
  }

  const Counters& counters() const override {
    c_.partners = start_.active() ? 0 : partner_queues_;
    c_.memory_overhead_bytes = std::max(memory_, memory_peak_);
    return c_;
  }

 private:
  using Other = typename Queues::Other;
  // One side (PRQ or UMQ) of a communicator.
  struct Side {
    std::vector<Queue> partner;  // by partner index
    Other non_partner;
  };
  struct Comm {
    PerfectHash partners;  // source -> partner index, the same for both sides
    Side prq, umq;
    OccupiedQueues umq_occupied;  // the partner UMQ queues that hold messages
    Other any_source;             // posted receives with MPI_ANY_SOURCE
    // No partners: one PRQ and one UMQ, the any-source receives in the
    // non-partner PRQ in posting order (linked-list's hot path: a single
    // search per arrival, where the earliest accepting receive is the first).
    bool single = false;
    bool added = false;
  };
  // The earliest accepting element found so far and the queue holding it.
  struct Hit {
    Found at;
    Queue* list = nullptr;      // a linked list (partner-static: any queue) ...
    Other* other = nullptr;     // ... or a vector queue (partner-vectors)
    std::int32_t partner = -1;  // index of the partner queue, if one
    explicit operator bool() const { return static_cast<bool>(at); }
  };

  Comm& comm(std::uint32_t id) {
    if (id >= comms_.size() || !comms_[id].added) [[unlikely]]
      fail(kNeverAdded);
    return comms_[id];
  }

  // Replaces `best` by the first element of `queue` (partner queue
  // `partner`, or -1) that `search` accepts, if that one is earlier.
  template <class Q, class Search>
  void take_if_earlier(Q& queue, const Search& search, Hit& best, std::uint64_t& traversed,
                       std::int32_t partner = -1) {
    const Found f = queues_.find(queue, search, best.at.order, traversed);
    if (!f) return;
    best.at = f;
    if constexpr (std::is_same_v<Q, Queue>) {
      best.list = &queue;
      best.other = nullptr;
    } else {
      best.list = nullptr;
      best.other = &queue;
    }
    best.partner = partner;
  }

  Id id_of(const Hit& hit) const {
    return hit.list ? queues_.id(*hit.list, hit.at) : queues_.id(*hit.other, hit.at);
  }

  void erase(const Hit& hit) {
    if (hit.list) {
      queues_.erase(*hit.list, hit.at);
    } else {
      queues_.erase(*hit.other, hit.at);
      note_memory();
    }
  }

  // A message that found no receive, to its UMQ queue (partner index `p`
  // of its source, or -1; looked up here if kLookUp).
  static constexpr std::int32_t kLookUp = -2;
  void append_message(Comm& c, const QueueElement& e, std::int32_t p = kLookUp) {
    if (c.single) {
      queues_.push_back(c.umq.non_partner, e);
      note_memory();
    } else {
      if (p == kLookUp) p = c.partners.lookup(static_cast<std::uint32_t>(e.envelope.source));
      if (p >= 0) {
        queues_.push_back(c.umq.partner[static_cast<std::size_t>(p)], e);
        c.umq_occupied.set(p);
      } else {
        queues_.push_back(c.umq.non_partner, e);
        note_memory();
      }
    }
    c_.umq_length_max = std::max(c_.umq_length_max, ++umq_length_);
  }

  // A receive that found no message, to its PRQ queue (without partners,
  // the one PRQ holds the receives with MPI_ANY_SOURCE too).
  void append_receive(Comm& c, const QueueElement& e) {
    const std::int32_t source = e.envelope.source;
    const std::int32_t p = c.single || source == kAnySource
                               ? -1
                               : c.partners.lookup(static_cast<std::uint32_t>(source));
    if (p >= 0) {
      queues_.push_back(c.prq.partner[static_cast<std::size_t>(p)], e);
    } else {
      queues_.push_back(source == kAnySource && !c.single ? c.any_source : c.prq.non_partner, e);
      note_memory();
    }
    c_.prq_length_max = std::max(c_.prq_length_max, ++prq_length_);
  }

  // From the one queue pair to the communicators' queues: every element, in
  // order, where it would have gone (lengths restart from the moved ones).
  [[gnu::noinline]] void leave_start() {
    prq_length_ = umq_length_ = 0;
    const std::uint64_t prq_max = c_.prq_length_max, umq_max = c_.umq_length_max;
    start_.drain(queues_.pool(), [&](bool prq, const QueueElement& e) {
      Comm& c = comm(e.envelope.comm);  // checked here: the one queue needs no communicator
      if (prq)
        append_receive(c, e);
      else
        append_message(c, e);
    });
    c_.prq_length_max = prq_max;
    c_.umq_length_max = umq_max;
  }

  // A communicator without partners: one search of one queue (`searched`);
  // no match appends `e` to the other side's queue (`appended`).
  template <class Search>
  Id single_search(Other& searched, Other& appended, const Search& search, QueueElement e,
                   std::uint64_t& searches, std::uint64_t& total, std::uint64_t& max,
                   std::uint64_t& searched_length, std::uint64_t& appended_length,
                   std::uint64_t& appended_length_max) {
    std::uint64_t traversed = 0;
    const Found f = queues_.find(searched, search, kNoBound, traversed);
    count_search(searches, total, max, traversed);
    if (f) {
      const Id matched = queues_.id(searched, f);
      queues_.erase(searched, f);
      note_memory();
      --searched_length;
      return matched;
    }
    ++order_;
    queues_.push_back(appended, e);
    note_memory();
    appended_length_max = std::max(appended_length_max, ++appended_length);
    return kNoMatch;
  }

  // The earliest-arrived message that `receive` accepts, counted as one UMQ search.
  Hit search_umq(Comm& c, const Envelope& receive) {
    const UmqSearch search{receive};
    std::uint64_t traversed = 0;
    Hit best;
    if (receive.source != kAnySource) {
      const std::int32_t p = c.partners.lookup(static_cast<std::uint32_t>(receive.source));
      if (p >= 0)
        take_if_earlier(c.umq.partner[static_cast<std::size_t>(p)], search, best, traversed, p);
      else
        take_if_earlier(c.umq.non_partner, search, best, traversed);
    } else {
      take_if_earlier(c.umq.non_partner, search, best, traversed);
      c.umq_occupied.for_each([&](std::int32_t p) {
        take_if_earlier(c.umq.partner[static_cast<std::size_t>(p)], search, best, traversed, p);
      });
    }
    count_search(c_.umq_searches, c_.umq_traversed, c_.umq_max, traversed);
    return best;
  }

  // After the vector queues changed: the peak of tables plus node overhead.
  void note_memory() {
    if constexpr (kVectors)
      memory_peak_ = std::max(memory_peak_, memory_ + queues_.overhead_bytes());
  }

  EngineOptions options_;
  QueuePairStart start_;  // see queue_pair_start.hpp
  Queues queues_;
  std::vector<Comm> comms_;  // by communicator id
  std::uint64_t order_ = 0;
  std::uint64_t prq_length_ = 0, umq_length_ = 0;
  std::uint64_t partner_queues_ = 0;  // of all communicators, in use once the start is left
  std::uint64_t memory_ = QueuePairStart::kMemoryBytes;  // partner tables and queue headers
  std::uint64_t memory_peak_ = 0;  // partner-vectors: with the vector nodes' overhead
  mutable Counters c_;
};

}  // namespace gc::mq
