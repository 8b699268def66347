#include "core/window.hpp"

#include <algorithm>
#include <exception>

#include "core/flavour.hpp"

namespace gc {

Window::Window(const Comm& comm, std::uint64_t bytes, int displacement_unit, InfoKeys info,
               std::span<const int> targets) {
  MPI_Info hints;
  MPI_Info_create(&hints);
  for (const auto& [key, value] : info) MPI_Info_set(hints, key, value);
  MPI_Win_allocate(static_cast<MPI_Aint>(bytes), displacement_unit, hints, comm.get(), &base_,
                   &handle_);
  MPI_Info_free(&hints);
  if constexpr (flavour::library_rma_ignores_lockers) {
    MPI_Win_lock_all(MPI_MODE_NOCHECK, handle_);
  } else {
    locked_.assign(targets.begin(), targets.end());
    locked_.push_back(comm.rank());
    std::sort(locked_.begin(), locked_.end());
    locked_.erase(std::unique(locked_.begin(), locked_.end()), locked_.end());
    for (int rank : locked_) MPI_Win_lock(MPI_LOCK_SHARED, rank, MPI_MODE_NOCHECK, handle_);
  }
}

Window& Window::operator=(Window&& other) noexcept {
  if (this != &other) {
    release();
    handle_ = std::exchange(other.handle_, MPI_WIN_NULL);
    base_ = std::exchange(other.base_, nullptr);
    locked_ = std::move(other.locked_);
    other.locked_.clear();
  }
  return *this;
}

Window::~Window() {
  release();
}

void Window::flush_all() const {
  if (locked_.empty()) {
    MPI_Win_flush_all(handle_);
    return;
  }
  for (int rank : locked_) MPI_Win_flush(rank, handle_);
}

void Window::release() {
  if (handle_ == MPI_WIN_NULL) return;
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized && std::uncaught_exceptions() == 0) {
    if (locked_.empty())
      MPI_Win_unlock_all(handle_);
    else
      for (int rank : locked_) MPI_Win_unlock(rank, handle_);
    MPI_Win_free(&handle_);
  }
  handle_ = MPI_WIN_NULL;
  base_ = nullptr;
  locked_.clear();
}

}  // namespace gc
