// The gathered build of a collaborative plan: one rank runs every rank's
// side of the algorithm (plan_builder.hpp) in lockstep, carrying in memory
// what the distributed build sends, and so makes the same plans. It serves
// simulations at thousands of ranks, where the distributed build's matching
// rounds cost hours of wall time (docs/simulation.md).
#pragma once

#include <vector>

#include <mpi.h>

#include "nbr/plan.hpp"

namespace gc::nbr::detail {

// Every rank's plan from every rank's lists (`topologies[r]`: rank r's);
// `node` as for PlanBuilder. Options checked already.
std::vector<Plan> build_every_plan(std::vector<Topology> topologies, const PlanOptions& options,
                                   const std::vector<int>& node);

// Collective: the lists gathered to rank 0, every plan built there, each
// rank's scattered back to it. `node` the same on every rank.
Plan build_gathered(MPI_Comm comm, Topology mine, const PlanOptions& options,
                    const std::vector<int>& node);

}  // namespace gc::nbr::detail
