// Rank root's string, vector or value, on every rank (a container: its
// length first, then its contents). Collective over comm.
#pragma once

#include <algorithm>
#include <cstddef>
#include <type_traits>

#include <mpi.h>

namespace gc {

template <class Container>
void broadcast(Container& values, int root, MPI_Comm comm) {
  using Value = typename Container::value_type;
  static_assert(std::is_trivially_copyable_v<Value>);
  unsigned long long count = values.size();
  MPI_Bcast(&count, 1, MPI_UNSIGNED_LONG_LONG, root, comm);
  values.resize(static_cast<std::size_t>(count));
  // In pieces that an int counts, as bytes: any length, any trivial value.
  auto* bytes = reinterpret_cast<unsigned char*>(values.data());
  const std::size_t total = static_cast<std::size_t>(count) * sizeof(Value);
  constexpr std::size_t kPiece = std::size_t{1} << 30;
  for (std::size_t at = 0; at < total; at += kPiece)
    MPI_Bcast(bytes + at, static_cast<int>(std::min(kPiece, total - at)), MPI_BYTE, root, comm);
}

// Rank root's value of a trivially copyable type, on every rank.
template <class T>
T broadcast_value(T value, int root, MPI_Comm comm) {
  static_assert(std::is_trivially_copyable_v<T>);
  MPI_Bcast(&value, static_cast<int>(sizeof(T)), MPI_BYTE, root, comm);
  return value;
}

}  // namespace gc
