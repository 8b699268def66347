// Distributed sort of records by regular sampling (Shi & Schaeffer, JPDC
// 1992): each rank sorts its records, offers evenly spaced samples, every rank
// picks the same P-1 splitters from all samples, the records move to the rank
// whose splitter interval holds them and are sorted there. Rank r then holds
// the r-th slice of the global order. With distinct keys the global order,
// and hence each record's position in it, does not depend on the rank count.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/mpi.hpp"

namespace gc {

struct SortedSlice {
  std::uint64_t first = 0;  // global position of this rank's first record
  std::uint64_t total = 0;  // records over all ranks
};

// Collective. Sorts `records` (T trivially copyable, with operator<) over all
// ranks; on return `records` is this rank's slice of the global order.
template <class T>
SortedSlice sort_globally(const Comm& comm, std::vector<T>& records) {
  const int p = comm.size();
  std::sort(records.begin(), records.end());
  SortedSlice slice;
  slice.total = sum_over_ranks<std::uint64_t>(comm, records.size());
  if (p > 1 && slice.total > 0) {
    // p samples per rank, evenly spaced over its sorted records.
    std::vector<T> samples;
    for (int i = 0; i < p && !records.empty(); ++i)
      samples.push_back(records[records.size() * static_cast<size_t>(i) / static_cast<size_t>(p)]);
    std::vector<T> all = allgatherv(comm, samples);
    std::sort(all.begin(), all.end());
    std::vector<T> splitters;  // rank r takes records in [splitters[r-1], splitters[r])
    for (int r = 1; r < p; ++r)
      splitters.push_back(all[all.size() * static_cast<size_t>(r) / static_cast<size_t>(p)]);
    std::vector<std::uint64_t> counts(static_cast<size_t>(p), 0);
    size_t begin = 0;
    for (int r = 0; r < p; ++r) {
      const size_t end =
          r + 1 < p ? static_cast<size_t>(std::lower_bound(records.begin() + begin, records.end(),
                                                           splitters[static_cast<size_t>(r)]) -
                                          records.begin())
                    : records.size();
      counts[static_cast<size_t>(r)] = end - begin;
      begin = end;
    }
    records = alltoallv(comm, records, counts);
    std::sort(records.begin(), records.end());
  }
  slice.first = exscan_sum<std::uint64_t>(comm, records.size());
  return slice;
}

}  // namespace gc
