// graphcomm sssp: the Graph500 SSSP benchmark (kernel 3) over every algorithm
// and communication model.
#include <cmath>
#include <cstdio>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/commands.hpp"
#include "cli/graph500_run.hpp"
#include "cli/harness.hpp"
#include "comm/models.hpp"
#include "core/output.hpp"
#include "core/registry.hpp"
#include "core/table.hpp"
#include "kernels/sssp/sssp.hpp"

namespace gc::cli {

namespace {

constexpr sssp::Algorithm kDefaultAlgorithm = sssp::Algorithm::delta_stepping;
const char* const kDefaultModel = "ncl";

struct SsspOptions : Graph500Options {
  std::string algorithm, model, delta = "auto", weights_precision = "double";
  std::string distances, json;
  bool profile = false;
  ExchangeOptions exchange;
};

struct Configuration {
  sssp::Algorithm algorithm;
  std::string model;
  std::string name() const { return fmt::format("{}/{}", sssp::algorithm_name(algorithm), model); }
};

struct ConfigRun : Graph500Run {
  Configuration config;
  double delta = 0;
  std::uint64_t relaxations = 0, phases = 0, buckets = 0;
  std::vector<sssp::SearchResult> profiles;  // per search, buckets only
};

std::vector<Configuration> configurations(const SsspOptions& o) {
  if (o.model == "auto")
    fail_everywhere(
        "sssp --model auto: graphcomm advise has no SSSP cost model yet; run --model all and "
        "pick");
  std::vector<sssp::Algorithm> algorithms;
  for (const sssp::AlgorithmInfo& a : sssp::algorithm_table())
    if (o.algorithm.empty() ? a.algorithm == kDefaultAlgorithm || o.model == "all"
                            : o.algorithm == a.name)
      algorithms.push_back(a.algorithm);
  std::vector<Configuration> out;
  for (sssp::Algorithm a : algorithms) {
    if (o.model == "all")
      for (const std::string& m : exchange_models()) out.push_back({a, m});
    else
      out.push_back({a, o.model.empty() ? kDefaultModel : o.model});
  }
  return out;
}

double parse_delta(const Comm& comm, const DistGraph& g, const std::string& text) {
  if (text == "auto") return sssp::auto_delta(comm, g);
  std::size_t used = 0;
  double d = 0;
  try {
    d = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || !(d > 0) || std::isinf(d))
    fail_everywhere(fmt::format("--delta {}: a positive number or auto", text));
  return d;
}

void print_single(const ConfigRun& r) {
  const std::string head = r.delta > 0 ? fmt::format("delta: {:.6g}\n", r.delta) : "";
  const std::string tail =
      fmt::format("mean_relaxations: {:.6g}\nmean_phases: {:.6g}\nmean_buckets: {:.6g}\n",
                  r.relaxations / r.searches(), r.phases / r.searches(), r.buckets / r.searches());
  std::fputs(single_output(r, r.config.name(), "sssp", head, tail).c_str(), stdout);
}

void print_table(const std::vector<ConfigRun>& runs) {
  const Table table({{"configuration", "<30"},
                     {"hmean_MTEPS", ">12.2f"},
                     {"median_s", ">12.6f"},
                     {"setup_s", ">9.4f"},
                     {"phases", ">8.0f"},
                     {"relax/search", ">13.0f"},
                     {"msgs/search", ">12.0f"},
                     {"MiB/search", ">11.3f"},
                     {"validation", ""}});
  std::string out = table.header();
  for (const ConfigRun& r : runs) {
    const bfs::TepsSummary t = bfs::summarize(r.figures);
    out += table.row(r.config.name(), t.harmonic_mean / 1e6, t.time.median, r.setup_seconds,
                     r.phases / r.searches(), r.relaxations / r.searches(),
                     r.messages / r.searches(), r.bytes / r.searches() / (1 << 20), r.validation);
  }
  std::fputs(out.c_str(), stdout);
}

void print_profile(const ConfigRun& r) {
  if (r.profiles.empty()) return;
  const sssp::SearchResult& s = r.profiles.front();
  std::string out = fmt::format("\n{}: buckets of the first search (root {}; max over ranks)\n",
                                r.config.name(), s.root);
  const Table table({{"bucket", ">7"},
                     {"light_rounds", ">13"},
                     {"settled", ">10"},
                     {"relaxations", ">12"},
                     {"seconds", ">11.6f"},
                     {"messages", ">11"},
                     {"bytes", ">12"}});
  out += table.header();
  for (const sssp::BucketFigures& b : s.profile)
    out += table.row(b.bucket, b.light_rounds, b.settled, b.relaxations, b.seconds, b.messages,
                     b.bytes);
  std::fputs(out.c_str(), stdout);
}

nlohmann::json sssp_run_json(const ConfigRun& r) {
  nlohmann::json j =
      run_json(r, r.config.name(), sssp::algorithm_name(r.config.algorithm), r.config.model);
  j.update({{"delta", r.delta > 0 ? nlohmann::json(r.delta) : nlohmann::json()},
            {"nsssp", r.figures.seconds.size()},
            {"relaxations", r.relaxations},
            {"phases", r.phases},
            {"buckets", r.buckets}});
  if (!r.profiles.empty()) {
    j["profile"] = nlohmann::json::array();
    for (const auto& s : r.profiles) {
      nlohmann::json buckets = nlohmann::json::array();
      for (const sssp::BucketFigures& b : s.profile)
        buckets.push_back({{"bucket", b.bucket},
                           {"light_rounds", b.light_rounds},
                           {"settled", b.settled},
                           {"relaxations", b.relaxations},
                           {"seconds", b.seconds},
                           {"messages", b.messages},
                           {"bytes", b.bytes}});
      j["profile"].push_back({{"root", s.root}, {"buckets", buckets}});
    }
  }
  return j;
}

ConfigRun run_configuration(const Comm& comm, const DistGraph& g, const Configuration& config,
                            double delta, const std::vector<vid_t>& keys, Graph500Searches searches,
                            const SsspOptions& o) {
  ConfigRun run;
  run.config = config;
  // Bellman-Ford has no buckets: no width to report.
  run.delta = config.algorithm == sssp::Algorithm::delta_stepping ? delta : 0;
  sssp::Sssp engine(comm, g, config.algorithm, config.model, delta, o.exchange);
  run.setup_seconds = engine.setup_seconds();
  for (std::size_t k = 0; k < keys.size(); ++k) {
    searches.announce(k);
    sssp::SearchResult s = engine.search(keys[k], o.profile);
    searches.record(k, s.seconds, s.dist, sssp::kUnreached,
                    [&] { return sssp::check(comm, g, keys[k], s.dist, s.parent); });
    run.messages += s.messages;
    run.bytes += s.bytes;
    run.relaxations += s.relaxations;
    run.phases += s.phases;
    run.buckets += s.buckets;
    if (o.profile) {
      s.root = searches.key_name(k);  // printed: the input's id
      s.dist.clear();
      s.parent.clear();
      run.profiles.push_back(std::move(s));
    }
  }
  run.take(std::move(searches));
  run.buffer_bytes_max = max_over_ranks(comm, engine.buffer_bytes());
  run.combined_plan = report_combined_plan(comm, engine.combined_plan());
  return run;
}

void run_sssp(const Comm& comm, const Invocation& inv, SsspOptions& o) {
  if (o.roots < 1) fail_everywhere("--roots must be at least 1");
  const std::vector<Configuration> configs = configurations(o);
  LoadOptions load = o.graph.load_options();
  load.edge_weights = o.weights_precision == "float" ? EdgeWeights::as_float : EdgeWeights::kept;
  load.duplicates = Duplicates::lightest;  // a shortest path takes the lightest copy
  Graph500Input input;
  prepare_graph500_input(comm, o.scale, o.edgefactor, o.graph.spec, o.graph.distribution, load,
                         input);
  const LoadedGraph loaded = load_graph(comm, input.spec, load);
  const DistGraph& g = loaded.graph;
  const double generation_seconds = loaded.seconds - loaded.build_seconds - input.counting_seconds;
  const double delta = parse_delta(comm, g, o.delta);
  const std::vector<vid_t> keys = search_keys(comm, g, o.root, o.roots, o.graph.seed);
  const std::vector<vid_t> key_names = input_ids_of(comm, g, keys);
  if (comm.rank() == 0)
    std::fputs(
        graph500_header(comm, "sssp", loaded, o.model == "all", o.scale, keys.size()).c_str(),
        stdout);
  const bfs::Graph500Figures figures =
      input_figures(comm, o.scale, o.edgefactor, generation_seconds, loaded.build_seconds);
  const std::vector<ConfigRun> runs = run_configurations(
      comm, g, input, key_names, figures, configs, o.distances,
      [&](const Configuration& config, Graph500Searches searches) {
        return run_configuration(comm, g, config, delta, keys, std::move(searches), o);
      });
  print_runs(comm, runs, o.profile, print_single, print_table, print_profile);
  write_results(comm, inv, "sssp", o.json, [&] {
    nlohmann::json doc = graph500_document(loaded, key_names, o.exchange, o.scale, input,
                                           generation_seconds, loaded.build_seconds);
    doc["weights_precision"] = o.weights_precision;
    for (const ConfigRun& r : runs) doc["runs"].push_back(sssp_run_json(r));
    doc["memory"] = memory_report(comm, g, 0, loaded.estimated_peak_bytes);
    return doc;
  });
  fail_on_invalid(runs, "SSSP");
}

}  // namespace

void add_sssp_command(CLI::App& app, Runner& run) {
  static SsspOptions o;
  CLI::App* cmd = app.add_subcommand(
      "sssp",
      "Graph500 SSSP (kernel 3) over every algorithm and communication model, reported in TEPS");
  cmd->fallthrough();
  add_graph500_options(*cmd, o,
                       "Graph500 Kronecker graph of 2^SCALE vertices, weights uniform in (0, 1] "
                       "from the seed (kernel 1 timed as construction_time)",
                       "\nWeights: the file's (--weights), else from the seed; of a repeated edge "
                       "the lightest copy is kept (a shortest path takes it; matching keeps the "
                       "heaviest)",
                       "Seed of the generator, the weights and the search keys");
  static const std::vector<std::string> algorithms = names_of(sssp::algorithm_table());
  static const std::string algorithm_help =
      fmt::format("{} (default: {}; with --model all: both)", fmt::join(algorithms, ", "),
                  sssp::algorithm_name(kDefaultAlgorithm));
  cmd->add_option("--algorithm", o.algorithm, algorithm_help)->check(CLI::IsMember(algorithms));
  cmd->add_option("--delta", o.delta,
                  "Delta-stepping's bucket width, or auto: the heaviest edge over the average "
                  "degree")
      ->capture_default_str();
  static const std::string model_help = fmt::format(
      "Exchange model of the relaxations: {}; or all (every algorithm and model); "
      "default {}",
      fmt::join(exchange_models(), ", "), kDefaultModel);
  cmd->add_option("--model", o.model, model_help)->check(model_validator());
  cmd->add_option("--distances", o.distances,
                  "Write 'vertex distance' per reached vertex of the first search (0-based ids; "
                  "distances as doubles that read back exactly)");
  cmd->add_option("--weights-precision", o.weights_precision,
                  "double, or float: each weight rounded to float (4 bytes per edge instead of "
                  "8); distances are then sums of the rounded weights")
      ->check(CLI::IsMember({"double", "float"}))
      ->capture_default_str();
  cmd->add_flag("--profile", o.profile,
                "Per bucket: light rounds, vertices settled, relaxations, time, messages, bytes");
  add_exchange_options(*cmd, o.exchange);
  cmd->add_option("--json", o.json, "Write the results as JSON (docs/json-schema.md)");
  cmd->callback([&run] {
    if (o.scale == 0 && o.graph.spec.empty())
      throw CLI::ValidationError(
          "sssp needs --scale S (a Graph500 Kronecker graph) or --graph SPEC");
    run = [](const Comm& comm, const Invocation& inv) { run_sssp(comm, inv, o); };
  });
}

}  // namespace gc::cli
