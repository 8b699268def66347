// graphcomm advise's answer: the configurations of a kernel ranked by the
// time the cost model (advise/cost_model.hpp) predicts for an input at a rank
// count, each with the terms its time is made of and, in one line, why.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "advise/calibration.hpp"
#include "advise/cost_model.hpp"
#include "advise/features.hpp"

namespace gc::advise {

struct Choice {
  std::string configuration;
  Prediction prediction;
  Coefficients costs;
  std::string why;
  // The configuration whose costs per unit price it, when another
  // (fitted_as: SpMM's combined gather, the neighbour gather's).
  std::string priced_as;
  // The configuration whose calls it makes, when another (same_calls_as:
  // SpMM's combined gather where its plan forms no group).
  std::string same_calls_as;
};

struct Advice {
  std::string kernel, calibration;
  Features features;
  std::string process_graph;          // "d_avg 3.0 of 3: every rank talks to every rank"
  std::vector<Choice> ranked;         // fastest first
  std::vector<int> calibrated_ranks;  // the rank counts of the kernel's samples
};

// Ranks the configurations of `kernel` fitted from `c`; only those in
// `available` (empty: all). Fails when the calibration has no sample of the kernel.
Advice advise(const Calibration& c, const std::string& kernel, const Features& f,
              const std::vector<std::string>& available = {});

// The table printed by graphcomm advise (and the one-line choice of --model auto).
std::string format_advice(const Advice& a);
std::string choice_line(const Advice& a);
// The other configurations predicted within the choice's fit error of it
// (its leave-one-out median error): the model cannot rank them against the
// choice. Fastest first; empty when the fit has no error measured.
std::vector<std::string> ties(const Advice& a);
// "" without ties, else one line naming them.
std::string ties_line(const Advice& a);
// "" when the calibration has samples at the advised rank count, else what
// the prediction extrapolates from.
std::string extrapolation_note(const Advice& a);
nlohmann::json to_json(const Advice& a);

}  // namespace gc::advise
