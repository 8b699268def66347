#include "core/window.hpp"

#include <exception>

namespace gc {

Window::Window(const Comm& comm, std::uint64_t bytes, int displacement_unit, InfoKeys info) {
  MPI_Info hints;
  MPI_Info_create(&hints);
  for (const auto& [key, value] : info) MPI_Info_set(hints, key, value);
  MPI_Win_allocate(static_cast<MPI_Aint>(bytes), displacement_unit, hints, comm.get(), &base_,
                   &handle_);
  MPI_Info_free(&hints);
  MPI_Win_lock_all(MPI_MODE_NOCHECK, handle_);
}

Window& Window::operator=(Window&& other) noexcept {
  if (this != &other) {
    release();
    handle_ = std::exchange(other.handle_, MPI_WIN_NULL);
    base_ = std::exchange(other.base_, nullptr);
  }
  return *this;
}

Window::~Window() {
  release();
}

void Window::release() {
  if (handle_ == MPI_WIN_NULL) return;
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized && std::uncaught_exceptions() == 0) {
    MPI_Win_unlock_all(handle_);
    MPI_Win_free(&handle_);
  }
  handle_ = MPI_WIN_NULL;
  base_ = nullptr;
}

}  // namespace gc
