// One rank's side of building a collaborative plan (plan_builder.cpp: the paper's
// Algorithms 1-3, run in steps), without the messages: the builder says what
// a rank sends and takes what it receives, and a driver carries them. Two
// drivers use it: build_plan over MPI, every rank its own builder
// (plan.cpp), and the gathered build, where one rank runs every rank's
// builder in lockstep and hands each its plan (plan_gathered.cpp). One
// algorithm, so both give the same plan.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "nbr/plan.hpp"

namespace gc::nbr::detail {

constexpr int kMaxGroup = 4;
constexpr int kMaxSteps = 8;  // collectives.cpp gives each step its tags
// A matching record: status, whether the receiver is a member of the
// sender's hyperedges (first round), weight, then the members padded with -1.
constexpr int kRecord = 3 + kMaxGroup;

struct Hyperedge {
  std::vector<int> members;  // sorted, this rank included
  std::int64_t weight = 0;
};

// Collective where every rank calls it (the options are the same everywhere):
// fails on every rank for a k or max_steps out of range.
void check_options(const PlanOptions& options);

// Options checked (check_options) before a builder is made.
class PlanBuilder {
 public:
  // `node`: every rank's node (aware mode), else empty. `keep_considered`:
  // record the hyperedges each step considered (Plan::considered).
  PlanBuilder(int me, Topology topology, const PlanOptions& options, std::vector<int> node,
              bool keep_considered);

  // 1. Common neighbourhood. A step sends `in_ranks()` to each of
  // `in_ranks()` and takes one list from each of `out_ranks()`, in order.
  void begin_step(int step);
  const std::vector<int>& in_ranks() const { return in_ranks_; }
  const std::vector<int>& out_ranks() const { return out_ranks_; }
  // 2. Friendship, from the lists received.
  void take_lists(const std::vector<std::vector<int>>& lists);

  // 3. Matching, in rounds: while matching(), records() for partners() (in
  // order, kRecord ints each), then take_records() of theirs, same order.
  bool matching() const { return !left_ && !partners_.empty(); }
  const std::vector<int>& partners() const { return partners_; }
  std::vector<int> records();
  void take_records(const std::vector<int>& in);
  bool formed() const { return !matched_.members.empty(); }

  // The step's end, once every rank has matched (`any_formed`: some group
  // formed on some rank): per out_ranks(), the note it gets ({via} or {-1}),
  // then the notes heard from in_ranks(). false: the steps stop.
  std::vector<std::vector<int>> notes(bool any_formed);
  bool take_notes(const std::vector<std::vector<int>>& heard);

  // The plan; topology, repeats_anywhere and build_seconds are the driver's.
  Plan finish();

 private:
  int me_;
  int k_min_, k_max_, theta_;
  std::vector<int> node_;
  bool keep_considered_;
  Plan plan_;
  std::map<int, int> out_active_, in_active_;  // rank -> position (first copy)
  std::vector<char> out_combined_, in_combined_;
  std::map<std::pair<int, int>, std::vector<int>> incoming_;  // (step, via) -> positions
  // This step's state.
  int step_ = 0;
  bool any_formed_ = false;
  std::vector<int> in_ranks_, out_ranks_;
  size_t words_ = 0;
  std::map<int, std::vector<std::uint64_t>> common_;  // q -> my out_ranks q also sends to
  std::map<int, int> via_of_;  // my active outgoing neighbour -> who forwards to it
  // The matching's state.
  std::vector<Hyperedge> edges_;  // in the one order
  std::vector<int> members_;      // of my hyperedges, me excluded
  std::vector<int> gone_;         // matched elsewhere or with nothing to request
  std::vector<int> partners_;     // sorted
  Hyperedge matched_;
  bool first_ = true, left_ = false;
  int status_ = 0;
};

}  // namespace gc::nbr::detail
