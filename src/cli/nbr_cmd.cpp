// graphcomm nbr bench: collaborative neighborhood collectives (nbr/) against
// the MPI library's own, per message size, on a chosen process topology.
#include <algorithm>
#include <cstring>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/commands.hpp"
#include "cli/harness.hpp"
#include "cli/nbr_topology.hpp"
#include "core/mpi_file.hpp"
#include "core/output.hpp"
#include "core/table.hpp"
#include "core/wait.hpp"
#include "graph/dist_graph.hpp"
#include "nbr/bench_caller.hpp"
#include "nbr/collectives.hpp"
#include "nbr/topologies.hpp"

namespace gc::cli {

namespace {

struct NbrOptions {
  std::string topology, collective = "allgather", k = "auto", mode = "agnostic";
  std::string plan_build = "distributed";
  std::string sizes = "4,64,1024,4096", json, save_topology;
  bool nonblocking = false, check = false;
  int theta = 0, ranks_per_node = 0, iters = 100, repeat = 3;
  std::uint64_t seed = 1;
  GraphOptions graph;  // --distribution, --reorder, --partition of graph: topologies
};

// --save-topology: the topology as a file:PATH topology ("r: n1 n2 ..."), so
// that other programs (bench/nbr.py's MPI Advance driver) run the same one.
void save_topology(const Comm& comm, const std::string& path, const std::vector<int>& mine) {
  std::vector<int> line{comm.rank(), static_cast<int>(mine.size())};
  line.insert(line.end(), mine.begin(), mine.end());
  const std::vector<int> all = allgatherv(comm, line);
  write_atomically(comm, path, [&](const std::string& tmp) {
    if (comm.rank() != 0) return;
    std::FILE* f = std::fopen(tmp.c_str(), "w");
    if (!f) fail(fmt::format("--save-topology {}: cannot write: {}", path, std::strerror(errno)));
    for (size_t at = 0; at < all.size(); at += 2 + static_cast<size_t>(all[at + 1])) {
      fmt::print(f, "{}:", all[at]);
      for (int j = 0; j < all[at + 1]; ++j)
        fmt::print(f, " {}", all[at + 2 + static_cast<size_t>(j)]);
      fmt::print(f, "\n");
    }
    if (std::fclose(f) != 0) fail(fmt::format("--save-topology {}: write failed", path));
  });
}

// Seconds per call of the library's collective (ours null) or ours.
double time_calls(const Comm& comm, nbr::Caller& caller, nbr::Collectives* ours, bool nonblocking,
                  int iters) {
  return seconds_per_call(comm, iters, [&] { caller.call(ours, nonblocking); });
}

void run_nbr_bench(const Comm& comm, const Invocation& inv, const NbrOptions& o) {
  nbr::PlanOptions po;
  po.k = o.k == "auto" ? 0 : static_cast<int>(number(o.k, "--k"));
  if (o.k != "auto" && (po.k < 2 || po.k > 4)) fail_everywhere("--k: 2, 3, 4 or auto");
  po.theta = o.theta;
  po.mode = nbr::parse_mode(o.mode);
  po.ranks_per_node = o.ranks_per_node;
  po.gathered = o.plan_build == "gathered";
  const std::vector<std::uint64_t> sizes = block_sizes(o.sizes);
  std::vector<int> sources, destinations;
  topology_lists(comm, o.topology, o.graph, o.seed, sources, destinations);
  if (!o.save_topology.empty()) save_topology(comm, o.save_topology, destinations);
  const Comm graph = Comm::adopt(nbr::make_dist_graph(comm.get(), sources, destinations));
  Progress::say(comm, "building the plan");
  nbr::Collectives ours(graph.get(), po);
  const nbr::PlanFigures& f = ours.plan().figures;
  const double hyperedges = mean_over_ranks(comm, f.hyperedges);
  const auto groups = sum_over_ranks(comm, f.groups);
  const double messages = mean_over_ranks(comm, f.messages);
  const double default_messages = mean_over_ranks(comm, f.default_messages);
  const double build = max_over_ranks(comm, f.build_seconds);
  const int steps = max_over_ranks(comm, f.steps);
  const int rounds = max_over_ranks(comm, f.rounds);
  const double matching_messages = mean_over_ranks(comm, f.matching_messages);

  nlohmann::json rows = nlohmann::json::array();
  const Table table({{"bytes", ">9"},
                     {"default_us", ">12.2f"},
                     {"ours_us", ">12.2f"},
                     {"speedup", ">9.2f"},
                     {"check", ""}});
  std::string lines = table.header();
  for (std::uint64_t bytes : sizes) {
    Progress::say(comm, "{} bytes", bytes);
    nbr::Caller caller(graph.get(), o.collective, bytes, comm.rank());
    std::string check = "-";
    if (o.check) {
      if (ours.library_in_order())
        caller.call(nullptr, false);
      else
        caller.call_point_to_point();
      const std::vector<char> want = caller.received();
      caller.clear();
      caller.call(&ours, o.nonblocking);
      const bool same = want == caller.received();
      check = max_over_ranks(comm, same ? 0 : 1) == 0 ? "OK" : "FAIL";
      if (check_failed(check))
        fail_everywhere(
            fmt::format("nbr bench: {} of {} bytes differs from {}", o.collective, bytes,
                        ours.library_in_order() ? fmt::format("the library's {}", o.collective)
                                                : std::string("point-to-point in list order")));
    }
    const int warmup = std::max(1, o.iters / 10);
    time_calls(comm, caller, nullptr, o.nonblocking, warmup);
    time_calls(comm, caller, &ours, o.nonblocking, warmup);
    // Interleaved repetitions; the median of each.
    std::vector<double> library, mine;
    for (int r = 0; r < o.repeat; ++r) {
      library.push_back(time_calls(comm, caller, nullptr, o.nonblocking, o.iters));
      mine.push_back(time_calls(comm, caller, &ours, o.nonblocking, o.iters));
    }
    const double a = sort_for_median(library), b = sort_for_median(mine);
    lines += table.row(bytes, a * 1e6, b * 1e6, a / b, check);
    rows.push_back({{"bytes", bytes},
                    {"default_seconds", library},
                    {"ours_seconds", mine},
                    {"speedup", a / b},
                    {"check", check}});
  }
  if (comm.rank() == 0) {
    std::string out = fmt::format(
        "nbr bench {} on {} ranks ({}): {}{}, k={} theta={} {}{}\n", o.topology, comm.size(),
        mpi_library_version(), o.nonblocking ? "i" : "", o.collective, o.k,
        o.theta > 0 ? std::to_string(o.theta) : "auto", o.mode,
        o.ranks_per_node > 0 ? fmt::format(" ({} ranks per node)", o.ranks_per_node) : "");
    out += fmt::format(
        "plan: {:.1f} hyperedges/rank, {} groups, {} steps ({} matching rounds, {:.1f} "
        "messages/rank), {:.2f} messages/rank (default {:.2f}), built in {:.4f} s{}\n",
        hyperedges, groups, steps, rounds, matching_messages, messages, default_messages, build,
        po.gathered ? " (gathered: every rank's side run on rank 0)" : "");
    if (const std::string note = neighborhood_collectives_note(); !note.empty())
      out += note + "; \"default\" is that schedule\n";
    if (!ours.library_in_order())
      out +=
          "the library pairs repeated edges out of MPI-4.1 section 8.6's order here: ours "
          "never falls back to it, and --check compares with point-to-point in list order\n";
    std::fputs((out + lines).c_str(), stdout);
  }
  write_results(comm, inv, "nbr bench", o.json, [&] {
    return nlohmann::json{{"topology", o.topology},
                          {"collective", o.collective},
                          {"nonblocking", o.nonblocking},
                          {"plan",
                           {{"k", o.k},
                            {"theta", o.theta},
                            {"mode", o.mode},
                            {"ranks_per_node", o.ranks_per_node},
                            {"build", o.plan_build},
                            {"hyperedges_per_rank", hyperedges},
                            {"groups", groups},
                            {"steps", steps},
                            {"matching_rounds", rounds},
                            {"matching_messages_per_rank", matching_messages},
                            {"messages_per_rank", messages},
                            {"default_messages_per_rank", default_messages},
                            {"build_seconds", build}}},
                          {"sizes", rows}};
  });
}

}  // namespace

void add_nbr_command(CLI::App& app, Runner& run) {
  static NbrOptions o;
  CLI::App* nbr = app.add_subcommand("nbr", "Collaborative neighborhood collectives");
  nbr->require_subcommand(1);
  nbr->fallthrough();
  CLI::App* cmd = nbr->add_subcommand(
      "bench", "The library's neighbour collective against the combined plan, per message size");
  cmd->fallthrough();
  cmd->add_option("--topology", o.topology,
                  "moore:D:R, random:DELTA, file:PATH ('r: n1 n2 ...' lines) or graph:SPEC")
      ->required();
  static const std::vector<std::string> collectives = [] {
    std::vector<std::string> names;
    for (const auto& c : nbr::collective_table()) names.push_back(c.first);
    return names;
  }();
  static const std::string collective_help = fmt::format("{}", fmt::join(collectives, ", "));
  cmd->add_option("--collective", o.collective, collective_help)
      ->check(CLI::IsMember(collectives))
      ->capture_default_str();
  cmd->add_flag("--nonblocking", o.nonblocking, "Start the collective, then wait");
  cmd->add_option("--k", o.k, "Friend group size: 2, 3, 4 or auto")->capture_default_str();
  cmd->add_option("--theta", o.theta, "Least common outgoing neighbours of a group (default k+1)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--mode", o.mode, "agnostic, or aware (friends on the same node only)")
      ->check(CLI::IsMember({"agnostic", "aware"}))
      ->capture_default_str();
  cmd->add_option("--ranks-per-node", o.ranks_per_node,
                  "aware: emulate nodes of N ranks (default: the real nodes)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--plan-build", o.plan_build,
                  "distributed (every rank its side, as the paper), or gathered (rank 0 runs "
                  "every rank's side and scatters the plans: the same plan, for simulations "
                  "at thousands of ranks)")
      ->check(CLI::IsMember({"distributed", "gathered"}))
      ->capture_default_str();
  cmd->add_option("--sizes", o.sizes, "Bytes per block, comma-separated")->capture_default_str();
  cmd->add_option("--iters", o.iters, "Calls timed per repetition")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  cmd->add_option("--repeat", o.repeat, "Interleaved repetitions (median reported)")
      ->check(CLI::Range(1, 100))
      ->capture_default_str();
  cmd->add_option("--seed", o.seed, "Seed of random topologies and graphs")->capture_default_str();
  add_distribution_options(*cmd, o.graph);
  cmd->add_flag("--check", o.check, "Compare every result with the library's blocking collective");
  cmd->add_option("--json", o.json, "Write the results as JSON");
  cmd->add_option("--save-topology", o.save_topology,
                  "Write the topology as a file: topology (r: n1 n2 ...)");
  cmd->callback([&run] {
    run = [](const Comm& comm, const Invocation& inv) { run_nbr_bench(comm, inv, o); };
  });
}

}  // namespace gc::cli
