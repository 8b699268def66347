// Output helpers: atomic files, the JSON result envelope, rank-0 progress,
// and timers measured between barriers and reported as the maximum over ranks.
#pragma once

#include <chrono>
#include <functional>
#include <ostream>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/mpi.hpp"

namespace gc {

inline constexpr int kJsonSchemaVersion = 1;

// Writes `path` by calling write(out) on a temporary sibling and renaming it
// into place, so a failure never leaves a half-written file. Fails with a
// gc::Error naming the path. Not collective.
void write_file_atomically(const std::string& path,
                           const std::function<void(std::ostream&)>& write);

// Collective: rank 0 writes the document atomically; every rank learns whether
// it worked (and throws the same error if not).
void write_json_on_root(const Comm& comm, const std::string& path, const nlohmann::json& doc);

// The envelope every --json file shares: schema version, tool and MPI versions,
// the command line and the rank count.
nlohmann::json result_envelope(const Comm& comm, const std::string& command, int argc, char** argv);

// Progress lines on rank 0's stderr ("graphcomm: ..."), silenced by --quiet.
class Progress {
 public:
  static void set_quiet(bool quiet);
  template <class... Args>
  static void say(const Comm& comm, fmt::format_string<Args...> f, Args&&... args) {
    if (comm.rank() == 0 && !quiet_) say_line(fmt::format(f, std::forward<Args>(args)...));
  }

 private:
  static void say_line(const std::string& line);
  static inline bool quiet_ = false;
};

// Wall time of a phase, measured between barriers, maximum over ranks.
class PhaseTimer {
 public:
  explicit PhaseTimer(const Comm& comm) : comm_(comm) {
    comm_.barrier();
    start_ = MPI_Wtime();
  }
  double stop() {
    double local = MPI_Wtime() - start_;
    comm_.barrier();
    return max_over_ranks(comm_, local);
  }

 private:
  const Comm& comm_;
  double start_;
};

}  // namespace gc
