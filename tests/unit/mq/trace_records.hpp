// Hand-made trace records for the mq trace tests: one builder for each
// record kind (a communicator, a send, a receive posted, completed or
// cancelled, a probe and its result, the end), and run_of(), the traces of a
// whole run from each rank's records.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "mq/trace/trace.hpp"

namespace gc::mq::test::records {

inline Record comm(std::uint32_t id, std::vector<std::int32_t> ranks) {
  Record r;
  r.kind = Record::Kind::comm;
  r.comm = id;
  r.peer = static_cast<std::int32_t>(ranks.size());
  r.world_ranks = std::move(ranks);
  return r;
}
inline Record send(std::int32_t dest, std::int32_t tag, double time, std::uint32_t c = 0) {
  Record r;
  r.kind = Record::Kind::send;
  r.comm = c;
  r.peer = dest;
  r.tag = tag;
  r.time = time;
  return r;
}
inline Record post(std::int32_t source, std::int32_t tag, double time, std::uint32_t c = 0) {
  Record r = send(source, tag, time, c);
  r.kind = Record::Kind::post;
  return r;
}
inline Record complete(std::uint64_t receive, std::int32_t source, std::int32_t tag, double time) {
  Record r;
  r.kind = Record::Kind::complete;
  r.index = receive;
  r.peer = source;
  r.tag = tag;
  r.time = time;
  return r;
}
inline Record probe(std::int32_t source, std::int32_t tag, std::int32_t found_source,
                    std::int32_t found_tag, double time, std::uint32_t c = 0) {
  Record r = send(source, tag, time, c);
  r.kind = Record::Kind::probe;
  r.found_peer = found_source;
  r.found_tag = found_tag;
  return r;
}
inline Record cancel(std::uint64_t receive, double time) {
  Record r;
  r.kind = Record::Kind::cancel;
  r.index = receive;
  r.time = time;
  return r;
}
inline Record end(double time) {
  Record r;
  r.kind = Record::Kind::end;
  r.time = time;
  return r;
}

// A run of `ranks` ranks: every rank knows MPI_COMM_WORLD (0) and its
// MPI_COMM_SELF (1); `records[r]` follow.
inline std::vector<RankTrace> run_of(const std::vector<std::vector<Record>>& records,
                                     bool complete = true) {
  const int ranks = static_cast<int>(records.size());
  std::vector<std::int32_t> world;
  for (int r = 0; r < ranks; ++r) world.push_back(r);
  std::vector<RankTrace> traces;
  for (int r = 0; r < ranks; ++r) {
    RankTrace t;
    t.path = "rank-" + std::to_string(r);
    t.rank = r;
    t.world_size = ranks;
    t.complete = complete;
    t.records = {comm(0, world), comm(1, {r})};
    t.records.insert(t.records.end(), records[static_cast<std::size_t>(r)].begin(),
                     records[static_cast<std::size_t>(r)].end());
    if (complete) t.records.push_back(end(1000));
    traces.push_back(std::move(t));
  }
  return traces;
}

}  // namespace gc::mq::test::records
