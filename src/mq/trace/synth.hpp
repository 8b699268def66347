// Synthetic matching traces (`graphcomm mq synth`): a full run, one record
// list per simulated rank, as the tracer would have written it, for the
// workloads the partner-queue study (Ghazimirsaeed, Mirsadeghi, Afsahi,
// CCPE 2018) uses to show where queue layouts matter:
//
//  - many-to-one: the extreme case of FDS: every rank sends to rank 0,
//    which receives with blocking receives from specific sources in a
//    scrambled order, so its UMQ holds a message from nearly every rank;
//    a fraction of heavy senders sends several messages per step.
//  - depth: a long-queue microbenchmark: rank 0 posts D receives before
//    the messages come (PRQ depth D), then takes D messages that came
//    before their receives (UMQ depth D), each time in the reverse order,
//    so that every search walks the whole queue in a linked list.
//  - fds: the FDS-like workload of bench/workloads/fds_like.c, as its
//    trace shows it when rank 0 is the last to start receiving (the study:
//    FDS's process 0 is the only one with long queues): every other rank
//    sends, per mesh it holds, several messages to rank 0 and one gatherv
//    contribution (MPICH's linear gatherv, on a duplicate of the world);
//    the ranks' bursts arrive in random order; rank 0 takes them with
//    blocking receives mesh by mesh, then posts the gatherv's receives in
//    rank order. The same seed draws the same meshes as fds_like.c.
//  - wildcard: receives with MPI_ANY_SOURCE and/or MPI_ANY_TAG mixed with
//    specific ones, posted before and after their messages, with probes.
//
// Every action gets its own time on one global clock, so the order of
// arrivals is the order of sends and reconstruct() has nothing to guess;
// the receivers' completions come from running the actions through the
// linked-list engine, so they are what MPI's matching rules give.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mq/trace/trace.hpp"

namespace gc::mq {

struct ManyToOneOptions {
  int ranks = 64;
  std::uint64_t messages = 8;       // steps; each sender sends one message per step
  double heavy = 0.05;              // fraction of senders that are heavy
  std::uint64_t heavy_factor = 32;  // messages per step of a heavy sender
};

struct DepthOptions {
  int ranks = 16;
  std::uint64_t depth = 1024;
};

struct FdsOptions {
  int ranks = 1024;
  std::uint64_t steps = 4;
  std::int64_t meshes_min = 1, meshes_max = 4;  // meshes a rank holds
  std::uint64_t messages = 4;                   // messages to rank 0 per mesh and step
  bool gatherv = true;                          // and a linear gatherv per step
};
// The collective context of fds's gatherv: the id the tracer gives the
// program's first MPI_Comm_dup (0 is the world, 1 MPI_COMM_SELF).
constexpr std::uint32_t kFdsCollectiveComm = 2;

struct WildcardOptions {
  int ranks = 64;
  std::uint64_t messages = 8;  // steps; each sender sends one message per step
  double fraction = 0.2;       // receives with a wildcard
  int tags = 4;                // tags drawn from [0, tags)
  double probes = 0.1;         // probability of an MPI_Iprobe before a receive
};

struct SyntheticTrace {
  int world_size = 0;
  std::uint64_t run_id = 0;                  // in every file's header: a function of the options
  std::vector<std::vector<Record>> records;  // per rank, in call order
  std::string summary;                       // one line: what was generated
  std::uint64_t sends = 0, receives = 0, probes = 0;
};

// Each throws gc::Error on options out of range.
SyntheticTrace synth_many_to_one(const ManyToOneOptions& options, std::uint64_t seed);
SyntheticTrace synth_depth(const DepthOptions& options, std::uint64_t seed);
SyntheticTrace synth_wildcard(const WildcardOptions& options, std::uint64_t seed);
SyntheticTrace synth_fds(const FdsOptions& options, std::uint64_t seed);

// Writes DIR/rank-R.mqt for every rank with TraceWriter: into a temporary
// sibling directory first, renamed into place, so a failure leaves nothing.
// DIR must not exist, or be an empty directory.
void write_synthetic_trace(const SyntheticTrace& trace, const std::string& dir);

}  // namespace gc::mq
