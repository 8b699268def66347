// The frame every matching algorithm runs in (locally_dominant.cpp,
// suitor.cpp: Suitor): one exchange over the matching neighbourhood, the clock
// between barriers, the round profile (round 0 is the algorithm's local phase,
// then one round per evoke/process/done iteration), and the result's figures
// (weight, cardinality) from the mates. Internal to kernels/match/.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "comm/round_profile.hpp"
#include "kernels/match/match.hpp"

namespace gc::match {

// Per neighbour rank, two messages per cut edge and direction: what both
// algorithms send at most, in all (so also in any one phase); at most
// options.round_messages per neighbour and round in flight.
Neighborhood matching_neighborhood(const DistGraph& g, const ExchangeOptions& options);

// The position of ghost l's owner in the neighbourhood.
int owner_index(const DistGraph& g, lid_t ghost);

class MatchRun {
 public:
  // Collective: creates the exchange (its setup timed apart), then starts the clock.
  MatchRun(const Comm& comm, const DistGraph& g, const std::string& model,
           const ExchangeOptions& options);

  Exchange& exchange() { return *ex_; }

  // Closes round 0: the local phase since the clock started.
  void end_local_phase() { record(); }
  // One phase of the exchange: evoke, process (each message to `handle`),
  // done(settled()) until done; each iteration is a round.
  void run_phase(const std::function<void(int, const Message&)>& handle,
                 const std::function<bool()>& settled);
  // One such iteration (a round); true once the phase is done.
  bool run_round(const std::function<void(int, const Message&)>& handle,
                 const std::function<bool()>& settled);
  // A collective of the algorithm's own, counted as communication time of
  // the next round (or of the last one, if none follows).
  void add_comm(double seconds) { pending_comm_ += seconds; }

  // Collective: stops the clock; the result with its figures.
  MatchResult finish(std::vector<vid_t> mate, std::uint64_t phases);

 private:
  void record();

  const Comm& comm_;
  const DistGraph& g_;
  std::unique_ptr<Exchange> ex_;
  double setup_seconds_ = 0;
  double start_ = 0, mark_ = 0;  // clock start; end of the last recorded round
  double pending_comm_ = 0, in_comm_ = 0, push_mpi_ = 0;
  std::uint64_t messages_ = 0;
  RoundProfile profile_;
};

// The algorithms, on a started run; each returns its result through finish().
MatchResult run_locally_dominant(const DistGraph& g, MatchRun& run);
MatchResult run_suitor(const Comm& comm, const DistGraph& g, MatchRun& run, double slice_seconds);

}  // namespace gc::match
