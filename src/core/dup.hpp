// A communicator of the same group, in the same order, with a context of its
// own (for traffic that must not meet the caller's). MPI_Comm_dup, or
// MPI_Comm_split with one colour where the library's dup charges other ranks'
// time (flavour.hpp). Neither copies attributes that graphcomm keeps: its keys
// are created with MPI_COMM_NULL_COPY_FN.
#pragma once

#include <mpi.h>

#include "core/flavour.hpp"

namespace gc {

inline MPI_Comm duplicate(MPI_Comm comm) {
  MPI_Comm out = MPI_COMM_NULL;
  if constexpr (flavour::library_comm_dup_charges_own_time) {
    MPI_Comm_dup(comm, &out);
  } else {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_split(comm, 0, rank, &out);
  }
  return out;
}

}  // namespace gc
