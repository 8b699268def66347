// Matching traces: what an MPI program's point-to-point layer did, one file
// per rank, as written by the tracer (libgraphcomm-mqtrace.so, tracer.cpp)
// and by `graphcomm mq synth`; format in docs/mq-trace.md.
//
// A file holds raw per-rank records in the order the rank made its calls:
// communicators, sends, posted receives, their completions, probes. The
// order in which messages *arrived* at a rank is not observable through
// PMPI; reconstruct() rebuilds it for all ranks together from the senders'
// records (sender-side sequence numbers and times) and the receivers'
// matched completions, so that the replay of the result through linked-list
// gives exactly the matches the program saw.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "mq/engines/replay.hpp"

namespace gc::mq {

constexpr std::uint32_t kTraceVersion = 1;
constexpr std::int32_t kNotFound = -2;  // probe: nothing found

struct Record {
  enum class Kind : std::uint8_t {
    comm = 1,      // comm, size (a communicator; world_ranks below)
    send = 2,      // comm, peer = destination (rank in comm), tag, time
    post = 3,      // comm, peer = source or kAnySource, tag or kAnyTag, time
    complete = 4,  // index = receive index, peer = source, tag = actual tag, time
    probe = 5,     // comm, peer/tag = what was asked, found_peer/found_tag (kNotFound), time
    cancel = 6,    // index = receive index, time (a posted receive cancelled)
    end = 7,       // time (MPI_Finalize reached)
  };
  Kind kind = Kind::end;
  std::uint32_t comm = 0;
  std::int32_t peer = 0;
  std::int32_t tag = 0;
  std::int32_t found_peer = kNotFound;
  std::int32_t found_tag = 0;
  std::uint64_t index = 0;
  double time = 0;                        // seconds, MPI_Wtime
  std::vector<std::int32_t> world_ranks;  // comm: world rank of each member
};

// Communicator ids are the same on every member (the tracer agrees on them
// when a communicator is created); 0 is MPI_COMM_WORLD.
struct RankTrace {
  std::string path;
  int rank = 0;  // in MPI_COMM_WORLD
  int world_size = 0;
  std::uint64_t run_id = 0;  // the same in every file of one run
  bool complete = false;     // an end record was found (the program reached MPI_Finalize)
  std::vector<Record> records;
};

// Appends records to one rank's file in checksummed chunks: whatever was
// flushed stays readable if the program dies.
// A chunk is written when the next record would not fit in `chunk_bytes`
// (the default holds a few thousand records), by flush() and by close().
class TraceWriter {
 public:
  static constexpr std::size_t kDefaultChunkBytes = 96 * 1024;
  // Creates (truncates) `path` and writes the header; throws gc::Error.
  TraceWriter(const std::string& path, int rank, int world_size, std::uint64_t run_id = 0,
              std::size_t chunk_bytes = kDefaultChunkBytes);
  ~TraceWriter();  // flushes and closes without an end record unless close() ran
  TraceWriter(const TraceWriter&) = delete;
  TraceWriter& operator=(const TraceWriter&) = delete;
  void add(const Record& r);  // throws gc::Error when an earlier write failed
  // Writes the buffered records as one chunk with one write(). Never throws
  // (a failure is reported by the next add() or close()); async-signal-safe,
  // also in a signal handler that interrupted add() (only whole records are
  // written) or flush() (then it does nothing).
  void flush() noexcept;
  void close();  // flushes and closes; throws gc::Error when a write failed
  const std::string& path() const { return path_; }

 private:
  void write_all(const unsigned char* data, std::size_t n) noexcept;
  void check() const;

  int fd_ = -1;
  std::string path_;
  std::vector<unsigned char> buffer_;      // chunk header, then records; never reallocated
  std::atomic<std::size_t> committed_{0};  // bytes of whole records in buffer_ (header included)
  std::atomic<bool> flushing_{false};
  int error_ = 0;  // errno of a failed write
};

// Reads one file; throws gc::Error with one line ("PATH: what, at byte N")
// on any corruption or truncation.
RankTrace read_trace(const std::string& path);
// The files rank-*.mqt of a directory, or the given files; all ranks of one run.
std::vector<RankTrace> read_traces(const std::vector<std::string>& paths);
// Human-readable dump, one record a line.
void dump_trace(const RankTrace& trace, std::FILE* out);

// One rank's workload, ready for replay().
struct MessageInfo {
  std::int32_t source_world = 0;  // sender, in MPI_COMM_WORLD
  std::uint64_t sequence = 0;     // among the messages from that sender to this rank, in send order
};
struct RankWorkload {
  int rank = 0;
  std::vector<Event> events;  // in the order the library processed them
  std::vector<Communicator> comms;
  std::vector<MessageInfo> messages;  // by message id (arrival order)
  // The program's own matches, by receive id: the message id it got, or
  // kNoMatch (never completed, or cancelled).
  std::vector<Id> observed;
  std::uint64_t arrivals_moved =
      0;  // arrivals placed later than their send time to agree with `observed`
  // Messages left out: no completed receive took them and an unfinished one
  // (the program ended first) would have; their receive stays unmatched.
  std::uint64_t arrivals_dropped = 0;
  // Receives replayed on a communicator of their own that no message uses
  // (one more than the trace's largest id, listed in `comms`), so that they
  // match nothing: cancelled ones, and unfinished ones that would take a
  // message a completed receive took (the program never learned theirs).
  std::uint64_t receives_voided = 0;
  // ANY_SOURCE receives replayed as receives from the source they got,
  // because no single arrival order explains the library's choice among
  // senders (Open MPI searches a wildcard's senders from a rotating start;
  // linked-list takes the earliest arrival).
  std::uint64_t receives_narrowed = 0;
  // Probes whose recorded result the reconstruction could not reproduce
  // (a message found that cannot have arrived by then in the rebuilt order).
  std::uint64_t probes_unexplained = 0;
};
std::vector<RankWorkload> reconstruct(const std::vector<RankTrace>& traces);

}  // namespace gc::mq
