// From edge lists scattered over ranks to a DistGraph: drop self-loops,
// symmetrize, move every directed copy to the owner of its source, merge
// duplicates (keeping the largest weight, or the smallest: Duplicates) and
// lay out CSR.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "core/mpi.hpp"
#include "graph/dist_graph.hpp"

namespace gc {

enum class Balance {
  vertices,  // equal vertex blocks
  edges,     // contiguous ranges with about equal (edges + vertices)
};

// How the builder holds edges: `automatic` packs them into 16-byte records
// where every id fits in 32 bits; `wide` always uses 24 (the two must build
// the same graph, which the tests check).
enum class BuildRecords { automatic, wide };

// A rank's share of the input in pieces: piece(i) for i in [0, count), with
// `count` the same on every rank (a piece may be empty). A piece's span is
// valid until the next call. The build exchanges one piece at a time, so it
// never holds a second copy of the whole input, and a generator that makes
// its edges piece by piece is never held whole (generated_pieces).
struct EdgePieces {
  std::uint64_t count = 0;
  std::function<std::span<const Edge>(std::uint64_t)> piece;
};
// Edges per piece: an exchange round moves at most this many.
inline constexpr std::uint64_t kPieceEdges = std::uint64_t{1} << 19;
// Edges per generated piece (generated_pieces): made, then read twice by the
// shuffle right away (counted, then packed), so kept small enough for its
// records to be still in a core's L2 cache when read (bench/README.md, "The
// load's pieces").
inline constexpr std::uint64_t kGeneratedPieceEdges = std::uint64_t{1} << 16;
// `edges` in pieces (their pages given back as the build goes); `edges` must
// outlive the pieces. Collective: the ranks agree on the count.
EdgePieces pieces_of(const Comm& comm, std::vector<Edge>& edges);
// Pieces made one at a time by generate(i), each freed when the next is made.
EdgePieces generated_pieces(std::uint64_t count,
                            std::function<std::vector<Edge>(std::uint64_t)> generate);

// `edges` is this rank's share of the input (any share is fine; together the
// ranks hold every edge at least once, in either direction). Ids must be < n.
// With EdgeWeights::none the edges' weights are dropped as they are read:
// neither the build nor the graph holds any.
DistGraph build_graph(const Comm& comm, vid_t n, std::vector<Edge> edges,
                      Balance balance = Balance::vertices,
                      BuildRecords records = BuildRecords::automatic,
                      EdgeWeights weights = EdgeWeights::kept,
                      Duplicates duplicates = Duplicates::heaviest);
DistGraph build_graph(const Comm& comm, vid_t n, const EdgePieces& input,
                      Balance balance = Balance::vertices,
                      BuildRecords records = BuildRecords::automatic,
                      EdgeWeights weights = EdgeWeights::kept,
                      Duplicates duplicates = Duplicates::heaviest);

// What loading a graph holds at its peak on one rank, estimated from the
// sizes the build allocates (graph/csr_builder.hpp's records, the CSR and the
// ghost table) for an equal share of `undirected_edges` input edges
// (self-loops and duplicates counted) and `vertices`, bytes per rank. The
// phases: the input (held whole, e.g. a file's, or a generator's piece), the
// shuffle (the records received, a piece in flight), the sort (one buffer of
// directed records, the one before it given back as it is read, plus what
// the release steps and the streams leave resident) and the graph with the
// kernel's own arrays (`kernel_per_edge` per directed edge, `kernel_per_vertex`
// per owned or ghost vertex).
struct LoadFootprint {
  double input = 0, shuffle = 0, sort = 0, graph = 0, kernel = 0;
  double peak() const;  // the largest phase, with the process's own memory
};
LoadFootprint load_footprint(double undirected_edges, double vertices, int ranks,
                             EdgeWeights weights, bool input_whole, double kernel_per_edge = 0,
                             double kernel_per_vertex = 0);

// The edge-balanced distribution, into `parts` ranges (0: one per rank), for
// a graph currently held with CSR `offsets` on a 1D distribution `current`.
// The ranges depend only on the graph, not on how many ranks hold it.
Distribution edge_balanced(const Comm& comm, const Distribution& current,
                           const std::vector<eid_t>& offsets, int parts = 0);
// g's ids cut into `parts` ranges as `balance` would cut them over that many
// ranks: equal blocks, or edge_balanced. Collective.
Distribution cut_into_parts(const Comm& comm, const DistGraph& g, Balance balance, int parts);

// Re-lays a graph out on another distribution (same global graph, same ids;
// input ids follow the vertices).
DistGraph redistribute(const Comm& comm, const DistGraph& g, const Distribution& target);

// Relabels a graph: owned vertex l becomes new_ids[l] (a permutation of the
// global ids, over all ranks), and the result is laid out on `target`, a
// distribution of the new ids. Weights follow their edges; input_id() of the
// result still names every vertex as the input did.
DistGraph relabel(const Comm& comm, const DistGraph& g, const std::vector<vid_t>& new_ids,
                  const Distribution& target);

// For every ghost of g (in local id order), the value its owner holds for it
// in `owned_values` (one per owned vertex). Collective.
std::vector<vid_t> ghost_values(const Comm& comm, const DistGraph& g,
                                const std::vector<vid_t>& owned_values);

}  // namespace gc
