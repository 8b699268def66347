#include "cli/auto_model.hpp"

#include <cstdio>

#include "advise/advice.hpp"
#include "advise/calibration.hpp"
#include "core/output.hpp"

namespace gc::cli {

AutoChoice choose_configuration(const Comm& comm, const DistGraph& g, const std::string& kernel,
                                const std::vector<std::string>& available,
                                const std::string& calibration, std::uint64_t seed,
                                const char* option) {
  const std::string path = calibration.empty() ? advise::default_calibration_path("") : calibration;
  const advise::Calibration c = advise::load_calibration(comm, path);
  Progress::say(comm, "--{} auto: the input's features at {} ranks", option, comm.size());
  const advise::Features f = advise::compute_features(comm, g, 0, Balance::vertices,
                                                      kernel == "bfs", seed, 0, kernel == "spmm");
  const advise::Advice a = advise::advise(c, kernel, f, available);
  if (comm.rank() == 0) {
    std::printf("%s auto: %s\n", option, advise::choice_line(a).c_str());
    if (const std::string t = advise::ties_line(a); !t.empty())
      std::printf("%s auto: ties: %s\n", option, t.c_str());
    std::fflush(stdout);
  }
  nlohmann::json doc = advise::to_json(a);
  doc["calibration_file"] = path;
  return {a.ranked.front().configuration, doc};
}

void add_calibration_option(CLI::App& app, std::string& path) {
  app.add_option("--calibration", path,
                 "--model auto: the calibration file of graphcomm advise (default: "
                 "$GRAPHCOMM_CALIBRATION, else ~/.local/share/graphcomm/calibration-NAME.json)");
}

}  // namespace gc::cli
