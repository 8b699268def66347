// R-MAT / Kronecker generator of the Graph500 specification (graph500.org,
// "Graph500 Benchmark 1", section on the Kronecker generator; its reference
// octave code kronecker_generator.m): A=0.57, B=0.19, C=0.19, edgefactor 16,
// then a random relabelling of the vertices.
#include <fmt/format.h>
#include <array>
#include <bit>

#include "core/rng.hpp"
#include "graph/generators.hpp"

namespace gc {

namespace {

// A bijection of [0, 2^scale): rounds of multiply-by-odd, add, and xor-shift,
// all invertible modulo 2^scale (the reference code's scramble() likewise
// relabels with a cheap bijection rather than a stored permutation).
class VertexScrambler {
 public:
  VertexScrambler(int scale, std::uint64_t seed)
      : mask_(scale >= 64 ? ~0ULL : ((1ULL << scale) - 1)), shift_(scale / 2 + 1) {
    const CounterRng rng(seed);
    for (std::uint64_t round = 0; round < kRounds; ++round) {
      auto key = rng.words(Stream::vertex_permutation, round);
      mul_[round] = key[0] | 1ULL;
      add_[round] = key[1];
    }
  }
  vid_t operator()(vid_t v) const {
    for (int round = 0; round < kRounds; ++round) {
      v = (v * mul_[round]) & mask_;
      v = (v + add_[round]) & mask_;
      v ^= v >> shift_;
    }
    return v;
  }

 private:
  static constexpr int kRounds = 4;
  std::uint64_t mask_;
  int shift_;
  std::uint64_t mul_[kRounds], add_[kRounds];
};

}  // namespace

vid_t rmat_permute(vid_t v, int scale, std::uint64_t seed) {
  return VertexScrambler(scale, seed)(v);
}

RmatShare rmat_share(const Comm& comm, const RmatParams& params) {
  const std::uint64_t m = static_cast<std::uint64_t>(params.edgefactor) << params.scale;
  return {
      static_cast<std::uint64_t>((static_cast<unsigned __int128>(m) * comm.rank()) / comm.size()),
      static_cast<std::uint64_t>((static_cast<unsigned __int128>(m) * (comm.rank() + 1)) /
                                 comm.size())};
}

std::vector<Edge> rmat_edges(const Comm& comm, const RmatParams& params, std::uint64_t seed) {
  const RmatShare share = rmat_share(comm, params);
  return rmat_edge_range(params, seed, share.first, share.last);
}

std::vector<Edge> rmat_edge_range(const RmatParams& params, std::uint64_t seed, std::uint64_t first,
                                  std::uint64_t last, bool weights) {
  const int scale = params.scale;
  const double ab = params.a + params.b;
  const double c_norm = params.c / (1.0 - ab);
  const double a_norm = params.a / ab;
  // Thresholds on 32-bit uniforms: bit set when the uniform exceeds p.
  auto scaled = [](double p) { return static_cast<std::uint64_t>(p * 4294967296.0); };
  const std::uint64_t t_ab = scaled(ab), t_c = scaled(c_norm), t_a = scaled(a_norm);

  const CounterRng rng(seed);
  const VertexScrambler scramble(scale, seed);
  const vid_t mask = scale >= 64 ? ~vid_t{0} : (vid_t{1} << scale) - 1;
  std::vector<Edge> edges;
  edges.reserve(last - first);
  // Edge k is a pure function of (seed, k), whatever rank makes it. Edges
  // are made kBatch at a time so their Philox blocks run in lockstep
  // (CounterRng::words<N>); a batch past `last` computes edges it drops.
  constexpr std::size_t kBatch = 4;
  for (std::uint64_t k = first; k < last; k += kBatch) {
    std::array<std::uint64_t, kBatch> index, level_of, i{}, j{};
    for (std::size_t b = 0; b < kBatch; ++b) index[b] = k + b;
    // One 64-bit word per level: high half decides the row bit, low half the
    // column bit. All four words of a block are used; bits past SCALE are
    // masked off.
    for (int level = 0; level < scale; level += 4) {
      level_of.fill(static_cast<std::uint64_t>(level));
      const auto blocks = rng.words(Stream::rmat_edge, index, level_of);
      for (std::size_t b = 0; b < kBatch; ++b)
        for (int l = 0; l < 4; ++l) {
          const std::uint64_t word = blocks[b][static_cast<size_t>(l)];
          const bool ii = (word >> 32) > t_ab;
          const bool jj = (word & 0xffffffffULL) > (ii ? t_c : t_a);
          i[b] |= static_cast<vid_t>(ii) << ((level + l) & 63);
          j[b] |= static_cast<vid_t>(jj) << ((level + l) & 63);
        }
    }
    std::array<vid_t, kBatch> u, v;
    for (std::size_t b = 0; b < kBatch; ++b) {
      u[b] = params.scramble ? scramble(i[b] & mask) : i[b] & mask;
      v[b] = params.scramble ? scramble(j[b] & mask) : j[b] & mask;
    }
    const auto w = weights ? edge_weights_from_seed(rng, u, v) : std::array<weight_t, kBatch>{};
    for (std::size_t b = 0; b < kBatch && k + b < last; ++b)
      edges.push_back(Edge{u[b], v[b], w[b]});
  }
  return edges;
}

}  // namespace gc
