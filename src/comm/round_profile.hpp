// Where the time of an exchange-driven kernel goes: per round (one
// evoke/process/done iteration; round 0 is the kernel's first local phase),
// this rank's communication time, compute time and messages sent. Summarized
// collectively into at most kBuckets buckets, round 0 alone and then equal
// spans of consecutive rounds, each with the max over ranks of its times and
// the sum of its messages, so that nsr's thousands of polling iterations and
// ncl's few rounds fit the same report.
#pragma once

#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/mpi.hpp"

namespace gc {

class RoundProfile {
 public:
  static constexpr std::size_t kBuckets = 32;

  void record(double comm_seconds, double compute_seconds, std::uint64_t messages) {
    rounds_.push_back({comm_seconds, compute_seconds, messages});
  }
  // Time and messages after the last round (a kernel's closing step) belong to it.
  void add_to_last(double comm_seconds, double compute_seconds, std::uint64_t messages) {
    if (rounds_.empty()) return record(comm_seconds, compute_seconds, messages);
    rounds_.back().comm += comm_seconds;
    rounds_.back().compute += compute_seconds;
    rounds_.back().messages += messages;
  }
  std::size_t rounds() const { return rounds_.size(); }

  // Collective. {"rounds", "buckets": [{"first_round", "last_round",
  // "messages", "comm_seconds_max", "compute_seconds_max"}]}.
  nlohmann::json summarize(const Comm& comm) const;

 private:
  struct Round {
    double comm, compute;
    std::uint64_t messages;
  };
  std::vector<Round> rounds_;
};

}  // namespace gc
