// An MPI-3 window of memory allocated by MPI (MPI_Win_allocate), in one
// passive-target epoch for its whole life (MPI_Win_lock_all with
// MPI_MODE_NOCHECK): what the one-sided exchange models use. Creating it is
// collective, and so is freeing it; the free is skipped while an exception
// unwinds on this rank: a rank that fails alone would otherwise block in a
// collective the others, still exchanging, never reach, instead of going on
// to MPI_Abort. Where the library's RMA operations cost more the more ranks
// hold a lock (core/flavour.hpp), the epoch is one MPI_Win_lock per target
// instead, and flush_all() flushes those targets.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <utility>
#include <vector>

#include <mpi.h>

#include "core/mpi.hpp"

namespace gc {

class Window {
 public:
  using InfoKeys = std::initializer_list<std::pair<const char*, const char*>>;

  Window() = default;
  // `bytes` of this rank's memory, addressed in units of `displacement_unit`
  // bytes; `info`: MPI_Info hints (key, value); `targets`: the ranks of
  // `comm` whose memory this rank will access (itself always may be).
  Window(const Comm& comm, std::uint64_t bytes, int displacement_unit, InfoKeys info,
         std::span<const int> targets);
  Window(Window&& other) noexcept { *this = std::move(other); }
  Window& operator=(Window&& other) noexcept;
  Window(const Window&) = delete;
  Window& operator=(const Window&) = delete;
  ~Window();

  MPI_Win get() const { return handle_; }
  // This rank's memory in the window.
  void* base() const { return base_; }
  // MPI_Win_flush_all: every operation issued is complete at its target.
  void flush_all() const;

 private:
  void release();
  MPI_Win handle_ = MPI_WIN_NULL;
  void* base_ = nullptr;
  std::vector<int> locked_;  // the ranks locked one by one; empty after lock_all
};

}  // namespace gc
