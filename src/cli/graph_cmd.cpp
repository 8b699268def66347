// graphcomm graph stats | convert
#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/harness.hpp"
#include "core/memory.hpp"
#include "core/output.hpp"
#include "core/table.hpp"
#include "graph/binary_io.hpp"
#include "graph/stats.hpp"
#include "graph/write_text.hpp"

namespace gc::cli {

LoadOptions GraphOptions::load_options() const {
  LoadOptions o;
  o.seed = seed;
  o.balance = distribution == "edges" ? Balance::edges : Balance::vertices;
  if (reorder != "none" && partition != "none")
    fail_everywhere(fmt::format("--reorder {} and --partition {}: choose one", reorder, partition));
  o.ordering = parse_ordering(reorder != "none" ? reorder : partition);
  o.weights = weights == "seed"     ? WeightSource::seed
              : weights == "column" ? WeightSource::column
                                    : WeightSource::file;
  return o;
}

void add_graph_options(CLI::App& app, GraphOptions& options) {
  app.add_option("-g,--graph", options.spec, graph_spec_help())->required();
  app.add_option("--seed", options.seed, "Seed of every random choice (generators, weights)")
      ->capture_default_str();
  add_distribution_options(app, options);
  app.add_option("--weights", options.weights,
                 "Edge weights: file (where the format has them, else from the seed), seed "
                 "(always from the seed), column (third column of the file, required)")
      ->check(CLI::IsMember({"file", "seed", "column"}))
      ->capture_default_str();
}

void add_distribution_options(CLI::App& app, GraphOptions& options) {
  app.add_option("--distribution", options.distribution,
                 "1D distribution: block (equal vertex ranges) or edges (edge-balanced ranges); "
                 "with --reorder, ranges of the new order; with --partition, what the parts "
                 "balance (vertices, or degree+1 per vertex)")
      ->check(CLI::IsMember({"block", "edges"}))
      ->capture_default_str();
  app.add_option("--reorder", options.reorder,
                 "Relabel the vertices before cutting ranges: rcm (reverse Cuthill-McKee, "
                 "distributed) or none; outputs keep the input's ids")
      ->check(CLI::IsMember({"none", "rcm"}))
      ->capture_default_str();
  app.add_option("--partition", options.partition,
                 "Rank p owns part p of a k-way partition (k = ranks): scotch (PT-Scotch, "
                 "distributed), metis (METIS on the graph gathered to rank 0) or none; outputs "
                 "keep the input's ids")
      ->check(CLI::IsMember({"none", "scotch", "metis"}))
      ->capture_default_str();
}

std::string ordering_note(const LoadedGraph& loaded) {
  const std::string ordering = loaded.description.value("ordering", "none");
  if (ordering == "none") return "";
  return fmt::format(", ordered by {} in {:.3f} s, relabeled in {:.3f} s", ordering,
                     loaded.order_seconds, loaded.relabel_seconds);
}

nlohmann::json load_timings(const LoadedGraph& loaded) {
  return {{"load_seconds", loaded.seconds},
          {"order_seconds", loaded.order_seconds},
          {"relabel_seconds", loaded.relabel_seconds}};
}

namespace {

void print_stats(const Comm& comm, const LoadedGraph& loaded, const GraphStats& s,
                 const GraphStats* before, const nlohmann::json& memory) {
  if (comm.rank() != 0) return;
  std::string out;
  const std::string ordering = loaded.description["ordering"].get<std::string>();
  out += fmt::format("graph {} on {} ranks ({}), loaded in {:.3f} s{}\n",
                     loaded.description["spec"].get<std::string>(), comm.size(),
                     mpi_library_version(), loaded.seconds, ordering_note(loaded));
  out += fmt::format("  |V| = {}   |E| = {}   isolated = {}\n", s.vertices, s.edges, s.isolated);
  out += fmt::format("  degree: min {:.0f}  max {:.0f}  avg {:.2f}  sigma {:.2f}\n", s.degree.min,
                     s.degree.max, s.degree.avg, s.degree.stddev);
  out += fmt::format(
      "  cut edges = {}   process graph{}: |Ep| = {}  d_max = {:.0f}  d_avg = {:.2f}  sigma_d = "
      "{:.2f}\n\n",
      s.cut_edges, s.of_parts ? fmt::format(" of {} parts", s.ranks.size()) : "", s.process_edges,
      s.process_degree.max, s.process_degree.avg, s.process_degree.stddev);
  // Before the blank line that ends the header.
  out.pop_back();
  out += fmt::format(
      "  memory: {:.2f} bytes per directed edge (the graph, unweighted)   peak RSS {} per rank\n\n",
      memory["graph_bytes_per_directed_edge"].get<double>(),
      format_bytes(memory["peak_rss_bytes_max"].get<double>()));
  if (before) {
    // The process graphs before and after (the matching study's Tables V-VI).
    const Table process({{"distribution", "<16"},
                         {"cut", ">12"},
                         {"|Ep|", ">8"},
                         {"d_max", ">8.0f"},
                         {"d_avg", ">8.2f"},
                         {"sigma_d", ">8.2f"},
                         {"max |E'|", ">12.0f"},
                         {"max edges", ">12.0f"}},
                        "  ");
    out += process.header();
    for (const auto& [name, t] : {std::pair{std::string("block (input)"), before}, {ordering, &s}})
      out += process.row(name, t->cut_edges, t->process_edges, t->process_degree.max,
                         t->process_degree.avg, t->process_degree.stddev, t->edges_with_ghosts.max,
                         t->local_edges.max);
    out += "\n";
  }
  const char* unit = s.of_parts ? "part" : "rank";
  const Table ranks({{unit, ">6"},
                     {"owned", ">14"},
                     {"edges", ">14"},
                     {"ghosts", ">14"},
                     {"|E'|", ">14"},
                     {"cut", ">12"},
                     {"d_proc", ">8"}},
                    "  ");
  out += ranks.header();
  for (size_t r = 0; r < s.ranks.size(); ++r) {
    const RankFigures& f = s.ranks[r];
    out += ranks.row(r, f.owned, f.edges, f.ghosts, f.edges_with_ghosts, f.cut_edges,
                     f.process_degree);
  }
  const Table summary({{s.of_parts ? "over parts" : "over ranks", "<18"},
                       {"min", ">14.0f"},
                       {"max", ">14.0f"},
                       {"avg", ">14.1f"},
                       {"sigma", ">14.1f"},
                       {"total", ">16.0f"}},
                      "  ");
  out += "\n" + summary.header();
  for (const auto& [name, f] : {std::pair{"owned vertices", &s.owned},
                                {"edges (directed)", &s.local_edges},
                                {"ghosts", &s.ghosts},
                                {"|E'|", &s.edges_with_ghosts},
                                {"process degree", &s.process_degree}})
    out += summary.row(name, f->min, f->max, f->avg, f->stddev, f->total);
  std::fputs(out.c_str(), stdout);
  std::fflush(stdout);
}

// The figures of P parts instead of the ranks: g's ids cut into P ranges as
// the distribution would cut them over P ranks.
GraphStats stats_of(const Comm& comm, const DistGraph& g, Balance balance, int parts) {
  if (parts == 0) return compute_stats(comm, g);
  const Distribution cut = cut_into_parts(comm, g, balance, parts);
  return compute_stats(comm, g, &cut);
}

void run_stats(const Comm& comm, const Invocation& inv, const GraphOptions& go, int parts,
               const std::string& json_path) {
  LoadOptions lo = go.load_options();
  lo.edge_weights = EdgeWeights::none;  // statistics read none
  if (parts > 0 && lo.ordering != Ordering::none && lo.ordering != Ordering::rcm)
    fail_everywhere(fmt::format(
        "--parts cuts ranges of the vertex order; with --partition {} the parts are the ranks",
        go.partition));
  std::optional<GraphStats> before;
  lo.inspect_unordered = [&](const DistGraph& g) {
    Progress::say(comm, "computing statistics of the input order (block)");
    before = stats_of(comm, g, Balance::vertices, parts);  // the input's block ranges
  };
  LoadedGraph loaded = load_graph(comm, go.spec, lo);
  Progress::say(comm, "computing statistics");
  GraphStats stats = stats_of(comm, loaded.graph, lo.balance, parts);
  const nlohmann::json memory = memory_report(comm, loaded.graph, 0, loaded.estimated_peak_bytes);
  print_stats(comm, loaded, stats, before ? &*before : nullptr, memory);
  write_results(comm, inv, "graph stats", json_path, [&] {
    nlohmann::json doc = {{"input", loaded.description}, {"timings", load_timings(loaded)}};
    doc.update(to_json(stats));
    if (before) {
      const nlohmann::json b = to_json(*before);
      doc["before_ordering"] = {{"distribution", b["distribution"]},
                                {"process_graph", b["process_graph"]}};
    }
    doc["memory"] = memory;
    return doc;
  });
}

// "input_id new_id" per vertex, by input id (0-based): the ordering's permutation.
void write_permutation(const Comm& comm, const DistGraph& g, const std::string& path) {
  std::vector<Edge> pairs;
  for (lid_t l = 0; l < g.owned_count(); ++l)
    pairs.push_back(Edge{g.input_id(l), g.global_id(l), 0});
  write_id_pairs(comm, pairs, path);
}

void run_convert(const Comm& comm, const GraphOptions& go, const std::string& output,
                 std::string format, const std::string& permutation) {
  if (format.empty()) {
    auto ends = [&](const char* s) {
      std::string suffix(s);
      return output.size() >= suffix.size() &&
             output.compare(output.size() - suffix.size(), suffix.size(), suffix) == 0;
    };
    format = ends(".mtx")                                      ? "mtx"
             : ends(".gcg")                                    ? "gcg"
             : (ends(".bin") || ends(".mel"))                  ? "mel"
             : (ends(".txt") || ends(".el") || ends(".edges")) ? "el"
                                                               : "";
    if (format.empty())
      fail_everywhere(
          fmt::format("{}: cannot tell the output format from the name; give --format", output));
  }
  LoadedGraph loaded = load_graph(comm, go.spec, go.load_options());
  if (!permutation.empty()) write_permutation(comm, loaded.graph, permutation);
  if (loaded.graph.relabeled()) {
    // The file names vertices as the input did: relabel back.
    std::vector<vid_t> input(loaded.graph.owned_count());
    for (lid_t l = 0; l < loaded.graph.owned_count(); ++l) input[l] = loaded.graph.input_id(l);
    loaded.graph = relabel(comm, loaded.graph, input,
                           Distribution::block(loaded.graph.global_vertex_count(), comm.size()));
  }
  Progress::say(comm, "writing {} ({})", output, format);
  PhaseTimer timer(comm);
  if (format == "mel")
    write_mel(comm, loaded.graph, output);
  else if (format == "gcg")
    write_gcg(comm, loaded.graph, output, loaded.id_base);
  else if (format == "mtx")
    write_matrix_market(comm, loaded.graph, output);
  else
    write_edge_list(comm, loaded.graph, output, loaded.id_base);
  const double seconds = timer.stop();
  if (comm.rank() == 0)
    fmt::print("wrote {} ({}): {} vertices, {} edges in {:.3f} s\n", output, format,
               loaded.graph.global_vertex_count(), loaded.graph.global_edge_count(), seconds);
}

}  // namespace

void add_graph_commands(CLI::App& app, Runner& run) {
  CLI::App* graph = app.add_subcommand("graph", "Build, inspect and convert distributed graphs");
  graph->require_subcommand(1);
  graph->fallthrough();

  static GraphOptions stats_options;
  static std::string stats_json;
  static int stats_parts = 0;
  CLI::App* stats = graph->add_subcommand(
      "stats", "Graph, distribution and process-graph statistics (matching paper, Tables III-VI)");
  stats->fallthrough();
  add_graph_options(*stats, stats_options);
  stats
      ->add_option("--parts", stats_parts,
                   "Figures for P parts instead of the ranks: the (reordered) ids cut into P "
                   "ranges as --distribution would cut them over P ranks (the study's 1K-2K "
                   "processes on a few ranks)")
      ->check(CLI::Range(1, 1 << 20));
  stats->add_option("--json", stats_json, "Write the figures as JSON (docs/json-schema.md)");
  stats->callback([&run] {
    run = [](const Comm& comm, const Invocation& inv) {
      run_stats(comm, inv, stats_options, stats_parts, stats_json);
    };
  });

  static GraphOptions convert_options;
  static std::string output, format, permutation;
  CLI::App* convert = graph->add_subcommand("convert", "Write a graph in another format");
  convert->fallthrough();
  add_graph_options(*convert, convert_options);
  convert->add_option("-o,--output", output, "Output file")->required();
  convert->add_option("--format", format, "mel, gcg, mtx or el (default: from the output name)")
      ->check(CLI::IsMember({"mel", "gcg", "mtx", "el"}));
  convert->add_option("--permutation", permutation,
                      "With --reorder/--partition: write 'input_id new_id' per vertex (0-based); "
                      "the graph itself is written in the input's ids");
  convert->callback([&run] {
    run = [](const Comm& comm, const Invocation&) {
      run_convert(comm, convert_options, output, format, permutation);
    };
  });
}

}  // namespace gc::cli
