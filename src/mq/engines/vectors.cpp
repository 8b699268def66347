// vectors: ob1's optional vector matching (vector_queue.hpp: the nodes, the
// SIMD scans and their references). One PRQ and one UMQ, each a vector queue
// of options.vector_width (16 or 8) slots per node, at the SIMD level
// options.simd asks for.
#include <algorithm>

#include <fmt/format.h>

#include "core/error.hpp"
#include "mq/engines/engines.hpp"
#include "mq/engines/queue.hpp"
#include "mq/engines/vector_queue.hpp"

namespace gc::mq {
namespace {

template <int W, Simd L>
class Vectors final : public Engine {
 public:
  explicit Vectors(const EngineOptions&) {}

  void add_communicator(std::uint32_t, int) override {}

  Id arrive(const Envelope& message, Id id) override {
    std::uint64_t traversed = 0;
    const VectorSlot f =
        prq_.template find<L, true>(pool_, VectorKey::of_message(message), traversed);
    count_search(c_.prq_searches, c_.prq_traversed, c_.prq_max, traversed);
    return take_or_append(prq_, f, umq_, message, id, c_.umq_length_max);
  }

  Id post(const Envelope& receive, Id id) override {
    return take_or_append(umq_, search_umq(receive), prq_, receive, id, c_.prq_length_max);
  }

  Id probe(const Envelope& receive) override {
    const VectorSlot f = search_umq(receive);
    return f ? pool_[f.node].id[f.slot] : kNoMatch;
  }

  const Counters& counters() const override {
    c_.memory_overhead_bytes = memory_peak_;
    return c_;
  }

 private:
  // The element `found` in `searched` taken out; else `e` appended to
  // `appended` (its length maximum kept).
  Id take_or_append(VectorQueue<W>& searched, VectorSlot found, VectorQueue<W>& appended,
                    const Envelope& e, Id id, std::uint64_t& appended_length_max) {
    Id matched = kNoMatch;
    if (found) {
      matched = pool_[found.node].id[found.slot];
      searched.erase(pool_, found.node, found.slot);
    } else {
      appended.push_back(pool_, e, id);
      appended_length_max = std::max(appended_length_max, appended.size());
    }
    note_memory();
    return matched;
  }

  VectorSlot search_umq(const Envelope& receive) {
    std::uint64_t traversed = 0;
    const VectorSlot f =
        umq_.template find<L, false>(pool_, VectorKey::of_receive(receive), traversed);
    count_search(c_.umq_searches, c_.umq_traversed, c_.umq_max, traversed);
    return f;
  }

  // Overhead: node bytes not holding an element plus the two list headers.
  void note_memory() {
    const std::uint64_t bytes =
        pool_.overhead_bytes(prq_.size() + umq_.size()) + 2 * sizeof(VectorQueue<W>);
    memory_peak_ = std::max(memory_peak_, bytes);
  }

  VectorPool<W> pool_;
  VectorQueue<W> prq_, umq_;
  std::uint64_t memory_peak_ = 0;
  mutable Counters c_;
};

}  // namespace

std::string vectors_simd_level(const EngineOptions& options) {
  return simd_name(simd_level(options, "vectors"));
}

std::unique_ptr<Engine> make_vectors(const EngineOptions& options) {
  return make_vector_engine<Vectors>(options, "vectors");
}

}  // namespace gc::mq
