// Test helpers on distributed graphs: an order-independent checksum of the
// global directed edge set, the whole edge list gathered for small graphs, a
// distributed check that every edge has its reverse on the other endpoint's
// owner, agreement of a boolean over ranks, and a temporary directory shared
// by the ranks. All functions taking a Comm are collective.
#pragma once

#include <stdlib.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <filesystem>
#include <ostream>
#include <string>
#include <tuple>
#include <vector>

#include <mpi.h>

#include "core/mpi.hpp"
#include "graph/dist_graph.hpp"

namespace gc::test {

// One directed edge with its weight as a bit pattern, so that comparisons are
// exact and a set of them is ordered.
struct EdgeKey {
  vid_t u = 0, v = 0;
  std::uint64_t w = 0;  // bit pattern of the weight
  auto operator<=>(const EdgeKey&) const = default;
};

inline EdgeKey key(vid_t u, vid_t v, weight_t w) {
  return EdgeKey{u, v, std::bit_cast<std::uint64_t>(w)};
}
inline weight_t weight_of(const EdgeKey& e) {
  return std::bit_cast<weight_t>(e.w);
}

// splitmix64's finalizer: a bijective mix of a 64-bit word.
inline std::uint64_t mix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

// A 64-bit hash of one directed edge (u, v, bits of w); direction matters.
inline std::uint64_t edge_hash(vid_t u, vid_t v, weight_t w) {
  std::uint64_t h = mix64(u);
  h = mix64(h ^ (v * 0xD6E8FEB86659FD93ULL));
  return mix64(h ^ std::bit_cast<std::uint64_t>(w));
}

// The directed edges this rank owns, with global ids.
inline std::vector<EdgeKey> local_edges(const DistGraph& g) {
  std::vector<EdgeKey> out;
  out.reserve(g.local_edge_count());
  for (lid_t l = 0; l < g.owned_count(); ++l) {
    auto nbrs = g.neighbors(l);
    for (size_t j = 0; j < nbrs.size(); ++j)  // weight 0 when unweighted
      out.push_back(key(g.global_id(l), g.global_id(nbrs[j]), g.weight_at(g.offsets()[l] + j)));
  }
  return out;
}

// Global figures of a graph that do not depend on how it is distributed.
struct EdgeSetSummary {
  std::uint64_t checksum = 0;        // sum (mod 2^64) of edge_hash over directed edges
  std::uint64_t directed_edges = 0;  // sum of local_edge_count
  std::uint64_t vertices = 0;
  std::uint64_t edges = 0;  // global_edge_count (undirected)
  bool operator==(const EdgeSetSummary&) const = default;
};

inline EdgeSetSummary summarize_edges(const Comm& comm, const DistGraph& g) {
  std::uint64_t local = 0;
  for (const EdgeKey& e : local_edges(g)) local += edge_hash(e.u, e.v, weight_of(e));
  EdgeSetSummary s;
  s.checksum = sum_over_ranks<std::uint64_t>(comm, local);
  s.directed_edges = sum_over_ranks<std::uint64_t>(comm, g.local_edge_count());
  s.vertices = g.global_vertex_count();
  s.edges = g.global_edge_count();
  return s;
}

inline std::ostream& operator<<(std::ostream& os, const EdgeSetSummary& s) {
  return os << "{checksum " << s.checksum << ", directed " << s.directed_edges << ", vertices "
            << s.vertices << ", edges " << s.edges << "}";
}

// The whole directed edge list, sorted, on every rank (root < 0) or on `root`
// only (empty elsewhere). For small graphs.
inline std::vector<EdgeKey> gather_edges(const Comm& comm, const DistGraph& g, int root = -1) {
  const std::vector<EdgeKey> mine = local_edges(g);
  const int p = comm.size();
  std::vector<int> counts(static_cast<size_t>(p)), displs(static_cast<size_t>(p));
  int count = checked_count(mine.size(), "gathered edges");
  MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, comm.get());
  int total = 0;
  for (int r = 0; r < p; ++r) {
    displs[static_cast<size_t>(r)] = total;
    total += counts[static_cast<size_t>(r)];
  }
  const MPI_Datatype type = datatype_of<EdgeKey>();
  std::vector<EdgeKey> all;
  if (root < 0) {
    all.resize(static_cast<size_t>(total));
    MPI_Allgatherv(mine.data(), count, type, all.data(), counts.data(), displs.data(), type,
                   comm.get());
  } else {
    if (comm.rank() == root) all.resize(static_cast<size_t>(total));
    MPI_Gatherv(mine.data(), count, type, all.data(), counts.data(), displs.data(), type, root,
                comm.get());
  }
  std::sort(all.begin(), all.end());
  return all;
}

// Both directions of every undirected edge {u, v, w}, sorted: the directed edge
// set a DistGraph of that edge set must hold.
inline std::vector<EdgeKey> both_directions(
    const std::vector<std::tuple<vid_t, vid_t, weight_t>>& es) {
  std::vector<EdgeKey> out;
  for (const auto& [u, v, w] : es) {
    out.push_back(key(u, v, w));
    out.push_back(key(v, u, w));
  }
  std::sort(out.begin(), out.end());
  return out;
}

// True on every rank iff `ok` holds on every rank.
inline bool all_ranks(const Comm& comm, bool ok) {
  return min_over_ranks<int>(comm, ok ? 1 : 0) == 1;
}

// Counts (globally) the directed edges (u, v, w) whose reverse (v, u, w) is
// missing on the owner of v: each rank sends every edge to the owner of its
// target, which looks the reverse up in its own rows. Also counts self-loops
// and rows with a repeated target (duplicates) as violations.
inline std::uint64_t asymmetric_edges(const Comm& comm, const DistGraph& g) {
  const int p = comm.size();
  std::vector<EdgeKey> edges = local_edges(g);
  std::uint64_t bad = 0;
  for (const EdgeKey& e : edges)
    if (e.u == e.v) ++bad;
  for (lid_t l = 0; l < g.owned_count(); ++l) {
    std::vector<vid_t> targets;
    for (lid_t t : g.neighbors(l)) targets.push_back(g.global_id(t));
    std::sort(targets.begin(), targets.end());
    if (std::adjacent_find(targets.begin(), targets.end()) != targets.end()) ++bad;
  }
  std::sort(edges.begin(), edges.end(), [&](const EdgeKey& a, const EdgeKey& b) {
    return std::make_tuple(g.owner_of(a.v), a.u, a.v) < std::make_tuple(g.owner_of(b.v), b.u, b.v);
  });
  std::vector<std::uint64_t> counts(static_cast<size_t>(p), 0);
  for (EdgeKey& e : edges) {
    ++counts[static_cast<size_t>(g.owner_of(e.v))];
    std::swap(e.u, e.v);  // the reverse, to be found at its source's owner
  }
  const std::vector<EdgeKey> received = alltoallv(comm, edges, counts);
  std::vector<EdgeKey> mine = local_edges(g);
  std::sort(mine.begin(), mine.end());
  for (const EdgeKey& e : received)
    if (!std::binary_search(mine.begin(), mine.end(), e)) ++bad;
  // Reverses are one-to-one only if the counts agree as well.
  if (received.size() != mine.size()) ++bad;
  return sum_over_ranks<std::uint64_t>(comm, bad);
}

// A fresh directory under $TMPDIR (or /tmp) that every rank of `comm` knows;
// rank 0 creates it and removes it, with its contents, on destruction.
class TempDir {
 public:
  explicit TempDir(const Comm& comm, const char* tag) : comm_(comm) {
    std::string name;
    if (comm.rank() == 0) {
      const char* base = std::getenv("TMPDIR");
      std::string templ =
          std::string(base && *base ? base : "/tmp") + "/graphcomm_" + tag + ".XXXXXX";
      if (mkdtemp(templ.data())) name = templ;
    }
    unsigned long length = name.size();
    MPI_Bcast(&length, 1, MPI_UNSIGNED_LONG, 0, comm.get());
    name.resize(length);
    MPI_Bcast(name.data(), static_cast<int>(length), MPI_CHAR, 0, comm.get());
    path_ = name;
  }
  ~TempDir() {
    comm_.barrier();
    if (comm_.rank() == 0 && !path_.empty()) {
      std::error_code ec;
      std::filesystem::remove_all(path_, ec);
    }
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  bool ok() const { return !path_.empty(); }
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  const Comm& comm_;
  std::string path_;
};

}  // namespace gc::test
