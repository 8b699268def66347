// Replay: one rank's matching events, in the order the library processed
// them, run through an engine. Receives are numbered in posting order and
// messages in arrival order, from 0; the result lists which receive got
// which message, in the order the matches happened.
#pragma once

#include <cstdint>
#include <vector>

#include "mq/engines/engine.hpp"

namespace gc::mq {

struct Event {
  enum class Kind : std::uint8_t { post, arrive, probe };
  Kind kind = Kind::post;
  Envelope envelope;
};

struct Communicator {
  std::uint32_t id = 0;
  int size = 0;
};

struct Match {
  Id receive = 0;
  Id message = 0;
  bool operator==(const Match&) const = default;
};

struct ReplayResult {
  std::vector<Match> matches;
  std::vector<Id> probes;  // per probe event: the message found, or kNoMatch
  Counters counters;
  std::uint64_t operations = 0;  // posts + arrivals + probes
  double seconds = 0;            // inside the engine, for all operations
};

ReplayResult replay(const std::vector<Event>& events, const std::vector<Communicator>& comms,
                    Engine& engine);

// Random events for tests: `ranks` sources on communicator 0 (and a second
// communicator when `comms` is 2), tags in [0, tags), a fraction of
// receives with MPI_ANY_SOURCE / MPI_ANY_TAG, and some probes.
struct RandomWorkload {
  int ranks = 8;
  int tags = 4;
  int comms = 1;
  std::uint64_t events = 1000;
  double any_source = 0.1;
  double any_tag = 0.1;
  double probes = 0.05;
  double post_bias = 0.5;  // probability that an event is a post (else an arrival)
};
std::vector<Event> random_events(const RandomWorkload& w, std::uint64_t seed);
std::vector<Communicator> communicators_of(const RandomWorkload& w);

}  // namespace gc::mq
