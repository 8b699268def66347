// partner-vectors: the engine of partner_static.hpp with its non-partner
// queues and any-source PRQ as vector queues (vector_queue.hpp).
#include "mq/engines/engines.hpp"
#include "mq/engines/partner_static.hpp"
#include "mq/engines/vector_queue.hpp"

namespace gc::mq {
namespace {

// partner-vectors' queues: partner queues linked lists, the others vector
// queues of W-slot ordered nodes scanned at SIMD level L.
template <int W, Simd L>
class VectorQueues : public ListQueues {
 public:
  using Other = VectorQueue<W, true>;
  static constexpr std::uint64_t kOtherHeaderBytes = sizeof(Other);

  using ListQueues::erase;
  using ListQueues::find;
  using ListQueues::id;
  using ListQueues::push_back;
  template <class Search>
  Found find(const Other& queue, const Search& search, std::uint64_t bound,
             std::uint64_t& traversed) const {
    return find_earliest<L>(nodes_, queue, search, bound, traversed);
  }
  void push_back(Other& queue, const QueueElement& e) {
    queue.push_back(nodes_, e.envelope, e.id, e.order);
    ++elements_;
  }
  void erase(Other& queue, const Found& f) {
    queue.erase(nodes_, f.node, f.slot);
    --elements_;
  }
  Id id(const Other&, const Found& f) const { return nodes_[f.node].id[f.slot]; }
  std::uint64_t overhead_bytes() const { return nodes_.overhead_bytes(elements_); }

 private:
  VectorPool<W, true> nodes_;
  std::uint64_t elements_ = 0;  // in the vector queues
};

template <int W, Simd L>
using PartnerVectors = PartnerStaticEngine<VectorQueues<W, L>>;

}  // namespace

std::unique_ptr<Engine> make_partner_vectors(const EngineOptions& options) {
  return make_vector_engine<PartnerVectors>(options, "partner-vectors");
}

}  // namespace gc::mq
