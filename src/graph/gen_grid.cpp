// The d-dimensional grid graph (the 5-point stencil in 2D, 7-point in 3D) in
// lexicographic order: the sparsity of a structured-mesh PDE discretization
// as numbered by its mesh, the kind of input whose natural order the matching
// study's Cage15 and HV15R have (Ghosh et al., IPDPS 2019, section V-C).
#include "graph/generators.hpp"

#include "core/rng.hpp"

namespace gc {

vid_t grid_vertex_count(const GridParams& params) {
  vid_t n = 1;
  for (int i = 0; i < params.dimensions; ++i) n *= params.side;
  return n;
}

std::vector<Edge> grid_edges(const Comm& comm, const GridParams& params, std::uint64_t seed) {
  const vid_t n = grid_vertex_count(params);
  const auto begin =
      static_cast<vid_t>((static_cast<unsigned __int128>(n) * comm.rank()) / comm.size());
  const auto end =
      static_cast<vid_t>((static_cast<unsigned __int128>(n) * (comm.rank() + 1)) / comm.size());
  std::vector<Edge> out;
  out.reserve(static_cast<size_t>(end - begin) * static_cast<size_t>(params.dimensions));
  for (vid_t v = begin; v < end; ++v) {
    vid_t stride = 1;
    for (int i = 0; i < params.dimensions; ++i, stride *= params.side) {
      // v's neighbour one step up along dimension i, if inside the grid.
      if ((v / stride) % params.side + 1 < params.side)
        out.push_back(Edge{v, v + stride, edge_weight_from_seed(seed, v, v + stride)});
    }
  }
  return out;
}

}  // namespace gc
