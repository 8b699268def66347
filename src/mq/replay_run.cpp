#include "mq/replay_run.hpp"

#include <algorithm>
#include <cstdio>
#include <numeric>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/output.hpp"
#include "core/page_advice.hpp"

namespace gc::mq {

namespace {

TraceFigures trace_figures(const std::vector<mq::RankTrace>& traces,
                           const std::vector<mq::RankWorkload>& workloads) {
  TraceFigures f;
  f.files = traces.size();
  for (const mq::RankTrace& t : traces) f.world_size = std::max(f.world_size, t.world_size);
  for (const mq::RankWorkload& w : workloads) {
    f.arrivals_moved += w.arrivals_moved;
    f.arrivals_dropped += w.arrivals_dropped;
    f.receives_voided += w.receives_voided;
    f.probes_unexplained += w.probes_unexplained;
    for (const mq::Event& e : w.events) {
      f.posts += e.kind == mq::Event::Kind::post;
      f.arrivals += e.kind == mq::Event::Kind::arrive;
      f.probes += e.kind == mq::Event::Kind::probe;
    }
  }
  return f;
}

constexpr std::string_view kRankField = "{rank}";

bool per_rank(const std::string& path) {
  return path.find(kRankField) != std::string::npos;
}

void read_profiles(const std::string& path, std::vector<RankRun>& ranks) {
  need_one_rank("--profile", path, ranks);
  for (RankRun& r : ranks) r.static_profile = read_profile(rank_path(path, r.workload->rank));
}

// One pass of every engine over every rank, engines interleaved per rank.
void run_pass(std::vector<EngineRun>& engines, const std::vector<RankRun>& ranks,
              const mq::EngineOptions& base, bool check) {
  for (size_t i = 0; i < ranks.size(); ++i) {
    const mq::RankWorkload& w = *ranks[i].workload;
    for (EngineRun& e : engines) {
      mq::EngineOptions options = base;
      if (mq::takes_profile(e.name)) options.profile = ranks[i].static_profile;
      auto engine = mq::make_engine(e.name, options);
      mq::ReplayResult r = mq::replay(w.events, w.comms, *engine);
      if (check) {
        const auto got = mq::event_outcomes(w.events, r);
        if (auto d = mq::first_difference(w, ranks[i].reference, "linked-list", got, e.name)) {
          ++e.failed_ranks;
          e.failures.push_back(fmt::format("FAIL: engine {}, rank {}, event {}: {}", e.name, w.rank,
                                           d->event, d->what));
        }
      }
      release(r.matches);
      release(r.probes);
      if (e.passes.size() <= i) e.passes.resize(i + 1);
      e.passes[i].push_back(std::move(r));
    }
  }
}

void total_up(EngineRun& e) {
  for (const auto& rank_passes : e.passes) {
    // The pass of median time stands for the rank (its counters are the
    // same in every pass, but for extraction time).
    std::vector<size_t> order(rank_passes.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(),
              [&](size_t a, size_t b) { return rank_passes[a].seconds < rank_passes[b].seconds; });
    e.totals.add(rank_passes[order[(order.size() - 1) / 2]]);
    if (e.pass_seconds.size() < rank_passes.size()) e.pass_seconds.resize(rank_passes.size(), 0);
    for (size_t p = 0; p < rank_passes.size(); ++p) e.pass_seconds[p] += rank_passes[p].seconds;
  }
}

std::string engine_table(const std::vector<EngineRun>& engines) {
  std::string out = fmt::format(
      "{:<15} {:>9} {:>8} {:>9} {:>8} {:>9} {:>8} {:>6} {:>8} {:>10} {:>6} {:>10} {:>11}  {}\n",
      "engine", "prq_mean", "prq_max", "umq_mean", "umq_max", "ns/op", "partners", "levels",
      "extract", "ext_moved", "ext_%", "mem_max_B", "mem_sum_B", "check");
  for (const EngineRun& e : engines) {
    const mq::EngineTotals& t = e.totals;
    const mq::Counters& c = t.counters;
    out += fmt::format(
        "{:<15} {:>9.2f} {:>8} {:>9.2f} {:>8} {:>9.1f} {:>8} {:>6} {:>8} {:>10} {:>6.2f} {:>10} "
        "{:>11}  {}\n",
        e.name, t.prq_mean(), c.prq_max, t.umq_mean(), c.umq_max, t.ns_per_operation(), c.partners,
        c.levels, c.extractions, c.extraction_moved, t.extraction_percent(),
        c.memory_overhead_bytes, t.memory_sum, e.failures.empty() ? "OK" : "FAIL");
  }
  return out;
}

std::string lengths_row(const std::string& who, std::uint64_t events, const mq::QueueLengths& q) {
  return fmt::format("{:<8} {:>10} {:>9} {:>6} {:>6} {:>6} {:>7} {:>9} {:>6} {:>6} {:>6} {:>7}\n",
                     who, events, q.prq.samples(), q.prq.min(), q.prq.quantile(0.5),
                     q.prq.quantile(0.9), q.prq.max(), q.umq.samples(), q.umq.min(),
                     q.umq.quantile(0.5), q.umq.quantile(0.9), q.umq.max());
}

constexpr size_t kRanksShown = 16;

std::string lengths_table(const std::vector<RankRun>& ranks, const mq::QueueLengths& all,
                          std::uint64_t events) {
  std::string out =
      "\nqueue length at each search (all queues of the layer, before the search; "
      "median and p90: nearest rank)\n";
  out += fmt::format("{:<8} {:>10} {:>9} {:>6} {:>6} {:>6} {:>7} {:>9} {:>6} {:>6} {:>6} {:>7}\n",
                     "rank", "events", "prq_srch", "min", "median", "p90", "max", "umq_srch", "min",
                     "median", "p90", "max");
  // The busiest ranks (most searches), in rank order.
  std::vector<size_t> shown(ranks.size());
  std::iota(shown.begin(), shown.end(), 0);
  if (shown.size() > kRanksShown) {
    std::stable_sort(shown.begin(), shown.end(), [&](size_t a, size_t b) {
      return ranks[a].workload->events.size() > ranks[b].workload->events.size();
    });
    shown.resize(kRanksShown);
    std::sort(shown.begin(), shown.end());
  }
  for (size_t i : shown)
    out += lengths_row(std::to_string(ranks[i].workload->rank), ranks[i].workload->events.size(),
                       ranks[i].lengths);
  if (ranks.size() > 1) out += lengths_row("all", events, all);
  if (ranks.size() > shown.size())
    out += fmt::format("({} of {} ranks with events shown, the busiest; all in --json)\n",
                       shown.size(), ranks.size());
  return out;
}

nlohmann::json lengths_json(const mq::LengthHistogram& h) {
  return {{"searches", h.samples()}, {"min", h.min()}, {"median", h.quantile(0.5)},
          {"p90", h.quantile(0.9)},  {"max", h.max()}, {"mean", h.mean()}};
}

nlohmann::json counters_json(const mq::Counters& c) {
  return {{"prq",
           {{"searches", c.prq_searches},
            {"traversed", c.prq_traversed},
            {"max", c.prq_max},
            {"length_max", c.prq_length_max}}},
          {"umq",
           {{"searches", c.umq_searches},
            {"traversed", c.umq_traversed},
            {"max", c.umq_max},
            {"length_max", c.umq_length_max}}},
          {"partners", c.partners},
          {"levels", c.levels},
          {"extraction",
           {{"events", c.extractions},
            {"moved", c.extraction_moved},
            {"seconds", c.extraction_seconds}}}};
}

nlohmann::json engine_json(const EngineRun& e, const std::vector<RankRun>& ranks) {
  const mq::EngineTotals& t = e.totals;
  nlohmann::json j = counters_json(t.counters);
  j["engine"] = e.name;
  j["check"] = e.failures.empty() ? "OK" : "FAIL";
  j["failures"] = e.failures;
  j["prq"]["mean"] = t.prq_mean();
  j["umq"]["mean"] = t.umq_mean();
  j["operations"] = t.operations;
  j["seconds"] = t.seconds;
  j["ns_per_operation"] = t.ns_per_operation();
  j["pass_seconds"] = e.pass_seconds;
  j["extraction"]["percent_of_time"] = t.extraction_percent();
  j["memory_overhead_bytes"] = {{"max", t.counters.memory_overhead_bytes}, {"sum", t.memory_sum}};
  nlohmann::json per_rank = nlohmann::json::array();
  for (size_t i = 0; i < e.passes.size(); ++i) {
    const auto& p = e.passes[i];
    std::vector<double> seconds;
    for (const mq::ReplayResult& r : p) seconds.push_back(r.seconds);
    nlohmann::json row = counters_json(p.front().counters);
    row["rank"] = ranks[i].workload->rank;
    row["operations"] = p.front().operations;
    row["seconds"] = mq::median(seconds);
    row["memory_overhead_bytes"] = p.front().counters.memory_overhead_bytes;
    per_rank.push_back(std::move(row));
  }
  j["per_rank"] = std::move(per_rank);
  return j;
}

// Passes when --passes is 0: 5 for a short trace, fewer when one pass of
// every engine already took seconds.
int passes_for(double first_pass_seconds) {
  if (first_pass_seconds < 1) return 5;
  if (first_pass_seconds < 5) return 3;
  return 1;
}

}  // namespace

// The reference replays, the check of linked-list against the program's own
// matches, queue lengths and the profile counts.
std::vector<RankRun> reference_runs(const std::vector<mq::RankWorkload>& workloads,
                                    std::vector<std::string>& failures) {
  std::vector<RankRun> runs;
  for (const mq::RankWorkload& w : workloads) {
    if (w.events.empty()) continue;
    RankRun run;
    run.workload = &w;
    auto engine = mq::make_engine("linked-list");
    mq::ReplayResult r = mq::replay(w.events, w.comms, *engine);
    run.reference = mq::event_outcomes(w.events, r);
    const std::vector<mq::Id> observed = mq::observed_outcomes(w, run.reference);
    if (auto d = mq::first_difference(w, observed, "the program", run.reference, "linked-list"))
      failures.push_back(fmt::format("FAIL: engine linked-list, rank {}, event {}: {}", w.rank,
                                     d->event, d->what));
    run.lengths = mq::queue_lengths(w.events, run.reference);
    // The profile: elements each source adds to the PRQ or UMQ (profile.hpp).
    run.counted = mq::queue_elements(w.events, w.comms, run.reference);
    run.static_profile = run.counted;
    run.matches = std::move(r.matches);
    std::sort(run.matches.begin(), run.matches.end(),
              [](const mq::Match& a, const mq::Match& b) { return a.receive < b.receive; });
    runs.push_back(std::move(run));
  }
  return runs;
}

std::string rank_path(std::string path, int rank) {
  for (auto at = path.find(kRankField); at != std::string::npos; at = path.find(kRankField, at))
    path.replace(at, kRankField.size(), std::to_string(rank));
  return path;
}

void need_one_rank(const std::string& option, const std::string& path,
                   const std::vector<RankRun>& ranks) {
  if (!per_rank(path) && ranks.size() > 1)
    fail_everywhere(fmt::format(
        "{} {}: a profile file holds one rank's profile and the trace has {} ranks with matching "
        "events: put {} in the name for one file per rank",
        option, path, ranks.size(), kRankField));
}

// --matches: "rank receive_index source sequence" per matched receive.
void write_matches(const std::string& path, const std::vector<RankRun>& ranks) {
  write_file_atomically(path, [&](std::ostream& out) {
    for (const RankRun& r : ranks) {
      const mq::RankWorkload& w = *r.workload;
      for (const mq::Match& m : r.matches) {
        const mq::MessageInfo& info = w.messages.at(m.message);
        out << w.rank << ' ' << m.receive << ' ' << info.source_world << ' ' << info.sequence
            << '\n';
      }
    }
  });
}

void run_replay(const Comm& comm, const std::vector<std::string>& paths,
                const ReplaySettings& settings, ReplayRun& run) {
  run.paths = paths;
  Progress::say(comm, "reading {} trace path(s)", paths.size());
  run.traces = read_traces(paths);
  run.workloads = reconstruct(run.traces);
  run.figures = trace_figures(run.traces, run.workloads);

  Progress::say(comm, "replaying through linked-list (the reference)");
  std::vector<std::string> reference_failures;
  run.ranks = reference_runs(run.workloads, reference_failures);
  if (!settings.profile.empty()) read_profiles(settings.profile, run.ranks);
  for (const RankRun& r : run.ranks) {
    run.all_lengths.prq.merge(r.lengths.prq);
    run.all_lengths.umq.merge(r.lengths.umq);
  }

  std::vector<EngineRun>& engines = run.engines;
  for (const std::string& n : settings.engines) engines.push_back(EngineRun{n, {}, {}, 0, {}, {}});
  Progress::say(comm, "pass 1: {}", fmt::join(settings.engines, ", "));
  const double start = MPI_Wtime();
  run_pass(engines, run.ranks, settings.base, true);
  bool failed = !reference_failures.empty();
  for (const EngineRun& e : engines) failed |= !e.failures.empty();
  int passes = settings.passes > 0 ? settings.passes : passes_for(MPI_Wtime() - start);
  if (failed) passes = 1;
  if (passes > 1) Progress::say(comm, "passes 2 to {}", passes);
  for (int p = 1; p < passes; ++p) run_pass(engines, run.ranks, settings.base, false);
  for (EngineRun& e : engines) total_up(e);
  run.passes = passes;
  run.profile_source = settings.profile.empty() ? std::string("from this trace") : settings.profile;

  run.failures = reference_failures;
  for (const EngineRun& e : engines) {
    constexpr size_t kShown = 5;
    for (size_t i = 0; i < e.failures.size() && i < kShown; ++i)
      run.failures.push_back(e.failures[i]);
    if (e.failures.size() > kShown)
      run.failures.push_back(
          fmt::format("FAIL: engine {}: {} more ranks differ", e.name, e.failures.size() - kShown));
  }
}

namespace {

// The partner memory regime as --memory names it.
const char* memory_name(EngineOptions::Memory memory) {
  switch (memory) {
    case EngineOptions::Memory::bounded:
      return "bounded";
    case EngineOptions::Memory::unbounded:
      return "unbounded";
    default:
      return "default";
  }
}

}  // namespace

std::string replay_text(const ReplayRun& run, const ReplaySettings& settings) {
  const TraceFigures& figures = run.figures;
  const std::uint64_t events = figures.posts + figures.arrivals + figures.probes;
  std::string out = fmt::format(
      "mq replay {}: {} ranks ({} files), {} with matching events: {} events ({} posts, {} "
      "arrivals, {} probes)\nreconstruction: {} arrivals moved, {} dropped, {} receives voided, "
      "{} probes unexplained\n",
      fmt::join(run.paths, " "), figures.world_size, figures.files, run.ranks.size(), events,
      figures.posts, figures.arrivals, figures.probes, figures.arrivals_moved,
      figures.arrivals_dropped, figures.receives_voided, figures.probes_unexplained);
  out += fmt::format(
      "engines: metric {}{}, t {}, c {}, memory {}; partner-static profile: {}; time: median of "
      "{} pass{}, fresh engine each\n\n",
      settings.base.metric,
      settings.base.metric == "fence" ? fmt::format(" (alpha {})", settings.base.alpha) : "",
      settings.base.threshold, settings.base.cap_factor, memory_name(settings.base.memory),
      run.profile_source, run.passes, run.passes == 1 ? "" : "es");
  out += engine_table(run.engines);
  out +=
      "(mean: elements traversed / searches, all ranks; max: over ranks; ns/op: engine time of\n"
      " each rank's median pass, summed / operations; partners, levels, extractions: sums over\n"
      " ranks; ext_%: extraction time in % of engine time; mem: overhead bytes, max and sum)\n";
  out += lengths_table(run.ranks, run.all_lengths, events);
  if (!run.failures.empty()) out += fmt::format("\n{}\n", fmt::join(run.failures, "\n"));
  return out;
}

nlohmann::json replay_json(const ReplayRun& run, const ReplaySettings& settings) {
  const TraceFigures& figures = run.figures;
  const EngineOptions& base = settings.base;
  nlohmann::json doc;
  doc["traces"] = run.paths;
  doc["trace"] = {{"world_size", figures.world_size},
                  {"files", figures.files},
                  {"ranks_with_events", run.ranks.size()},
                  {"events", figures.posts + figures.arrivals + figures.probes},
                  {"posts", figures.posts},
                  {"arrivals", figures.arrivals},
                  {"probes", figures.probes},
                  {"arrivals_moved", figures.arrivals_moved},
                  {"arrivals_dropped", figures.arrivals_dropped},
                  {"receives_voided", figures.receives_voided},
                  {"probes_unexplained", figures.probes_unexplained}};
  doc["configuration"] = {{"engines", settings.engines},
                          {"metric", base.metric},
                          {"t", base.threshold},
                          {"c", base.cap_factor},
                          {"memory", memory_name(base.memory)},
                          {"alpha", base.alpha},
                          {"bins", base.bins},
                          {"vector_width", base.vector_width},
                          {"profile", run.profile_source},
                          {"passes", run.passes}};
  doc["engines"] = nlohmann::json::array();
  for (const EngineRun& e : run.engines) doc["engines"].push_back(engine_json(e, run.ranks));
  nlohmann::json per_rank = nlohmann::json::array();
  for (const RankRun& r : run.ranks)
    per_rank.push_back({{"rank", r.workload->rank},
                        {"events", r.workload->events.size()},
                        {"prq", lengths_json(r.lengths.prq)},
                        {"umq", lengths_json(r.lengths.umq)}});
  doc["queue_lengths"] = {
      {"all",
       {{"prq", lengths_json(run.all_lengths.prq)}, {"umq", lengths_json(run.all_lengths.umq)}}},
      {"per_rank", std::move(per_rank)}};
  doc["check"] = run.failures.empty() ? "OK" : "FAIL";
  doc["failures"] = run.failures;
  return doc;
}
}  // namespace gc::mq
