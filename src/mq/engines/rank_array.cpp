// rank-array: Open MPI ob1's matching layout (ompi/mca/pml/ob1,
// pml_ob1_comm.h and pml_ob1_recvfrag.c). Per communicator, an array indexed
// by source rank holds that source's PRQ (receives naming it, any tag
// included) and UMQ (its unexpected messages); receives with MPI_ANY_SOURCE
// wait in one wildcard PRQ of the communicator.
//
//   arrival from s:    s's PRQ and the wildcard PRQ walked together by posting
//                      order, as ob1's match_incomming does: the first
//                      accepting receive in that merged order wins.
//   post/probe from s: s's UMQ only (messages from s live nowhere else).
//   post/probe with MPI_ANY_SOURCE: every source's UMQ of the communicator;
//                      the earliest-arrived accepting message wins (ob1 takes
//                      the first source in rank order instead, which MPI
//                      allows but linked-list would not reproduce).
// Within one source's queues comm and source already agree, so only tags are
// compared. The price is memory: two queue headers per rank per communicator.
#include <fmt/format.h>

#include "core/error.hpp"
#include "mq/engines/engines.hpp"
#include "mq/engines/queue.hpp"

namespace gc::mq {
namespace {

bool tag_accepts(std::int32_t receive_tag, std::int32_t message_tag) {
  return receive_tag == kAnyTag || receive_tag == message_tag;
}

// A found element and the queue that holds it.
struct Hit {
  Queue* queue = nullptr;
  std::uint32_t node = Queue::kNone;
};

class RankArray final : public Engine {
 public:
  void add_communicator(std::uint32_t id, int size) override {
    if (comms_.size() <= id) comms_.resize(id + 1);
    Comm& c = comms_[id];
    if (c.added) return;
    if (size < 0) fail(fmt::format("rank-array: communicator {} of size {}", id, size));
    c.added = true;
    c.sources.resize(static_cast<std::size_t>(size));
    memory_ += (2 * c.sources.size() + 1) * Queue::kHeaderBytes;
  }

  Id arrive(const Envelope& message, Id id) override {
    Comm& c = comm(message.comm);
    Source& s = source(c, message.source);
    std::uint64_t traversed = 0;
    const Hit hit = earliest_receive(s.prq, c.any_source, message.tag, traversed);
    count_search(c_.prq_searches, c_.prq_traversed, c_.prq_max, traversed);
    if (hit.queue) {
      const Id matched = pool_[hit.node].element.id;
      hit.queue->erase(pool_, hit.node);
      --prq_size_;
      return matched;
    }
    s.umq.push_back(pool_, {message, id, order_++});
    ++c.unexpected;
    c_.umq_length_max = std::max(c_.umq_length_max, ++umq_size_);
    return kNoMatch;
  }

  Id post(const Envelope& receive, Id id) override {
    Comm& c = comm(receive.comm);
    const Hit hit = search_umq(c, receive);
    if (hit.queue) {
      const Id matched = pool_[hit.node].element.id;
      hit.queue->erase(pool_, hit.node);
      --c.unexpected;
      --umq_size_;
      return matched;
    }
    Queue& q = receive.source == kAnySource ? c.any_source : source(c, receive.source).prq;
    q.push_back(pool_, {receive, id, order_++});
    c_.prq_length_max = std::max(c_.prq_length_max, ++prq_size_);
    return kNoMatch;
  }

  Id probe(const Envelope& receive) override {
    const Hit hit = search_umq(comm(receive.comm), receive);
    return hit.queue ? pool_[hit.node].element.id : kNoMatch;
  }

  const Counters& counters() const override {
    c_.memory_overhead_bytes = memory_;
    return c_;
  }

 private:
  struct Source {
    Queue prq, umq;
  };
  struct Comm {
    std::vector<Source> sources;   // by rank in the communicator
    Queue any_source;              // the wildcard PRQ
    std::uint64_t unexpected = 0;  // messages in all of `sources`' UMQs
    bool added = false;
  };

  Comm& comm(std::uint32_t id) {
    if (id >= comms_.size() || !comms_[id].added) [[unlikely]]
      fail(fmt::format("rank-array: event on communicator {}, never added", id));
    return comms_[id];
  }
  static Source& source(Comm& c, std::int32_t rank) {
    if (rank < 0 || static_cast<std::size_t>(rank) >= c.sources.size()) [[unlikely]]
      fail(fmt::format("rank-array: source {} outside a communicator of {} ranks", rank,
                       c.sources.size()));
    return c.sources[static_cast<std::size_t>(rank)];
  }

  // ob1's merge of the source's PRQ and the wildcard PRQ by posting order.
  Hit earliest_receive(Queue& specific, Queue& wildcard, std::int32_t tag,
                       std::uint64_t& traversed) {
    std::uint32_t a = specific.head(), b = wildcard.head();
    while (a != Queue::kNone || b != Queue::kNone) {
      const bool from_specific =
          b == Queue::kNone ||
          (a != Queue::kNone && pool_[a].element.order < pool_[b].element.order);
      std::uint32_t& n = from_specific ? a : b;
      ++traversed;
      if (tag_accepts(pool_[n].element.envelope.tag, tag))
        return {from_specific ? &specific : &wildcard, n};
      n = pool_[n].next;
    }
    return {};
  }

  // The earliest-arrived message `receive` accepts (counted as one UMQ search).
  Hit search_umq(Comm& c, const Envelope& receive) {
    std::uint64_t traversed = 0;
    Hit best;
    const auto accept = [&](const QueueElement& m) {
      return tag_accepts(receive.tag, m.envelope.tag);
    };
    if (receive.source != kAnySource) {
      Queue& q = source(c, receive.source).umq;
      const std::uint32_t n = q.find(pool_, accept, traversed);
      if (n != Queue::kNone) best = {&q, n};
    } else if (c.unexpected != 0) {
      // Each source's UMQ is in arrival order: scan it only up to the best so far.
      std::uint64_t bound = ~std::uint64_t{0};
      for (Source& s : c.sources) {
        for (std::uint32_t n = s.umq.head(); n != Queue::kNone; n = pool_[n].next) {
          const QueueElement& m = pool_[n].element;
          if (m.order >= bound) break;
          ++traversed;
          if (accept(m)) {
            best = {&s.umq, n};
            bound = m.order;
            break;
          }
        }
      }
    }
    count_search(c_.umq_searches, c_.umq_traversed, c_.umq_max, traversed);
    return best;
  }

  ElementPool pool_;
  std::vector<Comm> comms_;  // by communicator id
  std::uint64_t order_ = 0;
  std::uint64_t prq_size_ = 0, umq_size_ = 0;
  std::uint64_t memory_ = 0;
  mutable Counters c_;
};

}  // namespace

std::unique_ptr<Engine> make_rank_array(const EngineOptions&) {
  return std::make_unique<RankArray>();
}

}  // namespace gc::mq
