// Half-approximate weighted matching over an owner-computes exchange, by two
// algorithms that both return the serial greedy matching (heaviest edge first
// in the EdgeKey order of edge_order.hpp): the locally dominant algorithm
// (locally_dominant.cpp) and Suitor (suitor.cpp); see those files for the references.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "comm/combined_plan_report.hpp"
#include "comm/exchange.hpp"
#include "graph/dist_graph.hpp"

namespace gc::match {

inline constexpr vid_t kUnmatched = ~vid_t{0};

struct MatchResult {
  std::string algorithm;    // "ld" or "suitor"
  std::vector<vid_t> mate;  // per owned vertex: global id of its mate, or kUnmatched
  double weight = 0;        // global, each matched edge once
  std::uint64_t cardinality = 0;
  std::uint64_t rounds = 0;  // iterations of the evoke/process loop (max over ranks)
  std::uint64_t phases = 0;  // exchange phases (ld: 1; suitor: 1 in slices, else one per
                             // superstep; 0 at 1 rank)
  double seconds = 0;        // matching time, max over ranks
  double setup_seconds = 0;  // exchange setup (topology, window), max over ranks
  double comm_seconds = 0;   // time in evoke/done (max over ranks)
  double compute_seconds = 0;
  std::uint64_t buffer_bytes = 0;  // Exchange::buffer_bytes, max over ranks
  nlohmann::json profile;          // per-round time and messages (comm/round_profile.hpp)
  CommCounters counters;           // this rank's
  std::optional<CombinedPlanReport> combined_plan;  // ncl-combined's plan, else none
};

class MatchRun;  // match_run.hpp

// The algorithms, one row each (match_run.cpp): match(), --algorithm's values
// and `graphcomm models` derive from it.
struct AlgorithmInfo {
  const char* name;
  const char* summary;
  // On a started run; returns its result through MatchRun::finish().
  MatchResult (*run)(const Comm& comm, const DistGraph& g, MatchRun& run, double slice_seconds);
};
const std::vector<AlgorithmInfo>& algorithm_table();
const std::vector<std::string>& matching_algorithms();

// Collective: runs the matching on g with the named algorithm over the named
// model (exchange_models()), set up with `options` (its buffers' bound,
// ExchangeOptions::round_messages; 0: unbounded). suitor_slice_seconds: over
// the round-based models Suitor proposes in time slices between rounds (see
// suitor.cpp); negative: chosen from the graph's size, 0: 64 vertices a
// round (tests).
MatchResult match(const Comm& comm, const DistGraph& g, const std::string& model,
                  const std::string& algorithm = "ld", const ExchangeOptions& options = {},
                  double suitor_slice_seconds = -1);

// Verification against an independent serial computation on rank 0.
struct CheckReport {
  bool ok = true;
  std::string message;  // "OK" or the first offending vertex and what is wrong
};
CheckReport check(const Comm& comm, const DistGraph& g, const std::vector<vid_t>& mate);

// Serial greedy matching (heaviest edge first in the EdgeKey order) of an edge
// list with n vertices: mate per vertex, kUnmatched when none.
std::vector<vid_t> greedy_matching(vid_t n, std::vector<Edge> edges);

}  // namespace gc::match
