// libgraphcomm-nbr.so: collaborative neighborhood collectives for unmodified
// MPI programs. Loaded with LD_PRELOAD, it intercepts (through the MPI
// profiling interface) the neighbour collectives MPI_Neighbor_allgather(v),
// MPI_Neighbor_alltoall(v) and their MPI_Ineighbor_* forms. On the first call
// on a distributed-graph communicator it builds that communicator's plan
// (collective, as the call is) and caches it on the communicator as an
// attribute, freed with it; where no friend group formed on any rank, the
// library's own call runs (unless it misorders repeated edges, checked
// once). Settings, read once:
//   GRAPHCOMM_NBR_OFF=1            every call is the library's own
//   GRAPHCOMM_NBR_K=2|3|4|auto     group size (default auto)
//   GRAPHCOMM_NBR_THETA=T          least common neighbours (default k+1)
//   GRAPHCOMM_NBR_MODE=agnostic|aware, GRAPHCOMM_NBR_RANKS_PER_NODE=N
//   GRAPHCOMM_NBR_REPORT=1         each rank prints, when a communicator's
//                                  plan is freed or at MPI_Finalize, the calls
//                                  it combined and the messages it sent
//                                  against the library's schedule
// The nonblocking forms run the combined schedule at once and return a
// completed generalized request: correct, without overlap.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "nbr/collectives.hpp"

namespace {

using gc::nbr::Collectives;

struct Settings {
  bool off = false, report = false;
  gc::nbr::PlanOptions options;
};

const Settings& settings() {
  static const Settings s = [] {
    Settings s;
    auto env = [](const char* name) -> std::string {
      const char* v = std::getenv(name);
      return v ? v : "";
    };
    s.off = env("GRAPHCOMM_NBR_OFF") == "1";
    s.report = env("GRAPHCOMM_NBR_REPORT") == "1";
    const std::string k = env("GRAPHCOMM_NBR_K");
    s.options.k = k.empty() || k == "auto" ? 0 : std::atoi(k.c_str());
    s.options.theta = std::atoi(env("GRAPHCOMM_NBR_THETA").c_str());
    s.options.mode =
        env("GRAPHCOMM_NBR_MODE") == "aware" ? gc::nbr::Mode::aware : gc::nbr::Mode::agnostic;
    s.options.ranks_per_node = std::atoi(env("GRAPHCOMM_NBR_RANKS_PER_NODE").c_str());
    return s;
  }();
  return s;
}

// Our own MPI calls (plan building, schedules) go straight to the library.
bool inside = false;
struct Inside {
  Inside() { inside = true; }
  ~Inside() { inside = false; }
};

// What a communicator's cache holds: the plan (null when the library's own
// call serves) and the figures to report.
struct Cached {
  std::unique_ptr<Collectives> collectives;
  std::uint64_t calls = 0;
};

void report(const Cached& c) {
  if (!settings().report || !c.collectives) return;
  int rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const auto& f = c.collectives->plan().figures;
  std::fprintf(stderr,
               "graphcomm-nbr: rank %d: %llu combined calls, %llu messages per call "
               "(library schedule: %llu), %llu groups joined\n",
               rank, static_cast<unsigned long long>(c.calls),
               static_cast<unsigned long long>(f.messages),
               static_cast<unsigned long long>(f.default_messages),
               static_cast<unsigned long long>(f.groups));
}

// Every cached plan not yet freed, for the report at MPI_Finalize.
std::vector<Cached*>& live() {
  static std::vector<Cached*> all;
  return all;
}

int delete_cached(MPI_Comm, int, void* value, void*) {
  auto* c = static_cast<Cached*>(value);
  Inside guard;
  report(*c);
  std::erase(live(), c);
  delete c;
  return MPI_SUCCESS;
}

int keyval() {
  static int key = MPI_KEYVAL_INVALID;
  if (key == MPI_KEYVAL_INVALID)
    PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_cached, &key, nullptr);
  return key;
}

// The plan of `comm` (built on first use), or null: off, inside our own
// calls, not a distributed graph, or the library's own call serves.
Collectives* plan_for(MPI_Comm comm) {
  if (inside || settings().off) return nullptr;
  int kind = MPI_UNDEFINED;
  PMPI_Topo_test(comm, &kind);
  if (kind != MPI_DIST_GRAPH) return nullptr;
  void* value = nullptr;
  int found = 0;
  PMPI_Comm_get_attr(comm, keyval(), &value, &found);
  if (!found) {
    Inside guard;
    auto c = std::make_unique<Cached>();
    c->collectives = std::make_unique<Collectives>(comm, settings().options);
    if (c->collectives->library_serves()) c->collectives.reset();  // the same everywhere
    live().push_back(c.get());
    value = c.release();
    PMPI_Comm_set_attr(comm, keyval(), value);
  }
  auto* c = static_cast<Cached*>(value);
  if (!c->collectives) return nullptr;
  ++c->calls;
  return c->collectives.get();
}

// A nonblocking call done at once: a request that is already complete.
int completed(MPI_Request* request) {
  return PMPI_Grequest_start(
             [](void*, MPI_Status* status) {
               MPI_Status_set_elements(status, MPI_BYTE, 0);
               MPI_Status_set_cancelled(status, 0);
               status->MPI_SOURCE = MPI_UNDEFINED;
               status->MPI_TAG = MPI_UNDEFINED;
               return MPI_SUCCESS;
             },
             [](void*) { return MPI_SUCCESS; }, [](void*, int) { return MPI_SUCCESS; }, nullptr,
             request) == MPI_SUCCESS
             ? PMPI_Grequest_complete(*request)
             : MPI_ERR_OTHER;
}

}  // namespace

extern "C" {

int MPI_Neighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                           int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  Collectives* c = plan_for(comm);
  if (!c)
    return PMPI_Neighbor_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                   comm);
  Inside guard;
  c->allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
  return MPI_SUCCESS;
}

int MPI_Neighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                            void* recvbuf, const int recvcounts[], const int displs[],
                            MPI_Datatype recvtype, MPI_Comm comm) {
  Collectives* c = plan_for(comm);
  if (!c)
    return PMPI_Neighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                    recvtype, comm);
  Inside guard;
  c->allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype);
  return MPI_SUCCESS;
}

int MPI_Neighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                          int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  Collectives* c = plan_for(comm);
  if (!c)
    return PMPI_Neighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  Inside guard;
  c->alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
  return MPI_SUCCESS;
}

int MPI_Neighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                           MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                           const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  Collectives* c = plan_for(comm);
  if (!c)
    return PMPI_Neighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                   rdispls, recvtype, comm);
  Inside guard;
  c->alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype);
  return MPI_SUCCESS;
}

int MPI_Ineighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                            void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                            MPI_Request* request) {
  Collectives* c = plan_for(comm);
  if (!c)
    return PMPI_Ineighbor_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                    comm, request);
  Inside guard;
  c->allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
  return completed(request);
}

int MPI_Ineighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                             void* recvbuf, const int recvcounts[], const int displs[],
                             MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  Collectives* c = plan_for(comm);
  if (!c)
    return PMPI_Ineighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                     recvtype, comm, request);
  Inside guard;
  c->allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype);
  return completed(request);
}

int MPI_Ineighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                           int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                           MPI_Request* request) {
  Collectives* c = plan_for(comm);
  if (!c)
    return PMPI_Ineighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                                   request);
  Inside guard;
  c->alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
  return completed(request);
}

int MPI_Ineighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                            MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                            const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                            MPI_Request* request) {
  Collectives* c = plan_for(comm);
  if (!c)
    return PMPI_Ineighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                    rdispls, recvtype, comm, request);
  Inside guard;
  c->alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype);
  return completed(request);
}

// Plans of communicators never freed are reported before MPI ends (and left
// to the process's end: freeing them here would need every rank to free
// them in the same order).
int MPI_Finalize() {
  for (const Cached* c : live()) report(*c);
  return PMPI_Finalize();
}

}  // extern "C"
