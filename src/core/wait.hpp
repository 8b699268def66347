// Completing a set of requests: MPI_Waitall, or, where the library's costs
// quadratic time in the number of requests (flavour.hpp), a wait for each in
// turn: the same requests complete, at the same (simulated) times. Requests
// owns such a set.
#pragma once

#include <cstddef>
#include <exception>
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

// The requests of one exchange (nonblocking sends and receives), completed
// together. What is still outstanding when the set goes away is completed
// then, except while an exception unwinds on this rank (a rank that fails
// alone must not wait for partners that will not come: it goes on to
// MPI_Abort) or after MPI_Finalize.
class Requests {
 public:
  Requests() = default;
  explicit Requests(std::size_t expected) { list_.reserve(expected); }
  Requests(const Requests&) = delete;
  Requests& operator=(const Requests&) = delete;
  ~Requests() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized && std::uncaught_exceptions() == 0) wait();
  }

  // Where the next MPI_Isend or MPI_Irecv puts its request.
  MPI_Request* next() { return &list_.emplace_back(MPI_REQUEST_NULL); }
  // Completes every request of the set, which is then empty.
  void wait() {
    if (!list_.empty()) wait_all(list_);
    list_.clear();
  }

 private:
  std::vector<MPI_Request> list_;
};

}  // namespace gc
