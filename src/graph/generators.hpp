// Parallel graph generators. Each rank makes its own slice of the edges; no
// rank ever holds the whole edge list, and for a given seed the global graph
// is the same at any rank count (everything random is a function of the seed
// and a global index, see core/rng.hpp). Edge weights come from the seed and
// the vertex pair (edge_weight_from_seed).
#pragma once

#include <cstdint>
#include <vector>

#include "core/mpi.hpp"
#include "graph/types.hpp"

namespace gc {

struct RmatParams {
  int scale = 16;
  int edgefactor = 16;
  double a = 0.57, b = 0.19, c = 0.19;  // Graph500 initiator (d = 1-a-b-c)
  // false: the Kronecker labels as drawn, hubs at low ids (as in many files
  // in crawl order), so a block distribution gives the first ranks the hubs.
  bool scramble = true;
};
// Graph500 Kronecker generator: edge k of edgefactor*2^scale picks one
// quadrant per level; vertex labels are then scrambled by a bijection of
// [0, 2^scale) unless params.scramble is false. Self-loops and duplicates are kept here (the
// builder drops and merges them, as the kernel input of the specification does).
std::vector<Edge> rmat_edges(const Comm& comm, const RmatParams& params, std::uint64_t seed);
// Edges [first, last) of the global list; a rank's share is rmat_share's.
// Without `weights` every weight is 0 (for a graph built without them: the
// weights are a good part of the generator's time).
std::vector<Edge> rmat_edge_range(const RmatParams& params, std::uint64_t seed, std::uint64_t first,
                                  std::uint64_t last, bool weights = true);
struct RmatShare {
  std::uint64_t first, last;
};
RmatShare rmat_share(const Comm& comm, const RmatParams& params);
vid_t rmat_permute(vid_t v, int scale, std::uint64_t seed);

struct RggParams {
  vid_t n = 1 << 16;
  double radius = 0;  // 0: the matching paper's default, see rgg_default_radius
};
// Random geometric graph in the unit square: vertex i sits at
// x = (i + U_i)/n, y = V_i (jittered in x so that ids follow x: a block of ids
// is a vertical strip, and a rank shares edges only with ranks whose strips lie
// within the radius, its neighbours in rank order). Edge {i,j} iff the
// Euclidean distance is at most the radius.
std::vector<Edge> rgg_edges(const Comm& comm, const RggParams& params, std::uint64_t seed);
double rgg_default_radius(vid_t n);
void rgg_point(vid_t i, vid_t n, std::uint64_t seed, double& x, double& y);

struct ErParams {
  vid_t n = 1 << 16;
  double p = 0;  // edge probability; derived from avg_degree when 0
  double avg_degree = 16;
};
// Erdős–Rényi G(n, p) by geometric skipping over the pairs (u, v > u).
std::vector<Edge> er_edges(const Comm& comm, const ErParams& params, std::uint64_t seed);

struct SbmParams {
  vid_t n = 1 << 16;
  int blocks = 8;
  double p_in = 0, p_out = 0;  // derived from degrees 12 (inside) and 4 (across) when 0
};
// Stochastic block model with equal contiguous blocks: pair {u, v} is an edge
// with probability p_in inside a block and p_out across blocks.
std::vector<Edge> sbm_edges(const Comm& comm, const SbmParams& params, std::uint64_t seed);
int sbm_block_of(vid_t v, vid_t n, int blocks);

struct GridParams {
  vid_t side = 64;     // vertices along each dimension
  int dimensions = 3;  // 1 to 6
};
// The grid of side^dimensions vertices, vertex ids in lexicographic order
// (dimension 0 varies fastest), an edge between vertices one step apart along
// one dimension: a mesh-like input in its mesh's natural order.
std::vector<Edge> grid_edges(const Comm& comm, const GridParams& params, std::uint64_t seed);
vid_t grid_vertex_count(const GridParams& params);

}  // namespace gc
