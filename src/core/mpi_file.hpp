// MPI-IO owners: a file handle closed on destruction with typed collective
// reads and writes, and collective atomic creation of an output file.
#pragma once

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>

#include <fmt/format.h>

#include "core/mpi.hpp"

namespace gc {

inline std::string mpi_error_text(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  return std::string(text, static_cast<size_t>(length));
}

// An MPI file handle, closed on destruction.
class MpiFile {
 public:
  MpiFile(const Comm& comm, const std::string& path, int mode) : path_(path) {
    int rc = MPI_File_open(comm.get(), path.c_str(), mode, MPI_INFO_NULL, &file_);
    if (rc != MPI_SUCCESS) {
      file_ = MPI_FILE_NULL;
      // Prefer the system's wording for a file that is missing or unreadable.
      std::string why = (mode & MPI_MODE_RDONLY) && access(path.c_str(), R_OK) != 0
                            ? std::strerror(errno)
                            : mpi_error_text(rc);
      fail_everywhere(fmt::format("{}: cannot open: {}", path, why));
    }
  }
  ~MpiFile() {
    if (file_ != MPI_FILE_NULL) MPI_File_close(&file_);
  }
  MpiFile(const MpiFile&) = delete;
  MpiFile& operator=(const MpiFile&) = delete;
  MPI_File get() const { return file_; }
  MPI_Offset size() const {
    MPI_Offset s = 0;
    MPI_File_get_size(file_, &s);
    return s;
  }
  void check(int rc, const char* what) const {
    if (rc != MPI_SUCCESS) fail(fmt::format("{}: {} failed: {}", path_, what, mpi_error_text(rc)));
  }
  template <class T>
  void read_all(MPI_Offset at, T* data, std::uint64_t count) const {
    check(MPI_File_read_at_all(file_, at, data, checked_count(count, "file read"), mpi_type<T>(),
                               MPI_STATUS_IGNORE),
          "read");
  }
  template <class T>
  void write_all(MPI_Offset at, const T* data, std::uint64_t count) const {
    check(MPI_File_write_at_all(file_, at, data, checked_count(count, "file write"),
                                datatype_of<T>(), MPI_STATUS_IGNORE),
          "write");
  }

 private:
  std::string path_;
  MPI_File file_ = MPI_FILE_NULL;
};

// A temporary name next to `path` that every rank agrees on.
inline std::string temporary_name(const Comm& comm, const std::string& path) {
  long pid = comm.rank() == 0 ? static_cast<long>(getpid()) : 0;
  MPI_Bcast(&pid, 1, MPI_LONG, 0, comm.get());
  return fmt::format("{}.tmp.{}", path, pid);
}

// Runs write(tmp) collectively, then renames tmp to path on rank 0; on any
// error the temporary is removed and every rank throws.
template <class Fn>
void write_atomically(const Comm& comm, const std::string& path, Fn&& write) {
  const std::string tmp = temporary_name(comm, path);
  try {
    collectively(comm.get(), [&] { write(tmp); });
    collectively(comm.get(), [&] {
      if (comm.rank() != 0) return;
      std::error_code ec;
      std::filesystem::rename(tmp, path, ec);
      if (ec) fail(fmt::format("{}: cannot rename into place: {}", path, ec.message()));
    });
  } catch (...) {
    if (comm.rank() == 0) std::remove(tmp.c_str());
    throw;
  }
}

}  // namespace gc
