// Large arrays: huge pages for those read at random, page release for buffers
// consumed in one pass.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

namespace gc {

// Asks the kernel to back the whole 2 MiB pages inside [data, data + bytes)
// by transparent huge pages (Linux, THP in "madvise" mode); to be called
// before the memory is first touched. For a large array read at random, one
// TLB entry then covers 2 MiB instead of 4 KiB. A hint: where it is not
// supported nothing happens. Not for the graph build's buffers, which are
// streamed or scattered into: on a VM whose free memory is reported to its
// host (free page reporting: whole free blocks of 2 MiB and more), a huge
// page comes from such a block and its first touch pays the host's faults,
// where 4 KiB pages mostly come from memory the guest still holds.
void advise_huge_pages(const void* data, std::size_t bytes);

// v becomes n copies of value, in memory advised to be huge pages (for an
// array a kernel reads at random: a matching's suitors, a search's levels).
template <class T>
void assign_huge(std::vector<T>& v, std::size_t n, const T& value) {
  v.reserve(n);
  advise_huge_pages(v.data(), n * sizeof(T));
  v.assign(n, value);
}

// Gives the whole pages inside [data, data + bytes) back to the kernel now;
// their contents are lost (reading them again gives zeros). For a large buffer
// a pass has consumed, so the next buffer's first touches reuse those pages:
// the process's peak stays lower, and on a VM that returns freed memory to its
// host, memory fresh from the host is slow on first touch.
void release_pages(const void* data, std::size_t bytes);

// Releases a buffer's pages behind a reader that goes through it front to
// back, in steps of 16 MiB: consumed(i) says elements [0, i) are done with.
template <class T>
class ReleaseBehind {
 public:
  ReleaseBehind(const T* data, std::size_t size) : data_(data), size_(size) {}
  void consumed(std::size_t end) {
    if (end - released_ < kStep && end < size_) return;
    release_pages(data_ + released_, (end - released_) * sizeof(T));
    released_ = end;
  }

 private:
  static constexpr std::size_t kStep = (std::size_t{16} << 20) / sizeof(T);
  const T* data_;
  std::size_t size_;
  std::size_t released_ = 0;
};

// Frees a vector's (or string's) storage now. `v = {}` does not: it picks the
// initializer-list assignment, which keeps the capacity.
template <class Container>
void release(Container& c) {
  Container().swap(c);
}

// An array of `size` uninitialized elements (trivial types: no zeroing pass),
// for scratch space that is written before it is read. A scatter into it
// writes to many places at once: with 4 KiB pages it grows as it fills while
// ReleaseBehind shrinks the buffer it is read from (with huge pages its first
// writes would make the whole of it resident at once).
template <class T>
std::unique_ptr<T[]> large_buffer(std::size_t size) {
  return std::make_unique_for_overwrite<T[]>(size);
}

}  // namespace gc
