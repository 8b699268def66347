// graphcomm graph stats | convert
#include <fmt/format.h>

#include "cli/commands.hpp"
#include "core/memory.hpp"
#include "core/output.hpp"
#include "graph/binary_io.hpp"
#include "graph/stats.hpp"
#include "graph/write_text.hpp"

namespace gc::cli {

LoadOptions GraphOptions::load_options() const {
  LoadOptions o;
  o.seed = seed;
  o.balance = distribution == "edges" ? Balance::edges : Balance::vertices;
  o.weights = weights == "seed"     ? WeightSource::seed
              : weights == "column" ? WeightSource::column
                                    : WeightSource::file;
  return o;
}

void add_graph_options(CLI::App& app, GraphOptions& options) {
  app.add_option("-g,--graph", options.spec, graph_spec_help())->required();
  app.add_option("--seed", options.seed, "Seed of every random choice (generators, weights)")
      ->capture_default_str();
  app.add_option("--distribution", options.distribution,
                 "1D distribution: block (equal vertex ranges) or edges (edge-balanced ranges)")
      ->check(CLI::IsMember({"block", "edges"}))
      ->capture_default_str();
  app.add_option("--weights", options.weights,
                 "Edge weights: file (where the format has them, else from the seed), seed "
                 "(always from the seed), column (third column of the file, required)")
      ->check(CLI::IsMember({"file", "seed", "column"}))
      ->capture_default_str();
}

namespace {

std::string summary_row(const char* name, const Summary& s) {
  return fmt::format("  {:<18} {:>14.0f} {:>14.0f} {:>14.1f} {:>14.1f} {:>16.0f}\n", name, s.min,
                     s.max, s.avg, s.stddev, s.total);
}

void print_stats(const Comm& comm, const LoadedGraph& loaded, const GraphStats& s) {
  if (comm.rank() != 0) return;
  std::string out;
  out += fmt::format("graph {} on {} ranks ({}), loaded in {:.3f} s\n",
                     loaded.description["spec"].get<std::string>(), comm.size(),
                     mpi_library_version(), loaded.seconds);
  out += fmt::format("  |V| = {}   |E| = {}   isolated = {}\n", s.vertices, s.edges, s.isolated);
  out += fmt::format("  degree: min {:.0f}  max {:.0f}  avg {:.2f}  sigma {:.2f}\n", s.degree.min,
                     s.degree.max, s.degree.avg, s.degree.stddev);
  out += fmt::format(
      "  cut edges = {}   process graph: |Ep| = {}  d_max = {:.0f}  d_avg = {:.2f}  sigma_d = "
      "{:.2f}\n\n",
      s.cut_edges, s.process_edges, s.process_degree.max, s.process_degree.avg,
      s.process_degree.stddev);
  out += fmt::format("  {:>6} {:>14} {:>14} {:>14} {:>14} {:>12} {:>8}\n", "rank", "owned", "edges",
                     "ghosts", "|E'|", "cut", "d_proc");
  for (size_t r = 0; r < s.ranks.size(); ++r) {
    const RankFigures& f = s.ranks[r];
    out += fmt::format("  {:>6} {:>14} {:>14} {:>14} {:>14} {:>12} {:>8}\n", r, f.owned, f.edges,
                       f.ghosts, f.edges_with_ghosts, f.cut_edges, f.process_degree);
  }
  out += fmt::format("\n  {:<18} {:>14} {:>14} {:>14} {:>14} {:>16}\n", "over ranks", "min", "max",
                     "avg", "sigma", "total");
  out += summary_row("owned vertices", s.owned);
  out += summary_row("edges (directed)", s.local_edges);
  out += summary_row("ghosts", s.ghosts);
  out += summary_row("|E'|", s.edges_with_ghosts);
  out += summary_row("process degree", s.process_degree);
  std::fputs(out.c_str(), stdout);
  std::fflush(stdout);
}

void run_stats(const Comm& comm, const Invocation& inv, const GraphOptions& go,
               const std::string& json_path) {
  LoadedGraph loaded = load_graph(comm, go.spec, go.load_options());
  Progress::say(comm, "computing statistics");
  GraphStats stats = compute_stats(comm, loaded.graph);
  print_stats(comm, loaded, stats);
  if (!json_path.empty()) {
    nlohmann::json doc = result_envelope(comm, "graph stats", inv.argc, inv.argv);
    doc["input"] = loaded.description;
    doc["timings"] = {{"load_seconds", loaded.seconds}};
    doc.update(to_json(stats));
    const double rss = static_cast<double>(peak_rss_bytes());
    doc["memory"] = {{"peak_rss_bytes_max", max_over_ranks(comm, rss)},
                     {"peak_rss_bytes_mean", sum_over_ranks(comm, rss) / comm.size()}};
    write_json_on_root(comm, json_path, doc);
  }
}

void run_convert(const Comm& comm, const GraphOptions& go, const std::string& output,
                 std::string format) {
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
  CLI::App* stats = graph->add_subcommand(
      "stats", "Graph, distribution and process-graph statistics (matching paper, Tables III-VI)");
  stats->fallthrough();
  add_graph_options(*stats, stats_options);
  stats->add_option("--json", stats_json, "Write the figures as JSON (docs/json-schema.md)");
  stats->callback([&run] {
    run = [](const Comm& comm, const Invocation& inv) {
      run_stats(comm, inv, stats_options, stats_json);
    };
  });

  static GraphOptions convert_options;
  static std::string output, format;
  CLI::App* convert = graph->add_subcommand("convert", "Write a graph in another format");
  convert->fallthrough();
  add_graph_options(*convert, convert_options);
  convert->add_option("-o,--output", output, "Output file")->required();
  convert->add_option("--format", format, "mel, gcg, mtx or el (default: from the output name)")
      ->check(CLI::IsMember({"mel", "gcg", "mtx", "el"}));
  convert->callback([&run] {
    run = [](const Comm& comm, const Invocation&) {
      run_convert(comm, convert_options, output, format);
    };
  });
}

}  // namespace gc::cli
