// graphcomm advise's answer to "how should the graph be laid out over the
// ranks": the 1D distributions a kernel can run on (block or edge-balanced
// ranges, of the input order or of a reverse Cuthill-McKee order: the
// matching study's section V-C, Tables V-VI of Ghosh et al., IPDPS 2019),
// each cut into P parts, with the configuration the cost model ranks first on
// it and its predicted time. Reordering is setup, paid once per graph: its
// time is reported apart from the kernel's, never added to it.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "advise/advice.hpp"
#include "advise/calibration.hpp"
#include "core/mpi.hpp"
#include "graph/build.hpp"
#include "graph/dist_graph.hpp"

namespace gc::advise {

// One layout: the graph in the order it cuts, and how it cuts it.
struct Layout {
  bool rcm = false;  // ranges of the RCM order (else of the input order)
  Balance balance = Balance::vertices;
  double setup_seconds =
      0;  // computing the order and relabeling, max over the ranks running advise
  // The flags that ask a kernel for it: "--distribution edges --reorder rcm".
  std::string flags() const;
};

struct LayoutAdvice {
  Layout layout;
  Advice advice;  // its configurations ranked
};

// Another layout is advised only when it is predicted this factor faster
// than the given one: a few percent is below what the cost model resolves
// (its terms are fitted on other inputs) and not worth a change of flags.
inline constexpr double kWorthChanging = 1.05;

struct LayoutComparison {
  std::vector<LayoutAdvice> layouts;  // the given one first
  std::size_t fastest = 0;            // least predicted time of its best configuration
  std::size_t best = 0;  // advised: fastest, or the given one when within kWorthChanging
};

// Collective. `input_order` is the graph in the input's order, `rcm_order`
// the same graph relabeled by RCM, which took `rcm_seconds` (every RCM
// layout's setup). `given` is the layout the command line asked for; the
// other three are compared with it. `levels` (BFS) is copied into every
// layout's features; `ranks_per_node` is compute_features'.
LayoutComparison compare_layouts(const Comm& comm, const Calibration& c, const std::string& kernel,
                                 const DistGraph& input_order, const DistGraph& rcm_order,
                                 double rcm_seconds, Layout given, int parts, double levels,
                                 int ranks_per_node);

// The table after the advice: per layout its cut, its process graph and
// its best configuration; then the layout chosen and why.
std::string format_layouts(const LayoutComparison& c);
nlohmann::json to_json(const LayoutComparison& c);

}  // namespace gc::advise
