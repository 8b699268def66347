// Intra-node work sharing: the hook between a kernel and the hybrid model
// (Jose, Potluri, Tomko, Panda, "Designing Scalable Graph500 Benchmark with
// Hybrid MPI+OpenSHMEM Programming Models", ISC 2013: an overloaded rank
// exposes part of its frontier work, an idle rank on the same node takes it
// through shmem_ptr). A kernel asks Exchange::node_work_share(); models
// without it return nullptr, and a kernel that never asks (matching) is
// unaffected.
//
// What a rank shares: tables it writes and the ranks of its node read
// (collective allocation, sized by the largest request), and a list of work
// items [0, n) offered for the current phase of the exchange. The owner and
// its node peers take chunks of the items with an atomic claim, so each item
// is taken exactly once; a claim never blocks and finds nothing once the
// items are gone or the owner has not offered for this phase yet. Stolen work
// may produce messages for ranks outside the neighbourhood: push_to_rank()
// sends those (the receiver sees them with from_index
// kFromOutsideNeighborhood, exchange.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "comm/exchange.hpp"

namespace gc {

class WorkShare {
 public:
  virtual ~WorkShare() = default;

  // Ranks of this node whose tables and items this rank can reach (itself
  // excluded), in increasing order.
  virtual const std::vector<int>& peers() const = 0;

  // Collective: a new zero-filled table of `bytes` on every rank (the largest
  // request of any rank); its handle is the same on every rank.
  virtual int add_table(std::uint64_t bytes) = 0;
  virtual std::byte* table(int handle) = 0;
  // `rank`'s copy of a table: `rank` must be this rank or one of peers().
  virtual const std::byte* peer_table(int handle, int rank) const = 0;

  // Offers items [0, count) for the exchange's current phase (once a phase);
  // the items must be in a table before the call.
  virtual void offer(std::uint64_t count) = 0;
  // Claims up to `chunk` of `rank`'s items of the current phase: [begin, end),
  // or nothing when none are left (or `rank` has not offered yet).
  virtual std::optional<std::pair<std::uint64_t, std::uint64_t>> claim(int rank,
                                                                       std::uint64_t chunk) = 0;

  // Queues a message for any rank of the communicator but this one.
  virtual void push_to_rank(int rank, const Message& message) = 0;

  // Items this rank took from peers, since the exchange was made.
  virtual std::uint64_t items_taken() const = 0;
};

}  // namespace gc
