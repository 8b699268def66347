// graphcomm spmm: C = A x A with the row gather by MPI_Allgatherv, by
// MPI_Neighbor_allgatherv, or by a collaborative plan of nbr/.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/auto_model.hpp"
#include "cli/commands.hpp"
#include "cli/harness.hpp"
#include "core/output.hpp"
#include "core/registry.hpp"
#include "core/table.hpp"
#include "kernels/spmm/spmm.hpp"

namespace gc::cli {

namespace {

struct SpmmOptions {
  GraphOptions graph;
  std::string method = "all", k = "auto", json, calibration;
  int iters = 10;
  bool check = false;
};

void run_spmm(const Comm& comm, const Invocation& inv, const SpmmOptions& o) {
  nbr::PlanOptions po;
  if (o.k != "auto") {
    po.k = o.k == "2" ? 2 : o.k == "3" ? 3 : o.k == "4" ? 4 : -1;
    if (po.k < 0) fail_everywhere(fmt::format("--k {}: 2, 3, 4 or auto", o.k));
  }
  const LoadedGraph loaded = load_graph(comm, o.graph.spec, o.graph.load_options());
  const DistGraph& g = loaded.graph;
  std::string method = o.method;
  nlohmann::json auto_advice;
  if (method == "auto") {
    const AutoChoice choice = choose_configuration(comm, g, "spmm", names_of(spmm::method_table()),
                                                   o.calibration, o.graph.seed, "method");
    method = choice.configuration;
    auto_advice = choice.advice;
  }
  std::vector<spmm::Method> methods;
  for (const spmm::MethodInfo& m : spmm::method_table())
    if (method == "all" || method == m.name) methods.push_back(m.method);
  std::string out = fmt::format("spmm C = A x A, A = {} on {} ranks: {} rows, {} nonzeros\n",
                                loaded.description["spec"].get<std::string>(), comm.size(),
                                g.global_vertex_count(), 2 * g.global_edge_count());
  if (const std::string note = neighborhood_collectives_note(); !note.empty())
    out += note + "; \"neighbor\" is that schedule\n";
  const Table table({{"method", "<10"},
                     {"setup_s", ">10.4f"},
                     {"gather_ms", ">11.4f"},
                     {"multiply_ms", ">12.4f"},
                     {"total_ms", ">10.4f"},
                     {"msgs/iter", ">13"},
                     {"check", ""}});
  out += table.header();
  nlohmann::json runs = nlohmann::json::array();
  for (spmm::Method m : methods) {
    Progress::say(comm, "spmm by {}", spmm::method_name(m));
    const spmm::Result r = spmm::run(comm, g, m, o.iters, po);
    const std::string check = o.check ? spmm::check(comm, g, r.c) : "-";
    out += table.row(spmm::method_name(m), r.setup_seconds, r.gather_seconds * 1e3,
                     r.multiply_seconds * 1e3, (r.gather_seconds + r.multiply_seconds) * 1e3,
                     r.messages, check);
    runs.push_back({{"method", spmm::method_name(m)},
                    {"setup_seconds", r.setup_seconds},
                    {"gather_seconds", r.gather_seconds},
                    {"multiply_seconds", r.multiply_seconds},
                    {"messages_per_iteration", r.messages},
                    {"check", check}});
    if (check_failed(check))
      fail_everywhere(fmt::format("spmm by {}: {}", spmm::method_name(m), check));
  }
  if (comm.rank() == 0) std::fputs(out.c_str(), stdout);
  write_results(comm, inv, "spmm", o.json, [&] {
    nlohmann::json doc{{"input", loaded.description}, {"iterations", o.iters}, {"runs", runs}};
    doc["memory"] = memory_report(comm, loaded.graph, 0, loaded.estimated_peak_bytes);
    if (!auto_advice.is_null()) doc["auto"] = auto_advice;
    return doc;
  });
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
    std::vector<std::string> names = names_of(spmm::method_table());
    names.emplace_back("all");
    names.emplace_back("auto");
    return names;
  }();
  static const std::string method_help =
      fmt::format("{} (auto: the one graphcomm advise ranks first)", fmt::join(methods, ", "));
  cmd->add_option("--method", o.method, method_help)
      ->check(CLI::IsMember(methods))
      ->capture_default_str();
  cmd->add_option("--k", o.k, "Friend group size of the combined plan: 2, 3, 4 or auto")
      ->capture_default_str();
  cmd->add_option("--iters", o.iters, "Iterations (gather and multiply each)")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  cmd->add_flag("--check", o.check, "Compare C with a serial product (bitwise)");
  add_calibration_option(*cmd, o.calibration);
  cmd->add_option("--json", o.json, "Write the results as JSON");
  cmd->callback(
      [&run] { run = [](const Comm& comm, const Invocation& inv) { run_spmm(comm, inv, o); }; });
}

}  // namespace gc::cli
