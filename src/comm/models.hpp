// The exchange models, one row each in models.cpp: name, what it is, what it
// needs beyond MPI-3, and its factory. make_exchange, the CLI's --model help
// and `--model all`, the "unavailable: why" messages and `graphcomm models`
// (which graphcomm-lab asks for its model lists) all derive from that table.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "comm/exchange.hpp"

namespace gc {

// What a model needs besides MPI-3, which a build may lack (core/flavour.hpp).
enum class Needs { mpi, openshmem };

using ExchangeFactory = std::unique_ptr<Exchange> (*)(const Comm&, Neighborhood);

struct ExchangeModel {
  const char* name;
  const char* summary;
  Needs needs;
  ExchangeFactory make;  // nullptr when this build lacks what the model needs
};

// Every model graphcomm knows, in the order `--model all` runs them.
const std::vector<ExchangeModel>& exchange_model_table();
// Why this build lacks `model`, e.g. "OpenSHMEM not available (built with
// MPICH)"; "" when it has it.
std::string why_unavailable(const ExchangeModel& model);
// The same as one line that names the model ("shmem-fence: OpenSHMEM ...").
std::string unavailable_reason(const ExchangeModel& model);

// Collective. Fails everywhere, saying why, for a model this build lacks or
// does not know.
std::unique_ptr<Exchange> make_exchange(const std::string& model, const Comm& comm,
                                        Neighborhood nb);
// The names of the models of this build, and those it lacks with the reason.
const std::vector<std::string>& exchange_models();
const std::vector<std::pair<std::string, std::string>>& unavailable_exchange_models();

// hybrid with options, for tests: a tiny ring, and puts instead of shmem_ptr
// stores (the path to ranks of other nodes). Fails everywhere, saying why, in
// a build without OpenSHMEM.
struct HybridOptions {
  std::uint64_t ring_slots = 0;  // 0: sized from the capacities
  bool direct = true;            // stores through shmem_ptr where it reaches
};
std::unique_ptr<Exchange> make_hybrid_exchange(const Comm& comm, Neighborhood nb,
                                               HybridOptions options);

}  // namespace gc
