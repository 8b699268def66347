#include "comm/round_profile.hpp"

#include <algorithm>

namespace gc {

nlohmann::json RoundProfile::summarize(const Comm& comm) const {
  const std::uint64_t total = max_over_ranks<std::uint64_t>(comm, rounds_.size());
  // Round 0 (the kernel's first local phase) has a bucket of its own; the
  // other rounds are spread over the rest in equal spans.
  const std::uint64_t loop = total > 0 ? total - 1 : 0;
  const std::size_t spans = static_cast<std::size_t>(std::min<std::uint64_t>(loop, kBuckets - 1));
  const std::size_t buckets = (total > 0 ? 1 : 0) + spans;
  auto bucket_of = [&](std::uint64_t r) {
    return r == 0 ? 0 : 1 + static_cast<std::size_t>((r - 1) * spans / loop);
  };
  std::vector<double> comm_s(buckets, 0), compute_s(buckets, 0);
  std::vector<std::uint64_t> messages(buckets, 0);
  for (std::size_t r = 0; r < rounds_.size(); ++r) {
    const std::size_t b = bucket_of(r);
    comm_s[b] += rounds_[r].comm;
    compute_s[b] += rounds_[r].compute;
    messages[b] += rounds_[r].messages;
  }
  const int n = static_cast<int>(buckets);
  MPI_Allreduce(MPI_IN_PLACE, comm_s.data(), n, MPI_DOUBLE, MPI_MAX, comm.get());
  MPI_Allreduce(MPI_IN_PLACE, compute_s.data(), n, MPI_DOUBLE, MPI_MAX, comm.get());
  MPI_Allreduce(MPI_IN_PLACE, messages.data(), n, MPI_UINT64_T, MPI_SUM, comm.get());

  nlohmann::json out = {{"rounds", total}, {"buckets", nlohmann::json::array()}};
  std::uint64_t first = 0;
  for (std::size_t b = 0; b < buckets; ++b) {
    std::uint64_t last = first;
    while (last + 1 < total && bucket_of(last + 1) == b) ++last;
    out["buckets"].push_back({{"first_round", first},
                              {"last_round", last},
                              {"messages", messages[b]},
                              {"comm_seconds_max", comm_s[b]},
                              {"compute_seconds_max", compute_s[b]}});
    first = last + 1;
  }
  return out;
}

}  // namespace gc
