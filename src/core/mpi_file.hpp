// MPI-IO owners: a file handle closed on destruction with typed collective
// reads and writes, and collective atomic creation of an output file. Where
// the flavour's MPI-IO cannot serve (core/flavour.hpp: SMPI's needs a disk on
// every simulated host), each rank reads and writes its part with pread and
// pwrite, untimed by the simulator like any other computation.
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>

#include <fmt/format.h>

#include "core/flavour.hpp"
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
    if constexpr (!flavour::library_has_mpi_io) {
      const int flags = (mode & MPI_MODE_RDONLY)   ? O_RDONLY
                        : (mode & MPI_MODE_CREATE) ? O_WRONLY | O_CREAT
                                                   : O_WRONLY;
      fd_ = ::open(path.c_str(), flags, 0666);
      const int error = fd_ < 0 ? errno : 0;
      if (max_over_ranks(comm, error) != 0) {
        if (fd_ >= 0) ::close(fd_);  // the destructor does not run
        fail_everywhere(
            fmt::format("{}: cannot open: {}", path, std::strerror(error ? error : EIO)));
      }
      return;
    }
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
    if (fd_ >= 0) ::close(fd_);
  }
  MpiFile(const MpiFile&) = delete;
  MpiFile& operator=(const MpiFile&) = delete;
  MPI_File get() const { return file_; }
  MPI_Offset size() const {
    if (fd_ >= 0) {
      struct stat st {};
      ::fstat(fd_, &st);
      return static_cast<MPI_Offset>(st.st_size);
    }
    MPI_Offset s = 0;
    MPI_File_get_size(file_, &s);
    return s;
  }
  void check(int rc, const char* what) const {
    if (rc != MPI_SUCCESS) fail(fmt::format("{}: {} failed: {}", path_, what, mpi_error_text(rc)));
  }
  template <class T>
  void read_all(MPI_Offset at, T* data, std::uint64_t count) const {
    if (fd_ >= 0) return posix("read", at, data, count * sizeof(T));
    check(MPI_File_read_at_all(file_, at, data, checked_count(count, "file read"), mpi_type<T>(),
                               MPI_STATUS_IGNORE),
          "read");
  }
  template <class T>
  void write_all(MPI_Offset at, const T* data, std::uint64_t count) const {
    if (fd_ >= 0) return posix("write", at, const_cast<T*>(data), count * sizeof(T));
    check(MPI_File_write_at_all(file_, at, data, checked_count(count, "file write"),
                                datatype_of<T>(), MPI_STATUS_IGNORE),
          "write");
  }

 private:
  void posix(const char* what, MPI_Offset at, void* data, std::uint64_t bytes) const {
    auto* p = static_cast<char*>(data);
    while (bytes > 0) {
      const ssize_t n = what[0] == 'r' ? ::pread(fd_, p, bytes, at) : ::pwrite(fd_, p, bytes, at);
      if (n <= 0)
        fail(fmt::format("{}: {} failed: {}", path_, what,
                         n == 0 ? "end of file" : std::strerror(errno)));
      p += n;
      at += n;
      bytes -= static_cast<std::uint64_t>(n);
    }
  }
  std::string path_;
  MPI_File file_ = MPI_FILE_NULL;
  int fd_ = -1;  // without MPI-IO
};

// For what needs MPI-IO's collective views (the binary graph formats): one
// clear error where the flavour has none.
inline void require_mpi_io(const std::string& path) {
  if constexpr (!flavour::library_has_mpi_io)
    fail_everywhere(fmt::format(
        "{}: binary graph files need MPI-IO, which the SimGrid SMPI build lacks (it simulates "
        "disks); use a text format (graph convert with the Open MPI build)",
        path));
}

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
