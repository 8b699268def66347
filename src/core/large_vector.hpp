// Large arrays backed by transparent huge pages where the kernel allows it.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

namespace gc {

// Asks the kernel to back the whole 2 MiB pages inside [data, data + bytes)
// by transparent huge pages (Linux, THP in "madvise" mode); to be called
// before the memory is first touched. For a large array read at random, one
// TLB entry then covers 2 MiB instead of 4 KiB, and first touch costs one
// fault per 2 MiB instead of 512. A hint: where it is not supported nothing
// happens.
void advise_huge_pages(const void* data, std::size_t bytes);

// Gives the whole pages inside [data, data + bytes) back to the kernel now;
// their contents are lost (reading them again gives zeros). For a large buffer
// a pass has consumed, so the next buffer's first touches reuse those pages:
// the process's peak stays lower, and on a VM that returns freed memory to its
// host, memory fresh from the host costs up to ~2 s per GiB on first touch.
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

// A vector of `size` value-initialized elements whose storage was advised for
// huge pages before it was first written.
template <class T>
std::vector<T> large_vector(std::size_t size) {
  std::vector<T> v;
  v.reserve(size);
  advise_huge_pages(v.data(), size * sizeof(T));
  v.resize(size);
  return v;
}

// Reserves `capacity` elements of an empty vector, advised for huge pages.
template <class T>
void reserve_large(std::vector<T>& v, std::size_t capacity) {
  v.reserve(capacity);
  advise_huge_pages(v.data(), capacity * sizeof(T));
}

// Frees a vector's (or string's) storage now. `v = {}` does not: it picks the
// initializer-list assignment, which keeps the capacity.
template <class Container>
void release(Container& c) {
  Container().swap(c);
}

// An array of `size` uninitialized elements (trivial types: no zeroing pass),
// for scratch space that is written before it is read. Not advised for huge
// pages: a scatter into it writes to many places at once, and with 2 MiB
// pages its first writes would make the whole of it resident at once, where
// with 4 KiB pages it grows as it fills while ReleaseBehind shrinks the buffer
// it is read from (rmat:20 at 2 ranks: peak 562 -> 418 MB a rank, same time).
template <class T>
std::unique_ptr<T[]> large_buffer(std::size_t size) {
  return std::make_unique_for_overwrite<T[]>(size);
}

}  // namespace gc
