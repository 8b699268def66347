// Shared by the models whose phases end by a nonblocking barrier (rma-fence,
// rma-hash, shmem-fence, shmem-hash: one_sided_packets.hpp; hybrid.cpp): a
// rank that is settled and has completed its writes enters the barrier and
// keeps processing while it is pending; once it completes, every rank has
// completed every write of the phase.
#pragma once

#include <thread>

#include "core/mpi.hpp"

namespace gc {

class PhaseBarrier {
 public:
  PhaseBarrier() = default;
  explicit PhaseBarrier(const Comm& comm) : comm_(comm.dup()) {}  // collective

  void enter() { MPI_Ibarrier(comm_.get(), &request_); }
  // True once every rank has entered (the request is then complete).
  bool completed() {
    int flag = 0;
    MPI_Test(&request_, &flag, MPI_STATUS_IGNORE);
    return flag != 0;
  }

 private:
  Comm comm_;  // the barrier's own context
  MPI_Request request_ = MPI_REQUEST_NULL;
};

// More ranks of `comm` on this node than cores: a rank that polls in vain
// should give the core away (the rank it waits for may be waiting for it).
// Collective.
inline bool node_oversubscribed(const Comm& comm) {
  MPI_Comm shared;
  MPI_Comm_split_type(comm.get(), MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shared);
  const Comm node = Comm::adopt(shared);
  return static_cast<unsigned>(node.size()) > std::thread::hardware_concurrency();
}

}  // namespace gc
