// The fit behind graphcomm advise's cost models (cost_model.hpp for the
// kernels, network_model.hpp for the neighbour collectives): a time as a sum
// of at most kTerms counts, each times a non-negative cost per unit, fitted
// on measured runs. Generic: it knows nothing of what the counts count.
#pragma once

#include <array>
#include <cstddef>
#include <functional>
#include <vector>

namespace gc::advise {

inline constexpr std::size_t kTerms = 6;

struct Coefficients {
  std::array<double, kTerms> cost{};       // seconds per unit of each term
  std::size_t samples = 0;                 // fitted on
  double median_error = 0, max_error = 0;  // leave-one-out relative error |pred/meas - 1|
};

// One measured run: its counts and its time. `known`: the part of the time
// already explained (by terms fitted before, in a fit by stages); the fit
// explains the rest, its error still relative to the whole time.
struct Observation {
  std::array<double, kTerms> counts{};
  double seconds = 0;
  double known = 0;
};

// Non-negative least squares of the relative error, over every subset of the
// terms (there are six): the best subset whose solution is non-negative.
// Terms whose count is zero in every observation get cost 0. `required`, a
// bit per term (1 << k), when not 0: only subsets holding at least one of
// those terms are tried.
std::array<double, kTerms> fit_costs(const std::vector<Observation>& observations,
                                     unsigned required = 0);
// fit_costs, and its leave-one-out error (0 with fewer than two observations).
Coefficients fit(const std::vector<Observation>& observations, unsigned required = 0);

// The leave-one-out errors of `n` observations: `error_without(i)` is
// |predicted/measured - 1| of observation i by a fit made without it. Both 0
// with fewer than two observations.
struct LeaveOneOut {
  double median_error = 0, max_error = 0;
};
LeaveOneOut leave_one_out(std::size_t n, const std::function<double(std::size_t)>& error_without);

struct Prediction {
  double seconds = 0;
  std::array<double, kTerms> term_seconds{};
};
Prediction predict(const Coefficients& c, const std::array<double, kTerms>& counts);

}  // namespace gc::advise
