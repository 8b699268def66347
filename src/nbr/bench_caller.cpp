#include "nbr/bench_caller.hpp"

#include <algorithm>

#include "core/neighborhood.hpp"
#include "core/wait.hpp"

namespace gc::nbr {

const std::vector<std::pair<std::string, std::string>>& collective_table() {
  static const std::vector<std::pair<std::string, std::string>> table = {
      {"allgather", "MPI_Neighbor_allgather: one block to every out-neighbour"},
      {"allgatherv", "MPI_Neighbor_allgatherv: one block to every out-neighbour, sizes given"},
      {"alltoall", "MPI_Neighbor_alltoall: a block of its own to each out-neighbour"},
      {"alltoallv", "MPI_Neighbor_alltoallv: a block of its own to each, sizes given"},
  };
  return table;
}

Caller::Caller(MPI_Comm comm, const std::string& collective, std::uint64_t bytes, int me)
    : comm_(comm), collective_(collective), t_(topology_of(comm)) {
  const size_t in = t_.sources.size(), out = t_.destinations.size();
  const int n = static_cast<int>(bytes);
  // Never empty: Open MPI refuses null arrays even for no neighbours.
  sendcounts_.assign(std::max<size_t>(out, 1), n);
  recvcounts_.assign(std::max<size_t>(in, 1), n);
  for (size_t j = 0; j < sendcounts_.size(); ++j) sdispls_.push_back(static_cast<int>(j) * n);
  for (size_t i = 0; i < recvcounts_.size(); ++i) rdispls_.push_back(static_cast<int>(i) * n);
  send_.resize(std::max<size_t>(out, 1) * bytes);
  for (size_t x = 0; x < send_.size(); ++x)
    send_[x] = static_cast<char>((me * 131 + static_cast<int>(x) * 7) & 0x7f);
  recv_.assign(std::max<size_t>(in, 1) * bytes, 0);
  n_ = n;
}

void Caller::call(Collectives* ours, bool nonblocking) {
  const bool v = collective_.back() == 'v';
  const bool gather = collective_.starts_with("allgather");
  if (!ours) {
    NeighborRequest r;
    if (gather && !v) {
      if (nonblocking)
        ineighbor_allgather(send_.data(), n_, MPI_BYTE, recv_.data(), n_, MPI_BYTE, comm_, r);
      else
        neighbor_allgather(send_.data(), n_, MPI_BYTE, recv_.data(), n_, MPI_BYTE, comm_);
    } else if (gather) {
      if (nonblocking)
        ineighbor_allgatherv(send_.data(), n_, MPI_BYTE, recv_.data(), recvcounts_.data(),
                             rdispls_.data(), MPI_BYTE, comm_, r);
      else
        neighbor_allgatherv(send_.data(), n_, MPI_BYTE, recv_.data(), recvcounts_.data(),
                            rdispls_.data(), MPI_BYTE, comm_);
    } else if (!v) {
      if (nonblocking)
        ineighbor_alltoall(send_.data(), n_, MPI_BYTE, recv_.data(), n_, MPI_BYTE, comm_, r);
      else
        neighbor_alltoall(send_.data(), n_, MPI_BYTE, recv_.data(), n_, MPI_BYTE, comm_);
    } else {
      if (nonblocking)
        ineighbor_alltoallv(send_.data(), sendcounts_.data(), sdispls_.data(), MPI_BYTE,
                            recv_.data(), recvcounts_.data(), rdispls_.data(), MPI_BYTE, comm_, r);
      else
        neighbor_alltoallv(send_.data(), sendcounts_.data(), sdispls_.data(), MPI_BYTE,
                           recv_.data(), recvcounts_.data(), rdispls_.data(), MPI_BYTE, comm_);
    }
    if (nonblocking) r.wait();
    return;
  }
  if (!nonblocking) {
    if (gather && !v)
      ours->allgather(send_.data(), n_, MPI_BYTE, recv_.data(), n_, MPI_BYTE);
    else if (gather)
      ours->allgatherv(send_.data(), n_, MPI_BYTE, recv_.data(), recvcounts_.data(),
                       rdispls_.data(), MPI_BYTE);
    else if (!v)
      ours->alltoall(send_.data(), n_, MPI_BYTE, recv_.data(), n_, MPI_BYTE);
    else
      ours->alltoallv(send_.data(), sendcounts_.data(), sdispls_.data(), MPI_BYTE, recv_.data(),
                      recvcounts_.data(), rdispls_.data(), MPI_BYTE);
    return;
  }
  Request r;
  if (gather && !v)
    r = ours->iallgather(send_.data(), n_, MPI_BYTE, recv_.data(), n_, MPI_BYTE);
  else if (gather)
    r = ours->iallgatherv(send_.data(), n_, MPI_BYTE, recv_.data(), recvcounts_.data(),
                          rdispls_.data(), MPI_BYTE);
  else if (!v)
    r = ours->ialltoall(send_.data(), n_, MPI_BYTE, recv_.data(), n_, MPI_BYTE);
  else
    r = ours->ialltoallv(send_.data(), sendcounts_.data(), sdispls_.data(), MPI_BYTE, recv_.data(),
                         recvcounts_.data(), rdispls_.data(), MPI_BYTE);
  r.wait();
}

void Caller::call_point_to_point() {
  const bool gather = collective_.starts_with("allgather");
  Requests requests(t_.sources.size() + t_.destinations.size());
  for (size_t i = 0; i < t_.sources.size(); ++i)
    MPI_Irecv(recv_.data() + rdispls_[i], recvcounts_[i], MPI_BYTE, t_.sources[i], 0, comm_,
              requests.next());
  for (size_t j = 0; j < t_.destinations.size(); ++j)
    MPI_Isend(send_.data() + (gather ? 0 : sdispls_[j]), gather ? n_ : sendcounts_[j], MPI_BYTE,
              t_.destinations[j], 0, comm_, requests.next());
  requests.wait();
}

void Caller::clear() {
  std::fill(recv_.begin(), recv_.end(), 0);
}

}  // namespace gc::nbr
