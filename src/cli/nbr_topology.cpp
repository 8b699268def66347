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

void topology_lists(const Comm& comm, const std::string& t, const GraphOptions& graph,
                    std::uint64_t seed, std::vector<int>& sources, std::vector<int>& destinations) {
  const auto colon = t.find(':');
  const std::string kind = t.substr(0, colon),
                    rest = colon == std::string::npos ? "" : t.substr(colon + 1);
  if (kind != "graph" &&
      (graph.distribution != "block" || graph.reorder != "none" || graph.partition != "none")) {
    fail_everywhere(fmt::format(
        "--topology {}: --distribution, --reorder and --partition apply to graph: topologies", t));
  }
  if (kind == "moore") {
    const auto parts = split(rest, ':');
    if (parts.size() != 2) fail_everywhere(fmt::format("--topology {}: expected moore:D:R", t));
    const double d = number(parts[0], "moore D"), r = number(parts[1], "moore R");
    if (d != static_cast<int>(d) || r != static_cast<int>(r) || d < 1 || d > 6 || r < 1 || r > 8)
      fail_everywhere(fmt::format("--topology {}: D must be 1 to 6 and R 1 to 8", t));
    nbr::moore_lists(comm.size(), static_cast<int>(d), static_cast<int>(r), comm.rank(), sources,
                     destinations);
  } else if (kind == "random") {
    nbr::random_lists(comm.size(), number(rest, "random density"), seed, comm.rank(), sources,
                      destinations);
  } else if (kind == "file") {
    nbr::local_lists(nbr::file_topology(comm.get(), rest), comm.rank(), sources, destinations);
  } else if (kind == "graph") {
    // The process graph of a distributed graph: the ranks sharing cut edges.
    GraphOptions go = graph;
    go.seed = seed;
    LoadOptions lo = go.load_options();
    lo.edge_weights = EdgeWeights::none;  // only the process graph is used
    const LoadedGraph loaded = load_graph(comm, rest, lo);
    sources = destinations = loaded.graph.ghost_relation().ranks;
  } else {
    fail_everywhere(
        fmt::format("--topology {}: expected moore:D:R, random:DELTA, file:PATH or graph:SPEC", t));
  }
}

}  // namespace gc::cli
