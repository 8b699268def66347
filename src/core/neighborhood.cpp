#include "core/neighborhood.hpp"

#include <utility>

#include "core/dup.hpp"
#include "core/error.hpp"
#include "core/flavour.hpp"
#include "core/wait.hpp"

namespace gc {

namespace {

constexpr bool kReplaced = !flavour::library_has_neighborhood_collectives;

// The replacement's topology, cached on the communicator it describes.
struct Replacement {
  std::vector<int> sources, destinations;
  MPI_Comm traffic = MPI_COMM_NULL;  // a private duplicate: the schedule's messages
};

int delete_replacement(MPI_Comm, int, void* value, void*) {
  auto* replacement = static_cast<Replacement*>(value);
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized && replacement->traffic != MPI_COMM_NULL) MPI_Comm_free(&replacement->traffic);
  delete replacement;
  return MPI_SUCCESS;
}

// A duplicate of the communicator (MPI_Comm_dup) carries no topology here,
// unlike a library's: neighborhood calls on it fail with a clear error.
int replacement_key() {
  static const int key = [] {
    int k = MPI_KEYVAL_INVALID;
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_replacement, &k, nullptr);
    return k;
  }();
  return key;
}

const Replacement* find_replacement(MPI_Comm comm) {
  void* value = nullptr;
  int found = 0;
  MPI_Comm_get_attr(comm, replacement_key(), &value, &found);
  return found ? static_cast<const Replacement*>(value) : nullptr;
}

const Replacement& replacement_of(MPI_Comm comm) {
  const Replacement* r = find_replacement(comm);
  if (!r) fail("a neighborhood collective on a communicator without a distributed-graph topology");
  return *r;
}

char* at(void* base, MPI_Datatype type, std::int64_t elements) {
  MPI_Aint lb = 0, extent = 0;
  MPI_Type_get_extent(type, &lb, &extent);
  return static_cast<char*>(base) + elements * static_cast<std::int64_t>(extent);
}
const char* at(const void* base, MPI_Datatype type, std::int64_t elements) {
  return at(const_cast<void*>(base), type, elements);
}

// The direct schedule: receive block i from sources[i] (recv(i) gives its
// address and count), send block j to destinations[j] (send(j) likewise),
// every receive posted before the first send.
template <class Send, class Recv>
void start_direct(MPI_Comm comm, MPI_Datatype sendtype, MPI_Datatype recvtype, Send send, Recv recv,
                  std::vector<MPI_Request>& requests) {
  constexpr int kTag = 0;
  const Replacement& r = replacement_of(comm);
  requests.assign(r.sources.size() + r.destinations.size(), MPI_REQUEST_NULL);
  size_t k = 0;
  for (size_t i = 0; i < r.sources.size(); ++i) {
    const auto [data, count] = recv(static_cast<int>(i));
    MPI_Irecv(data, count, recvtype, r.sources[i], kTag, r.traffic, &requests[k++]);
  }
  for (size_t j = 0; j < r.destinations.size(); ++j) {
    const auto [data, count] = send(static_cast<int>(j));
    MPI_Isend(data, count, sendtype, r.destinations[j], kTag, r.traffic, &requests[k++]);
  }
}

void wait_and_clear(std::vector<MPI_Request>& requests) {
  if (!requests.empty()) wait_all(requests);
  requests.clear();
}

// The four collectives' blocks, as (address, count) per position.
auto shared_block(const void* buf, int count) {
  return [=](int) { return std::pair{buf, count}; };
}
auto uniform_blocks(void* buf, int count, MPI_Datatype type) {
  return [=](int i) { return std::pair{at(buf, type, std::int64_t{i} * count), count}; };
}
auto uniform_blocks(const void* buf, int count, MPI_Datatype type) {
  return [=](int i) { return std::pair{at(buf, type, std::int64_t{i} * count), count}; };
}
auto varying_blocks(void* buf, const int counts[], const int displs[], MPI_Datatype type) {
  return [=](int i) { return std::pair{at(buf, type, displs[i]), counts[i]}; };
}
auto varying_blocks(const void* buf, const int counts[], const int displs[], MPI_Datatype type) {
  return [=](int i) { return std::pair{at(buf, type, displs[i]), counts[i]}; };
}

}  // namespace

bool neighborhood_collectives_replaced() {
  return kReplaced;
}

std::string neighborhood_collectives_note() {
  if (!kReplaced) return "";
  return "note: neighborhood collectives are graphcomm's direct schedule (one isend/irecv per "
         "neighbour), not the library's: " +
         std::string(flavour::neighborhood_collectives_missing);
}

MPI_Comm create_dist_graph_adjacent(MPI_Comm comm, const std::vector<int>& sources,
                                    const std::vector<int>& destinations) {
  MPI_Comm graph = MPI_COMM_NULL;
  if constexpr (!kReplaced) {
    MPI_Dist_graph_create_adjacent(comm, static_cast<int>(sources.size()), sources.data(),
                                   MPI_UNWEIGHTED, static_cast<int>(destinations.size()),
                                   destinations.data(), MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &graph);
  } else {
    graph = duplicate(comm);
    auto* r = new Replacement{sources, destinations, duplicate(comm)};
    MPI_Comm_set_attr(graph, replacement_key(), r);
  }
  return graph;
}

bool is_dist_graph(MPI_Comm comm) {
  if constexpr (kReplaced) return find_replacement(comm) != nullptr;
  int kind = MPI_UNDEFINED;
  MPI_Topo_test(comm, &kind);
  return kind == MPI_DIST_GRAPH;
}

void dist_graph_neighbors(MPI_Comm comm, std::vector<int>& sources,
                          std::vector<int>& destinations) {
  if constexpr (kReplaced) {
    const Replacement& r = replacement_of(comm);
    sources = r.sources;
    destinations = r.destinations;
    return;
  }
  int in = 0, out = 0, weighted = 0;
  MPI_Dist_graph_neighbors_count(comm, &in, &out, &weighted);
  sources.resize(static_cast<size_t>(in));
  destinations.resize(static_cast<size_t>(out));
  std::vector<int> in_w(static_cast<size_t>(in)), out_w(static_cast<size_t>(out));
  MPI_Dist_graph_neighbors(comm, in, sources.data(), weighted ? in_w.data() : MPI_UNWEIGHTED, out,
                           destinations.data(), weighted ? out_w.data() : MPI_UNWEIGHTED);
}

NeighborRequest::NeighborRequest(NeighborRequest&& other) noexcept
    : library_(std::exchange(other.library_, MPI_REQUEST_NULL)),
      schedule_(std::exchange(other.schedule_, {})) {}

NeighborRequest& NeighborRequest::operator=(NeighborRequest&& other) noexcept {
  if (this != &other) {
    wait();
    library_ = std::exchange(other.library_, MPI_REQUEST_NULL);
    schedule_ = std::exchange(other.schedule_, {});
  }
  return *this;
}

NeighborRequest::~NeighborRequest() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) wait();
}

void NeighborRequest::wait() {
  if (library_ != MPI_REQUEST_NULL) MPI_Wait(&library_, MPI_STATUS_IGNORE);
  wait_and_clear(schedule_);
}

void ineighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                         int recvcount, MPI_Datatype recvtype, MPI_Comm comm, NeighborRequest& r) {
  r.wait();
  if constexpr (kReplaced)
    return start_direct(comm, sendtype, recvtype, shared_block(sendbuf, sendcount),
                        uniform_blocks(recvbuf, recvcount, recvtype), r.schedule());
  MPI_Ineighbor_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                          r.library());
}

void ineighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                          const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                          MPI_Comm comm, NeighborRequest& r) {
  r.wait();
  if constexpr (kReplaced)
    return start_direct(comm, sendtype, recvtype, shared_block(sendbuf, sendcount),
                        varying_blocks(recvbuf, recvcounts, displs, recvtype), r.schedule());
  MPI_Ineighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                           comm, r.library());
}

void ineighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                        int recvcount, MPI_Datatype recvtype, MPI_Comm comm, NeighborRequest& r) {
  r.wait();
  if constexpr (kReplaced)
    return start_direct(comm, sendtype, recvtype, uniform_blocks(sendbuf, sendcount, sendtype),
                        uniform_blocks(recvbuf, recvcount, recvtype), r.schedule());
  MPI_Ineighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                         r.library());
}

void ineighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                         MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                         const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                         NeighborRequest& r) {
  r.wait();
  if constexpr (kReplaced)
    return start_direct(comm, sendtype, recvtype,
                        varying_blocks(sendbuf, sendcounts, sdispls, sendtype),
                        varying_blocks(recvbuf, recvcounts, rdispls, recvtype), r.schedule());
  MPI_Ineighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                          recvtype, comm, r.library());
}

// The blocking calls: the library's own (it may schedule them differently
// from its nonblocking ones), or the direct schedule started and waited on.
template <class Library, class Start>
void blocking(Library library, Start start) {
  if constexpr (!kReplaced) {
    library();
  } else {
    NeighborRequest r;
    start(r);
    r.wait();
  }
}

void neighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                        int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  blocking(
      [&] {
        MPI_Neighbor_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
      },
      [&](NeighborRequest& r) {
        ineighbor_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, r);
      });
}

void neighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                         const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                         MPI_Comm comm) {
  blocking(
      [&] {
        MPI_Neighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                                comm);
      },
      [&](NeighborRequest& r) {
        ineighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                             comm, r);
      });
}

void neighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  blocking(
      [&] {
        MPI_Neighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
      },
      [&](NeighborRequest& r) {
        ineighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, r);
      });
}

void neighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                        MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                        const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  blocking(
      [&] {
        MPI_Neighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                               recvtype, comm);
      },
      [&](NeighborRequest& r) {
        ineighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                            recvtype, comm, r);
      });
}

}  // namespace gc
