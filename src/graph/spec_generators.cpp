// The generators a graph specification names: their parameters, checks and
// defaults (graph/generators.hpp makes the edges).
#include <cmath>

#include <fmt/format.h>

#include "graph/build.hpp"
#include "graph/generators.hpp"
#include "graph/spec_kinds.hpp"

namespace gc {

namespace {

Generated rmat(SpecParams& p, const Comm& comm, std::uint64_t seed) {
  RmatParams r;
  r.scale = p.first<int>("SCALE");
  r.edgefactor = p.get<int>("ef", 16);
  r.a = p.get<double>("a", r.a);
  r.b = p.get<double>("b", r.b);
  r.c = p.get<double>("c", r.c);
  const int scramble = p.get<int>("scramble", 1);
  r.scramble = scramble != 0;
  p.done();
  p.require(scramble == 0 || scramble == 1, "scramble must be 0 or 1");
  p.require(r.scale >= 1 && r.scale <= 42, "SCALE must be between 1 and 42");
  p.require(r.edgefactor >= 1, "edgefactor must be at least 1");
  p.require(r.a > 0 && r.b >= 0 && r.c >= 0 && r.a + r.b + r.c < 1 && r.a + r.b < 1,
            "a, b, c must be probabilities with a+b+c < 1");
  const double n = std::ldexp(1.0, r.scale), m = n * r.edgefactor;
  // Piece by piece: the same count on every rank (shares differ by one edge
  // at most; the largest decides).
  const RmatShare share = rmat_share(comm, r);
  const std::uint64_t largest = ((static_cast<std::uint64_t>(r.edgefactor) << r.scale) +
                                 static_cast<std::uint64_t>(comm.size()) - 1) /
                                static_cast<std::uint64_t>(comm.size());
  const std::uint64_t pieces = (largest + kGeneratedPieceEdges - 1) / kGeneratedPieceEdges;
  auto piece = [r, seed, share](std::uint64_t i, bool weights) {
    const std::uint64_t first = std::min(share.last, share.first + i * kGeneratedPieceEdges);
    return rmat_edge_range(r, seed, first, std::min(share.last, first + kGeneratedPieceEdges),
                           weights);
  };
  return {vid_t{1} << r.scale,
          m,
          fmt::format("{} vertices, {} edges before dropping self-loops and duplicates",
                      static_cast<std::uint64_t>(n), static_cast<std::uint64_t>(m)),
          {{"generator", "rmat"},
           {"scale", r.scale},
           {"edgefactor", r.edgefactor},
           {"a", r.a},
           {"b", r.b},
           {"c", r.c},
           {"scramble", r.scramble}},
          [&comm, r, seed] { return rmat_edges(comm, r, seed); },
          pieces,
          piece};
}

Generated rgg(SpecParams& p, const Comm& comm, std::uint64_t seed) {
  RggParams r;
  r.n = p.first<vid_t>("N");
  r.radius = p.get<double>("r", 0.0);
  p.done();
  p.require(r.n >= 1, "N must be at least 1");
  p.require(r.radius >= 0 && r.radius < 1.5, "radius must be in (0, 1.5)");
  if (r.radius == 0) r.radius = rgg_default_radius(r.n);
  const double n = static_cast<double>(r.n);
  return {r.n,
          std::min(n * n / 2, n * n * 3.1416 * r.radius * r.radius / 2),
          fmt::format("radius {:.6g}", r.radius),
          {{"generator", "rgg"}, {"n", r.n}, {"radius", r.radius}},
          [&comm, r, seed] { return rgg_edges(comm, r, seed); }};
}

Generated er(SpecParams& p, const Comm& comm, std::uint64_t seed) {
  ErParams r;
  r.n = p.first<vid_t>("N");
  r.avg_degree = p.get<double>("d", 16.0);
  r.p = p.get<double>("p", 0.0);
  p.done();
  p.require(r.n >= 1, "N must be at least 1");
  p.require(r.p >= 0 && r.p <= 1 && r.avg_degree >= 0, "p must be in [0,1] and d non-negative");
  if (r.p == 0)
    r.p = std::min(1.0, r.avg_degree / std::max<double>(1, static_cast<double>(r.n) - 1));
  return {r.n,
          r.p * r.n * (r.n - 1) / 2,
          fmt::format("p = {:.6g}", r.p),
          {{"generator", "er"}, {"n", r.n}, {"p", r.p}},
          [&comm, r, seed] { return r.p > 0 ? er_edges(comm, r, seed) : std::vector<Edge>{}; }};
}

Generated sbm(SpecParams& p, const Comm& comm, std::uint64_t seed) {
  SbmParams r;
  r.n = p.first<vid_t>("N");
  r.blocks = p.get<int>("blocks", 8);
  r.p_in = p.get<double>("pin", 0.0);
  r.p_out = p.get<double>("pout", 0.0);
  p.done();
  p.require(r.n >= 1, "N must be at least 1");
  p.require(r.blocks >= 1 && static_cast<vid_t>(r.blocks) <= r.n, "blocks must be between 1 and N");
  p.require(r.p_in >= 0 && r.p_in <= 1 && r.p_out >= 0 && r.p_out <= 1,
            "pin and pout must be in [0,1]");
  const double bs = static_cast<double>(r.n) / r.blocks;
  if (r.p_in == 0) r.p_in = std::min(1.0, 12.0 / std::max(1.0, bs - 1));
  if (r.p_out == 0 && r.blocks > 1) r.p_out = std::min(1.0, 4.0 / std::max(1.0, r.n - bs));
  return {r.n,
          r.p_in * bs * bs / 2 * r.blocks +
              r.p_out * (static_cast<double>(r.n) * r.n - bs * bs * r.blocks) / 2,
          fmt::format("p_in = {:.6g}, p_out = {:.6g}", r.p_in, r.p_out),
          {{"generator", "sbm"},
           {"n", r.n},
           {"blocks", r.blocks},
           {"p_in", r.p_in},
           {"p_out", r.p_out}},
          [&comm, r, seed] { return sbm_edges(comm, r, seed); }};
}

Generated grid(SpecParams& p, const Comm& comm, std::uint64_t seed) {
  GridParams r;
  r.side = p.first<vid_t>("SIDE");
  r.dimensions = p.get<int>("d", 3);
  p.done();
  p.require(r.dimensions >= 1 && r.dimensions <= 6, "d must be between 1 and 6");
  p.require(r.side >= 1 && std::pow(static_cast<double>(r.side), r.dimensions) < 0x1p40,
            "SIDE must be at least 1, and SIDE^d below 2^40");
  const vid_t n = grid_vertex_count(r);
  return {n,
          static_cast<double>(n) * r.dimensions,
          fmt::format("{} vertices", n),
          {{"generator", "grid"}, {"side", r.side}, {"dimensions", r.dimensions}},
          [&comm, r, seed] { return grid_edges(comm, r, seed); }};
}

}  // namespace

const std::vector<GeneratorKind>& generator_table() {
  static const std::vector<GeneratorKind> table = {
      {"rmat", "kronecker", "rmat:SCALE[,ef=16,a=0.57,b=0.19,c=0.19]",
       "Graph500 Kronecker, 2^SCALE vertices (scramble=0: hubs at low ids)", rmat},
      {"rgg", nullptr, "rgg:N[,r=RADIUS]", "random geometric graph in the unit square", rgg},
      {"er", nullptr, "er:N[,d=AVG_DEGREE|p=PROB]", "Erdos-Renyi G(n,p) (default d=16)", er},
      {"sbm", nullptr, "sbm:N[,blocks=8,pin=P,pout=Q]", "stochastic block model", sbm},
      {"grid", nullptr, "grid:SIDE[,d=3]", "SIDE^d grid (7-point stencil in 3D), mesh order", grid},
  };
  return table;
}

}  // namespace gc
