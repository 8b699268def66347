// sssp::check: the Graph500 3.0 validation of a shortest-path result
// (kernel 3), independent of the search code: it reads only the DistGraph
// and the distance and parent arrays. Each rank gathers both whole (16 bytes
// per vertex), derives the tree from the parents (bfs::tree_depths: cycles,
// chains that miss the root) and checks its own vertices and edges:
//   1. the parents form a tree rooted at the key, whose distance is 0;
//   2. every tree edge (v, parent[v]) is an edge of the graph, and
//      dist[v] = dist[parent[v]] + its weight (in double, rounded once);
//   3. for every edge (u, v, w): both ends reached or neither (the tree
//      spans the root's component), and dist[v] <= dist[u] + w (no edge
//      relaxes further: the distances are the shortest);
//   4. a vertex has a distance exactly when it is in the tree.
#include <cmath>

#include <fmt/format.h>

#include "core/broadcast.hpp"
#include "kernels/bfs/graph500.hpp"
#include "kernels/sssp/sssp.hpp"

namespace gc::sssp {

namespace {

std::string check_local(const DistGraph& g, const std::vector<double>& dist,
                        const std::vector<vid_t>& parent, const std::vector<std::int64_t>& depth,
                        vid_t root) {
  if (dist[root] != 0) return fmt::format("the root {} has distance {}, not 0", root, dist[root]);
  for (lid_t l = 0; l < g.owned_count(); ++l) {
    const vid_t v = g.global_id(l);
    const bool reached = depth[v] >= 0;
    if (reached != (dist[v] != kUnreached) || std::isnan(dist[v]))
      return fmt::format("vertex {} has distance {} but is {} the tree", v, dist[v],
                         reached ? "in" : "not in");
    const eid_t begin = g.offsets()[l], end = g.offsets()[l + 1];
    if (reached && v != root) {
      bool is_edge = false, sums = false;
      double weight = 0;
      for (eid_t e = begin; e < end && !sums; ++e)
        if (g.global_id(g.targets()[e]) == parent[v]) {
          is_edge = true;
          weight = g.weight_at(e);
          sums = dist[parent[v]] + weight == dist[v];
        }
      if (!is_edge)
        return fmt::format("tree edge ({}, {}) is not an edge of the graph", v, parent[v]);
      if (!sums)
        return fmt::format(
            "vertex {}: distance {:.17g} is not its parent {}'s {:.17g} plus the edge's weight "
            "{:.17g}",
            v, dist[v], parent[v], dist[parent[v]], weight);
    }
    for (eid_t e = begin; e < end; ++e) {
      const vid_t w = g.global_id(g.targets()[e]);
      if (reached != (depth[w] >= 0))
        return fmt::format("edge ({}, {}) joins a vertex in the tree to one outside it", v, w);
      if (reached && dist[w] > dist[v] + g.weight_at(e))
        return fmt::format("edge ({}, {}) of weight {} shortens {}'s distance {} to {}", v, w,
                           g.weight_at(e), w, dist[w], dist[v] + g.weight_at(e));
    }
  }
  return "";
}

}  // namespace

std::string check(const Comm& comm, const DistGraph& g, vid_t root, const std::vector<double>& dist,
                  const std::vector<vid_t>& parent) {
  const vid_t n = g.global_vertex_count();
  if (root >= n) return fmt::format("the root {} is not a vertex ({} vertices)", root, n);
  std::string problem;
  if (parent.size() != g.owned_count() || dist.size() != g.owned_count())
    problem = fmt::format("{} parents and {} distances for {} owned vertices", parent.size(),
                          dist.size(), g.owned_count());
  // Everybody agrees on local shape problems before gathering.
  const int bad_shape = min_over_ranks(comm, problem.empty() ? comm.size() : comm.rank());
  if (bad_shape == comm.size()) {
    // Owned ranges are contiguous and in rank order: gathered, indexed by global id.
    const std::vector<vid_t> all_parents = allgatherv(comm, parent);
    const std::vector<double> all_dist = allgatherv(comm, dist);
    std::vector<std::int64_t> depth;
    problem = bfs::tree_depths(all_parents, root, depth);  // the same on every rank
    if (problem.empty()) problem = check_local(g, all_dist, all_parents, depth, root);
  }
  const int first = min_over_ranks(comm, problem.empty() ? comm.size() : comm.rank());
  if (first == comm.size()) return "OK";
  broadcast(problem, first, comm.get());
  return problem;
}

}  // namespace gc::sssp
