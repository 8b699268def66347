// The BFS view of a distributed graph (see bfs.hpp): the graph's rows, ghost
// neighbour indices, bitmap layout.
#include <limits>

#include <fmt/format.h>

#include "kernels/bfs/bfs.hpp"

namespace gc::bfs {

BfsGraph::BfsGraph(const Comm& comm, const DistGraph& graph)
    : g(graph), owned(graph.owned_count()), offsets(graph.offsets()), targets(graph.targets()) {
  // Frontier entries, hybrid's shared rows and the bitmaps hold 32-bit ids.
  constexpr auto kMax = std::numeric_limits<std::uint32_t>::max();
  if (graph.global_vertex_count() >= kMax)
    fail_everywhere(fmt::format("bfs: {} vertices exceed the 32-bit ids of the BFS kernel",
                                graph.global_vertex_count()));

  const GhostRelation& rel = graph.ghost_relation();
  ghost_nbr.resize(graph.ghost_count());
  ghost_ids.assign(graph.ghosts().begin(), graph.ghosts().end());
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

std::uint64_t BfsGraph::memory_bytes() const {
  return g.memory_bytes() + (ghost_nbr.capacity() + ghost_ids.capacity()) * sizeof(std::uint32_t) +
         (word_counts.capacity() + word_displs.capacity()) * sizeof(int);
}

}  // namespace gc::bfs
