// Message-matching engines: the two queues of an MPI library's matching
// layer. An arriving message searches the posted-receive queue (PRQ) for the
// earliest-posted receive that accepts it, else it is appended to the
// unexpected-message queue (UMQ); a posted receive searches the UMQ for the
// earliest-arrived message it accepts, else it is appended to the PRQ.
// Every engine implements exactly these semantics (so every engine returns
// the same match pairs as `linked-list` on any workload, the non-overtaking
// order of MPI-4.1 section 3.5 included); they differ in how the queues are
// laid out and searched, which is what they count.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "mq/engines/envelope.hpp"

namespace gc::mq {

// The caller's handle of a receive (its index in posting order) or of a
// message (its index in arrival order).
using Id = std::uint64_t;
constexpr Id kNoMatch = ~Id{0};

// What an engine counts. "Traversed" counts queue elements whose envelope
// was compared (for `vectors`, every occupied slot of each node scanned).
struct Counters {
  std::uint64_t prq_searches = 0;  // arrivals (each searches the PRQ)
  std::uint64_t prq_traversed = 0;
  std::uint64_t prq_max = 0;       // most elements traversed by one PRQ search
  std::uint64_t umq_searches = 0;  // posts and probes (each searches the UMQ)
  std::uint64_t umq_traversed = 0;
  std::uint64_t umq_max = 0;
  std::uint64_t prq_length_max = 0;  // longest the PRQ got (all its queues)
  std::uint64_t umq_length_max = 0;
  // Partner engines: queues, levels and extraction events.
  std::uint64_t partners = 0;          // partner queues at the end
  std::uint64_t levels = 0;            // partner-dynamic: levels created
  std::uint64_t extractions = 0;       // partner-dynamic: extraction events
  std::uint64_t extraction_moved = 0;  // elements moved by extractions
  double extraction_seconds = 0;       // time spent extracting (inside the ops)
  // Bytes of the engine's own structures beyond the queue elements every
  // engine stores (per-source arrays, bins, hash tables, queue headers,
  // partner tables), at its peak.
  std::uint64_t memory_overhead_bytes = 0;
};

struct EngineOptions {
  int bins = 256;             // bins, hash: number of bins
  int vector_width = 16;      // vectors, partner-vectors: elements per node (16 or 8)
  std::string simd = "auto";  // vectors, partner-vectors: auto|avx512|avx2|scalar
  // Partner engines: the edge point's metric ("average", "median" or
  // "fence": Q3 + alpha (Q3 - Q1)) over queue elements per source.
  std::string metric = "average";
  double alpha = 1.5;
  int threshold = 64;       // partner-dynamic: t, non-partner queue length that triggers extraction
  double cap_factor = 1.0;  // bounded memory: at most cap_factor * sqrt(N) partner queues
  // The paper's two memory regimes: bounded (at most cap_factor * sqrt(N)
  // partners per communicator and side, the fullest sources first) or
  // unbounded (every partner the metric finds). By default partner-dynamic
  // is bounded, partner-static and partner-vectors unbounded.
  enum class Memory : std::uint8_t { engine_default, bounded, unbounded };
  Memory memory = Memory::engine_default;
  // partner-static, partner-vectors: queue elements per (communicator,
  // source) from a previous run (see profile.hpp); empty: no partners.
  std::vector<std::vector<std::uint64_t>> profile;
};

class Engine {
 public:
  virtual ~Engine() = default;
  // Before any event on it: communicator `comm` has `size` ranks.
  virtual void add_communicator(std::uint32_t comm, int size) = 0;
  // A message with envelope `message` (no wildcards) arrives. Returns the id
  // of the earliest-posted receive that accepts it (removed from the PRQ), or
  // kNoMatch after appending (message, id) to the UMQ.
  virtual Id arrive(const Envelope& message, Id id) = 0;
  // A receive is posted. Returns the id of the earliest-arrived message it
  // accepts (removed from the UMQ), or kNoMatch after appending (receive, id)
  // to the PRQ.
  virtual Id post(const Envelope& receive, Id id) = 0;
  // MPI_Probe/Iprobe: like post, but the message found stays in the UMQ and
  // nothing is appended to the PRQ.
  virtual Id probe(const Envelope& receive) = 0;
  virtual const Counters& counters() const = 0;
};

// The engines, one row each (engine.cpp), in the order reports list them:
// make_engine, --engine's values and `graphcomm models` derive from it.
struct EngineInfo {
  const char* name;
  const char* summary;
  bool takes_profile;  // chooses partners from EngineOptions::profile
  std::unique_ptr<Engine> (*make)(const EngineOptions&);
};
const std::vector<EngineInfo>& engine_table();
const std::vector<std::string>& engine_names();
bool takes_profile(std::string_view name);
// Throws gc::Error naming the engines for an unknown name.
std::unique_ptr<Engine> make_engine(std::string_view name, const EngineOptions& options = {});

}  // namespace gc::mq
