#include "cli/graph500_run.hpp"

#include "comm/models.hpp"
#include "core/neighborhood.hpp"
#include "graph/order.hpp"

namespace gc::cli {

void prepare_graph500_input(const Comm& comm, int scale, int edgefactor, const std::string& spec,
                            const std::string& distribution, LoadOptions& load,
                            Graph500Input& input) {
  input.spec = spec;
  if (scale == 0) return;
  if (distribution != "block" || load.ordering != Ordering::none)
    fail_everywhere(
        "--scale runs the Graph500 distribution (block): drop --distribution, --reorder and "
        "--partition, or use --graph rmat:SCALE");
  input.spec = fmt::format("rmat:{},ef={}", scale, edgefactor);
  load.inspect_edges = [&comm, &input, scale](std::span<const Edge> edges) {
    const vid_t n = vid_t{1} << scale;
    PhaseTimer timer(comm);
    bfs::add_tuple_endpoint_counts(comm, Distribution::block(n, comm.size()), edges,
                                   input.tuple_counts);
    input.counting_seconds += timer.stop();
  };
}

std::vector<vid_t> search_keys(const Comm& comm, const DistGraph& g, std::int64_t root, int roots,
                               std::uint64_t seed) {
  if (root < 0) {
    std::vector<vid_t> keys = bfs::choose_keys(comm, g, roots, seed);
    if (keys.empty()) fail_everywhere("the graph has no edges: no search key");
    return keys;
  }
  if (static_cast<vid_t>(root) >= g.global_vertex_count())
    fail_everywhere(fmt::format("--root {} is not a vertex (the graph has {}, 0-based)", root,
                                g.global_vertex_count()));
  const vid_t v = graph_ids_of(comm, g, {static_cast<vid_t>(root)}).front();
  const std::uint64_t degree =
      sum_over_ranks(comm, g.is_owned(v) ? g.degree(v - g.first_owned()) : eid_t{0});
  if (degree == 0)
    fail_everywhere(fmt::format("--root {} has no edges (Graph500 keys have degree >= 1)", root));
  return {v};
}

std::string graph500_notes(int scale, std::size_t keys) {
  std::string out;
  if (scale == 0)
    out +=
        "note: not a Kronecker graph of the specification: nedge counts the graph's "
        "undirected edges in the component\n";
  if (keys < 64)
    out += fmt::format(
        "note: {} search key{}: not a valid Graph500 run (the specification asks for 64)\n", keys,
        keys == 1 ? "" : "s");
  return out;
}

std::string graph500_header(const Comm& comm, const std::string& kernel, const LoadedGraph& loaded,
                            bool all_models, int scale, std::size_t keys) {
  const DistGraph& g = loaded.graph;
  std::string out =
      fmt::format("{} {} on {} ranks ({}): |V| = {}, |E| = {}{}\n", kernel,
                  loaded.description["spec"].get<std::string>(), comm.size(), mpi_library_version(),
                  g.global_vertex_count(), g.global_edge_count(), ordering_note(loaded));
  if (const std::string note = neighborhood_collectives_note(); !note.empty()) out += note + "\n";
  if (all_models)
    for (const auto& [name, reason] : unavailable_exchange_models())
      out += fmt::format("note: skipped {}\n", reason);
  return out + graph500_notes(scale, keys);
}

nlohmann::json graph500_document(const LoadedGraph& loaded, const std::vector<vid_t>& key_names,
                                 const ExchangeOptions& exchange, int scale,
                                 const Graph500Input& input, double generation_seconds,
                                 double construction_seconds) {
  const DistGraph& g = loaded.graph;
  nlohmann::json doc = {
      {"input", loaded.description},
      {"graph", {{"vertices", g.global_vertex_count()}, {"edges", g.global_edge_count()}}},
      {"timings", load_timings(loaded)},
      {"keys", key_names},
      {"round_messages", exchange.round_messages},
      {"plan_build", plan_build_name(exchange)},
      {"valid_graph500_run", scale > 0 && key_names.size() >= 64},
      {"runs", nlohmann::json::array()}};
  doc["timings"].update({{"graph_generation", generation_seconds},
                         {"construction_time", construction_seconds},
                         {"tuple_counting_seconds", input.counting_seconds}});
  return doc;
}

bfs::Graph500Figures input_figures(const Comm& comm, int scale, int edgefactor,
                                   double generation_seconds, double construction_seconds) {
  bfs::Graph500Figures f;
  f.scale = scale;
  f.edgefactor = scale > 0 ? edgefactor : 0;
  f.ranks = comm.size();
  f.generation_seconds = generation_seconds;
  f.construction_seconds = construction_seconds;
  return f;
}

nlohmann::json statistics_json(const bfs::Statistics& s) {
  return {{"min", s.min},       {"firstquartile", s.firstquartile},
          {"median", s.median}, {"thirdquartile", s.thirdquartile},
          {"max", s.max},       {"mean", s.mean},
          {"stddev", s.stddev}};
}

nlohmann::json figures_json(const bfs::Graph500Figures& f) {
  const bfs::TepsSummary t = bfs::summarize(f);
  nlohmann::json teps = statistics_json(t.teps);
  teps.erase("mean");  // TEPS has none: harmonic_mean_TEPS
  teps.erase("stddev");
  return {{"harmonic_mean_TEPS", t.harmonic_mean},
          {"harmonic_stddev_TEPS", t.harmonic_stddev},
          {"TEPS", teps},
          {"time", statistics_json(t.time)},
          {"nedge", statistics_json(t.nedge)},
          {"validate", statistics_json(t.validate)},
          {"seconds", f.seconds}};
}

std::string single_output(const Graph500Run& r, const std::string& name, const std::string& kernel,
                          const std::string& head, const std::string& tail) {
  std::string out = fmt::format("configuration: {}\n", name) + head;
  out += bfs::output_block(r.figures, kernel);
  out += fmt::format("setup_time: {:.6g}\n", r.setup_seconds);
  out += fmt::format("buffer_bytes_per_rank: {}\n", r.buffer_bytes_max);
  out += fmt::format("mean_messages: {:.6g}\nmean_bytes: {:.6g}\n", r.messages / r.searches(),
                     r.bytes / r.searches());
  return out + tail + fmt::format("validation: {}\n", r.validation);
}

nlohmann::json run_json(const Graph500Run& r, const std::string& configuration,
                        const std::string& algorithm, const std::string& model) {
  nlohmann::json j = {{"configuration", configuration},
                      {"algorithm", algorithm},
                      {"model", model},
                      {"setup_seconds", r.setup_seconds},
                      {"buffer_bytes_per_rank_max", r.buffer_bytes_max},
                      {"messages", r.messages},
                      {"bytes", r.bytes},
                      {"validation", r.validation}};
  j.update(figures_json(r.figures));
  if (r.combined_plan) j["combined_plan"] = to_json(*r.combined_plan);
  return j;
}

void add_graph500_options(CLI::App& cmd, Graph500Options& o, const std::string& scale_help,
                          const std::string& graph_note, const std::string& seed_help) {
  auto* scale = cmd.add_option("-s,--scale", o.scale, scale_help);
  scale->check(CLI::Range(1, 40));
  cmd.add_option("-e,--edgefactor", o.edgefactor, "Edges per vertex of the Kronecker graph")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  auto* graph = cmd.add_option("-g,--graph", o.graph.spec, graph_spec_help() + graph_note);
  graph->excludes(scale);
  cmd.add_option("--seed", o.graph.seed, seed_help)->capture_default_str();
  add_distribution_options(cmd, o.graph);
  auto* roots =
      cmd.add_option("--roots", o.roots, "Number of search keys (64 for a valid Graph500 run)")
          ->capture_default_str();
  cmd.add_option("--root", o.root, "Search once, from this vertex (0-based)")
      ->check(CLI::NonNegativeNumber)
      ->excludes(roots);
}

}  // namespace gc::cli
