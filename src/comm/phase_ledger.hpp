// Termination by message counts, the phase bookkeeping of the Send-Recv
// models (nsr, nsr-agg). Per neighbour: what this rank sent it in the phase,
// what arrived from it, and what it announced it sent (its DONE). A settled
// rank announces its counts to every neighbour; the phase ends on this rank
// once every neighbour announced and everything announced has arrived.
//
// Phases alternate between two pairs of tags (data, DONE): a neighbour that
// already finished phase k may send for phase k+1 (never k+2: that needs this
// rank's DONE for k+1). What arrives for phase k+1 during phase k, data and
// DONE, is kept aside until this rank finishes phase k. The tags live on the
// ledger's own communicator, which the model sends and receives on: they
// never meet anybody else's.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include <fmt/format.h>

#include "comm/exchange.hpp"
#include "comm/neighbor_index.hpp"

namespace gc {

class PhaseLedger {
 public:
  PhaseLedger() = default;
  // Collective over `comm`: `neighbours` are Neighborhood::ranks.
  PhaseLedger(const Comm& comm, const std::vector<int>& neighbours)
      : comm_(comm.dup()),
        neighbors_(neighbours, comm.size()),
        sent_(neighbours.size(), 0),
        received_(neighbours.size(), 0),
        announced_(neighbours.size(), kUnknown),
        next_announced_(neighbours.size(), kUnknown) {}

  // What the model sends and receives on: a duplicate, the tags' own.
  MPI_Comm comm() const { return comm_.get(); }
  // The neighbour index of the sender of a message that arrived on comm().
  int sender_index(const MPI_Status& status, const char* model) const {
    const int index = neighbors_.of(status.MPI_SOURCE);
    if (index == kFromOutsideNeighborhood)
      fail(
          fmt::format("internal: {} message from non-neighbour rank {}", model, status.MPI_SOURCE));
    return index;
  }

  // The tags of the current phase.
  int data_tag() const { return kTagData[parity_]; }
  int done_tag() const { return kTagDone[parity_]; }
  // Data, of either phase (else a DONE).
  static bool is_data(int tag) { return tag == kTagData[0] || tag == kTagData[1]; }
  // Of the current phase (else of the next).
  bool is_current(int tag) const { return tag == kTagData[parity_] || tag == kTagDone[parity_]; }

  std::uint64_t sent(size_t i) const { return sent_[i]; }
  void count_sent(size_t i) { ++sent_[i]; }
  void count_received(size_t i, std::uint64_t messages) { received_[i] += messages; }
  // Neighbour i's DONE, which came with `tag`: it sent `messages` in that phase.
  void record_done(size_t i, int tag, std::uint64_t messages) {
    (is_current(tag) ? announced_ : next_announced_)[i] = messages;
  }
  // Data of the next phase that arrived during this one.
  void keep_for_next_phase(int index, const Message& message) {
    early_.push_back({index, message});
  }
  // Hands what arrived for this phase during the last one to `handle`, first.
  template <class Handle>
  void replay_early(Handle&& handle) {
    for (const Early& e : carried_) {
      ++received_[static_cast<size_t>(e.index)];
      handle(e.index, e.message);
    }
    carried_.clear();
  }

  // Announces this rank's counts: send_done(i, sent) for every neighbour i.
  template <class SendDone>
  void announce(SendDone&& send_done) {
    for (size_t i = 0; i < sent_.size(); ++i) send_done(i, sent_[i]);
    done_sent_ = true;
  }
  bool done_sent() const { return done_sent_; }
  // Every neighbour announced, and all it announced has arrived.
  bool all_arrived() const {
    for (size_t i = 0; i < announced_.size(); ++i)
      if (announced_[i] == kUnknown || received_[i] != announced_[i]) return false;
    return true;
  }

  void next_phase() {
    parity_ ^= 1;
    std::fill(sent_.begin(), sent_.end(), 0);
    std::fill(received_.begin(), received_.end(), 0);
    announced_.swap(next_announced_);
    std::fill(next_announced_.begin(), next_announced_.end(), kUnknown);
    done_sent_ = false;
    carried_.swap(early_);
  }

 private:
  static constexpr int kTagData[2] = {1, 3};  // by phase parity
  static constexpr int kTagDone[2] = {2, 4};
  static constexpr std::uint64_t kUnknown = ~0ULL;
  struct Early {
    int index;
    Message message;
  };

  Comm comm_;
  NeighborIndex neighbors_;
  int parity_ = 0;  // of the current phase: picks the tags
  std::vector<std::uint64_t> sent_, received_, announced_, next_announced_;
  std::vector<Early> early_;    // data of the next phase, arrived during this one
  std::vector<Early> carried_;  // data of this phase that arrived during the last one
  bool done_sent_ = false;
};

}  // namespace gc
