// Shared by the models whose phases end by a nonblocking barrier (rma-fence,
// rma-hash, shmem-fence, shmem-hash: one_sided_packets.hpp; hybrid.cpp): a
// rank that is settled and has completed its writes enters the barrier and
// keeps processing while it is pending; once it completes, every rank has
// completed every write of the phase.
#pragma once

#include <thread>

#include "core/barrier.hpp"
#include "core/flavour.hpp"
#include "core/mpi.hpp"

namespace gc {

// The end of a phase, Exchange::done() of these models, as a state machine:
//   active    the kernel may push;
//   flushing  settled: the open packets are sent, and what waits for room in
//             its destination's ring is written as room appears;
//   closing   this rank's writes are complete; it is in the barrier;
//   draining  the barrier completed: every write of the phase is complete,
//             and this rank processes what is left of it.
// The model supplies the steps, as members that it lets PhaseBarrier call:
// send_open_packets(); write_waiting(), which writes what it can of what
// waits and is true once nothing does; complete_writes(), of all this rank
// wrote; drained(), true once this rank has processed every packet of the
// phase.
class PhaseBarrier {
 public:
  PhaseBarrier() = default;
  explicit PhaseBarrier(const Comm& comm) : barrier_(comm) {}  // collective

  bool active() const { return state_ == State::active; }
  bool draining() const { return state_ == State::draining; }

  // One call of the model's done(): true when the phase ended, and the next
  // one is active.
  template <class Model>
  bool done(bool locally_settled, Model& model) {
    if (state_ == State::active) {
      if (!locally_settled) return false;
      model.send_open_packets();
      state_ = State::flushing;
    }
    if (state_ == State::flushing) {
      if (!model.write_waiting()) return false;  // the kernel keeps processing meanwhile
      model.complete_writes();
      barrier_.enter();
      state_ = State::closing;
    }
    if (state_ == State::closing) {
      if (!barrier_.completed()) return false;
      state_ = State::draining;
    }
    if (!model.drained()) return false;
    state_ = State::active;
    return true;
  }

 private:
  enum class State { active, flushing, closing, draining };
  State state_ = State::active;
  NonblockingBarrier barrier_;
};

// More ranks of `comm` on this node than cores: a rank that polls in vain
// should give the core away (the rank it waits for may be waiting for it).
// Collective.
inline bool node_oversubscribed(const Comm& comm) {
  if constexpr (flavour::simulated) return false;  // a modeled node has its cores
  MPI_Comm shared;
  MPI_Comm_split_type(comm.get(), MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shared);
  const Comm node = Comm::adopt(shared);
  return static_cast<unsigned>(node.size()) > std::thread::hardware_concurrency();
}

}  // namespace gc
