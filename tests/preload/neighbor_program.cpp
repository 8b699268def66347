// An ordinary MPI program, built without anything of graphcomm: neighbour
// collectives on a dense process graph (every ordered pair of ranks an edge
// with probability 0.8, from a fixed hash), then one line with a checksum of
// everything every rank received. Run with and without
// LD_PRELOAD=libgraphcomm-nbr.so, the lines must be the same.
#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <vector>

namespace {

bool edge(int a, int b) {
  std::uint64_t x = static_cast<std::uint64_t>(a) * 1000003u + static_cast<std::uint64_t>(b) + 17;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  return a != b && x % 10 < 8;
}

std::uint64_t mix(std::uint64_t h, const std::vector<int>& v) {
  for (int x : v) h = (h ^ static_cast<std::uint64_t>(x)) * 1099511628211ULL;
  return h;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me = 0, p = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  std::vector<int> sources, destinations;
  for (int r = 0; r < p; ++r) {
    if (edge(me, r)) destinations.push_back(r);
    if (edge(r, me)) sources.push_back(r);
  }
  MPI_Comm graph;
  MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, static_cast<int>(sources.size()), sources.data(),
                                 MPI_UNWEIGHTED, static_cast<int>(destinations.size()),
                                 destinations.data(), MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &graph);
  const size_t in = sources.size() + 1, out = destinations.size() + 1;  // never empty
  std::uint64_t h = 1469598103934665603ULL;
  for (int round = 0; round < 5; ++round) {
    const int n = 1 + round * 7;
    std::vector<int> send(static_cast<size_t>(n)), recv(in * static_cast<size_t>(n), -1);
    for (int x = 0; x < n; ++x) send[static_cast<size_t>(x)] = me * 1000 + round * 100 + x;
    MPI_Neighbor_allgather(send.data(), n, MPI_INT, recv.data(), n, MPI_INT, graph);
    h = mix(h, recv);
    std::vector<int> blocks(out * static_cast<size_t>(n)), recv2(in * static_cast<size_t>(n), -1);
    for (size_t x = 0; x < blocks.size(); ++x)
      blocks[x] = me * 100000 + round * 1000 + static_cast<int>(x);
    MPI_Request request;
    MPI_Ineighbor_alltoall(blocks.data(), n, MPI_INT, recv2.data(), n, MPI_INT, graph, &request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    h = mix(h, recv2);
    std::vector<int> counts(out), displs(out), rcounts(in), rdispls(in);
    int total = 0;
    for (size_t j = 0; j < out; ++j) {
      counts[j] =
          1 + static_cast<int>((static_cast<size_t>(me) + j + static_cast<size_t>(round)) % 4);
      displs[j] = total;
      total += counts[j];
    }
    MPI_Neighbor_alltoall(counts.data(), 1, MPI_INT, rcounts.data(), 1, MPI_INT, graph);
    int rtotal = 0;
    for (size_t i = 0; i < in; ++i) {
      rdispls[i] = rtotal;
      rtotal += rcounts[i];
    }
    std::vector<int> data(static_cast<size_t>(total) + 1),
        recv3(static_cast<size_t>(rtotal) + 1, -1);
    for (int x = 0; x < total; ++x) data[static_cast<size_t>(x)] = me * 7919 + x;
    MPI_Neighbor_alltoallv(data.data(), counts.data(), displs.data(), MPI_INT, recv3.data(),
                           rcounts.data(), rdispls.data(), MPI_INT, graph);
    h = mix(h, recv3);
  }
  std::vector<unsigned long long> all(static_cast<size_t>(p));
  unsigned long long mine = h;
  MPI_Gather(&mine, 1, MPI_UNSIGNED_LONG_LONG, all.data(), 1, MPI_UNSIGNED_LONG_LONG, 0,
             MPI_COMM_WORLD);
  if (me == 0) {
    std::printf("checksums:");
    for (unsigned long long x : all) std::printf(" %016llx", x);
    std::printf("\n");
  }
  MPI_Comm_free(&graph);
  MPI_Finalize();
  return 0;
}
