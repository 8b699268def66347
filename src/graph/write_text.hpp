// Text output of a distributed graph, written collectively with MPI-IO (each
// rank formats its own rows and writes them at its byte offset).
#pragma once

#include <string>

#include "core/mpi.hpp"
#include "graph/dist_graph.hpp"

namespace gc {

// Matrix Market "coordinate real symmetric": each undirected edge once, as
// (larger id, smaller id), 1-based.
void write_matrix_market(const Comm& comm, const DistGraph& g, const std::string& path);
// Edge list "u v weight", each undirected edge once (u < v), ids plus id_base.
void write_edge_list(const Comm& comm, const DistGraph& g, const std::string& path, int id_base);

}  // namespace gc
