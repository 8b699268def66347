// The process topologies of `nbr bench` and `advise --kernel nbr`
// (--topology moore:D:R, random:DELTA, file:PATH, graph:SPEC) and their
// option parsing.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "nbr/plan.hpp"

namespace gc::cli {

// `text` split at each `sep`.
std::vector<std::string> split(const std::string& text, char sep);
// `text` as a number; an error on every rank naming `what` when it is not.
double number(const std::string& text, const std::string& what);
// --sizes: comma-separated block sizes in bytes; a size out of range is an error on every rank.
std::vector<std::uint64_t> block_sizes(const std::string& text);

// Collective: this rank's neighbour lists of `topology`; `graph` (with
// `seed`) for graph:SPEC, whose --distribution, --reorder and --partition
// apply to graph: topologies only.
void topology_lists(const Comm& comm, const std::string& topology, const GraphOptions& graph,
                    std::uint64_t seed, std::vector<int>& sources, std::vector<int>& destinations);
// Every rank's lists of a moore: or random: `topology` at `ranks` ranks,
// computed here (the same on every rank), for a rank count other than the
// one running; other topologies are an error on every rank.
std::vector<nbr::Topology> every_rank_lists(const std::string& topology, const GraphOptions& graph,
                                            std::uint64_t seed, int ranks);

}  // namespace gc::cli
