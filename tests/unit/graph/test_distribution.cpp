// Distribution: owner_of agrees with a linear search over the ranges, for
// block and arbitrary (including empty) ranges.
#include <gtest/gtest.h>

#include "graph/distribution.hpp"

namespace gc {
namespace {

int owner_by_search(const Distribution& d, vid_t v) {
  for (int r = 0; r < d.ranks(); ++r)
    if (v >= d.begin(r) && v < d.end(r)) return r;
  return -1;
}

TEST(Distribution, BlockRangesCoverEveryIdOnce) {
  for (vid_t n : {1, 2, 3, 7, 10, 100, 1001}) {
    for (int p : {1, 2, 3, 4, 5, 16, 33}) {
      Distribution d = Distribution::block(n, p);
      ASSERT_EQ(d.begin(0), 0u);
      ASSERT_EQ(d.end(p - 1), n);
      vid_t max_count = 0, min_count = n;
      for (int r = 0; r < p; ++r) {
        max_count = std::max(max_count, d.count(r));
        min_count = std::min(min_count, d.count(r));
      }
      EXPECT_LE(max_count - min_count, 1u) << "n=" << n << " p=" << p;
      for (vid_t v = 0; v < n; ++v) ASSERT_EQ(d.owner_of(v), owner_by_search(d, v)) << v;
    }
  }
}

TEST(Distribution, ArbitraryRangesWithEmptyRanks) {
  Distribution d = Distribution::from_offsets({0, 0, 5, 5, 5, 6, 40, 40});
  for (vid_t v = 0; v < 40; ++v) EXPECT_EQ(d.owner_of(v), owner_by_search(d, v)) << v;
  Distribution skew = Distribution::from_offsets({0, 1, 2, 3, 1000000});
  for (vid_t v : {0, 1, 2, 3, 4, 999, 999999})
    EXPECT_EQ(skew.owner_of(v), owner_by_search(skew, v));
}

TEST(Distribution, RejectsDecreasingOffsets) {
  EXPECT_THROW(Distribution::from_offsets({0, 5, 3}), std::exception);
  EXPECT_THROW(Distribution::from_offsets({1, 5}), std::exception);
}

}  // namespace
}  // namespace gc
