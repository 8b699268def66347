// Breadth-first search, level-synchronous, on a 1D-distributed graph: the
// Graph500 kernel 2 ("Graph 500 Benchmark 1 (Search)", specification 2.1 and
// 3.0), with three algorithms:
//
// - top-down: the frontier's owners scan their rows; a local neighbour is
//   visited directly, a ghost is pushed (vertex, parent) to its owner through
//   the owner-computes exchange, whatever the communication model (the
//   Graph500 reference `mpi_simple` design; the one-sided designs of Boothe &
//   George and Jose et al. are exchange models in comm/). A rank pushes each
//   ghost at most once per search: a pushed ghost is reached at the next
//   level whatever its owner decides. Over the hybrid model, ranks of a node
//   also share the scan (Jose et al.'s intra-node load balancing): each
//   offers its frontier, and a rank done with its own takes chunks of its
//   peers' through shmem_ptr (comm/work_share.hpp).
// - replicated: bottom-up steps over a frontier bitmap replicated on every
//   rank by MPI_Allgather each level (the Graph500 reference `replicated`):
//   every unreached owned vertex looks for a neighbour in the frontier.
// - direction-optimizing: top-down while the frontier is small, bottom-up
//   while it is large (Beamer, Asanović, Patterson, "Direction-Optimizing
//   Breadth-First Search", SC 2012), with the switching rule of the GAP
//   Benchmark Suite (alpha = 15, beta = 18).
//
// Every algorithm returns the same tree: the parent of a vertex at level L+1
// is its smallest-id neighbour at level L. Rows are sorted by global id, the
// top-down frontier is scanned in increasing id, and an owner keeps the
// smallest parent it is offered during a level, so the tree does not depend
// on the algorithm, the model, the rank count or the arrival order.
#include "kernels/bfs/bfs.hpp"

#include <algorithm>
#include <array>
#include <numeric>

#include <fmt/format.h>

#include "comm/models.hpp"
#include "comm/work_share.hpp"
#include "core/output.hpp"
#include "core/page_advice.hpp"
#include "core/registry.hpp"
#include "kernels/ghost_neighborhood.hpp"

namespace gc::bfs {

namespace {

constexpr std::uint64_t kAlpha = 15, kBeta = 18;
// Async models: evoke/process this often (edges scanned) during a top-down
// scan, so arrivals are handled while the scan goes on.
constexpr std::uint64_t kProgressEvery = 4096;
// hybrid: frontier vertices claimed at a time from a rank's shared frontier.
constexpr std::uint64_t kShareChunk = 32;

}  // namespace

const std::vector<AlgorithmInfo>& algorithm_table() {
  static const std::vector<AlgorithmInfo> table = {
      {Algorithm::top_down, "top-down",
       "level-synchronous, the frontier pushed to its owners through the exchange", true},
      {Algorithm::replicated, "replicated",
       "bottom-up over a frontier bitmap replicated by MPI_Allgather", false},
      {Algorithm::direction_optimizing, "direction-optimizing",
       "top-down/bottom-up switching (Beamer et al., SC 2012)", true},
  };
  return table;
}

Algorithm parse_algorithm(const std::string& name) {
  return key_named(algorithm_table(), &AlgorithmInfo::algorithm, name, "BFS algorithm");
}

const char* algorithm_name(Algorithm a) {
  return name_of_key(algorithm_table(), &AlgorithmInfo::algorithm, a);
}

std::string Configuration::name() const {
  return model.empty() ? algorithm_name(algorithm)
                       : fmt::format("{}/{}", algorithm_name(algorithm), model);
}

std::vector<Configuration> all_configurations() {
  std::vector<Configuration> out;
  for (const AlgorithmInfo& a : algorithm_table()) {
    if (!a.uses_exchange)
      out.push_back({a.algorithm, ""});
    else
      for (const std::string& m : exchange_models()) out.push_back({a.algorithm, m});
  }
  return out;
}

class Bfs::Impl {
 public:
  Impl(const Comm& comm, const BfsGraph& bg, Algorithm algorithm, const std::string& model,
       WorkSharing sharing, const ExchangeOptions& options)
      : comm_(comm),
        bg_(bg),
        g_(bg.g),
        algorithm_(algorithm),
        model_(model),
        share_first_(sharing == WorkSharing::first) {
    if (algorithm != Algorithm::replicated)
      exchange_ = make_exchange(model, comm, ghost_neighborhood(g_, options));
    // Read at random by the scans: huge pages spare them most TLB misses.
    assign_huge(level_, bg.owned, kUnreached);
    assign_huge(parent_, bg.owned, kNoParent);
    if (exchange_) assign_huge(ghost_pushed_, g_.ghost_count(), std::uint8_t{0});
    if (exchange_ && exchange_->node_work_share() && sharing != WorkSharing::off)
      share_graph(*exchange_->node_work_share());
    if (algorithm != Algorithm::top_down) {
      frontier_bits_.resize(bg.bitmap_words);
      if (!bg.aligned) gathered_.resize(bg.gathered_words);
      local_bits_.resize((std::uint64_t{bg.owned} + g_.ghost_count() + 63) / 64);
      // Isolated vertices (and the bits past the last owned one) are never
      // reached: a bottom-up step skips them with the reached ones.
      isolated_bits_.assign((std::uint64_t{bg.owned} + 63) / 64, 0);
      for (lid_t v = 0; v < bg.owned; ++v)
        if (bg.offsets[v + 1] == bg.offsets[v])
          isolated_bits_[v >> 6] |= std::uint64_t{1} << (v & 63);
      if (bg.owned % 64 != 0) isolated_bits_.back() |= ~std::uint64_t{0} << (bg.owned % 64);
    }
    total_edges_ = sum_over_ranks(comm, static_cast<std::uint64_t>(bg.targets.size()));
  }

  // hybrid: the tables node peers read to take frontier work: this rank's
  // rows (offsets, global targets) and, each level, its frontier.
  void share_graph(WorkShare& ws) {
    share_ = &ws;
    offsets_table_ = ws.add_table((bg_.owned + 1) * sizeof(eid_t));
    targets_table_ = ws.add_table(bg_.targets.size() * sizeof(std::uint32_t));
    frontier_table_ = ws.add_table(bg_.owned * sizeof(std::uint32_t));
    std::copy(bg_.offsets.begin(), bg_.offsets.end(),
              reinterpret_cast<eid_t*>(ws.table(offsets_table_)));
    // Peers know no local id of this rank's: the shared rows hold global ids.
    auto* shared_targets = reinterpret_cast<std::uint32_t*>(ws.table(targets_table_));
    for (size_t e = 0; e < bg_.targets.size(); ++e)
      shared_targets[e] = static_cast<std::uint32_t>(g_.global_id(bg_.targets[e]));
    if (!ws.peers().empty()) stolen_pushed_.resize((g_.global_vertex_count() + 63) / 64);
    comm_.barrier();  // peers read the rows only once they are there
  }

  std::uint64_t buffer_bytes() const { return exchange_ ? exchange_->buffer_bytes() : 0; }
  const nbr::Plan* combined_plan() const {
    return exchange_ ? exchange_->combined_plan() : nullptr;
  }
  std::uint64_t flow_waits() const { return exchange_ ? exchange_->counters().flow_waits : 0; }
  std::string configuration() const { return Configuration{algorithm_, model_}.name(); }

  SearchResult search(vid_t root, bool profile) {
    SearchResult result;
    result.root = root;
    std::fill(level_.begin(), level_.end(), kUnreached);
    std::fill(parent_.begin(), parent_.end(), kNoParent);
    std::fill(ghost_pushed_.begin(), ghost_pushed_.end(), 0);
    std::fill(stolen_pushed_.begin(), stolen_pushed_.end(), 0);
    reached_bits_ = isolated_bits_;
    frontier_.clear();
    frontier_sorted_ = true;
    const std::uint64_t messages_before = exchange_ ? exchange_->counters().messages() : 0;
    const std::uint64_t shared_before = share_ ? share_->items_taken() : 0;
    const std::uint64_t bytes_before = exchange_ ? exchange_->counters().bytes() : 0;
    std::vector<double> level_seconds;
    std::vector<std::uint64_t> level_messages, level_bytes, level_frontier;
    std::vector<std::uint8_t> level_bottom_up;

    PhaseTimer timer(comm_);
    if (g_.is_owned(root)) {
      const lid_t r = root - g_.first_owned();
      level_[r] = 0;
      parent_[r] = root;
      mark_reached(r);
      frontier_.push_back(static_cast<std::uint32_t>(r));
    }
    bool bottom_up = algorithm_ == Algorithm::replicated;
    bool bits_current = false;  // frontier_bits_ holds the frontier
    std::uint64_t frontier_size = 1, edges_to_check = total_edges_;
    std::uint64_t scout = sum_over_ranks(comm_, frontier_degree());
    for (level_now_ = 0; frontier_size > 0; ++level_now_) {
      const double t0 = MPI_Wtime();
      const std::uint64_t m0 = exchange_ ? exchange_->counters().messages() : 0;
      const std::uint64_t b0 = exchange_ ? exchange_->counters().bytes() : 0;
      if (algorithm_ == Algorithm::direction_optimizing) {
        // GAP's rule (sbeamer/gapbs bfs.cc): go bottom-up when the
        // frontier's edges exceed the edges still unexplored by top-down
        // steps / alpha; come back when the frontier is small and shrinking,
        // and then take at least one top-down step.
        if (!bottom_up && scout > edges_to_check / kAlpha) {
          bottom_up = true;
        } else if (bottom_up && frontier_size < previous_frontier_ &&
                   frontier_size < g_.global_vertex_count() / kBeta) {
          bottom_up = false;
          scout = 1;
        }
      }
      if (bottom_up) {
        if (!bits_current) publish_frontier();
        bottom_up_step();
        bits_current = false;
      } else {
        edges_to_check -= std::min(edges_to_check, scout);
        top_down_step();
      }
      previous_frontier_ = frontier_size;
      // One reduction per level: the next frontier's size and edge count.
      std::array<std::uint64_t, 2> local = {next_.size(), 0};
      frontier_.swap(next_);
      frontier_sorted_ = bottom_up;  // a bottom-up step finds in increasing id
      next_.clear();
      if (algorithm_ == Algorithm::direction_optimizing) local[1] = frontier_degree();
      const auto global = allreduce_each(comm_, local, MPI_SUM);
      frontier_size = global[0];
      scout = global[1];
      if (profile) {
        level_seconds.push_back(MPI_Wtime() - t0);
        level_messages.push_back((exchange_ ? exchange_->counters().messages() : 0) - m0);
        level_bytes.push_back((exchange_ ? exchange_->counters().bytes() : 0) - b0);
        level_frontier.push_back(previous_frontier_);
        level_bottom_up.push_back(bottom_up);
      }
    }
    result.seconds = timer.stop();

    std::array<std::uint64_t, 4> counts = {0, 0, 0, 0};
    if (exchange_) {
      counts[0] = exchange_->counters().messages() - messages_before;
      counts[1] = exchange_->counters().bytes() - bytes_before;
    }
    for (lid_t v = 0; v < bg_.owned; ++v) counts[2] += level_[v] != kUnreached;
    if (share_) counts[3] = share_->items_taken() - shared_before;
    const auto sums = allreduce_each(comm_, counts, MPI_SUM);
    result.messages = sums[0];
    result.bytes = sums[1];
    result.reached = sums[2];
    result.shared = sums[3];
    if (profile)
      result.levels = summarize_levels(level_seconds, level_messages, level_bytes, level_frontier,
                                       level_bottom_up);
    result.parent = parent_;
    result.level = level_;
    return result;
  }

 private:
  std::uint64_t frontier_degree() const {
    std::uint64_t d = 0;
    for (std::uint32_t v : frontier_) d += bg_.offsets[v + 1] - bg_.offsets[v];
    return d;
  }

  // Reach owned vertex v from global vertex p at the next level; keep the
  // smallest parent offered during this level.
  void visit(lid_t v, vid_t p) {
    if (level_[v] == kUnreached) {
      level_[v] = level_now_ + 1;
      parent_[v] = p;
      mark_reached(v);
      next_.push_back(static_cast<std::uint32_t>(v));
    } else if (level_[v] == level_now_ + 1 && p < parent_[v]) {
      parent_[v] = p;
    }
  }

  // Bottom-up steps skip reached vertices 64 at a time (reached_bits_).
  void mark_reached(lid_t v) {
    if (!reached_bits_.empty()) reached_bits_[v >> 6] |= std::uint64_t{1} << (v & 63);
  }

  void top_down_step() {
    Exchange& ex = *exchange_;
    // The scan visits the frontier in increasing id (smallest parent
    // first). A top-down step leaves its next frontier unsorted: the sort
    // is paid only when another top-down step follows, not before the
    // large frontier a bottom-up step takes (which needs no order).
    if (!frontier_sorted_) std::sort(frontier_.begin(), frontier_.end());
    const vid_t first = g_.first_owned();
    auto handle = [&](int, const Message& m) { visit(m.first - first, m.second); };
    since_progress_ = 0;
    if (share_) {
      // hybrid: offer the frontier, scan it a chunk at a time, then take
      // chunks of the node peers' frontiers while they have some left.
      std::copy(frontier_.begin(), frontier_.end(),
                reinterpret_cast<std::uint32_t*>(share_->table(frontier_table_)));
      share_->offer(frontier_.size());
      auto own = [&] {
        while (auto chunk = share_->claim(comm_.rank(), kShareChunk))
          scan_own(chunk->first, chunk->second, handle);
      };
      if (share_first_) comm_.barrier();  // every offer is there before anyone takes
      if (!share_first_) own();
      for (int peer : share_->peers())
        while (auto chunk = share_->claim(peer, kShareChunk))
          scan_peer(peer, chunk->first, chunk->second, handle);
      if (share_first_) own();
    } else {
      scan_own(0, frontier_.size(), handle);
    }
    while (true) {
      ex.evoke();
      ex.process(handle);
      if (ex.done(true)) break;
    }
  }

  // Scans frontier_[begin, end): local neighbours visited, each ghost pushed
  // to its owner once per search.
  template <typename Handle>
  void scan_own(std::uint64_t begin, std::uint64_t end, const Handle& handle) {
    Exchange& ex = *exchange_;
    const lid_t owned = bg_.owned;
    const vid_t first = g_.first_owned();
    for (std::uint64_t i = begin; i < end; ++i) {
      const std::uint32_t u = frontier_[i];
      const vid_t gu = first + u;
      const eid_t stop = bg_.offsets[u + 1];
      for (eid_t e = bg_.offsets[u]; e < stop; ++e) {
        if (e + kScanAhead < stop) prefetch_target(bg_.targets[e + kScanAhead]);
        const lid_t t = bg_.targets[e];
        if (t < owned) {
          visit(t, gu);
        } else if (!ghost_pushed_[t - owned]) {
          ghost_pushed_[t - owned] = 1;
          ex.push(static_cast<int>(bg_.ghost_nbr[t - owned]),
                  Message{bg_.ghost_ids[t - owned], gu});
        }
      }
      progress(stop - bg_.offsets[u], handle);
    }
  }

  // A row's targets are read in order, their level (or ghost mark) at
  // random: the scan prefetches the one kScanAhead edges ahead in its row
  // (the frontier's rows are long when the scan is long).
  static constexpr eid_t kScanAhead = 16;
  void prefetch_target(lid_t t) const {
    if (t < bg_.owned) {
      __builtin_prefetch(&level_[t]);
      __builtin_prefetch(&parent_[t], 1);
    } else {
      __builtin_prefetch(&ghost_pushed_[t - bg_.owned]);
    }
  }

  // Scans items [begin, end) of node peer `peer`'s frontier through its
  // shared tables: this rank's vertices visited, every other target pushed
  // to its owner, at most once per search by this rank's stolen work (the
  // peer's own marks are not shared: an owner may be offered a vertex by
  // both and keeps the smaller parent). Within a level this rank takes
  // peers in increasing rank and each peer's chunks in increasing order, so
  // its first stolen offer of a vertex has the smallest parent it could
  // offer: the tree stays the canonical one.
  template <typename Handle>
  void scan_peer(int peer, std::uint64_t begin, std::uint64_t end, const Handle& handle) {
    const auto* offsets = reinterpret_cast<const eid_t*>(share_->peer_table(offsets_table_, peer));
    const auto* targets =
        reinterpret_cast<const std::uint32_t*>(share_->peer_table(targets_table_, peer));
    const auto* frontier =
        reinterpret_cast<const std::uint32_t*>(share_->peer_table(frontier_table_, peer));
    const Distribution& dist = g_.distribution();
    const vid_t peer_first = dist.begin(peer);
    const vid_t first = g_.first_owned(), last = first + bg_.owned;
    for (std::uint64_t i = begin; i < end; ++i) {
      const std::uint32_t u = frontier[i];
      const vid_t gu = peer_first + u;
      const eid_t stop = offsets[u + 1];
      for (eid_t e = offsets[u]; e < stop; ++e) {
        const vid_t w = targets[e];
        if (w >= first && w < last) {
          visit(w - first, gu);
        } else if (!(stolen_pushed_[w >> 6] >> (w & 63) & 1)) {
          stolen_pushed_[w >> 6] |= std::uint64_t{1} << (w & 63);
          share_->push_to_rank(dist.owner_of(w), Message{w, gu});
        }
      }
      progress(stop - offsets[u], handle);
    }
  }

  // Async models: handle arrivals every kProgressEvery edges scanned.
  template <typename Handle>
  void progress(std::uint64_t edges, const Handle& handle) {
    since_progress_ += edges;
    if (since_progress_ < kProgressEvery || !exchange_->local_progress()) return;
    exchange_->evoke();
    exchange_->process(handle);
    since_progress_ = 0;
  }

  // The frontier as a bitmap of global ids on every rank: each rank's words
  // for its own range from frontier_, then MPI_Allgatherv (in place when
  // every range starts on a word boundary; else gathered and shifted); then
  // the bits of this rank's local vertices, by local id (local_bits_).
  void publish_frontier() {
    gather_frontier();
    // A bottom-up step tests its rows' local ids: owned bits from the
    // frontier, each ghost's from the gathered bitmap (one pass over the
    // ghosts per bottom-up level, none per edge).
    std::fill(local_bits_.begin(), local_bits_.end(), 0);
    for (std::uint32_t v : frontier_) local_bits_[v >> 6] |= std::uint64_t{1} << (v & 63);
    const std::uint64_t* bits = frontier_bits_.data();
    const std::uint32_t* ghosts = bg_.ghost_ids.data();
    const std::uint64_t owned = bg_.owned, end = owned + bg_.ghost_ids.size();
    // Word by word (a word's bits gathered in a register, then stored once);
    // the first word may hold owned bits already.
    for (std::uint64_t l = owned; l < end;) {
      const std::uint64_t stop = std::min(end, (l | 63) + 1);
      std::uint64_t word = 0;
      for (; l < stop; ++l) {
        const std::uint32_t w = ghosts[l - owned];
        word |= (bits[w >> 6] >> (w & 63) & 1) << (l & 63);
      }
      local_bits_[(l - 1) >> 6] |= word;
    }
  }

  void gather_frontier() {
    const size_t me = static_cast<size_t>(comm_.rank());
    std::uint64_t* bits = frontier_bits_.data();
    if (bg_.aligned) {
      std::uint64_t* mine = bits + bg_.word_displs[me];
      std::fill(mine, mine + bg_.word_counts[me], 0);
      for (std::uint32_t v : frontier_) mine[v >> 6] |= std::uint64_t{1} << (v & 63);
      MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, bits, bg_.word_counts.data(),
                     bg_.word_displs.data(), datatype_of<std::uint64_t>(), comm_.get());
      return;
    }
    std::uint64_t* mine = gathered_.data() + bg_.word_displs[me];
    std::fill(mine, mine + bg_.word_counts[me], 0);
    for (std::uint32_t v : frontier_) mine[v >> 6] |= std::uint64_t{1} << (v & 63);
    MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, gathered_.data(), bg_.word_counts.data(),
                   bg_.word_displs.data(), datatype_of<std::uint64_t>(), comm_.get());
    std::fill(frontier_bits_.begin(), frontier_bits_.end(), 0);
    const Distribution& dist = g_.distribution();
    for (int r = 0; r < comm_.size(); ++r) {
      const std::uint64_t* segment = gathered_.data() + bg_.word_displs[static_cast<size_t>(r)];
      for (int j = 0; j < bg_.word_counts[static_cast<size_t>(r)]; ++j) {
        const std::uint64_t at = dist.begin(r) + 64 * static_cast<std::uint64_t>(j);
        const unsigned shift = at & 63;
        bits[at >> 6] |= segment[j] << shift;
        if (shift != 0 && segment[j] >> (64 - shift))
          bits[(at >> 6) + 1] |= segment[j] >> (64 - shift);
      }
    }
  }

  void bottom_up_step() {
    const std::uint64_t* bits = local_bits_.data();
    const lid_t* targets = bg_.targets.data();
    // The unreached vertices in increasing id, a word of them at a time.
    for (std::size_t w = 0; w < reached_bits_.size(); ++w) {
      std::uint64_t found = 0;
      for (std::uint64_t open = ~reached_bits_[w]; open != 0; open &= open - 1) {
        const unsigned bit = static_cast<unsigned>(__builtin_ctzll(open));
        const lid_t v = static_cast<lid_t>(w * 64 + bit);
        const eid_t end = bg_.offsets[v + 1];
        for (eid_t e = bg_.offsets[v]; e < end; ++e) {
          const lid_t t = targets[e];
          if (bits[t >> 6] >> (t & 63) & 1) {
            level_[v] = level_now_ + 1;
            parent_[v] = t;  // a local id until named below
            next_.push_back(static_cast<std::uint32_t>(v));
            found |= std::uint64_t{1} << bit;
            break;
          }
        }
      }
      reached_bits_[w] |= found;
    }
    name_parents();
  }

  // The bottom-up step found its parents as local ids. A ghost's global id
  // is a read at random in the ghost table, so they are named after the
  // scan, each read prefetched ahead (taken one miss at a time inside the
  // scan, they stall it).
  void name_parents() {
    constexpr std::size_t kAhead = 16;
    const lid_t owned = bg_.owned;
    const vid_t first = g_.first_owned();
    const std::uint32_t* ghosts = bg_.ghost_ids.data();
    const std::size_t n = next_.size();
    for (std::size_t i = 0; i < n; ++i) {
      if (i + kAhead < n) {
        const vid_t ahead = parent_[next_[i + kAhead]];
        if (ahead >= owned) __builtin_prefetch(ghosts + (ahead - owned));
      }
      vid_t& p = parent_[next_[i]];
      p = p < owned ? first + p : ghosts[p - owned];
    }
  }

  std::vector<LevelFigures> summarize_levels(const std::vector<double>& seconds,
                                             const std::vector<std::uint64_t>& messages,
                                             const std::vector<std::uint64_t>& bytes,
                                             const std::vector<std::uint64_t>& frontier,
                                             const std::vector<std::uint8_t>& bottom_up) const {
    // seconds.size() is the same on every rank.
    std::vector<std::uint64_t> counts(2 * seconds.size());
    for (size_t i = 0; i < seconds.size(); ++i) {
      counts[2 * i] = messages[i];
      counts[2 * i + 1] = bytes[i];
    }
    const std::vector<double> max_seconds = allreduce_each(comm_, seconds, MPI_MAX);
    const std::vector<std::uint64_t> sums = allreduce_each(comm_, counts, MPI_SUM);
    std::vector<LevelFigures> out;
    for (size_t i = 0; i < seconds.size(); ++i)
      out.push_back({static_cast<std::int32_t>(i), bottom_up[i] != 0, frontier[i], max_seconds[i],
                     sums[2 * i], sums[2 * i + 1]});
    return out;
  }

  const Comm& comm_;
  const BfsGraph& bg_;
  const DistGraph& g_;
  Algorithm algorithm_;
  std::string model_;
  bool share_first_;
  std::unique_ptr<Exchange> exchange_;
  std::vector<std::int32_t> level_;
  std::vector<vid_t> parent_;
  std::vector<std::uint32_t> frontier_, next_;  // owned local ids
  bool frontier_sorted_ = true;                 // in increasing id
  std::vector<std::uint8_t> ghost_pushed_;      // per ghost, this search
  std::vector<std::uint64_t> frontier_bits_;    // replicated bitmap (bottom-up)
  std::vector<std::uint64_t> gathered_;         // unaligned ranges: every rank's words
  std::vector<std::uint64_t> local_bits_;       // the frontier by local id (bottom-up)
  std::vector<std::uint64_t> isolated_bits_;    // owned vertices of no edge (bottom-up)
  std::vector<std::uint64_t> reached_bits_;     // reached or isolated, this search (bottom-up)
  std::uint64_t total_edges_ = 0, previous_frontier_ = 0;
  std::uint64_t since_progress_ = 0;          // edges scanned since the last evoke
  WorkShare* share_ = nullptr;                // hybrid's intra-node work sharing
  std::vector<std::uint64_t> stolen_pushed_;  // per global vertex: pushed by stolen work
  int offsets_table_ = -1, targets_table_ = -1, frontier_table_ = -1;
  std::int32_t level_now_ = 0;
};

Bfs::Bfs(const Comm& comm, const BfsGraph& bg, Algorithm algorithm, const std::string& model,
         WorkSharing sharing, const ExchangeOptions& options) {
  PhaseTimer timer(comm);
  impl_ = std::make_unique<Impl>(comm, bg, algorithm, model, sharing, options);
  setup_seconds_ = timer.stop();
}
Bfs::~Bfs() = default;

SearchResult Bfs::search(vid_t root, bool profile) {
  return impl_->search(root, profile);
}
std::uint64_t Bfs::buffer_bytes() const {
  return impl_->buffer_bytes();
}
const nbr::Plan* Bfs::combined_plan() const {
  return impl_->combined_plan();
}
std::uint64_t Bfs::flow_waits() const {
  return impl_->flow_waits();
}
std::string Bfs::configuration() const {
  return impl_->configuration();
}

}  // namespace gc::bfs
