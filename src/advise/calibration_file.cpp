#include "advise/calibration_file.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "core/broadcast.hpp"
#include "core/error.hpp"

namespace gc::advise {

std::string default_calibration_name(const std::string& platform) {
  if (!platform.empty()) return platform;
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  return fmt::format("{}-{}", GRAPHCOMM_MPI_FLAVOUR, host);
}

std::string default_calibration_path(const std::string& platform) {
  if (const char* path = std::getenv("GRAPHCOMM_CALIBRATION"); path && *path) return path;
  std::filesystem::path dir;
  if (const char* data = std::getenv("XDG_DATA_HOME"); data && *data)
    dir = data;
  else if (const char* home = std::getenv("HOME"); home && *home)
    dir = std::filesystem::path(home) / ".local" / "share";
  else
    dir = ".";
  return (dir / "graphcomm" /
          fmt::format("calibration-{}.json", default_calibration_name(platform)))
      .string();
}

std::string read_on_root(const Comm& comm, const std::string& path, Read& read) {
  std::string text;
  int state = static_cast<int>(Read::ok);
  if (comm.rank() == 0) {
    std::ifstream in(path);
    if (in) {
      std::ostringstream s;
      s << in.rdbuf();
      text = s.str();
    } else {
      const int error = errno;
      std::error_code ignored;
      state = static_cast<int>(std::filesystem::exists(path, ignored) ? Read::unreadable
                                                                      : Read::missing);
      text = std::strerror(error);
    }
  }
  state = broadcast_value(state, 0, comm.get());
  broadcast(text, 0, comm.get());
  read = static_cast<Read>(state);
  return text;
}

nlohmann::json parse_calibration(const std::string& path, const std::string& text) {
  try {
    nlohmann::json doc = nlohmann::json::parse(text);
    if (doc.at("schema_version").get<int>() != kCalibrationSchema)
      fail(fmt::format("{}: calibration schema {}, this graphcomm reads {}", path,
                       doc.at("schema_version").dump(), kCalibrationSchema));
    return doc;
  } catch (const nlohmann::json::exception& e) {
    fail(fmt::format("{}: not a graphcomm calibration file ({})", path, e.what()));
  }
}

nlohmann::json read_calibration(const Comm& comm, const std::string& path) {
  Read read = Read::ok;
  const std::string text = read_on_root(comm, path, read);
  // Missing: the usual case before the first calibration (the default path)
  // or a mistyped --calibration; either way, say how to make one.
  if (read == Read::missing)
    fail_everywhere(fmt::format(
        "{}: no such calibration file: make it with `graphcomm advise --calibrate` at the rank "
        "counts to advise for, or name another with --calibration FILE",
        path));
  if (read == Read::unreadable)
    fail_everywhere(fmt::format("{}: cannot read the calibration: {}", path, text));
  nlohmann::json doc;
  collectively(comm.get(), [&] { doc = parse_calibration(path, text); });
  return doc;
}

}  // namespace gc::advise
