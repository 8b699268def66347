// The Graph500 benchmark around its kernels (BFS, "Graph 500 Benchmark 1
// (Search)", specification 2.1/3.0; SSSP, kernel 3 of 3.0): search keys,
// traversed-edge counts, the parent tree's check, TEPS statistics and the
// output block that Graph500 tooling reads.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/mpi.hpp"
#include "graph/dist_graph.hpp"
#include "graph/types.hpp"

namespace gc::bfs {

// `count` distinct search keys among the vertices of degree >= 1, chosen
// pseudo-randomly from `seed` among the input ids (the same vertices at any
// rank count, also when the graph was reordered or partitioned), returned as
// graph ids; all of them when fewer exist. Collective.
std::vector<vid_t> choose_keys(const Comm& comm, const DistGraph& g, int count, std::uint64_t seed);

// Per owned vertex, how many endpoints of input tuples it is (a tuple (u, v)
// counts once at u and once at v; a self-loop twice at u). Half the sum over a
// search's reached vertices is the number of input tuples in the traversed
// component, the specification's nedge. Collective; `edges` is this rank's
// share of the input tuples.
std::vector<std::uint32_t> tuple_endpoint_counts(const Comm& comm, const Distribution& dist,
                                                 std::span<const Edge> edges);
// The same, piece by piece: adds a piece's counts to `counts` (sized at the
// first call). Collective, every rank with a piece (maybe empty).
void add_tuple_endpoint_counts(const Comm& comm, const Distribution& dist,
                               std::span<const Edge> edges, std::vector<std::uint32_t>& counts);

// The depth of every vertex in the tree a whole parent array (indexed by
// global id; ~0 for no parent) describes, rooted at `root`: kNotInTree for a
// vertex without parent; "" or the first problem (the root not its own
// parent, a parent out of range, a cycle, a chain that misses the root).
// Validation of kernels 2 and 3 (bfs::check, sssp::check).
inline constexpr std::int64_t kNotInTree = -2;
std::string tree_depths(const std::vector<vid_t>& parent, vid_t root,
                        std::vector<std::int64_t>& depth);

// The specification's summary statistics of a sample.
struct Statistics {
  double min = 0, firstquartile = 0, median = 0, thirdquartile = 0, max = 0, mean = 0, stddev = 0;
};
Statistics statistics(std::vector<double> x);

// Times, edge counts and validation times of the searches of one run.
struct Graph500Figures {
  int scale = 0;  // 0 when the graph is not a Kronecker graph
  int edgefactor = 0;
  int ranks = 1;
  double generation_seconds = 0, construction_seconds = 0;
  std::vector<double> seconds, nedge, validate_seconds;
};

// The output block: one `key: value` line per figure, with the names of the
// Graph500 reference code (SCALE, edgefactor, NBFS, ..., harmonic_mean_TEPS).
// `kernel` "sssp": the per-search figures (time, TEPS, validate) are named as
// the 3.0 reference names its SSSP ones ("sssp min_time: ...").
std::string output_block(const Graph500Figures& f, const std::string& kernel = "");
// The same figures as JSON (keys as in the block).
struct TepsSummary {
  double harmonic_mean = 0, harmonic_stddev = 0;
  Statistics teps, time, nedge, validate;
};
TepsSummary summarize(const Graph500Figures& f);

}  // namespace gc::bfs
