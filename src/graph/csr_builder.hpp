// Local CSR from the edges a rank received in the build shuffle (graph/build.cpp):
// expand each edge into the directions whose source is owned here, sort them
// by target (radix: one scatter by the top digit, then each bucket by the
// lower digits in cache), number the ghosts in that order, group by source in
// cache-sized blocks and write the rows, merging duplicates (largest weight,
// or smallest: Duplicates).
//
// Every pass streams through memory or scatters into at most 4096 streams; no
// comparison sort and no search of the ghost table is left on the path. Rows
// come out sorted by global target id. Each pass gives the pages of what it
// has read back as it goes (ReleaseBehind), so the buffer it writes reuses
// them: two buffers of the graph's size are never whole at once.
#pragma once

#include <algorithm>
#include <bit>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/page_advice.hpp"
#include "graph/dist_graph.hpp"

namespace gc {

// How edge records look while a graph is built. Any id fits the wide layout;
// where every id fits in 32 bits (n <= 2^32) the packed one moves 16 bytes per
// weighted record instead of 24. A graph built without weights (BFS, the
// collectives' topologies) moves no weight: 8 bytes per packed record.
// What both layouts do with a record's weight (member `w`, present only when
// Weighted): read it (0 without), and make a record with it appended.
template <bool Weighted>
struct RecordWeight {
  static constexpr bool kWeighted = Weighted;
  template <class Record>
  static weight_t weight(const Record& r) {
    if constexpr (Weighted)
      return r.w;
    else
      return 0;
  }
  template <class Record, class... Fields>
  static Record make(weight_t w, Fields... fields) {
    if constexpr (Weighted)
      return {fields..., w};
    else
      return {fields...};
  }
};

template <bool Weighted>
struct WideLayout : RecordWeight<Weighted> {
  using Base = RecordWeight<Weighted>;
  struct UndirectedWeighted {
    vid_t u, v;
    weight_t w;
  };
  struct UndirectedPlain {
    vid_t u, v;
  };
  using Undirected = std::conditional_t<Weighted, UndirectedWeighted, UndirectedPlain>;
  struct DirectedWeighted {
    lid_t source;  // local
    vid_t target;  // global, then local
    weight_t w;
  };
  struct DirectedPlain {
    lid_t source;
    vid_t target;
  };
  using Directed = std::conditional_t<Weighted, DirectedWeighted, DirectedPlain>;
  static Undirected pack(const Edge& e) { return Base::template make<Undirected>(e.w, e.u, e.v); }
  static vid_t u(const Undirected& e) { return e.u; }
  static vid_t v(const Undirected& e) { return e.v; }
  static Directed directed(lid_t source, vid_t target, weight_t w) {
    return Base::template make<Directed>(w, source, target);
  }
  static lid_t source(const Directed& r) { return r.source; }
  static vid_t target(const Directed& r) { return r.target; }
  static void set_target(Directed& r, std::uint64_t local) { r.target = local; }
};

template <bool Weighted>
struct PackedLayout : RecordWeight<Weighted> {
  using Base = RecordWeight<Weighted>;
  static constexpr std::uint64_t kLow = 0xffffffffULL;
  struct UndirectedWeighted {
    std::uint64_t uv;  // u << 32 | v
    weight_t w;
  };
  struct UndirectedPlain {
    std::uint64_t uv;
  };
  using Undirected = std::conditional_t<Weighted, UndirectedWeighted, UndirectedPlain>;
  struct DirectedWeighted {
    std::uint64_t key;  // target << 32 | local source
    weight_t w;
  };
  struct DirectedPlain {
    std::uint64_t key;
  };
  using Directed = std::conditional_t<Weighted, DirectedWeighted, DirectedPlain>;
  static Undirected pack(const Edge& e) {
    return Base::template make<Undirected>(e.w, e.u << 32 | e.v);
  }
  static vid_t u(const Undirected& e) { return e.uv >> 32; }
  static vid_t v(const Undirected& e) { return e.uv & kLow; }
  static Directed directed(lid_t source, vid_t target, weight_t w) {
    return Base::template make<Directed>(w, target << 32 | source);
  }
  static lid_t source(const Directed& r) { return r.key & kLow; }
  static vid_t target(const Directed& r) { return r.key >> 32; }
  static void set_target(Directed& r, std::uint64_t local) { r.key = local << 32 | (r.key & kLow); }
};

template <class Layout>
class CsrBuilder {
 public:
  using Undirected = typename Layout::Undirected;
  using Directed = typename Layout::Directed;

  // `symmetrize`: a received edge stands for both its directions (each kept
  // where its source is owned); otherwise it is directed and its source owned.
  // Collective (it checks that every rank's local ids fit in lid_t).
  CsrBuilder(const Comm& comm, const Distribution& dist, bool symmetrize,
             Duplicates duplicates = Duplicates::heaviest)
      : comm_(comm),
        begin_(dist.begin(comm.rank())),
        owned_(static_cast<lid_t>(dist.count(comm.rank()))),
        digits_(digits_for(dist.global_count())),
        digit_bits_(digit_bits_for(dist.global_count())),
        buckets_(std::size_t{1} << digit_bits_),
        symmetrize_(symmetrize),
        lightest_(duplicates == Duplicates::lightest) {
    check_local_ids(comm, dist.count(comm.rank()));
    while ((owned_ >> block_shift_) > kBlocks) ++block_shift_;
  }

  // The radix sort's digits and their width for ids below n; the scatters
  // write to 2^width streams (load_footprint counts their open pages).
  static int digits_for(vid_t n) { return (target_bits(n) + kMaxDigitBits - 1) / kMaxDigitBits; }
  static int digit_bits_for(vid_t n) {
    const int d = digits_for(n);
    return d > 0 ? (target_bits(n) + d - 1) / d : 0;
  }
  // Source blocks the grouping pass writes to, at most.
  static constexpr lid_t kBlocks = 1024;

  // Consumes `edges` (the pieces received); fills the CSR (local ids) and
  // the ghost table.
  void build(std::vector<std::vector<Undirected>> edges, std::vector<eid_t>& offsets,
             std::vector<lid_t>& targets, std::vector<weight_t>& weights,
             std::vector<vid_t>& ghosts) {
    count(edges);
    auto by_top = scatter_by_top_digit(std::move(edges));
    auto by_block = large_buffer<Directed>(total_);
    std::vector<eid_t> cursor;  // per source block
    for (lid_t s = 0; s < owned_; s += lid_t{1} << block_shift_) cursor.push_back(slots_[s]);
    std::vector<Directed> scratch;
    ReleaseBehind<Directed> done_with(by_top.get(), total_);
    for (std::size_t k = 0, lo = 0; digits_ > 0 && k < buckets_; ++k) {
      const std::size_t hi = lo + top_histogram_[k];
      const Directed* sorted = sort_low_digits(by_top.get() + lo, hi - lo, scratch);
      number_targets_and_group(sorted, hi - lo, by_block.get(), cursor, ghosts);
      done_with.consumed(hi);
      lo = hi;
    }
    by_top.reset();
    check_local_ids(comm_, std::uint64_t{owned_} + ghosts.size());
    write_rows(by_block.get(), offsets, targets, weights);
  }

 private:
  // Source blocks (kBlocks): few enough that the grouping pass writes to few
  // streams, many enough that a block (rmat:20 at 2 ranks: 16K records)
  // sorts in L2. Digits of at most 12 bits, as equal as the passes allow (20-bit ids: two
  // of 10): the fewer the buckets, the better a pass's writes stay in cache.
  static constexpr int kMaxDigitBits = 12;

  static void exclusive_prefix_sum(std::vector<eid_t>& counts) {
    eid_t sum = 0;
    for (eid_t& c : counts) sum += std::exchange(c, sum);
  }
  static int target_bits(vid_t n) { return std::bit_width(n > 0 ? n - 1 : 0); }
  template <class F>
  void for_each_direction(const Undirected& e, F&& f) const {
    const vid_t u = Layout::u(e), v = Layout::v(e);
    if (u - begin_ < owned_) f(u - begin_, v, Layout::weight(e));
    if (symmetrize_ && v - begin_ < owned_) f(v - begin_, u, Layout::weight(e));
  }
  std::size_t digit(vid_t target, int d) const {
    return (target >> (d * digit_bits_)) & (buckets_ - 1);
  }

  // Degrees with duplicates (the rows' slots) and the top digit's histogram.
  void count(const std::vector<std::vector<Undirected>>& edges) {
    slots_.assign(owned_ + 1, 0);
    top_histogram_.assign(buckets_, 0);
    for (const std::vector<Undirected>& piece : edges)
      for (const Undirected& e : piece)
        for_each_direction(e, [&](lid_t s, vid_t t, weight_t) {
          ++slots_[s + 1];
          ++top_histogram_[digit(t, digits_ - 1)];
        });
    for (lid_t s = 0; s < owned_; ++s) slots_[s + 1] += slots_[s];
    total_ = slots_[owned_];
  }

  // Expands the edges into directed records grouped by the top digit of
  // their target (the one pass of the sort over all the memory).
  // Each piece is given back once scattered (its pages first: a freed block
  // of the heap may stay mapped).
  std::unique_ptr<Directed[]> scatter_by_top_digit(std::vector<std::vector<Undirected>> edges) {
    auto out = large_buffer<Directed>(total_);
    if (digits_ == 0) return out;  // one vertex: no edges
    std::vector<eid_t> cursor = top_histogram_;
    exclusive_prefix_sum(cursor);
    for (std::vector<Undirected>& piece : edges) {
      for (const Undirected& e : piece)
        for_each_direction(e, [&](lid_t s, vid_t t, weight_t w) {
          out[cursor[digit(t, digits_ - 1)]++] = Layout::directed(s, t, w);
        });
      release_pages(piece.data(), piece.size() * sizeof(Undirected));
      release(piece);
    }
    return out;
  }

  // LSD radix sort of one top-digit bucket by the lower digits, between the
  // bucket and `scratch` (both in cache for the graphs this is sized for);
  // returns where the sorted records are.
  const Directed* sort_low_digits(Directed* bucket, std::size_t size,
                                  std::vector<Directed>& scratch) {
    if (digits_ < 2 || size < 2) return bucket;
    if (scratch.size() < size) scratch.resize(size);
    Directed* from = bucket;
    Directed* to = scratch.data();
    std::vector<eid_t>& cursor = low_cursor_;  // reused: one call per top-digit bucket
    for (int d = 0; d + 1 < digits_; ++d) {
      cursor.assign(buckets_, 0);
      for (std::size_t i = 0; i < size; ++i) ++cursor[digit(Layout::target(from[i]), d)];
      exclusive_prefix_sum(cursor);
      for (std::size_t i = 0; i < size; ++i)
        to[cursor[digit(Layout::target(from[i]), d)]++] = from[i];
      std::swap(from, to);
    }
    return from;
  }

  // In target order: local target ids (ghosts numbered as they come, so the
  // ghost table is sorted), and a stable move into source blocks, each at its
  // rows' final place.
  void number_targets_and_group(const Directed* sorted, std::size_t size, Directed* out,
                                std::vector<eid_t>& cursor, std::vector<vid_t>& ghosts) {
    for (std::size_t i = 0; i < size; ++i) {
      Directed r = sorted[i];
      const vid_t t = Layout::target(r);
      if (t - begin_ < owned_) {
        Layout::set_target(r, t - begin_);
      } else {
        if (ghosts.empty() || ghosts.back() != t) ghosts.push_back(t);
        Layout::set_target(r, owned_ + ghosts.size() - 1);
      }
      out[cursor[Layout::source(r) >> block_shift_]++] = r;
    }
  }

  // Per block: a counting sort by source into a cache-resident buffer, then
  // the rows, duplicates merged.
  void write_rows(const Directed* by_block, std::vector<eid_t>& offsets,
                  std::vector<lid_t>& targets, std::vector<weight_t>& weights) {
    // The rows are read at random by every kernel: huge pages where the
    // system gives them on request (fewer TLB misses in BFS's bottom-up
    // steps; bench/README.md, "Memory per edge").
    offsets.reserve(owned_ + 1);
    advise_huge_pages(offsets.data(), (owned_ + 1) * sizeof(eid_t));
    offsets.assign(owned_ + 1, 0);
    targets.reserve(total_);
    advise_huge_pages(targets.data(), total_ * sizeof(lid_t));
    if constexpr (Layout::kWeighted) weights.reserve(total_);
    std::vector<Directed> block;
    std::vector<eid_t> cursor;
    ReleaseBehind<Directed> done_with(by_block, total_);
    for (lid_t first = 0; first < owned_; first += lid_t{1} << block_shift_) {
      const lid_t last = std::min(owned_, first + (lid_t{1} << block_shift_));
      const eid_t base = slots_[first];
      block.resize(slots_[last] - base);
      cursor.assign(slots_.begin() + static_cast<std::ptrdiff_t>(first),
                    slots_.begin() + static_cast<std::ptrdiff_t>(last));
      for (eid_t i = base; i < slots_[last]; ++i)
        block[cursor[Layout::source(by_block[i]) - first]++ - base] = by_block[i];
      for (lid_t s = first; s < last; ++s) {
        const eid_t row_begin = targets.size();
        for (eid_t i = slots_[s] - base; i < slots_[s + 1] - base; ++i) {
          const auto t = static_cast<lid_t>(Layout::target(block[i]));  // checked to fit
          if (targets.size() > row_begin && targets.back() == t) {
            if constexpr (Layout::kWeighted)
              weights.back() = lightest_ ? std::min(weights.back(), block[i].w)
                                         : std::max(weights.back(), block[i].w);
          } else {
            targets.push_back(t);
            if constexpr (Layout::kWeighted) weights.push_back(block[i].w);
          }
        }
        offsets[s + 1] = targets.size();
      }
      done_with.consumed(slots_[last]);
    }
  }

  const Comm& comm_;
  vid_t begin_;
  lid_t owned_;
  int digits_;
  int digit_bits_;
  std::size_t buckets_;
  bool symmetrize_;
  bool lightest_;  // Duplicates::lightest
  int block_shift_ = 0;
  eid_t total_ = 0;
  std::vector<eid_t> slots_;          // row starts with duplicates, per owned vertex
  std::vector<eid_t> top_histogram_;  // records per value of the top digit
  std::vector<eid_t> low_cursor_;     // scratch of sort_low_digits
};

}  // namespace gc
