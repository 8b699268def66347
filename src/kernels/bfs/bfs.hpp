// Breadth-first search, the Graph500 kernel 2, over an owner-computes
// exchange. See bfs.cpp for the algorithms and their references.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "comm/exchange.hpp"
#include "graph/dist_graph.hpp"

namespace gc::bfs {

inline constexpr vid_t kNoParent = ~vid_t{0};
inline constexpr std::int32_t kUnreached = -1;

enum class Algorithm {
  top_down,              // level-synchronous, frontier pushed to owners through the exchange
  replicated,            // bottom-up over a frontier bitmap replicated by MPI_Allgather
  direction_optimizing,  // top-down/bottom-up switching (Beamer et al., SC 2012)
};
// The algorithms, one row each (bfs.cpp): --algorithm's values, `--model
// all`'s configurations and `graphcomm models` derive from it.
struct AlgorithmInfo {
  Algorithm algorithm;
  const char* name;
  const char* summary;
  bool uses_exchange;  // its steps go through an exchange model
};
const std::vector<AlgorithmInfo>& algorithm_table();
Algorithm parse_algorithm(const std::string& name);
const char* algorithm_name(Algorithm a);

// Per level of one search: what the level did (max over ranks for times, sums
// for counts).
struct LevelFigures {
  std::int32_t level;
  bool bottom_up;
  std::uint64_t frontier;  // global number of vertices at this level
  double seconds;
  std::uint64_t messages, bytes;
};

struct SearchResult {
  vid_t root = 0;
  std::vector<vid_t> parent;         // per owned vertex: global id, kNoParent when unreached
  std::vector<std::int32_t> level;   // per owned vertex, kUnreached when unreached
  double seconds = 0;                // max over ranks, between barriers
  std::uint64_t messages = 0;        // sum over ranks
  std::uint64_t bytes = 0;           // sum over ranks
  std::uint64_t reached = 0;         // vertices in the tree (global)
  std::uint64_t shared = 0;          // frontier vertices scanned by a node peer (hybrid)
  std::vector<LevelFigures> levels;  // filled when profiling
};

// The BFS view of a distributed graph, built once per graph: the graph's own
// rows (local ids, each row by increasing global id, so the first parent
// found is the smallest, in every algorithm; no copy: 4 bytes per directed
// edge in all), each ghost's neighbour index, and the layout of the
// replicated frontier bitmap.
struct BfsGraph {
  explicit BfsGraph(const Comm& comm, const DistGraph& g);
  const DistGraph& g;
  lid_t owned;
  const std::vector<eid_t>& offsets;     // rows of owned vertices
  const std::vector<lid_t>& targets;     // local ids
  std::vector<std::uint32_t> ghost_nbr;  // per ghost: index in the ghost relation
  std::vector<std::uint32_t> ghost_ids;  // per ghost: its global id, half the graph's table
  // The graph's memory with this view's, bytes on this rank.
  std::uint64_t memory_bytes() const;
  // The frontier bitmap is indexed by global id. Each rank contributes the
  // words of its own range; ranges that start on a word boundary are gathered
  // in place, others through `segment_*` and shifted into place.
  bool aligned = true;
  std::vector<int> word_counts, word_displs;  // per rank, in the gathered array
  std::uint64_t gathered_words = 0, bitmap_words = 0;
};

// A BFS engine for one graph, one algorithm and one exchange model: the
// exchange (windows, topologies) is created once and serves every level of
// every search.
class Bfs {
 public:
  // Over the hybrid model, top-down ranks of a node share frontier work
  // (on); `off` measures the model without it; `first` (tests) takes node
  // peers' work before this rank's own, so sharing happens whatever the timing.
  enum class WorkSharing { on, off, first };
  // options set the exchange up (its buffers' bound, ExchangeOptions).
  Bfs(const Comm& comm, const BfsGraph& bg, Algorithm algorithm, const std::string& model,
      WorkSharing sharing = WorkSharing::on, const ExchangeOptions& options = {});
  ~Bfs();
  Bfs(const Bfs&) = delete;
  Bfs& operator=(const Bfs&) = delete;

  // Collective: one search from global vertex `root`.
  SearchResult search(vid_t root, bool profile);

  double setup_seconds() const { return setup_seconds_; }  // max over ranks
  std::uint64_t buffer_bytes() const;                      // exchange buffers, this rank
  const nbr::Plan* combined_plan() const;  // ncl-combined's plan, this rank's; else null
  std::uint64_t flow_waits() const;        // CommCounters::flow_waits so far, this rank
  std::string configuration() const;       // "top-down/nsr", "replicated"

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
  double setup_seconds_ = 0;
};

// The configurations `--model all` runs: every algorithm with every exchange
// model it uses (replicated uses none).
struct Configuration {
  Algorithm algorithm;
  std::string model;  // empty for replicated
  std::string name() const;
};
std::vector<Configuration> all_configurations();

// Graph500 validation (specification section "Validation") of a parent array,
// independent of the search: a tree rooted at `root`; every tree edge an edge
// of the graph; the levels of an edge's endpoints differ by at most one; every
// vertex of the root's component reached, no other. Collective; returns "OK"
// or the first problem found (the same string on every rank).
std::string check(const Comm& comm, const DistGraph& g, vid_t root,
                  const std::vector<vid_t>& parent);

}  // namespace gc::bfs
