// Random geometric graph in the unit square, as used for the weak-scaling runs
// of Ghosh et al., "Exploring MPI Communication Models for Graph Applications
// Using Graph Matching as a Case Study" (IPDPS 2019), whose generator gives
// each process a vertical strip. Default radius: the mean of the connectivity
// threshold sqrt(ln n / (pi n)) and the percolation threshold sqrt(2.0736 / n),
// as in that paper's code (a 2^18-vertex RGG then has ~2.4M directed edges).
#include <cmath>
#include <numbers>

#include <fmt/format.h>

#include "core/rng.hpp"
#include "graph/generators.hpp"

namespace gc {

double rgg_default_radius(vid_t n) {
  const double dn = static_cast<double>(std::max<vid_t>(n, 2));
  const double connectivity = std::sqrt(std::log(dn) / (std::numbers::pi * dn));
  const double percolation = std::sqrt(2.0736 / dn);
  return (connectivity + percolation) / 2.0;
}

void rgg_point(vid_t i, vid_t n, std::uint64_t seed, double& x, double& y) {
  auto w = CounterRng(seed).words(Stream::rgg_point, i);
  x = (static_cast<double>(i) + CounterRng::to_unit(w[0])) / static_cast<double>(n);
  y = CounterRng::to_unit(w[1]);
}

std::vector<Edge> rgg_edges(const Comm& comm, const RggParams& params, std::uint64_t seed) {
  const vid_t n = params.n;
  const double r = params.radius > 0 ? params.radius : rgg_default_radius(n);
  const vid_t begin = (static_cast<unsigned __int128>(n) * comm.rank()) / comm.size();
  const vid_t end = (static_cast<unsigned __int128>(n) * (comm.rank() + 1)) / comm.size();
  std::vector<Edge> edges;
  if (begin == end) return edges;

  // Since x_i lies in [i/n, (i+1)/n), a partner j > i within distance r has
  // j <= i + r*n + 1: the window [begin, window_end) holds every candidate.
  const vid_t reach = static_cast<vid_t>(std::ceil(r * static_cast<double>(n))) + 2;
  const vid_t window_end = std::min<vid_t>(n, end + reach);
  const vid_t count = window_end - begin;
  std::vector<double> xs(count), ys(count);
  for (vid_t k = 0; k < count; ++k) rgg_point(begin + k, n, seed, xs[k], ys[k]);

  // Cells of side >= r: partners of a point lie in its cell column and the next
  // one (x never decreases with the id), rows -1..+1. At most about
  // sqrt(count / x_span) rows, so that the cell table stays O(count) for a
  // radius far below 1/sqrt(n) (larger cells only lengthen the candidate lists).
  const double x0 = static_cast<double>(begin) / static_cast<double>(n);
  const double x_span = std::max(xs[count - 1] - x0, 1.0 / static_cast<double>(n));
  const double max_rows = std::sqrt(static_cast<double>(count) / x_span) + 1.0;
  const std::int64_t rows =
      std::max<std::int64_t>(1, static_cast<std::int64_t>(std::min(1.0 / r, max_rows)));
  const double cell = 1.0 / static_cast<double>(rows);  // >= r
  const std::int64_t cols = static_cast<std::int64_t>((xs[count - 1] - x0) / cell) + 2;
  auto col_of = [&](vid_t k) { return static_cast<std::int64_t>((xs[k] - x0) / cell); };
  auto row_of = [&](vid_t k) {
    return std::min<std::int64_t>(rows - 1, static_cast<std::int64_t>(ys[k] / cell));
  };
  std::vector<vid_t> cell_start(static_cast<size_t>(cols * rows) + 1, 0);
  for (vid_t k = 0; k < count; ++k)
    ++cell_start[static_cast<size_t>(col_of(k) * rows + row_of(k)) + 1];
  for (size_t c = 1; c < cell_start.size(); ++c) cell_start[c] += cell_start[c - 1];
  std::vector<vid_t> members(count);
  {
    std::vector<vid_t> cursor(cell_start.begin(), cell_start.end() - 1);
    for (vid_t k = 0; k < count; ++k)
      members[cursor[static_cast<size_t>(col_of(k) * rows + row_of(k))]++] = k;
  }

  const double r2 = r * r;
  edges.reserve(static_cast<size_t>((end - begin) * std::numbers::pi * r2 * n / 2 * 1.1) + 16);
  for (vid_t k = 0; k < end - begin; ++k) {
    const std::int64_t cx = col_of(k), cy = row_of(k);
    for (std::int64_t dx = 0; dx <= 1; ++dx) {
      if (cx + dx >= cols) continue;
      for (std::int64_t dy = -1; dy <= 1; ++dy) {
        if (cy + dy < 0 || cy + dy >= rows) continue;
        const size_t c = static_cast<size_t>((cx + dx) * rows + cy + dy);
        for (vid_t s = cell_start[c]; s < cell_start[c + 1]; ++s) {
          const vid_t j = members[s];
          if (j <= k) continue;
          const double ddx = xs[j] - xs[k], ddy = ys[j] - ys[k];
          if (ddx * ddx + ddy * ddy <= r2) {
            const vid_t u = begin + k, v = begin + j;
            edges.push_back(Edge{u, v, edge_weight_from_seed(seed, u, v)});
          }
        }
      }
    }
  }
  return edges;
}

}  // namespace gc
