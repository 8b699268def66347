// Distributed-graph topologies and neighborhood collectives (MPI-4.1 sections
// 8.5.4 and 8.6), with MPI's arguments and results: the library's own calls
// where the flavour has them (core/flavour.hpp), otherwise graphcomm's direct
// schedule in their place: every receive posted from each source, then one
// send to each destination, in list order, and all waited on, as Open MPI's
// and MPICH's base implementations do. Repeated edges pair in list order
// (messages between two ranks do not overtake). The replacement topology
// lives on the communicator as an attribute, with a private duplicate for its
// traffic, so the program's own messages on the communicator never meet it.
//
// graphcomm calls these, never MPI_Dist_graph_* or MPI_*neighbor_* directly.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

namespace gc {

// A new communicator (the caller frees it) with `sources` and `destinations`
// as this rank's neighbours, unweighted, ranks not reordered. Collective.
MPI_Comm create_dist_graph_adjacent(MPI_Comm comm, const std::vector<int>& sources,
                                    const std::vector<int>& destinations);
// Whether `comm` carries a distributed-graph topology (either kind).
bool is_dist_graph(MPI_Comm comm);
// This rank's sources and destinations on a distributed-graph communicator.
void dist_graph_neighbors(MPI_Comm comm, std::vector<int>& sources, std::vector<int>& destinations);
// True when the calls below are graphcomm's direct schedule, not the library's.
bool neighborhood_collectives_replaced();
// What the output says where they are: "neighborhood collectives: ..." (one
// line, no newline), or "" where the library's own run.
std::string neighborhood_collectives_note();

// A started nonblocking neighborhood collective: the library's one request,
// or the direct schedule's receives and sends. Waits in its destructor if
// still active.
class NeighborRequest {
 public:
  NeighborRequest() = default;
  NeighborRequest(NeighborRequest&& other) noexcept;
  NeighborRequest& operator=(NeighborRequest&& other) noexcept;
  NeighborRequest(const NeighborRequest&) = delete;
  NeighborRequest& operator=(const NeighborRequest&) = delete;
  ~NeighborRequest();
  void wait();
  bool active() const { return library_ != MPI_REQUEST_NULL || !schedule_.empty(); }
  // Where the library's call puts its request (no allocation per call).
  MPI_Request* library() { return &library_; }
  // Where the direct schedule posts its receives and sends.
  std::vector<MPI_Request>& schedule() { return schedule_; }

 private:
  MPI_Request library_ = MPI_REQUEST_NULL;
  std::vector<MPI_Request> schedule_;
};

void neighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                        int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
void neighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                         const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                         MPI_Comm comm);
void neighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
void neighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                        MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                        const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm);

void ineighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                         int recvcount, MPI_Datatype recvtype, MPI_Comm comm, NeighborRequest& r);
void ineighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                          const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                          MPI_Comm comm, NeighborRequest& r);
void ineighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                        int recvcount, MPI_Datatype recvtype, MPI_Comm comm, NeighborRequest& r);
void ineighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                         MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                         const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                         NeighborRequest& r);

}  // namespace gc
