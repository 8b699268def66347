// --partition metis: METIS's serial multilevel k-way partition (Karypis &
// Kumar, SISC 1998; METIS_PartGraphKway) on the graph gathered to rank 0,
// then scattered back. Debian main has METIS but not ParMETIS (non-free), so
// this is the one step of graphcomm that holds the whole graph on one rank:
// it refuses, with one error line, a graph whose gathered CSR and METIS's
// working memory would not fit in rank 0's share of the node.
#include <cstdlib>
#include <limits>

#include <fmt/format.h>

#include "core/memory.hpp"
#include "core/page_advice.hpp"
#include "graph/partitioners.hpp"

#if GRAPHCOMM_HAVE_METIS
#include <metis.h>
#endif

namespace gc {

#if GRAPHCOMM_HAVE_METIS

std::string metis_unavailable() {
  return "";
}

namespace {

// What rank 0 needs: the CSR in idx_t, weights, parts, and METIS's own
// coarsening hierarchy (a few times the graph; 5x assumed).
double gather_bytes(const DistGraph& g) {
  const double n = static_cast<double>(g.global_vertex_count());
  const double arcs = 2.0 * static_cast<double>(g.global_edge_count());
  return 6.0 * (n * 3 + arcs) * sizeof(idx_t);
}

// GRAPHCOMM_GATHER_LIMIT=BYTES replaces the node's memory in the check (tests).
double gather_limit(const Comm& comm) {
  if (const char* v = std::getenv("GRAPHCOMM_GATHER_LIMIT")) return std::atof(v);
  return 0.9 * static_cast<double>(node_memory_bytes()) / ranks_on_my_node(comm);
}

template <class T>
std::vector<T> gather_to_root(const Comm& comm, const std::vector<T>& mine) {
  std::vector<std::uint64_t> counts(static_cast<size_t>(comm.size()), 0);
  counts[0] = mine.size();
  return alltoallv(comm, mine, counts);
}

}  // namespace

std::vector<int> partition_metis(const Comm& comm, const DistGraph& g, Balance balance,
                                 std::uint64_t seed) {
  const vid_t n = g.global_vertex_count();
  const eid_t arcs = 2 * g.global_edge_count();
  const auto limit = static_cast<std::uint64_t>(std::numeric_limits<idx_t>::max());
  if (n >= limit || arcs >= limit)
    fail_everywhere(fmt::format(
        "--partition metis: {} vertices and {} directed edges exceed METIS's {}-bit ids; use "
        "--partition scotch",
        n, arcs, 8 * sizeof(idx_t)));
  const double need = gather_bytes(g), room = gather_limit(comm);
  if (max_over_ranks(comm, comm.rank() == 0 && need > room ? 1 : 0))
    fail_everywhere(fmt::format(
        "--partition metis gathers the graph on rank 0: it needs about {} there, more than the "
        "{} it may use; use --partition scotch (distributed)",
        format_bytes(need), format_bytes(room)));

  // Rows in global id order (ranks hold consecutive ranges).
  std::vector<idx_t> degrees(g.owned_count()), targets(g.local_edge_count()), weights;
  for (lid_t l = 0; l < g.owned_count(); ++l) degrees[l] = static_cast<idx_t>(g.degree(l));
  for (eid_t e = 0; e < g.local_edge_count(); ++e)
    targets[e] = static_cast<idx_t>(g.global_id(g.targets()[e]));
  if (balance == Balance::edges)
    for (lid_t l = 0; l < g.owned_count(); ++l)
      weights.push_back(static_cast<idx_t>(g.degree(l) + 1));
  std::vector<idx_t> xadj = gather_to_root(comm, degrees);
  std::vector<idx_t> adjncy = gather_to_root(comm, targets);
  std::vector<idx_t> vwgt = gather_to_root(comm, weights);
  release(targets);

  std::vector<int> all_parts;
  collectively(comm.get(), [&] {
    if (comm.rank() != 0) return;
    xadj.insert(xadj.begin(), 0);
    for (size_t i = 1; i < xadj.size(); ++i) xadj[i] += xadj[i - 1];
    idx_t options[METIS_NOPTIONS];
    METIS_SetDefaultOptions(options);
    options[METIS_OPTION_SEED] = static_cast<idx_t>(seed % static_cast<std::uint64_t>(limit));
    options[METIS_OPTION_NUMBERING] = 0;
    idx_t nvtxs = static_cast<idx_t>(n), ncon = 1, nparts = comm.size(), cut = 0;
    std::vector<idx_t> part(n, 0);
    const int status = METIS_PartGraphKway(&nvtxs, &ncon, xadj.data(), adjncy.data(),
                                           vwgt.empty() ? nullptr : vwgt.data(), nullptr, nullptr,
                                           &nparts, nullptr, nullptr, options, &cut, part.data());
    if (status != METIS_OK)
      fail(fmt::format("--partition metis: METIS_PartGraphKway failed ({})",
                       status == METIS_ERROR_INPUT    ? "input error"
                       : status == METIS_ERROR_MEMORY ? "out of memory"
                                                      : "error"));
    all_parts.assign(part.begin(), part.end());
  });
  // Back to the owners: rank r's rows are the r-th range.
  std::vector<std::uint64_t> counts(static_cast<size_t>(comm.size()), 0);
  if (comm.rank() == 0)
    for (int r = 0; r < comm.size(); ++r)
      counts[static_cast<size_t>(r)] = g.distribution().count(r);
  return alltoallv(comm, all_parts, counts);
}

#else

std::string metis_unavailable() {
  return GRAPHCOMM_METIS_MISSING;
}

std::vector<int> partition_metis(const Comm&, const DistGraph&, Balance, std::uint64_t) {
  fail_everywhere(std::string("--partition metis: ") + GRAPHCOMM_METIS_MISSING);
}

#endif

}  // namespace gc
