// Collaborative neighborhood collectives: the communication plan of
// Ghazimirsaeed, Mirsadeghi, Afsahi, "Collaborative communication for MPI
// neighborhood collectives". Groups of k ranks that share outgoing
// neighbours ("friend groups") combine their messages: each common neighbour
// gets one combined message from one member instead of one from each, at the
// price of an exchange among the friends (m/k + k - 1 messages a member
// instead of m). A plan is built once per topology (plan_builder.cpp: the paper's
// Algorithms 1-3) and serves every collective call on it (collectives.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <mpi.h>

namespace gc::nbr {

enum class Mode { agnostic, aware };  // aware: friends only on the same node

struct PlanOptions {
  int k = 0;      // group size; 0: auto (any size from 2 to 4, the best)
  int theta = 0;  // least common outgoing neighbours of a group; 0: k + 1
  Mode mode = Mode::agnostic;
  int ranks_per_node = 0;  // aware: emulate nodes of this many ranks; 0: real nodes
  int max_steps = 8;       // matching steps at most
  // Gathered: rank 0 gathers every rank's lists, runs every rank's side of
  // the same algorithm in lockstep and scatters each rank its plan (the
  // same plan; no `considered`). For simulations at thousands of ranks,
  // where the distributed build's matching rounds cost hours of wall time;
  // rank 0 then holds every rank's lists and plan.
  bool gathered = false;
};

// A topology: the neighbour lists of a distributed-graph communicator, in
// the order MPI gives them (duplicates kept: the j-th copy of an edge pairs
// with the j-th copy on the other side, MPI-4.1 section 8.6).
struct Topology {
  std::vector<int> sources;       // incoming neighbours
  std::vector<int> destinations;  // outgoing neighbours
};
// The lists of `comm`, which must have a distributed-graph topology.
Topology topology_of(MPI_Comm comm);

// This rank's role in one step in which it belongs to a friend group.
struct GroupRole {
  int step = 0;
  std::vector<int> members;  // sorted, this rank included
  // Per member (same order): the common neighbours it forwards to, as ranks,
  // sorted; assigned evenly by rank order.
  std::vector<std::vector<int>> assigned;
  // Per member: the positions in this rank's destinations of its assigned
  // ranks (the blocks this rank hands that member, in alltoall).
  std::vector<std::vector<int>> my_blocks_for;
  // Per own assigned neighbour: the position in this rank's destinations.
  std::vector<int> own_positions;
};

// One combined message this rank receives: from `via` in `step`, carrying
// the blocks of `sources` (positions in this rank's sources list), in the
// order of the senders' ranks.
struct CombinedIncoming {
  int step = 0;
  int via = 0;
  std::vector<int> positions;
};

// What the plan reports (this rank's figures; Figures::summed for all).
struct PlanFigures {
  std::uint64_t hyperedges = 0;         // friend groups this rank considered
  std::uint64_t groups = 0;             // groups this rank joined
  int steps = 0;                        // matching steps taken (same on every rank)
  int rounds = 0;                       // matching rounds this rank took, all steps
  std::uint64_t matching_messages = 0;  // this rank sent in the matchings
  std::uint64_t messages = 0;           // sent per collective call with the plan
  std::uint64_t default_messages = 0;   // sent by the plain schedule (outdegree)
  double build_seconds = 0;
};

struct Plan {
  Topology topology;
  std::vector<GroupRole> roles;               // by step
  std::vector<int> direct_destinations;       // positions sent to directly
  std::vector<int> direct_sources;            // positions received directly
  std::vector<CombinedIncoming> combined_in;  // by (step, via)
  PlanFigures figures;
  // Per step run (the last one formed no group anywhere): the friend groups
  // this rank considered, as sorted member lists (for tests of the matching;
  // empty in a gathered plan).
  std::vector<std::vector<std::vector<int>>> considered;
  bool combines() const { return !roles.empty() || !combined_in.empty(); }
  // Some group formed on some rank (the same on every rank): else every
  // call is the MPI library's own, which costs nothing extra.
  bool combines_anywhere = false;
  // Some rank's lists repeat a neighbour (the same on every rank). MPI-4.1
  // section 8.6 pairs the j-th copy of an edge with the j-th; MPICH 4.0's
  // neighbour collectives pair repeated self-loops in reverse, so on such
  // topologies Collectives checks the library before falling back to it.
  bool repeats_anywhere = false;
};

// Collective over `comm` (a distributed-graph communicator).
Plan build_plan(MPI_Comm comm, const PlanOptions& options);

// Every rank's plan for a topology of P = topologies.size() ranks
// (`topologies[r]`: rank r's lists), built in this process alone by the
// gathered build's lockstep: the plans P ranks would build, without them
// (graphcomm advise at a rank count larger than the one running). Aware
// mode: nodes of options.ranks_per_node consecutive ranks, which must be set.
std::vector<Plan> plans_of_every_rank(std::vector<Topology> topologies, const PlanOptions& options);

// Collective: per rank of `comm`, its node, named by its lowest rank: the
// shared-memory node MPI reports, or with `ranks_per_node` > 0 emulated
// nodes of that many consecutive ranks.
std::vector<int> node_of_every_rank(MPI_Comm comm, int ranks_per_node);
// Per rank of `ranks`, its node when nodes are `ranks_per_node` (> 0)
// consecutive ranks.
std::vector<int> consecutive_nodes(int ranks, int ranks_per_node);

Mode parse_mode(const std::string& name);

}  // namespace gc::nbr
