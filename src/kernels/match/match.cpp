// Half-approximate weighted matching: the locally dominant algorithm (Preis,
// STACS 1999; Manne & Bisseling, PPAM 2007) in the two phases of Ghosh,
// Halappanavar, Kalyanaraman, Khan, Gebremedhin, "Exploring MPI Communication
// Models for Graph Applications Using Graph Matching as a Case Study", IPDPS
// 2019 (Algorithms 3-6): FINDMATE for every owned vertex, then
// PROCESSINCOMINGDATA and PROCESSNEIGHBORS until no rank has anything to say.
//
// Every owned vertex v points at its candidate: the heaviest neighbour (in the
// EdgeKey total order) that is not matched to someone else. An edge whose
// ends point at each other is locally dominant and joins the matching. A ghost
// g is represented by what its owner told us:
//   REQUEST(g -> v): g's candidate is v. It stays recorded until g is matched
//     or v picks g, whichever comes first; it is never turned down while v
//     waits on a heavier candidate (the flaw of the paper's public code,
//     which rejects such requests, deactivates edges too early and returns
//     non-maximal matchings).
//   INVALID(g -> v): g is matched to someone other than v; the edge is dead.
// The paper's REJECT is the INVALID a matched vertex sends every other ghost
// neighbour, so it needs no message of its own. Per cut edge and direction a
// rank sends at most one REQUEST and one INVALID: buffers are sized once, at
// twice the cut edges to each neighbour.
#include "kernels/match/match.hpp"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include "comm/round_profile.hpp"
#include "kernels/match/edge_order.hpp"

namespace gc::match {

namespace {

enum Context : std::uint64_t { REQUEST = 1, INVALID = 2 };
constexpr int kContextShift = 62;
constexpr std::uint64_t kIdMask = (std::uint64_t{1} << kContextShift) - 1;
constexpr lid_t kNone = ~lid_t{0};
constexpr eid_t kScanDegree = 64;  // rows up to this degree are never sorted

class LocallyDominantMatching {
 public:
  LocallyDominantMatching(const DistGraph& g, Exchange& exchange)
      : g_(g), ex_(exchange), owned_(g.owned_count()) {
    sorted_.reset(new lid_t[g.local_edge_count()]);  // rows filled on demand
    row_sorted_.assign(owned_, 0);
    mate_.assign(owned_, kNone);
    cand_.assign(owned_, kNone);
    next_.assign(owned_, 0);
    ghost_dead_.assign(g.ghost_count(), 0);
    ghost_wants_.assign(g.ghost_count(), kNone);
    exhausted_.assign(owned_, 0);
    unsettled_ = owned_;
  }

  // Phase 1: FINDMATE for every owned vertex.
  void find_mates() {
    for (lid_t v = 0; v < owned_; ++v) {
      if (mate_[v] == kNone && cand_[v] == kNone && !exhausted_[v]) find_mate(v);
      drain();
    }
  }

  // PROCESSINCOMINGDATA: one message from a neighbour rank.
  void on_message(int from_index, const Message& m) {
    const auto& rel = g_.ghost_relation();
    const lid_t gl = ghost_local(rel, from_index, m.first);
    const lid_t v = (m.second & kIdMask) - g_.first_owned();
    const std::uint64_t context = m.second >> kContextShift;
    if (context == REQUEST) {
      ghost_wants_[gl - owned_] = v;
      if (mate_[v] == kNone && cand_[v] == gl) match(v, gl);
    } else {
      ghost_dead_[gl - owned_] = 1;
      if (mate_[v] == kNone && cand_[v] == gl) find_mate(v);
    }
    drain();
  }

  bool settled() const { return unsettled_ == 0; }

  std::vector<vid_t> mates() const {
    std::vector<vid_t> out(owned_, kUnmatched);
    for (lid_t v = 0; v < owned_; ++v)
      if (mate_[v] != kNone) out[v] = g_.global_id(mate_[v]);
    return out;
  }

 private:
  // Whether edge (v, a) of weight wa precedes (v, b) of weight wb in the
  // EdgeKey order, heaviest first. The weight decides almost always; the
  // pair's hash (computed only then) breaks ties. The pair is named by input
  // ids, so a reordered or partitioned graph has the same order on its edges,
  // and the same matching, as the input.
  bool precedes(vid_t iv, lid_t a, weight_t wa, lid_t b, weight_t wb) const {
    if (wa != wb) return wa > wb;
    return EdgeKey::of(iv, g_.input_id(b), wb) < EdgeKey::of(iv, g_.input_id(a), wa);
  }

  // FINDMATE is a linear scan for the heaviest available neighbour: most
  // vertices need one, and a low-degree vertex at most a few. A vertex of
  // degree above kScanDegree whose candidate is taken sorts its row once, in
  // decreasing EdgeKey order, and from then on resumes where the last search
  // stopped (candidates only move down the order), so a hub costs
  // O(d log d), never O(d) per FINDMATE call (O(d^2) in all).
  lid_t first_candidate(lid_t v) const {
    auto nbrs = g_.neighbors(v);
    auto ws = g_.weights(v);
    const vid_t iv = g_.input_id(v);
    lid_t best = kNone;
    weight_t best_w = 0;
    for (size_t j = 0; j < nbrs.size(); ++j) {
      if (ws[j] < best_w || !available(nbrs[j])) continue;
      if (best == kNone || precedes(iv, nbrs[j], ws[j], best, best_w)) {
        best = nbrs[j];
        best_w = ws[j];
      }
    }
    return best;
  }

  void sort_row(lid_t v) {
    auto nbrs = g_.neighbors(v);
    auto ws = g_.weights(v);
    const vid_t iv = g_.input_id(v);
    row_.clear();
    for (size_t j = 0; j < nbrs.size(); ++j) row_.emplace_back(ws[j], nbrs[j]);
    std::sort(row_.begin(), row_.end(), [&](const auto& a, const auto& b) {
      return precedes(iv, a.second, a.first, b.second, b.first);
    });
    lid_t* out = sorted_.get() + g_.offsets()[v];
    for (size_t j = 0; j < row_.size(); ++j) out[j] = row_[j].second;
    row_sorted_[v] = 1;
  }

  bool available(lid_t x) const {
    return x < owned_ ? mate_[x] == kNone : !ghost_dead_[x - owned_];
  }

  void settle() { --unsettled_; }

  // FINDMATE(v): point v at its heaviest available neighbour.
  void find_mate(lid_t v) {
    lid_t c = kNone;
    if (!row_sorted_[v] && (cand_[v] == kNone || g_.degree(v) <= kScanDegree)) {
      c = first_candidate(v);
    } else {
      if (!row_sorted_[v]) sort_row(v);
      const eid_t degree = g_.degree(v);
      const lid_t* row = sorted_.get() + g_.offsets()[v];
      while (next_[v] < degree && !available(row[next_[v]])) ++next_[v];
      if (next_[v] < degree) c = row[next_[v]];
    }
    if (c == kNone) {  // no candidate left: v stays unmatched
      cand_[v] = kNone;
      if (!exhausted_[v]) {
        exhausted_[v] = 1;
        settle();
      }
      return;
    }
    cand_[v] = c;
    if (c < owned_) {
      if (cand_[c] == v) match(v, c);
    } else {
      // Tell c's owner, even when c already asked for v: it matches on receipt.
      push(c, v, REQUEST);
      if (ghost_wants_[c - owned_] == v) match(v, c);
    }
  }

  // v (owned) and u (owned or ghost) are matched: PROCESSNEIGHBORS of both.
  void match(lid_t v, lid_t u) {
    mate_[v] = u;
    settle();
    invalidate_neighbors(v);
    if (u < owned_) {
      mate_[u] = v;
      settle();
      invalidate_neighbors(u);
    }
  }

  void invalidate_neighbors(lid_t w) {
    for (lid_t y : g_.neighbors(w)) {
      if (y == mate_[w]) continue;
      if (y < owned_) {
        if (mate_[y] == kNone && cand_[y] == w) worklist_.push_back(y);
      } else {
        push(y, w, INVALID);
      }
    }
  }

  void drain() {
    while (!worklist_.empty()) {
      const lid_t y = worklist_.back();
      worklist_.pop_back();
      if (mate_[y] == kNone) find_mate(y);
    }
  }

  void push(lid_t ghost, lid_t from, Context context) {
    const int owner = g_.ghost_owner(ghost);
    const int index = neighbor_index(owner);
    ex_.push(index, Message{g_.global_id(from),
                            g_.global_id(ghost) | (std::uint64_t{context} << kContextShift)});
  }

  int neighbor_index(int rank) {
    // Ghost relation ranks are sorted; neighbour counts are small.
    const auto& ranks = g_.ghost_relation().ranks;
    return static_cast<int>(std::lower_bound(ranks.begin(), ranks.end(), rank) - ranks.begin());
  }

  // Local id of ghost `global` sent by neighbour `index`: search only that
  // neighbour's (sorted) ghost range.
  lid_t ghost_local(const GhostRelation& rel, int index, vid_t global) const {
    const auto& ghosts = g_.ghosts();
    const size_t i = static_cast<size_t>(index);
    auto first = ghosts.begin() + static_cast<std::ptrdiff_t>(rel.ghost_begin[i] - owned_);
    auto last = ghosts.begin() + static_cast<std::ptrdiff_t>(rel.ghost_end[i] - owned_);
    auto it = std::lower_bound(first, last, global);
    if (it == last || *it != global)
      fail(fmt::format("internal: message about unknown ghost {}", global));
    return owned_ + static_cast<lid_t>(it - ghosts.begin());
  }

  const DistGraph& g_;
  Exchange& ex_;
  const lid_t owned_;
  std::unique_ptr<lid_t[]> sorted_;       // adjacency rows in decreasing edge order
  std::vector<std::uint8_t> row_sorted_;  // per owned vertex: its sorted_ row is filled
  std::vector<std::pair<weight_t, lid_t>> row_;
  std::vector<lid_t> mate_, cand_;        // per owned vertex
  std::vector<eid_t> next_;               // per owned vertex: position in sorted_ row
  std::vector<std::uint8_t> ghost_dead_;  // ghost matched elsewhere
  std::vector<lid_t> ghost_wants_;        // the owned vertex a ghost requested
  std::vector<std::uint8_t> exhausted_;   // no candidate left (settled unmatched)
  std::vector<lid_t> worklist_;
  lid_t unsettled_;
};

Neighborhood matching_neighborhood(const DistGraph& g) {
  const GhostRelation& rel = g.ghost_relation();
  Neighborhood nb;
  nb.ranks = rel.ranks;
  for (eid_t cut : rel.cut_edges) nb.capacity.push_back(2 * cut);
  return nb;
}

}  // namespace

MatchResult match(const Comm& comm, const DistGraph& g, const std::string& model) {
  MatchResult result;
  comm.barrier();
  const double setup_start = MPI_Wtime();
  std::unique_ptr<Exchange> ex = make_exchange(model, comm, matching_neighborhood(g));
  const double setup_local = MPI_Wtime() - setup_start;
  result.setup_seconds = max_over_ranks(comm, setup_local);

  comm.barrier();
  // Communication time is what the kernel spends inside evoke, done and the
  // MPI calls of push (nsr sends eagerly); the rest is compute.
  const double start = MPI_Wtime();
  RoundProfile profile;
  double in_comm = 0, push_mpi = 0;
  std::uint64_t messages = 0;
  auto record = [&](double comm_part, double wall) {
    const double push_now = ex->push_mpi_seconds();
    const std::uint64_t messages_now = ex->counters().messages();
    comm_part += push_now - push_mpi;
    profile.record(comm_part, wall - comm_part, messages_now - messages);
    in_comm += comm_part;
    push_mpi = push_now;
    messages = messages_now;
  };
  LocallyDominantMatching kernel(g, *ex);
  kernel.find_mates();
  record(0, MPI_Wtime() - start);  // round 0: FINDMATE of every owned vertex
  auto handle = [&](int from, const Message& m) { kernel.on_message(from, m); };
  while (true) {
    const double t0 = MPI_Wtime();
    ex->evoke();
    const double t1 = MPI_Wtime();
    ex->process(handle);
    const double t2 = MPI_Wtime();
    const bool done = ex->done(kernel.settled());
    const double t3 = MPI_Wtime();
    record((t1 - t0) + (t3 - t2), t3 - t0);
    if (done) break;
  }
  const std::uint64_t rounds = profile.rounds() - 1;
  const double local = MPI_Wtime() - start;
  comm.barrier();
  result.seconds = max_over_ranks(comm, local);
  result.comm_seconds = max_over_ranks(comm, in_comm);
  result.compute_seconds = max_over_ranks(comm, local - in_comm);
  result.profile = profile.summarize(comm);
  result.rounds = max_over_ranks(comm, rounds);
  result.mate = kernel.mates();
  result.counters = ex->counters();
  result.buffer_bytes = max_over_ranks(comm, ex->buffer_bytes());

  // Weight and cardinality: each matched edge counted by its smaller end.
  double weight = 0;
  std::uint64_t cardinality = 0;
  for (lid_t v = 0; v < g.owned_count(); ++v) {
    const vid_t u = result.mate[v];
    if (u == kUnmatched || u < g.global_id(v)) continue;
    auto nbrs = g.neighbors(v);
    auto ws = g.weights(v);
    for (size_t j = 0; j < nbrs.size(); ++j)
      if (g.global_id(nbrs[j]) == u) {
        weight += ws[j];
        ++cardinality;
        break;
      }
  }
  result.weight = sum_over_ranks(comm, weight);
  result.cardinality = sum_over_ranks(comm, cardinality);
  return result;
}

}  // namespace gc::match
