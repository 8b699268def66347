// vectors: queues as linked lists of vectors, compared with SIMD — Dosanjh,
// Schonbein, Grant, Bridges et al., "Fuzzy matching: hardware accelerated
// MPI communication middleware" (CCGrid 2019) and "Tail queues: a
// multi-threaded matching architecture" (CCPE), as Open MPI ob1's optional
// custom matching ships it
// (ompi/mca/pml/ob1/custommatch/pml_ob1_custom_match_vectors.h).
//
// One PRQ and one UMQ, each a doubly linked list of nodes of W slots
// (options.vector_width, 16 or 8) in structure-of-arrays form: comm, source
// and tag as 32-bit lanes, plus a source mask and a tag mask (0 for
// MPI_ANY_SOURCE / MPI_ANY_TAG, all ones otherwise). A slot matches when
//   comm == c  and  (source ^ s) & source_mask == 0  and  (tag ^ t) & tag_mask == 0,
// one masked compare per node for both directions: an arrival searches the
// PRQ with the receives' own masks, a post searches the UMQ with its own
// masks broadcast. AVX-512 (16 lanes in one zmm, 8 in one ymm), AVX2 or
// scalar, picked at run time (vectors_simd_level) and compiled with
// function-level target attributes.
//
// Removal clears the slot's valid bit (a hole); a node that empties is
// freed, neighbours that fit in one node are merged, and a full tail with
// holes is compacted before a new node is taken. Slots keep their order, and
// so does the list. "Traversed" counts the occupied slots of every node
// scanned.
#include <immintrin.h>

#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include "core/error.hpp"
#include "mq/engines.hpp"
#include "mq/queue.hpp"

namespace gc::mq {
namespace {

constexpr std::uint32_t kNone = ~std::uint32_t{0};

template <int W>
struct alignas(64) Node {
  std::int32_t comm[W];
  std::int32_t source[W];
  std::int32_t tag[W];
  std::int32_t source_mask[W];  // PRQ: 0 for MPI_ANY_SOURCE; unused in the UMQ
  std::int32_t tag_mask[W];     // PRQ: 0 for MPI_ANY_TAG
  Id id[W];
  std::uint32_t valid;  // bit i: slot i holds an element
  std::uint32_t used;   // slots [0, used) have been filled; the next goes to `used`
  std::uint32_t count;  // occupied slots
  std::uint32_t prev, next;
};

// What a scan compares against: a message (PRQ scan, masks from the slots)
// or a receive (UMQ scan, its masks broadcast).
struct Key {
  std::int32_t comm, source, tag, source_mask, tag_mask;
};

struct Found {
  std::uint32_t node = kNone, slot = 0;
};

// ---- scalar ---------------------------------------------------------------

template <int W, bool kLaneMasks>
Found scan_scalar(const Node<W>* nodes, std::uint32_t head, const Key& k,
                  std::uint64_t& traversed) {
  std::uint64_t seen = 0;  // a local: `traversed` may alias the nodes
  for (std::uint32_t n = head; n != kNone; n = nodes[n].next) {
    const Node<W>& node = nodes[n];
    seen += node.count;
    for (std::uint32_t i = 0; i < node.used; ++i) {
      const std::int32_t sm = kLaneMasks ? node.source_mask[i] : k.source_mask;
      const std::int32_t tm = kLaneMasks ? node.tag_mask[i] : k.tag_mask;
      if ((node.valid >> i & 1) && node.comm[i] == k.comm &&
          ((node.source[i] ^ k.source) & sm) == 0 && ((node.tag[i] ^ k.tag) & tm) == 0) {
        traversed += seen;
        return {n, i};
      }
    }
  }
  traversed += seen;
  return {};
}

// ---- AVX2 -----------------------------------------------------------------

[[gnu::target("avx2"), gnu::always_inline]] inline __m256i load8(const std::int32_t* p) {
  return _mm256_load_si256(reinterpret_cast<const __m256i*>(p));
}

// Lanes [8 * half, 8 * half + 8) of a node: zero where the slot matches.
template <int W, bool kLaneMasks>
[[gnu::target("avx2"), gnu::always_inline]] inline __m256i difference8(const Node<W>& node,
                                                                       int half, const Key& k) {
  const int o = 8 * half;
  const __m256i sm = kLaneMasks ? load8(node.source_mask + o) : _mm256_set1_epi32(k.source_mask);
  const __m256i tm = kLaneMasks ? load8(node.tag_mask + o) : _mm256_set1_epi32(k.tag_mask);
  __m256i d =
      _mm256_and_si256(_mm256_xor_si256(load8(node.source + o), _mm256_set1_epi32(k.source)), sm);
  d = _mm256_or_si256(
      d, _mm256_and_si256(_mm256_xor_si256(load8(node.tag + o), _mm256_set1_epi32(k.tag)), tm));
  return _mm256_or_si256(d, _mm256_xor_si256(load8(node.comm + o), _mm256_set1_epi32(k.comm)));
}

// Bit i set where slot 8 * half + i matches.
template <int W, bool kLaneMasks>
[[gnu::target("avx2"), gnu::always_inline]] inline std::uint32_t match8_avx2(const Node<W>& node,
                                                                             int half,
                                                                             const Key& k) {
  const __m256i eq =
      _mm256_cmpeq_epi32(difference8<W, kLaneMasks>(node, half, k), _mm256_setzero_si256());
  return static_cast<std::uint32_t>(_mm256_movemask_ps(_mm256_castsi256_ps(eq)));
}

template <int W, bool kLaneMasks>
[[gnu::target("avx2")]] Found scan_avx2(const Node<W>* nodes, std::uint32_t head, const Key& k,
                                        std::uint64_t& traversed) {
  std::uint64_t seen = 0;  // a local: `traversed` may alias the nodes
  for (std::uint32_t n = head; n != kNone; n = nodes[n].next) {
    const Node<W>& node = nodes[n];
    seen += node.count;
    std::uint32_t hit = match8_avx2<W, kLaneMasks>(node, 0, k);
    if constexpr (W == 16) hit |= match8_avx2<W, kLaneMasks>(node, 1, k) << 8;
    hit &= node.valid;
    if (hit) {
      traversed += seen;
      return {n, static_cast<std::uint32_t>(__builtin_ctz(hit))};
    }
  }
  traversed += seen;
  return {};
}

// ---- AVX-512 --------------------------------------------------------------

// All lanes of a node, 16 in one zmm or 8 in one ymm (AVX-512VL): bit i set
// where slot i matches.
template <bool kLaneMasks>
[[gnu::target("avx512f,avx512bw,avx512vl"), gnu::always_inline]] inline std::uint32_t match_avx512(
    const Node<16>& node, const Key& k) {
  const __m512i sm =
      kLaneMasks ? _mm512_load_si512(node.source_mask) : _mm512_set1_epi32(k.source_mask);
  const __m512i tm = kLaneMasks ? _mm512_load_si512(node.tag_mask) : _mm512_set1_epi32(k.tag_mask);
  __m512i d = _mm512_and_si512(
      _mm512_xor_si512(_mm512_load_si512(node.source), _mm512_set1_epi32(k.source)), sm);
  d = _mm512_or_si512(
      d, _mm512_and_si512(_mm512_xor_si512(_mm512_load_si512(node.tag), _mm512_set1_epi32(k.tag)),
                          tm));
  d = _mm512_or_si512(d, _mm512_xor_si512(_mm512_load_si512(node.comm), _mm512_set1_epi32(k.comm)));
  return _mm512_testn_epi32_mask(d, d);
}

template <bool kLaneMasks>
[[gnu::target("avx512f,avx512bw,avx512vl"), gnu::always_inline]] inline std::uint32_t match_avx512(
    const Node<8>& node, const Key& k) {
  const __m256i d = difference8<8, kLaneMasks>(node, 0, k);
  return _mm256_testn_epi32_mask(d, d);
}

template <int W, bool kLaneMasks>
[[gnu::target("avx512f,avx512bw,avx512vl")]] Found scan_avx512(const Node<W>* nodes,
                                                               std::uint32_t head, const Key& k,
                                                               std::uint64_t& traversed) {
  std::uint64_t seen = 0;  // a local: `traversed` may alias the nodes
  for (std::uint32_t n = head; n != kNone; n = nodes[n].next) {
    const Node<W>& node = nodes[n];
    seen += node.count;
    const std::uint32_t hit = node.valid & match_avx512<kLaneMasks>(node, k);
    if (hit) {
      traversed += seen;
      return {n, static_cast<std::uint32_t>(__builtin_ctz(hit))};
    }
  }
  traversed += seen;
  return {};
}

enum class Simd { scalar, avx2, avx512 };

bool cpu_has(Simd level) {
  __builtin_cpu_init();
  switch (level) {
    case Simd::avx512:
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
             __builtin_cpu_supports("avx512vl");
    case Simd::avx2:
      return __builtin_cpu_supports("avx2");
    case Simd::scalar:
      return true;
  }
  return false;
}

constexpr std::pair<const char*, Simd> kLevels[] = {
    {"avx512", Simd::avx512}, {"avx2", Simd::avx2}, {"scalar", Simd::scalar}};  // best first

Simd simd_of(const EngineOptions& options) {
  for (const auto& [name, level] : kLevels)
    if (options.simd == "auto" ? cpu_has(level) : options.simd == name) {
      if (!cpu_has(level))
        fail(fmt::format("vectors: this CPU lacks {} (simd: auto picks the best it has)", name));
      return level;
    }
  fail(fmt::format("vectors: unknown simd level '{}' (one of: auto, avx512, avx2, scalar)",
                   options.simd));
}

const char* name_of(Simd level) {
  for (const auto& [name, l] : kLevels)
    if (l == level) return name;
  return "?";
}

// The nodes both queues of an engine take from.
template <int W>
class NodePool {
 public:
  std::uint32_t take() {
    std::uint32_t n = free_;
    if (n != kNone) {
      free_ = nodes_[n].next;
    } else {
      n = static_cast<std::uint32_t>(nodes_.size());
      nodes_.emplace_back();
    }
    Node<W>& node = nodes_[n];
    node.valid = node.used = node.count = 0;
    node.prev = node.next = kNone;
    ++in_use_;
    return n;
  }
  void give(std::uint32_t n) {
    nodes_[n].next = free_;
    free_ = n;
    --in_use_;
  }
  Node<W>& operator[](std::uint32_t n) { return nodes_[n]; }
  const Node<W>* data() const { return nodes_.data(); }
  std::uint64_t in_use() const { return in_use_; }

 private:
  std::vector<Node<W>> nodes_;
  std::uint32_t free_ = kNone;
  std::uint64_t in_use_ = 0;
};

template <int W>
class VectorQueue {
 public:
  std::uint32_t head() const { return head_; }
  std::uint64_t size() const { return size_; }

  void push_back(NodePool<W>& pool, const Envelope& e, Id id) {
    if (tail_ == kNone || pool[tail_].used == W) {
      if (tail_ != kNone && pool[tail_].count < W)
        compact(pool[tail_]);
      else
        link_back(pool, pool.take());
    }
    Node<W>& node = pool[tail_];
    const std::uint32_t i = node.used++;
    node.comm[i] = static_cast<std::int32_t>(e.comm);
    node.source[i] = e.source;
    node.tag[i] = e.tag;
    node.source_mask[i] = e.source == kAnySource ? 0 : ~0;
    node.tag_mask[i] = e.tag == kAnyTag ? 0 : ~0;
    node.id[i] = id;
    node.valid |= 1u << i;
    ++node.count;
    ++size_;
  }

  void erase(NodePool<W>& pool, std::uint32_t n, std::uint32_t slot) {
    Node<W>& node = pool[n];
    node.valid &= ~(1u << slot);
    --node.count;
    --size_;
    if (node.count == 0) {
      unlink(pool, n);
      pool.give(n);
      return;
    }
    while (!(node.valid >> (node.used - 1) & 1)) --node.used;  // count > 0: stops
    if (node.prev != kNone && pool[node.prev].count + node.count <= W)
      merge(pool, node.prev, n);
    else if (node.next != kNone && node.count + pool[node.next].count <= W)
      merge(pool, n, node.next);
  }

 private:
  static void move_slot(Node<W>& to, std::uint32_t i, const Node<W>& from, std::uint32_t j) {
    to.comm[i] = from.comm[j];
    to.source[i] = from.source[j];
    to.tag[i] = from.tag[j];
    to.source_mask[i] = from.source_mask[j];
    to.tag_mask[i] = from.tag_mask[j];
    to.id[i] = from.id[j];
  }
  // Packs the node's elements into slots [0, count), in order.
  static void compact(Node<W>& node) {
    std::uint32_t i = 0;
    for (std::uint32_t j = 0; j < node.used; ++j)
      if (node.valid >> j & 1) move_slot(node, i++, node, j);
    node.used = node.count;
    node.valid = (1u << node.count) - 1;  // count <= 16
  }
  // Appends b's elements to a (b follows a in the list) and frees b.
  void merge(NodePool<W>& pool, std::uint32_t a, std::uint32_t b) {
    Node<W>& to = pool[a];
    const Node<W>& from = pool[b];
    compact(to);
    for (std::uint32_t j = 0; j < from.used; ++j)
      if (from.valid >> j & 1) move_slot(to, to.used++, from, j);
    to.count = to.used;
    to.valid = (1u << to.count) - 1;
    unlink(pool, b);
    pool.give(b);
  }
  void link_back(NodePool<W>& pool, std::uint32_t n) {
    pool[n].prev = tail_;
    if (tail_ != kNone)
      pool[tail_].next = n;
    else
      head_ = n;
    tail_ = n;
  }
  void unlink(NodePool<W>& pool, std::uint32_t n) {
    const std::uint32_t prev = pool[n].prev, next = pool[n].next;
    if (prev != kNone)
      pool[prev].next = next;
    else
      head_ = next;
    if (next != kNone)
      pool[next].prev = prev;
    else
      tail_ = prev;
  }

  std::uint32_t head_ = kNone, tail_ = kNone;
  std::uint64_t size_ = 0;
};

template <int W, Simd L>
class Vectors final : public Engine {
 public:
  void add_communicator(std::uint32_t, int) override {}

  Id arrive(const Envelope& message, Id id) override {
    const Key k{static_cast<std::int32_t>(message.comm), message.source, message.tag, ~0, ~0};
    std::uint64_t traversed = 0;
    const Found f = scan<true>(prq_.head(), k, traversed);
    count_search(c_.prq_searches, c_.prq_traversed, c_.prq_max, traversed);
    if (f.node != kNone) {
      const Id matched = pool_[f.node].id[f.slot];
      prq_.erase(pool_, f.node, f.slot);
      note_memory();
      return matched;
    }
    umq_.push_back(pool_, message, id);
    c_.umq_length_max = std::max(c_.umq_length_max, umq_.size());
    note_memory();
    return kNoMatch;
  }

  Id post(const Envelope& receive, Id id) override {
    const Found f = search_umq(receive);
    if (f.node != kNone) {
      const Id matched = pool_[f.node].id[f.slot];
      umq_.erase(pool_, f.node, f.slot);
      note_memory();
      return matched;
    }
    prq_.push_back(pool_, receive, id);
    c_.prq_length_max = std::max(c_.prq_length_max, prq_.size());
    note_memory();
    return kNoMatch;
  }

  Id probe(const Envelope& receive) override {
    const Found f = search_umq(receive);
    return f.node != kNone ? pool_[f.node].id[f.slot] : kNoMatch;
  }

  const Counters& counters() const override {
    c_.memory_overhead_bytes = memory_peak_;
    return c_;
  }

 private:
  template <bool kLaneMasks>
  Found scan(std::uint32_t head, const Key& k, std::uint64_t& traversed) const {
    if constexpr (L == Simd::avx512)
      return scan_avx512<W, kLaneMasks>(pool_.data(), head, k, traversed);
    else if constexpr (L == Simd::avx2)
      return scan_avx2<W, kLaneMasks>(pool_.data(), head, k, traversed);
    else
      return scan_scalar<W, kLaneMasks>(pool_.data(), head, k, traversed);
  }

  Found search_umq(const Envelope& receive) {
    const bool any_source = receive.source == kAnySource, any_tag = receive.tag == kAnyTag;
    const Key k{static_cast<std::int32_t>(receive.comm), any_source ? 0 : receive.source,
                any_tag ? 0 : receive.tag, any_source ? 0 : ~0, any_tag ? 0 : ~0};
    std::uint64_t traversed = 0;
    const Found f = scan<false>(umq_.head(), k, traversed);
    count_search(c_.umq_searches, c_.umq_traversed, c_.umq_max, traversed);
    return f;
  }

  // Overhead: node bytes not holding an element (headers, holes, free tail
  // slots) plus the two list headers.
  void note_memory() {
    constexpr std::uint64_t kSlotBytes = 5 * sizeof(std::int32_t) + sizeof(Id);
    const std::uint64_t bytes = pool_.in_use() * sizeof(Node<W>) -
                                (prq_.size() + umq_.size()) * kSlotBytes +
                                2 * sizeof(VectorQueue<W>);
    memory_peak_ = std::max(memory_peak_, bytes);
  }

  NodePool<W> pool_;
  VectorQueue<W> prq_, umq_;
  std::uint64_t memory_peak_ = 0;
  mutable Counters c_;
};

template <int W>
std::unique_ptr<Engine> make_width(Simd level) {
  switch (level) {
    case Simd::avx512:
      return std::make_unique<Vectors<W, Simd::avx512>>();
    case Simd::avx2:
      return std::make_unique<Vectors<W, Simd::avx2>>();
    case Simd::scalar:
      break;
  }
  return std::make_unique<Vectors<W, Simd::scalar>>();
}

}  // namespace

std::string vectors_simd_level(const EngineOptions& options) {
  return name_of(simd_of(options));
}

std::unique_ptr<Engine> make_vectors(const EngineOptions& options) {
  const Simd level = simd_of(options);
  if (options.vector_width == 16) return make_width<16>(level);
  if (options.vector_width == 8) return make_width<8>(level);
  fail(fmt::format("vectors: vector_width must be 16 or 8, not {}", options.vector_width));
}

}  // namespace gc::mq
