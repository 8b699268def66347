// graphcomm spmm: C = A x A with the row gather by MPI_Allgatherv, by
// MPI_Neighbor_allgatherv, or by a collaborative plan of nbr/.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/commands.hpp"
#include "core/output.hpp"
#include "kernels/spmm/spmm.hpp"

namespace gc::cli {

namespace {

struct SpmmOptions {
  GraphOptions graph;
  std::string method = "all", k = "auto", json;
  int iters = 10;
  bool check = false;
};

void run_spmm(const Comm& comm, const Invocation& inv, const SpmmOptions& o) {
  nbr::PlanOptions po;
  if (o.k != "auto") {
    po.k = o.k == "2" ? 2 : o.k == "3" ? 3 : o.k == "4" ? 4 : -1;
    if (po.k < 0) fail_everywhere(fmt::format("--k {}: 2, 3, 4 or auto", o.k));
  }
  std::vector<spmm::Method> methods;
  for (const spmm::MethodInfo& m : spmm::method_table())
    if (o.method == "all" || o.method == m.name) methods.push_back(m.method);
  const LoadedGraph loaded = load_graph(comm, o.graph.spec, o.graph.load_options());
  const DistGraph& g = loaded.graph;
  std::string table = fmt::format("spmm C = A x A, A = {} on {} ranks: {} rows, {} nonzeros\n",
                                  loaded.description["spec"].get<std::string>(), comm.size(),
                                  g.global_vertex_count(), 2 * g.global_edge_count());
  if (const std::string note = neighborhood_collectives_note(); !note.empty())
    table += note + "; \"neighbor\" is that schedule\n";
  table += fmt::format("{:<10} {:>10} {:>11} {:>12} {:>10} {:>13}  {}\n", "method", "setup_s",
                       "gather_ms", "multiply_ms", "total_ms", "msgs/iter", "check");
  nlohmann::json runs = nlohmann::json::array();
  for (spmm::Method m : methods) {
    Progress::say(comm, "spmm by {}", spmm::method_name(m));
    const spmm::Result r = spmm::run(comm, g, m, o.iters, po);
    const std::string check = o.check ? spmm::check(comm, g, r.c) : "-";
    table += fmt::format("{:<10} {:>10.4f} {:>11.4f} {:>12.4f} {:>10.4f} {:>13}  {}\n",
                         spmm::method_name(m), r.setup_seconds, r.gather_seconds * 1e3,
                         r.multiply_seconds * 1e3, (r.gather_seconds + r.multiply_seconds) * 1e3,
                         r.messages, check);
    runs.push_back({{"method", spmm::method_name(m)},
                    {"setup_seconds", r.setup_seconds},
                    {"gather_seconds", r.gather_seconds},
                    {"multiply_seconds", r.multiply_seconds},
                    {"messages_per_iteration", r.messages},
                    {"check", check}});
    if (check != "-" && check != "OK")
      fail_everywhere(fmt::format("spmm by {}: {}", spmm::method_name(m), check));
  }
  if (comm.rank() == 0) std::fputs(table.c_str(), stdout);
  if (!o.json.empty()) {
    nlohmann::json doc = result_envelope(comm, "spmm", inv.argc, inv.argv);
    doc["input"] = loaded.description;
    doc["iterations"] = o.iters;
    doc["runs"] = runs;
    write_json_on_root(comm, o.json, doc);
  }
}

}  // namespace

void add_spmm_command(CLI::App& app, Runner& run) {
  static SpmmOptions o;
  CLI::App* cmd = app.add_subcommand(
      "spmm", "C = A x A with the rows gathered by allgather, neighbour allgather or nbr/'s plan");
  cmd->fallthrough();
  cmd->add_option("-m,--matrix", o.graph.spec, graph_spec_help())->required();
  cmd->add_option("--seed", o.graph.seed, "Seed of generated matrices and weights")
      ->capture_default_str();
  add_distribution_options(*cmd, o.graph);
  static const std::vector<std::string> methods = [] {
    std::vector<std::string> names;
    for (const spmm::MethodInfo& m : spmm::method_table()) names.emplace_back(m.name);
    names.emplace_back("all");
    return names;
  }();
  static const std::string method_help = fmt::format("{}", fmt::join(methods, ", "));
  cmd->add_option("--method", o.method, method_help)
      ->check(CLI::IsMember(methods))
      ->capture_default_str();
  cmd->add_option("--k", o.k, "Friend group size of the combined plan: 2, 3, 4 or auto")
      ->capture_default_str();
  cmd->add_option("--iters", o.iters, "Iterations (gather and multiply each)")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  cmd->add_flag("--check", o.check, "Compare C with a serial product (bitwise)");
  cmd->add_option("--json", o.json, "Write the results as JSON");
  cmd->callback(
      [&run] { run = [](const Comm& comm, const Invocation& inv) { run_spmm(comm, inv, o); }; });
}

}  // namespace gc::cli
