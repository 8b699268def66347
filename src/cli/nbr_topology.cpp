#include "cli/nbr_topology.hpp"

#include <sstream>

#include <fmt/format.h>

#include "core/error.hpp"
#include "graph/dist_graph.hpp"
#include "nbr/topologies.hpp"

namespace gc::cli {

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, sep);) out.push_back(part);
  return out;
}

double number(const std::string& text, const std::string& what) {
  size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size())
    fail_everywhere(fmt::format("{}: '{}' is not a number", what, text));
  return v;
}

std::vector<std::uint64_t> block_sizes(const std::string& text) {
  std::vector<std::uint64_t> sizes;
  for (const std::string& s : split(text, ',')) {
    const double v = number(s, "--sizes");
    if (v < 1 || v > (1 << 24) || v != static_cast<std::uint64_t>(v))
      fail_everywhere(fmt::format("--sizes: {} is not a size in bytes from 1 to 16 MiB", s));
    sizes.push_back(static_cast<std::uint64_t>(v));
  }
  return sizes;
}

namespace {

// A --topology: its kind and, for moore and random, its numbers, checked.
struct TopologySpec {
  std::string kind, rest;
  int d = 0, r = 0;    // moore:D:R
  double density = 0;  // random:DELTA
};

TopologySpec parse_topology(const std::string& t, const GraphOptions& graph) {
  const auto colon = t.find(':');
  TopologySpec s{t.substr(0, colon), colon == std::string::npos ? "" : t.substr(colon + 1)};
  if (s.kind != "graph" &&
      (graph.distribution != "block" || graph.reorder != "none" || graph.partition != "none")) {
    fail_everywhere(fmt::format(
        "--topology {}: --distribution, --reorder and --partition apply to graph: topologies", t));
  }
  if (s.kind == "moore") {
    const auto parts = split(s.rest, ':');
    if (parts.size() != 2) fail_everywhere(fmt::format("--topology {}: expected moore:D:R", t));
    const double d = number(parts[0], "moore D"), r = number(parts[1], "moore R");
    if (d != static_cast<int>(d) || r != static_cast<int>(r) || d < 1 || d > 6 || r < 1 || r > 8)
      fail_everywhere(fmt::format("--topology {}: D must be 1 to 6 and R 1 to 8", t));
    s.d = static_cast<int>(d);
    s.r = static_cast<int>(r);
  } else if (s.kind == "random") {
    s.density = number(s.rest, "random density");
  } else if (s.kind != "file" && s.kind != "graph") {
    fail_everywhere(
        fmt::format("--topology {}: expected moore:D:R, random:DELTA, file:PATH or graph:SPEC", t));
  }
  return s;
}

}  // namespace

void topology_lists(const Comm& comm, const std::string& t, const GraphOptions& graph,
                    std::uint64_t seed, std::vector<int>& sources, std::vector<int>& destinations) {
  const TopologySpec s = parse_topology(t, graph);
  if (s.kind == "moore") {
    nbr::moore_lists(comm.size(), s.d, s.r, comm.rank(), sources, destinations);
  } else if (s.kind == "random") {
    nbr::random_lists(comm.size(), s.density, seed, comm.rank(), sources, destinations);
  } else if (s.kind == "file") {
    nbr::local_lists(nbr::file_topology(comm.get(), s.rest), comm.rank(), sources, destinations);
  } else {
    // The process graph of a distributed graph: the ranks sharing cut edges.
    GraphOptions go = graph;
    go.seed = seed;
    LoadOptions lo = go.load_options();
    lo.edge_weights = EdgeWeights::none;  // only the process graph is used
    const LoadedGraph loaded = load_graph(comm, s.rest, lo);
    sources = destinations = loaded.graph.ghost_relation().ranks;
  }
}

std::vector<nbr::Topology> every_rank_lists(const std::string& t, const GraphOptions& graph,
                                            std::uint64_t seed, int ranks) {
  const TopologySpec s = parse_topology(t, graph);
  if (s.kind != "moore" && s.kind != "random")
    fail_everywhere(fmt::format(
        "--topology {}: at a rank count other than the one running, moore:D:R and random:DELTA "
        "only (a file's or a graph's process topology is advised on as many ranks as it has)",
        t));
  std::vector<nbr::Topology> every(static_cast<size_t>(ranks));
  for (int r = 0; r < ranks; ++r) {
    nbr::Topology& x = every[static_cast<size_t>(r)];
    if (s.kind == "moore")
      nbr::moore_lists(ranks, s.d, s.r, r, x.sources, x.destinations);
    else
      nbr::random_lists(ranks, s.density, seed, r, x.sources, x.destinations);
  }
  return every;
}

}  // namespace gc::cli
