#include "core/error.hpp"

#include <vector>

#include "core/broadcast.hpp"

namespace gc {

namespace {
int world_rank() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  int rank = -1;
  if (initialized) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}
}  // namespace

Error::Error(const std::string& what, std::source_location where)
    : std::runtime_error(what),
      file_(where.file_name()),
      line_(where.line()),
      rank_(world_rank()) {}

void fail(const std::string& what, std::source_location where) {
  throw Error(what, where);
}

void fail_everywhere(const std::string& what, std::source_location where) {
  Error e(what, where);
  e.mark_agreed();
  throw e;
}

void raise_if_any_rank(MPI_Comm comm, const std::optional<Error>& local) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int mine = local ? rank : size;
  int first = size;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
  if (first == size) return;

  // Ship the message of the first failing rank to everybody.
  std::string text = (rank == first) ? std::string(local->what()) : std::string();
  broadcast(text, first, comm);
  Error agreed = (rank == first) ? *local : Error(text);
  agreed.mark_agreed();
  throw agreed;
}

}  // namespace gc
