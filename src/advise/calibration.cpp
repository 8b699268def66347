#include "advise/calibration.hpp"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "comm/models.hpp"
#include "core/error.hpp"
#include "core/output.hpp"
#include "graph/spec.hpp"
#include "kernels/bfs/bfs.hpp"
#include "kernels/bfs/graph500.hpp"
#include "kernels/match/match.hpp"
#include "kernels/spmm/spmm.hpp"

namespace gc::advise {

namespace {

constexpr int kSearchesPerRepeat = 4;

Sample sample_from_json(const nlohmann::json& j) {
  return {j.at("kernel").get<std::string>(), j.at("configuration").get<std::string>(),
          j.at("input").get<std::string>(), j.at("features").get<Features>(),
          j.at("seconds").get<double>()};
}

Calibration from_json(const std::string& path, const nlohmann::json& doc) {
  Calibration c;
  try {
    c.name = doc.at("name").get<std::string>();
    for (const auto& s : doc.at("samples")) c.samples.push_back(sample_from_json(s));
    c.network = network_samples(doc);
  } catch (const nlohmann::json::exception& e) {
    fail(fmt::format("{}: not a graphcomm calibration file ({})", path, e.what()));
  }
  return c;
}

bool same_run(const Sample& a, const Sample& b) {
  return a.kernel == b.kernel && a.configuration == b.configuration && a.input == b.input &&
         a.features.parts == b.features.parts;
}

void say_measured(const Comm& comm, const Sample& s) {
  Progress::say(comm, "calibrating: {} {} on {}: {:.6f} s", s.kernel, s.configuration, s.input,
                s.seconds);
}

void measure_match(const Comm& comm, const DistGraph& g, const Features& f,
                   const std::string& input, int repeats, std::vector<Sample>& out) {
  for (const std::string& algorithm : match::matching_algorithms())
    for (const std::string& model : exchange_models()) {
      std::vector<double> seconds;
      for (int r = 0; r < repeats; ++r)
        seconds.push_back(match::match(comm, g, model, algorithm).seconds);
      out.push_back({"match", algorithm + "/" + model, input, f, bfs::statistics(seconds).median});
      say_measured(comm, out.back());
    }
}

void measure_bfs(const Comm& comm, const DistGraph& g, const Features& f, const std::string& input,
                 const CalibrationOptions& o, std::vector<Sample>& out) {
  const std::vector<vid_t> keys = bfs::choose_keys(comm, g, kSearchesPerRepeat * o.repeats, o.seed);
  if (keys.empty())
    fail_everywhere(fmt::format("calibrating on {}: no vertex with an edge", input));
  const bfs::BfsGraph bg(comm, g);
  for (const bfs::Configuration& config : bfs::all_configurations()) {
    bfs::Bfs engine(comm, bg, config.algorithm, config.model);
    std::vector<double> seconds;
    for (vid_t key : keys) seconds.push_back(engine.search(key, false).seconds);
    out.push_back({"bfs", config.name(), input, f, bfs::statistics(seconds).median});
    say_measured(comm, out.back());
  }
}

// C = A x A squares the hubs' rows: SpMM is calibrated on the inputs of at
// most this many edges only.
constexpr std::uint64_t kSpmmMaxEdges = std::uint64_t{1} << 18;

void measure_spmm(const Comm& comm, const DistGraph& g, const Features& f, const std::string& input,
                  int repeats, std::vector<Sample>& out) {
  if (g.global_edge_count() > kSpmmMaxEdges) {
    Progress::say(comm, "calibrating: spmm not on {}: {} edges, more than {} (C = A x A)", input,
                  g.global_edge_count(), kSpmmMaxEdges);
    return;
  }
  for (const spmm::MethodInfo& m : spmm::method_table()) {
    const spmm::Result r = spmm::run(comm, g, m.method, repeats, nbr::PlanOptions{});
    // The gather alone: the multiply is the same work whatever the method.
    out.push_back({"spmm", m.name, input, f, r.gather_seconds});
    say_measured(comm, out.back());
  }
}

}  // namespace

Calibration load_calibration(const Comm& comm, const std::string& path) {
  const nlohmann::json doc = read_calibration(comm, path);
  Calibration c;
  collectively(comm.get(), [&] { c = from_json(path, doc); });
  return c;
}

std::size_t add_samples(const Comm& comm, const std::string& path, const std::string& name,
                        const std::vector<Sample>& samples,
                        const std::vector<NetworkSample>& network) {
  Read read = Read::ok;
  const std::string text = read_on_root(comm, path, read);
  if (read == Read::unreadable)
    fail_everywhere(fmt::format("{}: cannot read the calibration to add to it: {}", path, text));
  Calibration c{name, {}, {}};
  if (read == Read::ok)
    collectively(comm.get(), [&] { c = from_json(path, parse_calibration(path, text)); });
  std::erase_if(c.samples, [&](const Sample& old) {
    return std::any_of(samples.begin(), samples.end(),
                       [&](const Sample& s) { return same_run(old, s); });
  });
  const bool new_spmm = std::any_of(samples.begin(), samples.end(),
                                    [](const Sample& s) { return s.kernel == "spmm"; });
  const std::size_t stale =
      new_spmm ? std::erase_if(c.samples,
                               [](const Sample& old) {
                                 return old.kernel == "spmm" && !has_gather_figures(old.features);
                               })
               : 0;
  c.samples.insert(c.samples.end(), samples.begin(), samples.end());
  std::erase_if(c.network, [&](const NetworkSample& old) {
    return std::any_of(network.begin(), network.end(), [&](const NetworkSample& s) {
      return s.ranks == old.ranks && s.degree == old.degree && s.block == old.block;
    });
  });
  c.network.insert(c.network.end(), network.begin(), network.end());
  nlohmann::json doc = {{"schema_version", kCalibrationSchema},
                        {"name", c.name},
                        {"samples", nlohmann::json::array()},
                        {"network", c.network}};
  for (const Sample& s : c.samples) doc["samples"].push_back(to_json(s));
  if (comm.rank() == 0) {
    std::error_code ignored;
    std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ignored);
  }
  write_json_on_root(comm, path, doc);
  return stale;
}

const std::vector<std::string>& default_calibration_inputs() {
  // Sparse and dense process graphs, 5 to 510 BFS levels, small and large
  // cuts: what the five terms need to be told apart.
  static const std::vector<std::string> inputs = {
      "rmat:10",   "rmat:12",   "rmat:14", "rmat:15", "er:16384",    "er:65536",
      "rgg:16384", "rgg:65536", "grid:32", "grid:64", "grid:256,d=2"};
  return inputs;
}

std::vector<Sample> measure(const Comm& comm, const CalibrationOptions& o) {
  std::vector<Sample> out;
  const std::vector<std::string>& inputs =
      o.inputs.empty() ? default_calibration_inputs() : o.inputs;
  for (const std::string& input : inputs) {
    LoadOptions lo;
    lo.seed = o.seed;
    const LoadedGraph loaded = load_graph(comm, input, lo);
    const bool bfs = std::find(o.kernels.begin(), o.kernels.end(), "bfs") != o.kernels.end();
    const bool spmm = std::find(o.kernels.begin(), o.kernels.end(), "spmm") != o.kernels.end();
    const Features f =
        compute_features(comm, loaded.graph, 0, Balance::vertices, bfs, o.seed, 0, spmm);
    for (const std::string& kernel : o.kernels) {
      if (kernel == "match") measure_match(comm, loaded.graph, f, input, o.repeats, out);
      if (kernel == "bfs") measure_bfs(comm, loaded.graph, f, input, o, out);
      if (kernel == "spmm") measure_spmm(comm, loaded.graph, f, input, o.repeats, out);
    }
  }
  return out;
}

void check_spmm_samples(const Calibration& c) {
  for (const Sample& s : c.samples)
    if (s.kernel == "spmm" && !has_gather_figures(s.features))
      fail(fmt::format(
          "calibration {}: its SpMM samples were made before advise counted SpMM's gathers as "
          "it does now (the words they move, the combined plan's counts): run `graphcomm "
          "advise --calibrate --kernel spmm` again at each rank count",
          c.name));
}

int calibrated_ranks_per_node(const Calibration& c, const std::string& kernel) {
  int largest = 0, per_node = 0;
  for (const Sample& s : c.samples)
    if (s.kernel == kernel) largest = std::max(largest, s.features.parts);
  for (const Sample& s : c.samples)
    if (s.kernel == kernel && s.features.parts == largest)
      per_node = std::max(per_node, s.features.ranks_per_node);
  return per_node;
}

std::map<std::string, Coefficients> fit_configurations(const Calibration& c,
                                                       const std::string& kernel, int parts) {
  // A fit of a kernel's five costs (of the kTerms, cost_model.hpp) needs more
  // samples than terms: with fewer at `parts` (a calibration made at a new
  // rank count on an input or two), fitting on them alone leaves most costs
  // undetermined, so every sample is used.
  constexpr std::size_t kEnoughAtParts = 5 + 1;
  std::map<std::string, std::vector<Observation>> every, at_parts;
  if (kernel == "spmm") check_spmm_samples(c);
  for (const Sample& s : c.samples) {
    if (s.kernel != kernel || s.seconds <= 0) continue;
    // Counted as itself, fitted with those whose costs price it.
    const std::string& configuration = fitted_as(kernel, s.configuration);
    const Observation o{term_counts(kernel, s.configuration, s.features), s.seconds};
    every[configuration].push_back(o);
    if (s.features.parts == parts) at_parts[configuration].push_back(o);
  }
  std::map<std::string, Coefficients> out;
  for (const auto& [configuration, observations] : every) {
    const std::vector<Observation>& here = at_parts[configuration];
    out[configuration] =
        fit(here.size() >= kEnoughAtParts ? here : observations, work_terms(kernel, configuration));
  }
  return out;
}

nlohmann::json to_json(const Sample& s) {
  return {{"kernel", s.kernel},
          {"configuration", s.configuration},
          {"input", s.input},
          {"features", nlohmann::json(s.features)},
          {"seconds", s.seconds}};
}

}  // namespace gc::advise
