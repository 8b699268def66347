#include "advise/advice.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/error.hpp"
#include "core/table.hpp"

namespace gc::advise {

namespace {

std::string count(double x) {
  return fmt::format("{:.0f}", x);
}

// What a term's count is, in the input's words.
std::string term_phrase(Term t, const std::string& kernel, const std::string& configuration,
                        const Features& f) {
  // Per round: a BFS level, a matching's rounds (not known before it runs),
  // SpMM's one gather.
  const std::string rounds = kernel == "bfs"    ? count(f.levels) + " levels x "
                             : kernel == "spmm" ? ""
                                                : "its rounds x ";
  const bool by_plan = counted_by_plan(kernel, configuration, f);
  switch (t) {
    case Term::scan:
      return fmt::format("scanning {} edges on the busiest rank", count(f.edges_max));
    case Term::message:
      if (by_plan)
        return fmt::format(
            "{} words of neighbour ranks' rows, friends' included, to the busiest rank",
            count(f.combined_words_max));
      if (kernel == "spmm")
        return fmt::format("{} words of neighbour ranks' rows to the busiest rank",
                           count(f.gather_words_max));
      return fmt::format("{} cut edges on the busiest rank", count(f.cut_max));
    case Term::neighbour:
      if (by_plan)
        return fmt::format("{} messages of the busiest rank (friends and neighbours)",
                           count(f.combined_messages_max));
      return fmt::format("{}{} neighbour ranks", rounds, count(f.degree_max));
    case Term::round:
      if (by_plan) return fmt::format("two hops (friend, then neighbour) over {} ranks", f.parts);
      return fmt::format("{}a synchronization over {} ranks", rounds, f.parts);
    case Term::global:
      if (kernel == "spmm")
        return fmt::format("gathering {} words of A's rows (all but its own) to the busiest rank",
                           count(f.allgather_words_max));
      return fmt::format("{}a pass over {} vertices", rounds,
                         count(static_cast<double>(f.vertices)));
    case Term::node:
      return fmt::format("{} words into the busiest node (nodes of {} ranks)",
                         count(by_plan ? f.combined_node_words_max : f.node_words_max),
                         f.ranks_per_node);
  }
  return "";
}

std::size_t largest(const std::array<double, kTerms>& v) {
  return static_cast<std::size_t>(std::max_element(v.begin(), v.end()) - v.begin());
}

std::string why(const Choice& c, const Choice* next, const std::string& kernel, const Features& f) {
  const Prediction& p = c.prediction;
  if (p.seconds <= 0) return "no cost fitted (every sample was 0 s)";
  const std::size_t k = largest(p.term_seconds);
  std::string out = fmt::format("{:.0f}% {}", 100 * p.term_seconds[k] / p.seconds,
                                term_phrase(static_cast<Term>(k), kernel, c.configuration, f));
  if (next) {  // the winner: where it saves on the runner-up
    std::array<double, kTerms> saved{};
    for (std::size_t t = 0; t < kTerms; ++t)
      saved[t] = next->prediction.term_seconds[t] - p.term_seconds[t];
    const std::size_t s = largest(saved);
    if (saved[s] > 0)
      out += fmt::format("; {:.2f}x faster than {}, most on {}",
                         next->prediction.seconds / p.seconds, next->configuration,
                         term_phrase(static_cast<Term>(s), kernel, next->configuration, f));
  }
  return out;
}

std::string describe_process_graph(const Features& f) {
  if (f.parts <= 1) return "one rank: no communication";
  const std::string d = fmt::format("d_avg {:.1f} of {}", f.degree_avg, f.parts - 1);
  if (f.dense() >= 0.99) return d + ": every rank talks to every rank";
  if (f.dense() >= 0.5) return d + ": a dense process graph";
  // Between the two, "sparse" would mislead: at 256 ranks the internet
  // graph's ranks each talk to 40% of the others.
  if (f.dense() >= 0.1)
    return fmt::format(
        "{}: a process graph of middling density (each rank talks to {:.0f}% of "
        "the others)",
        d, 100 * f.dense());
  return d + ": a sparse process graph";
}

}  // namespace

std::string extrapolation_note(const Advice& a) {
  const std::vector<int>& r = a.calibrated_ranks;
  if (r.empty() || std::find(r.begin(), r.end(), a.features.parts) != r.end()) return "";
  std::string out = fmt::format("calibrated at {} ranks, not at {}: the prediction extrapolates",
                                fmt::join(r, ", "), a.features.parts);
  if (r.size() == 1)
    out +=
        "; with one rank count the costs per neighbour and per round cannot be told apart "
        "(calibrate at another rank count, or on a simulated platform)";
  return out;
}

Advice advise(const Calibration& c, const std::string& kernel, const Features& f,
              const std::vector<std::string>& available) {
  Advice a;
  a.kernel = kernel;
  a.calibration = c.name;
  a.features = f;
  a.process_graph = describe_process_graph(f);
  for (const Sample& s : c.samples)
    if (s.kernel == kernel) a.calibrated_ranks.push_back(s.features.parts);
  std::sort(a.calibrated_ranks.begin(), a.calibrated_ranks.end());
  a.calibrated_ranks.erase(std::unique(a.calibrated_ranks.begin(), a.calibrated_ranks.end()),
                           a.calibrated_ranks.end());
  const std::map<std::string, Coefficients> fits = fit_configurations(c, kernel, f.parts);
  std::set<std::string> configurations;
  for (const Sample& s : c.samples)
    if (s.kernel == kernel) configurations.insert(s.configuration);
  for (const std::string& configuration : configurations) {
    if (!available.empty() &&
        std::find(available.begin(), available.end(), configuration) == available.end())
      continue;
    const std::string& priced = fitted_as(kernel, configuration);
    const auto fit = fits.find(priced);
    if (fit == fits.end()) continue;  // none of its samples has a time to fit
    a.ranked.push_back({configuration, predict(fit->second, term_counts(kernel, configuration, f)),
                        fit->second, "", priced == configuration ? "" : priced,
                        same_calls_as(kernel, configuration, f)});
  }
  if (a.ranked.empty())
    fail_everywhere(fmt::format(
        "calibration {}: no {} sample of a configuration this build runs: run `graphcomm advise "
        "--calibrate --kernel {}`",
        c.name, kernel, kernel));
  // At equal predictions the configuration that makes its own calls first:
  // the other makes the same calls through a plan.
  std::stable_sort(a.ranked.begin(), a.ranked.end(), [](const Choice& x, const Choice& y) {
    if (x.prediction.seconds != y.prediction.seconds)
      return x.prediction.seconds < y.prediction.seconds;
    return x.same_calls_as.empty() && !y.same_calls_as.empty();
  });
  for (std::size_t i = 0; i < a.ranked.size(); ++i) {
    Choice& choice = a.ranked[i];
    choice.why =
        choice.same_calls_as.empty()
            ? why(choice, i == 0 && a.ranked.size() > 1 ? &a.ranked[1] : nullptr, kernel, f)
            : fmt::format(
                  "its plan forms no friend group at {} ranks: the {} gather's "
                  "messages, priced as it",
                  f.parts, choice.same_calls_as);
  }
  return a;
}

std::string choice_line(const Advice& a) {
  const Choice& best = a.ranked.front();
  return fmt::format("{} (predicted {:.3g} s; {}; {})", best.configuration, best.prediction.seconds,
                     a.process_graph, best.why);
}

std::vector<std::string> ties(const Advice& a) {
  std::vector<std::string> out;
  const Choice& best = a.ranked.front();
  if (best.costs.samples < 2) return out;
  const double bound = best.prediction.seconds * (1 + best.costs.median_error);
  // Not one that makes the choice's calls: its line says so.
  for (std::size_t i = 1; i < a.ranked.size(); ++i)
    if (a.ranked[i].prediction.seconds <= bound && a.ranked[i].same_calls_as != best.configuration)
      out.push_back(a.ranked[i].configuration);
  return out;
}

std::string ties_line(const Advice& a) {
  const std::vector<std::string> t = ties(a);
  if (t.empty()) return "";
  constexpr std::size_t kNamed = 5;
  std::string names = fmt::format(
      "{}", fmt::join(t.begin(),
                      t.begin() + static_cast<std::ptrdiff_t>(std::min(kNamed, t.size())), ", "));
  if (t.size() > kNamed) names += fmt::format(" and {} more", t.size() - kNamed);
  return fmt::format(
      "{} other configuration{} predicted within the choice's fit error ({:.0f}%): {}; the model "
      "cannot tell {} from the choice (measure if the difference matters)",
      t.size(), t.size() > 1 ? "s" : "", 100 * a.ranked.front().costs.median_error, names,
      t.size() > 1 ? "them" : "it");
}

std::string format_advice(const Advice& a) {
  const Features& f = a.features;
  std::string out = fmt::format("advice for {} at {} ranks (calibration {}): |V| = {}, |E| = {}\n",
                                a.kernel, f.parts, a.calibration, f.vertices, f.edges);
  if (a.kernel == "spmm")
    out += fmt::format(
        "gathers of A's rows: {} words in all, {} to the busiest rank in an allgather, {} from "
        "neighbour ranks to the busiest rank, {} into the busiest node (nodes of {} ranks); "
        "process graph: d_max {}, {}; the combined plan {}\n\n",
        count(f.words_total), count(f.allgather_words_max), count(f.gather_words_max),
        count(f.node_words_max), f.ranks_per_node, count(f.degree_max), a.process_graph,
        f.combined_groups > 0
            ? fmt::format(
                  "forms friend groups ({} memberships): at most {} messages a rank instead of "
                  "{}, {} words to the busiest instead of {}, in two hops",
                  count(f.combined_groups), count(f.combined_messages_max), count(f.degree_max),
                  count(f.combined_words_max), count(f.gather_words_max))
            : "forms no friend group: its calls are the neighbour gather's");
  else
    out += fmt::format("busiest rank: {} edges, {} cut edges; process graph: d_max {}, {}{}\n\n",
                       count(f.edges_max), count(f.cut_max), count(f.degree_max), a.process_graph,
                       a.kernel == "bfs" ? fmt::format("; {} BFS levels", count(f.levels)) : "");
  const Table table({{"rank", ">4"},
                     {"configuration", "<32"},
                     {"predicted_s", ">12.3g"},
                     {"fit_err", ">8"},
                     {"why", ""}});
  out += table.header();
  for (std::size_t i = 0; i < a.ranked.size(); ++i) {
    const Choice& c = a.ranked[i];
    out += table.row(i + 1, c.configuration, c.prediction.seconds,
                     c.costs.samples > 1 ? fmt::format("{:.0f}%", 100 * c.costs.median_error) : "-",
                     c.why);
  }
  out += fmt::format("\nchoice: {}\n", choice_line(a));
  if (const std::string t = ties_line(a); !t.empty()) out += "ties: " + t + "\n";
  if (const std::string note = extrapolation_note(a); !note.empty()) out += "note: " + note + "\n";
  return out;
}

nlohmann::json to_json(const Advice& a) {
  nlohmann::json ranked = nlohmann::json::array();
  for (const Choice& c : a.ranked) {
    nlohmann::json terms, costs;
    for (std::size_t k = 0; k < kTerms; ++k) {
      terms[term_name(static_cast<Term>(k))] = c.prediction.term_seconds[k];
      costs[term_name(static_cast<Term>(k))] = c.costs.cost[k];
    }
    ranked.push_back({{"configuration", c.configuration},
                      {"predicted_seconds", c.prediction.seconds},
                      {"term_seconds", terms},
                      {"cost_per_unit", costs},
                      {"fit",
                       {{"samples", c.costs.samples},
                        {"median_error", c.costs.median_error},
                        {"max_error", c.costs.max_error}}},
                      {"why", c.why},
                      {"priced_as", c.priced_as},
                      {"same_calls_as", c.same_calls_as}});
  }
  return {{"kernel", a.kernel},
          {"calibration", a.calibration},
          {"features", nlohmann::json(a.features)},
          {"process_graph", a.process_graph},
          {"choice", a.ranked.front().configuration},
          {"reason", choice_line(a)},
          {"ties", ties(a)},
          {"calibrated_ranks", a.calibrated_ranks},
          {"extrapolation", extrapolation_note(a)},
          {"ranked", ranked}};
}

}  // namespace gc::advise
