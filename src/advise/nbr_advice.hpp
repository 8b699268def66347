// graphcomm advise for the neighbour collectives: combine or not, and with
// which group size k (Ghazimirsaeed et al., "Collaborative communication for
// MPI neighborhood collectives": combining saves messages, costs a second hop
// and sends blocks twice, so it pays for small blocks on dense
// neighbourhoods and not for large ones).
//
// The network model and its fit: network_model.hpp. Here: its calibration
// calls and the advice, every group size ranked per block size.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "advise/network_model.hpp"
#include "core/mpi.hpp"
#include "nbr/plan.hpp"

namespace gc::advise {

// Collective: the calibration calls at this communicator's size (2 ranks at
// least), `repeats` timings each (median); progress on rank 0.
std::vector<NetworkSample> measure_network(const Comm& comm, int repeats);

struct NbrAdvice {
  std::uint64_t block = 0;
  std::vector<NbrConfiguration> ranked;  // fastest first
  std::string reason;
};

struct NbrQuery {
  std::string collective = "allgather";  // or "alltoall"
  std::vector<std::uint64_t> blocks;
  nbr::PlanOptions plan;  // mode, theta, ranks per node; k is advised
};

// Collective over `comm`, whose ranks are the topology's: builds the plan of
// each group size on the topology (sources, destinations of this rank) and
// ranks direct and the plans per block size.
std::vector<NbrAdvice> advise_nbr(const Comm& comm, const std::vector<int>& sources,
                                  const std::vector<int>& destinations, const NbrQuery& query,
                                  const NetworkCosts& costs);

// The same advice for P = every.size() ranks that need not be running
// (`every[r]`: rank r's lists), from every rank's plan built in this process
// (nbr::plans_of_every_rank): for a rank count larger than the one running.
// The nodes are query.plan.ranks_per_node consecutive ranks, for the aware
// plans and the network's node links alike.
std::vector<NbrAdvice> advise_nbr_for(const std::vector<nbr::Topology>& every,
                                      const NbrQuery& query, const NetworkCosts& costs);

std::string format_nbr_advice(const std::vector<NbrAdvice>& advice, const NetworkCosts& costs);
nlohmann::json to_json(const NbrAdvice& a);

}  // namespace gc::advise
