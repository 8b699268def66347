#include "advise/layouts.hpp"

#include <cmath>

#include <fmt/format.h>

#include "core/table.hpp"

namespace gc::advise {

std::string Layout::flags() const {
  std::string out = fmt::format("--distribution {}", balance == Balance::edges ? "edges" : "block");
  if (rcm) out += " --reorder rcm";
  return out;
}

LayoutComparison compare_layouts(const Comm& comm, const Calibration& c, const std::string& kernel,
                                 const DistGraph& input_order, const DistGraph& rcm_order,
                                 double rcm_seconds, Layout given, int parts, double levels,
                                 int ranks_per_node) {
  std::vector<Layout> layouts{given};
  for (bool rcm : {false, true})
    for (Balance b : {Balance::vertices, Balance::edges})
      if (rcm != given.rcm || b != given.balance) layouts.push_back(Layout{rcm, b});
  LayoutComparison out;
  for (Layout& l : layouts) {
    l.setup_seconds = l.rcm ? rcm_seconds : 0;
    const DistGraph& g = l.rcm ? rcm_order : input_order;
    Features f =
        compute_features(comm, g, parts, l.balance, false, 1, ranks_per_node, kernel == "spmm");
    f.levels = levels;
    out.layouts.push_back({l, advise(c, kernel, f)});
  }
  auto best_seconds = [&](std::size_t i) {
    return out.layouts[i].advice.ranked.front().prediction.seconds;
  };
  for (std::size_t i = 1; i < out.layouts.size(); ++i)
    if (best_seconds(i) < best_seconds(out.best)) out.best = i;
  // A change of layout must pay for itself: within the model's error the
  // given one stays.
  out.fastest = out.best;
  if (best_seconds(out.best) * kWorthChanging > best_seconds(0)) out.best = 0;
  return out;
}

namespace {

std::string choice(const LayoutComparison& c) {
  const LayoutAdvice& best = c.layouts[c.best];
  const Choice& top = best.advice.ranked.front();
  if (c.best == 0) {
    std::string out = fmt::format("the given {} (predicted {:.3g} s with {})", best.layout.flags(),
                                  top.prediction.seconds, top.configuration);
    if (c.fastest != 0)
      out += fmt::format(
          ": {} is predicted {:.2f}x faster, under the {:.0f}% a change must gain",
          c.layouts[c.fastest].layout.flags(),
          top.prediction.seconds / c.layouts[c.fastest].advice.ranked.front().prediction.seconds,
          100 * (kWorthChanging - 1));
    return out;
  }
  const LayoutAdvice& given = c.layouts.front();
  const double saved =
      given.advice.ranked.front().prediction.seconds - top.prediction.seconds;  // per run
  std::string out = fmt::format(
      "{} (predicted {:.3g} s with {}: {:.2f}x faster than the given {}; cut_max {:.0f} "
      "against {:.0f}, d_max {:.0f} against {:.0f})",
      best.layout.flags(), top.prediction.seconds, top.configuration,
      given.advice.ranked.front().prediction.seconds / top.prediction.seconds, given.layout.flags(),
      best.advice.features.cut_max, given.advice.features.cut_max, best.advice.features.degree_max,
      given.advice.features.degree_max);
  if (best.layout.setup_seconds > 0)
    out += fmt::format("; reordering took {:.3g} s here, once per graph: repaid after {:.0f} runs",
                       best.layout.setup_seconds, std::ceil(best.layout.setup_seconds / saved));
  return out;
}

}  // namespace

std::string format_layouts(const LayoutComparison& c) {
  const Features& f0 = c.layouts.front().advice.features;
  std::string out = fmt::format(
      "\ndistributions into {} parts (the best configuration on each; reordering is setup, "
      "paid once per graph and not in predicted_s):\n",
      f0.parts);
  const Table table({{"distribution", "<42"},
                     {"edges_max", ">10.0f"},
                     {"cut_max", ">9.0f"},
                     {"d_max", ">6.0f"},
                     {"d_avg", ">6.1f"},
                     {"best", "<28"},
                     {"predicted_s", ">12.3g"},
                     {"setup_s", ">8.3g"}});
  out += table.header();
  for (std::size_t i = 0; i < c.layouts.size(); ++i) {
    const LayoutAdvice& l = c.layouts[i];
    const Features& f = l.advice.features;
    const Choice& top = l.advice.ranked.front();
    out += table.row(l.layout.flags() + (i == 0 ? " (given)" : ""), f.edges_max, f.cut_max,
                     f.degree_max, f.degree_avg, top.configuration, top.prediction.seconds,
                     l.layout.setup_seconds);
  }
  out += fmt::format("\ndistribution: {}\n", choice(c));
  return out;
}

nlohmann::json to_json(const LayoutComparison& c) {
  nlohmann::json layouts = nlohmann::json::array();
  for (const LayoutAdvice& l : c.layouts) {
    const Choice& top = l.advice.ranked.front();
    layouts.push_back({{"flags", l.layout.flags()},
                       {"setup_seconds", l.layout.setup_seconds},
                       {"features", nlohmann::json(l.advice.features)},
                       {"choice", top.configuration},
                       {"predicted_seconds", top.prediction.seconds}});
  }
  return {
      {"choice", c.layouts[c.best].layout.flags()}, {"reason", choice(c)}, {"layouts", layouts}};
}

}  // namespace gc::advise
