#include "core/output.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>

namespace gc {

void write_file_atomically(const std::string& path,
                           const std::function<void(std::ostream&)>& write) {
  const std::string tmp = fmt::format("{}.tmp.{}", path, static_cast<long>(getpid()));
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) fail(fmt::format("{}: cannot write: {}", path, std::strerror(errno)));
    try {
      write(out);
    } catch (...) {
      out.close();
      std::remove(tmp.c_str());
      throw;
    }
    out.flush();
    if (!out) {
      out.close();
      std::remove(tmp.c_str());
      fail(fmt::format("{}: write failed", path));
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::remove(tmp.c_str());
    fail(fmt::format("{}: cannot rename into place: {}", path, ec.message()));
  }
}

void write_json_on_root(const Comm& comm, const std::string& path, const nlohmann::json& doc) {
  collectively(comm.get(), [&] {
    if (comm.rank() == 0)
      write_file_atomically(path, [&](std::ostream& out) { out << doc.dump(2) << '\n'; });
  });
}

nlohmann::json result_envelope(const Comm& comm, const std::string& command, int argc,
                               char** argv) {
  nlohmann::json args = nlohmann::json::array();
  for (int i = 0; i < argc; ++i) args.push_back(argv[i]);
  int version = 0, subversion = 0;
  MPI_Get_version(&version, &subversion);
  return {
      {"schema_version", kJsonSchemaVersion},
      {"graphcomm_version", GRAPHCOMM_VERSION},
      {"command", command},
      {"argv", args},
      {"ranks", comm.size()},
      {"mpi",
       {{"library", mpi_library_version()},
        {"standard", fmt::format("{}.{}", version, subversion)},
        {"neighborhood_collectives",
         neighborhood_collectives_replaced() ? "graphcomm direct schedule" : "library"}}},
  };
}

void Progress::set_quiet(bool quiet) {
  quiet_ = quiet;
}

void Progress::say_line(const std::string& line) {
  std::fprintf(stderr, "graphcomm: %s\n", line.c_str());
  std::fflush(stderr);
}

}  // namespace gc
