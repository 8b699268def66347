// The cost model of graphcomm advise: the time of one run of a kernel
// (one matching, one BFS search, one SpMM iteration's gather) over one configuration
// (algorithm and communication model, or SpMM's gather method) as a sum of terms, each a count from
// the input's features (advise/features.hpp) times a cost per unit:
//
//   t = c_scan     * edges_max             edges the busiest rank scans
//     + c_message  * cut_max               cut edges of the busiest rank: each
//                                          costs messages (requests, parents)
//     + c_neighbour * R * d_max            per round, a buffer, put or slot for
//                                          each neighbour rank (ncl, rma, nsr-agg)
//     + c_round    * R * (1 + log2 P)      per round, a synchronization (allreduce,
//                                          fence, barrier) of log2 P steps
//     + c_global   * G                     a pass over the whole graph on every rank:
//                                          BFS, R * |V| (per level the frontier bitmap
//                                          of replicated and bottom-up steps, the level
//                                          array); SpMM, 2 |E| (allgather gathers A)
//
// R is the number of rounds: BFS levels (features.levels); 1 for matching,
// whose rounds (5-20 on the inputs measured) fold into the per-round costs,
// and for SpMM (one gather per iteration).
// The costs are fitted per configuration (non-negative least squares on the
// relative error) on calibration runs (advise/calibration.hpp): measured on
// this machine, or simulated on a platform. docs/advise.md explains each term.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "advise/features.hpp"

namespace gc::advise {

enum class Term { scan, message, neighbour, round, global };
inline constexpr std::size_t kTerms = 5;
const char* term_name(Term t);

// The counts of each term for a kernel ("match", "bfs" or "spmm") on an input.
std::array<double, kTerms> term_counts(const std::string& kernel, const Features& f);

struct Coefficients {
  std::array<double, kTerms> cost{};       // seconds per unit of each term
  std::size_t samples = 0;                 // fitted on
  double median_error = 0, max_error = 0;  // leave-one-out relative error |pred/meas - 1|
};

// One measured run: its counts and its time.
struct Observation {
  std::array<double, kTerms> counts{};
  double seconds = 0;
};

// Non-negative least squares of the relative error, over every subset of the
// terms (there are five): the best subset whose solution is non-negative.
// Terms whose count is zero in every observation get cost 0.
std::array<double, kTerms> fit_costs(const std::vector<Observation>& observations);
// fit_costs, and its leave-one-out error (0 with fewer than two observations).
Coefficients fit(const std::vector<Observation>& observations);

struct Prediction {
  double seconds = 0;
  std::array<double, kTerms> term_seconds{};
};
Prediction predict(const Coefficients& c, const std::array<double, kTerms>& counts);

}  // namespace gc::advise
