// Completing a set of requests: MPI_Waitall, or, where the library's costs
// quadratic time in the number of requests (flavour.hpp), a wait for each in
// turn: the same requests complete, at the same (simulated) times.
#pragma once

#include <vector>

#include <mpi.h>

#include "core/flavour.hpp"

namespace gc {

inline void wait_all(int n, MPI_Request requests[]) {
  if constexpr (flavour::library_waitall_is_linear) {
    MPI_Waitall(n, requests, MPI_STATUSES_IGNORE);
  } else {
    for (int i = 0; i < n; ++i) MPI_Wait(&requests[i], MPI_STATUS_IGNORE);
  }
}

inline void wait_all(std::vector<MPI_Request>& requests) {
  wait_all(static_cast<int>(requests.size()), requests.data());
}

}  // namespace gc
