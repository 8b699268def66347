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
//   GRAPHCOMM_NBR_COMBINE=always|auto
//                                  always (default): every call where a group
//                                  formed is combined; auto: per call, what
//                                  graphcomm advise's network model
//                                  (advise/network_model.hpp) predicts faster
//                                  at the call's block size, priced with the
//                                  calibration of `graphcomm advise
//                                  --calibrate --kernel nbr` ($GRAPHCOMM_
//                                  CALIBRATION, else advise's default file).
//                                  allgather and alltoall choose per call from
//                                  the block size, the same on every rank of a
//                                  connected topology; the v forms choose once,
//                                  at their first call, from the largest mean
//                                  block over ranks then
//   GRAPHCOMM_NBR_REPORT=1         each rank prints, when a communicator's
//                                  plan is freed or at MPI_Finalize, the calls
//                                  it combined and the messages it sent
//                                  against the library's schedule (rank 0
//                                  alone, at once, where no group forms); with auto,
//                                  rank 0 prints at the plan's making for
//                                  which block sizes it combines, and why
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

#include <fmt/format.h>

#include "advise/calibration_file.hpp"
#include "advise/network_model.hpp"
#include "core/error.hpp"
#include "nbr/collectives.hpp"

namespace {

using gc::nbr::Collectives;

struct Settings {
  bool off = false, report = false, automatic = false;
  std::string combine;  // as given, checked at the first plan
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
    s.combine = env("GRAPHCOMM_NBR_COMBINE");
    s.automatic = s.combine == "auto";
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

enum Kind { kAllgather, kAlltoall, kAllgatherv, kAlltoallv };

// GRAPHCOMM_NBR_COMBINE=auto: the network model's counts of the library's
// schedule and of the plan, at 1 byte per block, over ranks.
struct Choice {
  gc::advise::NetworkCosts costs;
  gc::advise::NbrConfiguration direct, plan[2];  // plan: allgather, alltoall
  int decided[2] = {-1, -1};  // allgatherv, alltoallv: 1 combine, 0 not, -1 not yet
  bool combine(Kind kind, std::uint64_t block) const {
    const auto& p = plan[kind == kAlltoall || kind == kAlltoallv ? 1 : 0];
    return predict_seconds(costs, at_block(p, block)) <
           predict_seconds(costs, at_block(direct, block));
  }
};

// What a communicator's cache holds: the plan (null when the library's own
// call serves), auto's choice, and the figures to report.
struct Cached {
  std::unique_ptr<Collectives> collectives;
  std::unique_ptr<Choice> choice;
  std::uint64_t calls = 0, library_calls = 0;  // combined, and left to the library by auto
};

void report(const Cached& c) {
  if (!settings().report || !c.collectives) return;
  int rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const auto& f = c.collectives->plan().figures;
  std::fprintf(
      stderr,
      "graphcomm-nbr: rank %d: %llu combined calls, %llu messages per call "
      "(library schedule: %llu), %llu groups joined%s\n",
      rank, static_cast<unsigned long long>(c.calls), static_cast<unsigned long long>(f.messages),
      static_cast<unsigned long long>(f.default_messages),
      static_cast<unsigned long long>(f.groups),
      c.choice ? fmt::format("; auto: {} calls left to the library", c.library_calls).c_str() : "");
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

// An error while making a plan (a bad setting, no calibration): every rank
// of the communicator has it; rank 0 says it, and the job ends.
[[noreturn]] void abort_with(MPI_Comm comm, const std::string& what) {
  int rank = 0;
  PMPI_Comm_rank(comm, &rank);
  if (rank == 0) std::fprintf(stderr, "graphcomm-nbr: error: %s\n", what.c_str());
  PMPI_Abort(comm, 1);
  std::abort();
}

// The range of block sizes the choice combines, in words.
std::string combined_blocks(const Choice& c, Kind kind) {
  const bool small = c.combine(kind, 1), large = c.combine(kind, std::uint64_t{1} << 40);
  if (small == large) return small ? "every block size" : "no block size";
  std::uint64_t lo = 1, hi = std::uint64_t{1} << 40;  // c.combine(lo) == small != c.combine(hi)
  while (hi - lo > 1) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    (c.combine(kind, mid) == small ? lo : hi) = mid;
  }
  return fmt::format("blocks {} {} B", small ? "up to" : "from", small ? lo : hi);
}

// Collective: auto's counts for `comm` and its plan, priced with the
// calibration's costs at this communicator's size.
std::unique_ptr<Choice> make_choice(MPI_Comm comm, const Collectives& collectives) {
  const gc::Comm c = gc::Comm::borrow(comm);
  auto choice = std::make_unique<Choice>();
  const std::string path = gc::advise::default_calibration_path("");
  choice->costs = gc::advise::fit_network(
      gc::advise::network_samples(gc::advise::read_calibration(c, path)), c.size());
  const gc::nbr::Plan& plan = collectives.plan();
  const std::vector<int> node_of =
      gc::nbr::node_of_every_rank(comm, settings().options.ranks_per_node);
  const std::string name =
      settings().options.k == 0 ? "k=auto" : fmt::format("k={}", settings().options.k);
  choice->direct = gc::advise::global_counts(
      c, node_of, "direct", gc::nbr::direct_counts(plan.topology, 1, c.rank(), node_of), 0);
  const char* kinds[2] = {"allgather", "alltoall"};
  for (int k = 0; k < 2; ++k)
    choice->plan[k] = gc::advise::global_counts(
        c, node_of, name, gc::nbr::plan_counts(plan, c.rank(), kinds[k], 1, node_of),
        plan.figures.groups);
  if (settings().report && c.rank() == 0)
    std::fprintf(stderr,
                 "graphcomm-nbr: auto (%s, %zu calls at %d ranks): allgather combines %s, "
                 "alltoall %s: fewer messages against a second hop and blocks sent twice\n",
                 path.c_str(), choice->costs.samples, choice->costs.ranks,
                 combined_blocks(*choice, kAllgather).c_str(),
                 combined_blocks(*choice, kAlltoall).c_str());
  return choice;
}

std::uint64_t bytes_of(int count, MPI_Datatype type) {
  int size = 0;
  PMPI_Type_size(type, &size);
  return static_cast<std::uint64_t>(count) * static_cast<std::uint64_t>(size);
}

// A v form's block on this rank: the mean over its destinations.
std::uint64_t mean_block(MPI_Comm comm, const int counts[], MPI_Datatype type) {
  int in = 0, out = 0, weighted = 0;
  PMPI_Dist_graph_neighbors_count(comm, &in, &out, &weighted);
  std::uint64_t total = 0;
  for (int i = 0; i < out; ++i) total += bytes_of(counts[i], type);
  return out > 0 ? total / static_cast<std::uint64_t>(out) : 0;
}

// The plan of `comm` (built on first use), or null: off, inside our own
// calls, not a distributed graph, or the library's own call serves, or
// (auto) the library's own call is predicted faster for this call's block
// of block_of() bytes (the v forms: this rank's mean block), asked only
// when auto decides.
template <class BlockOf>
Collectives* plan_for(MPI_Comm comm, Kind kind, BlockOf block_of) {
  if (inside || settings().off) return nullptr;
  int topology = MPI_UNDEFINED;
  PMPI_Topo_test(comm, &topology);
  if (topology != MPI_DIST_GRAPH) return nullptr;
  void* value = nullptr;
  int found = 0;
  PMPI_Comm_get_attr(comm, keyval(), &value, &found);
  if (!found) {
    Inside guard;
    auto c = std::make_unique<Cached>();
    try {
      if (!settings().combine.empty() && settings().combine != "always" && !settings().automatic)
        gc::fail_everywhere(
            fmt::format("GRAPHCOMM_NBR_COMBINE={}: always or auto", settings().combine));
      c->collectives = std::make_unique<Collectives>(comm, settings().options);
      if (c->collectives->library_serves()) {
        const gc::Comm graph = gc::Comm::borrow(comm);
        if (settings().report && graph.rank() == 0)
          std::fprintf(stderr,
                       "graphcomm-nbr: no group forms on this communicator (%d ranks): its calls "
                       "are the library's own\n",
                       graph.size());
        c->collectives.reset();  // the same everywhere
      } else if (settings().automatic)
        c->choice = make_choice(comm, *c->collectives);
    } catch (const gc::Error& e) {
      abort_with(comm, e.what());
    }
    live().push_back(c.get());
    value = c.release();
    PMPI_Comm_set_attr(comm, keyval(), value);
  }
  auto* c = static_cast<Cached*>(value);
  if (!c->collectives) return nullptr;
  if (c->choice) {
    bool combine = false;
    if (kind == kAllgather || kind == kAlltoall) {
      combine = c->choice->combine(kind, block_of());
    } else {
      int& decided = c->choice->decided[kind == kAllgatherv ? 0 : 1];
      if (decided < 0) {
        Inside guard;
        const std::uint64_t block = block_of();
        std::uint64_t largest = 0;
        PMPI_Allreduce(&block, &largest, 1, MPI_UINT64_T, MPI_MAX, comm);
        decided = c->choice->combine(kind, largest) ? 1 : 0;
      }
      combine = decided == 1;
    }
    if (!combine) {
      ++c->library_calls;
      return nullptr;
    }
  }
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
  Collectives* c = plan_for(comm, kAllgather, [&] { return bytes_of(sendcount, sendtype); });
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
  Collectives* c = plan_for(comm, kAllgatherv, [&] { return bytes_of(sendcount, sendtype); });
  if (!c)
    return PMPI_Neighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                    recvtype, comm);
  Inside guard;
  c->allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype);
  return MPI_SUCCESS;
}

int MPI_Neighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                          int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  Collectives* c = plan_for(comm, kAlltoall, [&] { return bytes_of(sendcount, sendtype); });
  if (!c)
    return PMPI_Neighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  Inside guard;
  c->alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
  return MPI_SUCCESS;
}

int MPI_Neighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                           MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                           const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  Collectives* c =
      plan_for(comm, kAlltoallv, [&] { return mean_block(comm, sendcounts, sendtype); });
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
  Collectives* c = plan_for(comm, kAllgather, [&] { return bytes_of(sendcount, sendtype); });
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
  Collectives* c = plan_for(comm, kAllgatherv, [&] { return bytes_of(sendcount, sendtype); });
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
  Collectives* c = plan_for(comm, kAlltoall, [&] { return bytes_of(sendcount, sendtype); });
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
  Collectives* c =
      plan_for(comm, kAlltoallv, [&] { return mean_block(comm, sendcounts, sendtype); });
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
