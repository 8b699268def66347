// Partner selection of the partner engines (Ghazimirsaeed, Mirsadeghi and
// Afsahi, "Communication-aware message matching in MPI", CCPE 2018): a
// source is a partner when its number of queue elements exceeds the edge
// point of all sources' numbers, by one of the paper's three metrics:
//   average  the mean,
//   median   the median,
//   fence    the upper fence of outliers, Q3 + alpha (Q3 - Q1).
// partner-static chooses from a profile of a previous run (read/written
// here); partner-dynamic from the elements of a non-partner queue at run time.
//
// A source's queue elements in a profile: the elements it adds to the PRQ
// (receives naming it that found no message and waited) and to the UMQ (its
// messages that found no receive and waited), over the run, on one
// communicator -- the measure the same group's clustering-based matching
// profiles ("the number of queue elements each communicating process adds to
// the posted receive or unexpected message queue at runtime", Ghazimirsaeed
// and Afsahi, "Accelerating MPI message matching by a data clustering
// strategy", HPCS 2017). Not the messages a source sends (one matched on
// arrival adds nothing) and not weighted by how long an element waits.
// report.hpp's queue_elements() computes it from a linked-list replay.
//
// Choices where the paper leaves room:
// - The statistics are over the sources that have elements (count > 0):
//   a source that sent nothing is no candidate, and counting it would pull
//   the median and the fence to 0 whenever fewer than half (a quarter) of the
//   ranks talk to this one, making every source that sent one message a partner.
// - A count equal to the edge point is not a partner ("exceeds"), so equal
//   counts never make partners, and a lone source is never one.
// - Quartiles (and the median) interpolate linearly between order statistics
//   (q at position q (n - 1) of the sorted counts, as numpy's default).
//
// Profile file: a versioned text format,
//   graphcomm-mq-profile 1
//   <comm> <source> <count>      one line per (communicator, source), count > 0,
//                                no pair twice
// with blank lines and '#' comments allowed; written atomically.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gc::mq {

// Queue elements per (communicator, source): profile[comm][source] (the
// EngineOptions::profile of partner-static).
using Profile = std::vector<std::vector<std::uint64_t>>;

// The edge point of `counts` (zeros ignored; 0 when no count is positive).
// Fails with a gc::Error naming the metrics for an unknown metric.
double edge_point(std::vector<std::uint64_t> counts, std::string_view metric, double alpha);
// The same over counts that are all positive, reordering them in place
// rather than copying (partner-dynamic computes one at every trigger).
double edge_point_in_place(std::vector<std::uint64_t>& positive_counts, std::string_view metric,
                           double alpha);
// Fails unless `metric` is one of average, median, fence.
void check_metric(std::string_view metric);

// The sources (indices into counts_per_source) whose count exceeds the edge
// point, in increasing order.
std::vector<std::uint32_t> choose_partners(const std::vector<std::uint64_t>& counts_per_source,
                                           const std::string& metric, double alpha);

// Keeps at most `cap` of `partners` (increasing sources): the fullest by
// counts_per_source, the lower source on ties; still in increasing order.
void keep_fullest(std::vector<std::uint32_t>& partners,
                  const std::vector<std::uint64_t>& counts_per_source, std::uint32_t cap);

constexpr std::uint32_t kProfileVersion = 1;
// Bounds on what a profile file may name (the profile is dense per source).
constexpr std::uint32_t kProfileMaxComm = 1u << 16;
constexpr std::uint32_t kProfileMaxRank = 1u << 24;

void write_profile(const std::string& path, const Profile& profile);
// Fails with one gc::Error "PATH:LINE: message" on malformed input.
Profile read_profile(const std::string& path);

}  // namespace gc::mq
