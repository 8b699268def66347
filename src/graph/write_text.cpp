#include "graph/write_text.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "core/mpi_file.hpp"
#include "core/output.hpp"

namespace gc {

namespace {

// Writes rank 0's header then every rank's text, in rank order.
void write_blocks(const Comm& comm, const std::string& path, const std::string& header,
                  const std::string& body) {
  write_atomically(comm, path, [&](const std::string& tmp) {
    MpiFile file(comm, tmp, MPI_MODE_WRONLY | MPI_MODE_CREATE);
    MPI_File_set_size(file.get(), 0);
    const std::uint64_t header_bytes = comm.rank() == 0 ? header.size() : 0;
    const std::uint64_t head = max_over_ranks(comm, header_bytes);
    const std::uint64_t before = exscan_sum<std::uint64_t>(comm, body.size());
    file.write_all(0, header.data(), header_bytes);
    file.write_all(static_cast<MPI_Offset>(head + before), body.data(), body.size());
  });
}

// Each undirected edge once: from the copy whose source has the larger id.
template <class Fn>
void for_each_undirected_edge(const DistGraph& g, Fn&& fn) {
  for (lid_t l = 0; l < g.owned_count(); ++l) {
    const vid_t u = g.global_id(l);
    auto nbrs = g.neighbors(l);
    auto ws = g.weights(l);
    for (size_t j = 0; j < nbrs.size(); ++j) {
      const vid_t v = g.global_id(nbrs[j]);
      if (u > v) fn(u, v, ws[j]);
    }
  }
}

}  // namespace

void write_matrix_market(const Comm& comm, const DistGraph& g, const std::string& path) {
  std::string header = fmt::format(
      "%%MatrixMarket matrix coordinate real symmetric\n% written by graphcomm {}\n{} {} {}\n",
      GRAPHCOMM_VERSION, g.global_vertex_count(), g.global_vertex_count(), g.global_edge_count());
  fmt::memory_buffer body;
  for_each_undirected_edge(g, [&](vid_t u, vid_t v, weight_t w) {
    fmt::format_to(std::back_inserter(body), "{} {} {}\n", u + 1, v + 1, w);
  });
  write_blocks(comm, path, header, std::string(body.data(), body.size()));
}

void write_edge_list(const Comm& comm, const DistGraph& g, const std::string& path, int id_base) {
  std::string header =
      fmt::format("# written by graphcomm {}: {} vertices, {} edges, ids from {}\n",
                  GRAPHCOMM_VERSION, g.global_vertex_count(), g.global_edge_count(), id_base);
  fmt::memory_buffer body;
  for_each_undirected_edge(g, [&](vid_t u, vid_t v, weight_t w) {
    fmt::format_to(std::back_inserter(body), "{}\t{}\t{}\n", v + id_base, u + id_base, w);
  });
  write_blocks(comm, path, header, std::string(body.data(), body.size()));
}

void write_id_pairs(const Comm& comm, const std::vector<Edge>& pairs, const std::string& path) {
  std::vector<std::uint64_t> counts(static_cast<size_t>(comm.size()), 0);
  counts[0] = pairs.size();
  std::vector<Edge> all = alltoallv(comm, pairs, counts);
  collectively(comm.get(), [&] {
    if (comm.rank() != 0) return;
    std::sort(all.begin(), all.end(), [](const Edge& a, const Edge& b) { return a.u < b.u; });
    write_file_atomically(path, [&](std::ostream& os) {
      for (const Edge& e : all) os << e.u << ' ' << e.v << '\n';
    });
  });
}

}  // namespace gc
