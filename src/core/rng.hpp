// Counter-based random numbers (Random123's Philox4x64-10, Salmon et al.,
// SC'11): every random value is a pure function of (seed, stream, index), so
// a result never depends on the rank that computes it or on the rank count.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
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
  using Block = std::array<std::uint64_t, 4>;

  explicit CounterRng(std::uint64_t seed) { key_ = {{seed, 0x9E3779B97F4A7C15ULL}}; }

  // Four independent 64-bit words for (stream, index, sub).
  Block words(Stream stream, std::uint64_t index, std::uint64_t sub = 0) const {
    r123::Philox4x64::ctr_type ctr = {{static_cast<std::uint64_t>(stream), index, sub, 0}};
    auto out = r123::Philox4x64()(ctr, key_);
    return {out[0], out[1], out[2], out[3]};
  }

  // N blocks at once: out[n] = words(stream, index[n], sub[n]). One call
  // computes each block's 10 rounds in a dependent chain of multiplies; here
  // the N chains run in lockstep, so the multiplier always has independent
  // work. The rounds of Salmon et al.'s Philox4x64-10, written out
  // (test_generators checks them against Random123's).
  template <std::size_t N>
  std::array<Block, N> words(Stream stream, const std::array<std::uint64_t, N>& index,
                             const std::array<std::uint64_t, N>& sub) const {
    constexpr std::uint64_t kMul0 = 0xD2E7470EE14C6C93ULL, kMul1 = 0xCA5A826395121157ULL;
    constexpr std::uint64_t kWeyl0 = 0x9E3779B97F4A7C15ULL, kWeyl1 = 0xBB67AE8584CAA73BULL;
    using Wide = unsigned __int128;
    std::array<Block, N> c;
    for (std::size_t n = 0; n < N; ++n)
      c[n] = {static_cast<std::uint64_t>(stream), index[n], sub[n], 0};
    std::uint64_t k0 = key_[0], k1 = key_[1];
#pragma GCC unroll 10
    for (int round = 0; round < 10; ++round) {
      for (Block& b : c) {
        const Wide p0 = Wide{kMul0} * b[0], p1 = Wide{kMul1} * b[2];
        b = {static_cast<std::uint64_t>(p1 >> 64) ^ b[1] ^ k0, static_cast<std::uint64_t>(p1),
             static_cast<std::uint64_t>(p0 >> 64) ^ b[3] ^ k1, static_cast<std::uint64_t>(p0)};
      }
      k0 += kWeyl0;
      k1 += kWeyl1;
    }
    return c;
  }

  // Uniform in [0, 1) with 53 random bits.
  static double to_unit(std::uint64_t word) {
    return static_cast<double>(word >> 11) * 0x1.0p-53;
  }
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

// The same for N edges {u[n], v[n]} at once (CounterRng's lockstep blocks).
template <std::size_t N>
std::array<double, N> edge_weights_from_seed(const CounterRng& rng,
                                             const std::array<std::uint64_t, N>& u,
                                             const std::array<std::uint64_t, N>& v) {
  std::array<std::uint64_t, N> low, high;
  for (std::size_t n = 0; n < N; ++n) {
    low[n] = std::min(u[n], v[n]);
    high[n] = std::max(u[n], v[n]);
  }
  const auto blocks = rng.words(Stream::edge_weight, low, high);
  std::array<double, N> out;
  for (std::size_t n = 0; n < N; ++n) out[n] = CounterRng::to_unit_open_closed(blocks[n][0]);
  return out;
}

}  // namespace gc
