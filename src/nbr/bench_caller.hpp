// One neighbour collective call, as `nbr bench` times it: the library's (or,
// where the MPI has none, graphcomm's direct schedule), the collaborative
// plan's, or the standard's result by point-to-point, on `bytes` per block of
// a distributed-graph communicator.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/mpi.hpp"
#include "nbr/collectives.hpp"

namespace gc::nbr {

// The collectives, name and what it is, in the order `graphcomm models`
// lists them.
const std::vector<std::pair<std::string, std::string>>& collective_table();

class Caller {
 public:
  // `collective` one of collective_table()'s; `me` seeds the send buffer.
  Caller(MPI_Comm comm, const std::string& collective, std::uint64_t bytes, int me);

  // By the library (`ours` null) or by the plan; `nonblocking`: started, then
  // waited on.
  void call(Collectives* ours, bool nonblocking);
  // The standard's result by point-to-point: one message per edge, sent and
  // received in list order, so repeated edges pair in list order (MPI-4.1
  // section 8.6) by the non-overtaking rule. The reference where the
  // library's own neighbour collectives do not pair them so.
  void call_point_to_point();

  const std::vector<char>& received() const { return recv_; }
  void clear();

 private:
  MPI_Comm comm_;
  std::string collective_;
  Topology t_;
  int n_ = 0;
  std::vector<int> sendcounts_, sdispls_, recvcounts_, rdispls_;
  std::vector<char> send_, recv_;
};

}  // namespace gc::nbr
