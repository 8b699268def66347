// A nonblocking barrier: started by enter(), completed once every rank of the
// communicator has entered; completed() tests and makes progress. The
// library's MPI_Ibarrier where it synchronizes (core/flavour.hpp); elsewhere
// a dissemination barrier (Hensgen, Finkel and Manber, "Two algorithms for
// barrier synchronization", 1988: in round k each rank signals rank + 2^k and
// waits for rank - 2^k, ceil(log2 P) rounds), the schedule libraries use for
// MPI_Ibarrier themselves.
#pragma once

#include <mpi.h>

#include <array>

#include "core/mpi.hpp"

namespace gc {

class NonblockingBarrier {
 public:
  NonblockingBarrier() = default;
  explicit NonblockingBarrier(const Comm& comm) : comm_(comm.dup()) {}  // collective
  NonblockingBarrier(NonblockingBarrier&&) = default;
  NonblockingBarrier& operator=(NonblockingBarrier&&) = default;

  void enter();
  // True once every rank has entered.
  bool completed();

 private:
  void start_round();
  Comm comm_;  // the barrier's own context
  // The library's request, or the current round's receive and send.
  std::array<MPI_Request, 2> requests_ = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  int round_ = 0;
  bool active_ = false;
  char token_ = 0, received_ = 0;
};

}  // namespace gc
