#include "graph/distribution.hpp"

#include <algorithm>

#include "core/error.hpp"

namespace gc {

Distribution Distribution::block(vid_t n, int ranks) {
  std::vector<vid_t> offsets(static_cast<size_t>(ranks) + 1);
  for (int r = 0; r <= ranks; ++r)
    offsets[static_cast<size_t>(r)] =
        static_cast<vid_t>((static_cast<unsigned __int128>(n) * static_cast<unsigned>(r)) /
                           static_cast<unsigned>(ranks));
  return from_offsets(std::move(offsets));
}

Distribution Distribution::from_offsets(std::vector<vid_t> offsets) {
  if (offsets.size() < 2 || offsets.front() != 0 || !std::is_sorted(offsets.begin(), offsets.end()))
    fail("internal: a distribution needs non-decreasing offsets starting at 0");
  Distribution d;
  d.offsets_ = std::move(offsets);
  const vid_t n = d.offsets_.back();
  const int p = d.ranks();
  if (n == 0) return d;  // nothing to own: owner_of is never called
  // Buckets of 2^shift ids, the widest with at least 4 per rank: with block
  // ranges a bucket then starts at most one range boundary before its owner,
  // so the scan in owner_of is O(1).
  const std::uint64_t wanted = 4ULL * static_cast<std::uint64_t>(p);
  while (d.bucket_shift_ < 63 && (n >> (d.bucket_shift_ + 1)) >= wanted) ++d.bucket_shift_;
  const std::uint64_t buckets = ((n - 1) >> d.bucket_shift_) + 1;
  d.bucket_first_.resize(buckets);
  int r = 0;
  for (std::uint64_t b = 0; b < buckets; ++b) {
    const vid_t first = b << d.bucket_shift_;
    while (d.offsets_[static_cast<size_t>(r) + 1] <= first) ++r;
    d.bucket_first_[b] = r;
  }
  return d;
}

}  // namespace gc
