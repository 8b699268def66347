// The owner-computes exchange: the interface a kernel is written against, in
// the vocabulary of Ghosh et al. (IPDPS 2019, section III): a kernel *pushes*
// messages for neighbour ranks, *evokes* communication progress and
// *processes* what arrived; the exchange detects termination. One class per
// communication model implements it (nsr.cpp, nsr_agg.cpp, rma.cpp, ncl.cpp,
// rma_packets.cpp, shmem_packets.cpp, hybrid.cpp); a kernel never touches a
// model's internals. comm/models.hpp lists the models: a new model is one new
// file and one row there.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/mpi.hpp"

namespace gc {

// Every message is two 64-bit words; the kernel decides their meaning.
struct Message {
  std::uint64_t first;
  std::uint64_t second;
  friend bool operator==(const Message&, const Message&) = default;
};

// What an exchange sent: per destination rank, and the rounds it took.
struct CommCounters {
  std::vector<std::uint64_t> messages_to;  // indexed by destination rank
  std::vector<std::uint64_t> bytes_to;
  std::uint64_t rounds = 0;  // exchange rounds (evoke calls that moved data)
  // The flow control at work: times a neighbour's batch was cut at the round
  // bound (round-based models) or a packet waited for room in its
  // destination's ring (one-sided packet models, hybrid).
  std::uint64_t flow_waits = 0;
  std::uint64_t messages() const;
  std::uint64_t bytes() const;
};

// What a user may choose about any exchange, whatever the kernel over it
// (--round-messages, --plan-build); a model reads what applies to it.
struct ExchangeOptions {
  // Flow control, so buffers stay bounded however large a phase is. Round-based
  // models (rma, ncl, ncl-combined): the most messages one round carries to
  // one neighbour; the rest wait for the next round, in order. One-sided
  // packet models (rma-/shmem-fence/-hash): a receive ring holds this many
  // messages per sending neighbour; a packet waits for room. hybrid: its one
  // ring holds about this many messages per sending neighbour (capped). 0: a
  // phase's capacity (no bound). nsr and nsr-agg are bounded by design.
  std::uint64_t round_messages = kDefaultRoundMessages;
  static constexpr std::uint64_t kDefaultRoundMessages = 1 << 16;  // 1 MiB per neighbour
  // ncl-combined: its collaborative plan built on rank 0 and scattered
  // (nbr::PlanOptions::gathered): the same plan, for simulations at
  // thousands of ranks, where the distributed build's rounds of list
  // exchanges cost hours of the simulator's wall time.
  bool gathered_plan = false;
};

// The neighbourhood an exchange serves: the ranks a kernel may push to, and
// for each the most messages it will ever push to it in one phase (so buffers
// and windows are sized once, up front); and the user's options.
struct Neighborhood {
  std::vector<int> ranks;               // sorted; the relation must be symmetric
  std::vector<std::uint64_t> capacity;  // per neighbour, messages in one direction
  ExchangeOptions options;
};

// Phases. A run of the exchange is a sequence of phases: the kernel pushes,
// evokes and processes until done() returns true, which it does on every rank
// of the communicator (each rank may learn it at a different time). The
// exchange is then ready for the next phase, with the same capacities: a
// matching is one phase, a BFS search one phase per level, and one exchange
// serves every level of every search. A rank may start pushing for phase k+1
// while a neighbour is still finishing phase k; the exchange keeps the phases
// apart (a message is only ever processed in the phase it was pushed in).

class WorkShare;  // comm/work_share.hpp
namespace nbr {
struct Plan;  // nbr/plan.hpp
}

// The from_index process() gives a message from a rank outside the
// neighbourhood: only node work sharing sends one (WorkShare::push_to_rank).
inline constexpr int kFromOutsideNeighborhood = -1;

class Exchange {
 public:
  virtual ~Exchange() = default;
  virtual const char* name() const = 0;

  // Queue a message for neighbour `index` (position in Neighborhood::ranks).
  virtual void push(int index, const Message& message) = 0;
  // Make outstanding communication progress (a round, for round-based models).
  virtual void evoke() = 0;
  // Hand every message received so far to `handle`, with the sender's index;
  // the messages of one sender in the order it pushed them (kernels rely on
  // it, as MPI programs rely on non-overtaking). `handle` may push new
  // messages. from_index is kFromOutsideNeighborhood only for a message a
  // node peer pushed through WorkShare::push_to_rank.
  virtual void process(const std::function<void(int from_index, const Message&)>& handle) = 0;
  // True once no rank will send anything more in this phase, which then
  // ends. `locally_settled` says this rank's kernel will push nothing more in
  // this phase, whatever arrives (a kernel that answers messages is settled
  // only once it knows nothing more will come that it must answer).
  virtual bool done(bool locally_settled) = 0;

  // True when done() detects quiescence: it returns true once, after a
  // round, nothing is queued on any rank and every rank says it is settled,
  // every message sent by then having been processed (the round-based
  // models: done() is a global reduction that follows process()). A kernel
  // may then answer what arrives even after it said settled, which then only
  // needs to mean "no work of my own is left": the phase does not end while
  // an answer is queued. Elsewhere a settled rank tells its neighbours it
  // sends no more, and must not push again in the phase.
  virtual bool detects_quiescence() const { return false; }
  // True when evoke() and process() involve no other rank's participation
  // (no collective), so a kernel may call them any number of times, e.g. to
  // handle arrivals while it is still pushing. Round-based models return false:
  // every rank must call evoke() equally often.
  virtual bool local_progress() const { return false; }
  // Messages pushed on this rank that wait for the flow control (queued
  // beyond what a round or the sends in flight carry), so a kernel can hold
  // back new work while they drain. 0 for models that keep no such queue.
  virtual std::uint64_t queued() const { return 0; }
  // Memory this model holds for communication buffers (windows, symmetric
  // heap, staging and send slots), in bytes, on this rank.
  virtual std::uint64_t buffer_bytes() const { return 0; }
  // The ranks of this node sharing work (comm/work_share.hpp), or nullptr:
  // only the hybrid model has it, and only kernels that ask for it use it.
  virtual WorkShare* node_work_share() { return nullptr; }
  // The collaborative plan the model's collectives combine by (ncl-combined:
  // built distributed, or gathered on rank 0 per ExchangeOptions), else nullptr.
  virtual const nbr::Plan* combined_plan() const { return nullptr; }

  const CommCounters& counters() const { return counters_; }
  const Neighborhood& neighborhood() const { return neighborhood_; }
  // The model's setup: its construction (topologies, windows, the
  // collectives that size them), as made by make_timed().
  double setup_seconds() const { return setup_seconds_; }
  // Time spent in MPI calls made inside push() so far (nsr sends eagerly;
  // the round-based models only buffer), for honest compute/comm splits.
  double push_mpi_seconds() const { return push_mpi_seconds_; }

  // Constructs a `Model` and times it: what every make_NAME_exchange does.
  template <class Model, class... Args>
  static std::unique_ptr<Exchange> make_timed(Args&&... args) {
    const double start = MPI_Wtime();
    std::unique_ptr<Exchange> model = std::make_unique<Model>(std::forward<Args>(args)...);
    model->setup_seconds_ = MPI_Wtime() - start;
    return model;
  }

 protected:
  Exchange(const Comm& comm, Neighborhood nb);
  void count(int index, std::uint64_t messages);

  const Comm& comm_;
  Neighborhood neighborhood_;
  CommCounters counters_;
  double setup_seconds_ = 0;
  double push_mpi_seconds_ = 0;
};

// The communication matrix (messages and bytes from every rank to every
// rank), gathered on rank 0; empty elsewhere.
nlohmann::json gather_comm_matrix(const Comm& comm, const CommCounters& counters);

}  // namespace gc
