// graphcomm advise: which configuration (algorithm and communication model)
// to run a kernel with, for an input at a rank count, from the cost model of
// advise/ fitted on this machine's (or a simulated platform's) calibration.
// It reads the input once and runs no kernel but one BFS search for the depth.
#include <cstdio>
#include <optional>
#include <thread>

#include <fmt/format.h>

#include "advise/advice.hpp"
#include "advise/calibration.hpp"
#include "advise/layouts.hpp"
#include "advise/nbr_advice.hpp"
#include "cli/commands.hpp"
#include "cli/harness.hpp"
#include "cli/nbr_topology.hpp"
#include "comm/phase_barrier.hpp"
#include "core/error.hpp"
#include "core/output.hpp"
#include "core/table.hpp"

namespace gc::cli {

namespace {

struct AdviseOptions {
  GraphOptions graph;
  std::string kernel = "match", platform, calibration, json;
  int ranks = 0;
  bool calibrate = false;
  std::vector<std::string> calibration_inputs;
  int repeats = 3;
  bool given_only = false;
  // --kernel nbr
  std::string topology, collective = "allgather", sizes = "4,64,1024,4096", mode = "agnostic";
  int theta = 0, ranks_per_node = 0;
};

// --kernel nbr: combine or not, and k, for a topology at this rank count.
void run_advise_nbr(const Comm& comm, const Invocation& inv, const AdviseOptions& o,
                    const std::string& path) {
  // Another rank count than the one running: every rank's plan is built on
  // rank 0 (nbr::plans_of_every_rank), on nodes of --ranks-per-node ranks.
  const bool elsewhere = o.ranks > 0 && o.ranks != comm.size();
  const int ranks = elsewhere ? o.ranks : comm.size();
  if (elsewhere && o.ranks_per_node < 1)
    fail_everywhere(fmt::format(
        "--ranks {}: give --ranks-per-node N, the ranks of a node of the machine advised for "
        "(its nodes are not this machine's; scripts/simulate's platforms: 16)",
        o.ranks));
  if (elsewhere && o.calibrate)
    fail_everywhere("--calibrate times calls at the rank count running: without --ranks");
  if (!o.graph.spec.empty())
    fail_everywhere("--kernel nbr advises for a --topology, not a --graph");
  advise::NbrQuery q;
  q.collective = o.collective;
  q.blocks = block_sizes(o.sizes);
  q.plan.theta = o.theta;
  q.plan.mode = nbr::parse_mode(o.mode);
  q.plan.ranks_per_node = o.ranks_per_node;
  std::vector<int> sources, destinations;
  std::vector<nbr::Topology> every;
  if (!o.topology.empty()) {  // before measuring: a bad --topology fails at once
    if (elsewhere)
      every = every_rank_lists(o.topology, o.graph, o.graph.seed, ranks);
    else
      topology_lists(comm, o.topology, o.graph, o.graph.seed, sources, destinations);
  }
  if (o.calibrate) {
    const std::vector<advise::NetworkSample> samples = advise::measure_network(comm, o.repeats);
    advise::add_samples(comm, path, advise::default_calibration_name(o.platform), {}, samples);
    if (comm.rank() == 0)
      std::printf("calibration: %zu neighbour collective calls at %d ranks added to %s\n\n",
                  samples.size(), comm.size(), path.c_str());
  }
  const advise::Calibration c = advise::load_calibration(comm, path);
  const advise::NetworkCosts costs = advise::fit_network(c.network, ranks);
  if (o.topology.empty()) {
    if (comm.rank() == 0) std::fputs(advise::format_nbr_advice({}, costs).c_str(), stdout);
    return;
  }
  std::vector<advise::NbrAdvice> advice;
  if (elsewhere) {
    Progress::say(comm, "every rank's plan of {} ranks, k = 2, 3, 4 and auto, on rank 0", ranks);
    collectively(comm.get(), [&] {
      if (comm.rank() == 0) advice = advise::advise_nbr_for(every, q, costs);
    });
  } else {
    advice = advise::advise_nbr(comm, sources, destinations, q, costs);
  }
  if (comm.rank() == 0) {
    std::printf(
        "advise nbr %s on %s, %d ranks%s, %s:\n", o.collective.c_str(), o.topology.c_str(), ranks,
        elsewhere ? fmt::format(" (nodes of {}; plans built here)", o.ranks_per_node).c_str() : "",
        o.mode.c_str());
    std::fputs(advise::format_nbr_advice(advice, costs).c_str(), stdout);
  }
  write_results(comm, inv, "advise", o.json, [&] {
    nlohmann::json sizes = nlohmann::json::array();
    for (const advise::NbrAdvice& a : advice) sizes.push_back(advise::to_json(a));
    return nlohmann::json{{"kernel", "nbr"},
                          {"topology", o.topology},
                          {"collective", o.collective},
                          {"mode", o.mode},
                          {"ranks", ranks},
                          {"ranks_per_node", o.ranks_per_node},
                          {"calibration_file", path},
                          {"network_costs",
                           {{"per_message_seconds", costs.per_message},
                            {"per_byte_seconds", costs.per_byte},
                            {"per_node_byte_seconds", costs.per_node_byte},
                            {"per_hop_seconds", costs.per_hop},
                            {"samples", costs.samples},
                            {"ranks", costs.ranks},
                            {"loo_median_error", costs.median_error}}},
                          {"sizes", sizes}};
  });
}

// Per configuration, what the fit is made of: samples and leave-one-out error.
void print_fit(const Comm& comm, const advise::Calibration& c, const std::string& kernel,
               int parts) {
  if (comm.rank() != 0) return;
  // The units of each cost (cost_model.hpp): SpMM's counts are words.
  const bool spmm = kernel == "spmm";
  const Table table({{"configuration", "<32"},
                     {"samples", ">8"},
                     {"loo_median", ">11"},
                     {"loo_max", ">9"},
                     {"s/edge", ">10.3g"},
                     {spmm ? "s/word_in" : "s/cut_edge", ">11.3g"},
                     {"s/nbr_round", ">12.3g"},
                     {"s/round", ">10.3g"},
                     {spmm ? "s/word_all" : "s/global", ">10.3g"},
                     {"s/node_word", ">11.3g"}});
  std::string out =
      fmt::format("{} costs fitted from calibration {} at {} ranks:\n", kernel, c.name, parts);
  out += table.header();
  for (const auto& [name, k] : advise::fit_configurations(c, kernel, parts))
    out += table.row(name, k.samples, fmt::format("{:.0f}%", 100 * k.median_error),
                     fmt::format("{:.0f}%", 100 * k.max_error), k.cost[0], k.cost[1], k.cost[2],
                     k.cost[3], k.cost[4], k.cost[5]);
  if (spmm)
    out +=
        "combined: fitted on the samples whose plan formed friend groups; the others are "
        "neighbor's samples (the same messages), and an input whose plan forms none is priced "
        "as neighbor\n";
  std::fputs((out + "\n").c_str(), stdout);
  std::fflush(stdout);
}

void run_advise(const Comm& comm, const Invocation& inv, const AdviseOptions& o) {
  const std::string path =
      o.calibration.empty() ? advise::default_calibration_path(o.platform) : o.calibration;
  if (o.kernel == "nbr") {
    run_advise_nbr(comm, inv, o, path);
    return;
  }
  if (!o.topology.empty()) fail_everywhere("--topology: for --kernel nbr only");
  const std::vector<std::string> kernels = o.kernel == "all"
                                               ? std::vector<std::string>{"match", "bfs", "spmm"}
                                               : std::vector<std::string>{o.kernel};
  LoadOptions lo = o.graph.load_options();
  lo.edge_weights = EdgeWeights::none;  // the features read none
  const int parts = o.ranks > 0 ? o.ranks : comm.size();
  // A partition's parts are the ranks: nothing else to cut or compare. Any
  // other layout is cut here from the input order or its RCM order.
  const bool partitioned = lo.ordering != Ordering::none && lo.ordering != Ordering::rcm;
  if (partitioned && parts != comm.size())
    fail_everywhere(fmt::format(
        "--ranks {}: with --partition {} the parts are the ranks; run advise on {} ranks", parts,
        o.graph.partition, parts));
  if (o.calibrate) {
    advise::CalibrationOptions co;
    co.kernels = kernels;
    co.repeats = o.repeats;
    co.seed = o.graph.seed;
    std::size_t added = 0, stale = 0;
    // More ranks than cores: the times measure the scheduler as much as the
    // kernels (bench/README.md, SpMM at 4 ranks), and the costs fitted at
    // this rank count follow it.
    const bool crowded = node_oversubscribed(comm);
    const std::string crowded_note = fmt::format(
        "note: more ranks on a node than its {} cores: the times measure the "
        "scheduler as much as the kernels",
        std::thread::hardware_concurrency());
    if (crowded) Progress::say(comm, "{}", crowded_note);
    // Stored input by input: a calibration cut short (hours on simulated
    // ranks) keeps what it measured.
    for (const std::string& input : o.calibration_inputs.empty()
                                        ? advise::default_calibration_inputs()
                                        : o.calibration_inputs) {
      co.inputs = {input};
      const std::vector<advise::Sample> samples = advise::measure(comm, co);
      stale +=
          advise::add_samples(comm, path, advise::default_calibration_name(o.platform), samples);
      added += samples.size();
    }
    if (comm.rank() == 0) {
      std::printf("calibration: %zu samples at %d ranks added to %s\n", added, comm.size(),
                  path.c_str());
      if (stale > 0)
        std::printf(
            "calibration: %zu SpMM samples made before advise counted its gathers' words "
            "dropped; calibrate SpMM again at the other rank counts\n",
            stale);
      if (crowded) std::printf("calibration: %s\n", crowded_note.c_str());
      std::printf("\n");
    }
  }
  const advise::Calibration c = advise::load_calibration(comm, path);
  const bool spmm = std::find(kernels.begin(), kernels.end(), "spmm") != kernels.end();
  if (spmm) collectively(comm.get(), [&] { advise::check_spmm_samples(c); });
  // SpMM's gather costs the words entering a node: for ranks other than
  // these, nodes as given, else as the calibration's largest runs had them.
  int ranks_per_node = o.ranks_per_node;
  if (spmm && parts != comm.size() && ranks_per_node < 1) {
    ranks_per_node = advise::calibrated_ranks_per_node(c, "spmm");
    if (ranks_per_node < 1)
      fail_everywhere(fmt::format(
          "--ranks {}: SpMM's gather costs the words entering a node, and calibration {} has no "
          "SpMM samples that say how many ranks a node holds: give --ranks-per-node N",
          parts, c.name));
  }
  if (o.graph.spec.empty()) {
    for (const std::string& k : kernels) print_fit(comm, c, k, parts);
    return;
  }
  const advise::Layout given{lo.ordering == Ordering::rcm, lo.balance};
  if (!partitioned) {
    lo.ordering = Ordering::none;
    lo.balance = Balance::vertices;
  }
  const LoadedGraph loaded = load_graph(comm, o.graph.spec, lo);
  std::optional<OrderedGraph> rcm;
  if (!partitioned && (given.rcm || !o.given_only)) {
    Progress::say(comm, "reverse Cuthill-McKee order of {}", o.graph.spec);
    rcm = order_graph(comm, loaded.graph, Ordering::rcm, Balance::vertices, o.graph.seed);
  }
  nlohmann::json advice = nlohmann::json::array();
  for (const std::string& k : kernels) {
    Progress::say(comm, "features of {} cut into {} parts", o.graph.spec, parts);
    const double levels = k == "bfs" ? advise::bfs_levels(comm, loaded.graph, o.graph.seed) : 0;
    nlohmann::json doc;
    if (partitioned || o.given_only) {
      const DistGraph& g = rcm ? rcm->graph : loaded.graph;
      advise::Features f = advise::compute_features(comm, g, partitioned ? 0 : parts, given.balance,
                                                    false, 1, ranks_per_node, k == "spmm");
      f.levels = levels;
      const advise::Advice a = advise::advise(c, k, f);
      if (comm.rank() == 0) std::fputs(advise::format_advice(a).c_str(), stdout);
      doc = advise::to_json(a);
    } else {
      const advise::LayoutComparison lc = advise::compare_layouts(
          comm, c, k, loaded.graph, rcm->graph, rcm->order_seconds + rcm->relabel_seconds, given,
          parts, levels, ranks_per_node);
      const advise::Advice& a = lc.layouts.front().advice;
      if (comm.rank() == 0)
        std::fputs((advise::format_advice(a) + advise::format_layouts(lc)).c_str(), stdout);
      doc = advise::to_json(a);
      doc["distribution"] = advise::to_json(lc);
    }
    advice.push_back(doc);
  }
  write_results(comm, inv, "advise", o.json, [&] {
    return nlohmann::json{
        {"input", loaded.description}, {"calibration_file", path}, {"advice", advice}};
  });
}

}  // namespace

void add_advise_command(CLI::App& app, Runner& run) {
  static AdviseOptions o;
  CLI::App* cmd = app.add_subcommand(
      "advise",
      "Which algorithm and communication model for this graph at this rank count: predicted "
      "time of each from a cost model fitted on calibration runs (docs/advise.md)");
  cmd->fallthrough();
  add_graph_options(*cmd, o.graph);
  cmd->get_option("--graph")->required(false);
  cmd->add_option("--kernel", o.kernel,
                  "Kernel to advise for: match, bfs, spmm or all (of these three); or nbr, the "
                  "neighbour collectives on a --topology: combine or not, and k")
      ->check(CLI::IsMember({"match", "bfs", "spmm", "all", "nbr"}))
      ->capture_default_str();
  cmd->add_option("--topology", o.topology,
                  "nbr: moore:D:R, random:DELTA, file:PATH or graph:SPEC (as nbr bench)");
  cmd->add_option("--collective", o.collective, "nbr: allgather or alltoall")
      ->check(CLI::IsMember({"allgather", "alltoall"}))
      ->capture_default_str();
  cmd->add_option("--sizes", o.sizes, "nbr: bytes per block, comma-separated")
      ->capture_default_str();
  cmd->add_option("--mode", o.mode, "nbr: agnostic, or aware (friends on the same node only)")
      ->check(CLI::IsMember({"agnostic", "aware"}))
      ->capture_default_str();
  cmd->add_option("--theta", o.theta,
                  "nbr: least common outgoing neighbours of a group (default k+1)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--ranks-per-node", o.ranks_per_node,
                  "nbr, aware, and spmm: emulate nodes of N ranks (default: the real nodes); with "
                  "--ranks other than the ranks running, the nodes advised for (required for nbr; "
                  "spmm: by default the nodes of the calibration's largest SpMM runs)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--ranks,--np", o.ranks,
                  "Rank count to advise for (default: the ranks running advise); the graph is "
                  "cut into that many parts, however few ranks compute it; nbr (moore and "
                  "random): every rank's plan is built on rank 0")
      ->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--platform", o.platform,
                  "Advise for a simulated platform (scripts/simulate's): its calibration, made "
                  "by `scripts/simulate --platform NAME graphcomm advise --calibrate --platform "
                  "NAME`");
  cmd->add_option("--calibration", o.calibration,
                  "Calibration file (default: $GRAPHCOMM_CALIBRATION, else "
                  "~/.local/share/graphcomm/calibration-NAME.json)");
  cmd->add_flag("--calibrate", o.calibrate,
                "Run every configuration on the calibration inputs at this rank count and add "
                "the times to the calibration file");
  cmd->add_option("--calibration-inputs", o.calibration_inputs,
                  "Graphs to calibrate on, space-separated (default: rmat:10 rmat:12 rmat:14 "
                  "rmat:15 er:16384 er:65536 rgg:16384 rgg:65536 grid:32 grid:64 grid:256,d=2); "
                  "add graphs like yours: the choice among close configurations follows them");
  cmd->add_option("--repeats", o.repeats, "Calibration: runs per configuration (median)")
      ->check(CLI::Range(1, 100))
      ->capture_default_str();
  cmd->add_flag("--given-distribution-only", o.given_only,
                "Advise for the distribution given only; by default advise also compares block "
                "and edge-balanced ranges of the input order and of its RCM order");
  cmd->add_option("--json", o.json, "Write the advice as JSON (docs/json-schema.md)");
  cmd->callback(
      [&run] { run = [](const Comm& comm, const Invocation& inv) { run_advise(comm, inv, o); }; });
}

}  // namespace gc::cli
