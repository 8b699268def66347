// bfs::check is the Graph500 specification's validation of a search result.
// Graph500 result validation ("Graph 500 Benchmark 1", section on
// validation), independent of the search code: it reads only the DistGraph
// and the parent array. Each rank gathers the whole parent array (8 bytes per
// vertex), derives every vertex's depth by following parent chains (which
// also exposes cycles and chains that miss the root), and checks its own
// vertices and edges:
//   1. the parent array is a tree rooted at the key (parent[root] = root, no
//      cycles, every chain ends at the root);
//   2. every tree edge (v, parent[v]) is an edge of the graph;
//   3. for every edge, the depths of its endpoints differ by at most one;
//   4. every vertex of the root's component is in the tree and no other: an
//      edge never joins a reached vertex to an unreached one.
#include <fmt/format.h>

#include "core/broadcast.hpp"
#include "kernels/bfs/bfs.hpp"
#include "kernels/bfs/graph500.hpp"

namespace gc::bfs {

namespace {

std::string check_local(const DistGraph& g, const std::vector<vid_t>& parent,
                        const std::vector<std::int64_t>& depth, vid_t root) {
  for (lid_t l = 0; l < g.owned_count(); ++l) {
    const vid_t v = g.global_id(l);
    const bool reached = depth[v] >= 0;
    if (reached && v != root) {
      bool is_edge = false;
      for (lid_t w : g.neighbors(l)) is_edge |= g.global_id(w) == parent[v];
      if (!is_edge)
        return fmt::format("tree edge ({}, {}) is not an edge of the graph", v, parent[v]);
    }
    for (lid_t wl : g.neighbors(l)) {
      const vid_t w = g.global_id(wl);
      const bool w_reached = depth[w] >= 0;
      if (reached != w_reached)
        return fmt::format("edge ({}, {}) joins a vertex in the tree to one outside it", v, w);
      if (reached && (depth[v] - depth[w] > 1 || depth[w] - depth[v] > 1))
        return fmt::format("edge ({}, {}) joins levels {} and {}", v, w, depth[v], depth[w]);
    }
  }
  return "";
}

}  // namespace

std::string check(const Comm& comm, const DistGraph& g, vid_t root,
                  const std::vector<vid_t>& parent) {
  const vid_t n = g.global_vertex_count();
  std::string problem;
  if (root >= n) return fmt::format("the root {} is not a vertex ({} vertices)", root, n);
  if (parent.size() != g.owned_count())
    problem = fmt::format("parent array has {} entries for {} owned vertices", parent.size(),
                          g.owned_count());
  for (lid_t l = 0; problem.empty() && l < parent.size(); ++l)
    if (parent[l] != kNoParent && parent[l] >= n)
      problem = fmt::format("vertex {} has parent {} out of range", g.global_id(l), parent[l]);

  // Everybody agrees on local shape problems before gathering.
  const int bad_shape = min_over_ranks(comm, problem.empty() ? comm.size() : comm.rank());
  std::vector<vid_t> all;
  std::vector<std::int64_t> depth;
  if (bad_shape == comm.size()) {
    const Distribution& dist = g.distribution();
    std::vector<int> counts(static_cast<size_t>(comm.size())), displs(counts.size());
    for (int r = 0; r < comm.size(); ++r) {
      counts[static_cast<size_t>(r)] = checked_count(dist.count(r), "parent gather");
      displs[static_cast<size_t>(r)] = checked_count(dist.begin(r), "parent gather");
    }
    all.resize(n);
    MPI_Allgatherv(parent.data(), counts[static_cast<size_t>(comm.rank())], datatype_of<vid_t>(),
                   all.data(), counts.data(), displs.data(), datatype_of<vid_t>(), comm.get());
    problem = tree_depths(all, root, depth);  // the same on every rank
    if (problem.empty()) problem = check_local(g, all, depth, root);
  }

  // The lowest rank's problem, on every rank.
  const int first = min_over_ranks(comm, problem.empty() ? comm.size() : comm.rank());
  if (first == comm.size()) return "OK";
  broadcast(problem, first, comm.get());
  return problem;
}

}  // namespace gc::bfs
