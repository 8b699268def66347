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
// No cap here (partner-dynamic has one): every source above the edge point
// is a partner, so memory follows the profile's partners, O(partners + sqrt N).
// Counters: `partners` counts partner queues (two per partner: PRQ and UMQ).
#include <algorithm>

#include "core/error.hpp"
#include "mq/engines.hpp"
#include "mq/partner_search.hpp"
#include "mq/perfect_hash.hpp"
#include "mq/profile.hpp"

namespace gc::mq {
namespace {

class PartnerStatic final : public Engine {
 public:
  explicit PartnerStatic(const EngineOptions& options) : options_(options) {
    check_metric(options_.metric);
  }

  void add_communicator(std::uint32_t id, int size) override {
    if (comms_.size() <= id) comms_.resize(id + 1);
    Comm& c = comms_[id];
    if (c.added) return;
    c.added = true;
    std::vector<std::uint32_t> partners;
    if (id < options_.profile.size())
      partners = choose_partners(options_.profile[id], options_.metric, options_.alpha);
    c.partners = PerfectHash(partners, static_cast<std::uint32_t>(std::max(size, 0)));
    c.prq.partner.assign(partners.size(), Queue{});
    c.umq.partner.assign(partners.size(), Queue{});
    c.umq_occupied.resize(partners.size());
    c_.partners += 2 * partners.size();
    memory_ += c.partners.memory_bytes() + c.umq_occupied.memory_bytes() +
               (2 * partners.size() + 3) * Queue::kHeaderBytes;
  }

  Id arrive(const Envelope& message, Id id) override {
    Comm& c = comm(message.comm);
    const auto accept = [&](const QueueElement& r) { return accepts(r.envelope, message); };
    const std::int32_t p = c.partners.lookup(static_cast<std::uint32_t>(message.source));
    std::uint64_t traversed = 0;
    Hit best;
    take_if_earlier(pool_, c.prq.queue_of(p), accept, best, traversed);
    take_if_earlier(pool_, c.any_source, accept, best, traversed);
    count_search(c_.prq_searches, c_.prq_traversed, c_.prq_max, traversed);
    if (best) {
      const Id matched = pool_[best.node].element.id;
      best.queue->erase(pool_, best.node);
      --prq_length_;
      return matched;
    }
    c.umq.queue_of(p).push_back(pool_, {message, id, order_++});
    if (p >= 0) c.umq_occupied.set(p);
    c_.umq_length_max = std::max(c_.umq_length_max, ++umq_length_);
    return kNoMatch;
  }

  Id post(const Envelope& receive, Id id) override {
    Comm& c = comm(receive.comm);
    const Hit found = search_umq(c, receive);
    if (found) {
      const Id matched = pool_[found.node].element.id;
      found.queue->erase(pool_, found.node);
      if (found.partner >= 0 && found.queue->empty()) c.umq_occupied.clear(found.partner);
      --umq_length_;
      return matched;
    }
    Queue& to = receive.source == kAnySource
                    ? c.any_source
                    : c.prq.queue_of(c.partners.lookup(static_cast<std::uint32_t>(receive.source)));
    to.push_back(pool_, {receive, id, order_++});
    c_.prq_length_max = std::max(c_.prq_length_max, ++prq_length_);
    return kNoMatch;
  }

  Id probe(const Envelope& receive) override {
    const Hit found = search_umq(comm(receive.comm), receive);
    return found ? pool_[found.node].element.id : kNoMatch;
  }

  const Counters& counters() const override {
    c_.memory_overhead_bytes = memory_;
    return c_;
  }

 private:
  // One side (PRQ or UMQ) of a communicator.
  struct Side {
    std::vector<Queue> partner;  // by partner index
    Queue non_partner;
    Queue& queue_of(std::int32_t p) { return p < 0 ? non_partner : partner[p]; }
  };
  struct Comm {
    PerfectHash partners;  // source -> partner index, the same for both sides
    Side prq, umq;
    OccupiedQueues umq_occupied;  // the partner UMQ queues that hold messages
    Queue any_source;             // posted receives with MPI_ANY_SOURCE
    bool added = false;
  };

  Comm& comm(std::uint32_t id) {
    if (id >= comms_.size() || !comms_[id].added) [[unlikely]]
      fail("partner-static: event on a communicator never added");
    return comms_[id];
  }

  // The earliest-arrived message that `receive` accepts, counted as one UMQ search.
  Hit search_umq(Comm& c, const Envelope& receive) {
    const auto accept = [&](const QueueElement& m) { return accepts(receive, m.envelope); };
    std::uint64_t traversed = 0;
    Hit best;
    if (receive.source != kAnySource) {
      const std::int32_t p = c.partners.lookup(static_cast<std::uint32_t>(receive.source));
      take_if_earlier(pool_, c.umq.queue_of(p), accept, best, traversed, p);
    } else {
      take_if_earlier(pool_, c.umq.non_partner, accept, best, traversed);
      c.umq_occupied.for_each([&](std::int32_t p) {
        take_if_earlier(pool_, c.umq.partner[static_cast<std::size_t>(p)], accept, best, traversed,
                        p);
      });
    }
    count_search(c_.umq_searches, c_.umq_traversed, c_.umq_max, traversed);
    return best;
  }

  EngineOptions options_;
  ElementPool pool_;
  std::vector<Comm> comms_;  // by communicator id
  std::uint64_t order_ = 0;
  std::uint64_t prq_length_ = 0, umq_length_ = 0;
  std::uint64_t memory_ = 0;
  mutable Counters c_;
};

}  // namespace

std::unique_ptr<Engine> make_partner_static(const EngineOptions& options) {
  return std::make_unique<PartnerStatic>(options);
}

}  // namespace gc::mq
