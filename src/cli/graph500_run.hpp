// What the Graph500 commands (bfs, kernel 2; sssp, kernel 3) share: the
// Kronecker input with its tuple counts (the specification's nedge), the
// search keys of --root/--roots, the header and notes above the output, the
// configurations' searches and the figures every one of them gives, printed
// and in JSON, and a per-vertex output file.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <ostream>
#include <string>
#include <type_traits>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/harness.hpp"
#include "comm/combined_plan_report.hpp"
#include "core/error.hpp"
#include "core/mpi.hpp"
#include "core/output.hpp"
#include "graph/dist_graph.hpp"
#include "graph/spec.hpp"
#include "kernels/bfs/graph500.hpp"

namespace gc::cli {

// --scale S: the spec of the Kronecker graph, and the input tuples' endpoint
// counts taken as the load hands its pieces over (`load.inspect_edges`);
// without --scale the spec as given and no counts. Fails when --scale comes
// with a distribution other than the specification's.
struct Graph500Input {
  std::string spec;
  std::vector<std::uint32_t> tuple_counts;  // per owned vertex (bfs::tuple_endpoint_counts)
  double counting_seconds = 0;              // neither kernel 1 nor generation
};
void prepare_graph500_input(const Comm& comm, int scale, int edgefactor, const std::string& spec,
                            const std::string& distribution, LoadOptions& load,
                            Graph500Input& input);

// Half the tuple endpoints (or degrees, without tuple counts) of the owned
// vertices `reached` says are in the search's component: its nedge.
// Collective.
template <class Reached>
double component_nedge(const Comm& comm, const DistGraph& g,
                       const std::vector<std::uint32_t>& tuple_counts, Reached reached) {
  std::uint64_t ends = 0;
  for (lid_t l = 0; l < g.owned_count(); ++l)
    if (reached(l)) ends += tuple_counts.empty() ? g.degree(l) : tuple_counts[l];
  return static_cast<double>(sum_over_ranks(comm, ends) / 2);
}

// The search keys (graph ids): `root` (>= 0: that input id, which must have
// an edge) or `roots` Graph500 keys from `seed`. Fails everywhere when there
// is none.
std::vector<vid_t> search_keys(const Comm& comm, const DistGraph& g, std::int64_t root, int roots,
                               std::uint64_t seed);

// The notes under a Graph500 command's first line: not a Kronecker graph,
// fewer than 64 keys.
std::string graph500_notes(int scale, std::size_t keys);

// A run's figures before its searches: the input's (scale and edgefactor of
// a Kronecker graph, else 0) and the rank count.
bfs::Graph500Figures input_figures(const Comm& comm, int scale, int edgefactor,
                                   double generation_seconds, double construction_seconds);

nlohmann::json statistics_json(const bfs::Statistics& s);

// A run's Graph500 figures in JSON: harmonic_mean_TEPS, harmonic_stddev_TEPS,
// TEPS (order statistics), time, nedge, validate, seconds[].
nlohmann::json figures_json(const bfs::Graph500Figures& f);

// The input and key options both commands take: --scale, --edgefactor,
// --graph (with `graph_note` after the generators' help), --seed, the
// distribution options, --roots, --root.
struct Graph500Options {
  GraphOptions graph;
  int scale = 0, edgefactor = 16;
  int roots = 64;
  std::int64_t root = -1;
};
void add_graph500_options(CLI::App& cmd, Graph500Options& o, const std::string& scale_help,
                          const std::string& graph_note, const std::string& seed_help);

// The output's first lines: the input, the ranks and the MPI library, then
// the notes (the library's neighbourhood collectives, with `all_models` the
// models this build lacks, and graph500_notes).
std::string graph500_header(const Comm& comm, const std::string& kernel, const LoadedGraph& loaded,
                            bool all_models, int scale, std::size_t keys);

// The JSON document's fields every Graph500 command writes (input, graph,
// timings with the Graph500 ones, keys, round_messages, plan_build,
// valid_graph500_run),
// and "runs" empty.
nlohmann::json graph500_document(const LoadedGraph& loaded, const std::vector<vid_t>& key_names,
                                 const ExchangeOptions& exchange, int scale,
                                 const Graph500Input& input, double generation_seconds,
                                 double construction_seconds);

// "vertex value" per owned vertex whose value is not `none`, in the input's
// 0-based ids (also when reordered or partitioned), by increasing id; the
// value as fmt prints it (doubles in the shortest form that reads back the
// same). Written by rank 0, atomically. Collective.
template <class T>
void write_vertex_values(const Comm& comm, const DistGraph& g, const std::vector<T>& values, T none,
                         const std::string& path) {
  struct Pair {
    std::uint64_t vertex;
    T value;
  };
  std::vector<Pair> mine;
  for (lid_t l = 0; l < g.owned_count(); ++l)
    if (values[l] != none) mine.push_back({g.input_id(l), values[l]});
  std::vector<Pair> all = allgatherv(comm, mine);
  collectively(comm.get(), [&] {
    if (comm.rank() != 0) return;
    std::sort(all.begin(), all.end(),
              [](const Pair& a, const Pair& b) { return a.vertex < b.vertex; });
    write_file_atomically(path, [&](std::ostream& os) {
      for (const Pair& p : all) os << fmt::format("{} {}\n", p.vertex, p.value);
    });
  });
}

// The searches of one configuration, as Graph500 figures: the input's
// figures (`input`: scale to construction time) and, per search, record()
// with its time and per-vertex values (`none` where unreached), which times
// `check` (a verdict, "OK" when valid) and keeps the first failure, adds the
// component's nedge, and writes the first search's values to `values_path`
// when one is given. Collective.
class Graph500Searches {
 public:
  Graph500Searches(const Comm& comm, const DistGraph& g,
                   const std::vector<std::uint32_t>& tuple_counts,
                   const std::vector<vid_t>& key_names, const bfs::Graph500Figures& input,
                   std::string configuration, std::string values_path)
      : figures(input),
        comm_(comm),
        g_(g),
        tuple_counts_(tuple_counts),
        key_names_(key_names),
        configuration_(std::move(configuration)),
        values_path_(std::move(values_path)) {}

  // Progress on rank 0 before search k, every 16 searches.
  void announce(std::size_t k) const {
    if (k % 16 == 0)
      Progress::say(comm_, "{}: search {}/{} from {}", configuration_, k + 1, key_names_.size(),
                    key_names_[k]);
  }

  template <class T, class Check>
  void record(std::size_t k, double seconds, const std::vector<T>& values, T none, Check check) {
    PhaseTimer validate_timer(comm_);
    const std::string verdict = check();
    figures.validate_seconds.push_back(validate_timer.stop());
    if (verdict != "OK" && validation == "OK")
      validation = fmt::format("FAILED from {}: {}", key_names_[k], verdict);
    // nedge: input tuples in the component (Kronecker graphs) or undirected edges.
    figures.nedge.push_back(
        component_nedge(comm_, g_, tuple_counts_, [&](lid_t l) { return values[l] != none; }));
    figures.seconds.push_back(seconds);
    if (k == 0 && !values_path_.empty()) write_vertex_values(comm_, g_, values, none, values_path_);
  }

  vid_t key_name(std::size_t k) const { return key_names_[k]; }

  bfs::Graph500Figures figures;
  std::string validation = "OK";

 private:
  const Comm& comm_;
  const DistGraph& g_;
  const std::vector<std::uint32_t>& tuple_counts_;
  const std::vector<vid_t>& key_names_;
  std::string configuration_, values_path_;
};

// What the searches of one configuration give, whatever the kernel; each
// command's result per configuration derives from it.
struct Graph500Run {
  double setup_seconds = 0;
  std::uint64_t buffer_bytes_max = 0;
  std::optional<CombinedPlanReport> combined_plan;  // ncl-combined's plan, else none
  bfs::Graph500Figures figures;
  std::uint64_t messages = 0, bytes = 0;  // summed over searches and ranks
  std::string validation = "OK";

  double searches() const { return static_cast<double>(figures.seconds.size()); }
  // The figures and the verdict that `s` gathered.
  void take(Graph500Searches&& s) {
    figures = std::move(s.figures);
    validation = std::move(s.validation);
  }
};

// A configuration run alone: "configuration: NAME", `head` (the kernel's
// lines), the Graph500 output block, setup time, buffer bytes, messages and
// bytes per search, `tail` (the kernel's), validation.
std::string single_output(const Graph500Run& r, const std::string& name, const std::string& kernel,
                          const std::string& head, const std::string& tail);

// A run's JSON: its configuration, algorithm and model, the figures of every
// Graph500Run and figures_json; the kernel adds its own.
nlohmann::json run_json(const Graph500Run& r, const std::string& configuration,
                        const std::string& algorithm, const std::string& model);

// `run_one(config, searches)` for each configuration, in order, each with
// its Graph500Searches (the first writes the per-vertex values to
// `values_path`, when one is given). Collective.
template <class Config, class RunOne>
auto run_configurations(const Comm& comm, const DistGraph& g, const Graph500Input& input,
                        const std::vector<vid_t>& key_names, const bfs::Graph500Figures& figures,
                        const std::vector<Config>& configs, const std::string& values_path,
                        RunOne run_one) {
  using Run = std::invoke_result_t<RunOne, const Config&, Graph500Searches>;
  std::vector<Run> runs;
  for (std::size_t c = 0; c < configs.size(); ++c)
    runs.push_back(run_one(
        configs[c], Graph500Searches(comm, g, input.tuple_counts, key_names, figures,
                                     configs[c].name(), c == 0 ? values_path : std::string())));
  return runs;
}

// On rank 0: `single(run)` for one configuration, else `table(runs)`; with
// `profile`, `print_profile(run)` for each.
template <class Run, class Single, class Table, class Profile>
void print_runs(const Comm& comm, const std::vector<Run>& runs, bool profile, Single single,
                Table table, Profile print_profile) {
  if (comm.rank() != 0) return;
  if (runs.size() == 1)
    single(runs.front());
  else
    table(runs);
  if (profile)
    for (const Run& r : runs) print_profile(r);
  std::fflush(stdout);
}

// Fails everywhere, naming the first configuration whose validation failed
// ("BFS validation failed for NAME: ..."), if one did.
template <class Run>
void fail_on_invalid(const std::vector<Run>& runs, const std::string& kernel) {
  if (const Run* r = first_failed<Run>(runs, &Run::validation))
    fail_everywhere(
        fmt::format("{} validation failed for {}: {}", kernel, r->config.name(), r->validation));
}

}  // namespace gc::cli
