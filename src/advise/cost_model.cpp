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
  }
  return "?";
}

std::array<double, kTerms> term_counts(const std::string& kernel, const Features& f) {
  const bool bfs = kernel == "bfs";
  const double rounds = bfs ? f.levels : 1.0;
  const double p = std::max(1, f.parts);
  const double global = bfs                ? rounds * static_cast<double>(f.vertices)
                        : kernel == "spmm" ? 2.0 * static_cast<double>(f.edges)
                                           : 0.0;
  // SpMM's gather scans no edges (the multiply does, the same for every
  // method): without the term, allgather's cost must go to the volume it moves.
  const double scan = kernel == "spmm" ? 0.0 : f.edges_max;
  return {scan, f.cut_max, rounds * f.degree_max, rounds * (1 + std::log2(p)), global};
}

}  // namespace gc::advise
