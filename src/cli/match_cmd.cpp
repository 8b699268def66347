// graphcomm match: half-approximate weighted matching (locally dominant or
// Suitor) over every exchange model.
#include <algorithm>
#include <cstdio>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/auto_model.hpp"
#include "cli/commands.hpp"
#include "cli/harness.hpp"
#include "comm/models.hpp"
#include "core/output.hpp"
#include "core/table.hpp"
#include "graph/write_text.hpp"
#include "kernels/match/match.hpp"

namespace gc::cli {

namespace {

struct MatchOptions {
  GraphOptions graph;
  std::string model = "all";
  std::string algorithm = "ld";
  bool algorithm_given = false;  // --model auto picks the algorithm too unless given
  bool check = false, profile = false;
  ExchangeOptions exchange;
  std::string json, comm_matrix, mates, calibration;
  std::string weights_precision = "double";
};

struct ModelRun {
  std::string algorithm, model;
  match::MatchResult result;
  SumMax messages, bytes;
  std::uint64_t flow_waits = 0;  // sum over ranks
  PeakRss rss;
  bool rss_reset = false;  // the peak is this run's own, not the process's
  std::string check = "-";
  nlohmann::json matrix;
};

ModelRun run_model(const Comm& comm, const DistGraph& g, const std::string& algorithm,
                   const std::string& model, const MatchOptions& mo) {
  ModelRun run;
  run.algorithm = algorithm;
  run.model = model;
  Progress::say(comm, "matching with {} over {}", algorithm, model);
  run.rss_reset = reset_peak_rss_everywhere(comm);
  run.result = match::match(comm, g, model, algorithm, mo.exchange);
  run.messages = sum_and_max(comm, run.result.counters.messages());
  run.bytes = sum_and_max(comm, run.result.counters.bytes());
  run.flow_waits = sum_over_ranks(comm, run.result.counters.flow_waits);
  run.rss = peak_rss_over_ranks(comm);
  run.matrix = gather_comm_matrix(comm, run.result.counters);
  if (mo.check) {
    Progress::say(comm, "checking the {} matching over {} against the serial greedy matching",
                  algorithm, model);
    run.check = match::check(comm, g, run.result.mate).message;
  }
  return run;
}

void print_table(const Comm& comm, const LoadedGraph& loaded, const std::vector<ModelRun>& runs) {
  if (comm.rank() != 0) return;
  const DistGraph& g = loaded.graph;
  std::string out = fmt::format(
      "match {} on {} ranks ({}): |V| = {}, |E| = {}, loaded in {:.3f} s{}\n"
      "process graph: |Ep| = {}, d_max = {}\n\n",
      loaded.description["spec"].get<std::string>(), comm.size(), mpi_library_version(),
      g.global_vertex_count(), g.global_edge_count(), loaded.seconds, ordering_note(loaded),
      loaded.description.value("process_edges", 0), loaded.description.value("process_dmax", 0));
  if (const std::string note = neighborhood_collectives_note(); !note.empty()) out += note + "\n\n";
  const Table table({{"algo", "<6"},
                     {"model", "<12"},
                     {"time_s", ">9.4f"},
                     {"setup_s", ">9.4f"},
                     {"comm_s", ">9.4f"},
                     {"compute_s", ">9.4f"},
                     {"weight", ">16.6f"},
                     {"card", ">10"},
                     {"rounds", ">7"},
                     {"phases", ">6"},
                     {"msgs_sum", ">11"},
                     {"msgs_max", ">10"},
                     {"MiB_sum", ">10.2f"},
                     {"buf_MiB", ">9.1f"},
                     {"rss_MiB", ">9.1f"},
                     {"check", ""}});
  out += table.header();
  for (const ModelRun& r : runs)
    out += table.row(r.algorithm, r.model, r.result.seconds, r.result.setup_seconds,
                     r.result.comm_seconds, r.result.compute_seconds, r.result.weight,
                     r.result.cardinality, r.result.rounds, r.result.phases, r.messages.sum,
                     r.messages.max, static_cast<double>(r.bytes.sum) / (1 << 20),
                     static_cast<double>(r.result.buffer_bytes) / (1 << 20), r.rss.max / (1 << 20),
                     r.check);
  std::fputs(out.c_str(), stdout);
  std::fflush(stdout);
}

nlohmann::json run_json(const ModelRun& r) {
  nlohmann::json j = {
      {"algorithm", r.algorithm},
      {"model", r.model},
      {"seconds", r.result.seconds},
      {"setup_seconds", r.result.setup_seconds},
      {"comm_seconds", r.result.comm_seconds},
      {"compute_seconds", r.result.compute_seconds},
      {"weight", r.result.weight},
      {"cardinality", r.result.cardinality},
      {"rounds", r.result.rounds},
      {"phases", r.result.phases},
      {"messages", r.messages},
      {"bytes", r.bytes},
      {"buffer_bytes_max", r.result.buffer_bytes},
      {"flow_waits", r.flow_waits},
      {"peak_rss_bytes",
       {{"max", r.rss.max}, {"mean", r.rss.mean}, {"since_model_start", r.rss_reset}}},
      {"check", r.check},
      {"profile", r.result.profile}};
  if (r.result.combined_plan) j["combined_plan"] = to_json(*r.result.combined_plan);
  return j;
}

// Per model, where the time goes: the round profile's buckets (max over ranks).
void print_profiles(const Comm& comm, const std::vector<ModelRun>& runs) {
  if (comm.rank() != 0) return;
  const Table table(
      {{"rounds", ">15"}, {"messages", ">11"}, {"comm_s", ">10.5f"}, {"compute_s", ">11.5f"}});
  std::string out;
  for (const ModelRun& r : runs) {
    out += fmt::format("\n{} over {}: where the time goes (round 0 = {}; max over ranks)\n",
                       r.algorithm, r.model,
                       r.algorithm == "ld" ? "FINDMATE of every owned vertex"
                                           : "local Suitor of every owned vertex, or its "
                                             "first time slice when run in slices");
    out += table.header();
    for (const auto& b : r.result.profile["buckets"])
      out += table.row(fmt::format("{}-{}", b["first_round"].get<std::uint64_t>(),
                                   b["last_round"].get<std::uint64_t>()),
                       b["messages"].get<std::uint64_t>(), b["comm_seconds_max"].get<double>(),
                       b["compute_seconds_max"].get<double>());
  }
  std::fputs(out.c_str(), stdout);
  std::fflush(stdout);
}

// One "u v" line per matched edge (u < v), sorted, 0-based: the input's ids
// for generators and edge lists (also when reordered or partitioned), the
// file's ids minus one for 1-based formats.
void write_mates(const Comm& comm, const DistGraph& g, const std::vector<vid_t>& mate,
                 const std::string& path) {
  std::vector<Edge> pairs;
  for (lid_t v = 0; v < g.owned_count(); ++v) {
    if (mate[v] == match::kUnmatched) continue;
    const vid_t u = g.input_id(v), w = g.input_id(g.local_id(mate[v]));
    if (u < w) pairs.push_back(Edge{u, w, 0});
  }
  write_id_pairs(comm, pairs, path);
}

CLI::Validator algorithm_validator() {
  return CLI::Validator(
      [](const std::string& name) -> std::string {
        const auto& names = match::matching_algorithms();
        if (name == "all" || std::find(names.begin(), names.end(), name) != names.end()) return {};
        return fmt::format("unknown matching algorithm '{}' ({} or all)", name,
                           fmt::join(names, ", "));
      },
      "ALGORITHM");
}

void run_match(const Comm& comm, const Invocation& inv, const MatchOptions& mo) {
  LoadOptions lo = mo.graph.load_options();
  if (mo.weights_precision == "float") lo.edge_weights = EdgeWeights::as_float;
  LoadedGraph loaded = load_graph(comm, mo.graph.spec, lo);
  loaded.description["weights_precision"] = mo.weights_precision;
  const GhostRelation& rel = loaded.graph.ghost_relation();
  const int degree = static_cast<int>(rel.degree());
  loaded.description["process_edges"] = sum_over_ranks(comm, degree) / 2;
  loaded.description["process_dmax"] = max_over_ranks(comm, degree);

  std::vector<std::string> models = mo.model == "all" || mo.model == "auto"
                                        ? exchange_models()
                                        : std::vector<std::string>{mo.model};
  std::vector<std::string> algorithms =
      mo.algorithm == "all" || (mo.model == "auto" && !mo.algorithm_given)
          ? match::matching_algorithms()
          : std::vector<std::string>{mo.algorithm};
  nlohmann::json auto_advice;
  if (mo.model == "auto") {  // advise/ picks one algorithm/model of these
    std::vector<std::string> names;
    for (const std::string& algorithm : algorithms)
      for (const std::string& model : models) names.push_back(algorithm + "/" + model);
    const AutoChoice choice =
        choose_configuration(comm, loaded.graph, "match", names, mo.calibration, mo.graph.seed);
    const std::size_t slash = choice.configuration.find('/');
    algorithms = {choice.configuration.substr(0, slash)};
    models = {choice.configuration.substr(slash + 1)};
    auto_advice = choice.advice;
  }
  std::vector<ModelRun> runs;
  for (const std::string& algorithm : algorithms)
    for (const std::string& model : models)
      runs.push_back(run_model(comm, loaded.graph, algorithm, model, mo));
  print_table(comm, loaded, runs);
  if (mo.profile) print_profiles(comm, runs);

  if (!mo.mates.empty()) write_mates(comm, loaded.graph, runs.front().result.mate, mo.mates);
  if (!mo.comm_matrix.empty()) {
    nlohmann::json matrices;
    for (const ModelRun& r : runs)
      matrices[algorithms.size() > 1 ? r.algorithm + "/" + r.model : r.model] = r.matrix;
    write_json_on_root(
        comm, mo.comm_matrix,
        {{"schema_version", kJsonSchemaVersion}, {"ranks", comm.size()}, {"models", matrices}});
  }
  write_results(comm, inv, "match", mo.json, [&] {
    nlohmann::json doc = {{"input", loaded.description},
                          {"graph",
                           {{"vertices", loaded.graph.global_vertex_count()},
                            {"edges", loaded.graph.global_edge_count()}}},
                          {"timings", load_timings(loaded)},
                          {"round_messages", mo.exchange.round_messages},
                          {"plan_build", plan_build_name(mo.exchange)},
                          {"runs", nlohmann::json::array()}};
    for (const ModelRun& r : runs) doc["runs"].push_back(run_json(r));
    doc["memory"] = memory_report(comm, loaded.graph, 0, loaded.estimated_peak_bytes);
    if (!auto_advice.is_null()) doc["auto"] = auto_advice;
    return doc;
  });
  if (first_failed(runs, &ModelRun::check))
    fail_everywhere("matching check failed (see the check column)");
}

}  // namespace

void add_match_command(CLI::App& app, Runner& run) {
  static MatchOptions mo;
  CLI::App* cmd = app.add_subcommand(
      "match",
      "Half-approximate weighted matching over every communication model (Ghosh et al., IPDPS "
      "2019), locally dominant or Suitor (Manne, Halappanavar, IPDPS 2014)");
  cmd->fallthrough();
  add_graph_options(*cmd, mo.graph);
  static const std::string model_help = fmt::format(
      "Communication model: {}; all; or auto (the one graphcomm advise ranks first "
      "for --algorithm; with --algorithm all, the algorithm too)",
      fmt::join(exchange_models(), ", "));
  cmd->add_option("--model", mo.model, model_help)->check(model_validator())->capture_default_str();
  CLI::Option* algorithm =
      cmd->add_option("--algorithm", mo.algorithm,
                      "Algorithm: ld (locally dominant), suitor or all; every one gives the serial "
                      "greedy matching")
          ->check(algorithm_validator())
          ->capture_default_str();
  add_exchange_options(*cmd, mo.exchange);
  add_calibration_option(*cmd, mo.calibration);
  cmd->add_option("--weights-precision", mo.weights_precision,
                  "double, or float: each edge's weight rounded to float, 4 bytes per edge "
                  "instead of 8. The matching is then the serial greedy matching of the rounded "
                  "weights (--check computes it from them); where rounding makes weights equal, "
                  "it may differ from the double one")
      ->check(CLI::IsMember({"double", "float"}))
      ->capture_default_str();
  cmd->add_flag("--check", mo.check,
                "Verify validity, maximality and identity with the serial greedy matching");
  cmd->add_flag("--profile", mo.profile,
                "Print where the time goes: messages, comm and compute time per round");
  cmd->add_option("--json", mo.json, "Write the results as JSON (docs/json-schema.md)");
  cmd->add_option("--comm-matrix", mo.comm_matrix,
                  "Write messages and bytes sent between every pair of ranks, per model (JSON)");
  cmd->add_option("--mates", mo.mates,
                  "Write the matching: one 'u v' line per matched edge, 0-based (1-based "
                  "files: their ids minus one); with several runs, the first's (all agree)");
  cmd->callback([&run, algorithm] {
    mo.algorithm_given = algorithm->count() > 0;
    run = [](const Comm& comm, const Invocation& inv) { run_match(comm, inv, mo); };
  });
}

}  // namespace gc::cli
