// Subcommand registration: each command adds its options to a CLI11 app and
// returns the function that runs it once parsing succeeded.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

// SMPI's compiler wrapper force-includes a header that defines exit(x) as a
// macro (a simulated rank must not end the simulator's process); CLI11 has a
// member function of that name. graphcomm itself never calls exit().
#ifdef exit
#undef exit
#endif
#include <CLI/CLI.hpp>

#include "comm/exchange.hpp"
#include "core/mpi.hpp"
#include "graph/spec.hpp"

namespace gc::cli {

struct Invocation {
  int argc;
  char** argv;
};

using Runner = std::function<void(const Comm&, const Invocation&)>;

// The options every command that loads a graph shares.
struct GraphOptions {
  std::string spec;
  std::uint64_t seed = 1;
  std::string distribution = "block";
  std::string reorder = "none", partition = "none";
  std::string weights = "file";
  LoadOptions load_options() const;
};
void add_graph_options(CLI::App& app, GraphOptions& options);
// --distribution, --reorder and --partition alone (for commands with their own --graph).
void add_distribution_options(CLI::App& app, GraphOptions& options);

// ", ordered by rcm in 0.12 s, relabeled in 0.01 s" when the graph was
// reordered or partitioned, else "".
std::string ordering_note(const LoadedGraph& loaded);
// {load_seconds, order_seconds, relabel_seconds} for a --json `timings`.
nlohmann::json load_timings(const LoadedGraph& loaded);

// Checks a --model value: an exchange model of this build or "all".
CLI::Validator model_validator();
// --round-messages N (the exchange's bound) and --plan-build (ncl-combined's
// plan built distributed or on rank 0): ExchangeOptions.
void add_exchange_options(CLI::App& app, ExchangeOptions& options);
// "distributed" or "gathered", as --plan-build takes it and the JSON records it.
const char* plan_build_name(const ExchangeOptions& options);

void add_graph_commands(CLI::App& app, Runner& run);
void add_match_command(CLI::App& app, Runner& run);
void add_bfs_command(CLI::App& app, Runner& run);
void add_sssp_command(CLI::App& app, Runner& run);
void add_nbr_command(CLI::App& app, Runner& run);
void add_spmm_command(CLI::App& app, Runner& run);
void add_mq_command(CLI::App& app, Runner& run);
// `graphcomm advise`: the cost model's ranking of configurations (advise/).
void add_advise_command(CLI::App& app, Runner& run);
// `graphcomm models`: every registry's rows, as a table or --json.
void add_models_command(CLI::App& app, Runner& run);
// Rules for every option of the tree: no negative value for an unsigned
// option; help labels without the type said twice.
void apply_option_rules(CLI::App& app);

}  // namespace gc::cli
