// bins and hash: two hashed layouts of the MPI queues, sharing their PRQ.
//
// bins: Flajslik, Dinan and Underwood, "Mitigating MPI message matching
// misery", ISC 2016. A fixed number of bins (options.bins), each with its own
// PRQ and UMQ; an envelope's bin is a hash of (comm, source, tag). Receives
// with any wildcard wait in one wildcard PRQ. An arrival walks its bin's PRQ
// and the wildcard PRQ together by posting order (sequence numbers); a
// wildcard post must search every bin's UMQ, the earliest arrival wins.
//
// hash: UCX's tag matching (ucp/tag/tag_match.{h,inl,c}) on the 64-bit tag
// Open MPI's pml/ucx builds (tag:24 | source:20 | context:20). Expected
// (posted) receives with a full mask go to a bucket of a table (1021 buckets
// at the default options.bins = 256: the largest prime <= 4 * bins, in a table
// of the next power of two), wildcard receives to one wildcard queue; an
// arrival searches its bucket alone while the wildcard queue is empty, else
// both merged by sequence number (ucp_tag_exp_search_all). Every unexpected
// message sits on its bucket's list and on a list of all unexpected messages:
// a specific post searches the bucket, a wildcard post the list of all
// (ucp_tag_unexp_search).
//
// Both compare the whole envelope (buckets collide). Memory overhead: the
// bucket arrays, and for hash the second pair of links per unexpected message.
#include <fmt/format.h>

#include "core/error.hpp"
#include "mq/engines/engines.hpp"
#include "mq/engines/queue.hpp"

namespace gc::mq {
namespace {

constexpr std::uint32_t kNone = Queue::kNone;

bool is_wildcard(const Envelope& receive) {
  return receive.source == kAnySource || receive.tag == kAnyTag;
}

// A found element: its node, and the queue that holds it where there is one.
struct Found {
  Queue* queue = nullptr;
  std::uint32_t node = kNone;
  explicit operator bool() const { return node != kNone; }
};

// The PRQ of both engines: specific receives in their envelope's bucket,
// wildcard receives in a queue of their own.
class BucketedPrq {
 public:
  explicit BucketedPrq(std::size_t buckets) : buckets_(buckets) {}

  // Removes and returns the earliest-posted receive in bucket b or the
  // wildcard queue that accepts `message`, walking both by posting order.
  Id take(const Envelope& message, std::size_t b, std::uint64_t& traversed) {
    Queue& bucket = buckets_[b];
    std::uint32_t x = bucket.head(), y = wildcard_.head();
    while (x != kNone || y != kNone) {
      const bool from_bucket =
          y == kNone || (x != kNone && pool_[x].element.order < pool_[y].element.order);
      std::uint32_t& n = from_bucket ? x : y;
      ++traversed;
      if (accepts(pool_[n].element.envelope, message)) {
        const Id matched = pool_[n].element.id;
        (from_bucket ? bucket : wildcard_).erase(pool_, n);
        --size_;
        return matched;
      }
      n = pool_[n].next;
    }
    return kNoMatch;
  }

  // b: the receive's bucket (ignored for a wildcard receive).
  void push(const Envelope& receive, Id id, std::uint64_t order, std::size_t b) {
    (is_wildcard(receive) ? wildcard_ : buckets_[b]).push_back(pool_, {receive, id, order});
    ++size_;
  }
  std::uint64_t size() const { return size_; }
  std::uint64_t memory_bytes() const { return (buckets_.size() + 1) * Queue::kHeaderBytes; }

 private:
  ElementPool pool_;
  std::vector<Queue> buckets_;
  Queue wildcard_;
  std::uint64_t size_ = 0;
};

// bins' UMQ: one queue per bin; a wildcard receive scans them all.
class BinnedUmq {
 public:
  explicit BinnedUmq(std::size_t bins) : bins_(bins) {}

  // The earliest-arrived message `receive` accepts; b: its bin unless wildcard.
  Found find(const Envelope& receive, bool wildcard, std::size_t b, std::uint64_t& traversed) {
    const auto accept = [&](const QueueElement& m) { return accepts(receive, m.envelope); };
    if (!wildcard) {
      Queue& q = bins_[b];
      return {&q, q.find(pool_, accept, traversed)};
    }
    Found best;
    if (size_ == 0) return best;
    // Each bin is in arrival order: scan it only up to the best so far.
    std::uint64_t bound = ~std::uint64_t{0};
    for (Queue& q : bins_) {
      for (std::uint32_t n = q.head(); n != kNone; n = pool_[n].next) {
        const QueueElement& m = pool_[n].element;
        if (m.order >= bound) break;
        ++traversed;
        if (accept(m)) {
          best = {&q, n};
          bound = m.order;
          break;
        }
      }
    }
    return best;
  }
  Id id(Found f) const { return pool_[f.node].element.id; }
  void erase(Found f) {
    f.queue->erase(pool_, f.node);
    --size_;
  }
  void push(const Envelope& message, Id id, std::uint64_t order, std::size_t b) {
    bins_[b].push_back(pool_, {message, id, order});
    ++size_;
  }
  std::uint64_t size() const { return size_; }
  std::uint64_t memory_bytes() const { return bins_.size() * Queue::kHeaderBytes; }

 private:
  ElementPool pool_;
  std::vector<Queue> bins_;
  std::uint64_t size_ = 0;
};

// hash's UMQ: every message on its bucket's list and on the list of all
// (UCX's rdesc->tag_list[UCP_RDESC_HASH_LIST / UCP_RDESC_ALL_LIST]).
class HashedUmq {
 public:
  explicit HashedUmq(std::size_t buckets) : buckets_(buckets) {}

  Found find(const Envelope& receive, bool wildcard, std::size_t b, std::uint64_t& traversed) {
    if (all_.head == kNone) return {};
    if (!wildcard) {
      for (std::uint32_t n = buckets_[b].head; n != kNone; n = nodes_[n].bucket_next) {
        ++traversed;
        if (accepts(receive, nodes_[n].envelope)) return {nullptr, n};
      }
    } else {
      for (std::uint32_t n = all_.head; n != kNone; n = nodes_[n].all_next) {
        ++traversed;
        if (accepts(receive, nodes_[n].envelope)) return {nullptr, n};
      }
    }
    return {};
  }
  Id id(Found f) const { return nodes_[f.node].id; }
  void erase(Found f) {
    const std::uint32_t n = f.node;
    unlink<&Node::bucket_prev, &Node::bucket_next>(buckets_[nodes_[n].bucket], n);
    unlink<&Node::all_prev, &Node::all_next>(all_, n);
    nodes_[n].all_next = free_;
    free_ = n;
    --size_;
  }
  void push(const Envelope& message, Id id, std::uint64_t, std::size_t b) {
    std::uint32_t n = free_;
    if (n != kNone) {
      free_ = nodes_[n].all_next;
    } else {
      n = static_cast<std::uint32_t>(nodes_.size());
      nodes_.emplace_back();
    }
    nodes_[n] = Node{message, id, static_cast<std::uint32_t>(b)};
    link_back<&Node::bucket_prev, &Node::bucket_next>(buckets_[b], n);
    link_back<&Node::all_prev, &Node::all_next>(all_, n);
    max_size_ = std::max(max_size_, ++size_);
  }
  std::uint64_t size() const { return size_; }
  std::uint64_t memory_bytes() const {
    return (buckets_.size() + 1) * sizeof(List) + max_size_ * 2 * sizeof(std::uint32_t);
  }

 private:
  struct Node {
    Envelope envelope;
    Id id = 0;
    std::uint32_t bucket = 0;
    std::uint32_t bucket_prev = kNone, bucket_next = kNone;
    std::uint32_t all_prev = kNone, all_next = kNone;
  };
  struct List {
    std::uint32_t head = kNone, tail = kNone;
  };
  template <std::uint32_t Node::*Prev, std::uint32_t Node::*Next>
  void link_back(List& list, std::uint32_t n) {
    nodes_[n].*Prev = list.tail;
    nodes_[n].*Next = kNone;
    if (list.tail != kNone)
      nodes_[list.tail].*Next = n;
    else
      list.head = n;
    list.tail = n;
  }
  template <std::uint32_t Node::*Prev, std::uint32_t Node::*Next>
  void unlink(List& list, std::uint32_t n) {
    const std::uint32_t prev = nodes_[n].*Prev, next = nodes_[n].*Next;
    if (prev != kNone)
      nodes_[prev].*Next = next;
    else
      list.head = next;
    if (next != kNone)
      nodes_[next].*Prev = prev;
    else
      list.tail = prev;
  }

  std::vector<Node> nodes_;
  std::uint32_t free_ = kNone;
  std::vector<List> buckets_;
  List all_;
  std::uint64_t size_ = 0, max_size_ = 0;
};

// bins: a multiplicative mix of (comm, source, tag), mapped onto [0, bins)
// by multiply-shift (no division on the hot path).
struct BinsHash {
  std::uint64_t bins;
  std::size_t operator()(const Envelope& e) const {
    std::uint64_t k = (std::uint64_t{e.comm} << 32 | static_cast<std::uint32_t>(e.source)) *
                      0x9E3779B97F4A7C15ULL;
    k ^= static_cast<std::uint32_t>(e.tag) * 0xC2B2AE3D27D4EB4FULL;
    const std::uint32_t h = static_cast<std::uint32_t>(k ^ (k >> 32));
    return static_cast<std::size_t>((std::uint64_t{h} * bins) >> 32);
  }
};

// hash: ucp_tag_match_calc_hash of pml/ucx's tag, two 32-bit residues XORed.
struct UcxHash {
  std::uint32_t prime;
  std::size_t operator()(const Envelope& e) const {
    const std::uint64_t tag = std::uint64_t{static_cast<std::uint32_t>(e.tag)} << 40 |
                              std::uint64_t{static_cast<std::uint32_t>(e.source) & 0xfffffu} << 20 |
                              (e.comm & 0xfffffu);
    return (static_cast<std::uint32_t>(tag) % prime) ^
           (static_cast<std::uint32_t>(tag >> 32) % prime);
  }
};

template <class Umq, class Hash>
class Binned final : public Engine {
 public:
  Binned(std::size_t buckets, Hash hash) : hash_(hash), prq_(buckets), umq_(buckets) {}

  void add_communicator(std::uint32_t, int) override {}

  Id arrive(const Envelope& message, Id id) override {
    const std::size_t b = hash_(message);
    std::uint64_t traversed = 0;
    const Id matched = prq_.take(message, b, traversed);
    count_search(c_.prq_searches, c_.prq_traversed, c_.prq_max, traversed);
    if (matched != kNoMatch) return matched;
    umq_.push(message, id, order_++, b);
    c_.umq_length_max = std::max(c_.umq_length_max, umq_.size());
    return kNoMatch;
  }

  Id post(const Envelope& receive, Id id) override {
    const bool wildcard = is_wildcard(receive);
    const std::size_t b = wildcard ? 0 : hash_(receive);
    const Found f = search_umq(receive, wildcard, b);
    if (f) {
      const Id matched = umq_.id(f);
      umq_.erase(f);
      return matched;
    }
    prq_.push(receive, id, order_++, b);
    c_.prq_length_max = std::max(c_.prq_length_max, prq_.size());
    return kNoMatch;
  }

  Id probe(const Envelope& receive) override {
    const bool wildcard = is_wildcard(receive);
    const Found f = search_umq(receive, wildcard, wildcard ? 0 : hash_(receive));
    return f ? umq_.id(f) : kNoMatch;
  }

  const Counters& counters() const override {
    c_.memory_overhead_bytes = prq_.memory_bytes() + umq_.memory_bytes();
    return c_;
  }

 private:
  Found search_umq(const Envelope& receive, bool wildcard, std::size_t b) {
    std::uint64_t traversed = 0;
    const Found f = umq_.find(receive, wildcard, b, traversed);
    count_search(c_.umq_searches, c_.umq_traversed, c_.umq_max, traversed);
    return f;
  }

  Hash hash_;
  BucketedPrq prq_;
  Umq umq_;
  std::uint64_t order_ = 0;
  mutable Counters c_;
};

std::uint32_t checked_bins(const EngineOptions& options, const char* engine) {
  if (options.bins < 1 || options.bins > (1 << 24))
    fail(fmt::format("{}: bins must be in [1, 2^24], not {}", engine, options.bins));
  return static_cast<std::uint32_t>(options.bins);
}

bool is_prime(std::uint32_t n) {
  if (n < 2) return false;
  for (std::uint32_t d = 2; d * d <= n; ++d)
    if (n % d == 0) return false;
  return true;
}

}  // namespace

std::unique_ptr<Engine> make_bins(const EngineOptions& options) {
  const std::uint32_t bins = checked_bins(options, "bins");
  return std::make_unique<Binned<BinnedUmq, BinsHash>>(bins, BinsHash{bins});
}

std::unique_ptr<Engine> make_hash(const EngineOptions& options) {
  std::uint32_t prime = 4 * checked_bins(options, "hash");
  while (!is_prime(prime)) --prime;  // 4 * bins >= 4, so this stops at 3 or above
  std::size_t table = 1;
  while (table <= prime) table *= 2;  // the residues' XOR is below this power of two
  return std::make_unique<Binned<HashedUmq, UcxHash>>(table, UcxHash{prime});
}

}  // namespace gc::mq
