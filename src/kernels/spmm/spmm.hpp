// Sparse matrix times itself, C = A x A, with A distributed by row blocks
// (each rank's rows are its vertices' rows of the loaded graph's weighted
// adjacency), the SpMM kernel of Ghazimirsaeed, Mirsadeghi, Afsahi,
// "Collaborative communication for MPI neighborhood collectives": each
// iteration every rank gathers the rows of A its rows refer to, then
// multiplies. The gather is the communication choice: MPI_Allgatherv of
// every block (allgather), MPI_Neighbor_allgatherv over the topology of A's
// nonzeros (neighbor), or the same through an nbr/ plan (combined).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "graph/dist_graph.hpp"
#include "nbr/plan.hpp"

namespace gc::spmm {

enum class Method { allgather, neighbor, combined };
// The methods, one row each (spmm.cpp): --method's values and `graphcomm
// models` derive from it.
struct MethodInfo {
  Method method;
  const char* name;
  const char* summary;
};
const std::vector<MethodInfo>& method_table();
Method parse_method(const std::string& name);
const char* method_name(Method m);

// Rows in CSR with global column ids, each row sorted by column.
struct Rows {
  vid_t first = 0;  // global id of the first row
  std::vector<std::uint64_t> offsets{0};
  std::vector<std::uint64_t> columns;
  std::vector<double> values;
  std::uint64_t count() const { return offsets.size() - 1; }
};

// This rank's rows of A.
Rows rows_of(const DistGraph& g);
// A row of A: a pointer into some Rows and its index there.
struct RowRef {
  const Rows* rows;
  std::uint64_t index;
};

struct Result {
  Rows c;                       // this rank's rows of C (from the last iteration)
  double gather_seconds = 0;    // per iteration, max over ranks
  double multiply_seconds = 0;  // per iteration, max over ranks
  double setup_seconds = 0;     // topology, plan and a warm-up gather, max over ranks
  std::uint64_t messages = 0;   // sent per iteration, summed over ranks
};

Result run(const Comm& comm, const DistGraph& g, Method method, int iters,
           const nbr::PlanOptions& plan);

// Compares C with a serial product computed on rank 0 from the gathered A:
// "OK" or the first differing row (the same string on every rank).
std::string check(const Comm& comm, const DistGraph& g, const Rows& c);

}  // namespace gc::spmm
