// Binary graph files.
//
// mel: the binary CSR of the matching paper's public code (Exa-Graph/mel):
//   int64 nv, int64 ne (edges counted in both directions), int64 offsets[nv+1],
//   then ne records {int64 target, double weight}. Reading it goes through the
//   builder, so a file that is not clean (self-loops, one direction only) still
//   gives a proper undirected graph; a clean file comes back unchanged.
//
// gcg: graphcomm's own CSR, loaded with one collective MPI-IO read of each
//   rank's slice:
//   char magic[8] = "GCOMMCSR", uint64 version = 1, uint64 nv, uint64 ne
//   (directed), uint64 id_base, uint64 reserved[3]   (64-byte header)
//   uint64 offsets[nv+1], uint64 targets[ne], double weights[ne].
// All integers little-endian (the machines we run on).
#pragma once

#include <string>

#include "core/mpi.hpp"
#include "graph/dist_graph.hpp"

namespace gc {

struct BinaryGraph {
  DistGraph graph;
  int id_base = 0;
};

BinaryGraph read_mel(const Comm& comm, const std::string& path);
BinaryGraph read_gcg(const Comm& comm, const std::string& path);

// Collective writes; the file appears (by rename) only when complete.
void write_mel(const Comm& comm, const DistGraph& g, const std::string& path);
void write_gcg(const Comm& comm, const DistGraph& g, const std::string& path, int id_base);

}  // namespace gc
