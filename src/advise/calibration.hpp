// Calibration of the cost model (advise/cost_model.hpp): runs of every
// configuration of a kernel on a few inputs, each stored as the input's
// features and the measured time, in one JSON file per machine (or simulated
// platform). `graphcomm advise --calibrate` measures and appends; the costs
// are fitted from the file whenever advice is asked, so samples added at
// other rank counts (or by graphcomm-lab from stored runs) refine the fit.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "advise/calibration_file.hpp"
#include "advise/cost_model.hpp"
#include "advise/features.hpp"
#include "advise/nbr_advice.hpp"
#include "core/mpi.hpp"

namespace gc::advise {

struct Sample {
  std::string kernel;         // "match", "bfs" or "spmm"
  std::string configuration;  // "ld/ncl", "top-down/nsr-agg", "replicated", "neighbor", ...
  std::string input;          // the graph's spec
  Features features;          // at the rank count of the run (parts = ranks)
  double seconds = 0;  // median time of one matching or one search; SpMM: its gather, per iteration
};

struct Calibration {
  std::string name;  // the machine or platform it describes
  std::vector<Sample> samples;
  std::vector<NetworkSample> network;  // the neighbour collectives' (advise/nbr_advice.hpp)
};

// Collective: rank 0 reads the file, every rank gets it; a missing or bad
// file is an error on every rank that says how to make one.
Calibration load_calibration(const Comm& comm, const std::string& path);
// Collective: read the file if it exists (else start `name`), replace the
// samples of the same kernel, configuration, input and rank count with
// `samples` (and the network samples of the same ranks, degree and block
// with `network`), write it back atomically. New SpMM samples also replace
// every SpMM sample made before the gather figures (check_spmm_samples):
// returns how many of those were dropped.
std::size_t add_samples(const Comm& comm, const std::string& path, const std::string& name,
                        const std::vector<Sample>& samples,
                        const std::vector<NetworkSample>& network = {});

struct CalibrationOptions {
  std::vector<std::string> kernels = {"match", "bfs", "spmm"};
  std::vector<std::string> inputs;  // graph specs; empty: default_calibration_inputs()
  // Runs per configuration, whose median is the sample: matchings; BFS
  // searches (a few per repeat, calibration.cpp); SpMM iterations.
  int repeats = 3;
  std::uint64_t seed = 1;
};
const std::vector<std::string>& default_calibration_inputs();

// Collective: runs every configuration of every kernel on every input at
// this communicator's size; progress on rank 0.
std::vector<Sample> measure(const Comm& comm, const CalibrationOptions& options);

// Fails (one line) when the calibration's SpMM samples lack the gather
// figures (features.hpp has_gather_figures): made before advise counted them.
void check_spmm_samples(const Calibration& c);

// The ranks a node held in the calibration's runs of `kernel` at its largest
// rank count (0: none recorded).
int calibrated_ranks_per_node(const Calibration& c, const std::string& kernel);

// The configurations of `kernel` in the calibration, each with its fitted
// costs: from its samples at `parts` ranks when there are more of them than
// cost terms (a machine oversubscribed at 4 ranks is not the machine at 2
// scaled), else from every sample (extrapolation). parts 0: every sample.
std::map<std::string, Coefficients> fit_configurations(const Calibration& c,
                                                       const std::string& kernel, int parts = 0);

nlohmann::json to_json(const Sample& s);

}  // namespace gc::advise
