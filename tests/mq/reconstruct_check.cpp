// For the tracer's tests (trace_test.py): reads a trace directory,
// reconstructs the arrival order, replays every rank through linked-list
// and writes the matches, as `graphcomm mq replay --matches` does:
//
//   rank receive_index source sequence      (one line per matched receive)
//
//   reconstruct_check TRACE_DIR MATCHES_FILE
//
// It also checks that the replay gives every receive the message the
// program's completions say it got (RankWorkload::observed), and prints one
// line per rank: events, moved and dropped arrivals, complete or not.
#include <algorithm>
#include <cstdio>
#include <fstream>

#include "core/error.hpp"
#include "mq/engines/engine.hpp"
#include "mq/engines/replay.hpp"
#include "mq/trace/trace.hpp"

int main(int argc, char** argv) {
  using namespace gc::mq;
  if (argc != 3) {
    std::fprintf(stderr, "usage: reconstruct_check TRACE_DIR MATCHES_FILE\n");
    return 2;
  }
  try {
    const std::vector<RankTrace> traces = read_traces({argv[1]});
    const std::vector<RankWorkload> workloads = reconstruct(traces);
    std::ofstream out(argv[2]);
    int failures = 0;
    for (const RankWorkload& w : workloads) {
      auto engine = make_engine("linked-list");
      ReplayResult r = replay(w.events, w.comms, *engine);
      std::vector<Id> got(w.observed.size(), kNoMatch);
      for (const Match& m : r.matches) got.at(m.receive) = m.message;
      if (got != w.observed) {
        ++failures;
        std::fprintf(stderr, "rank %d: the replay does not give the observed matches\n", w.rank);
      }
      std::sort(r.matches.begin(), r.matches.end(),
                [](const Match& a, const Match& b) { return a.receive < b.receive; });
      for (const Match& m : r.matches)
        out << w.rank << ' ' << m.receive << ' ' << w.messages.at(m.message).source_world << ' '
            << w.messages.at(m.message).sequence << '\n';
      const RankTrace& t = traces.at(static_cast<std::size_t>(w.rank));
      std::printf(
          "rank %d: %zu records, %s, %zu events, %zu receives, %zu messages, %llu moved, %llu "
          "dropped, %llu voided, %llu narrowed, %llu probes unexplained\n",
          w.rank, t.records.size(), t.complete ? "complete" : "incomplete", w.events.size(),
          w.observed.size(), w.messages.size(), static_cast<unsigned long long>(w.arrivals_moved),
          static_cast<unsigned long long>(w.arrivals_dropped),
          static_cast<unsigned long long>(w.receives_voided),
          static_cast<unsigned long long>(w.receives_narrowed),
          static_cast<unsigned long long>(w.probes_unexplained));
    }
    out.close();
    if (!out) {
      std::fprintf(stderr, "reconstruct_check: error: cannot write %s\n", argv[2]);
      return 1;
    }
    return failures ? 1 : 0;
  } catch (const gc::Error& e) {
    std::fprintf(stderr, "reconstruct_check: error: %s\n", e.what());
    return 1;
  }
}
