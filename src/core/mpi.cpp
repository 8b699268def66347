#include "core/mpi.hpp"

#include <fmt/format.h>

namespace gc {

MpiEnvironment::MpiEnvironment(int* argc, char*** argv) {
  int provided = 0;
  MPI_Init_thread(argc, argv, MPI_THREAD_SINGLE, &provided);
  // Errors on communicators become return codes we turn into gc::Error only
  // where we check them; by default MPI aborts, which is what we want for
  // internal failures (never a hang).
}

MpiEnvironment::~MpiEnvironment() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

Comm::Comm(MPI_Comm handle, bool owned) : handle_(handle), owned_(owned) {
  MPI_Comm_rank(handle_, &rank_);
  MPI_Comm_size(handle_, &size_);
}

Comm& Comm::operator=(Comm&& other) noexcept {
  if (this != &other) {
    if (owned_ && handle_ != MPI_COMM_NULL) MPI_Comm_free(&handle_);
    handle_ = std::exchange(other.handle_, MPI_COMM_NULL);
    owned_ = std::exchange(other.owned_, false);
    rank_ = other.rank_;
    size_ = other.size_;
  }
  return *this;
}

Comm::~Comm() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (owned_ && handle_ != MPI_COMM_NULL && !finalized) MPI_Comm_free(&handle_);
}

Comm Comm::split(int color, int key) const {
  MPI_Comm out;
  MPI_Comm_split(handle_, color, key, &out);
  if (out == MPI_COMM_NULL) return Comm();
  return Comm(out, true);
}

Datatype& Datatype::operator=(Datatype&& other) noexcept {
  if (this != &other) {
    if (type_ != MPI_DATATYPE_NULL) MPI_Type_free(&type_);
    type_ = std::exchange(other.type_, MPI_DATATYPE_NULL);
  }
  return *this;
}

Datatype::~Datatype() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (type_ != MPI_DATATYPE_NULL && !finalized) MPI_Type_free(&type_);
}

int checked_count(std::uint64_t count, const char* what) {
  if (count > static_cast<std::uint64_t>(std::numeric_limits<int>::max()))
    fail(fmt::format("{} of {} exceeds what one MPI call can move; use more ranks", what, count));
  return static_cast<int>(count);
}

std::string mpi_library_version() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING];
  int length = 0;
  MPI_Get_library_version(text, &length);
  std::string s(text, static_cast<size_t>(length));
  auto cut = s.find_first_of("\n,");
  if (cut != std::string::npos) s.resize(cut);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\n')) s.pop_back();
  return s;
}

}  // namespace gc
