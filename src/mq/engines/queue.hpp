// A queue of (envelope, id) elements in arrival/posting order, as MPICH and
// MVAPICH keep theirs: a doubly linked list whose nodes come from a pool (no
// allocation per element once warm). The building block of linked-list and,
// one per source, partner or bin, of the other engines.
#pragma once

#include <cstdint>
#include <vector>

#include "mq/engines/engine.hpp"
#include "mq/engines/index_links.hpp"

namespace gc::mq {

struct QueueElement {
  Envelope envelope;
  Id id = 0;
  std::uint64_t order = 0;  // engine-wide posting/arrival sequence number
};

// The pool that the queues of one engine share.
// The element operations are always inlined: in a translation unit that
// instantiates several engines (partner-vectors' six SIMD variants), GCC
// left push_back out of line, 30% of a short-queue operation's time.
class ElementPool {
 public:
  static constexpr std::uint32_t kNone = kNoNode;
  struct Node {
    QueueElement element;
    std::uint32_t prev = kNone, next = kNone;
  };
  [[gnu::always_inline]] std::uint32_t take(const QueueElement& e) {
    std::uint32_t n;
    if (free_ != kNone) {
      n = free_;
      free_ = nodes_[n].next;
    } else {
      n = static_cast<std::uint32_t>(nodes_.size());
      nodes_.emplace_back();
    }
    nodes_[n] = Node{e, kNone, kNone};
    return n;
  }
  [[gnu::always_inline]] void give(std::uint32_t n) {
    nodes_[n].next = free_;
    free_ = n;
  }
  Node& operator[](std::uint32_t n) { return nodes_[n]; }
  const Node& operator[](std::uint32_t n) const { return nodes_[n]; }

 private:
  std::vector<Node> nodes_;
  std::uint32_t free_ = kNone;
};

class Queue {
 public:
  using Node = ElementPool::Node;
  static constexpr std::uint32_t kNone = ElementPool::kNone;

  bool empty() const { return head_ == kNone; }
  std::uint64_t size() const { return size_; }
  std::uint32_t head() const { return head_; }

  [[gnu::always_inline]] void push_back(ElementPool& pool, const QueueElement& e) {
    link_back(pool, head_, tail_, pool.take(e));
    ++size_;
  }
  [[gnu::always_inline]] void erase(ElementPool& pool, std::uint32_t n) {
    unlink(pool, head_, tail_, n);
    --size_;
    pool.give(n);
  }
  // The first element for which accept(element) holds, counting the
  // elements looked at into `traversed`; kNone if none.
  template <class Accept>
  std::uint32_t find(const ElementPool& pool, Accept&& accept, std::uint64_t& traversed) const {
    for (std::uint32_t n = head_; n != kNone; n = pool[n].next) {
      ++traversed;
      if (accept(pool[n].element)) return n;
    }
    return kNone;
  }

  static constexpr std::uint64_t kHeaderBytes = 2 * sizeof(std::uint32_t) + sizeof(std::uint64_t);

 private:
  std::uint32_t head_ = kNone, tail_ = kNone;
  std::uint64_t size_ = 0;
};

// Search bookkeeping shared by the engines.
inline void count_search(std::uint64_t& searches, std::uint64_t& total, std::uint64_t& max,
                         std::uint64_t traversed) {
  ++searches;
  total += traversed;
  if (traversed > max) max = traversed;
}

}  // namespace gc::mq
