// The links of a doubly linked list whose nodes live in a pool and are named
// by index (each node's `prev` and `next`; kNoNode ends the list), as the
// engines' queues (queue.hpp) and vector queues (vector_queue.hpp) keep them.
#pragma once

#include <cstdint>

namespace gc::mq {

inline constexpr std::uint32_t kNoNode = ~std::uint32_t{0};

// Appends node `n` to the list (head, tail).
template <class Pool>
[[gnu::always_inline]] inline void link_back(Pool& pool, std::uint32_t& head, std::uint32_t& tail,
                                             std::uint32_t n) {
  pool[n].prev = tail;
  if (tail != kNoNode)
    pool[tail].next = n;
  else
    head = n;
  tail = n;
}

// Takes node `n` out of the list (head, tail); the node keeps its links.
template <class Pool>
[[gnu::always_inline]] inline void unlink(Pool& pool, std::uint32_t& head, std::uint32_t& tail,
                                          std::uint32_t n) {
  const std::uint32_t prev = pool[n].prev, next = pool[n].next;
  if (prev != kNoNode)
    pool[prev].next = next;
  else
    head = next;
  if (next != kNoNode)
    pool[next].prev = prev;
  else
    tail = prev;
}

}  // namespace gc::mq
