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
#include "cli/harness.hpp"
#include "core/output.hpp"
#include "core/page_advice.hpp"
#include "mq/engines/engine.hpp"
#include "mq/engines/profile.hpp"
#include "mq/engines/replay.hpp"
#include "mq/replay_run.hpp"
#include "mq/report.hpp"
#include "mq/trace/synth.hpp"
#include "mq/trace/trace.hpp"

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
  std::string engine = "all", metric = "average", memory = "default", profile, matches, json;
  int t = mq::EngineOptions{}.threshold;
  double c = mq::EngineOptions{}.cap_factor;
  double alpha = mq::EngineOptions{}.alpha;
  int passes = 0;  // 0: by the trace's length
};

void run_replay(const Comm& comm, const Invocation& inv, const ReplayOptions& o) {
  mq::ReplaySettings settings;
  settings.engines = o.engine == "all" ? mq::engine_names() : std::vector<std::string>{o.engine};
  settings.base.metric = o.metric;
  settings.base.threshold = o.t;
  settings.base.cap_factor = o.c;
  settings.base.alpha = o.alpha;
  settings.base.memory = o.memory == "bounded"     ? mq::EngineOptions::Memory::bounded
                         : o.memory == "unbounded" ? mq::EngineOptions::Memory::unbounded
                                                   : mq::EngineOptions::Memory::engine_default;
  settings.profile = o.profile;
  settings.passes = o.passes;
  mq::ReplayRun run;
  mq::run_replay(comm, o.traces, settings, run);
  const std::string out = mq::replay_text(run, settings);
  std::fputs(out.c_str(), stdout);
  std::fflush(stdout);
  if (!o.matches.empty()) mq::write_matches(o.matches, run.ranks);
  write_results(comm, inv, "mq replay", o.json, [&] { return mq::replay_json(run, settings); });
  if (!run.failures.empty())
    fail_everywhere(fmt::format("mq replay: {} check{} failed (FAIL lines above)",
                                run.failures.size(), run.failures.size() == 1 ? "" : "s"));
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
  const std::vector<mq::RankRun> ranks = mq::reference_runs(workloads, failures);
  if (!failures.empty()) {
    std::fprintf(stdout, "%s\n", fmt::format("{}", fmt::join(failures, "\n")).c_str());
    fail_everywhere("mq profile: linked-list does not reproduce the program's matches");
  }
  mq::need_one_rank("--output", o.output, ranks);
  std::uint64_t elements = 0, sources = 0;
  for (const mq::RankRun& r : ranks)
    for (const auto& comm_counts : r.counted)
      for (std::uint64_t n : comm_counts) {
        elements += n;
        sources += n > 0;
      }
  if (ranks.empty()) mq::write_profile(mq::rank_path(o.output, 0), {});
  for (const mq::RankRun& r : ranks)
    mq::write_profile(mq::rank_path(o.output, r.workload->rank), r.counted);
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
  mq::FdsOptions fds;
};

void run_synth(const SynthOptions& o, const std::string& workload) {
  mq::SyntheticTrace t;
  if (workload == "many-to-one")
    t = mq::synth_many_to_one(o.many, o.seed);
  else if (workload == "depth")
    t = mq::synth_depth(o.depth, o.seed);
  else if (workload == "fds")
    t = mq::synth_fds(o.fds, o.seed);
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
  replay
      ->add_option("--c", ro.c,
                   "Partner engines with bounded memory: at most c * sqrt(N) partners per "
                   "communicator and queue")
      ->check(CLI::Range(1e-6, 1e6))
      ->capture_default_str();
  replay
      ->add_option("--memory", ro.memory,
                   "Partner engines' memory: bounded (at most c * sqrt(N) partners, the "
                   "fullest), unbounded (every partner the metric finds), or default "
                   "(partner-dynamic bounded, partner-static and partner-vectors unbounded)")
      ->check(CLI::IsMember({"default", "bounded", "unbounded"}))
      ->capture_default_str();
  replay->add_option("--metric", ro.metric, "Partner engines' edge point: average, median or fence")
      ->check(CLI::IsMember({"average", "median", "fence"}))
      ->capture_default_str();
  replay
      ->add_option("--alpha", ro.alpha,
                   "The fence metric's Q3 + alpha (Q3 - Q1) (the study's outliers: alpha 0)")
      ->check(CLI::Range(0.0, 1e6))
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
  CLI::App* fds = synth->add_subcommand(
      "fds",
      "FDS-like: every rank sends per mesh to rank 0, received mesh by mesh, plus a linear "
      "gatherv (bench/workloads/fds_like.c)");
  add_synth_common(*fds, so);
  fds->add_option("--ranks", so.fds.ranks, "Simulated ranks")->capture_default_str();
  fds->add_option("--steps", so.fds.steps, "Time steps")->capture_default_str();
  fds->add_option("--meshes-min", so.fds.meshes_min, "Fewest meshes a rank holds")
      ->capture_default_str();
  fds->add_option("--meshes-max", so.fds.meshes_max, "Most meshes a rank holds")
      ->capture_default_str();
  fds->add_option("--messages", so.fds.messages, "Messages to rank 0 per mesh and step")
      ->capture_default_str();
  fds->add_flag("--no-gatherv{false}", so.fds.gatherv, "Leave out the gatherv");
  for (CLI::App* kind : {many, depth, wildcard, fds}) {
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
