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
//
// FINDMATE of every owned vertex runs in slices between rounds, each ending
// once some neighbour has a round's batch (ExchangeOptions::round_messages, or a
// queue chunk if more) queued, less what still waits from before: the queues
// then hold about a round's messages, where pushing the whole first phase
// before the first round queued most of its messages at once. The matching
// is the same in any order of work: the greedy matching of the EdgeKey order.
#include "kernels/match/match.hpp"

#include <algorithm>
#include <numeric>

#include "comm/chunk_fifo.hpp"
#include "graph/ghost_index.hpp"
#include "kernels/match/edge_order.hpp"
#include "kernels/match/match_run.hpp"

namespace gc::match {

namespace {

enum Context : std::uint64_t { REQUEST = 1, INVALID = 2 };
// A message names one edge: the sender's end (global id) in the first word,
// the receiver's end (global id) in the second, whose top two bits hold the
// context.
constexpr int kContextShift = 62;
Message edge_message(vid_t from, vid_t to, Context context) {
  return Message{from, to | (std::uint64_t{context} << kContextShift)};
}
std::uint64_t context_of(const Message& m) {
  return m.second >> kContextShift;
}
vid_t receiver_of(const Message& m) {
  return m.second & ((std::uint64_t{1} << kContextShift) - 1);
}
constexpr lid_t kNone = ~lid_t{0};
constexpr eid_t kScanDegree = 64;  // rows up to this degree are never sorted

// W: the edge weights' type as the graph stores them (double or float).
template <class W>
class LocallyDominantMatching {
 public:
  LocallyDominantMatching(const DistGraph& g, Exchange& exchange)
      : g_(g), ex_(exchange), owned_(g.owned_count()), ghost_index_(g) {
    sorted_.reset(new lid_t[g.local_edge_count()]);  // rows filled on demand
    row_sorted_.assign(owned_, 0);
    mate_.assign(owned_, kNone);
    cand_.assign(owned_, kNone);
    next_.assign(owned_, 0);
    ghost_dead_.assign(g.ghost_count(), 0);
    ghost_wants_.assign(g.ghost_count(), kNone);
    exhausted_.assign(owned_, 0);
    unsettled_ = owned_;
    slice_pushed_.assign(exchange.neighborhood().ranks.size(), 0);
  }

  // Phase 1: FINDMATE for the next owned vertices, until some neighbour has
  // a round's worth of messages queued (`slice_limit`, 0: no limit) or
  // every owned vertex had its turn.
  void find_mates(std::uint64_t slice_limit) {
    slice_limit_ = slice_limit;
    std::fill(slice_pushed_.begin(), slice_pushed_.end(), 0);
    slice_full_ = false;
    for (; next_owned_ < owned_ && !slice_full_; ++next_owned_) {
      const lid_t v = next_owned_;
      if (mate_[v] == kNone && cand_[v] == kNone && !exhausted_[v]) find_mate(v);
      drain();
    }
  }

  // PROCESSINCOMINGDATA: one message from a neighbour rank.
  void on_message(int from_index, const Message& m) {
    const lid_t gl = ghost_index_.local(from_index, m.first);
    const lid_t v = receiver_of(m) - g_.first_owned();
    if (context_of(m) == REQUEST) {
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
    auto ws = g_.template row_weights<W>(v);
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
    auto ws = g_.template row_weights<W>(v);
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
    const int to = owner_index(g_, ghost);
    ex_.push(to, edge_message(g_.global_id(from), g_.global_id(ghost), context));
    if (++slice_pushed_[static_cast<size_t>(to)] == slice_limit_) slice_full_ = true;
  }

  const DistGraph& g_;
  Exchange& ex_;
  const lid_t owned_;
  const GhostIndex ghost_index_;
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
  lid_t next_owned_ = 0;                     // phase 1: the next vertex to FINDMATE
  std::vector<std::uint64_t> slice_pushed_;  // per neighbour, since the slice began
  std::uint64_t slice_limit_ = 0;
  bool slice_full_ = false;
};

template <class W>
MatchResult run_with(const DistGraph& g, MatchRun& run) {
  LocallyDominantMatching<W> kernel(g, run.exchange());
  // Phase 1 in slices (settled() stays false until the last one), each
  // bounded by a round's batch to any neighbour less what the exchange still
  // queues (processing's answers add to it). A queue's memory comes in chunks
  // (comm/chunk_fifo.hpp): a slice shorter than one saves none, and only adds
  // rounds where the bound is tiny.
  const std::uint64_t bound = run.exchange().neighborhood().options.round_messages;
  const std::uint64_t slice =
      bound == 0 ? 0 : std::max<std::uint64_t>(bound, ChunkFifo<Message>::kChunk);
  kernel.find_mates(slice);
  run.end_local_phase();  // round 0: the first slice
  const auto handle = [&](int from, const Message& m) { kernel.on_message(from, m); };
  // (With no bound the first slice was the whole phase.)
  while (!run.run_round(handle, [&] { return kernel.settled(); }))
    if (const std::uint64_t queued = run.exchange().queued(); queued < slice)
      kernel.find_mates(slice - queued);
  return run.finish(kernel.mates(), 1);
}

}  // namespace

MatchResult run_locally_dominant(const DistGraph& g, MatchRun& run) {
  if (g.float_weights()) return run_with<float>(g, run);
  return run_with<weight_t>(g, run);
}

}  // namespace gc::match
