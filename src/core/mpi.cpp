#include "core/mpi.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "core/dup.hpp"
#include "core/wait.hpp"

namespace gc {

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

Comm Comm::dup() const {
  return Comm(duplicate(handle_), true);
}

Comm Comm::dist_graph_adjacent(const std::vector<int>& neighbors) const {
  return Comm(create_dist_graph_adjacent(handle_, neighbors, neighbors), true);
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

namespace {

std::map<int, MPI_Datatype>& bytes_types() {
  static std::map<int, MPI_Datatype> types;
  return types;
}

int free_bytes_types(MPI_Comm, int, void*, void*) {
  for (auto& [bytes, type] : bytes_types()) MPI_Type_free(&type);
  bytes_types().clear();
  return MPI_SUCCESS;
}

}  // namespace

MPI_Datatype bytes_type(int bytes) {
  auto& types = bytes_types();
  auto it = types.find(bytes);
  if (it != types.end()) return it->second;
  if (types.empty()) {
    int keyval = MPI_KEYVAL_INVALID;
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_bytes_types, &keyval, nullptr);
    MPI_Comm_set_attr(MPI_COMM_SELF, keyval, nullptr);
    MPI_Comm_free_keyval(&keyval);
  }
  MPI_Datatype type;
  MPI_Type_contiguous(bytes, MPI_BYTE, &type);
  MPI_Type_commit(&type);
  types.emplace(bytes, type);
  return type;
}

namespace {

// Twins of communicators for sparse_alltoallv, kept as an attribute of the
// communicator and freed with it; the predefined communicators' twins are
// freed when MPI finalizes (MPI_COMM_SELF's attributes are deleted first).
int free_twin(MPI_Comm, int, void* twin, void*) {
  MPI_Comm* handle = static_cast<MPI_Comm*>(twin);
  MPI_Comm_free(handle);
  delete handle;
  return MPI_SUCCESS;
}

MPI_Comm exchange_twin(MPI_Comm comm) {
  const bool predefined = comm == MPI_COMM_WORLD || comm == MPI_COMM_SELF;
  // A predefined communicator's twin hangs on MPI_COMM_SELF, under a key of its own.
  static int keyval = MPI_KEYVAL_INVALID, world_keyval = MPI_KEYVAL_INVALID,
             self_keyval = MPI_KEYVAL_INVALID;
  int& key = !predefined ? keyval : comm == MPI_COMM_WORLD ? world_keyval : self_keyval;
  if (key == MPI_KEYVAL_INVALID)
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_twin, &key, nullptr);
  MPI_Comm holder = predefined ? MPI_COMM_SELF : comm;
  void* value = nullptr;
  int found = 0;
  MPI_Comm_get_attr(holder, key, &value, &found);
  if (found) return *static_cast<MPI_Comm*>(value);
  auto* twin = new MPI_Comm(duplicate(comm));
  MPI_Comm_set_attr(holder, key, twin);
  return *twin;
}

}  // namespace

void sparse_alltoallv(const void* send, const int* send_counts, const int* send_displs, void* recv,
                      const int* recv_counts, const int* recv_displs, MPI_Datatype type,
                      const Comm& comm) {
  const MPI_Comm twin = exchange_twin(comm.get());
  MPI_Aint lower = 0, extent = 0;
  MPI_Type_get_extent(type, &lower, &extent);
  const int p = comm.size(), me = comm.rank();
  auto at = [extent](auto* base, int displ) {
    return base + static_cast<MPI_Aint>(displ) * extent;
  };
  Requests requests;
  // From and to the ranks after mine first, so that rank 0 is not everyone's first partner.
  for (int k = 1; k < p; ++k) {
    const int from = (me - k + p) % p;
    if (recv_counts[from] == 0) continue;
    MPI_Irecv(at(static_cast<char*>(recv), recv_displs[from]), recv_counts[from], type, from, 0,
              twin, requests.next());
  }
  for (int k = 1; k < p; ++k) {
    const int to = (me + k) % p;
    if (send_counts[to] == 0) continue;
    MPI_Isend(at(static_cast<const char*>(send), send_displs[to]), send_counts[to], type, to, 0,
              twin, requests.next());
  }
  std::copy_n(at(static_cast<const char*>(send), send_displs[me]),
              static_cast<MPI_Aint>(send_counts[me]) * extent,
              at(static_cast<char*>(recv), recv_displs[me]));
  requests.wait();
}

std::uint64_t exscan_sum_by_doubling(const Comm& comm, std::uint64_t value) {
  const MPI_Comm twin = exchange_twin(comm.get());
  const int p = comm.size(), me = comm.rank();
  // `partial` sums the values of the ranks my partners so far have covered,
  // mine included; `before` only those below me. Every partner rank ^ mask
  // that exists holds the sum of a block of ranks disjoint from mine.
  std::uint64_t partial = value, before = 0;
  for (int mask = 1; mask < p; mask <<= 1) {
    const int partner = me ^ mask;
    if (partner >= p) continue;
    std::uint64_t theirs = 0;
    MPI_Sendrecv(&partial, 1, MPI_UINT64_T, partner, 0, &theirs, 1, MPI_UINT64_T, partner, 0, twin,
                 MPI_STATUS_IGNORE);
    partial += theirs;
    if (partner < me) before += theirs;
  }
  return before;
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
  // "MPICH Version:\t4.0.2" -> "MPICH 4.0.2"; "Open MPI v4.1.4, ..." -> "Open MPI v4.1.4";
  // "SMPI Version 3.32. Copyright ..." -> "SimGrid SMPI 3.32"
  if (s.starts_with("SMPI Version ")) s = "SimGrid SMPI " + s.substr(13);
  if (auto at = s.find("Version:"); at != std::string::npos) {
    auto value = s.find_first_not_of(" \t", at + 8);
    s = s.substr(0, at) + (value == std::string::npos ? "" : s.substr(value));
  }
  auto cut = std::min(s.find_first_of("\n,"), s.find(". "));
  if (cut != std::string::npos) s.resize(cut);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\n')) s.pop_back();
  return s;
}

std::vector<int> displacements_of(const std::vector<int>& counts, std::uint64_t& total,
                                  const char* what) {
  std::vector<int> displs(counts.size());
  total = 0;
  for (size_t r = 0; r < counts.size(); ++r) {
    displs[r] = checked_count(total, what);
    total += static_cast<std::uint64_t>(counts[r]);
  }
  return displs;
}

}  // namespace gc
