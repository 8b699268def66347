// Vector queues: a queue as a doubly linked list of nodes of W slots,
// compared with SIMD — Dosanjh, Schonbein, Grant, Bridges et al., "Fuzzy
// matching: hardware accelerated MPI communication middleware" (CCGrid 2019)
// and "Tail queues: a multi-threaded matching architecture" (CCPE), as Open
// MPI ob1's optional custom matching ships it
// (ompi/mca/pml/ob1/custommatch/pml_ob1_custom_match_vectors.h). The queues
// of `vectors` (vectors.cpp) and the non-partner queues of `partner-vectors`
// (partner_vectors.cpp).
//
// A node holds W slots (16 or 8) in structure-of-arrays form: comm, source
// and tag as 32-bit lanes, plus a source mask and a tag mask (0 for
// MPI_ANY_SOURCE / MPI_ANY_TAG, all ones otherwise). A slot matches when
//   comm == c  and  (source ^ s) & source_mask == 0  and  (tag ^ t) & tag_mask == 0,
// one masked compare per node for both directions: an arrival searches a PRQ
// with the receives' own masks (kLaneMasks), a post searches a UMQ with its
// own masks broadcast. AVX-512 (16 lanes in one zmm, 8 in one ymm), AVX2 or
// scalar, picked at run time (simd_level) and compiled with function-level
// target attributes.
//
// Removal clears the slot's valid bit (a hole); a node that empties is
// freed, neighbours that fit in one node are merged, and a full tail with
// holes is compacted before a new node is taken. Slots keep their order, and
// so does the list. "Traversed" counts the occupied slots of every node
// scanned.
//
// Ordered nodes (kOrdered) also keep each slot's engine-wide posting/arrival
// sequence number, for engines that split one MPI queue into several and
// must take the earliest candidate over them (partner_search.hpp). Orders
// grow along the list and, within a node, with the slot, so a scan bounded
// by an order stops at the first node whose first element is not earlier,
// and a hit that is not earlier than the bound is no hit: nothing after it
// in the queue is earlier either.
#pragma once

#include <immintrin.h>

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "mq/engines/engine.hpp"
#include "mq/engines/index_links.hpp"

namespace gc::mq {

enum class Simd { scalar, avx2, avx512 };

// The level options.simd asks for ("auto": the best the CPU has). Throws
// gc::Error, naming `engine`, for a level the CPU lacks or an unknown one.
Simd simd_level(const EngineOptions& options, std::string_view engine);
const char* simd_name(Simd level);
// Throws gc::Error: options.vector_width is neither 16 nor 8.
[[noreturn]] void fail_vector_width(const EngineOptions& options, std::string_view engine);

// No bound: every order is below it.
constexpr std::uint64_t kNoBound = ~std::uint64_t{0};

template <int W, bool kOrdered>
struct VectorOrders {};  // unordered nodes: none
template <int W>
struct VectorOrders<W, true> {
  std::uint64_t of[W];  // of[i]: slot i's posting/arrival sequence number
};

template <int W, bool kOrdered = false>
struct alignas(64) VectorNode {
  static constexpr std::uint32_t kNone = kNoNode;
  std::int32_t comm[W];
  std::int32_t source[W];
  std::int32_t tag[W];
  std::int32_t source_mask[W];  // PRQ: 0 for MPI_ANY_SOURCE; unused in the UMQ
  std::int32_t tag_mask[W];     // PRQ: 0 for MPI_ANY_TAG
  Id id[W];
  [[no_unique_address]] VectorOrders<W, kOrdered> order;
  std::uint32_t valid;  // bit i: slot i holds an element
  std::uint32_t used;   // slots [0, used) have been filled; the next goes to `used`
  std::uint32_t count;  // occupied slots
  std::uint32_t prev, next;
};

// What a scan compares against: a message (PRQ scan, masks from the slots)
// or a receive (UMQ scan, its masks broadcast).
struct VectorKey {
  std::int32_t comm, source, tag, source_mask, tag_mask;
  static VectorKey of_message(const Envelope& m) {
    return {static_cast<std::int32_t>(m.comm), m.source, m.tag, ~0, ~0};
  }
  static VectorKey of_receive(const Envelope& r) {
    const bool any_source = r.source == kAnySource, any_tag = r.tag == kAnyTag;
    return {static_cast<std::int32_t>(r.comm), any_source ? 0 : r.source, any_tag ? 0 : r.tag,
            any_source ? 0 : ~0, any_tag ? 0 : ~0};
  }
};

// A slot found by a scan; node kNone: none.
struct VectorSlot {
  std::uint32_t node = ~std::uint32_t{0}, slot = 0;
  explicit operator bool() const { return node != ~std::uint32_t{0}; }
};

// ---- per-node compares: bit i set where slot i matches (valid or not) ------

struct ScalarCompare {
  template <bool kLaneMasks, int W, bool O>
  static std::uint32_t hits(const VectorNode<W, O>& node, const VectorKey& k) {
    std::uint32_t hit = 0;
    for (std::uint32_t i = 0; i < node.used; ++i) {
      const std::int32_t sm = kLaneMasks ? node.source_mask[i] : k.source_mask;
      const std::int32_t tm = kLaneMasks ? node.tag_mask[i] : k.tag_mask;
      hit |= std::uint32_t{node.comm[i] == k.comm && ((node.source[i] ^ k.source) & sm) == 0 &&
                           ((node.tag[i] ^ k.tag) & tm) == 0}
             << i;
    }
    return hit;
  }
};

[[gnu::target("avx2"), gnu::always_inline]] inline __m256i load8(const std::int32_t* p) {
  return _mm256_load_si256(reinterpret_cast<const __m256i*>(p));
}

// Lanes [8 * half, 8 * half + 8) of a node: zero where the slot matches.
template <bool kLaneMasks, int W, bool O>
[[gnu::target("avx2"), gnu::always_inline]] inline __m256i difference8(const VectorNode<W, O>& node,
                                                                       int half,
                                                                       const VectorKey& k) {
  const int o = 8 * half;
  const __m256i sm = kLaneMasks ? load8(node.source_mask + o) : _mm256_set1_epi32(k.source_mask);
  const __m256i tm = kLaneMasks ? load8(node.tag_mask + o) : _mm256_set1_epi32(k.tag_mask);
  __m256i d =
      _mm256_and_si256(_mm256_xor_si256(load8(node.source + o), _mm256_set1_epi32(k.source)), sm);
  d = _mm256_or_si256(
      d, _mm256_and_si256(_mm256_xor_si256(load8(node.tag + o), _mm256_set1_epi32(k.tag)), tm));
  return _mm256_or_si256(d, _mm256_xor_si256(load8(node.comm + o), _mm256_set1_epi32(k.comm)));
}

template <bool kLaneMasks, int W, bool O>
[[gnu::target("avx2"), gnu::always_inline]] inline std::uint32_t match8_avx2(
    const VectorNode<W, O>& node, int half, const VectorKey& k) {
  const __m256i eq =
      _mm256_cmpeq_epi32(difference8<kLaneMasks>(node, half, k), _mm256_setzero_si256());
  return static_cast<std::uint32_t>(_mm256_movemask_ps(_mm256_castsi256_ps(eq)));
}

struct Avx2Compare {
  template <bool kLaneMasks, int W, bool O>
  [[gnu::target("avx2")]] static std::uint32_t hits(const VectorNode<W, O>& node,
                                                    const VectorKey& k) {
    std::uint32_t hit = match8_avx2<kLaneMasks>(node, 0, k);
    if constexpr (W == 16) hit |= match8_avx2<kLaneMasks>(node, 1, k) << 8;
    return hit;
  }
};

// All lanes of a node, 16 in one zmm or 8 in one ymm (AVX-512VL).
struct Avx512Compare {
  template <bool kLaneMasks, int W, bool O>
  [[gnu::target("avx512f,avx512bw,avx512vl")]] static std::uint32_t hits(
      const VectorNode<W, O>& node, const VectorKey& k) {
    if constexpr (W == 8) {
      const __m256i d = difference8<kLaneMasks>(node, 0, k);
      return _mm256_testn_epi32_mask(d, d);
    } else {
      const __m512i sm =
          kLaneMasks ? _mm512_load_si512(node.source_mask) : _mm512_set1_epi32(k.source_mask);
      const __m512i tm =
          kLaneMasks ? _mm512_load_si512(node.tag_mask) : _mm512_set1_epi32(k.tag_mask);
      __m512i d = _mm512_and_si512(
          _mm512_xor_si512(_mm512_load_si512(node.source), _mm512_set1_epi32(k.source)), sm);
      d = _mm512_or_si512(
          d, _mm512_and_si512(
                 _mm512_xor_si512(_mm512_load_si512(node.tag), _mm512_set1_epi32(k.tag)), tm));
      d = _mm512_or_si512(
          d, _mm512_xor_si512(_mm512_load_si512(node.comm), _mm512_set1_epi32(k.comm)));
      return _mm512_testn_epi32_mask(d, d);
    }
  }
};

// ---- scans ------------------------------------------------------------------

// The first valid matching slot from node `head` on; with kBounded, among
// the slots whose order is below `bound` only. Written once for every SIMD
// level: the per-level entry points below inline it, and Compare::hits with
// it, under their own target attribute (gnu::flatten: a target function
// cannot be inlined into this one directly).
template <class Compare, bool kLaneMasks, bool kBounded, int W, bool O>
inline VectorSlot scan_nodes(const VectorNode<W, O>* nodes, std::uint32_t head, const VectorKey& k,
                             std::uint64_t bound, std::uint64_t& traversed) {
  static_assert(O || !kBounded, "a bounded scan needs ordered nodes");
  std::uint64_t seen = 0;  // a local: `traversed` may alias the nodes
  for (std::uint32_t n = head; n != VectorNode<W, O>::kNone; n = nodes[n].next) {
    const VectorNode<W, O>& node = nodes[n];
    if constexpr (kBounded)
      if (node.order.of[__builtin_ctz(node.valid)] >= bound) break;  // linked nodes are not empty
    seen += node.count;
    const std::uint32_t hit = node.valid & Compare::template hits<kLaneMasks>(node, k);
    if (hit) {
      const auto slot = static_cast<std::uint32_t>(__builtin_ctz(hit));
      if constexpr (kBounded)
        if (node.order.of[slot] >= bound) break;
      traversed += seen;
      return {n, slot};
    }
  }
  traversed += seen;
  return {};
}

template <bool kLaneMasks, bool kBounded, int W, bool O>
[[gnu::flatten]] VectorSlot scan_scalar(const VectorNode<W, O>* nodes, std::uint32_t head,
                                        const VectorKey& k, std::uint64_t bound,
                                        std::uint64_t& traversed) {
  return scan_nodes<ScalarCompare, kLaneMasks, kBounded>(nodes, head, k, bound, traversed);
}

template <bool kLaneMasks, bool kBounded, int W, bool O>
[[gnu::target("avx2"), gnu::flatten]] VectorSlot scan_avx2(const VectorNode<W, O>* nodes,
                                                           std::uint32_t head, const VectorKey& k,
                                                           std::uint64_t bound,
                                                           std::uint64_t& traversed) {
  return scan_nodes<Avx2Compare, kLaneMasks, kBounded>(nodes, head, k, bound, traversed);
}

template <bool kLaneMasks, bool kBounded, int W, bool O>
[[gnu::target("avx512f,avx512bw,avx512vl"), gnu::flatten]] VectorSlot scan_avx512(
    const VectorNode<W, O>* nodes, std::uint32_t head, const VectorKey& k, std::uint64_t bound,
    std::uint64_t& traversed) {
  return scan_nodes<Avx512Compare, kLaneMasks, kBounded>(nodes, head, k, bound, traversed);
}

template <Simd L, bool kLaneMasks, bool kBounded, int W, bool O>
VectorSlot scan_vector(const VectorNode<W, O>* nodes, std::uint32_t head, const VectorKey& k,
                       std::uint64_t bound, std::uint64_t& traversed) {
  if constexpr (L == Simd::avx512)
    return scan_avx512<kLaneMasks, kBounded>(nodes, head, k, bound, traversed);
  else if constexpr (L == Simd::avx2)
    return scan_avx2<kLaneMasks, kBounded>(nodes, head, k, bound, traversed);
  else
    return scan_scalar<kLaneMasks, kBounded>(nodes, head, k, bound, traversed);
}

// ---- nodes and queues -------------------------------------------------------

// The nodes the queues of an engine take from.
template <int W, bool kOrdered = false>
class VectorPool {
 public:
  using Node = VectorNode<W, kOrdered>;
  static constexpr std::uint32_t kNone = Node::kNone;
  // Bytes of one element in a slot; the rest of a node is overhead.
  static constexpr std::uint64_t kSlotBytes =
      5 * sizeof(std::int32_t) + sizeof(Id) + (kOrdered ? sizeof(std::uint64_t) : 0);

  std::uint32_t take() {
    std::uint32_t n = free_;
    if (n != kNone) {
      free_ = nodes_[n].next;
    } else {
      n = static_cast<std::uint32_t>(nodes_.size());
      nodes_.emplace_back();
    }
    Node& node = nodes_[n];
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
  Node& operator[](std::uint32_t n) { return nodes_[n]; }
  const Node& operator[](std::uint32_t n) const { return nodes_[n]; }
  const Node* data() const { return nodes_.data(); }
  std::uint64_t in_use() const { return in_use_; }
  // Node bytes not holding an element (headers, holes, free tail slots),
  // with `elements` elements in the pool's nodes.
  std::uint64_t overhead_bytes(std::uint64_t elements) const {
    return in_use_ * sizeof(Node) - elements * kSlotBytes;
  }

 private:
  std::vector<Node> nodes_;
  std::uint32_t free_ = kNone;
  std::uint64_t in_use_ = 0;
};

template <int W, bool kOrdered = false>
class VectorQueue {
 public:
  static_assert(W == 8 || W == 16, "a node has 8 or 16 slots");
  using Pool = VectorPool<W, kOrdered>;
  using Node = VectorNode<W, kOrdered>;
  static constexpr std::uint32_t kNone = Node::kNone;

  std::uint32_t head() const { return head_; }
  std::uint64_t size() const { return size_; }
  bool empty() const { return head_ == kNone; }

  // `order`: the element's sequence number (ordered nodes; ignored otherwise).
  void push_back(Pool& pool, const Envelope& e, Id id, std::uint64_t order = 0) {
    if (tail_ == kNone || pool[tail_].used == W) {
      if (tail_ != kNone && pool[tail_].count < W)
        compact(pool[tail_]);
      else
        link_back(pool, pool.take());
    }
    Node& node = pool[tail_];
    const std::uint32_t i = node.used++;
    node.comm[i] = static_cast<std::int32_t>(e.comm);
    node.source[i] = e.source;
    node.tag[i] = e.tag;
    node.source_mask[i] = e.source == kAnySource ? 0 : ~0;
    node.tag_mask[i] = e.tag == kAnyTag ? 0 : ~0;
    node.id[i] = id;
    if constexpr (kOrdered) node.order.of[i] = order;
    node.valid |= 1u << i;
    ++node.count;
    ++size_;
  }

  void erase(Pool& pool, std::uint32_t n, std::uint32_t slot) {
    Node& node = pool[n];
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

  // The first element the key matches (kLaneMasks: with the slots' masks,
  // a PRQ; else with the key's, a UMQ), counting the occupied slots of the
  // nodes compared into `traversed`.
  template <Simd L, bool kLaneMasks>
  VectorSlot find(const Pool& pool, const VectorKey& k, std::uint64_t& traversed) const {
    return scan_vector<L, kLaneMasks, false>(pool.data(), head_, k, 0, traversed);
  }
  // The same among the elements with order below `bound` (ordered nodes).
  template <Simd L, bool kLaneMasks>
  VectorSlot find_before(const Pool& pool, const VectorKey& k, std::uint64_t bound,
                         std::uint64_t& traversed) const {
    return scan_vector<L, kLaneMasks, true>(pool.data(), head_, k, bound, traversed);
  }

 private:
  static void move_slot(Node& to, std::uint32_t i, const Node& from, std::uint32_t j) {
    to.comm[i] = from.comm[j];
    to.source[i] = from.source[j];
    to.tag[i] = from.tag[j];
    to.source_mask[i] = from.source_mask[j];
    to.tag_mask[i] = from.tag_mask[j];
    to.id[i] = from.id[j];
    if constexpr (kOrdered) to.order.of[i] = from.order.of[j];
  }
  // Packs the node's elements into slots [0, count), in order.
  static void compact(Node& node) {
    std::uint32_t i = 0;
    for (std::uint32_t j = 0; j < node.used; ++j)
      if (node.valid >> j & 1) move_slot(node, i++, node, j);
    node.used = node.count;
    node.valid = (1u << node.count) - 1;  // count <= 16
  }
  // Appends b's elements to a (b follows a in the list) and frees b.
  void merge(Pool& pool, std::uint32_t a, std::uint32_t b) {
    Node& to = pool[a];
    const Node& from = pool[b];
    compact(to);
    for (std::uint32_t j = 0; j < from.used; ++j)
      if (from.valid >> j & 1) move_slot(to, to.used++, from, j);
    to.count = to.used;
    to.valid = (1u << to.count) - 1;
    unlink(pool, b);
    pool.give(b);
  }
  void link_back(Pool& pool, std::uint32_t n) { mq::link_back(pool, head_, tail_, n); }
  void unlink(Pool& pool, std::uint32_t n) { mq::unlink(pool, head_, tail_, n); }

  std::uint32_t head_ = kNone, tail_ = kNone;
  std::uint64_t size_ = 0;
};

// Engine<W, L>(options) at options.vector_width and the SIMD level it asks
// for; errors name `engine`.
template <template <int, Simd> class Engine_>
std::unique_ptr<Engine> make_vector_engine(const EngineOptions& options, std::string_view engine) {
  const Simd level = simd_level(options, engine);
  const auto at_width = [&]<int W>() -> std::unique_ptr<Engine> {
    switch (level) {
      case Simd::avx512:
        return std::make_unique<Engine_<W, Simd::avx512>>(options);
      case Simd::avx2:
        return std::make_unique<Engine_<W, Simd::avx2>>(options);
      case Simd::scalar:
        break;
    }
    return std::make_unique<Engine_<W, Simd::scalar>>(options);
  };
  if (options.vector_width == 16) return at_width.template operator()<16>();
  if (options.vector_width == 8) return at_width.template operator()<8>();
  fail_vector_width(options, engine);
}

}  // namespace gc::mq
