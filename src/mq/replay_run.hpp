// mq replay's work: every rank's matching events run through the engines,
// checked against linked-list (itself checked against the program's own
// matches), timed over passes, with the queue lengths and the profile counts
// of the reference replay; its table and its JSON document. cli/mq_cmd.cpp
// only parses options and calls these.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/mpi.hpp"
#include "mq/engines/engine.hpp"
#include "mq/engines/profile.hpp"
#include "mq/engines/replay.hpp"
#include "mq/report.hpp"
#include "mq/trace/trace.hpp"

namespace gc::mq {

// One rank's workload with the reference (linked-list) replay.
struct RankRun {
  const RankWorkload* workload = nullptr;
  std::vector<Id> reference;   // outcome per event
  std::vector<Match> matches;  // the reference's, by receive
  QueueLengths lengths;
  Profile counted;         // queue elements per (comm, source) in the reference replay
  Profile static_profile;  // what partner-static/-vectors use: `counted` or --profile's
};

// One engine's passes over every rank.
struct EngineRun {
  std::string name;
  std::vector<std::vector<ReplayResult>> passes;  // [rank run][pass], matches dropped
  std::vector<std::string> failures;              // FAIL lines
  std::uint64_t failed_ranks = 0;
  EngineTotals totals;
  std::vector<double> pass_seconds;  // per pass, summed over ranks
};

struct TraceFigures {
  int world_size = 0;
  std::size_t files = 0;
  std::uint64_t posts = 0, arrivals = 0, probes = 0;
  // What the reconstruction had to do (trace.hpp's RankWorkload), summed.
  std::uint64_t arrivals_moved = 0, arrivals_dropped = 0, receives_voided = 0,
                probes_unexplained = 0;
};

// The reference replays, the check of linked-list against the program's own
// matches, queue lengths and the profile counts.
std::vector<RankRun> reference_runs(const std::vector<RankWorkload>& workloads,
                                    std::vector<std::string>& failures);

// Profile files: one rank's profile a file (profile.hpp); "{rank}" in a
// path stands for the rank, so that a run of many ranks has one file each.
std::string rank_path(std::string path, int rank);
// Fails everywhere if `path` (of `option`) has no "{rank}" and `ranks` more than one.
void need_one_rank(const std::string& option, const std::string& path,
                   const std::vector<RankRun>& ranks);

struct ReplaySettings {
  std::vector<std::string> engines;  // names, in the table's order
  EngineOptions base;
  std::string profile;  // --profile: partner-static's profile files, or "" (from the trace)
  int passes = 0;       // 0: by the trace's length
};

// A whole replay: the traces, their workloads and every engine's passes.
struct ReplayRun {
  std::vector<std::string> paths;
  std::vector<RankTrace> traces;
  std::vector<RankWorkload> workloads;
  TraceFigures figures;
  std::vector<RankRun> ranks;  // point into workloads
  QueueLengths all_lengths;
  std::vector<EngineRun> engines;
  std::vector<std::string> failures;  // FAIL lines, the reference's then each engine's first
  int passes = 0;
  std::string profile_source;
};

// Reads and replays; progress on rank 0 of `comm`.
void run_replay(const Comm& comm, const std::vector<std::string>& paths,
                const ReplaySettings& settings, ReplayRun& run);
// The replay's table (what `mq replay` prints).
std::string replay_text(const ReplayRun& run, const ReplaySettings& settings);
// Its JSON fields (docs/json-schema.md, `mq replay`), without the envelope.
nlohmann::json replay_json(const ReplayRun& run, const ReplaySettings& settings);
// --matches: "rank receive_index source sequence" per matched receive.
void write_matches(const std::string& path, const std::vector<RankRun>& ranks);

}  // namespace gc::mq
