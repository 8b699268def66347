#include "nbr/topologies.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "core/broadcast.hpp"
#include "core/error.hpp"
#include "core/neighborhood.hpp"
#include "core/rng.hpp"

namespace gc::nbr {

namespace {

void check_moore(int d, int r) {
  if (d < 1 || r < 1) fail_everywhere(fmt::format("moore:{}:{}: D and R must be at least 1", d, r));
}

// The periodic grid of ranks of a Moore topology and its stencil.
struct MooreGrid {
  std::vector<int> dims;
  int span = 0, stencil = 1;
  MooreGrid(int ranks, int d, int r) : dims(static_cast<size_t>(d), 0), span(2 * r + 1) {
    MPI_Dims_create(ranks, d, dims.data());
    for (int i = 0; i < d; ++i) stencil *= span;
  }
  // The rank at offset `o` of the stencil (mixed radix, first dimension
  // fastest) from `rank`, `sign` -1 for the opposite offset; -1 for the centre.
  int neighbour(int rank, int o, int sign) const {
    const int d = static_cast<int>(dims.size()), r = span / 2;
    std::vector<int> at(dims.size());
    for (int x = rank, i = d - 1; i >= 0; --i) {  // row-major coordinates, as MPI_Cart_coords
      at[static_cast<size_t>(i)] = x % dims[static_cast<size_t>(i)];
      x /= dims[static_cast<size_t>(i)];
    }
    int to = 0, x = o;
    bool centre = true;
    for (int i = 0; i < d; ++i) {
      const int offset = sign * (x % span - r), n = dims[static_cast<size_t>(i)];
      x /= span;
      centre = centre && offset == 0;
      to = to * n + ((at[static_cast<size_t>(i)] + offset) % n + n) % n;
    }
    return centre ? -1 : to;
  }
};

bool random_edge(const CounterRng& rng, int ranks, double density, int a, int b) {
  const auto pair = static_cast<std::uint64_t>(a) * static_cast<std::uint64_t>(ranks) +
                    static_cast<std::uint64_t>(b);
  return static_cast<double>(rng.words(Stream::edge_weight, pair, 1)[0] >> 11) * 0x1.0p-53 <
         density;
}

void check_density(double density) {
  if (!(density >= 0 && density <= 1))
    fail_everywhere(fmt::format("random:{}: the density must be in [0, 1]", density));
}

}  // namespace

EdgeList moore_topology(int ranks, int d, int r) {
  check_moore(d, r);
  const MooreGrid grid(ranks, d, r);
  EdgeList edges;
  for (int rank = 0; rank < ranks; ++rank)
    for (int o = 0; o < grid.stencil; ++o)
      if (const int to = grid.neighbour(rank, o, 1); to >= 0) edges.emplace_back(rank, to);
  return edges;
}

void moore_lists(int ranks, int d, int r, int rank, std::vector<int>& sources,
                 std::vector<int>& destinations) {
  check_moore(d, r);
  const MooreGrid grid(ranks, d, r);
  destinations.clear();
  sources.clear();
  // Incoming: rank - offset sends to rank at offset; in the whole list's
  // order, by sender and then by the sender's stencil position.
  std::vector<std::pair<int, int>> incoming;  // (from, o)
  for (int o = 0; o < grid.stencil; ++o) {
    if (const int to = grid.neighbour(rank, o, 1); to >= 0) destinations.push_back(to);
    if (const int from = grid.neighbour(rank, o, -1); from >= 0) incoming.emplace_back(from, o);
  }
  std::sort(incoming.begin(), incoming.end());
  for (const auto& [from, o] : incoming) sources.push_back(from);
}

EdgeList random_topology(int ranks, double density, std::uint64_t seed) {
  check_density(density);
  const CounterRng rng(seed);
  EdgeList edges;
  for (int a = 0; a < ranks; ++a)
    for (int b = 0; b < ranks; ++b)
      if (a != b && random_edge(rng, ranks, density, a, b)) edges.emplace_back(a, b);
  return edges;
}

void random_lists(int ranks, double density, std::uint64_t seed, int rank,
                  std::vector<int>& sources, std::vector<int>& destinations) {
  check_density(density);
  const CounterRng rng(seed);
  sources.clear();
  destinations.clear();
  for (int other = 0; other < ranks; ++other) {
    if (other == rank) continue;
    if (random_edge(rng, ranks, density, other, rank)) sources.push_back(other);
    if (random_edge(rng, ranks, density, rank, other)) destinations.push_back(other);
  }
}

EdgeList file_topology(MPI_Comm comm, const std::string& path) {
  int me = 0, ranks = 0;
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &ranks);
  std::vector<int> flat;
  std::string problem;
  if (me == 0) {
    std::ifstream in(path);
    if (!in) problem = fmt::format("{}: cannot open", path);
    std::string line;
    for (int number = 1; problem.empty() && std::getline(in, line); ++number) {
      if (const auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      const auto colon = line.find(':');
      std::istringstream head(line.substr(0, colon)),
          tail(colon == std::string::npos ? "" : line.substr(colon + 1));
      int from = -1;
      std::string rest;
      if (colon == std::string::npos || !(head >> from) || (head >> rest)) {
        problem = fmt::format("{}:{}: expected 'r: n1 n2 ...'", path, number);
        break;
      }
      std::string word;
      while (problem.empty() && tail >> word) {
        size_t used = 0;
        int to = -1;
        try {
          to = std::stoi(word, &used);
        } catch (const std::exception&) {
          used = 0;
        }
        if (used != word.size())
          problem = fmt::format("{}:{}: '{}' is not a rank", path, number, word);
        else if (from < 0 || from >= ranks || to < 0 || to >= ranks)
          problem =
              fmt::format("{}:{}: rank out of range (the job has {} ranks)", path, number, ranks);
        else {
          flat.push_back(from);
          flat.push_back(to);
        }
      }
    }
  }
  broadcast(problem, 0, comm);
  if (!problem.empty()) fail_everywhere(problem);
  broadcast(flat, 0, comm);
  EdgeList edges;
  for (size_t i = 0; i < flat.size(); i += 2) edges.emplace_back(flat[i], flat[i + 1]);
  return edges;
}

void local_lists(const EdgeList& edges, int rank, std::vector<int>& sources,
                 std::vector<int>& destinations) {
  sources.clear();
  destinations.clear();
  for (const auto& [from, to] : edges) {
    if (from == rank) destinations.push_back(to);
    if (to == rank) sources.push_back(from);
  }
}

MPI_Comm make_dist_graph(MPI_Comm comm, const std::vector<int>& sources,
                         const std::vector<int>& destinations) {
  return create_dist_graph_adjacent(comm, sources, destinations);
}

}  // namespace gc::nbr
