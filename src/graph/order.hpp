// Reordering and partitioning of a distributed graph (the matching study's
// section V-C, Tables V-VI of Ghosh et al., IPDPS 2019): a permutation of the
// vertex ids that makes a reverse Cuthill-McKee order, or each part of a
// partition, contiguous; the graph is then relabeled and cut into 1D ranges
// again (graph/build.hpp's relabel), and input_id() still names every vertex
// as the input did.
//   rcm     distributed reverse Cuthill-McKee (order_rcm.cpp), ranges of the
//           RCM order: equal blocks or edge-balanced (--distribution);
//   scotch  PT-Scotch's distributed k-way partition, part p on rank p;
//   metis   METIS k-way on the graph gathered to rank 0, part p on rank p.
// Partitions balance vertices, or degree+1 per vertex with Balance::edges.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/mpi.hpp"
#include "graph/build.hpp"
#include "graph/dist_graph.hpp"

namespace gc {

enum class Ordering { none, rcm, scotch, metis };

const char* ordering_name(Ordering o);
// "none", "rcm", "scotch", "metis"; anything else fails (agreed).
Ordering parse_ordering(const std::string& name);
// Empty when the method can run in this build, else why not (one line).
std::string ordering_unavailable(Ordering o);

// The reverse Cuthill-McKee order of g: the new id of every owned vertex.
// Deterministic for a given graph: independent of the rank count and of how g
// is distributed. Collective.
std::vector<vid_t> rcm_order(const Comm& comm, const DistGraph& g);

// A k-way partition of g into comm.size() parts: the part of every owned
// vertex. Collective; a partitioner failure raises an agreed gc::Error.
std::vector<int> partition_graph(const Comm& comm, const DistGraph& g, Ordering method,
                                 Balance balance, std::uint64_t seed);

// New ids and ranges for a relabeling.
struct Relabeling {
  std::vector<vid_t> new_ids;  // per owned vertex of the graph it was computed on
  Distribution target;         // over the new ids
};
// Part p becomes rank p's range; within a part vertices keep their relative order.
Relabeling ranges_of_parts(const Comm& comm, const std::vector<int>& part);
// An order (new id per owned vertex) cut into equal blocks or edge-balanced ranges.
Relabeling ranges_of_order(const Comm& comm, const DistGraph& g, std::vector<vid_t> new_ids,
                           Balance balance);

// Collective, every rank passing the same list: the graph ids of the given
// input ids (kNoVertex for ids that are not vertices), and the reverse.
inline constexpr vid_t kNoVertex = ~vid_t{0};
std::vector<vid_t> graph_ids_of(const Comm& comm, const DistGraph& g,
                                const std::vector<vid_t>& input_ids);
std::vector<vid_t> input_ids_of(const Comm& comm, const DistGraph& g,
                                const std::vector<vid_t>& graph_ids);

struct OrderedGraph {
  DistGraph graph;
  double order_seconds = 0;    // computing the order or partition, max over ranks
  double relabel_seconds = 0;  // relabeling and redistributing, max over ranks
};
// Collective: orders g (input ids, any 1D distribution) and relabels it.
OrderedGraph order_graph(const Comm& comm, const DistGraph& g, Ordering ordering, Balance balance,
                         std::uint64_t seed);

}  // namespace gc
