// A graph specification as given on the command line: a generator
// ("rmat:SCALE", "rgg:N", "er:N", "sbm:N", each with optional ",key=value"
// parameters) or a file path, optionally prefixed by its format
// ("mtx:", "el:", "tsv:", "mel:", "gcg:"); without a prefix the format is
// taken from the file name.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/mpi.hpp"
#include "graph/build.hpp"
#include "graph/dist_graph.hpp"
#include "graph/order.hpp"
#include "graph/read_text.hpp"

namespace gc {

struct LoadOptions {
  std::uint64_t seed = 1;
  Balance balance = Balance::vertices;
  // Relabel after loading (graph/order.hpp): the graph is then loaded on
  // equal blocks, ordered, and cut by `balance` (rcm) or by the parts.
  Ordering ordering = Ordering::none;
  WeightSource weights = WeightSource::file;
  // Kernels that read no weight load with none (graph/dist_graph.hpp).
  EdgeWeights edge_weights = EdgeWeights::kept;
  // Which copy of a repeated edge edge lists keep (graph/dist_graph.hpp).
  Duplicates duplicates = Duplicates::heaviest;
  // The kernel's own arrays beyond the graph, per directed edge and per
  // owned or ghost vertex, bytes: the check that refuses a graph too big for
  // the node up front counts them (graph/build.hpp load_footprint).
  double kernel_bytes_per_edge = 0, kernel_bytes_per_vertex = 0;
  // Generators and edge-list files: called on every rank with its share of
  // the input edge list (self-loops and duplicates still in), piece by piece
  // as the build takes it (graph/build.hpp EdgePieces: every rank calls it
  // equally often, so it may be collective); not timed as the build.
  std::function<void(std::span<const Edge>)> inspect_edges;
  // With an ordering: called on every rank with the graph as loaded, before
  // it is ordered (input ids, equal blocks).
  std::function<void(const DistGraph&)> inspect_unordered;
};

struct LoadedGraph {
  DistGraph graph;
  int id_base = 0;             // ids in the input's numbering = internal id + id_base
  nlohmann::json description;  // what was loaded, with which parameters
  double seconds = 0;          // generation/reading and distribution, max over ranks
  double build_seconds = 0;    // generators: building the CSR from the edge list (part of
                               // seconds; Graph500's kernel 1), max over ranks
  double order_seconds = 0;    // computing the ordering or partition (not in seconds), max
  double relabel_seconds = 0;  // relabeling the graph by it (not in seconds), max over ranks
  // The up-front estimate of the peak memory per rank (graph/build.hpp
  // load_footprint); 0 where none was made (binary formats).
  double estimated_peak_bytes = 0;
};

// Collective. Bad specifications and bad files raise an agreed gc::Error.
// With an ordering, the graph's ids are the new ones and input_id() maps back.
LoadedGraph load_graph(const Comm& comm, const std::string& spec, const LoadOptions& options);

// "--reorder rcm" / "--partition metis": how the user asked for an ordering.
std::string ordering_option(Ordering o);

// The specification's syntax, for --help texts.
const std::string& graph_spec_help();

}  // namespace gc
