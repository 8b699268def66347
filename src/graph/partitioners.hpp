// The partitioners behind graph/order.hpp's partition_graph, each in its own
// file and present only when its library was found at configure time.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/mpi.hpp"
#include "graph/build.hpp"
#include "graph/dist_graph.hpp"

namespace gc {

// Empty when usable in this build, else why not.
std::string scotch_unavailable();
std::string metis_unavailable();

// PT-Scotch (SCOTCH_dgraphPart): distributed, on the graph as it lies.
std::vector<int> partition_scotch(const Comm& comm, const DistGraph& g, Balance balance,
                                  std::uint64_t seed);
// METIS (METIS_PartGraphKway): serial, on the graph gathered to rank 0.
std::vector<int> partition_metis(const Comm& comm, const DistGraph& g, Balance balance,
                                 std::uint64_t seed);

}  // namespace gc
