#include "mq/engines/replay.hpp"

#include <chrono>

#include "core/rng.hpp"

namespace gc::mq {

ReplayResult replay(const std::vector<Event>& events, const std::vector<Communicator>& comms,
                    Engine& engine) {
  for (const Communicator& c : comms) engine.add_communicator(c.id, c.size);
  ReplayResult r;
  Id receives = 0, messages = 0;
  const auto start = std::chrono::steady_clock::now();
  for (const Event& e : events) {
    switch (e.kind) {
      case Event::Kind::post: {
        const Id matched = engine.post(e.envelope, receives);
        if (matched != kNoMatch) r.matches.push_back({receives, matched});
        ++receives;
        break;
      }
      case Event::Kind::arrive: {
        const Id matched = engine.arrive(e.envelope, messages);
        if (matched != kNoMatch) r.matches.push_back({matched, messages});
        ++messages;
        break;
      }
      case Event::Kind::probe:
        r.probes.push_back(engine.probe(e.envelope));
        break;
    }
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.operations = events.size();
  r.counters = engine.counters();
  return r;
}

std::vector<Communicator> communicators_of(const RandomWorkload& w) {
  std::vector<Communicator> c;
  for (int i = 0; i < w.comms; ++i) c.push_back({static_cast<std::uint32_t>(i), w.ranks});
  return c;
}

std::vector<Event> random_events(const RandomWorkload& w, std::uint64_t seed) {
  CounterRng rng(seed);
  auto unit = CounterRng::to_unit;
  std::vector<Event> events;
  events.reserve(w.events);
  for (std::uint64_t i = 0; i < w.events; ++i) {
    const auto r = rng.words(Stream::mq_event, i, 0);
    const auto s = rng.words(Stream::mq_event, i, 1);
    Event e;
    e.envelope.comm = static_cast<std::uint32_t>(r[2] % static_cast<unsigned>(w.comms));
    e.envelope.source = static_cast<std::int32_t>(r[0] % static_cast<unsigned>(w.ranks));
    e.envelope.tag = static_cast<std::int32_t>(r[1] % static_cast<unsigned>(w.tags));
    const double kind = unit(s[0]);
    if (kind < w.probes) {
      e.kind = Event::Kind::probe;
    } else if (kind < w.probes + (1 - w.probes) * w.post_bias) {
      e.kind = Event::Kind::post;
    } else {
      e.kind = Event::Kind::arrive;
      events.push_back(e);
      continue;
    }
    if (unit(s[1]) < w.any_source) e.envelope.source = kAnySource;
    if (unit(s[2]) < w.any_tag) e.envelope.tag = kAnyTag;
    events.push_back(e);
  }
  return events;
}

}  // namespace gc::mq
