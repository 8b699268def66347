// One error type for the whole project: what went wrong, and where (source
// file, line, rank). The top level prints "graphcomm: error: <what>" once and
// exits non-zero on every rank.
#pragma once

#include <optional>
#include <source_location>
#include <stdexcept>
#include <string>

#include <mpi.h>

namespace gc {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what,
                 std::source_location where = std::source_location::current());

  const char* source_file() const { return file_; }
  unsigned source_line() const { return line_; }
  int rank() const { return rank_; }
  // True when every rank of the communicator raised this same error (see
  // raise_if_any_rank): the top level can then exit cleanly instead of aborting.
  bool agreed() const { return agreed_; }
  void mark_agreed() { agreed_ = true; }

 private:
  const char* file_;
  unsigned line_;
  int rank_;
  bool agreed_ = false;
};

// Throws gc::Error. For input errors, `what` starts with "FILE:LINE: " when a
// position in a file is known.
[[noreturn]] void fail(const std::string& what,
                       std::source_location where = std::source_location::current());

// Throws an error already known to every rank (all ranks reach this call with
// the same information), so the top level can exit cleanly.
[[noreturn]] void fail_everywhere(const std::string& what,
                                  std::source_location where = std::source_location::current());

// Collective: if any rank holds an error, every rank throws the one from the
// lowest such rank (marked agreed). Ranks that parse consecutive parts of a
// file therefore all report the first error in file order.
void raise_if_any_rank(MPI_Comm comm, const std::optional<Error>& local);

// Collective helper: runs fn(), catching a gc::Error, then agrees on errors.
template <class Fn>
void collectively(MPI_Comm comm, Fn&& fn) {
  std::optional<Error> local;
  try {
    fn();
  } catch (const Error& e) {
    local = e;
  }
  raise_if_any_rank(comm, local);
}

}  // namespace gc
