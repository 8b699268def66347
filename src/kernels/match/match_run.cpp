#include "kernels/match/match_run.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "comm/models.hpp"
#include "core/output.hpp"
#include "core/registry.hpp"

namespace gc::match {

Neighborhood matching_neighborhood(const DistGraph& g, const ExchangeOptions& options) {
  const GhostRelation& rel = g.ghost_relation();
  Neighborhood nb;
  nb.options = options;
  nb.ranks = rel.ranks;
  for (eid_t cut : rel.cut_edges) nb.capacity.push_back(2 * cut);
  return nb;
}

int owner_index(const DistGraph& g, lid_t ghost) {
  // The ghost table is sorted by global id, so grouped by owner in the
  // relation's (sorted) rank order: a search of the few group ends, which
  // stay in cache, rather than a read of the ghost's owner, a cache miss.
  const auto& ends = g.ghost_relation().ghost_end;
  return static_cast<int>(std::upper_bound(ends.begin(), ends.end(), ghost) - ends.begin());
}

MatchRun::MatchRun(const Comm& comm, const DistGraph& g, const std::string& model,
                   const ExchangeOptions& options)
    : comm_(comm), g_(g) {
  g.require_weights("matching");
  PhaseTimer setup_timer(comm);
  ex_ = make_exchange(model, comm, matching_neighborhood(g, options));
  setup_seconds_ = setup_timer.stop();
  comm.barrier();
  start_ = mark_ = MPI_Wtime();
}

// Communication time is what the kernel spends inside evoke, done, its own
// collectives and the MPI calls of push (nsr sends eagerly); the rest of the
// round's wall time is compute.
void MatchRun::record() {
  const double now = MPI_Wtime();
  const double push_now = ex_->push_mpi_seconds();
  const std::uint64_t messages_now = ex_->counters().messages();
  const double comm_part = pending_comm_ + push_now - push_mpi_;
  profile_.record(comm_part, now - mark_ - comm_part, messages_now - messages_);
  in_comm_ += comm_part;
  pending_comm_ = 0;
  push_mpi_ = push_now;
  messages_ = messages_now;
  mark_ = now;
}

void MatchRun::run_phase(const std::function<void(int, const Message&)>& handle,
                         const std::function<bool()>& settled) {
  while (!run_round(handle, settled)) {
  }
}

bool MatchRun::run_round(const std::function<void(int, const Message&)>& handle,
                         const std::function<bool()>& settled) {
  const double t0 = MPI_Wtime();
  ex_->evoke();
  const double t1 = MPI_Wtime();
  ex_->process(handle);
  const double t2 = MPI_Wtime();
  const bool done = ex_->done(settled());
  const double t3 = MPI_Wtime();
  add_comm((t1 - t0) + (t3 - t2));
  record();
  return done;
}

MatchResult MatchRun::finish(std::vector<vid_t> mate, std::uint64_t phases) {
  // What came after the last round (a closing collective) belongs to it.
  const double now = MPI_Wtime();
  const double comm_part = pending_comm_ + ex_->push_mpi_seconds() - push_mpi_;
  profile_.add_to_last(comm_part, now - mark_ - comm_part, ex_->counters().messages() - messages_);
  in_comm_ += comm_part;
  const double local = now - start_;
  const std::uint64_t rounds = profile_.rounds() - 1;
  comm_.barrier();

  MatchResult result;
  result.setup_seconds = setup_seconds_;
  result.seconds = max_over_ranks(comm_, local);
  result.comm_seconds = max_over_ranks(comm_, in_comm_);
  result.compute_seconds = max_over_ranks(comm_, local - in_comm_);
  result.profile = profile_.summarize(comm_);
  result.rounds = max_over_ranks(comm_, rounds);
  result.phases = max_over_ranks(comm_, phases);
  result.counters = ex_->counters();
  result.buffer_bytes = max_over_ranks(comm_, ex_->buffer_bytes());
  result.combined_plan = report_combined_plan(comm_, ex_->combined_plan());
  result.mate = std::move(mate);

  // Weight and cardinality: each matched edge counted by its smaller end.
  double weight = 0;
  std::uint64_t cardinality = 0;
  for (lid_t v = 0; v < g_.owned_count(); ++v) {
    const vid_t u = result.mate[v];
    if (u == kUnmatched || u < g_.global_id(v)) continue;
    auto nbrs = g_.neighbors(v);
    for (size_t j = 0; j < nbrs.size(); ++j)
      if (g_.global_id(nbrs[j]) == u) {
        weight += g_.weight_at(g_.offsets()[v] + j);
        ++cardinality;
        break;
      }
  }
  result.weight = sum_over_ranks(comm_, weight);
  result.cardinality = sum_over_ranks(comm_, cardinality);
  return result;
}

const std::vector<AlgorithmInfo>& algorithm_table() {
  static const std::vector<AlgorithmInfo> table = {
      {"ld", "locally dominant (Preis; Manne and Bisseling), in Ghosh et al.'s two phases",
       [](const Comm&, const DistGraph& g, MatchRun& run, double) {
         return run_locally_dominant(g, run);
       }},
      {"suitor", "Suitor (Manne and Halappanavar, IPDPS 2014), in slices", run_suitor},
  };
  return table;
}

const std::vector<std::string>& matching_algorithms() {
  static const std::vector<std::string> names = names_of(algorithm_table());
  return names;
}

MatchResult match(const Comm& comm, const DistGraph& g, const std::string& model,
                  const std::string& algorithm, const ExchangeOptions& options,
                  double suitor_slice_seconds) {
  for (const AlgorithmInfo& a : algorithm_table())
    if (algorithm == a.name) {
      MatchRun run(comm, g, model, options);
      MatchResult result = a.run(comm, g, run, suitor_slice_seconds);
      result.algorithm = algorithm;
      return result;
    }
  fail(fmt::format("unknown matching algorithm '{}' ({})", algorithm,
                   fmt::join(matching_algorithms(), " or ")));
}

}  // namespace gc::match
