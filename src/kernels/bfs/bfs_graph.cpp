// The BFS view of a distributed graph (see bfs.hpp): rows sorted by global id
// as local and as global ids, ghost neighbour indices, bitmap layout.
#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "kernels/bfs/bfs.hpp"

namespace gc::bfs {

BfsGraph::BfsGraph(const Comm& comm, const DistGraph& graph)
    : g(graph), owned(graph.owned_count()), offsets(graph.offsets()) {
  constexpr auto kMax = std::numeric_limits<std::uint32_t>::max();
  if (graph.global_vertex_count() >= kMax)
    fail_everywhere(fmt::format("bfs: {} vertices exceed the 32-bit ids of the BFS kernel",
                                graph.global_vertex_count()));

  // Local ids in global order: ghosts below my range, my vertices, ghosts
  // above it. Each group is already in increasing global id, so sorting a row
  // by this key sorts it by global id.
  const auto& ghosts = graph.ghosts();
  const std::uint32_t low = static_cast<std::uint32_t>(
      std::lower_bound(ghosts.begin(), ghosts.end(), graph.first_owned()) - ghosts.begin());
  const std::uint32_t n_owned = static_cast<std::uint32_t>(owned);
  auto key = [&](std::uint32_t l) -> std::uint32_t {
    if (l < n_owned) return low + l;
    return l - n_owned < low ? l - n_owned : l;
  };
  auto unkey = [&](std::uint32_t k) -> std::uint32_t {
    if (k < low) return n_owned + k;
    return k < low + n_owned ? k - low : k;
  };
  const auto& source = graph.targets();
  local_targets.resize(source.size());
  global_targets.resize(source.size());
  for (size_t e = 0; e < source.size(); ++e)
    local_targets[e] = key(static_cast<std::uint32_t>(source[e]));
  for (lid_t v = 0; v < owned; ++v)
    std::sort(local_targets.begin() + static_cast<std::ptrdiff_t>(offsets[v]),
              local_targets.begin() + static_cast<std::ptrdiff_t>(offsets[v + 1]));
  for (size_t e = 0; e < source.size(); ++e) {
    local_targets[e] = unkey(local_targets[e]);
    global_targets[e] = static_cast<std::uint32_t>(graph.global_id(local_targets[e]));
  }

  const GhostRelation& rel = graph.ghost_relation();
  ghost_nbr.resize(graph.ghost_count());
  for (size_t i = 0; i < rel.ranks.size(); ++i)
    for (lid_t l = rel.ghost_begin[i]; l < rel.ghost_end[i]; ++l)
      ghost_nbr[l - owned] = static_cast<std::uint32_t>(i);

  const Distribution& dist = graph.distribution();
  const int p = comm.size();
  bitmap_words = (graph.global_vertex_count() + 63) / 64;
  for (int r = 0; r < p; ++r) aligned &= dist.begin(r) % 64 == 0;
  word_counts.resize(static_cast<size_t>(p));
  word_displs.resize(static_cast<size_t>(p));
  for (int r = 0; r < p; ++r) {
    const std::uint64_t words = (dist.count(r) + 63) / 64;
    const std::uint64_t at = aligned ? dist.begin(r) / 64 : gathered_words;
    word_counts[static_cast<size_t>(r)] = checked_count(words, "bitmap words");
    word_displs[static_cast<size_t>(r)] = checked_count(at, "bitmap displacement");
    gathered_words += words;
  }
}

}  // namespace gc::bfs
