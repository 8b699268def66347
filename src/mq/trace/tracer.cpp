// libgraphcomm-mqtrace.so: records an unmodified MPI program's matching
// events, one trace file per rank (format and reconstruction in
// docs/mq-trace.md). Loaded with LD_PRELOAD (scripts/trace does it), it
// intercepts the C bindings through the MPI profiling interface (PMPI):
//
//   sends      MPI_Send, Bsend, Ssend, Rsend, Isend, Ibsend, Issend, Irsend,
//              the persistent *_init + Start/Startall, Sendrecv(_replace)
//   receives   MPI_Recv, Irecv, Recv_init + Start/Startall, Sendrecv(_replace),
//              Mprobe/Improbe (the match; Mrecv/Imrecv add nothing)
//   probes     MPI_Probe, Iprobe, an Improbe that found nothing
//   completion MPI_Wait*, Test* (any, all, some), Request_get_status, with
//              MPI_Test_cancelled telling cancels; a receive freed while
//              active with MPI_Request_free is kept and tested until it ends
//   comms      every intracommunicator constructor (dup, split, create,
//              topologies, merge): its members agree on an id with an
//              MPI_Allreduce(MAX) of their next free id
//
// Settings: GRAPHCOMM_MQTRACE_DIR (required) is where rank-<r>.mqt goes;
// GRAPHCOMM_MQTRACE_CHUNK=BYTES sets the chunk size (the flush interval).
// Records reach the file in chunks; MPI_Finalize writes the end record,
// MPI_Abort and SIGTERM/SIGINT/SIGSEGV/SIGABRT/SIGBUS flush what is buffered.
//
// Not recorded: collectives (their messages do not go through the
// point-to-point calls), one-sided communication, traffic on
// intercommunicators and on communicators from MPI_Comm_idup (a warning
// says so once). Times come from CLOCK_REALTIME relative to rank 0's at
// MPI_Init, not MPI_Wtime: Open MPI's MPI_Wtime counts from each process's
// own start, so its values cannot be compared across ranks.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/error.hpp"
#include "mq/trace/trace.hpp"

namespace {

namespace mq = gc::mq;
using mq::Record;

constexpr std::uint32_t kWorldId = 0, kSelfId = 1;

// A request the tracer follows: a receive (its index while active) or a
// persistent send (what each Start sends).
struct Tracked {
  enum class Kind : std::uint8_t { receive, persistent_receive, persistent_send };
  Kind kind = Kind::receive;
  bool active = false;
  bool recorded = false;  // its completion is in the trace already
  std::uint64_t index = 0;
  std::uint32_t comm = 0;
  std::int32_t peer = 0, tag = 0;
};

struct Tracer {
  std::unique_ptr<mq::TraceWriter> writer;
  int rank = 0, size = 0;
  timespec origin{};
  std::uint64_t receives = 0;
  std::uint64_t next_comm = 2;
  int keyval = MPI_KEYVAL_INVALID;
  MPI_Group world_group = MPI_GROUP_NULL;
  std::unordered_map<MPI_Request, Tracked> requests;
  std::vector<MPI_Request> zombies;  // receives freed while active
  bool warned_unknown = false;
  std::mutex lock;  // bookkeeping only, never held across a blocking call
};

Tracer* tracer = nullptr;  // non-null between MPI_Init and MPI_Finalize
thread_local int depth = 0;

// Inside a wrapper: our own MPI calls, and the library's calls of MPI_*
// names, go straight through.
class Scope {
 public:
  Scope() : on_(tracer != nullptr && depth == 0) { ++depth; }
  ~Scope() { --depth; }
  explicit operator bool() const { return on_; }

 private:
  bool on_;
};

double now() {
  timespec t{};
  clock_gettime(CLOCK_REALTIME, &t);
  return static_cast<double>(t.tv_sec - tracer->origin.tv_sec) +
         1e-9 * static_cast<double>(t.tv_nsec - tracer->origin.tv_nsec);
}

void say(const std::string& what) {
  std::fprintf(stderr, "graphcomm-mqtrace: rank %d: %s\n", tracer ? tracer->rank : -1,
               what.c_str());
}

// Writes a record; a write error ends tracing on this rank (said once).
void add(const Record& r) {
  if (!tracer->writer) return;
  try {
    tracer->writer->add(r);
  } catch (const gc::Error& e) {
    say(std::string("error: ") + e.what() + "; tracing stops on this rank");
    tracer->writer.reset();
  }
}

std::int32_t source_of(int source) {
  return source == MPI_ANY_SOURCE ? mq::kAnySource : source;
}
std::int32_t tag_of(int tag) {
  return tag == MPI_ANY_TAG ? mq::kAnyTag : tag;
}

std::optional<std::uint32_t> comm_id(MPI_Comm comm) {
  if (comm == MPI_COMM_WORLD) return kWorldId;
  if (comm == MPI_COMM_NULL) return std::nullopt;
  void* value = nullptr;
  int found = 0;
  PMPI_Comm_get_attr(comm, tracer->keyval, &value, &found);
  if (found) return static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(value));
  std::lock_guard guard(tracer->lock);
  if (!tracer->warned_unknown)
    say("traffic on a communicator the tracer does not know (an intercommunicator, or one "
        "from MPI_Comm_idup) is not recorded");
  tracer->warned_unknown = true;
  return std::nullopt;
}

std::vector<std::int32_t> world_ranks(MPI_Comm comm) {
  int n = 0;
  PMPI_Comm_size(comm, &n);
  MPI_Group group;
  PMPI_Comm_group(comm, &group);
  std::vector<int> local(static_cast<std::size_t>(n)), world(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) local[static_cast<std::size_t>(i)] = i;
  PMPI_Group_translate_ranks(group, n, local.data(), tracer->world_group, world.data());
  PMPI_Group_free(&group);
  return {world.begin(), world.end()};
}

void record_comm(std::uint32_t id, MPI_Comm comm) {
  Record r;
  r.kind = Record::Kind::comm;
  r.comm = id;
  r.world_ranks = world_ranks(comm);
  r.peer = static_cast<std::int32_t>(r.world_ranks.size());
  std::lock_guard guard(tracer->lock);
  add(r);
}

// A new communicator (collective over its members): agree on its id.
void register_comm(MPI_Comm comm) {
  if (comm == MPI_COMM_NULL) return;
  int inter = 0;
  PMPI_Comm_test_inter(comm, &inter);
  if (inter) return;
  unsigned long long mine = tracer->next_comm, agreed = 0;
  PMPI_Allreduce(&mine, &agreed, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, comm);
  tracer->next_comm = agreed + 1;
  if (agreed >= (1u << 20)) return;  // more than a reader accepts: not traced
  const auto id = static_cast<std::uint32_t>(agreed);
  PMPI_Comm_set_attr(comm, tracer->keyval, reinterpret_cast<void*>(std::uintptr_t{id}));
  record_comm(id, comm);
}

void record_send(MPI_Comm comm, int dest, int tag, double time) {
  if (dest == MPI_PROC_NULL) return;
  const auto id = comm_id(comm);
  if (!id) return;
  Record r;
  r.kind = Record::Kind::send;
  r.comm = *id;
  r.peer = dest;
  r.tag = tag;
  r.time = time;
  std::lock_guard guard(tracer->lock);
  add(r);
}

// A posted receive; its index, or nothing when it is not traced.
std::optional<std::uint64_t> record_post(std::uint32_t comm, std::int32_t source, std::int32_t tag,
                                         double time) {
  Record r;
  r.kind = Record::Kind::post;
  r.comm = comm;
  r.peer = source;
  r.tag = tag;
  r.time = time;
  std::lock_guard guard(tracer->lock);
  add(r);
  return tracer->receives++;
}

std::optional<std::uint64_t> record_post(MPI_Comm comm, int source, int tag, double time) {
  if (source == MPI_PROC_NULL) return std::nullopt;
  const auto id = comm_id(comm);
  if (!id) return std::nullopt;
  return record_post(*id, source_of(source), tag_of(tag), time);
}

// `cancellable`: a nonblocking receive, whose status may say it was
// cancelled (others' statuses need not even set that bit: MPICH's Mprobe).
void record_completion(std::uint64_t index, const MPI_Status& status, double time,
                       bool cancellable = false) {
  int cancelled = 0;
  if (cancellable) PMPI_Test_cancelled(&status, &cancelled);
  Record r;
  r.kind = cancelled ? Record::Kind::cancel : Record::Kind::complete;
  r.index = index;
  r.peer = status.MPI_SOURCE;
  r.tag = status.MPI_TAG;
  r.time = time;
  std::lock_guard guard(tracer->lock);
  add(r);
}

void record_probe(MPI_Comm comm, int source, int tag, bool found, const MPI_Status& status,
                  double time) {
  if (source == MPI_PROC_NULL) return;
  const auto id = comm_id(comm);
  if (!id) return;
  Record r;
  r.kind = Record::Kind::probe;
  r.comm = *id;
  r.peer = source_of(source);
  r.tag = tag_of(tag);
  r.found_peer = found ? status.MPI_SOURCE : mq::kNotFound;
  r.found_tag = found ? status.MPI_TAG : mq::kNotFound;
  r.time = time;
  std::lock_guard guard(tracer->lock);
  add(r);
}

// A matched probe (MPI_Mprobe, MPI_Improbe): a receive posted and completed.
void record_matched_probe(MPI_Comm comm, int source, int tag, MPI_Message message,
                          const MPI_Status& status, double posted) {
  if (message == MPI_MESSAGE_NO_PROC) return;
  if (const auto index = record_post(comm, source, tag, posted))
    record_completion(*index, status, now());
}

void follow(MPI_Request request, const Tracked& t) {
  std::lock_guard guard(tracer->lock);
  tracer->requests.insert_or_assign(request, t);
}

// Request `request` (its handle before the call) completed with `status`.
void completed(MPI_Request request, const MPI_Status& status, double time) {
  std::unique_lock guard(tracer->lock);
  const auto it = tracer->requests.find(request);
  if (it == tracer->requests.end()) return;
  Tracked& t = it->second;
  const bool record = t.kind != Tracked::Kind::persistent_send && t.active && !t.recorded;
  const std::uint64_t index = t.index;
  if (t.kind == Tracked::Kind::receive)
    tracer->requests.erase(it);
  else
    t.active = false;
  guard.unlock();
  if (record) record_completion(index, status, time, true);
}

void start(MPI_Request request, double time) {
  std::unique_lock guard(tracer->lock);
  const auto it = tracer->requests.find(request);
  if (it == tracer->requests.end()) return;
  Tracked t = it->second;
  guard.unlock();
  if (t.kind == Tracked::Kind::persistent_send) {
    Record r;
    r.kind = Record::Kind::send;
    r.comm = t.comm;
    r.peer = t.peer;
    r.tag = t.tag;
    r.time = time;
    guard.lock();
    add(r);
    return;
  }
  const auto index = record_post(t.comm, t.peer, t.tag, time);
  guard.lock();
  Tracked& live = tracer->requests[request];
  live.active = true;
  live.recorded = false;
  live.index = *index;
}

// Receives the program freed while active: completed in the background.
void test_zombies(bool finalizing) {
  std::vector<MPI_Request> zombies;
  {
    std::lock_guard guard(tracer->lock);
    if (tracer->zombies.empty()) return;
    zombies.swap(tracer->zombies);
  }
  std::vector<MPI_Request> left;
  for (MPI_Request r : zombies) {
    MPI_Request handle = r;
    int flag = 0;
    MPI_Status status;
    PMPI_Test(&handle, &flag, &status);
    if (flag) completed(r, status, now());
    if (flag && handle == MPI_REQUEST_NULL) continue;
    if (flag || finalizing) {  // done (persistent), or never: free it as the program asked
      {
        std::lock_guard guard(tracer->lock);
        tracer->requests.erase(r);
      }
      PMPI_Request_free(&handle);
      continue;
    }
    left.push_back(r);
  }
  std::lock_guard guard(tracer->lock);
  tracer->zombies.insert(tracer->zombies.end(), left.begin(), left.end());
}

// Statuses for calls whose caller ignores them.
MPI_Status* statuses_for(MPI_Status* given, int count, std::vector<MPI_Status>& own) {
  if (given != MPI_STATUSES_IGNORE) return given;
  own.resize(static_cast<std::size_t>(std::max(count, 1)));
  return own.data();
}
MPI_Status* status_for(MPI_Status* given, MPI_Status& own) {
  return given == MPI_STATUS_IGNORE ? &own : given;
}

// ------------------------------------------------------------ start and end

constexpr std::array<int, 5> kSignals = {SIGTERM, SIGINT, SIGSEGV, SIGABRT, SIGBUS};
struct sigaction previous[kSignals.size()];

void on_signal(int sig) {
  if (tracer && tracer->writer) tracer->writer->flush();
  for (std::size_t i = 0; i < kSignals.size(); ++i)
    if (kSignals[i] == sig) sigaction(sig, &previous[i], nullptr);
  raise(sig);  // delivered on return, to the handler there was before
}

void install_signal_handlers() {
  struct sigaction action {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  for (std::size_t i = 0; i < kSignals.size(); ++i) sigaction(kSignals[i], &action, &previous[i]);
}

void restore_signal_handlers() {
  for (std::size_t i = 0; i < kSignals.size(); ++i) sigaction(kSignals[i], &previous[i], nullptr);
}

void begin() {
  auto t = std::make_unique<Tracer>();
  PMPI_Comm_rank(MPI_COMM_WORLD, &t->rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &t->size);
  // Rank 0's clock at start is every rank's origin; the run id tells the
  // files of this run from others.
  unsigned long long shared[3] = {0, 0, 0};
  if (t->rank == 0) {
    timespec ts{};
    clock_gettime(CLOCK_REALTIME, &ts);
    shared[0] = static_cast<unsigned long long>(ts.tv_sec);
    shared[1] = static_cast<unsigned long long>(ts.tv_nsec);
    shared[2] =
        (shared[0] * 1000000000ull + shared[1]) ^ (static_cast<unsigned long long>(getpid()) << 40);
  }
  PMPI_Bcast(shared, 3, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
  t->origin.tv_sec = static_cast<time_t>(shared[0]);
  t->origin.tv_nsec = static_cast<long>(shared[1]);

  std::string error;
  const char* dir = std::getenv("GRAPHCOMM_MQTRACE_DIR");
  const char* chunk = std::getenv("GRAPHCOMM_MQTRACE_CHUNK");
  if (!dir || !*dir) {
    error = "GRAPHCOMM_MQTRACE_DIR is not set (run the program through scripts/trace)";
  } else {
    try {
      t->writer = std::make_unique<mq::TraceWriter>(
          std::string(dir) + "/rank-" + std::to_string(t->rank) + ".mqt", t->rank, t->size,
          shared[2],
          chunk ? std::strtoull(chunk, nullptr, 10) : mq::TraceWriter::kDefaultChunkBytes);
    } catch (const gc::Error& e) {
      error = e.what();
    }
  }
  // One rank says what went wrong, then the run stops.
  int first = error.empty() ? t->size : t->rank, lowest = t->size;
  PMPI_Allreduce(&first, &lowest, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (lowest < t->size) {
    if (t->rank == lowest) {
      std::fprintf(stderr, "graphcomm-mqtrace: error: %s\n", error.c_str());
      std::fflush(stderr);
      PMPI_Abort(MPI_COMM_WORLD, 1);
    }
    PMPI_Barrier(MPI_COMM_WORLD);  // until the abort arrives
  }

  PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &t->keyval, nullptr);
  PMPI_Comm_group(MPI_COMM_WORLD, &t->world_group);
  PMPI_Comm_set_attr(MPI_COMM_WORLD, t->keyval, reinterpret_cast<void*>(std::uintptr_t{kWorldId}));
  PMPI_Comm_set_attr(MPI_COMM_SELF, t->keyval, reinterpret_cast<void*>(std::uintptr_t{kSelfId}));
  tracer = t.release();
  record_comm(kWorldId, MPI_COMM_WORLD);
  record_comm(kSelfId, MPI_COMM_SELF);
  install_signal_handlers();
}

void end() {
  test_zombies(true);
  restore_signal_handlers();
  Tracer* t = tracer;
  Record r;
  r.kind = Record::Kind::end;
  r.time = now();
  add(r);
  if (t->writer) {
    try {
      t->writer->close();
    } catch (const gc::Error& e) {
      say(std::string("error: ") + e.what());
    }
  }
  tracer = nullptr;
  PMPI_Group_free(&t->world_group);
  delete t;
}

// A wait or test, traced: `call(status or statuses)` is the PMPI call with
// every other argument bound; what it completed is recorded, at one time.
// `flag` is null for a wait (it completes), else the test's flag.
template <class Call>
int traced_one(MPI_Request* request, const int* flag, MPI_Status* status, Call call) {
  MPI_Status own;
  status = status_for(status, own);
  const MPI_Request handle = *request;
  const int rc = call(status);
  if (rc == MPI_SUCCESS && (!flag || *flag)) completed(handle, *status, now());
  test_zombies(false);
  return rc;
}

template <class Call>
int traced_any(int count, MPI_Request requests[], const int* index, const int* flag,
               MPI_Status* status, Call call) {
  MPI_Status own;
  status = status_for(status, own);
  const std::vector<MPI_Request> handles(requests, requests + count);
  const int rc = call(status);
  if (rc == MPI_SUCCESS && (!flag || *flag) && *index != MPI_UNDEFINED)
    completed(handles[static_cast<std::size_t>(*index)], *status, now());
  test_zombies(false);
  return rc;
}

template <class Call>
int traced_all(int count, MPI_Request requests[], const int* flag, MPI_Status statuses[],
               Call call) {
  thread_local std::vector<MPI_Status> own;
  statuses = statuses_for(statuses, count, own);
  const std::vector<MPI_Request> handles(requests, requests + count);
  const int rc = call(statuses);
  if (rc == MPI_SUCCESS && (!flag || *flag)) {
    const double t = now();
    for (int i = 0; i < count; ++i) completed(handles[static_cast<std::size_t>(i)], statuses[i], t);
  }
  test_zombies(false);
  return rc;
}

template <class Call>
int traced_some(int count, MPI_Request requests[], const int* outcount, const int indices[],
                MPI_Status statuses[], Call call) {
  thread_local std::vector<MPI_Status> own;
  statuses = statuses_for(statuses, count, own);
  const std::vector<MPI_Request> handles(requests, requests + count);
  const int rc = call(statuses);
  if (rc == MPI_SUCCESS && *outcount != MPI_UNDEFINED) {
    const double t = now();
    for (int j = 0; j < *outcount; ++j)
      completed(handles[static_cast<std::size_t>(indices[j])], statuses[j], t);
  }
  test_zombies(false);
  return rc;
}

// A communicator-making call's return code `rc`, the communicator it made
// (`*made`, read after the call) registered when this call is traced (`s`).
int registering(const Scope& s, const MPI_Comm* made, int rc) {
  if (s && rc == MPI_SUCCESS) register_comm(*made);
  return rc;
}

}  // namespace

// ------------------------------------------------------------ the MPI calls

extern "C" {

int MPI_Init(int* argc, char*** argv) {
  const int rc = PMPI_Init(argc, argv);
  if (rc == MPI_SUCCESS && !tracer) begin();
  return rc;
}

int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  const int rc = PMPI_Init_thread(argc, argv, required, provided);
  if (rc == MPI_SUCCESS && !tracer) begin();
  return rc;
}

int MPI_Finalize(void) {
  if (tracer) end();
  return PMPI_Finalize();
}

int MPI_Abort(MPI_Comm comm, int errorcode) {
  if (tracer && tracer->writer) tracer->writer->flush();
  return PMPI_Abort(comm, errorcode);
}

// ---- communicators

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm* newcomm) {
  Scope s;
  return registering(s, newcomm, PMPI_Comm_dup(comm, newcomm));
}

int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm) {
  Scope s;
  return registering(s, newcomm, PMPI_Comm_dup_with_info(comm, info, newcomm));
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* newcomm) {
  Scope s;
  return registering(s, newcomm, PMPI_Comm_split(comm, color, key, newcomm));
}

int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm* newcomm) {
  Scope s;
  return registering(s, newcomm, PMPI_Comm_split_type(comm, split_type, key, info, newcomm));
}

int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm* newcomm) {
  Scope s;
  return registering(s, newcomm, PMPI_Comm_create(comm, group, newcomm));
}

int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm* newcomm) {
  Scope s;
  return registering(s, newcomm, PMPI_Comm_create_group(comm, group, tag, newcomm));
}

int MPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm* newintracomm) {
  Scope s;
  return registering(s, newintracomm, PMPI_Intercomm_merge(intercomm, high, newintracomm));
}

int MPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[],
                    int reorder, MPI_Comm* comm_cart) {
  Scope s;
  return registering(s, comm_cart,
                     PMPI_Cart_create(comm_old, ndims, dims, periods, reorder, comm_cart));
}

int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm* newcomm) {
  Scope s;
  return registering(s, newcomm, PMPI_Cart_sub(comm, remain_dims, newcomm));
}

int MPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[],
                     int reorder, MPI_Comm* comm_graph) {
  Scope s;
  return registering(s, comm_graph,
                     PMPI_Graph_create(comm_old, nnodes, index, edges, reorder, comm_graph));
}

int MPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                          const int destinations[], const int weights[], MPI_Info info, int reorder,
                          MPI_Comm* comm_dist_graph) {
  Scope s;
  return registering(s, comm_dist_graph,
                     PMPI_Dist_graph_create(comm_old, n, sources, degrees, destinations, weights,
                                            info, reorder, comm_dist_graph));
}

int MPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                   const int sourceweights[], int outdegree,
                                   const int destinations[], const int destweights[], MPI_Info info,
                                   int reorder, MPI_Comm* comm_dist_graph) {
  Scope s;
  return registering(
      s, comm_dist_graph,
      PMPI_Dist_graph_create_adjacent(comm_old, indegree, sources, sourceweights, outdegree,
                                      destinations, destweights, info, reorder, comm_dist_graph));
}

// ---- sends: a blocking send is recorded before it blocks

#define GRAPHCOMM_BLOCKING_SEND(NAME)                                                  \
  int MPI_##NAME(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, \
                 MPI_Comm comm) {                                                      \
    Scope s;                                                                           \
    if (s) record_send(comm, dest, tag, now());                                        \
    return PMPI_##NAME(buf, count, datatype, dest, tag, comm);                         \
  }
GRAPHCOMM_BLOCKING_SEND(Send)
GRAPHCOMM_BLOCKING_SEND(Bsend)
GRAPHCOMM_BLOCKING_SEND(Ssend)
GRAPHCOMM_BLOCKING_SEND(Rsend)
#undef GRAPHCOMM_BLOCKING_SEND

#define GRAPHCOMM_NONBLOCKING_SEND(NAME)                                               \
  int MPI_##NAME(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, \
                 MPI_Comm comm, MPI_Request* request) {                                \
    Scope s;                                                                           \
    const double t = s ? now() : 0;                                                    \
    const int rc = PMPI_##NAME(buf, count, datatype, dest, tag, comm, request);        \
    if (s && rc == MPI_SUCCESS) record_send(comm, dest, tag, t);                       \
    return rc;                                                                         \
  }
GRAPHCOMM_NONBLOCKING_SEND(Isend)
GRAPHCOMM_NONBLOCKING_SEND(Ibsend)
GRAPHCOMM_NONBLOCKING_SEND(Issend)
GRAPHCOMM_NONBLOCKING_SEND(Irsend)
#undef GRAPHCOMM_NONBLOCKING_SEND

#define GRAPHCOMM_PERSISTENT_SEND(NAME)                                                \
  int MPI_##NAME(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, \
                 MPI_Comm comm, MPI_Request* request) {                                \
    Scope s;                                                                           \
    const int rc = PMPI_##NAME(buf, count, datatype, dest, tag, comm, request);        \
    if (!s || rc != MPI_SUCCESS || dest == MPI_PROC_NULL) return rc;                   \
    if (const auto id = comm_id(comm)) {                                               \
      Tracked t;                                                                       \
      t.kind = Tracked::Kind::persistent_send;                                         \
      t.comm = *id;                                                                    \
      t.peer = dest;                                                                   \
      t.tag = tag;                                                                     \
      follow(*request, t);                                                             \
    }                                                                                  \
    return rc;                                                                         \
  }
GRAPHCOMM_PERSISTENT_SEND(Send_init)
GRAPHCOMM_PERSISTENT_SEND(Bsend_init)
GRAPHCOMM_PERSISTENT_SEND(Ssend_init)
GRAPHCOMM_PERSISTENT_SEND(Rsend_init)
#undef GRAPHCOMM_PERSISTENT_SEND

// ---- receives

int MPI_Recv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
             MPI_Status* status) {
  Scope s;
  if (!s) return PMPI_Recv(buf, count, datatype, source, tag, comm, status);
  MPI_Status own;
  status = status_for(status, own);
  const auto index = record_post(comm, source, tag, now());
  const int rc = PMPI_Recv(buf, count, datatype, source, tag, comm, status);
  if (index && rc == MPI_SUCCESS) record_completion(*index, *status, now());
  return rc;
}

int MPI_Irecv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
              MPI_Request* request) {
  Scope s;
  const double t = s ? now() : 0;
  const int rc = PMPI_Irecv(buf, count, datatype, source, tag, comm, request);
  if (!s || rc != MPI_SUCCESS) return rc;
  if (const auto index = record_post(comm, source, tag, t)) {
    Tracked tracked;
    tracked.kind = Tracked::Kind::receive;
    tracked.active = true;
    tracked.index = *index;
    follow(*request, tracked);
  }
  return rc;
}

int MPI_Recv_init(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                  MPI_Request* request) {
  Scope s;
  const int rc = PMPI_Recv_init(buf, count, datatype, source, tag, comm, request);
  if (!s || rc != MPI_SUCCESS || source == MPI_PROC_NULL) return rc;
  if (const auto id = comm_id(comm)) {
    Tracked t;
    t.kind = Tracked::Kind::persistent_receive;
    t.comm = *id;
    t.peer = source_of(source);
    t.tag = tag_of(tag);
    follow(*request, t);
  }
  return rc;
}

int MPI_Start(MPI_Request* request) {
  Scope s;
  const double t = s ? now() : 0;
  const MPI_Request handle = *request;
  const int rc = PMPI_Start(request);
  if (s && rc == MPI_SUCCESS) start(handle, t);
  return rc;
}

int MPI_Startall(int count, MPI_Request requests[]) {
  Scope s;
  if (!s) return PMPI_Startall(count, requests);
  const double t = now();
  const std::vector<MPI_Request> handles(requests, requests + count);
  const int rc = PMPI_Startall(count, requests);
  if (rc == MPI_SUCCESS)
    for (MPI_Request h : handles) start(h, t);
  return rc;
}

// The receive is posted (and recorded) before the send, as the libraries do.
int MPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                 void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                 MPI_Comm comm, MPI_Status* status) {
  Scope s;
  if (!s)
    return PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
                         source, recvtag, comm, status);
  MPI_Status own;
  status = status_for(status, own);
  const double t = now();
  const auto index = record_post(comm, source, recvtag, t);
  record_send(comm, dest, sendtag, t);
  const int rc = PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                               recvtype, source, recvtag, comm, status);
  if (index && rc == MPI_SUCCESS) record_completion(*index, *status, now());
  return rc;
}

int MPI_Sendrecv_replace(void* buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                         int source, int recvtag, MPI_Comm comm, MPI_Status* status) {
  Scope s;
  if (!s)
    return PMPI_Sendrecv_replace(buf, count, datatype, dest, sendtag, source, recvtag, comm,
                                 status);
  MPI_Status own;
  status = status_for(status, own);
  const double t = now();
  const auto index = record_post(comm, source, recvtag, t);
  record_send(comm, dest, sendtag, t);
  const int rc =
      PMPI_Sendrecv_replace(buf, count, datatype, dest, sendtag, source, recvtag, comm, status);
  if (index && rc == MPI_SUCCESS) record_completion(*index, *status, now());
  return rc;
}

// ---- probes

int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status* status) {
  Scope s;
  if (!s) return PMPI_Probe(source, tag, comm, status);
  MPI_Status own;
  status = status_for(status, own);
  const int rc = PMPI_Probe(source, tag, comm, status);
  // Blocking: it found the message when it returned.
  if (rc == MPI_SUCCESS) record_probe(comm, source, tag, true, *status, now());
  return rc;
}

int MPI_Iprobe(int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status) {
  Scope s;
  if (!s) return PMPI_Iprobe(source, tag, comm, flag, status);
  MPI_Status own;
  status = status_for(status, own);
  const double t = now();
  const int rc = PMPI_Iprobe(source, tag, comm, flag, status);
  if (rc == MPI_SUCCESS) record_probe(comm, source, tag, *flag != 0, *status, t);
  return rc;
}

int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message* message, MPI_Status* status) {
  Scope s;
  if (!s) return PMPI_Mprobe(source, tag, comm, message, status);
  MPI_Status own;
  status = status_for(status, own);
  const double t = now();
  const int rc = PMPI_Mprobe(source, tag, comm, message, status);
  if (rc == MPI_SUCCESS) record_matched_probe(comm, source, tag, *message, *status, t);
  return rc;
}

int MPI_Improbe(int source, int tag, MPI_Comm comm, int* flag, MPI_Message* message,
                MPI_Status* status) {
  Scope s;
  if (!s) return PMPI_Improbe(source, tag, comm, flag, message, status);
  MPI_Status own;
  status = status_for(status, own);
  const double t = now();
  const int rc = PMPI_Improbe(source, tag, comm, flag, message, status);
  if (rc != MPI_SUCCESS) return rc;
  if (*flag)
    record_matched_probe(comm, source, tag, *message, *status, t);
  else
    record_probe(comm, source, tag, false, *status, t);
  return rc;
}

// ---- completions

int MPI_Wait(MPI_Request* request, MPI_Status* status) {
  Scope s;
  if (!s) return PMPI_Wait(request, status);
  return traced_one(request, nullptr, status,
                    [&](MPI_Status* st) { return PMPI_Wait(request, st); });
}

int MPI_Test(MPI_Request* request, int* flag, MPI_Status* status) {
  Scope s;
  if (!s) return PMPI_Test(request, flag, status);
  return traced_one(request, flag, status,
                    [&](MPI_Status* st) { return PMPI_Test(request, flag, st); });
}

int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
  Scope s;
  if (!s) return PMPI_Waitall(count, requests, statuses);
  return traced_all(count, requests, nullptr, statuses,
                    [&](MPI_Status* st) { return PMPI_Waitall(count, requests, st); });
}

int MPI_Testall(int count, MPI_Request requests[], int* flag, MPI_Status statuses[]) {
  Scope s;
  if (!s) return PMPI_Testall(count, requests, flag, statuses);
  return traced_all(count, requests, flag, statuses,
                    [&](MPI_Status* st) { return PMPI_Testall(count, requests, flag, st); });
}

int MPI_Waitany(int count, MPI_Request requests[], int* index, MPI_Status* status) {
  Scope s;
  if (!s) return PMPI_Waitany(count, requests, index, status);
  return traced_any(count, requests, index, nullptr, status,
                    [&](MPI_Status* st) { return PMPI_Waitany(count, requests, index, st); });
}

int MPI_Testany(int count, MPI_Request requests[], int* index, int* flag, MPI_Status* status) {
  Scope s;
  if (!s) return PMPI_Testany(count, requests, index, flag, status);
  return traced_any(count, requests, index, flag, status,
                    [&](MPI_Status* st) { return PMPI_Testany(count, requests, index, flag, st); });
}

int MPI_Waitsome(int incount, MPI_Request requests[], int* outcount, int indices[],
                 MPI_Status statuses[]) {
  Scope s;
  if (!s) return PMPI_Waitsome(incount, requests, outcount, indices, statuses);
  return traced_some(incount, requests, outcount, indices, statuses, [&](MPI_Status* st) {
    return PMPI_Waitsome(incount, requests, outcount, indices, st);
  });
}

int MPI_Testsome(int incount, MPI_Request requests[], int* outcount, int indices[],
                 MPI_Status statuses[]) {
  Scope s;
  if (!s) return PMPI_Testsome(incount, requests, outcount, indices, statuses);
  return traced_some(incount, requests, outcount, indices, statuses, [&](MPI_Status* st) {
    return PMPI_Testsome(incount, requests, outcount, indices, st);
  });
}

// Completes without freeing: the completion is recorded now, once.
int MPI_Request_get_status(MPI_Request request, int* flag, MPI_Status* status) {
  Scope s;
  if (!s) return PMPI_Request_get_status(request, flag, status);
  MPI_Status own;
  status = status_for(status, own);
  const int rc = PMPI_Request_get_status(request, flag, status);
  if (rc != MPI_SUCCESS || !*flag) return rc;
  std::unique_lock guard(tracer->lock);
  const auto it = tracer->requests.find(request);
  if (it == tracer->requests.end()) return rc;
  Tracked& t = it->second;
  if (t.kind == Tracked::Kind::persistent_send || !t.active || t.recorded) return rc;
  t.recorded = true;
  const std::uint64_t index = t.index;
  guard.unlock();
  record_completion(index, *status, now(), true);
  return rc;
}

// An active receive the program frees still gets a message: the tracer
// keeps the request and tests it until it completes (or MPI_Finalize).
int MPI_Request_free(MPI_Request* request) {
  Scope s;
  if (!s || *request == MPI_REQUEST_NULL) return PMPI_Request_free(request);
  std::unique_lock guard(tracer->lock);
  const auto it = tracer->requests.find(*request);
  if (it != tracer->requests.end() && it->second.kind != Tracked::Kind::persistent_send &&
      it->second.active && !it->second.recorded) {
    tracer->zombies.push_back(*request);
    *request = MPI_REQUEST_NULL;
    return MPI_SUCCESS;
  }
  if (it != tracer->requests.end()) tracer->requests.erase(it);
  guard.unlock();
  return PMPI_Request_free(request);
}

}  // extern "C"
