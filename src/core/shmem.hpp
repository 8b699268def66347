// OpenSHMEM (Open MPI's oshmem), started on demand by the models that use it
// (comm/shmem_packets.cpp, comm/hybrid.cpp) after MPI_Init, and the end of
// MPI for every program: in Open MPI shmem_finalize() also finalizes MPI, so a
// program calls exactly one of shmem_finalize() and MPI_Finalize(), which is
// finalize_mpi()'s choice. Built without OpenSHMEM (MPICH), only
// finalize_mpi() does anything.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

#include <mpi.h>

#ifndef GRAPHCOMM_HAVE_OPENSHMEM
#define GRAPHCOMM_HAVE_OPENSHMEM 0
#endif

namespace gc {

// Collective over MPI_COMM_WORLD: starts OpenSHMEM once (later calls return
// at once). The symmetric heap's size is fixed at that moment, so the first
// caller says how many symmetric bytes it needs (the same on every rank):
// unless the user set SHMEM_SYMMETRIC_HEAP_SIZE, the heap gets
// max(2 * need, 256 MiB). Fails everywhere when built without OpenSHMEM.
void ensure_shmem_initialized(std::uint64_t need_bytes = 0);

// True once ensure_shmem_initialized() started OpenSHMEM.
bool shmem_started();

// Why the OpenSHMEM models are missing from this build ("" when they are not).
const char* shmem_unavailable_reason();

// OpenSHMEM's PEs are the job's ranks: a model that uses it runs on
// MPI_COMM_WORLD or a duplicate of it, else fails everywhere naming `what`.
void require_whole_job(MPI_Comm comm, const char* what);

// Ends MPI (and OpenSHMEM when it was started); nothing if MPI already ended.
void finalize_mpi();

#if GRAPHCOMM_HAVE_OPENSHMEM
// A block of the symmetric heap, as large on every PE; allocated and freed
// collectively (every PE, in the same order), zero-filled.
class SymmetricBlock {
 public:
  SymmetricBlock() = default;
  // Collective. Fails everywhere, naming SHMEM_SYMMETRIC_HEAP_SIZE and the
  // size needed, when the heap cannot hold `bytes` more.
  SymmetricBlock(std::uint64_t bytes, const char* what);
  SymmetricBlock(SymmetricBlock&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), bytes_(other.bytes_) {}
  SymmetricBlock& operator=(SymmetricBlock&& other) noexcept;
  SymmetricBlock(const SymmetricBlock&) = delete;
  SymmetricBlock& operator=(const SymmetricBlock&) = delete;
  ~SymmetricBlock();  // collective

  std::byte* data() const { return data_; }
  std::uint64_t size() const { return bytes_; }

 private:
  void release();
  std::byte* data_ = nullptr;
  std::uint64_t bytes_ = 0;
};
#endif

}  // namespace gc
