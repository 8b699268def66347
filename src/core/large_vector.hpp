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
// advised for huge pages, for scratch space that is written before it is read.
template <class T>
std::unique_ptr<T[]> large_buffer(std::size_t size) {
  auto p = std::make_unique_for_overwrite<T[]>(size);
  advise_huge_pages(p.get(), size * sizeof(T));
  return p;
}

}  // namespace gc
