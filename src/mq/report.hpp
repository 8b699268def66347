// Replay statistics (`graphcomm mq replay`, `mq profile`): what happened at
// each event of a replay, where two replays first differ, how long the
// queues were at each search, how many elements each (communicator, source)
// put in them, and engine counters summed over the ranks of a trace.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mq/engines/replay.hpp"
#include "mq/trace/trace.hpp"

namespace gc::mq {

// Per event of a replay: for a post, the message it took from the UMQ; for an
// arrival, the receive it took from the PRQ; for a probe, the message found;
// kNoMatch when nothing matched (the element was appended to a queue).
std::vector<Id> event_outcomes(const std::vector<Event>& events, const ReplayResult& result);

// The outcomes the program itself saw (RankWorkload::observed) at the events
// where they happen; probes, which `observed` does not cover, copy
// `reference`. Fails (gc::Error) when `observed` does not fit the events.
std::vector<Id> observed_outcomes(const RankWorkload& workload, const std::vector<Id>& reference);

// The first event whose outcome differs, with a one-line description naming
// both sides ("post of receive 4 (comm 0, source 3, tag ANY): linked-list
// took message 7 (world rank 3, sequence 2), bins took none").
struct Difference {
  std::uint64_t event = 0;
  std::string what;
};
std::optional<Difference> first_difference(const RankWorkload& workload,
                                           const std::vector<Id>& expected,
                                           std::string_view expected_name,
                                           const std::vector<Id>& got, std::string_view got_name);

// How many times each queue length was seen: count[length].
class LengthHistogram {
 public:
  void add(std::uint64_t length);
  void merge(const LengthHistogram& other);
  std::uint64_t samples() const { return samples_; }
  std::uint64_t min() const;
  std::uint64_t max() const;
  // Nearest-rank quantile: the smallest length with at least ceil(q * samples)
  // samples at or below it; 0 without samples.
  std::uint64_t quantile(double q) const;
  double mean() const;

 private:
  std::vector<std::uint64_t> count_;
  std::uint64_t samples_ = 0, sum_ = 0;
};

// Queue lengths seen by each search, counting every queue of the matching
// layer (so the figure does not depend on the engine): the PRQ's at each
// arrival, the UMQ's at each post and probe, before the search.
struct QueueLengths {
  LengthHistogram prq, umq;
};
QueueLengths queue_lengths(const std::vector<Event>& events, const std::vector<Id>& outcomes);

// The static profile's counts: queue elements appended per communicator and
// source (elements[comm][source]), PRQ and UMQ together, given the outcomes of
// a linked-list replay. Receives with MPI_ANY_SOURCE belong to no source and
// are not counted.
std::vector<std::vector<std::uint64_t>> queue_elements(const std::vector<Event>& events,
                                                       const std::vector<Communicator>& comms,
                                                       const std::vector<Id>& outcomes);

// One engine's figures over the ranks of a trace: counters summed (maxima:
// the maximum), memory overhead as maximum and sum over ranks.
struct EngineTotals {
  Counters counters;  // sums; the *_max fields are maxima; memory_overhead_bytes: max
  std::uint64_t memory_sum = 0;
  std::uint64_t operations = 0;
  double seconds = 0;  // sum over ranks of each rank's median pass
  void add(const ReplayResult& rank);
  double prq_mean() const;
  double umq_mean() const;
  double ns_per_operation() const;
  double extraction_percent() const;
};

// The median of `values` (the lower middle one for an even count); 0 if empty.
double median(std::vector<double> values);

}  // namespace gc::mq
