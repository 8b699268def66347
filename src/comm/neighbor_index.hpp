// The rank -> neighbour index table of the models that learn a sender as a
// rank (nsr, nsr-agg: MPI_SOURCE; the one-sided packet models and hybrid: a
// packet header's sender) and hand it to the kernel as its position in
// Neighborhood::ranks. Dense, one int per rank of the communicator: it is
// read once for every message or packet received.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "comm/exchange.hpp"

namespace gc {

class NeighborIndex {
 public:
  NeighborIndex() = default;
  NeighborIndex(const std::vector<int>& ranks, int comm_size)
      : index_(static_cast<size_t>(comm_size), kFromOutsideNeighborhood) {
    for (size_t i = 0; i < ranks.size(); ++i)
      index_[static_cast<size_t>(ranks[i])] = static_cast<int>(i);
  }

  // `rank`'s position in Neighborhood::ranks, or kFromOutsideNeighborhood for
  // a rank that is no neighbour and for a value that is no rank at all.
  int of(std::uint64_t rank) const {
    return rank < index_.size() ? index_[rank] : kFromOutsideNeighborhood;
  }
  // The ranks of the communicator: a sender is one of [0, size()).
  std::uint64_t size() const { return index_.size(); }

 private:
  std::vector<int> index_;
};

}  // namespace gc
