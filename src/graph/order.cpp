#include "graph/order.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "core/output.hpp"
#include "graph/partitioners.hpp"

namespace gc {

const char* ordering_name(Ordering o) {
  switch (o) {
    case Ordering::none:
      return "none";
    case Ordering::rcm:
      return "rcm";
    case Ordering::scotch:
      return "scotch";
    case Ordering::metis:
      return "metis";
  }
  return "?";
}

Ordering parse_ordering(const std::string& name) {
  for (Ordering o : {Ordering::none, Ordering::rcm, Ordering::scotch, Ordering::metis})
    if (name == ordering_name(o)) return o;
  fail_everywhere(fmt::format("unknown ordering '{}': none, rcm, scotch or metis", name));
}

std::string ordering_unavailable(Ordering o) {
  if (o == Ordering::scotch) return scotch_unavailable();
  if (o == Ordering::metis) return metis_unavailable();
  return "";
}

std::vector<int> partition_graph(const Comm& comm, const DistGraph& g, Ordering method,
                                 Balance balance, std::uint64_t seed) {
  const std::string why = ordering_unavailable(method);
  if (!why.empty()) fail_everywhere(fmt::format("--partition {}: {}", ordering_name(method), why));
  if (comm.size() == 1) return std::vector<int>(g.owned_count(), 0);  // one part: nothing to cut
  if (method == Ordering::scotch) return partition_scotch(comm, g, balance, seed);
  if (method == Ordering::metis) return partition_metis(comm, g, balance, seed);
  fail_everywhere(fmt::format("{} is not a partitioner", ordering_name(method)));
}

Relabeling ranges_of_parts(const Comm& comm, const std::vector<int>& part) {
  const int p = comm.size();
  std::vector<std::uint64_t> mine(static_cast<size_t>(p), 0);
  for (int q : part) {
    if (q < 0 || q >= p) fail("internal: part out of range");
    ++mine[static_cast<size_t>(q)];
  }
  // counts[r*p + q]: vertices of part q on rank r.
  std::vector<std::uint64_t> counts(static_cast<size_t>(p) * static_cast<size_t>(p));
  MPI_Allgather(mine.data(), p, MPI_UINT64_T, counts.data(), p, MPI_UINT64_T, comm.get());
  std::vector<vid_t> offsets(static_cast<size_t>(p) + 1, 0), next(static_cast<size_t>(p), 0);
  for (int q = 0; q < p; ++q) {
    std::uint64_t size = 0, before_me = 0;
    for (int r = 0; r < p; ++r) {
      const std::uint64_t c = counts[static_cast<size_t>(r) * p + q];
      size += c;
      if (r < comm.rank()) before_me += c;
    }
    offsets[static_cast<size_t>(q) + 1] = offsets[static_cast<size_t>(q)] + size;
    next[static_cast<size_t>(q)] = offsets[static_cast<size_t>(q)] + before_me;
  }
  Relabeling out;
  out.new_ids.resize(part.size());
  for (size_t l = 0; l < part.size(); ++l) out.new_ids[l] = next[static_cast<size_t>(part[l])]++;
  out.target = Distribution::from_offsets(std::move(offsets));
  return out;
}

Relabeling ranges_of_order(const Comm& comm, const DistGraph& g, std::vector<vid_t> new_ids,
                           Balance balance) {
  Relabeling out;
  const Distribution blocks = Distribution::block(g.global_vertex_count(), comm.size());
  if (balance == Balance::vertices) {
    out.target = blocks;
  } else {
    // Degrees in the new order, laid out in blocks, then cut by edge_balanced.
    std::vector<Edge> degrees(g.owned_count());
    for (lid_t l = 0; l < g.owned_count(); ++l) degrees[l] = Edge{new_ids[l], g.degree(l), 0};
    std::vector<std::uint64_t> counts(static_cast<size_t>(comm.size()), 0);
    std::sort(degrees.begin(), degrees.end(),
              [](const Edge& a, const Edge& b) { return a.u < b.u; });
    for (const Edge& e : degrees) ++counts[static_cast<size_t>(blocks.owner_of(e.u))];
    degrees = alltoallv(comm, degrees, counts);
    const vid_t begin = blocks.begin(comm.rank());
    std::vector<eid_t> offsets(blocks.count(comm.rank()) + 1, 0);
    for (const Edge& e : degrees) offsets[e.u - begin + 1] = e.v;
    for (size_t i = 1; i < offsets.size(); ++i) offsets[i] += offsets[i - 1];
    out.target = edge_balanced(comm, blocks, offsets);
  }
  out.new_ids = std::move(new_ids);
  return out;
}

namespace {

// Every rank fills in what it owns (value + 1, 0 elsewhere); MAX agrees.
std::vector<vid_t> agree(const Comm& comm, std::vector<vid_t> found) {
  std::vector<vid_t> all(found.size());
  MPI_Allreduce(found.data(), all.data(), checked_count(found.size(), "id lookup"), MPI_UINT64_T,
                MPI_MAX, comm.get());
  for (vid_t& v : all) v = v == 0 ? kNoVertex : v - 1;
  return all;
}

}  // namespace

std::vector<vid_t> graph_ids_of(const Comm& comm, const DistGraph& g,
                                const std::vector<vid_t>& input_ids) {
  std::vector<vid_t> found(input_ids.size(), 0);
  if (!g.relabeled()) {
    for (size_t i = 0; i < input_ids.size(); ++i)
      if (g.is_owned(input_ids[i])) found[i] = input_ids[i] + 1;
  } else {
    std::vector<std::pair<vid_t, size_t>> sorted;
    for (size_t i = 0; i < input_ids.size(); ++i) sorted.emplace_back(input_ids[i], i);
    std::sort(sorted.begin(), sorted.end());
    for (lid_t l = 0; l < g.owned_count(); ++l) {
      auto it =
          std::lower_bound(sorted.begin(), sorted.end(), std::make_pair(g.input_id(l), size_t{0}));
      for (; it != sorted.end() && it->first == g.input_id(l); ++it)
        found[it->second] = g.global_id(l) + 1;
    }
  }
  return agree(comm, std::move(found));
}

std::vector<vid_t> input_ids_of(const Comm& comm, const DistGraph& g,
                                const std::vector<vid_t>& graph_ids) {
  std::vector<vid_t> found(graph_ids.size(), 0);
  for (size_t i = 0; i < graph_ids.size(); ++i)
    if (g.is_owned(graph_ids[i])) found[i] = g.input_id(graph_ids[i] - g.first_owned()) + 1;
  return agree(comm, std::move(found));
}

OrderedGraph order_graph(const Comm& comm, const DistGraph& g, Ordering ordering, Balance balance,
                         std::uint64_t seed) {
  OrderedGraph out;
  PhaseTimer order_timer(comm);
  Relabeling r = ordering == Ordering::rcm
                     ? ranges_of_order(comm, g, rcm_order(comm, g), balance)
                     : ranges_of_parts(comm, partition_graph(comm, g, ordering, balance, seed));
  out.order_seconds = order_timer.stop();
  PhaseTimer relabel_timer(comm);
  out.graph = relabel(comm, g, r.new_ids, r.target);
  out.relabel_seconds = relabel_timer.stop();
  return out;
}

}  // namespace gc
