// Text output of a distributed graph, written collectively with MPI-IO (each
// rank formats its own rows and writes them at its byte offset).
#pragma once

#include <string>
#include <vector>

#include "core/mpi.hpp"
#include "graph/dist_graph.hpp"

namespace gc {

// Matrix Market "coordinate real symmetric": each undirected edge once, as
// (larger id, smaller id), 1-based.
void write_matrix_market(const Comm& comm, const DistGraph& g, const std::string& path);
// Edge list "u v weight", each undirected edge once (u < v), ids plus id_base.
void write_edge_list(const Comm& comm, const DistGraph& g, const std::string& path, int id_base);
// "u v" per pair (weights ignored), every rank's pairs gathered on rank 0 and
// sorted by u: small per-vertex outputs (mates, permutations) in one order at
// any rank count.
void write_id_pairs(const Comm& comm, const std::vector<Edge>& pairs, const std::string& path);

}  // namespace gc
