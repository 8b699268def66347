// Process topologies for the benchmark and the tests: Moore neighbourhoods on
// a periodic grid of ranks, Erdos-Renyi process graphs, and files of
// neighbour lists; each one an ordered list of directed edges, the same on
// every rank, from which each rank takes its lists in that order (so
// duplicate edges pair as MPI pairs them).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <mpi.h>

namespace gc::nbr {

using EdgeList = std::vector<std::pair<int, int>>;  // (from, to)

// (2r+1)^d - 1 neighbours of each rank on a periodic d-dimensional grid of
// ranks (MPI_Dims_create); grids smaller than the stencil wrap around, which
// gives duplicate edges and self-loops, as MPI allows.
EdgeList moore_topology(int ranks, int d, int r);
// Each ordered pair of distinct ranks is an edge with probability `density`,
// drawn from (seed, pair).
EdgeList random_topology(int ranks, double density, std::uint64_t seed);
// One rank's lists of these two topologies, as local_lists would take them
// from the whole edge list, computed from the rank alone: O(stencil) and
// O(ranks) work, where the whole list is O(ranks x neighbours) on every rank
// (at thousands of simulated ranks, all in one process, that is the run).
void moore_lists(int ranks, int d, int r, int rank, std::vector<int>& sources,
                 std::vector<int>& destinations);
void random_lists(int ranks, double density, std::uint64_t seed, int rank,
                  std::vector<int>& sources, std::vector<int>& destinations);
// "r: n1 n2 ..." lines: rank r's outgoing neighbours, 0-based, repeats
// allowed; '#' starts a comment. Ranks not listed have none. Collective:
// rank 0 reads, every rank gets the list; errors name the file and line.
EdgeList file_topology(MPI_Comm comm, const std::string& path);

// This rank's lists from `edges`, in edge order.
void local_lists(const EdgeList& edges, int rank, std::vector<int>& sources,
                 std::vector<int>& destinations);
// A distributed-graph communicator with these lists (collective; no reordering).
MPI_Comm make_dist_graph(MPI_Comm comm, const std::vector<int>& sources,
                         const std::vector<int>& destinations);

}  // namespace gc::nbr
