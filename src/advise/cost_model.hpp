// The cost model of graphcomm advise: the time of one run of a kernel
// (one matching, one BFS search, one SpMM iteration's gather) over one configuration
// (algorithm and communication model, or SpMM's gather method) as a sum of terms, each a count from
// the input's features (advise/features.hpp) times a cost per unit:
//
//   t = c_scan     * edges_max             edges the busiest rank scans
//     + c_message  * cut_max               cut edges of the busiest rank: each
//                                          costs messages (requests, parents)
//     + c_neighbour * R * d_max            per round, a buffer, put or slot for
//                                          each neighbour rank (ncl, rma, nsr-agg)
//     + c_round    * R * (1 + log2 P)      per round, a synchronization (allreduce,
//                                          fence, barrier) of log2 P steps
//     + c_global   * G                     a pass over the whole graph on every rank:
//                                          BFS, R * |V| (per level the frontier bitmap
//                                          of replicated and bottom-up steps, the level
//                                          array)
//     + c_node     * N                     SpMM only, below
//
// R is the number of rounds: BFS levels (features.levels); 1 for matching,
// whose rounds (5-20 on the inputs measured) fold into the per-round costs,
// and for SpMM (one gather per iteration).
//
// SpMM's gather moves whole row blocks of A, so its counts are words, not
// edges: `message` counts the words of the neighbour ranks' blocks the busiest
// rank receives, `global` every block's words (what an allgather gives each
// rank) and `node` the neighbour gathers' words entering the busiest node from
// other nodes, each block once per receiving rank. Each method counts only
// the terms of what it moves: the allgather `global` (and `round`), the
// neighbour gathers `message`, `neighbour`, `round` and `node` (the
// combined gather by its plan where it forms groups: counted_by_plan); on one node
// of a dense process graph `global` and `message` are nearly equal, and a fit
// free to use either would name the allgather's cost as a neighbour gather's
// (or the reverse). A neighbour gather sends
// each block to every neighbour at once; an allgather's ring or doubling
// carries each block into a node once. Over a dense process graph both move
// about the same words per rank, and only the words into a node tell them
// apart (features.hpp).
// The costs are fitted per configuration (non-negative least squares on the
// relative error) on calibration runs (advise/calibration.hpp): measured on
// this machine, or simulated on a platform. docs/advise.md explains each term.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "advise/features.hpp"
#include "advise/least_squares.hpp"

namespace gc::advise {

enum class Term { scan, message, neighbour, round, global, node };  // kTerms of them
const char* term_name(Term t);
// A term's bit in a set of terms (fit_costs' `required`).
constexpr unsigned term_bit(Term t) {
  return 1u << static_cast<unsigned>(t);
}

// The counts of each term for a configuration of a kernel ("match", "bfs" or
// "spmm") on an input. The configuration matters for SpMM only: the
// allgather counts every block (global) and no neighbour words, the
// neighbour gathers the reverse.
std::array<double, kTerms> term_counts(const std::string& kernel, const std::string& configuration,
                                       const Features& f);

// The terms that grow with the input's size for a configuration (a bit per
// term, term_bit, for fit_costs' `required`): every run scans or moves the
// graph (matching and BFS: edges scanned, cut edges; BFS also its passes
// over every vertex; SpMM: the words it gathers), so a fit must charge one of
// them. Calibration inputs are small: with five samples of a few thousand
// edges a fit charging per neighbour rank or round alone can match them
// best, and then predicts the same time for a graph of a million edges
// (bench/README.md, "Matching at 64 simulated ranks on nine more inputs").
unsigned work_terms(const std::string& kernel, const std::string& configuration);

// Whether `configuration` is counted by the plan it builds: SpMM's combined
// gather where its plan forms friend groups (f.combined_groups > 0). Then its
// counts are the plan's (features.hpp combined_*): the words its busiest
// rank receives, its friends' blocks included, its messages, and a second
// hop (friend, then neighbour) as a second round.
bool counted_by_plan(const std::string& kernel, const std::string& configuration,
                     const Features& f);

// The configuration whose costs per unit price `configuration`, fitted on the
// samples of both: itself, but for SpMM's combined gather the neighbour
// gather's. They send the same kind of messages (the combined gather's
// calls are the library's neighbour allgatherv where no group forms; where
// groups form, fewer and larger messages over two hops, term_counts): one
// fit prices a message, a word and a round for both, and the few calibration
// inputs whose plans form groups (bench/README.md, "The combined gather
// priced by its plan") add to it instead of making a fit of their own.
const std::string& fitted_as(const std::string& kernel, const std::string& configuration);

// The configuration whose calls `configuration` makes on an input with
// features f, when another ("" else): SpMM's combined gather where its plan
// forms no friend group makes the neighbour gather's (nbr/collectives.hpp:
// the library's own neighbour allgatherv). Its prediction is then the
// neighbour gather's, and advice ranks it after it.
std::string same_calls_as(const std::string& kernel, const std::string& configuration,
                          const Features& f);

}  // namespace gc::advise
