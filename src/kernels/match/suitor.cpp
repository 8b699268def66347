// Half-approximate weighted matching by the Suitor algorithm: Manne and
// Halappanavar, "New Effective Multithreaded Matching Algorithms", IPDPS 2014
// (Algorithm 1), distributed over the owner-computes exchange.
//
// Every vertex u proposes to its heaviest neighbour v (in the EdgeKey total
// order of edge_order.hpp) whose current suitor is lighter, and becomes v's
// suitor; the suitor it displaces proposes again. As in the paper, u only
// looks above the edge of its own suitor (if none is heavier and willing, u
// proposes to that suitor, which always takes it) and below the edge of its
// last proposal (a neighbour that refused u has a heavier suitor for good:
// suitor weights never decrease). At the end u and v are mates iff each is
// the other's suitor. With a total order this is the locally dominant
// matching, so the serial greedy one (the paper's Lemma 1 and Theorem 1), and
// identical to what locally_dominant.cpp computes.
//
// Distribution. The owner of v holds v's suitor. A proposal to a ghost is a
// message, PROPOSE(u -> v, w(u, v)), which u's rank assumes stands. v's owner
// accepts it or answers REJECT(v -> u); an accepted ghost suitor that a
// heavier proposal displaces later is told DISPLACED(v -> u). Either answer
// makes u propose again, below v, and carries v's suitor weight. Each rank
// keeps, per ghost, a lower bound of its suitor weight, raised by those
// answers and by its own proposals (once PROPOSE(u -> v, w) arrives, v's
// suitor weighs at least w for good), and proposes to a ghost only at or above
// it (at equal weight the owner decides): a lighter proposal would be refused,
// at the cost of two messages and a rescan. The paper's invariant (a vertex
// never proposes below its own suitor, and a suitor's edge is never lighter
// than its target's suitor's unless they are mutual) still holds at the end:
// a neighbour is skipped only when its suitor is, or will be once the messages
// in flight arrive, heavier. u proposes to v at most once, so per cut edge and
// direction a rank sends at most one PROPOSE and one answer: the matching
// neighbourhood's capacity (two messages per cut edge and direction) holds for
// the whole run. A message names both ends by 31-bit offsets in their owners'
// ranges: a rank may own at most 2^31 - 1 vertices.
//
// Termination. Over the models whose done() detects quiescence (rma, ncl,
// ncl-combined; Exchange::detects_quiescence), in slices: one phase, in which
// before every round a rank answers what the last round brought and proposes
// for one more time slice of round 0, settled once round 0 is over and nothing
// is left to answer. So neighbours answer the first proposals while this rank
// still proposes, and a rank with less of round 0 answers instead of waiting.
// Over the other models, where a settled rank pushes nothing more in the
// phase: supersteps. Each finishes the local work, then a global sum of what
// was pushed decides: zero means the matching is final; otherwise one exchange
// phase, settled from the start, keeps what arrives, and the ranks answer it
// (the answers, and the proposals of displaced vertices, are the next
// superstep's pushes). At one rank: a serial Suitor, with no exchange call.
//
// Speed at one rank: rows are never sorted (the scan reads a row's weights in
// order, a target's suitor only for a weight above the best so far); a
// vertex's suitor and its weight share a cache line, in memory advised to be
// huge pages; a scan compares first a byte per suitor (its weight's level),
// sixteen times as many to a cache line as suitors, and prefetches the suitor
// it chose, which it will write; the EdgeKey's pair hash is computed only on
// equal weights; a displaced suitor proposes again from a queue rather than
// at once, so that its suitor, proposal and row can be prefetched (the
// paper's threads likewise take displaced vertices in any order).
#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <utility>

#include <fmt/format.h>

#include "core/memory.hpp"
#include "graph/ghost_index.hpp"
#include "kernels/match/edge_order.hpp"
#include "kernels/match/match_run.hpp"

namespace gc::match {

namespace {

enum Kind : std::uint64_t { PROPOSE = 1, REJECT = 2, DISPLACED = 3 };
constexpr lid_t kNone = ~lid_t{0};
// A message: the kind, the sender's vertex and the receiver's vertex (each as
// an offset in its owner's range, 31 bits) in the first word, a weight in the
// second: PROPOSE carries the edge's, the answers the receiver's vertex's
// suitor weight after the decision.
constexpr int kKindShift = 62;
constexpr int kOffsetBits = 31;
constexpr std::uint64_t kOffsetMask = (std::uint64_t{1} << kOffsetBits) - 1;
constexpr weight_t kInfinity = std::numeric_limits<weight_t>::infinity();

// W: the edge weights' type as the graph stores them (double, or float with
// --weights-precision float); suitor weights and messages stay double (a
// float converts exactly).
template <class W>
class DistributedSuitor {
 public:
  DistributedSuitor(const DistGraph& g, Exchange& exchange)
      : g_(g),
        ex_(exchange),
        owned_(g.owned_count()),
        ghost_index_(g),
        offsets_(g.offsets().data()),
        targets_(g.targets().data()),
        weights_(g.template weight_column<W>().data()) {
    for (int rank : g.ghost_relation().ranks)
      neighbor_first_.push_back(g.distribution().begin(rank));
    // A ghost's entry is what its owner told: a lower bound of its suitor
    // weight (the suitor itself unknown).
    assign_huge(suitor_, owned_ + g.ghost_count(), Suitor{-kInfinity, kNone});
    assign_huge(proposal_, owned_, Proposal{kInfinity, kNone});
    if ((owned_ + g.ghost_count()) * sizeof(Suitor) > kLevelsAbove) {
      level_.assign(owned_ + g.ghost_count(), 0);
      choose_levels();
    }
    standing_.assign(owned_, 0);
  }

  // Round 0: every owned vertex proposes (its displaced suitors in turn).
  void propose_all() {
    constexpr lid_t kBatch = 4096;
    while (next_ < owned_) propose_up_to(std::min(owned_, next_ + kBatch));
  }

  // Part of round 0: the next owned vertices propose until `deadline` (the
  // clock read every kSliceCheck vertices).
  void propose_until(double deadline) {
    constexpr lid_t kSliceCheck = 64;
    while (next_ < owned_) {
      propose_up_to(std::min(owned_, next_ + kSliceCheck));
      if (MPI_Wtime() >= deadline) return;
    }
  }

  // No work of its own left: every owned vertex has proposed and what
  // arrived is answered.
  bool idle() const { return next_ == owned_ && inbox_.empty(); }

  // During a phase: keep what arrives, to answer once the phase (in slices:
  // the round) is over.
  void receive(int from_index, const Message& m) { inbox_.push_back({from_index, m}); }

  // Between phases (or rounds): answer what arrived; pushes what the next
  // superstep (or round) sends.
  void answer() {
    order_by_receiver();
    const std::size_t n = inbox_.size();
    for (std::size_t i = 0; i < n; ++i) {
      if (i + kAhead < n) prefetch(inbox_[i + kAhead], 0);
      if (i + kAhead / 2 < n) prefetch(inbox_[i + kAhead / 2], 1);
      const auto& [from_index, m] = inbox_[i];
      const lid_t ghost = ghost_index_.local(from_index, sender_of(from_index, m));
      const lid_t v = receiver_of(m);
      if (v >= owned_) fail(fmt::format("internal: suitor message for local vertex {}", v));
      const weight_t w = std::bit_cast<weight_t>(m.second);
      if (m.first >> kKindShift == PROPOSE)
        consider(v, ghost, w);
      else
        refused(v, ghost, w);
    }
    inbox_.clear();
    drain();
  }

  // A message's receiving vertex (a local id here), and its sender's global id.
  static lid_t receiver_of(const Message& m) { return m.first & kOffsetMask; }
  vid_t sender_of(int from_index, const Message& m) const {
    return neighbor_first_[static_cast<size_t>(from_index)] +
           (m.first >> kOffsetBits & kOffsetMask);
  }

  // Answering reads at random (the receiver's suitor and row, the sender's
  // ghost-index entry), so the messages kAhead ahead are prefetched in two
  // stages: at kAhead what the message names, at kAhead / 2 what that
  // points to (the receiver's row, read by the rescan after a REJECT or
  // DISPLACED; the ghost ids of the sender's bucket).
  static constexpr std::size_t kAhead = 32;
  void prefetch(const std::pair<int, Message>& entry, int stage) const {
    const Message& m = entry.second;
    const lid_t v = receiver_of(m);
    if (v >= owned_) return;
    ghost_index_.prefetch(entry.first, sender_of(entry.first, m), stage);
    if (stage == 0)
      prefetch_vertex(v);
    else if (m.first >> kKindShift != PROPOSE)
      prefetch_row(v);
  }

  // Counting sort of the inbox by receiving vertex, in blocks of 2^kBlockBits
  // vertices: answering in vertex order reads the rows, suitors and proposals
  // of neighbouring vertices together rather than at random (most answers
  // are REJECTs whose receiver rescans its row). Any order is right: what
  // arrives in one phase has no order.
  void order_by_receiver() {
    constexpr int kBlockBits = 6;
    if (inbox_.size() < 4096) return;
    const std::size_t blocks = (static_cast<std::size_t>(owned_) >> kBlockBits) + 1;
    count_.assign(blocks + 1, 0);
    for (const auto& entry : inbox_) ++count_[(receiver_of(entry.second) >> kBlockBits) + 1];
    for (std::size_t b = 1; b <= blocks; ++b) count_[b] += count_[b - 1];
    sorted_inbox_.resize(inbox_.size());
    for (const auto& entry : inbox_)
      sorted_inbox_[count_[receiver_of(entry.second) >> kBlockBits]++] = entry;
    inbox_.swap(sorted_inbox_);
  }

  // Messages pushed since the last call.
  std::uint64_t take_pushed() { return std::exchange(pushed_, 0); }

  // u and v are mates iff u's proposal to v stands and v is u's suitor.
  std::vector<vid_t> mates() const {
    std::vector<vid_t> out(owned_, kUnmatched);
    for (lid_t u = 0; u < owned_; ++u)
      if (standing_[u] && suitor_[u].vertex == proposal_[u].target)
        out[u] = g_.global_id(proposal_[u].target);
    return out;
  }

 private:
  // Equal weights: whether edge {a, x} precedes {b, x} in the EdgeKey order,
  // named by input ids (a reordered or partitioned graph keeps the input's
  // order on its edges, and its matching).
  bool tie_precedes(lid_t x, lid_t a, lid_t b, weight_t w) const {
    const vid_t ix = g_.input_id(x);
    return EdgeKey::of(ix, g_.input_id(b), w) < EdgeKey::of(ix, g_.input_id(a), w);
  }

  // Whether edge {u, x} of weight w beats x's current suitor.
  // For a ghost x, whether it may: below its known suitor weight it does not,
  // at that weight its owner decides.
  bool beats_suitor(lid_t x, lid_t u, weight_t w) const {
    const Suitor& s = suitor_[x];
    return w > s.weight ||
           (w == s.weight && (s.vertex == kNone || tie_precedes(x, u, s.vertex, w)));
  }

  // Owned vertices next_ .. end - 1 propose, then the suitors they displace.
  void propose_up_to(lid_t end) {
    for (; next_ < end; ++next_) propose(next_);
    drain();
  }

  // u's next proposal: the heaviest neighbour x with
  //   key(u, suitor(u)) < key(u, x) < key(u, last target)  and  x takes u,
  // else u's own suitor (which always takes u), else nobody. An owned suitor
  // it displaces waits in displaced_ to propose in turn (drain()).
  void propose(lid_t u) {
    lid_t best = suitor_[u].vertex;
    weight_t best_w = suitor_[u].weight;
    // A first proposal has no upper bound: a scan without that test.
    if (proposal_[u].target == kNone)
      scan<false>(u, best, best_w);
    else
      scan<true>(u, best, best_w);
    if (best == kNone) return;  // u proposes to nobody (for now)
    proposal_[u] = Proposal{best_w, best};
    standing_[u] = 1;
    if (best >= owned_) {
      push(best, u, PROPOSE, best_w);
      // Once this proposal arrives, best's suitor weighs at least best_w
      // for good: a lighter proposal from here would be refused.
      raise_bound(best, best_w);
      return;
    }
    if (const lid_t d = take(best, u, best_w); d != kNone) displaced_.push_back(d);
  }

  // The displaced suitors propose again, and those they displace in turn.
  // Any order gives the same matching (the paper's Theorem 1 holds for any
  // interleaving); taking them from a queue rather than following each chain
  // lets the suitor, offsets and row of the ones ahead be prefetched, where a
  // chain waits on one cache miss after another.
  void drain() {
    for (std::size_t i = 0; i < displaced_.size(); ++i) {
      if (i + kAhead < displaced_.size()) prefetch_vertex(displaced_[i + kAhead]);
      if (i + kAhead / 2 < displaced_.size()) prefetch_row(displaced_[i + kAhead / 2]);
      propose(displaced_[i]);
    }
    displaced_.clear();
  }

  void prefetch_vertex(lid_t u) const {
    __builtin_prefetch(&suitor_[u]);
    __builtin_prefetch(&proposal_[u]);
    __builtin_prefetch(offsets_ + u);
  }
  void prefetch_row(lid_t u) const {
    __builtin_prefetch(weights_ + offsets_[u]);
    __builtin_prefetch(targets_ + offsets_[u]);
  }

  // A suitor weight's level: 0 for none (-inf), else 1 to kLevels - 1: its
  // place among kLevels - 2 equal steps between two weights of the graph
  // (clamped at both ends).
  // Every operation here is monotone, so a lower level means a lower weight,
  // whatever the steps: the scan compares levels, and weights only on equal
  // levels, so the choice of the steps changes the speed, never the result.
  static constexpr int kLevels = 256;
  // Only where the suitors outgrow the caches: on smaller graphs the levels
  // cost more than they save (bench/README.md, "Design choices").
  static constexpr std::size_t kLevelsAbove = std::size_t{4} << 20;
  std::uint8_t level_of(weight_t w) const {
    if (w == -kInfinity) return 0;
    const weight_t t = (w - level_low_) * level_scale_;
    return static_cast<std::uint8_t>(1 + (t <= 0 ? 0 : t >= kLevels - 2 ? kLevels - 2 : t));
  }
  // The steps span the lightest to the heaviest of a sample of the weights
  // (at most 2^16 of them, so this costs no pass over the edges).
  void choose_levels() {
    const eid_t edges = offsets_[owned_];
    if (edges == 0) return;
    const eid_t step = std::max<eid_t>(1, edges >> 16);
    weight_t low = kInfinity, high = -kInfinity;
    for (eid_t e = 0; e < edges; e += step) {
      low = std::min<weight_t>(low, weights_[e]);
      high = std::max<weight_t>(high, weights_[e]);
    }
    const weight_t scale = (kLevels - 2) / (high - low);
    if (!(high > low) || !std::isfinite(scale)) return;  // one level: weights decide
    level_low_ = low;
    level_scale_ = scale;
  }

  // The scan of u's row for propose(), from (best, best_w) = u's suitor.
  // The row's weights are read in order; a target's suitor only for a weight
  // above the best so far.
  template <bool kBounded>
  void scan(lid_t u, lid_t& best, weight_t& best_w) const {
    const lid_t bound = proposal_[u].target;
    const weight_t bound_w = proposal_[u].weight;
    for (eid_t e = offsets_[u], end = offsets_[u + 1]; e < end; ++e) {
      const weight_t w = weights_[e];
      if (w < best_w || (kBounded && w > bound_w)) continue;
      const lid_t x = targets_[e];
      if (w == best_w && (best == kNone || !tie_precedes(u, x, best, w))) continue;
      if (kBounded && w == bound_w && !tie_precedes(u, bound, x, w)) continue;
      // The suitor's level first (a byte); the suitor itself only where
      // the levels cannot tell.
      if (level_.empty()) {
        if (!beats_suitor(x, u, w)) continue;  // (a ghost always seems free)
      } else {
        const std::uint8_t lw = level_of(w), ls = level_[x];
        if (lw < ls || (lw == ls && !beats_suitor(x, u, w))) continue;
      }
      best = x;
      best_w = w;
      // Taking x writes its suitor: the rest of the row hides the miss.
      __builtin_prefetch(&suitor_[x], 1);
    }
  }

  // v's new suitor is u: the one it displaces, if any, must propose again.
  // Returns that vertex if it is owned (the caller lets it propose), else
  // tells its owner and returns kNone.
  lid_t take(lid_t v, lid_t u, weight_t w) {
    const lid_t displaced = suitor_[v].vertex;
    suitor_[v] = Suitor{w, u};
    if (!level_.empty()) level_[v] = level_of(w);
    if (displaced == kNone) return kNone;
    if (displaced >= owned_) {
      push(displaced, v, DISPLACED, w);
      return kNone;
    }
    standing_[displaced] = 0;
    return displaced;
  }

  // PROPOSE(ghost -> v) over an edge of weight w: accept (displacing v's
  // suitor) or reject.
  void consider(lid_t v, lid_t ghost, weight_t w) {
    if (!beats_suitor(v, ghost, w)) {
      push(ghost, v, REJECT, suitor_[v].weight);
      return;
    }
    if (const lid_t d = take(v, ghost, w); d != kNone) displaced_.push_back(d);
  }

  // REJECT or DISPLACED(ghost -> u): u's proposal to ghost no longer stands;
  // ghost's suitor weight is now at least `suitor_weight`, for every vertex here.
  void refused(lid_t u, lid_t ghost, weight_t suitor_weight) {
    if (proposal_[u].target != ghost || !standing_[u])
      fail(fmt::format("internal: suitor answer from {} to {}, which does not propose to it",
                       g_.global_id(ghost), g_.global_id(u)));
    raise_bound(ghost, suitor_weight);
    standing_[u] = 0;
    propose(u);
  }

  // Ghost x's suitor weighs at least w, for good (suitor weights never decrease).
  void raise_bound(lid_t x, weight_t w) {
    Suitor& known = suitor_[x];
    known.weight = std::max(known.weight, w);
    if (!level_.empty()) level_[x] = level_of(known.weight);
  }

  void push(lid_t ghost, lid_t from, Kind kind, weight_t w) {
    const int index = owner_index(g_, ghost);
    const vid_t at = g_.global_id(ghost) - neighbor_first_[static_cast<size_t>(index)];
    ex_.push(index, Message{kind << kKindShift | std::uint64_t{from} << kOffsetBits | at,
                            std::bit_cast<std::uint64_t>(w)});
    ++pushed_;
  }

  const DistGraph& g_;
  Exchange& ex_;
  const lid_t owned_;
  const GhostIndex ghost_index_;
  std::vector<vid_t> neighbor_first_;  // per neighbour rank: its first vertex
  const eid_t* offsets_;
  const lid_t* targets_;
  const W* weights_;
  // A vertex's suitor and that edge's weight side by side: the scan reads the
  // weight of a candidate, and taking it the suitor, one cache miss for both.
  struct Suitor {
    weight_t weight;  // -inf: none
    lid_t vertex;
  };
  struct Proposal {
    weight_t weight;  // +inf: none yet
    lid_t target;
  };
  std::vector<Suitor> suitor_;          // per owned vertex and ghost (ghosts: none, for good)
  std::vector<Proposal> proposal_;      // per owned vertex: its last proposal
  std::vector<std::uint8_t> standing_;  //   and whether it stands
  std::vector<lid_t> displaced_;        // owned vertices displaced, to propose again
  std::vector<std::pair<int, Message>> inbox_, sorted_inbox_;
  std::vector<std::size_t> count_;
  // Per owned vertex and ghost: level_of(its suitor's weight), a byte, where
  // the suitors take 16 (a scan reads it for each candidate, at random);
  // empty where the suitors take at most kLevelsAbove bytes.
  std::vector<std::uint8_t> level_;
  weight_t level_low_ = 0, level_scale_ = 0;
  std::uint64_t pushed_ = 0;
  lid_t next_ = 0;  // round 0: the next owned vertex to propose
};

// One phase of rounds; before each round, answer what the last one brought
// and propose for `slice` seconds more of round 0.
template <class Kernel>
MatchResult in_slices(Kernel& kernel, MatchRun& run, double slice) {
  kernel.propose_until(MPI_Wtime() + slice);
  run.end_local_phase();  // round 0: the first slice
  const auto keep = [&](int from, const Message& m) { kernel.receive(from, m); };
  while (!run.run_round(keep, [&] { return kernel.idle(); })) {
    kernel.answer();
    kernel.propose_until(MPI_Wtime() + slice);
  }
  return run.finish(kernel.mates(), 1);
}

// Round 0 whole, then one phase per superstep until a global sum of what was
// pushed is zero.
template <class Kernel>
MatchResult in_supersteps(const Comm& comm, Kernel& kernel, MatchRun& run) {
  kernel.propose_all();
  run.end_local_phase();  // round 0: every owned vertex proposed
  std::uint64_t phases = 0;
  while (true) {
    const double t0 = MPI_Wtime();
    const std::uint64_t in_flight = sum_over_ranks(comm, kernel.take_pushed());
    run.add_comm(MPI_Wtime() - t0);
    if (in_flight == 0) break;
    ++phases;
    run.run_phase([&](int from, const Message& m) { kernel.receive(from, m); },
                  [] { return true; });
    kernel.answer();
  }
  return run.finish(kernel.mates(), phases);
}

template <class W>
MatchResult run_with(const Comm& comm, const DistGraph& g, MatchRun& run, double slice_seconds) {
  DistributedSuitor<W> kernel(g, run.exchange());
  if (comm.size() > 1 && run.exchange().detects_quiescence()) {
    // Round 0 in about 32 slices, from an estimate of its cost per edge, and
    // no slice so short that a round's own cost would dominate it (the
    // estimates: bench/README.md, "Design choices and their measurements").
    constexpr double kSecondsPerEdge = 5e-9, kShortestSlice = 0.5e-3;
    const double edges_per_rank = 2.0 * static_cast<double>(g.global_edge_count()) / comm.size();
    return in_slices(kernel, run,
                     slice_seconds >= 0
                         ? slice_seconds
                         : std::max(kShortestSlice, edges_per_rank * kSecondsPerEdge / 32));
  }
  return in_supersteps(comm, kernel, run);
}

}  // namespace

MatchResult run_suitor(const Comm& comm, const DistGraph& g, MatchRun& run, double slice_seconds) {
  // Every rank sees the same distribution, so all agree on this error.
  const Distribution& dist = g.distribution();
  for (int r = 0; r < dist.ranks(); ++r)
    if (dist.count(r) > kOffsetMask)
      fail_everywhere(fmt::format(
          "suitor: rank {} owns {} vertices, more than its messages can name (2^31 - 1); use more "
          "ranks or --algorithm ld",
          r, dist.count(r)));
  if (g.float_weights()) return run_with<float>(comm, g, run, slice_seconds);
  return run_with<weight_t>(comm, g, run, slice_seconds);
}

}  // namespace gc::match
