// Erdős–Rényi G(n, p) and the stochastic block model, both by geometric
// skipping over candidate pairs (Batagelj & Brandes, "Efficient generation of
// large random networks", Phys. Rev. E 71, 2005): O(n + m) work, and each
// vertex u draws its partners v > u from its own random stream, so the graph
// does not depend on which rank generates u.
#include <cmath>

#include "core/rng.hpp"
#include "graph/generators.hpp"

namespace gc {

namespace {

vid_t owned_begin(const Comm& comm, vid_t n, int rank) {
  return static_cast<vid_t>((static_cast<unsigned __int128>(n) * rank) / comm.size());
}

// Appends every v in [from, to) chosen independently with probability p,
// drawing from the stream (stream, u, *draw).
void skip_sample(const CounterRng& rng, Stream stream, vid_t u, std::uint64_t& draw, vid_t from,
                 vid_t to, double p, std::uint64_t seed, std::vector<Edge>& out) {
  if (p <= 0 || from >= to) return;
  if (p >= 1) {
    for (vid_t v = from; v < to; ++v) out.push_back(Edge{u, v, edge_weight_from_seed(seed, u, v)});
    return;
  }
  const double log_q = std::log1p(-p);
  vid_t v = from;
  while (true) {
    const double unit = CounterRng::to_unit_open_closed(rng.words(stream, u, draw++)[0]);
    const double skip = std::floor(std::log(unit) / log_q);
    if (skip >= static_cast<double>(to - v)) return;
    v += static_cast<vid_t>(skip);
    out.push_back(Edge{u, v, edge_weight_from_seed(seed, u, v)});
    ++v;
  }
}

}  // namespace

std::vector<Edge> er_edges(const Comm& comm, const ErParams& params, std::uint64_t seed) {
  const vid_t n = params.n;
  const double p =
      params.p > 0 ? params.p : std::min(1.0, params.avg_degree / std::max<double>(1, n - 1));
  const CounterRng rng(seed);
  std::vector<Edge> edges;
  for (vid_t u = owned_begin(comm, n, comm.rank()); u < owned_begin(comm, n, comm.rank() + 1);
       ++u) {
    std::uint64_t draw = 0;
    skip_sample(rng, Stream::er_skip, u, draw, u + 1, n, p, seed, edges);
  }
  return edges;
}

int sbm_block_of(vid_t v, vid_t n, int blocks) {
  return static_cast<int>((static_cast<unsigned __int128>(v) * blocks) / n);
}

std::vector<Edge> sbm_edges(const Comm& comm, const SbmParams& params, std::uint64_t seed) {
  const vid_t n = params.n;
  const int k = params.blocks;
  auto block_begin = [&](int b) {
    // First vertex v with v*k/n >= b.
    return static_cast<vid_t>((static_cast<unsigned __int128>(b) * n + k - 1) / k);
  };
  const double block_size = static_cast<double>(n) / k;
  const double p_in =
      params.p_in > 0 ? params.p_in : std::min(1.0, 12.0 / std::max(1.0, block_size - 1));
  const double p_out = params.p_out > 0
                           ? params.p_out
                           : (k > 1 ? std::min(1.0, 4.0 / std::max(1.0, n - block_size)) : 0.0);
  const CounterRng rng(seed);
  std::vector<Edge> edges;
  for (vid_t u = owned_begin(comm, n, comm.rank()); u < owned_begin(comm, n, comm.rank() + 1);
       ++u) {
    std::uint64_t draw = 0;
    const int mine = sbm_block_of(u, n, k);
    for (int b = mine; b < k; ++b) {
      const vid_t from = std::max(u + 1, block_begin(b));
      skip_sample(rng, Stream::sbm_skip, u, draw, from, block_begin(b + 1),
                  b == mine ? p_in : p_out, seed, edges);
    }
  }
  return edges;
}

}  // namespace gc
