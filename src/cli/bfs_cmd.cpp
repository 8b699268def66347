// graphcomm bfs: the Graph500 BFS benchmark over every algorithm and
// communication model.
#include <algorithm>
#include <array>
#include <cstdio>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/auto_model.hpp"
#include "cli/commands.hpp"
#include "cli/graph500_run.hpp"
#include "cli/harness.hpp"
#include "comm/models.hpp"
#include "core/output.hpp"
#include "core/registry.hpp"
#include "core/table.hpp"
#include "kernels/bfs/bfs.hpp"
#include "kernels/bfs/graph500.hpp"

namespace gc::cli {

namespace {

// The configuration run when none is named; bench/README.md (bfs.py)
// compares it with the others.
constexpr bfs::Algorithm kDefaultAlgorithm = bfs::Algorithm::direction_optimizing;
const char* const kDefaultModel = "ncl";

struct BfsOptions : Graph500Options {
  std::string algorithm, model;
  std::string levels, json, calibration;
  bool profile = false;
  bool no_work_sharing = false;
  ExchangeOptions exchange;
};

struct ConfigRun : Graph500Run {
  bfs::Configuration config;
  std::uint64_t flow_waits = 0;             // over every search, sum over ranks
  std::uint64_t shared = 0;                 // frontier vertices scanned by node peers (hybrid)
  std::vector<bfs::SearchResult> profiles;  // per search, levels only
};

std::vector<bfs::Configuration> configurations(const Comm& comm, const BfsOptions& o) {
  const bool any_algorithm = o.algorithm.empty(), any_model = o.model.empty();
  if (o.model == "all" || o.model == "auto") {  // auto: advise/ picks one of these
    std::vector<bfs::Configuration> out;
    for (const auto& c : bfs::all_configurations())
      if (any_algorithm || bfs::algorithm_name(c.algorithm) == o.algorithm) out.push_back(c);
    return out;
  }
  const bfs::Algorithm a = any_algorithm ? kDefaultAlgorithm : bfs::parse_algorithm(o.algorithm);
  for (const bfs::AlgorithmInfo& info : bfs::algorithm_table())
    if (info.algorithm == a && !info.uses_exchange) {
      if (!any_model)
        fail_everywhere(
            fmt::format("--algorithm {} uses no exchange model: drop --model", info.name));
      return {{a, ""}};
    }
  (void)comm;
  return {{a, any_model ? kDefaultModel : o.model}};
}

void print_single(const ConfigRun& r) {
  const std::string tail =
      r.config.model == "hybrid"
          ? fmt::format("mean_shared_vertices: {:.6g}\n", r.shared / r.searches())
          : "";
  std::fputs(single_output(r, r.config.name(), "", "", tail).c_str(), stdout);
}

void print_table(const std::vector<ConfigRun>& runs) {
  const Table table({{"configuration", "<32"},
                     {"hmean_MTEPS", ">12.2f"},
                     {"median_s", ">12.6f"},
                     {"setup_s", ">10.4f"},
                     {"msgs/search", ">13.0f"},
                     {"MiB/search", ">13.3f"},
                     {"buffer_MiB", ">10.2f"},
                     {"validation", ""}});
  std::string out = table.header();
  for (const ConfigRun& r : runs) {
    const bfs::TepsSummary t = bfs::summarize(r.figures);
    out += table.row(r.config.name(), t.harmonic_mean / 1e6, t.time.median, r.setup_seconds,
                     r.messages / r.searches(), r.bytes / r.searches() / (1 << 20),
                     static_cast<double>(r.buffer_bytes_max) / (1 << 20), r.validation);
  }
  std::fputs(out.c_str(), stdout);
}

void print_profile(const ConfigRun& r) {
  if (r.profiles.empty()) return;
  const bfs::SearchResult& s = r.profiles.front();
  std::string out = fmt::format("\n{}: levels of the first search (root {}; max over ranks)\n",
                                r.config.name(), s.root);
  const Table table({{"level", ">6"},
                     {"direction", ">10"},
                     {"frontier", ">12"},
                     {"seconds", ">11.6f"},
                     {"messages", ">12"},
                     {"bytes", ">13"}});
  out += table.header();
  for (const bfs::LevelFigures& l : s.levels)
    out += table.row(l.level, l.bottom_up ? "bottom-up" : "top-down", l.frontier, l.seconds,
                     l.messages, l.bytes);
  // One root's levels can mislead: whether the hubs are reached top-down
  // or bottom-up depends on the root. So the time per direction over all.
  std::array<double, 2> seconds = {0, 0};
  std::array<std::uint64_t, 2> levels = {0, 0};
  for (const bfs::SearchResult& each : r.profiles)
    for (const bfs::LevelFigures& l : each.levels) {
      seconds[l.bottom_up] += l.seconds;
      ++levels[l.bottom_up];
    }
  const double n = static_cast<double>(r.profiles.size());
  std::vector<std::string> parts;
  for (const bool bottom_up : {false, true})
    if (levels[bottom_up] > 0)
      parts.push_back(fmt::format("{} {:.6f} s in {:.3g} levels",
                                  bottom_up ? "bottom-up" : "top-down", seconds[bottom_up] / n,
                                  static_cast<double>(levels[bottom_up]) / n));
  out += fmt::format("over the {} searches, a search: {}\n", r.profiles.size(),
                     fmt::join(parts, ", "));
  std::fputs(out.c_str(), stdout);
}

nlohmann::json levels_json(const bfs::SearchResult& s) {
  nlohmann::json out = nlohmann::json::array();
  for (const bfs::LevelFigures& l : s.levels)
    out.push_back({{"level", l.level},
                   {"direction", l.bottom_up ? "bottom-up" : "top-down"},
                   {"frontier", l.frontier},
                   {"seconds", l.seconds},
                   {"messages", l.messages},
                   {"bytes", l.bytes}});
  return out;
}

nlohmann::json bfs_run_json(const ConfigRun& r) {
  nlohmann::json j =
      run_json(r, r.config.name(), bfs::algorithm_name(r.config.algorithm), r.config.model);
  j.update({{"flow_waits", r.flow_waits},
            {"nbfs", r.figures.seconds.size()},
            {"shared_vertices", r.shared}});
  if (!r.profiles.empty()) {
    j["levels"] = nlohmann::json::array();
    for (const auto& s : r.profiles)
      j["levels"].push_back({{"root", s.root}, {"levels", levels_json(s)}});
  }
  return j;
}

ConfigRun run_configuration(const Comm& comm, const bfs::BfsGraph& bg,
                            const bfs::Configuration& config, const std::vector<vid_t>& keys,
                            Graph500Searches searches, const BfsOptions& o) {
  ConfigRun run;
  run.config = config;
  const DistGraph& g = bg.g;
  bfs::Bfs engine(comm, bg, config.algorithm, config.model,
                  o.no_work_sharing ? bfs::Bfs::WorkSharing::off : bfs::Bfs::WorkSharing::on,
                  o.exchange);
  run.setup_seconds = engine.setup_seconds();
  for (std::size_t k = 0; k < keys.size(); ++k) {
    searches.announce(k);
    bfs::SearchResult s = engine.search(keys[k], o.profile);
    searches.record(k, s.seconds, s.level, bfs::kUnreached,
                    [&] { return bfs::check(comm, g, keys[k], s.parent); });
    run.messages += s.messages;
    run.bytes += s.bytes;
    run.shared += s.shared;
    if (o.profile) {
      s.root = searches.key_name(k);  // printed: the input's id
      s.parent.clear();
      s.level.clear();
      run.profiles.push_back(std::move(s));
    }
  }
  run.take(std::move(searches));
  // Buffers that grow on demand are at their largest now.
  run.buffer_bytes_max = max_over_ranks(comm, engine.buffer_bytes());
  run.combined_plan = report_combined_plan(comm, engine.combined_plan());
  run.flow_waits = sum_over_ranks(comm, engine.flow_waits());
  return run;
}

void run_bfs(const Comm& comm, const Invocation& inv, BfsOptions& o) {
  if (o.roots < 1) fail_everywhere("--roots must be at least 1");
  std::vector<bfs::Configuration> configs = configurations(comm, o);

  LoadOptions load = o.graph.load_options();
  load.edge_weights = EdgeWeights::none;  // BFS reads none
  Graph500Input input;
  prepare_graph500_input(comm, o.scale, o.edgefactor, o.graph.spec, o.graph.distribution, load,
                         input);
  LoadedGraph loaded = load_graph(comm, input.spec, load);
  const DistGraph& g = loaded.graph;
  Progress::say(comm, "building the BFS adjacency");
  PhaseTimer bfs_graph_timer(comm);
  const bfs::BfsGraph bg(comm, g);
  const double bfs_graph_seconds = bfs_graph_timer.stop();
  const double generation_seconds = loaded.seconds - loaded.build_seconds - input.counting_seconds;
  const double construction_seconds = loaded.build_seconds + bfs_graph_seconds;
  nlohmann::json auto_advice;
  if (o.model == "auto") {
    std::vector<std::string> names;
    for (const bfs::Configuration& c : configs) names.push_back(c.name());
    const AutoChoice choice =
        choose_configuration(comm, g, "bfs", names, o.calibration, o.graph.seed);
    std::erase_if(configs,
                  [&](const bfs::Configuration& c) { return c.name() != choice.configuration; });
    auto_advice = choice.advice;
  }

  // Graph ids (the input's unless reordered or partitioned).
  const std::vector<vid_t> keys = search_keys(comm, g, o.root, o.roots, o.graph.seed);
  const std::vector<vid_t> key_names = input_ids_of(comm, g, keys);  // for outputs
  if (comm.rank() == 0)
    std::fputs(graph500_header(comm, "bfs", loaded, o.model == "all", o.scale, keys.size()).c_str(),
               stdout);
  const bfs::Graph500Figures figures =
      input_figures(comm, o.scale, o.edgefactor, generation_seconds, construction_seconds);
  const std::vector<ConfigRun> runs =
      run_configurations(comm, g, input, key_names, figures, configs, o.levels,
                         [&](const bfs::Configuration& config, Graph500Searches searches) {
                           return run_configuration(comm, bg, config, keys, std::move(searches), o);
                         });
  print_runs(comm, runs, o.profile, print_single, print_table, print_profile);
  write_results(comm, inv, "bfs", o.json, [&] {
    nlohmann::json doc = graph500_document(loaded, key_names, o.exchange, o.scale, input,
                                           generation_seconds, construction_seconds);
    for (const ConfigRun& r : runs) doc["runs"].push_back(bfs_run_json(r));
    doc["memory"] =
        memory_report(comm, g, bg.memory_bytes() - g.memory_bytes(), loaded.estimated_peak_bytes);
    if (!auto_advice.is_null()) doc["auto"] = auto_advice;
    return doc;
  });
  fail_on_invalid(runs, "BFS");
}

}  // namespace

void add_bfs_command(CLI::App& app, Runner& run) {
  static BfsOptions o;
  CLI::App* cmd = app.add_subcommand(
      "bfs",
      "Graph500 BFS (kernel 2) over every algorithm and communication model, reported in TEPS");
  cmd->fallthrough();
  add_graph500_options(*cmd, o,
                       "Graph500 Kronecker graph of 2^SCALE vertices (kernel 1 timed as "
                       "construction_time)",
                       "", "Seed of the generator and of the search keys");
  static const std::vector<std::string> algorithms = names_of(bfs::algorithm_table());
  static const std::string algorithm_help = fmt::format(
      "{} (default: {})", fmt::join(algorithms, ", "), bfs::algorithm_name(kDefaultAlgorithm));
  cmd->add_option("--algorithm", o.algorithm, algorithm_help)->check(CLI::IsMember(algorithms));
  static const std::string model_help = fmt::format(
      "Exchange model of the top-down steps: {}; or all (every algorithm and model); or auto (the "
      "configuration graphcomm advise ranks first, among --algorithm's if given); default {}",
      fmt::join(exchange_models(), ", "), kDefaultModel);
  cmd->add_option("--model", o.model, model_help)->check(model_validator());
  cmd->add_option("--levels", o.levels,
                  "Write 'vertex level' per reached vertex of the first search (0-based ids)");
  cmd->add_flag("--profile", o.profile,
                "Per level: direction, frontier size, time, messages and bytes");
  add_exchange_options(*cmd, o.exchange);
  add_calibration_option(*cmd, o.calibration);
  cmd->add_flag("--no-work-sharing", o.no_work_sharing,
                "hybrid: ranks of a node do not take each other's frontier work");
  cmd->add_option("--json", o.json, "Write the results as JSON (docs/json-schema.md)");
  cmd->callback([&run] {
    // A usage error, as a missing required option is (exit 2, "Run with --help").
    if (o.scale == 0 && o.graph.spec.empty())
      throw CLI::ValidationError(
          "bfs needs --scale S (a Graph500 Kronecker graph) or --graph SPEC");
    run = [](const Comm& comm, const Invocation& inv) { run_bfs(comm, inv, o); };
  });
}

}  // namespace gc::cli
