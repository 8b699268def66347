// Shared by the models whose phases end by a nonblocking barrier (rma-fence,
// rma-hash, shmem-fence, shmem-hash: one_sided_packets.hpp; hybrid.cpp): a
// rank that is settled and has completed its writes enters the barrier and
// keeps processing while it is pending; once it completes, every rank has
// completed every write of the phase.
#pragma once

#include <thread>

#include "core/barrier.hpp"
#include "core/flavour.hpp"
#include "core/mpi.hpp"

namespace gc {

using PhaseBarrier = NonblockingBarrier;

// More ranks of `comm` on this node than cores: a rank that polls in vain
// should give the core away (the rank it waits for may be waiting for it).
// Collective.
inline bool node_oversubscribed(const Comm& comm) {
  if constexpr (flavour::simulated) return false;  // a modeled node has its cores
  MPI_Comm shared;
  MPI_Comm_split_type(comm.get(), MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shared);
  const Comm node = Comm::adopt(shared);
  return static_cast<unsigned>(node.size()) > std::thread::hardware_concurrency();
}

}  // namespace gc
