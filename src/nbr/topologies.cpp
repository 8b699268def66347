#include "nbr/topologies.hpp"

#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "core/broadcast.hpp"
#include "core/error.hpp"
#include "core/neighborhood.hpp"
#include "core/rng.hpp"

namespace gc::nbr {

EdgeList moore_topology(int ranks, int d, int r) {
  if (d < 1 || r < 1) fail_everywhere(fmt::format("moore:{}:{}: D and R must be at least 1", d, r));
  std::vector<int> dims(static_cast<size_t>(d), 0);
  MPI_Dims_create(ranks, d, dims.data());
  const int span = 2 * r + 1;
  int stencil = 1;
  for (int i = 0; i < d; ++i) stencil *= span;
  EdgeList edges;
  std::vector<int> at(static_cast<size_t>(d));
  for (int rank = 0; rank < ranks; ++rank) {
    for (int x = rank, i = d - 1; i >= 0; --i) {  // row-major coordinates, as MPI_Cart_coords
      at[static_cast<size_t>(i)] = x % dims[static_cast<size_t>(i)];
      x /= dims[static_cast<size_t>(i)];
    }
    for (int o = 0; o < stencil; ++o) {
      int to = 0, x = o;
      bool centre = true;
      for (int i = 0; i < d; ++i) {
        const int offset = x % span - r, n = dims[static_cast<size_t>(i)];
        x /= span;
        centre = centre && offset == 0;
        to = to * n + ((at[static_cast<size_t>(i)] + offset) % n + n) % n;
      }
      if (!centre) edges.emplace_back(rank, to);
    }
  }
  return edges;
}

EdgeList random_topology(int ranks, double density, std::uint64_t seed) {
  if (!(density >= 0 && density <= 1))
    fail_everywhere(fmt::format("random:{}: the density must be in [0, 1]", density));
  const CounterRng rng(seed);
  EdgeList edges;
  for (int a = 0; a < ranks; ++a)
    for (int b = 0; b < ranks; ++b) {
      if (a == b) continue;
      const auto pair = static_cast<std::uint64_t>(a) * static_cast<std::uint64_t>(ranks) +
                        static_cast<std::uint64_t>(b);
      const double u =
          static_cast<double>(rng.words(Stream::edge_weight, pair, 1)[0] >> 11) * 0x1.0p-53;
      if (u < density) edges.emplace_back(a, b);
    }
  return edges;
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
