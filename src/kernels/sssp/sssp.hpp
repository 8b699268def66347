// Single-source shortest paths, the Graph500 kernel 3 ("Graph 500 Benchmark
// 2 (Shortest Path)", specification 3.0), over an owner-computes exchange.
// See sssp.cpp for the algorithms and their references.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "comm/exchange.hpp"
#include "graph/dist_graph.hpp"

namespace gc::sssp {

inline constexpr vid_t kNoParent = ~vid_t{0};
inline constexpr double kUnreached = std::numeric_limits<double>::infinity();

enum class Algorithm {
  delta_stepping,  // Meyer and Sanders: buckets of width delta, light and heavy edges
  bellman_ford,    // synchronous rounds: every improved vertex relaxes all its edges
};
struct AlgorithmInfo {
  Algorithm algorithm;
  const char* name;
  const char* summary;
};
const std::vector<AlgorithmInfo>& algorithm_table();
Algorithm parse_algorithm(const std::string& name);
const char* algorithm_name(Algorithm a);

// One bucket of a delta-stepping search (Bellman-Ford: its one bucket), when
// profiling: max over ranks for times, sums for counts.
struct BucketFigures {
  std::uint64_t bucket;
  std::uint64_t light_rounds;  // exchange phases of light edges (1 heavy phase follows)
  std::uint64_t settled;       // vertices whose light edges were relaxed (with repeats)
  std::uint64_t relaxations;   // edges relaxed
  double seconds;
  std::uint64_t messages, bytes;
};

struct SearchResult {
  vid_t root = 0;
  std::vector<double> dist;    // per owned vertex; kUnreached when unreached
  std::vector<vid_t> parent;   // per owned vertex: global id; kNoParent when unreached
  double seconds = 0;          // max over ranks, between barriers
  std::uint64_t messages = 0;  // sum over ranks
  std::uint64_t bytes = 0;
  std::uint64_t relaxations = 0;       // edges relaxed, sum over ranks
  std::uint64_t phases = 0;            // exchange phases (light rounds and heavy phases)
  std::uint64_t buckets = 0;           // non-empty buckets processed
  std::uint64_t reached = 0;           // vertices with a distance (global)
  std::vector<BucketFigures> profile;  // filled when profiling
};

// An SSSP engine for one graph, algorithm and exchange model: the exchange
// is created once and serves every phase of every search. The graph must be
// weighted (double or float weights, as stored), weights >= 0.
class Sssp {
 public:
  // delta: bucket width of delta-stepping (ignored by Bellman-Ford); must be > 0.
  Sssp(const Comm& comm, const DistGraph& g, Algorithm algorithm, const std::string& model,
       double delta, const ExchangeOptions& options = {});
  ~Sssp();
  Sssp(const Sssp&) = delete;
  Sssp& operator=(const Sssp&) = delete;

  // Collective: one search from global vertex `root`.
  SearchResult search(vid_t root, bool profile);

  double setup_seconds() const { return setup_seconds_; }  // max over ranks
  std::uint64_t buffer_bytes() const;                      // exchange buffers, this rank
  const nbr::Plan* combined_plan() const;  // ncl-combined's plan, this rank's; else null
  std::string configuration() const;       // "delta-stepping/nsr"

  class Impl;

 private:
  std::unique_ptr<Impl> impl_;
  double setup_seconds_ = 0;
};

// The bucket width `--delta auto` picks: the heaviest edge over the average
// degree (Meyer and Sanders' Theta(1/d) for weights in [0, 1]), so a bucket's
// light edges reach about one bucket further. Collective.
double auto_delta(const Comm& comm, const DistGraph& g);

// Graph500 validation of a search result (specification 3.0, kernel 3),
// independent of the search: the parent array is a tree rooted at `root`;
// dist[root] = 0; every tree edge (v, parent[v]) is an edge of the graph with
// dist[v] = dist[parent[v]] + its weight; for every edge (u, v, w) both ends
// are reached or neither, and dist[v] <= dist[u] + w. Distances are
// compared in double as computed (dist[u] + w, rounded once), so a correct
// search passes exactly. Collective; "OK" or the first problem found (the
// same string on every rank).
std::string check(const Comm& comm, const DistGraph& g, vid_t root, const std::vector<double>& dist,
                  const std::vector<vid_t>& parent);

}  // namespace gc::sssp
