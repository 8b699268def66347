#include "kernels/spmm/spmm.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <numeric>
#include <optional>

#include <fmt/format.h>

#include "core/broadcast.hpp"
#include "core/output.hpp"
#include "core/registry.hpp"
#include "nbr/collectives.hpp"

namespace gc::spmm {

namespace {

// A block of rows as 64-bit words: first, count, offsets, columns, values.
std::vector<std::uint64_t> serialize(const Rows& r) {
  std::vector<std::uint64_t> out{r.first, r.count()};
  out.insert(out.end(), r.offsets.begin(), r.offsets.end());
  out.insert(out.end(), r.columns.begin(), r.columns.end());
  for (double v : r.values) out.push_back(std::bit_cast<std::uint64_t>(v));
  return out;
}

Rows deserialize(const std::uint64_t* w) {
  Rows r;
  r.first = w[0];
  const std::uint64_t n = w[1];
  r.offsets.assign(w + 2, w + 3 + n);
  const std::uint64_t nnz = r.offsets.back();
  r.columns.assign(w + 3 + n, w + 3 + n + nnz);
  for (std::uint64_t k = 0; k < nnz; ++k)
    r.values.push_back(std::bit_cast<double>(w[3 + n + nnz + k]));
  return r;
}

// C's rows for `a`'s rows, given every row of A they refer to through
// `row_of(j)` (a RowRef: a pointer into some Rows and its index there). Rows
// of C sorted by column; sums in the order of A's entries, so the result does
// not depend on the distribution. Not inlined into run(), whose live variables
// made the compiler spill this loop's variables.
template <typename Find>
[[gnu::noinline]] Rows multiply(const Rows& a, vid_t n, const Find& row_of) {
  Rows c;
  c.first = a.first;
  std::vector<double> sum_of(n, 0.0);
  std::vector<char> seen_of(n, 0);
  double* sum = sum_of.data();
  char* seen = seen_of.data();
  std::vector<std::uint64_t> touched;
  for (std::uint64_t i = 0; i < a.count(); ++i) {
    touched.clear();
    for (std::uint64_t e = a.offsets[i]; e < a.offsets[i + 1]; ++e) {
      const RowRef b = row_of(a.columns[e]);
      const double x = a.values[e];
      const std::uint64_t* columns = b.rows->columns.data();
      const double* values = b.rows->values.data();
      for (std::uint64_t f = b.rows->offsets[b.index]; f < b.rows->offsets[b.index + 1]; ++f) {
        const std::uint64_t k = columns[f];
        if (!seen[k]) {
          seen[k] = 1;
          touched.push_back(k);
        }
        sum[k] += x * values[f];
      }
    }
    std::sort(touched.begin(), touched.end());
    for (std::uint64_t k : touched) {
      c.columns.push_back(k);
      c.values.push_back(sum[k]);
      sum[k] = 0;
      seen[k] = 0;
    }
    c.offsets.push_back(c.columns.size());
  }
  return c;
}

std::vector<int> displacements(const std::vector<int>& counts) {
  std::vector<int> d(counts.size(), 0);
  for (size_t i = 1; i < counts.size(); ++i) d[i] = d[i - 1] + counts[i - 1];
  return d;
}

}  // namespace

const std::vector<MethodInfo>& method_table() {
  static const std::vector<MethodInfo> table = {
      {Method::allgather, "allgather", "MPI_Allgatherv of every block"},
      {Method::neighbor, "neighbor", "MPI_Neighbor_allgatherv over the topology of A's nonzeros"},
      {Method::combined, "combined",
       "the neighbour allgatherv through a collaborative plan of nbr/"},
  };
  return table;
}

Method parse_method(const std::string& name) {
  return key_named(method_table(), &MethodInfo::method, name, "SpMM method");
}

const char* method_name(Method m) {
  return name_of_key(method_table(), &MethodInfo::method, m);
}

Rows rows_of(const DistGraph& g) {
  Rows r;
  r.first = g.first_owned();
  std::vector<std::pair<std::uint64_t, double>> row;
  for (lid_t l = 0; l < g.owned_count(); ++l) {
    row.clear();
    const auto nbrs = g.neighbors(l);
    const auto w = g.weights(l);
    for (size_t k = 0; k < nbrs.size(); ++k) row.emplace_back(g.global_id(nbrs[k]), w[k]);
    std::sort(row.begin(), row.end());
    for (const auto& [col, val] : row) {
      r.columns.push_back(col);
      r.values.push_back(val);
    }
    r.offsets.push_back(r.columns.size());
  }
  return r;
}

Result run(const Comm& comm, const DistGraph& g, Method method, int iters,
           const nbr::PlanOptions& plan_options) {
  Result result;
  const Rows a = rows_of(g);
  const std::vector<std::uint64_t> mine = serialize(a);
  const int words = static_cast<int>(mine.size());
  const MPI_Datatype word_type = datatype_of<std::uint64_t>();
  const Distribution& dist = g.distribution();
  const int p = comm.size();

  // Setup: the topology of A's nonzeros (symmetric: A is), the plan, and
  // the block sizes, once.
  PhaseTimer setup_timer(comm);
  const std::vector<int>& nbrs = g.ghost_relation().ranks;
  Comm topology;
  std::optional<nbr::Collectives> combined;
  std::vector<int> counts, displs, sources;
  if (method == Method::allgather) {
    counts = allgather(comm, words);
    sources.resize(static_cast<size_t>(p));
    std::iota(sources.begin(), sources.end(), 0);
  } else {
    topology = comm.dist_graph_adjacent(nbrs);
    if (method == Method::combined) combined.emplace(topology.get(), plan_options);
    counts.resize(std::max<size_t>(nbrs.size(), 1));
    neighbor_allgather(&words, 1, datatype_of<int>(), counts.data(), 1, datatype_of<int>(),
                       topology.get());
    counts.resize(nbrs.size());
    sources = nbrs;
  }
  displs = displacements(counts);
  std::vector<std::uint64_t> received(
      std::max<std::uint64_t>(1, std::accumulate(counts.begin(), counts.end(), std::uint64_t{0})));
  if (counts.empty()) counts.assign(1, 0), displs.assign(1, 0);  // MPI wants arrays
  // The combined gather is persistent: A's row blocks keep their sizes, so
  // friends learn each other's in the first call and send no header after.
  std::optional<nbr::Persistent> gather_rows;
  if (method == Method::combined)
    gather_rows.emplace(combined->allgatherv_init(mine.data(), words, word_type, received.data(),
                                                  counts.data(), displs.data(), word_type));
  result.setup_seconds = setup_timer.stop();
  if (method == Method::allgather)
    result.messages = static_cast<std::uint64_t>(p) * static_cast<std::uint64_t>(p - 1);
  else if (method == Method::neighbor)
    result.messages = sum_over_ranks<std::uint64_t>(comm, nbrs.size());
  else
    result.messages = sum_over_ranks(comm, combined->plan().figures.messages);

  double gather = 0, mult = 0;
  std::vector<Rows> blocks(static_cast<size_t>(p));
  for (int it = 0; it < iters; ++it) {
    comm.barrier();
    const double start = MPI_Wtime();
    if (method == Method::allgather)
      MPI_Allgatherv(mine.data(), words, word_type, received.data(), counts.data(), displs.data(),
                     word_type, comm.get());
    else if (method == Method::neighbor)
      neighbor_allgatherv(mine.data(), words, word_type, received.data(), counts.data(),
                          displs.data(), word_type, topology.get());
    else {
      gather_rows->start();
      gather_rows->wait();
    }
    for (size_t s = 0; s < sources.size(); ++s)
      if (sources[s] != comm.rank())
        blocks[static_cast<size_t>(sources[s])] = deserialize(received.data() + displs[s]);
    const double t1 = MPI_Wtime();
    gather += t1 - start;
    result.c = multiply(a, g.global_vertex_count(), [&](std::uint64_t j) {
      const int owner = dist.owner_of(j);
      const Rows* rows = owner == comm.rank() ? &a : &blocks[static_cast<size_t>(owner)];
      return RowRef{rows, j - rows->first};
    });
    mult += MPI_Wtime() - t1;
  }
  result.gather_seconds = max_over_ranks(comm, gather / std::max(iters, 1));
  result.multiply_seconds = max_over_ranks(comm, mult / std::max(iters, 1));
  return result;
}

std::string check(const Comm& comm, const DistGraph& g, const Rows& c) {
  const int p = comm.size();
  // Gather A's and C's blocks on rank 0.
  auto gather_blocks = [&](const Rows& r) {
    std::vector<int> counts;
    const std::vector<std::uint64_t> all = gatherv(comm, serialize(r), 0, &counts);
    const std::vector<int> displs = displacements(counts);
    std::vector<Rows> out;
    if (comm.rank() == 0)
      for (int q = 0; q < p; ++q)
        out.push_back(deserialize(all.data() + displs[static_cast<size_t>(q)]));
    return out;
  };
  const std::vector<Rows> a = gather_blocks(rows_of(g));
  const std::vector<Rows> got = gather_blocks(c);
  std::string verdict = "OK";
  if (comm.rank() == 0) {
    const Distribution& dist = g.distribution();
    for (int q = 0; q < p && verdict == "OK"; ++q) {
      const Rows want =
          multiply(a[static_cast<size_t>(q)], g.global_vertex_count(), [&](std::uint64_t j) {
            const Rows& rows = a[static_cast<size_t>(dist.owner_of(j))];
            return RowRef{&rows, j - rows.first};
          });
      const Rows& have = got[static_cast<size_t>(q)];
      for (std::uint64_t i = 0; i < want.count() && verdict == "OK"; ++i) {
        const auto span = [](const Rows& r, std::uint64_t i) {
          return std::make_pair(r.offsets[i], r.offsets[i + 1]);
        };
        const auto [wb, we] = span(want, i);
        const auto [hb, he] = i < have.count() ? span(have, i) : std::make_pair(0ul, 0ul);
        const bool same = we - wb == he - hb &&
                          std::equal(want.columns.begin() + static_cast<std::ptrdiff_t>(wb),
                                     want.columns.begin() + static_cast<std::ptrdiff_t>(we),
                                     have.columns.begin() + static_cast<std::ptrdiff_t>(hb)) &&
                          std::equal(want.values.begin() + static_cast<std::ptrdiff_t>(wb),
                                     want.values.begin() + static_cast<std::ptrdiff_t>(we),
                                     have.values.begin() + static_cast<std::ptrdiff_t>(hb));
        if (!same)
          verdict = fmt::format("row {} of C differs from the serial product", want.first + i);
      }
    }
  }
  broadcast(verdict, 0, comm.get());
  return verdict;
}

}  // namespace gc::spmm
