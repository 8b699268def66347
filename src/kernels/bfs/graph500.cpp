// Graph500 benchmark rules ("Graph 500 Benchmark 1 (Search)", specification
// 2.1/3.0, sections on search keys, timing and output): search keys sampled
// among vertices of degree >= 1, nedge counted over the input tuples, and the
// statistics of the reference code (quartiles as the mean of the two middle
// order statistics; TEPS summarized by the harmonic mean with Norris's
// standard error).
#include "kernels/bfs/graph500.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "core/rng.hpp"
#include "graph/order.hpp"

namespace gc::bfs {

std::vector<vid_t> choose_keys(const Comm& comm, const DistGraph& g, int count,
                               std::uint64_t seed) {
  const vid_t n = g.global_vertex_count();
  std::uint64_t local_candidates = 0;
  for (lid_t l = 0; l < g.owned_count(); ++l) local_candidates += g.degree(l) > 0;
  const std::uint64_t candidates = sum_over_ranks(comm, local_candidates);
  std::vector<vid_t> keys;
  const std::uint64_t wanted =
      std::min<std::uint64_t>(static_cast<std::uint64_t>(count), candidates);
  if (wanted == 0) return keys;

  // Sparse graphs (few vertices with edges): shuffle the candidates instead
  // of sampling ids, which would rarely hit one.
  if (candidates * 64 < n || wanted == candidates) {
    std::vector<vid_t> mine;
    for (lid_t l = 0; l < g.owned_count(); ++l)
      if (g.degree(l) > 0) mine.push_back(g.input_id(l));
    std::vector<vid_t> all = allgatherv(comm, mine);
    std::sort(all.begin(), all.end());  // increasing input ids, however relabeled
    const CounterRng rng(seed);
    for (std::uint64_t i = 0; i + 1 < all.size(); ++i) {  // Fisher-Yates from the seed
      const std::uint64_t j = i + rng.words(Stream::bfs_key, i)[0] % (all.size() - i);
      std::swap(all[i], all[j]);
    }
    all.resize(wanted);
    return g.relabeled() ? graph_ids_of(comm, g, all) : all;
  }

  // Sampled as input ids, so that a reordered graph is searched from the same
  // vertices.
  constexpr std::uint64_t kBatch = 1024;
  const CounterRng rng(seed);
  std::set<vid_t> chosen;
  for (std::uint64_t batch = 0; keys.size() < wanted; ++batch) {
    std::vector<vid_t> ids(kBatch);
    std::vector<std::uint8_t> ok(kBatch, 0);
    for (std::uint64_t i = 0; i < kBatch; ++i)
      ids[i] = rng.words(Stream::bfs_key, batch * kBatch + i)[0] % n;
    const std::vector<vid_t> at = g.relabeled() ? graph_ids_of(comm, g, ids) : ids;
    for (std::uint64_t i = 0; i < kBatch; ++i)
      if (g.is_owned(at[i])) ok[i] = g.degree(at[i] - g.first_owned()) > 0;
    const std::vector<std::uint8_t> ok_any = allreduce_each(comm, ok, MPI_MAX);
    for (std::uint64_t i = 0; i < kBatch && keys.size() < wanted; ++i)
      if (ok_any[i] && chosen.insert(ids[i]).second) keys.push_back(ids[i]);
  }
  return g.relabeled() ? graph_ids_of(comm, g, keys) : keys;
}

std::vector<std::uint32_t> tuple_endpoint_counts(const Comm& comm, const Distribution& dist,
                                                 std::span<const Edge> edges) {
  std::vector<std::uint32_t> out;
  add_tuple_endpoint_counts(comm, dist, edges, out);
  return out;
}

void add_tuple_endpoint_counts(const Comm& comm, const Distribution& dist,
                               std::span<const Edge> edges, std::vector<std::uint32_t>& counts) {
  // In slices of kSlice tuples, each endpoint sent to its owner as its
  // offset in the owner's range (4 bytes): counting adds little to the
  // load's peak (two 8-byte ids per tuple, sent and received at once, were
  // 32 bytes per tuple on top of the list's 24).
  constexpr std::size_t kSlice = std::size_t{1} << 18;
  const size_t p = static_cast<size_t>(comm.size());
  const std::uint64_t slices =
      max_over_ranks<std::uint64_t>(comm, (edges.size() + kSlice - 1) / kSlice);
  counts.resize(dist.count(comm.rank()), 0);
  std::vector<std::uint64_t> per_rank(p), at(p);
  std::vector<std::uint32_t> send;
  for (std::uint64_t slice = 0; slice < slices; ++slice) {
    const std::span<const Edge> part =
        edges.subspan(std::min(edges.size(), slice * kSlice))
            .first(std::min(kSlice, edges.size() - std::min(edges.size(), slice * kSlice)));
    std::fill(per_rank.begin(), per_rank.end(), 0);
    for (const Edge& e : part) {
      ++per_rank[static_cast<size_t>(dist.owner_of(e.u))];
      ++per_rank[static_cast<size_t>(dist.owner_of(e.v))];
    }
    at[0] = 0;
    for (size_t r = 1; r < p; ++r) at[r] = at[r - 1] + per_rank[r - 1];
    send.resize(2 * part.size());
    for (const Edge& e : part)
      for (const vid_t v : {e.u, e.v}) {
        const int r = dist.owner_of(v);
        send[at[static_cast<size_t>(r)]++] = static_cast<std::uint32_t>(v - dist.begin(r));
      }
    for (std::uint32_t offset : alltoallv(comm, send, per_rank)) ++counts[offset];
  }
}

namespace {
constexpr std::int64_t kUnknown = -1, kOnPath = -3;
}  // namespace

std::string tree_depths(const std::vector<vid_t>& parent, vid_t root,
                        std::vector<std::int64_t>& depth) {
  constexpr vid_t kNoParent = ~vid_t{0};
  const vid_t n = parent.size();
  depth.assign(n, kUnknown);
  if (parent[root] != root)
    return fmt::format("the root {} is not its own parent (parent {})", root, parent[root]);
  depth[root] = 0;
  std::vector<vid_t> path;
  for (vid_t v = 0; v < n; ++v) {
    if (depth[v] != kUnknown) continue;
    if (parent[v] == kNoParent) {
      depth[v] = kNotInTree;
      continue;
    }
    // Walk up to a vertex of known depth, then assign depths on the way back.
    path.clear();
    vid_t x = v;
    while (depth[x] == kUnknown) {
      if (parent[x] == kNoParent)
        return fmt::format("vertex {} has a parent chain ending at {}, which has no parent", v, x);
      if (parent[x] >= n) return fmt::format("vertex {} has parent {} out of range", x, parent[x]);
      depth[x] = kOnPath;
      path.push_back(x);
      x = parent[x];
    }
    if (depth[x] == kOnPath) return fmt::format("the parent chain of vertex {} has a cycle", v);
    if (depth[x] == kNotInTree)
      return fmt::format("vertex {} has a parent chain ending at {}, which has no parent", v, x);
    std::int64_t d = depth[x];
    for (auto it = path.rbegin(); it != path.rend(); ++it) depth[*it] = ++d;
  }
  return "";
}

Statistics statistics(std::vector<double> x) {
  Statistics s;
  const size_t n = x.size();
  if (n == 0) return s;
  for (double v : x) s.mean += v;
  s.mean /= static_cast<double>(n);
  if (n > 1) {
    for (double v : x) s.stddev += (v - s.mean) * (v - s.mean);
    s.stddev = std::sqrt(s.stddev / static_cast<double>(n - 1));
  }
  std::sort(x.begin(), x.end());
  s.min = x.front();
  s.max = x.back();
  s.firstquartile = (x[(n - 1) / 4] + x[n / 4]) * 0.5;
  s.median = (x[(n - 1) / 2] + x[n / 2]) * 0.5;
  s.thirdquartile = (x[n - 1 - (n - 1) / 4] + x[n - 1 - n / 4]) * 0.5;
  return s;
}

TepsSummary summarize(const Graph500Figures& f) {
  TepsSummary out;
  out.time = statistics(f.seconds);
  out.nedge = statistics(f.nedge);
  out.validate = statistics(f.validate_seconds);
  // TEPS through seconds per edge: its mean is the reciprocal of the
  // harmonic mean of TEPS, its order statistics those of TEPS reversed.
  std::vector<double> per_edge;
  for (size_t i = 0; i < f.seconds.size(); ++i) per_edge.push_back(f.seconds[i] / f.nedge[i]);
  const Statistics s = statistics(per_edge);
  out.teps = {1 / s.max, 1 / s.thirdquartile, 1 / s.median, 1 / s.firstquartile, 1 / s.min, 0, 0};
  out.harmonic_mean = 1 / s.mean;
  const double n = static_cast<double>(per_edge.size());
  out.harmonic_stddev = n > 1 ? s.stddev / (s.mean * s.mean * std::sqrt(n - 1)) : 0;
  return out;
}

std::string output_block(const Graph500Figures& f, const std::string& kernel) {
  const TepsSummary t = summarize(f);
  const std::string k = kernel.empty() ? "" : kernel + " ";
  std::string out;
  auto line = [&](const char* key, auto value) { out += fmt::format("{}: {}\n", key, value); };
  auto real = [&](const char* key, double value) {
    out += fmt::format("{}: {:.6g}\n", key, value);
  };
  auto stats = [&](const std::string& prefix, const char* suffix, const Statistics& s,
                   bool with_mean) {
    real(fmt::format("{}min_{}", prefix, suffix).c_str(), s.min);
    real(fmt::format("{}firstquartile_{}", prefix, suffix).c_str(), s.firstquartile);
    real(fmt::format("{}median_{}", prefix, suffix).c_str(), s.median);
    real(fmt::format("{}thirdquartile_{}", prefix, suffix).c_str(), s.thirdquartile);
    real(fmt::format("{}max_{}", prefix, suffix).c_str(), s.max);
    if (with_mean) {
      real(fmt::format("{}mean_{}", prefix, suffix).c_str(), s.mean);
      real(fmt::format("{}stddev_{}", prefix, suffix).c_str(), s.stddev);
    }
  };
  if (f.scale > 0) {
    line("SCALE", f.scale);
    line("edgefactor", f.edgefactor);
  }
  line("NBFS", f.seconds.size());
  real("graph_generation", f.generation_seconds);
  line("num_mpi_processes", f.ranks);
  real("construction_time", f.construction_seconds);
  stats(k, "time", t.time, true);
  stats("", "nedge", t.nedge, true);
  stats(k, "TEPS", t.teps, false);
  real((k + "harmonic_mean_TEPS").c_str(), t.harmonic_mean);
  real((k + "harmonic_stddev_TEPS").c_str(), t.harmonic_stddev);
  stats(k, "validate", t.validate, true);
  return out;
}

}  // namespace gc::bfs
