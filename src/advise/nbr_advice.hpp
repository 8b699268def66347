// graphcomm advise for the neighbour collectives: combine or not, and with
// which group size k (Ghazimirsaeed et al., "Collaborative communication for
// MPI neighborhood collectives": combining saves messages, costs a second hop
// and sends blocks twice, so it pays for small blocks on dense
// neighbourhoods and not for large ones).
//
// A network model, priced per call:
//
//   t = c_message * M + c_byte * B + c_node_byte * N + c_hop * H
//
// M and B: the messages and bytes the busiest rank sends plus receives; N
// the bytes the busiest node sends to other nodes (its ranks share its link:
// where they saturate it, bytes cost more than one rank's bandwidth says);
// H the messages in a row on the longest path (1 direct, 2 combined). All
// counted from the topology and each plan without calling
// (nbr/call_counts.hpp). The four costs are fitted (advise/cost_model.hpp's
// non-negative least squares) on direct calls over ring topologies of 1 to
// 32 neighbours and three block sizes, measured at the rank count by
// `advise --calibrate --kernel nbr` (on this machine, or simulated on a
// platform).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/mpi.hpp"
#include "nbr/plan.hpp"

namespace gc::advise {

// One calibration call: a ring of `degree` neighbours each way, `block`
// bytes per block, at `ranks` ranks; its counts and its time per call.
struct NetworkSample {
  int ranks = 0;
  int degree = 0;
  std::uint64_t block = 0;
  double messages = 0, bytes = 0, node_bytes = 0, hops = 1;
  double seconds = 0;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(NetworkSample, ranks, degree, block, messages, bytes, node_bytes,
                                   hops, seconds)

struct NetworkCosts {
  double per_message = 0, per_byte = 0, per_node_byte = 0, per_hop = 0;  // seconds
  std::size_t samples = 0;
  int ranks = 0;  // the rank count of the samples; 0: every rank count (extrapolated)
  double median_error = 0, max_error = 0;  // leave-one-out |pred/meas - 1|
};

// From the samples at `ranks` when there are some, else from all of them;
// an error on every rank when there are none.
NetworkCosts fit_network(const std::vector<NetworkSample>& samples, int ranks);

// Collective: the calibration calls at this communicator's size (2 ranks at
// least), `repeats` timings each (median); progress on rank 0.
std::vector<NetworkSample> measure_network(const Comm& comm, int repeats);

struct NbrConfiguration {
  std::string name;                          // "direct", "k=2", "k=3", "k=4", "k=auto"
  double messages = 0, bytes = 0, hops = 1;  // the busiest rank's, per call
  double node_bytes = 0;                     // the busiest node's to other nodes
  std::uint64_t groups = 0;                  // friend groups formed, summed over ranks
  double seconds = 0;                        // predicted per call
};

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

std::string format_nbr_advice(const std::vector<NbrAdvice>& advice, const NetworkCosts& costs);
nlohmann::json to_json(const NbrAdvice& a);

}  // namespace gc::advise
