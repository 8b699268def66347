// 1D distribution of global vertex ids over ranks: rank r owns the contiguous
// range [begin(r), end(r)). owner_of(v) is O(1): a bucket table maps an id to
// the first candidate rank, and at most a few ranks are scanned from there.
// Buckets are power-of-two wide, so finding one is a shift: owner_of runs once
// or twice per edge while a graph is built.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "graph/types.hpp"

namespace gc {

class Distribution {
 public:
  Distribution() = default;
  // Blocks as equal as possible: rank r owns [floor(r*n/P), floor((r+1)*n/P)).
  static Distribution block(vid_t n, int ranks);
  // Arbitrary contiguous ranges; offsets has ranks+1 non-decreasing entries.
  static Distribution from_offsets(std::vector<vid_t> offsets);

  vid_t global_count() const { return offsets_.back(); }
  int ranks() const { return static_cast<int>(offsets_.size()) - 1; }
  vid_t begin(int r) const { return offsets_[static_cast<size_t>(r)]; }
  vid_t end(int r) const { return offsets_[static_cast<size_t>(r) + 1]; }
  vid_t count(int r) const { return end(r) - begin(r); }
  const std::vector<vid_t>& offsets() const { return offsets_; }

  int owner_of(vid_t v) const {
    int r = bucket_first_[static_cast<size_t>(bucket_of(v))];
    while (offsets_[static_cast<size_t>(r) + 1] <= v) ++r;
    return r;
  }

 private:
  std::uint64_t bucket_of(vid_t v) const { return v >> bucket_shift_; }
  std::vector<vid_t> offsets_{0};
  int bucket_shift_ = 0;
  std::vector<int> bucket_first_;  // lowest rank owning an id in each bucket
};

}  // namespace gc
