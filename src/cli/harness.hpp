// What every benchmark command does around its kernel, written once (as GAP's
// benchmark.h does for its kernels): per-rank counters reduced over the ranks,
// the check verdict of each run, timing of repeated calls, and the --json
// document. Tables are core/table.hpp's.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "core/mpi.hpp"
#include "core/output.hpp"
#include "graph/dist_graph.hpp"

namespace gc::cli {

// ---------------------------------------------------------------- over ranks

// A per-rank count over the ranks: its total and its largest share (load
// balance). JSON: {"sum", "max"}. Collective.
struct SumMax {
  std::uint64_t sum = 0, max = 0;
};
SumMax sum_and_max(const Comm& comm, std::uint64_t mine);
void to_json(nlohmann::json& j, const SumMax& s);

// Sum over ranks divided by the rank count. Collective.
template <class T>
double mean_over_ranks(const Comm& comm, T mine) {
  return static_cast<double>(sum_over_ranks(comm, mine)) / comm.size();
}

// The ranks' peak resident sets (core/memory.hpp), bytes. Collective.
struct PeakRss {
  double max = 0, mean = 0;
};
PeakRss peak_rss_over_ranks(const Comm& comm);
// The "memory" object of a graph kernel's JSON (docs/json-schema.md): what
// the graph holds (with `view_bytes`, this rank's kernel's own view of it)
// per directed edge over all ranks and at most on a rank, its CSR alone per
// directed edge, the ranks' peak RSS (also per local directed edge) and the
// load's up-front estimate of it. Collective.
nlohmann::json memory_report(const Comm& comm, const DistGraph& g, std::uint64_t view_bytes,
                             double estimated_peak_bytes);
// Resets every rank's peak, so that the next PeakRss is one run's own; false
// if some rank's kernel does not allow it. Collective.
bool reset_peak_rss_everywhere(const Comm& comm);

// ---------------------------------------------------------------- checks

// A run's check column: "-" when not checked, "OK", or what went wrong.
inline bool check_failed(const std::string& check) {
  return check != "-" && check != "OK";
}
// The first run whose check (the member `check`) failed, or null. The
// commands print every run's verdict first, then fail on this one.
template <class Run>
const Run* first_failed(const std::vector<Run>& runs, std::string Run::*check) {
  for (const Run& r : runs)
    if (check_failed(r.*check)) return &r;
  return nullptr;
}

// ---------------------------------------------------------------- timing

// Seconds per call: `calls` calls of `call` between barriers, the slowest
// rank's time (PhaseTimer) divided by `calls`. Collective.
template <class Call>
double seconds_per_call(const Comm& comm, int calls, Call&& call) {
  PhaseTimer timer(comm);
  for (int i = 0; i < calls; ++i) call();
  return timer.stop() / calls;
}
// Sorts repeated timings and returns the median (the upper one of an even count).
double sort_for_median(std::vector<double>& seconds);

// ---------------------------------------------------------------- --json

// --json PATH: result_envelope (core/output.hpp) with fields() added, which
// rank 0 writes; nothing, and fields() not called, when `path` is empty.
// Collective.
void write_results(const Comm& comm, const Invocation& inv, const std::string& command,
                   const std::string& path, const std::function<nlohmann::json()>& fields);

}  // namespace gc::cli
