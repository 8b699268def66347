// The network model of graphcomm advise for the neighbour collectives
// (Ghazimirsaeed et al., "Collaborative communication for MPI neighborhood
// collectives": combining saves messages, costs a second hop and sends
// blocks twice, so it pays for small blocks on dense neighbourhoods and not
// for large ones), priced per call:
//
//   t = c_message * M + c_byte * B + c_node_byte * N + c_hop * H
//
// M and B: the messages and bytes the busiest rank sends plus receives; N
// the bytes the busiest node sends to other nodes (its ranks share its link:
// where they saturate it, bytes cost more than one rank's bandwidth says);
// H the messages in a row on the longest path (1 direct, 2 combined). All
// counted from the topology and each plan without calling
// (nbr/call_counts.hpp). The four costs are fitted (least_squares.hpp) on
// direct calls over ring topologies of 1 to 32 neighbours and three block
// sizes, measured at the rank count by `advise --calibrate --kernel nbr` (on
// this machine, or simulated on a platform): nbr_advice.hpp. In two stages:
// c_message and c_hop on the calls of the smallest block, whose bytes cost
// nothing, then c_byte and c_node_byte on what they leave of the larger ones. This file holds
// what libgraphcomm-nbr.so needs too, to choose per call (preload/nbr_preload.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/mpi.hpp"
#include "nbr/call_counts.hpp"

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

// The network samples of a calibration file's JSON (calibration.hpp): its
// "network" array, empty when it has none.
std::vector<NetworkSample> network_samples(const nlohmann::json& calibration);

struct NbrConfiguration {
  std::string name;                          // "direct", "k=2", "k=3", "k=4", "k=auto"
  double messages = 0, bytes = 0, hops = 1;  // the busiest rank's, per call
  double node_bytes = 0;                     // the busiest node's to other nodes
  std::uint64_t groups = 0;                  // friend groups formed, summed over ranks
  double seconds = 0;                        // predicted per call
};

// A configuration's counts over ranks from every rank's (`every[r]`: rank
// r's, `node_of[r]` its node): the busiest rank's messages and bytes (each
// its own maximum), the busiest node's bytes to other nodes, the longest
// path; `groups` summed over ranks already.
NbrConfiguration total_counts(const std::vector<int>& node_of, const std::string& name,
                              const std::vector<nbr::CallCounts>& every, std::uint64_t groups);
// Collective: total_counts from each rank's own counts and groups.
NbrConfiguration global_counts(const Comm& comm, const std::vector<int>& node_of,
                               const std::string& name, const nbr::CallCounts& mine,
                               std::uint64_t groups);

double predict_seconds(const NetworkCosts& c, const NbrConfiguration& n);

// A configuration counted at a block of 1 byte, at `block` bytes: its
// messages and hops do not depend on the block, its bytes grow with it.
NbrConfiguration at_block(NbrConfiguration per_byte, std::uint64_t block);

}  // namespace gc::advise
