#include "advise/cost_model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace gc::advise {

const char* term_name(Term t) {
  switch (t) {
    case Term::scan:
      return "scan";
    case Term::message:
      return "message";
    case Term::neighbour:
      return "neighbour";
    case Term::round:
      return "round";
    case Term::global:
      return "global";
    case Term::node:
      return "node";
  }
  return "?";
}

std::array<double, kTerms> term_counts(const std::string& kernel, const std::string& configuration,
                                       const Features& f) {
  const bool bfs = kernel == "bfs";
  const double rounds = bfs ? f.levels : 1.0;
  const double p = std::max(1, f.parts);
  const double synchronization = rounds * (1 + std::log2(p));
  // SpMM's gather scans no edges (the multiply does, the same for every
  // method) and moves words of row blocks (cost_model.hpp): the allgather
  // every other rank's block to the busiest rank (on a 2-rank unbalanced
  // cut far fewer than all of A), the neighbour gathers their neighbours'.
  if (kernel == "spmm") {
    if (configuration == "allgather")
      return {0.0, 0.0, 0.0, synchronization, f.allgather_words_max, 0.0};
    // The combined gather by its plan's counts: a second hop where groups
    // form (friend, then neighbour), a round's synchronization more.
    if (counted_by_plan(kernel, configuration, f)) {
      const double words = f.combined_words_max, messages = f.combined_messages_max;
      return {0.0, words, messages, 2 * synchronization, 0.0, f.combined_node_words_max};
    }
    return {0.0, f.gather_words_max, f.degree_max, synchronization, 0.0, f.node_words_max};
  }
  const double global = bfs ? rounds * static_cast<double>(f.vertices) : 0.0;
  return {f.edges_max, f.cut_max, rounds * f.degree_max, synchronization, global, 0.0};
}

unsigned work_terms(const std::string& kernel, const std::string& configuration) {
  if (kernel == "spmm")
    return configuration == "allgather" ? term_bit(Term::global) : term_bit(Term::message);
  if (kernel == "bfs")
    return term_bit(Term::scan) | term_bit(Term::message) | term_bit(Term::global);
  return term_bit(Term::scan) | term_bit(Term::message);
}

const std::string& fitted_as(const std::string& kernel, const std::string& configuration) {
  static const std::string neighbor = "neighbor";
  return kernel == "spmm" && configuration == "combined" ? neighbor : configuration;
}

// A configuration priced with another's costs makes that one's calls
// through a plan: counted by the plan where it forms groups, else the same
// calls.
bool counted_by_plan(const std::string& kernel, const std::string& configuration,
                     const Features& f) {
  return fitted_as(kernel, configuration) != configuration && f.combined_groups > 0;
}

std::string same_calls_as(const std::string& kernel, const std::string& configuration,
                          const Features& f) {
  const std::string& plain = fitted_as(kernel, configuration);
  return plain != configuration && !counted_by_plan(kernel, configuration, f) ? plain : "";
}

}  // namespace gc::advise
