// The distributed graph: undirected, weighted, 1D-distributed by contiguous
// vertex ranges. A rank owns its vertices and all their incident edges (CSR
// over local ids) and sees the other endpoints as ghosts. Local ids number the
// owned vertices 0..owned_count()-1 (global id begin+i) and then the ghosts in
// increasing global id, hence grouped by owner rank.
//
// A graph may have been relabeled (reordered or partitioned, graph/order.hpp):
// its global ids are then not the input's, and input_id(l) maps every local
// vertex, owned or ghost, back to the id it had in the input. Outputs that name
// vertices, and orders that must not depend on the labeling (the matching's tie
// break), use input ids.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <type_traits>
#include <vector>

#include "core/mpi.hpp"
#include "core/page_advice.hpp"
#include "graph/distribution.hpp"
#include "graph/types.hpp"

namespace gc {

// Who shares ghosts with whom. The relation is symmetric (an edge cut between
// ranks p and q makes each a ghost holder of the other), so `ranks` is both
// the ranks whose vertices I hold as ghosts and the ranks holding mine.
struct GhostRelation {
  std::vector<int> ranks;          // sorted neighbour ranks in the process graph
  std::vector<lid_t> ghost_begin;  // ghosts of ranks[i] are local ids
  std::vector<lid_t> ghost_end;    //   [ghost_begin[i], ghost_end[i])
  std::vector<eid_t> cut_edges;    // my edges to vertices of ranks[i]
  int index_of(int rank) const;    // position of rank in `ranks`, or -1
  std::size_t degree() const { return ranks.size(); }
};

// Whether a graph keeps its edges' weights: kernels that read none (BFS, the
// collectives' topologies, statistics) load without, 8 bytes per edge saved;
// `as_float` keeps them rounded to float (4 bytes), where the user accepts it
// (match --weights-precision float).
enum class EdgeWeights { kept, as_float, none };

// Which copy of a repeated edge the graph keeps: matching wants the heaviest
// (the default), a shortest path the lightest (sssp).
enum class Duplicates { heaviest, lightest };

// Collective: fails on every rank when a rank's local vertices (owned and
// ghosts) are more than lid_t numbers (`limit`; tests pass a small one).
void check_local_ids(const Comm& comm, std::uint64_t local_vertices,
                     std::uint64_t limit = kMaxLocalVertices);

class DistGraph {
 public:
  DistGraph() = default;
  // Takes ownership of a CSR over owned vertices whose targets are global ids;
  // builds the ghost table, local targets and the ghost relation.
  DistGraph(const Comm& comm, Distribution dist, std::vector<eid_t> offsets,
            std::vector<vid_t> global_targets, std::vector<weight_t> weights);
  // Takes ownership of a CSR already in local ids, with its ghost table (sorted
  // distinct global ids, none owned here), as graph/build.cpp lays it out; the
  // parts are checked for consistency.
  // `weights` is empty when not `weighted`.
  static DistGraph from_local_csr(const Comm& comm, Distribution dist, std::vector<eid_t> offsets,
                                  std::vector<lid_t> targets, bool weighted,
                                  std::vector<weight_t> weights, std::vector<vid_t> ghosts);

  // Global figures.
  vid_t global_vertex_count() const { return dist_.global_count(); }
  eid_t global_edge_count() const { return global_edges_; }  // undirected, no self-loops
  const Distribution& distribution() const { return dist_; }
  int rank() const { return rank_; }
  int owner_of(vid_t v) const { return dist_.owner_of(v); }

  // Local figures.
  vid_t first_owned() const { return dist_.begin(rank_); }
  lid_t owned_count() const { return dist_.count(rank_); }
  lid_t ghost_count() const { return ghosts_.size(); }
  eid_t local_edge_count() const { return targets_.size(); }  // directed entries
  bool is_owned(vid_t v) const { return v - first_owned() < owned_count(); }
  bool is_ghost_local(lid_t l) const { return l >= owned_count(); }

  vid_t global_id(lid_t l) const {
    return l < owned_count() ? first_owned() + l : ghosts_[l - owned_count()];
  }
  // Local id of an owned vertex or ghost; kNoLocal if neither.
  lid_t local_id(vid_t v) const;
  int ghost_owner(lid_t l) const { return ghost_owner_[l - owned_count()]; }

  // The input's id of local vertex l (its global id unless relabeled).
  vid_t input_id(lid_t l) const { return relabeled_ ? input_ids_[l] : global_id(l); }
  // The same on every rank.
  bool relabeled() const { return relabeled_; }
  // Sets the input ids of every local vertex (owned, then ghosts): graph/build.cpp
  // does, on every rank, when it relabels.
  void set_input_ids(std::vector<vid_t> ids);

  // CSR of owned vertex l (local targets and weights). Every row is sorted
  // by the targets' global ids (so by local id within the owned and within
  // the ghosts). weights(l) is empty when the graph is not weighted().
  eid_t degree(lid_t l) const { return offsets_[l + 1] - offsets_[l]; }
  std::span<const lid_t> neighbors(lid_t l) const {
    return {targets_.data() + offsets_[l], targets_.data() + offsets_[l + 1]};
  }
  // The row's weights in double; empty unless weighted() in double (a graph
  // with float weights: row_weights<float>, or weight_at).
  std::span<const weight_t> weights(lid_t l) const { return row_weights<weight_t>(l); }
  bool weighted() const { return weighted_; }
  bool float_weights() const { return float_; }
  // W is weight_t or float, as stored (float_weights()); empty otherwise.
  template <class W>
  std::span<const W> row_weights(lid_t l) const {
    const std::vector<W>& all = weight_column<W>();
    if (all.empty()) return {};
    return {all.data() + offsets_[l], all.data() + offsets_[l + 1]};
  }
  template <class W>
  const std::vector<W>& weight_column() const {
    if constexpr (std::is_same_v<W, float>)
      return float_weights_;
    else
      return weights_;
  }
  // Edge e's weight (an index into targets()) as double, whichever the
  // precision stored (a float converts exactly). 0 when not weighted.
  double weight_at(eid_t e) const {
    return float_ ? float_weights_[e] : weighted_ ? weights_[e] : 0.0;
  }
  // Rounds the weights to float and keeps those (graph/build.cpp, for
  // EdgeWeights::as_float): half the weights' memory.
  void round_weights_to_float();
  // Fails (internal error) unless weighted(): kernels that read weights call it.
  void require_weights(const char* kernel) const;
  void drop_weights() {
    weighted_ = float_ = false;
    release(weights_);
    release(float_weights_);
  }
  const std::vector<eid_t>& offsets() const { return offsets_; }
  const std::vector<lid_t>& targets() const { return targets_; }
  const std::vector<weight_t>& edge_weights() const { return weights_; }
  const std::vector<vid_t>& ghosts() const { return ghosts_; }
  const GhostRelation& ghost_relation() const { return relation_; }
  // What this rank's graph holds, in bytes (every array's size; capacity
  // reserved beyond it is never touched, so never resident).
  std::uint64_t memory_bytes() const;
  std::uint64_t csr_bytes() const;  // offsets, targets and weights alone

 private:
  // Ghost owners, the ghost relation and the global edge count, from the
  // local CSR and ghost table.
  void finish(const Comm& comm);
  // Sorts each row by global target (weights follow): the constructor from
  // global targets does, as the files it reads promise no order.
  void sort_rows(std::vector<vid_t>& global_targets);

  Distribution dist_;
  int rank_ = 0;
  eid_t global_edges_ = 0;
  std::vector<eid_t> offsets_{0};
  std::vector<lid_t> targets_;
  std::vector<weight_t> weights_;
  std::vector<float> float_weights_;  // instead of weights_ when float_
  std::vector<vid_t> ghosts_;         // sorted global ids
  std::vector<int> ghost_owner_;
  std::vector<vid_t> input_ids_;  // per local id, when relabeled
  bool relabeled_ = false;
  bool weighted_ = true;
  bool float_ = false;
  GhostRelation relation_;
};

}  // namespace gc
