// Small RAII owners and typed helpers around MPI, in the spirit of KaMPIng:
// kernels never call MPI_*_free themselves, and the typed helpers (mpi_type,
// record_type, datatype_of and the collectives built on them) exist so that
// kernels need not spell out datatypes.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <mpi.h>

#include "core/error.hpp"
#include "core/flavour.hpp"
#include "core/neighborhood.hpp"

namespace gc {

// MPI_Init/MPI_Finalize for the lifetime of main().
class MpiEnvironment {
 public:
  MpiEnvironment(int* argc, char*** argv);
  ~MpiEnvironment();
  MpiEnvironment(const MpiEnvironment&) = delete;
  MpiEnvironment& operator=(const MpiEnvironment&) = delete;
};

// A communicator; owns (and frees) the handle unless it is a predefined one.
class Comm {
 public:
  Comm() = default;
  static Comm world() { return Comm(MPI_COMM_WORLD, false); }
  static Comm self() { return Comm(MPI_COMM_SELF, false); }
  static Comm adopt(MPI_Comm handle) { return Comm(handle, true); }
  static Comm borrow(MPI_Comm handle) { return Comm(handle, false); }  // its owner frees it
  Comm(Comm&& other) noexcept { *this = std::move(other); }
  Comm& operator=(Comm&& other) noexcept;
  Comm(const Comm&) = delete;
  Comm& operator=(const Comm&) = delete;
  ~Comm();

  MPI_Comm get() const { return handle_; }
  int rank() const { return rank_; }
  int size() const { return size_; }
  void barrier() const { MPI_Barrier(handle_); }
  Comm split(int color, int key) const;
  Comm dup() const;
  // A distributed graph topology whose sources and destinations are both
  // `neighbors` (a symmetric relation), ranks not reordered.
  Comm dist_graph_adjacent(const std::vector<int>& neighbors) const;

 private:
  Comm(MPI_Comm handle, bool owned);
  MPI_Comm handle_ = MPI_COMM_NULL;
  bool owned_ = false;
  int rank_ = 0;
  int size_ = 0;
};

// A committed derived datatype, freed on destruction.
class Datatype {
 public:
  Datatype() = default;
  explicit Datatype(MPI_Datatype committed) : type_(committed) {}
  Datatype(Datatype&& other) noexcept : type_(std::exchange(other.type_, MPI_DATATYPE_NULL)) {}
  Datatype& operator=(Datatype&& other) noexcept;
  Datatype(const Datatype&) = delete;
  Datatype& operator=(const Datatype&) = delete;
  ~Datatype();
  MPI_Datatype get() const { return type_; }

 private:
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
};

template <class T>
MPI_Datatype mpi_type() {
  if constexpr (std::is_same_v<T, double>)
    return MPI_DOUBLE;
  else if constexpr (std::is_same_v<T, float>)
    return MPI_FLOAT;
  else if constexpr (std::is_same_v<T, int>)
    return MPI_INT;
  else if constexpr (std::is_same_v<T, char>)
    return MPI_CHAR;
  else if constexpr (std::is_same_v<T, std::int64_t>)
    return MPI_INT64_T;
  else if constexpr (std::is_same_v<T, std::uint64_t>)
    return MPI_UINT64_T;
  else if constexpr (std::is_same_v<T, unsigned long long>)
    return MPI_UNSIGNED_LONG_LONG;
  else if constexpr (std::is_same_v<T, std::uint32_t>)
    return MPI_UINT32_T;
  else if constexpr (std::is_same_v<T, std::uint8_t>)
    return MPI_UINT8_T;
  else
    static_assert(sizeof(T) == 0, "no MPI datatype for this type");
}

// A committed contiguous datatype of `bytes` bytes, created once per size and
// freed when MPI finalizes (through an attribute on MPI_COMM_SELF, whose
// delete callback MPI_Finalize runs first).
MPI_Datatype bytes_type(int bytes);

// The datatype of a trivially copyable record: sizeof(T) contiguous bytes.
template <class T>
MPI_Datatype record_type() {
  static_assert(std::is_trivially_copyable_v<T>);
  return bytes_type(static_cast<int>(sizeof(T)));
}

template <class T>
MPI_Datatype datatype_of() {
  if constexpr (std::is_arithmetic_v<T>)
    return mpi_type<T>();
  else
    return record_type<T>();
}

// Converts a count to int for an MPI call, or fails with a clear message.
int checked_count(std::uint64_t count, const char* what);

// MPI_MIN and MPI_MAX over unsigned 32- and 64-bit integers compare them as
// signed in the libraries packaged here (Open MPI 4.1.4 with MPI_UNSIGNED_LONG,
// MPICH 4.0 with MPI_UINT64_T: min(0, 2^64-1) comes out 2^64-1), so such
// values are reduced as signed with the top bit flipped, which orders them
// as unsigned. Other types and operations go to the library as they are.
template <class T>
constexpr bool kFlipForMinMax = std::is_unsigned_v<T> && (sizeof(T) == 4 || sizeof(T) == 8);
template <class T>
using SignedTwin = std::conditional_t<sizeof(T) == 4, std::int32_t, std::int64_t>;

template <class T>
void reduce_in_order(const T* in, T* out, int count, MPI_Op op, const Comm& comm) {
  if constexpr (kFlipForMinMax<T>) {
    if (op == MPI_MIN || op == MPI_MAX) {
      constexpr T top = T{1} << (8 * sizeof(T) - 1);
      std::vector<SignedTwin<T>> flipped(static_cast<std::size_t>(count));
      for (int i = 0; i < count; ++i)
        flipped[static_cast<std::size_t>(i)] = static_cast<SignedTwin<T>>(in[i] ^ top);
      MPI_Allreduce(MPI_IN_PLACE, flipped.data(), count, mpi_type<SignedTwin<T>>(), op, comm.get());
      for (int i = 0; i < count; ++i)
        out[i] = static_cast<T>(flipped[static_cast<std::size_t>(i)]) ^ top;
      return;
    }
  }
  MPI_Allreduce(in, out, count, mpi_type<T>(), op, comm.get());
}

template <class T>
T allreduce(const Comm& comm, T value, MPI_Op op) {
  T out{};
  reduce_in_order(&value, &out, 1, op, comm);
  return out;
}
// Element-wise reduction over ranks of arrays of equal length: element i of
// the result reduces element i of every rank's array. Collective.
template <class Array>
Array allreduce_each(const Comm& comm, const Array& values, MPI_Op op) {
  Array out = values;
  reduce_in_order(values.data(), out.data(), checked_count(values.size(), "allreduce length"), op,
                  comm);
  return out;
}
template <class T>
T sum_over_ranks(const Comm& comm, T v) {
  return allreduce(comm, v, MPI_SUM);
}
template <class T>
T max_over_ranks(const Comm& comm, T v) {
  return allreduce(comm, v, MPI_MAX);
}
template <class T>
T min_over_ranks(const Comm& comm, T v) {
  return allreduce(comm, v, MPI_MIN);
}

// MPI_Exscan's sum by recursive doubling (MPICH's scan algorithm): log2 P
// rounds of one exchange each, on a twin of `comm`. What gc::exscan_sum runs
// where the library's MPI_Exscan is quadratic (flavour.hpp).
std::uint64_t exscan_sum_by_doubling(const Comm& comm, std::uint64_t value);

// Exclusive prefix sum over ranks (0 on rank 0).
template <class T>
T exscan_sum(const Comm& comm, T value) {
  if constexpr (!flavour::library_exscan_is_logarithmic) {
    static_assert(std::is_integral_v<T>, "exscan_sum by doubling sums integers");
    // Two's complement: a signed sum that fits comes back unchanged.
    return static_cast<T>(exscan_sum_by_doubling(comm, static_cast<std::uint64_t>(value)));
  }
  T out{};
  MPI_Exscan(&value, &out, 1, mpi_type<T>(), MPI_SUM, comm.get());
  if (comm.rank() == 0) out = T{};
  return out;
}

template <class T>
std::vector<T> allgather(const Comm& comm, T value) {
  std::vector<T> out(static_cast<size_t>(comm.size()));
  MPI_Allgather(&value, 1, datatype_of<T>(), out.data(), 1, datatype_of<T>(), comm.get());
  return out;
}

// MPI_Alltoallv's exchange as point-to-point messages of the non-empty blocks
// only, on a twin of `comm` (its traffic cannot meet the caller's), where the
// library's MPI_Alltoallv costs a step per rank pair (flavour.hpp).
void sparse_alltoallv(const void* send, const int* send_counts, const int* send_displs, void* recv,
                      const int* recv_counts, const int* recv_displs, MPI_Datatype type,
                      const Comm& comm);

// Personalized all-to-all of records: send[r] goes to rank r. Returns what was
// received, concatenated in rank order (recv_counts filled if non-null).
template <class T>
std::vector<T> alltoallv(const Comm& comm, const std::vector<T>& send,
                         const std::vector<std::uint64_t>& send_counts,
                         std::vector<std::uint64_t>* recv_counts_out = nullptr) {
  const int p = comm.size();
  std::vector<std::uint64_t> recv_counts(static_cast<size_t>(p));
  MPI_Alltoall(send_counts.data(), 1, MPI_UINT64_T, recv_counts.data(), 1, MPI_UINT64_T,
               comm.get());
  std::vector<int> scount(p), sdispl(p), rcount(p), rdispl(p);
  std::uint64_t soff = 0, roff = 0;
  for (int r = 0; r < p; ++r) {
    scount[r] = checked_count(send_counts[r], "alltoallv send count");
    rcount[r] = checked_count(recv_counts[r], "alltoallv receive count");
    sdispl[r] = checked_count(soff, "alltoallv send displacement");
    rdispl[r] = checked_count(roff, "alltoallv receive displacement");
    soff += send_counts[r];
    roff += recv_counts[r];
  }
  std::vector<T> recv(roff);
  if constexpr (flavour::library_alltoallv_skips_empty_blocks)
    MPI_Alltoallv(send.data(), scount.data(), sdispl.data(), datatype_of<T>(), recv.data(),
                  rcount.data(), rdispl.data(), datatype_of<T>(), comm.get());
  else
    sparse_alltoallv(send.data(), scount.data(), sdispl.data(), recv.data(), rcount.data(),
                     rdispl.data(), datatype_of<T>(), comm);
  if (recv_counts_out) *recv_counts_out = std::move(recv_counts);
  return recv;
}

// The displacements of blocks of `counts` laid end to end; `total` is set to
// their sum. Fails, naming `what`, where a displacement exceeds an int.
std::vector<int> displacements_of(const std::vector<int>& counts, std::uint64_t& total,
                                  const char* what);

// Every rank's records, concatenated in rank order, on every rank.
template <class T>
std::vector<T> allgatherv(const Comm& comm, const std::vector<T>& mine) {
  const int p = comm.size();
  const int count = checked_count(mine.size(), "allgatherv count");
  std::vector<int> counts(static_cast<size_t>(p));
  MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, comm.get());
  std::uint64_t total = 0;
  const std::vector<int> displs = displacements_of(counts, total, "allgatherv displacement");
  std::vector<T> out(total);
  MPI_Allgatherv(mine.data(), count, datatype_of<T>(), out.data(), counts.data(), displs.data(),
                 datatype_of<T>(), comm.get());
  return out;
}

// Every rank's records, concatenated in rank order, on rank `root` (empty
// elsewhere), with each rank's count there (`counts`, if non-null).
template <class T>
std::vector<T> gatherv(const Comm& comm, const std::vector<T>& mine, int root,
                       std::vector<int>* counts = nullptr) {
  const int count = checked_count(mine.size(), "gatherv count");
  std::vector<int> all_counts(comm.rank() == root ? static_cast<size_t>(comm.size()) : 0);
  MPI_Gather(&count, 1, MPI_INT, all_counts.data(), 1, MPI_INT, root, comm.get());
  std::uint64_t total = 0;
  const std::vector<int> displs = displacements_of(all_counts, total, "gatherv displacement");
  std::vector<T> out(total);
  MPI_Gatherv(mine.data(), count, datatype_of<T>(), out.data(), all_counts.data(), displs.data(),
              datatype_of<T>(), root, comm.get());
  if (counts) *counts = std::move(all_counts);
  return out;
}

// "Open MPI 4.1.4" / "MPICH 4.0.2": the library's own version string, first line.
std::string mpi_library_version();

}  // namespace gc
