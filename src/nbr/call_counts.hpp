// What one neighbour collective call costs a rank in messages and bytes, by
// the library's direct schedule (one message per edge) or by a collaborative
// plan (collectives.hpp's schedule), counted from the topology and the plan
// without calling: what graphcomm advise's network model
// (advise/nbr_advice.hpp) prices. allgather and alltoall: every block has the
// same size, so friends' messages carry no header; allgatherv (SpMM's gather
// of row blocks): each rank's block its own size (BlockOf).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "nbr/plan.hpp"

namespace gc::nbr {

struct CallCounts {
  std::uint64_t messages_sent = 0, messages_received = 0;
  std::uint64_t bytes_sent = 0, bytes_received = 0;
  std::uint64_t bytes_sent_off_node = 0;      // to ranks on other nodes (node_of)
  std::uint64_t bytes_received_off_node = 0;  // from ranks on other nodes
  // Messages in a row on the longest path: 1 direct, 2 where this rank
  // forwards or receives a combined message (friend, then neighbour).
  int hops = 1;
};

// `collective`: "allgather" or "alltoall"; `block`: bytes per block;
// `node_of`: per rank of the communicator, its node (empty: all on one).
CallCounts direct_counts(const Topology& t, std::uint64_t block, int me,
                         const std::vector<int>& node_of);
// Where no group formed anywhere, the plan's calls are the library's:
// direct_counts. `me`: this rank.
CallCounts plan_counts(const Plan& plan, int me, const std::string& collective, std::uint64_t block,
                       const std::vector<int>& node_of);

// The bytes of each block a rank sends (allgatherv: its own block's).
using BlockOf = std::function<std::uint64_t(int rank)>;
CallCounts direct_counts(const Topology& t, const BlockOf& block_of, int me,
                         const std::vector<int>& node_of);
CallCounts plan_counts(const Plan& plan, int me, const std::string& collective,
                       const BlockOf& block_of, const std::vector<int>& node_of);

}  // namespace gc::nbr
