// linked-list: one PRQ and one UMQ, each searched from the head (MPICH,
// MVAPICH). The reference every other engine must agree with.
#include "mq/engines/engines.hpp"
#include "mq/engines/queue.hpp"

namespace gc::mq {
namespace {

class LinkedList final : public Engine {
 public:
  void add_communicator(std::uint32_t, int) override {}

  Id arrive(const Envelope& message, Id id) override {
    std::uint64_t traversed = 0;
    const auto n = prq_.find(
        pool_, [&](const QueueElement& r) { return accepts(r.envelope, message); }, traversed);
    count_search(c_.prq_searches, c_.prq_traversed, c_.prq_max, traversed);
    if (n != Queue::kNone) {
      const Id matched = pool_[n].element.id;
      prq_.erase(pool_, n);
      return matched;
    }
    umq_.push_back(pool_, {message, id, order_++});
    c_.umq_length_max = std::max(c_.umq_length_max, umq_.size());
    return kNoMatch;
  }

  Id post(const Envelope& receive, Id id) override {
    std::uint64_t traversed = 0;
    const auto n = umq_.find(
        pool_, [&](const QueueElement& m) { return accepts(receive, m.envelope); }, traversed);
    count_search(c_.umq_searches, c_.umq_traversed, c_.umq_max, traversed);
    if (n != Queue::kNone) {
      const Id matched = pool_[n].element.id;
      umq_.erase(pool_, n);
      return matched;
    }
    prq_.push_back(pool_, {receive, id, order_++});
    c_.prq_length_max = std::max(c_.prq_length_max, prq_.size());
    return kNoMatch;
  }

  Id probe(const Envelope& receive) override {
    std::uint64_t traversed = 0;
    const auto n = umq_.find(
        pool_, [&](const QueueElement& m) { return accepts(receive, m.envelope); }, traversed);
    count_search(c_.umq_searches, c_.umq_traversed, c_.umq_max, traversed);
    return n == Queue::kNone ? kNoMatch : pool_[n].element.id;
  }

  const Counters& counters() const override {
    c_.memory_overhead_bytes = 2 * Queue::kHeaderBytes;
    return c_;
  }

 private:
  ElementPool pool_;
  Queue prq_, umq_;
  std::uint64_t order_ = 0;
  mutable Counters c_;
};

}  // namespace

std::unique_ptr<Engine> make_linked_list(const EngineOptions&) {
  return std::make_unique<LinkedList>();
}

}  // namespace gc::mq
