// Single-source shortest paths on a 1D-distributed graph with non-negative
// weights: the Graph500 kernel 3 (specification 3.0), with two algorithms.
//
// - delta-stepping (U. Meyer, P. Sanders, "Delta-stepping: a parallelizable
//   shortest path algorithm", J. Algorithms 49(1), 2003): tentative distances
//   in buckets of width delta; the lowest non-empty bucket (over all ranks)
//   is emptied in light rounds, each relaxing the light edges (w < delta) of
//   the vertices that entered it, until no rank has any left; then its
//   vertices relax their heavy edges once (a copy of the light edges, made
//   at setup, spares the light rounds a scan of whole rows). Within a round
//   a rank empties its own part of the bucket before it communicates (bucket
//   fusion: Z. Zhang et al., "Optimizing ordered graph algorithms with
//   GraphIt", CGO 2020, as in the GAP Benchmark Suite's sssp), so local
//   chains cost no round.
// - bellman-ford: synchronous rounds; each vertex improved in the last round
//   relaxes all its edges (delta-stepping with one bucket and no fusion).
//
// A relaxation of a ghost goes to its owner through the owner-computes
// exchange as (target, parent, distance); a rank keeps, per ghost, the best
// distance it has sent in this search and pushes at the end of a round only
// those it improved, so one message per ghost and round at most. Distances
// are doubles, each the parent's plus the edge's weight rounded once: the
// fixed point every order of relaxation reaches, so the distances do not
// depend on the algorithm, the model, the rank count or the arrival order
// (the parents may, between paths of equal length).
#include "kernels/sssp/sssp.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>

#include <fmt/format.h>

#include "comm/models.hpp"
#include "core/error.hpp"
#include "core/output.hpp"
#include "core/registry.hpp"
#include "kernels/ghost_neighborhood.hpp"
#include "kernels/sssp/buckets.hpp"

namespace gc::sssp {

const std::vector<AlgorithmInfo>& algorithm_table() {
  static const std::vector<AlgorithmInfo> table = {
      {Algorithm::delta_stepping, "delta-stepping",
       "buckets of width delta, light edges in rounds, heavy edges once (Meyer and Sanders)"},
      {Algorithm::bellman_ford, "bellman-ford",
       "synchronous rounds: every improved vertex relaxes all its edges"},
  };
  return table;
}

Algorithm parse_algorithm(const std::string& name) {
  return key_named(algorithm_table(), &AlgorithmInfo::algorithm, name, "SSSP algorithm");
}

const char* algorithm_name(Algorithm a) {
  return name_of_key(algorithm_table(), &AlgorithmInfo::algorithm, a);
}

class Sssp::Impl {
 public:
  Impl(const Comm& comm, const DistGraph& g, Algorithm algorithm, const std::string& model,
       double delta, const ExchangeOptions& options)
      : comm_(comm),
        g_(g),
        algorithm_(algorithm),
        model_(model),
        owned_(g.owned_count()),
        delta_(algorithm == Algorithm::bellman_ford ? kUnreached : delta),
        fusion_(algorithm == Algorithm::delta_stepping) {
    g.require_weights("sssp");
    if (!(delta > 0)) fail_everywhere(fmt::format("--delta {}: must be positive", delta));
    exchange_ = make_exchange(model, comm, ghost_neighborhood(g, options));
    dist_.resize(owned_);
    parent_.resize(owned_);
    relaxed_.resize(owned_);
    in_settled_.resize(owned_);
    sent_.resize(g.ghost_count());
    sent_parent_local_.resize(g.ghost_count());
    pending_flag_.resize(g.ghost_count());
    const GhostRelation& rel = g.ghost_relation();
    ghost_nbr_.resize(g.ghost_count());
    for (size_t i = 0; i < rel.ranks.size(); ++i)
      for (lid_t t = rel.ghost_begin[i]; t < rel.ghost_end[i]; ++t)
        ghost_nbr_[t - owned_] = static_cast<std::uint32_t>(i);
    if (g.float_weights())
      split_light_edges<float>();
    else
      split_light_edges<weight_t>();
  }

  std::uint64_t buffer_bytes() const { return exchange_->buffer_bytes(); }
  const nbr::Plan* combined_plan() const { return exchange_->combined_plan(); }
  bool float_weights() const { return g_.float_weights(); }
  std::string configuration() const {
    return fmt::format("{}/{}", algorithm_name(algorithm_), model_);
  }

  template <class W>
  SearchResult search(vid_t root, bool profile) {
    SearchResult result;
    result.root = root;
    std::fill(dist_.begin(), dist_.end(), kUnreached);
    std::fill(parent_.begin(), parent_.end(), kNoParent);
    std::fill(relaxed_.begin(), relaxed_.end(), kUnreached);
    std::fill(sent_.begin(), sent_.end(), kUnreached);
    buckets_.clear();
    relaxations_ = phases_ = 0;
    const std::uint64_t messages_before = exchange_->counters().messages();
    const std::uint64_t bytes_before = exchange_->counters().bytes();

    PhaseTimer timer(comm_);
    if (g_.is_owned(root)) {
      const lid_t r = static_cast<lid_t>(root - g_.first_owned());
      dist_[r] = 0;
      parent_[r] = root;
      add_to_bucket(r, 0);
    }
    std::uint64_t buckets = 0;
    std::uint64_t from = 0;  // buckets below are empty everywhere
    while (true) {
      const std::uint64_t b = min_over_ranks(comm_, lowest_bucket(from));
      if (b == Buckets::kNone) break;
      ++buckets;
      const double t0 = MPI_Wtime();
      const std::uint64_t r0 = relaxations_, m0 = exchange_->counters().messages();
      const std::uint64_t b0 = exchange_->counters().bytes();
      std::uint64_t rounds = 0, settled = 0;
      settled_.clear();
      do {  // light rounds until the bucket is empty on every rank
        settled += empty_bucket<W>(b);
        exchange_phase();
        ++rounds;
      } while (max_over_ranks(comm_, static_cast<int>(has_live(b))) != 0);
      if (heavy_) {  // heavy edges, once per vertex of the bucket
        for (lid_t v : settled_) relax_edges<W>(v, false);
        exchange_phase();
      }
      for (lid_t v : settled_) in_settled_[v] = 0;
      // Not b + 1: a heavy edge can land in bucket b again, when the
      // distance rounds down to its bound or b is the last bucket, which
      // holds every distance past 1e18 deltas.
      from = b;
      if (profile)
        profile_.push_back({b, rounds, settled, relaxations_ - r0, MPI_Wtime() - t0,
                            exchange_->counters().messages() - m0,
                            exchange_->counters().bytes() - b0});
    }
    result.seconds = timer.stop();

    std::array<std::uint64_t, 4> counts = {exchange_->counters().messages() - messages_before,
                                           exchange_->counters().bytes() - bytes_before,
                                           relaxations_, 0};
    for (lid_t v = 0; v < owned_; ++v) counts[3] += dist_[v] != kUnreached;
    const auto sums = allreduce_each(comm_, counts, MPI_SUM);
    result.messages = sums[0];
    result.bytes = sums[1];
    result.relaxations = sums[2];
    result.reached = sums[3];
    result.phases = phases_;
    result.buckets = buckets;
    if (profile) result.profile = summarize_profile();
    result.dist = dist_;
    result.parent = parent_;
    return result;
  }

 private:
  std::uint64_t bucket_of(double d) const {
    if (std::isinf(delta_)) return 0;
    const double b = std::floor(d / delta_);
    return b >= 1e18 ? Buckets::kNone - 1 : static_cast<std::uint64_t>(b);
  }

  void add_to_bucket(lid_t v, std::uint64_t b) { buckets_.add(b, v); }

  // An entry of bucket b is live while v is there with a distance whose
  // light edges it has not relaxed yet (later improvements add new entries).
  bool live(lid_t v, std::uint64_t b) const {
    return dist_[v] < relaxed_[v] && bucket_of(dist_[v]) == b;
  }

  // Bucket b has a live entry here (its dead ones dropped).
  bool has_live(std::uint64_t b) { return drop_dead(b, buckets_.at(b)); }

  bool drop_dead(std::uint64_t b, std::vector<lid_t>& entries) const {
    std::erase_if(entries, [&](lid_t v) { return !live(v, b); });
    return !entries.empty();
  }

  // The lowest bucket from `from` on with a live entry here, or
  // Buckets::kNone.
  std::uint64_t lowest_bucket(std::uint64_t from) {
    return buckets_.lowest(
        from, [&](std::uint64_t b, std::vector<lid_t>& entries) { return drop_dead(b, entries); });
  }

  // One light round's local part: the bucket's live vertices relax their
  // light edges; with fusion, until no local vertex is left in it.
  template <class W>
  std::uint64_t empty_bucket(std::uint64_t b) {
    std::uint64_t settled = 0;
    do {
      work_.clear();
      work_.swap(buckets_.at(b));
      for (lid_t v : work_) {
        if (!live(v, b)) continue;
        relaxed_[v] = dist_[v];
        ++settled;
        if (!in_settled_[v]) {
          in_settled_[v] = 1;
          settled_.push_back(v);
        }
        relax_edges<W>(v, true);
      }
    } while (fusion_ && !buckets_.at(b).empty());
    return settled;
  }

  // The light edges (w < delta) apart, when some edge is heavy: a light
  // round then reads only them, not every edge of its vertices. With every
  // edge light (Bellman-Ford too) the graph's rows serve.
  template <class W>
  void split_light_edges() {
    const std::vector<W>& weights = g_.weight_column<W>();
    const bool heavy =
        std::any_of(weights.begin(), weights.end(), [&](W w) { return !(w < delta_); });
    heavy_ = max_over_ranks(comm_, static_cast<int>(heavy)) != 0;
    if (!heavy_) return;
    const std::vector<eid_t>& offsets = g_.offsets();
    light_offsets_.assign(owned_ + 1, 0);
    for (lid_t v = 0; v < owned_; ++v) {
      for (eid_t e = offsets[v]; e < offsets[v + 1]; ++e)
        if (weights[e] < delta_) {
          light_targets_.push_back(g_.targets()[e]);
          light_weights_.push_back(weights[e]);
        }
      light_offsets_[v + 1] = light_targets_.size();
    }
  }

  // Relaxes v's light (w < delta) or heavy edges.
  template <class W>
  void relax_edges(lid_t v, bool light) {
    const double d = dist_[v];
    const vid_t parent = g_.first_owned() + v;
    if (light && heavy_) {
      const eid_t stop = light_offsets_[v + 1];
      for (eid_t e = light_offsets_[v]; e < stop; ++e) {
        if (e + kRelaxAhead < stop) prefetch_target(light_targets_[e + kRelaxAhead]);
        relax(v, parent, light_targets_[e], d + light_weights_[e]);
      }
      return;
    }
    const lid_t* targets = g_.targets().data();
    const W* weights = g_.weight_column<W>().data();
    const eid_t stop = g_.offsets()[v + 1];
    for (eid_t e = g_.offsets()[v]; e < stop; ++e) {
      if (e + kRelaxAhead < stop) prefetch_target(targets[e + kRelaxAhead]);
      const double w = weights[e];
      if (!light && w < delta_) continue;
      relax(v, parent, targets[e], d + w);
    }
  }

  // A row's targets are read in order, their distance (or a ghost's best
  // sent one) at random: a relaxation prefetches the one kRelaxAhead edges
  // ahead in its row (the rows that make most relaxations are the long ones).
  static constexpr eid_t kRelaxAhead = 16;
  void prefetch_target(lid_t t) const {
    if (t < owned_)
      __builtin_prefetch(&dist_[t]);
    else
      __builtin_prefetch(&sent_[t - owned_]);
  }

  void relax(lid_t v, vid_t parent, lid_t t, double nd) {
    ++relaxations_;
    if (t < owned_) {
      improve(t, nd, parent);
    } else if (nd < sent_[t - owned_]) {
      sent_[t - owned_] = nd;
      sent_parent_local_[t - owned_] = v;
      if (!pending_flag_[t - owned_]) {
        pending_flag_[t - owned_] = 1;
        pending_.push_back(t - owned_);
      }
    }
  }

  void improve(lid_t v, double nd, vid_t parent) {
    if (nd < dist_[v]) {
      dist_[v] = nd;
      parent_[v] = parent;
      add_to_bucket(v, bucket_of(nd));
    }
  }

  // Pushes the ghosts improved since the last phase to their owners, then
  // takes what arrives until the exchange says the phase is over.
  void exchange_phase() {
    Exchange& ex = *exchange_;
    const Distribution& dist = g_.distribution();
    for (std::uint32_t gh : pending_) {
      pending_flag_[gh] = 0;
      const int nbr = static_cast<int>(ghost_nbr_[gh]);
      const vid_t target = g_.global_id(owned_ + gh);
      const int owner = ex.neighborhood().ranks[static_cast<size_t>(nbr)];
      const std::uint64_t target_local = target - dist.begin(owner);
      ex.push(nbr, Message{target_local | std::uint64_t{sent_parent_local_[gh]} << 32,
                           std::bit_cast<std::uint64_t>(sent_[gh])});
    }
    pending_.clear();
    const std::vector<int>& ranks = ex.neighborhood().ranks;
    auto handle = [&](int from, const Message& m) {
      const vid_t parent = dist.begin(ranks[static_cast<size_t>(from)]) + (m.first >> 32);
      improve(static_cast<lid_t>(m.first & 0xffffffffu), std::bit_cast<double>(m.second), parent);
    };
    while (true) {
      ex.evoke();
      ex.process(handle);
      if (ex.done(true)) break;
    }
    ++phases_;
  }

  std::vector<BucketFigures> summarize_profile() {
    // The same number of buckets on every rank.
    std::vector<double> seconds;
    std::vector<std::uint64_t> counts;
    for (const BucketFigures& f : profile_) {
      seconds.push_back(f.seconds);
      counts.insert(counts.end(), {f.settled, f.relaxations, f.messages, f.bytes});
    }
    const std::vector<double> max_seconds = allreduce_each(comm_, seconds, MPI_MAX);
    const std::vector<std::uint64_t> sums = allreduce_each(comm_, counts, MPI_SUM);
    std::vector<BucketFigures> out = std::move(profile_);
    profile_.clear();
    for (size_t i = 0; i < out.size(); ++i) {
      out[i].seconds = max_seconds[i];
      out[i].settled = sums[4 * i];
      out[i].relaxations = sums[4 * i + 1];
      out[i].messages = sums[4 * i + 2];
      out[i].bytes = sums[4 * i + 3];
    }
    return out;
  }

  const Comm& comm_;
  const DistGraph& g_;
  Algorithm algorithm_;
  std::string model_;
  lid_t owned_;
  double delta_;  // infinite: one bucket (Bellman-Ford)
  bool fusion_;
  std::unique_ptr<Exchange> exchange_;
  std::vector<double> dist_, relaxed_;  // per owned vertex
  std::vector<vid_t> parent_;
  Buckets buckets_;  // owned vertices, with dead entries
  std::vector<lid_t> work_, settled_;
  std::vector<std::uint8_t> in_settled_;
  bool heavy_ = false;                // some edge, on some rank, is heavy (w >= delta)
  std::vector<eid_t> light_offsets_;  // when heavy_: the light edges per owned vertex
  std::vector<lid_t> light_targets_;
  std::vector<double> light_weights_;       // exact for float weights too
  std::vector<double> sent_;                // per ghost: best distance sent this search
  std::vector<lid_t> sent_parent_local_;    // per ghost: its parent, a local id here
  std::vector<std::uint8_t> pending_flag_;  // per ghost: improved since the last push
  std::vector<std::uint32_t> pending_;      // those ghosts
  std::vector<std::uint32_t> ghost_nbr_;    // per ghost: index in the ghost relation
  std::uint64_t relaxations_ = 0, phases_ = 0;
  std::vector<BucketFigures> profile_;
};

Sssp::Sssp(const Comm& comm, const DistGraph& g, Algorithm algorithm, const std::string& model,
           double delta, const ExchangeOptions& options) {
  PhaseTimer timer(comm);
  impl_ = std::make_unique<Impl>(comm, g, algorithm, model, delta, options);
  setup_seconds_ = timer.stop();
}
Sssp::~Sssp() = default;

SearchResult Sssp::search(vid_t root, bool profile) {
  return impl_->float_weights() ? impl_->search<float>(root, profile)
                                : impl_->search<weight_t>(root, profile);
}
std::uint64_t Sssp::buffer_bytes() const {
  return impl_->buffer_bytes();
}
const nbr::Plan* Sssp::combined_plan() const {
  return impl_->combined_plan();
}
std::string Sssp::configuration() const {
  return impl_->configuration();
}

double auto_delta(const Comm& comm, const DistGraph& g) {
  double heaviest = 0;
  for (eid_t e = 0; e < g.targets().size(); ++e) heaviest = std::max(heaviest, g.weight_at(e));
  heaviest = max_over_ranks(comm, heaviest);
  const double directed = static_cast<double>(sum_over_ranks(comm, g.targets().size()));
  const double degree = directed / static_cast<double>(std::max<vid_t>(1, g.global_vertex_count()));
  if (heaviest <= 0) return 1;  // every weight 0: any width, one bucket
  return heaviest / std::max(1.0, degree);
}

}  // namespace gc::sssp
