// graphcomm mq: message-matching engines on traces (Ghazimirsaeed,
// Mirsadeghi, Afsahi, "Communication-aware message matching in MPI", CCPE
// 2018). `replay` runs every rank's matching events through the engines and
// checks them against linked-list and the program's own matches; `profile`
// writes partner-static's profile; `synth` writes synthetic traces; `dump`
// prints trace files. All serial: one MPI rank does the work.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <numeric>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/commands.hpp"
#include "core/large_vector.hpp"
#include "core/output.hpp"
#include "mq/engine.hpp"
#include "mq/profile.hpp"
#include "mq/replay.hpp"
#include "mq/report.hpp"
#include "mq/synth.hpp"
#include "mq/trace.hpp"

namespace gc::cli {

namespace {

// Runs a command's body on the one rank there is: every error it raises is
// then known to "every rank", so the top level exits cleanly with one line.
template <class Body>
void serially(const Comm& comm, Body&& body) {
  if (comm.size() > 1) fail_everywhere("mq commands are serial: run with one rank");
  collectively(comm.get(), body);
}

// ------------------------------------------------------------------ replay

struct ReplayOptions {
  std::vector<std::string> traces;
  std::string engine = "all", metric = "average", profile, matches, json;
  int t = mq::EngineOptions{}.threshold;
  double c = mq::EngineOptions{}.cap_factor;
  int passes = 0;  // 0: by the trace's length
};

// One rank's workload with the reference (linked-list) replay.
struct RankRun {
  const mq::RankWorkload* workload = nullptr;
  std::vector<mq::Id> reference;   // outcome per event
  std::vector<mq::Match> matches;  // the reference's, by receive
  mq::QueueLengths lengths;
  mq::Profile counted;         // queue elements per (comm, source) in the reference replay
  mq::Profile static_profile;  // what partner-static/-vectors use: `counted` or --profile's
};

// One engine's passes over every rank.
struct EngineRun {
  std::string name;
  std::vector<std::vector<mq::ReplayResult>> passes;  // [rank run][pass], matches dropped
  std::vector<std::string> failures;                  // FAIL lines
  std::uint64_t failed_ranks = 0;
  mq::EngineTotals totals;
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

// Profile files: one rank's profile a file (profile.hpp); "{rank}" in a
// path stands for the rank, so that a run of many ranks has one file each.
constexpr std::string_view kRankField = "{rank}";

bool per_rank(const std::string& path) {
  return path.find(kRankField) != std::string::npos;
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

void read_profiles(const std::string& path, std::vector<RankRun>& ranks) {
  need_one_rank("--profile", path, ranks);
  for (RankRun& r : ranks) r.static_profile = mq::read_profile(rank_path(path, r.workload->rank));
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

// Passes when --passes is 0: 5 for a short trace, fewer when one pass of
// every engine already took seconds.
int passes_for(double first_pass_seconds) {
  if (first_pass_seconds < 1) return 5;
  if (first_pass_seconds < 5) return 3;
  return 1;
}

void run_replay(const Comm& comm, const Invocation& inv, const ReplayOptions& o) {
  const std::vector<std::string> names =
      o.engine == "all" ? mq::engine_names() : std::vector<std::string>{o.engine};
  mq::EngineOptions base;
  base.metric = o.metric;
  base.threshold = o.t;
  base.cap_factor = o.c;

  Progress::say(comm, "reading {} trace path(s)", o.traces.size());
  const std::vector<mq::RankTrace> traces = mq::read_traces(o.traces);
  const std::vector<mq::RankWorkload> workloads = mq::reconstruct(traces);
  const TraceFigures figures = trace_figures(traces, workloads);

  Progress::say(comm, "replaying through linked-list (the reference)");
  std::vector<std::string> reference_failures;
  std::vector<RankRun> ranks = reference_runs(workloads, reference_failures);
  if (!o.profile.empty()) read_profiles(o.profile, ranks);
  mq::QueueLengths all_lengths;
  for (const RankRun& r : ranks) {
    all_lengths.prq.merge(r.lengths.prq);
    all_lengths.umq.merge(r.lengths.umq);
  }

  std::vector<EngineRun> engines;
  for (const std::string& n : names) engines.push_back(EngineRun{n, {}, {}, 0, {}, {}});
  Progress::say(comm, "pass 1: {}", fmt::join(names, ", "));
  const double start = MPI_Wtime();
  run_pass(engines, ranks, base, true);
  bool failed = !reference_failures.empty();
  for (const EngineRun& e : engines) failed |= !e.failures.empty();
  int passes = o.passes > 0 ? o.passes : passes_for(MPI_Wtime() - start);
  if (failed) passes = 1;
  if (passes > 1) Progress::say(comm, "passes 2 to {}", passes);
  for (int p = 1; p < passes; ++p) run_pass(engines, ranks, base, false);
  for (EngineRun& e : engines) total_up(e);

  const std::uint64_t events = figures.posts + figures.arrivals + figures.probes;
  const std::string profile_source = o.profile.empty() ? std::string("from this trace") : o.profile;
  std::string out = fmt::format(
      "mq replay {}: {} ranks ({} files), {} with matching events: {} events ({} posts, {} "
      "arrivals, {} probes)\nreconstruction: {} arrivals moved, {} dropped, {} receives voided, "
      "{} probes unexplained\n",
      fmt::join(o.traces, " "), figures.world_size, figures.files, ranks.size(), events,
      figures.posts, figures.arrivals, figures.probes, figures.arrivals_moved,
      figures.arrivals_dropped, figures.receives_voided, figures.probes_unexplained);
  out += fmt::format(
      "engines: metric {}, t {}, c {}; partner-static profile: {}; time: median of {} pass{}, "
      "fresh engine each\n\n",
      o.metric, o.t, o.c, profile_source, passes, passes == 1 ? "" : "es");
  out += engine_table(engines);
  out +=
      "(mean: elements traversed / searches, all ranks; max: over ranks; ns/op: engine time of\n"
      " each rank's median pass, summed / operations; partners, levels, extractions: sums over\n"
      " ranks; ext_%: extraction time in % of engine time; mem: overhead bytes, max and sum)\n";
  out += lengths_table(ranks, all_lengths, events);
  std::vector<std::string> failures = reference_failures;
  for (const EngineRun& e : engines) {
    constexpr size_t kShown = 5;
    for (size_t i = 0; i < e.failures.size() && i < kShown; ++i) failures.push_back(e.failures[i]);
    if (e.failures.size() > kShown)
      failures.push_back(
          fmt::format("FAIL: engine {}: {} more ranks differ", e.name, e.failures.size() - kShown));
  }
  if (!failures.empty()) out += fmt::format("\n{}\n", fmt::join(failures, "\n"));
  std::fputs(out.c_str(), stdout);
  std::fflush(stdout);

  if (!o.matches.empty()) write_matches(o.matches, ranks);
  if (!o.json.empty()) {
    nlohmann::json doc = result_envelope(comm, "mq replay", inv.argc, inv.argv);
    doc["traces"] = o.traces;
    doc["trace"] = {{"world_size", figures.world_size},
                    {"files", figures.files},
                    {"ranks_with_events", ranks.size()},
                    {"events", events},
                    {"posts", figures.posts},
                    {"arrivals", figures.arrivals},
                    {"probes", figures.probes},
                    {"arrivals_moved", figures.arrivals_moved},
                    {"arrivals_dropped", figures.arrivals_dropped},
                    {"receives_voided", figures.receives_voided},
                    {"probes_unexplained", figures.probes_unexplained}};
    doc["configuration"] = {{"engines", names},
                            {"metric", o.metric},
                            {"t", o.t},
                            {"c", o.c},
                            {"alpha", base.alpha},
                            {"bins", base.bins},
                            {"vector_width", base.vector_width},
                            {"profile", profile_source},
                            {"passes", passes}};
    doc["engines"] = nlohmann::json::array();
    for (const EngineRun& e : engines) doc["engines"].push_back(engine_json(e, ranks));
    nlohmann::json per_rank = nlohmann::json::array();
    for (const RankRun& r : ranks)
      per_rank.push_back({{"rank", r.workload->rank},
                          {"events", r.workload->events.size()},
                          {"prq", lengths_json(r.lengths.prq)},
                          {"umq", lengths_json(r.lengths.umq)}});
    doc["queue_lengths"] = {
        {"all", {{"prq", lengths_json(all_lengths.prq)}, {"umq", lengths_json(all_lengths.umq)}}},
        {"per_rank", std::move(per_rank)}};
    doc["check"] = failures.empty() ? "OK" : "FAIL";
    doc["failures"] = failures;
    write_json_on_root(comm, o.json, doc);
  }
  if (!failures.empty())
    fail_everywhere(fmt::format("mq replay: {} check{} failed (FAIL lines above)", failures.size(),
                                failures.size() == 1 ? "" : "s"));
}

// ------------------------------------------------------------------ profile

struct ProfileOptions {
  std::vector<std::string> traces;
  std::string output;
};

void run_profile(const ProfileOptions& o) {
  const std::vector<mq::RankTrace> traces = mq::read_traces(o.traces);
  const std::vector<mq::RankWorkload> workloads = mq::reconstruct(traces);
  std::vector<std::string> failures;
  const std::vector<RankRun> ranks = reference_runs(workloads, failures);
  if (!failures.empty()) {
    std::fprintf(stdout, "%s\n", fmt::format("{}", fmt::join(failures, "\n")).c_str());
    fail_everywhere("mq profile: linked-list does not reproduce the program's matches");
  }
  need_one_rank("--output", o.output, ranks);
  std::uint64_t elements = 0, sources = 0;
  for (const RankRun& r : ranks)
    for (const auto& comm_counts : r.counted)
      for (std::uint64_t n : comm_counts) {
        elements += n;
        sources += n > 0;
      }
  if (ranks.empty()) mq::write_profile(rank_path(o.output, 0), {});
  for (const RankRun& r : ranks)
    mq::write_profile(rank_path(o.output, r.workload->rank), r.counted);
  fmt::print(
      "mq profile: {} rank{} with matching events, {} queue elements from {} (rank, "
      "communicator, source) pairs; wrote {}\n",
      ranks.size(), ranks.size() == 1 ? "" : "s", elements, sources, o.output);
}

// ------------------------------------------------------------------ synth

struct SynthOptions {
  std::string output;
  std::uint64_t seed = 1;
  mq::ManyToOneOptions many;
  mq::DepthOptions depth;
  mq::WildcardOptions wildcard;
};

void run_synth(const SynthOptions& o, const std::string& workload) {
  mq::SyntheticTrace t;
  if (workload == "many-to-one")
    t = mq::synth_many_to_one(o.many, o.seed);
  else if (workload == "depth")
    t = mq::synth_depth(o.depth, o.seed);
  else
    t = mq::synth_wildcard(o.wildcard, o.seed);
  mq::write_synthetic_trace(t, o.output);
  std::uintmax_t bytes = 0;
  for (const auto& entry : std::filesystem::directory_iterator(o.output))
    bytes += entry.file_size();
  fmt::print("mq synth {}\nwrote {} files ({} bytes) to {}: {} sends, {} receives, {} probes\n",
             t.summary, t.world_size, bytes, o.output, t.sends, t.receives, t.probes);
}

// ------------------------------------------------------------------ dump

// A directory's rank-*.mqt files by rank, or the file itself.
std::vector<std::string> trace_files(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(path, ec)) return {path};
  std::vector<std::pair<long, std::string>> found;
  for (const auto& entry : fs::directory_iterator(path, ec)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with("rank-") || !name.ends_with(".mqt")) continue;
    const std::string number = name.substr(5, name.size() - 9);
    char* end = nullptr;
    const long rank = std::strtol(number.c_str(), &end, 10);
    found.emplace_back(end && *end == '\0' && !number.empty() ? rank : -1, entry.path().string());
  }
  if (ec) fail(fmt::format("{}: cannot list: {}", path, ec.message()));
  if (found.empty()) fail(fmt::format("{}: no rank-*.mqt files", path));
  std::sort(found.begin(), found.end());
  std::vector<std::string> files;
  for (auto& f : found) files.push_back(std::move(f.second));
  return files;
}

void run_dump(const std::vector<std::string>& paths) {
  std::vector<std::string> files;
  for (const std::string& p : paths)
    for (std::string& f : trace_files(p)) files.push_back(std::move(f));
  for (const std::string& f : files) {
    const mq::RankTrace t = mq::read_trace(f);
    if (files.size() > 1) std::fprintf(stdout, "==> %s <==\n", f.c_str());
    mq::dump_trace(t, stdout);
  }
  std::fflush(stdout);
}

CLI::Validator engine_validator() {
  return CLI::Validator(
      [](const std::string& name) -> std::string {
        if (name == "all") return {};
        for (const std::string& n : mq::engine_names())
          if (n == name) return {};
        return fmt::format("unknown matching engine '{}' ({} or all)", name,
                           fmt::join(mq::engine_names(), ", "));
      },
      "ENGINE");
}

void add_synth_common(CLI::App& cmd, SynthOptions& o) {
  cmd.add_option("--output", o.output, "Directory to write rank-*.mqt into (new or empty)")
      ->required();
  cmd.add_option("--seed", o.seed, "Seed of the random choices")->capture_default_str();
}

}  // namespace

void add_mq_command(CLI::App& app, Runner& run) {
  CLI::App* mq =
      app.add_subcommand("mq", "Message-matching engines on traces (serial: run with one rank)");
  mq->require_subcommand(1);
  mq->fallthrough();

  static ReplayOptions ro;
  CLI::App* replay = mq->add_subcommand(
      "replay", "Replay traces through matching engines; check and compare them");
  replay->fallthrough();
  replay->add_option("traces", ro.traces, "Trace directories (rank-*.mqt) or files of one run")
      ->required();
  static const std::string engine_help =
      fmt::format("Matching engine: {} or all", fmt::join(mq::engine_names(), ", "));
  replay->add_option("--engine", ro.engine, engine_help)
      ->check(engine_validator())
      ->capture_default_str();
  replay
      ->add_option("--t", ro.t,
                   "Partner engines: one queue pair until a queue would outgrow T; "
                   "partner-dynamic: the non-partner queue length that extracts")
      ->check(CLI::Range(0, 1 << 30))
      ->capture_default_str();
  replay->add_option("--c", ro.c, "partner-dynamic: at most c * sqrt(N) partner queues")
      ->check(CLI::Range(1e-6, 1e6))
      ->capture_default_str();
  replay->add_option("--metric", ro.metric, "Partner engines' edge point: average, median or fence")
      ->check(CLI::IsMember({"average", "median", "fence"}))
      ->capture_default_str();
  replay->add_option("--profile", ro.profile,
                     "partner-static, partner-vectors: profile from `mq profile` ({rank} in the "
                     "name: one file per rank; default: from this trace)");
  replay->add_option("--matches", ro.matches,
                     "Write 'rank receive_index source sequence' per matched receive");
  replay->add_option("--passes", ro.passes, "Timed passes per engine (default: 5, fewer if long)")
      ->check(CLI::Range(1, 1000));
  replay->add_option("--json", ro.json, "Write the results as JSON (docs/json-schema.md)");
  replay->callback([&run] {
    run = [](const Comm& comm, const Invocation& inv) {
      serially(comm, [&] { run_replay(comm, inv, ro); });
    };
  });

  static ProfileOptions po;
  CLI::App* profile = mq->add_subcommand(
      "profile", "partner-static's profile: queue elements per communicator and source");
  profile->fallthrough();
  profile->add_option("traces", po.traces, "Trace directories (rank-*.mqt) or files of one run")
      ->required();
  profile
      ->add_option("--output", po.output,
                   "Profile file to write ({rank} in the name: one file per rank)")
      ->required();
  profile->callback([&run] {
    run = [](const Comm& comm, const Invocation&) { serially(comm, [&] { run_profile(po); }); };
  });

  static SynthOptions so;
  CLI::App* synth = mq->add_subcommand("synth", "Write a synthetic trace (all ranks)");
  synth->require_subcommand(1);
  synth->fallthrough();
  CLI::App* many = synth->add_subcommand(
      "many-to-one", "Every rank sends to rank 0, which receives from specific sources, scrambled");
  add_synth_common(*many, so);
  many->add_option("--ranks", so.many.ranks, "Simulated ranks")->capture_default_str();
  many->add_option("--messages", so.many.messages, "Steps: messages per (light) sender")
      ->capture_default_str();
  many->add_option("--heavy", so.many.heavy, "Fraction of heavy senders")->capture_default_str();
  many->add_option("--heavy-factor", so.many.heavy_factor, "Messages a step of a heavy sender")
      ->capture_default_str();
  CLI::App* depth =
      synth->add_subcommand("depth", "Rank 0 holds D posted receives, then D unexpected messages");
  add_synth_common(*depth, so);
  depth->add_option("--depth", so.depth.depth, "Queue depth D")->capture_default_str();
  depth->add_option("--ranks", so.depth.ranks, "Simulated ranks")->capture_default_str();
  CLI::App* wildcard =
      synth->add_subcommand("wildcard", "Receives with MPI_ANY_SOURCE / MPI_ANY_TAG mixed in");
  add_synth_common(*wildcard, so);
  wildcard->add_option("--ranks", so.wildcard.ranks, "Simulated ranks")->capture_default_str();
  wildcard->add_option("--fraction", so.wildcard.fraction, "Fraction of wildcard receives")
      ->capture_default_str();
  wildcard->add_option("--messages", so.wildcard.messages, "Steps: messages per sender")
      ->capture_default_str();
  wildcard->add_option("--tags", so.wildcard.tags, "Tags drawn from [0, tags)")
      ->capture_default_str();
  wildcard->add_option("--probes", so.wildcard.probes, "Probability of a probe before a receive")
      ->capture_default_str();
  for (CLI::App* kind : {many, depth, wildcard}) {
    const std::string name = kind->get_name();
    kind->callback([&run, name] {
      run = [name](const Comm& comm, const Invocation&) {
        serially(comm, [&] { run_synth(so, name); });
      };
    });
  }

  static std::vector<std::string> dump_paths;
  CLI::App* dump = mq->add_subcommand("dump", "Print trace files, one record a line");
  dump->add_option("traces", dump_paths, "Trace files or directories (rank-*.mqt)")->required();
  dump->callback([&run] {
    run = [](const Comm& comm, const Invocation&) {
      serially(comm, [&] { run_dump(dump_paths); });
    };
  });
}

}  // namespace gc::cli
