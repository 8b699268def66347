// Verifier of the matching, independent of the distributed kernel: the graph
// and the mates are gathered on rank 0, which checks validity (mates are
// symmetric and joined by an edge), maximality (no edge has both ends
// unmatched) and identity with the serial greedy matching (heaviest edge
// first, in the EdgeKey order), which the locally dominant matching must equal.
// Everything is checked in the input's ids (the graph's own unless reordered
// or partitioned), as the kernel orders its edges by them.
#include <algorithm>

#include <fmt/format.h>

#include "core/broadcast.hpp"
#include "core/page_advice.hpp"
#include "kernels/match/edge_order.hpp"
#include "kernels/match/match.hpp"

namespace gc::match {

std::vector<vid_t> greedy_matching(vid_t n, std::vector<Edge> edges) {
  std::vector<std::pair<EdgeKey, std::size_t>> order;
  order.reserve(edges.size());
  for (std::size_t i = 0; i < edges.size(); ++i)
    if (edges[i].u != edges[i].v)
      order.emplace_back(EdgeKey::of(edges[i].u, edges[i].v, edges[i].w), i);
  std::sort(order.begin(), order.end(),
            [](const auto& a, const auto& b) { return b.first < a.first; });
  std::vector<vid_t> mate(n, kUnmatched);
  for (const auto& [key, i] : order) {
    const Edge& e = edges[i];
    if (mate[e.u] == kUnmatched && mate[e.v] == kUnmatched) {
      mate[e.u] = e.v;
      mate[e.v] = e.u;
    }
  }
  return mate;
}

CheckReport check(const Comm& comm, const DistGraph& g, const std::vector<vid_t>& mate) {
  // Each undirected edge once (from its smaller end), and all mates, to rank 0.
  std::vector<Edge> local;
  for (lid_t l = 0; l < g.owned_count(); ++l) {
    const vid_t u = g.input_id(l);
    auto nbrs = g.neighbors(l);
    for (size_t j = 0; j < nbrs.size(); ++j)
      if (u < g.input_id(nbrs[j]))
        local.push_back(Edge{u, g.input_id(nbrs[j]), g.weight_at(g.offsets()[l] + j)});
  }
  const int p = comm.size();
  std::vector<std::uint64_t> counts(static_cast<size_t>(p), 0);
  counts[0] = local.size();
  std::vector<Edge> edges = alltoallv(comm, local, counts);
  release(local);
  // (vertex, mate) in input ids; a mate that is not a local vertex stays out
  // of range, so that the check reports it.
  const vid_t n = g.global_vertex_count();
  std::vector<Edge> named(g.owned_count());
  for (lid_t l = 0; l < g.owned_count(); ++l) {
    vid_t m = mate[l];
    if (m != kUnmatched) {
      const lid_t ml = g.local_id(m);
      m = ml != kNoLocal ? g.input_id(ml) : n + m;
    }
    named[l] = Edge{g.input_id(l), m, 0};
  }
  std::vector<std::uint64_t> mate_counts(static_cast<size_t>(p), 0);
  mate_counts[0] = named.size();
  std::vector<vid_t> mates;
  for (const Edge& e : alltoallv(comm, named, mate_counts)) {
    if (mates.empty()) mates.assign(n, kUnmatched);
    mates[e.u] = e.v;
  }

  CheckReport report;
  if (comm.rank() == 0) {
    auto bad = [&](vid_t v, const std::string& what) {
      if (report.ok) {
        report.ok = false;
        report.message = fmt::format("FAIL: vertex {}: {}", v, what);
      }
    };
    // Validity: symmetric mates joined by an edge.
    std::vector<std::pair<vid_t, vid_t>> pairs;
    for (const Edge& e : edges) pairs.emplace_back(e.u, e.v);
    std::sort(pairs.begin(), pairs.end());
    auto has_edge = [&](vid_t a, vid_t b) {
      return std::binary_search(pairs.begin(), pairs.end(),
                                std::make_pair(std::min(a, b), std::max(a, b)));
    };
    for (vid_t v = 0; v < n && report.ok; ++v) {
      const vid_t u = mates[v];
      if (u == kUnmatched) continue;
      if (u >= n)
        bad(v, fmt::format("mate {} is not a vertex", u));
      else if (mates[u] != v)
        bad(v,
            fmt::format("mate {} has mate {}", u,
                        mates[u] == kUnmatched ? std::string("none") : std::to_string(mates[u])));
      else if (!has_edge(v, u))
        bad(v, fmt::format("matched to {} without an edge", u));
    }
    // Maximality.
    for (const Edge& e : edges) {
      if (!report.ok) break;
      if (mates[e.u] == kUnmatched && mates[e.v] == kUnmatched)
        bad(e.u, fmt::format("not maximal: edge {}-{} has both ends unmatched", e.u, e.v));
    }
    // Identity with the serial greedy matching.
    if (report.ok) {
      std::vector<vid_t> reference = greedy_matching(n, std::move(edges));
      for (vid_t v = 0; v < n && report.ok; ++v)
        if (reference[v] != mates[v])
          bad(v,
              fmt::format(
                  "mate {} but the serial greedy matching has {}",
                  mates[v] == kUnmatched ? std::string("none") : std::to_string(mates[v]),
                  reference[v] == kUnmatched ? std::string("none") : std::to_string(reference[v])));
    }
    if (report.ok) report.message = "OK";
  }
  // Everyone learns the verdict.
  report.ok = broadcast_value(report.ok, 0, comm.get());
  broadcast(report.message, 0, comm.get());
  return report;
}

}  // namespace gc::match
