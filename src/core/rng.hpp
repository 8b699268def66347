// Counter-based random numbers (Random123's Philox4x64-10, Salmon et al.,
// SC'11): every random value is a pure function of (seed, stream, index), so
// a result never depends on the rank that computes it or on the rank count.
#pragma once

#include <array>
#include <cstdint>

#include <Random123/philox.h>

namespace gc {

// Named streams keep unrelated uses of one seed independent.
enum class Stream : std::uint64_t {
  rmat_edge = 1,
  vertex_permutation = 2,
  edge_weight = 3,
  rgg_point = 4,
  er_skip = 5,
  sbm_skip = 6,
  bfs_key = 7,
  mq_event = 8,
};

class CounterRng {
 public:
  explicit CounterRng(std::uint64_t seed) { key_ = {{seed, 0x9E3779B97F4A7C15ULL}}; }

  // Four independent 64-bit words for (stream, index, sub).
  std::array<std::uint64_t, 4> words(Stream stream, std::uint64_t index,
                                     std::uint64_t sub = 0) const {
    r123::Philox4x64::ctr_type ctr = {{static_cast<std::uint64_t>(stream), index, sub, 0}};
    auto out = r123::Philox4x64()(ctr, key_);
    return {out[0], out[1], out[2], out[3]};
  }

  // Uniform in [0, 1) with 53 random bits.
  static double to_unit(std::uint64_t word) { return static_cast<double>(word >> 11) * 0x1.0p-53; }
  // Uniform in (0, 1].
  static double to_unit_open_closed(std::uint64_t word) {
    return static_cast<double>((word >> 11) + 1) * 0x1.0p-53;
  }

 private:
  r123::Philox4x64::key_type key_;
};

// The weight of edge {u, v} when the input carries none: uniform in (0, 1],
// a function of (seed, min(u,v), max(u,v)) only, so both directions and all
// duplicates of an edge agree, at any rank count.
inline double edge_weight_from_seed(std::uint64_t seed, std::uint64_t u, std::uint64_t v) {
  if (u > v) std::swap(u, v);
  return CounterRng::to_unit_open_closed(CounterRng(seed).words(Stream::edge_weight, u, v)[0]);
}

}  // namespace gc
