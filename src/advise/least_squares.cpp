#include "advise/least_squares.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace gc::advise {

namespace {

using Matrix = std::vector<std::vector<double>>;

// Solves m x = b in place (Gaussian elimination, partial pivoting); false
// when m is singular to working precision.
bool solve(Matrix m, std::vector<double> b, std::vector<double>& x) {
  const std::size_t n = b.size();
  double scale = 0;
  for (std::size_t i = 0; i < n; ++i) scale = std::max(scale, std::abs(m[i][i]));
  for (std::size_t c = 0; c < n; ++c) {
    std::size_t pivot = c;
    for (std::size_t r = c + 1; r < n; ++r)
      if (std::abs(m[r][c]) > std::abs(m[pivot][c])) pivot = r;
    if (std::abs(m[pivot][c]) <= 1e-10 * scale) return false;
    std::swap(m[c], m[pivot]);
    std::swap(b[c], b[pivot]);
    for (std::size_t r = c + 1; r < n; ++r) {
      const double k = m[r][c] / m[c][c];
      for (std::size_t j = c; j < n; ++j) m[r][j] -= k * m[c][j];
      b[r] -= k * b[c];
    }
  }
  x.assign(n, 0);
  for (std::size_t c = n; c-- > 0;) {
    double s = b[c];
    for (std::size_t j = c + 1; j < n; ++j) s -= m[c][j] * x[j];
    x[c] = s / m[c][c];
  }
  return true;
}

double relative_residual(const std::vector<Observation>& obs, const std::array<double, kTerms>& c) {
  double r = 0;
  for (const Observation& o : obs) {
    double p = o.known;
    for (std::size_t k = 0; k < kTerms; ++k) p += c[k] * o.counts[k];
    r += (p / o.seconds - 1) * (p / o.seconds - 1);
  }
  return r;
}

}  // namespace

std::array<double, kTerms> fit_costs(const std::vector<Observation>& obs, unsigned required) {
  // Columns scaled to at most 1, so that counts of 1e8 edges and 1e1 rounds
  // weigh alike in the elimination.
  std::array<double, kTerms> scale{};
  for (const Observation& o : obs)
    for (std::size_t k = 0; k < kTerms; ++k) scale[k] = std::max(scale[k], std::abs(o.counts[k]));
  std::array<double, kTerms> best{};
  double best_residual = relative_residual(obs, best);
  for (unsigned subset = 1; subset < (1u << kTerms); ++subset) {
    if (required != 0 && (subset & required) == 0) continue;
    std::vector<std::size_t> terms;
    for (std::size_t k = 0; k < kTerms; ++k)
      if (subset >> k & 1) terms.push_back(k);
    if (std::any_of(terms.begin(), terms.end(), [&](std::size_t k) { return scale[k] == 0; }))
      continue;
    // Weighted normal equations: weight 1/t^2 makes the residual relative.
    const std::size_t n = terms.size();
    Matrix m(n, std::vector<double>(n, 0));
    std::vector<double> b(n, 0), x;
    for (const Observation& o : obs) {
      const double w = 1 / (o.seconds * o.seconds);
      for (std::size_t i = 0; i < n; ++i) {
        const double ai = o.counts[terms[i]] / scale[terms[i]];
        b[i] += w * ai * (o.seconds - o.known);
        for (std::size_t j = 0; j < n; ++j)
          m[i][j] += w * ai * o.counts[terms[j]] / scale[terms[j]];
      }
    }
    if (!solve(m, b, x)) continue;
    if (std::any_of(x.begin(), x.end(), [](double v) { return v < 0; })) continue;
    std::array<double, kTerms> c{};
    for (std::size_t i = 0; i < n; ++i) c[terms[i]] = x[i] / scale[terms[i]];
    const double r = relative_residual(obs, c);
    if (r < best_residual * (1 - 1e-9)) {
      best_residual = r;
      best = c;
    }
  }
  return best;
}

LeaveOneOut leave_one_out(std::size_t n, const std::function<double(std::size_t)>& error_without) {
  LeaveOneOut out;
  if (n < 2) return out;
  std::vector<double> errors;
  for (std::size_t i = 0; i < n; ++i) errors.push_back(error_without(i));
  std::sort(errors.begin(), errors.end());
  out.median_error = errors[errors.size() / 2];
  out.max_error = errors.back();
  return out;
}

Coefficients fit(const std::vector<Observation>& obs, unsigned required) {
  Coefficients c;
  c.cost = fit_costs(obs, required);
  c.samples = obs.size();
  const LeaveOneOut loo = leave_one_out(obs.size(), [&](std::size_t i) {
    std::vector<Observation> rest = obs;
    rest.erase(rest.begin() + static_cast<std::ptrdiff_t>(i));
    Coefficients without;
    without.cost = fit_costs(rest, required);
    return std::abs((obs[i].known + predict(without, obs[i].counts).seconds) / obs[i].seconds - 1);
  });
  c.median_error = loo.median_error;
  c.max_error = loo.max_error;
  return c;
}

Prediction predict(const Coefficients& c, const std::array<double, kTerms>& counts) {
  Prediction p;
  for (std::size_t k = 0; k < kTerms; ++k) {
    p.term_seconds[k] = c.cost[k] * counts[k];
    p.seconds += p.term_seconds[k];
  }
  return p;
}

}  // namespace gc::advise
