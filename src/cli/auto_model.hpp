// --model auto in match and bfs: the configuration graphcomm advise ranks
// first for the loaded graph at the ranks that hold it, printed with its
// reason on rank 0 and recorded in the JSON.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "core/mpi.hpp"
#include "graph/dist_graph.hpp"

namespace gc::cli {

struct AutoChoice {
  std::string configuration;  // one of `available`
  nlohmann::json advice;      // advise::to_json, for the --json document
};

// Collective. Fails (on every rank) when the calibration is missing or has
// none of `available`. Prints "OPTION auto: CHOICE (why)" on rank 0.
AutoChoice choose_configuration(const Comm& comm, const DistGraph& g, const std::string& kernel,
                                const std::vector<std::string>& available,
                                const std::string& calibration, std::uint64_t seed,
                                const char* option = "model");

// --calibration FILE for the commands with --model auto.
void add_calibration_option(CLI::App& app, std::string& path);

}  // namespace gc::cli
