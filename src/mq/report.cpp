#include "mq/report.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/error.hpp"

namespace gc::mq {

namespace {

// Where each receive was posted and each message arrived, and each event's
// own number among the events of its kind.
struct EventIndex {
  std::vector<std::uint64_t> post_event, arrive_event;
  std::vector<Id> number;  // per event: receive id, message id or probe number

  explicit EventIndex(const std::vector<Event>& events) {
    number.reserve(events.size());
    Id probes = 0;
    for (std::uint64_t e = 0; e < events.size(); ++e) {
      switch (events[e].kind) {
        case Event::Kind::post:
          number.push_back(post_event.size());
          post_event.push_back(e);
          break;
        case Event::Kind::arrive:
          number.push_back(arrive_event.size());
          arrive_event.push_back(e);
          break;
        case Event::Kind::probe:
          number.push_back(probes++);
          break;
      }
    }
  }
  // The event at which receive r and message m meet: the later of the two.
  std::uint64_t meeting(Id r, Id m) const { return std::max(post_event[r], arrive_event[m]); }
};

std::string rank_text(std::int32_t v) {
  return v == kAnySource ? std::string("ANY") : std::to_string(v);
}

std::string message_text(const RankWorkload& w, Id m) {
  if (m == kNoMatch) return "none";
  if (m < w.messages.size())
    return fmt::format("message {} (world rank {}, sequence {})", m, w.messages[m].source_world,
                       w.messages[m].sequence);
  return fmt::format("message {}", m);
}

std::string event_text(const RankWorkload& w, const EventIndex& index, std::uint64_t e) {
  const Event& ev = w.events[e];
  const Envelope& v = ev.envelope;
  switch (ev.kind) {
    case Event::Kind::post:
      return fmt::format("post of receive {} (comm {}, source {}, tag {})", index.number[e], v.comm,
                         rank_text(v.source), rank_text(v.tag));
    case Event::Kind::arrive:
      return fmt::format("arrival of {} (comm {}, source {}, tag {})",
                         message_text(w, index.number[e]), v.comm, v.source, v.tag);
    case Event::Kind::probe:
      break;
  }
  return fmt::format("probe {} (comm {}, source {}, tag {})", index.number[e], v.comm,
                     rank_text(v.source), rank_text(v.tag));
}

std::string outcome_text(const RankWorkload& w, const Event& ev, Id outcome) {
  if (ev.kind != Event::Kind::arrive) return message_text(w, outcome);
  return outcome == kNoMatch ? "none" : fmt::format("receive {}", outcome);
}

}  // namespace

std::vector<Id> event_outcomes(const std::vector<Event>& events, const ReplayResult& result) {
  const EventIndex index(events);
  std::vector<Id> outcome(events.size(), kNoMatch);
  for (const Match& m : result.matches) {
    const std::uint64_t e = index.meeting(m.receive, m.message);
    outcome[e] = events[e].kind == Event::Kind::post ? m.message : m.receive;
  }
  std::uint64_t probe = 0;
  for (std::uint64_t e = 0; e < events.size(); ++e)
    if (events[e].kind == Event::Kind::probe) outcome[e] = result.probes.at(probe++);
  return outcome;
}

std::vector<Id> observed_outcomes(const RankWorkload& w, const std::vector<Id>& reference) {
  const EventIndex index(w.events);
  if (w.observed.size() != index.post_event.size())
    fail(fmt::format("rank {}: the trace has {} receives but {} observed completions", w.rank,
                     index.post_event.size(), w.observed.size()));
  std::vector<Id> outcome(w.events.size(), kNoMatch);
  for (std::uint64_t e = 0; e < w.events.size(); ++e)
    if (w.events[e].kind == Event::Kind::probe) outcome[e] = reference.at(e);
  for (Id r = 0; r < w.observed.size(); ++r) {
    const Id m = w.observed[r];
    if (m == kNoMatch) continue;
    if (m >= index.arrive_event.size())
      fail(fmt::format("rank {}: receive {} observed message {}, but only {} arrived", w.rank, r, m,
                       index.arrive_event.size()));
    const std::uint64_t e = index.meeting(r, m);
    outcome[e] = w.events[e].kind == Event::Kind::post ? m : r;
  }
  return outcome;
}

std::optional<Difference> first_difference(const RankWorkload& w, const std::vector<Id>& expected,
                                           std::string_view expected_name,
                                           const std::vector<Id>& got, std::string_view got_name) {
  const auto at = std::mismatch(expected.begin(), expected.end(), got.begin(), got.end());
  if (at.first == expected.end() && at.second == got.end()) return std::nullopt;
  const auto e = static_cast<std::uint64_t>(at.first - expected.begin());
  if (e >= w.events.size() || e >= got.size() || e >= expected.size())
    return Difference{e, fmt::format("{} has {} events, {} has {}", expected_name, expected.size(),
                                     got_name, got.size())};
  const EventIndex index(w.events);
  const Event& ev = w.events[e];
  return Difference{
      e, fmt::format("{}: {} took {}, {} took {}", event_text(w, index, e), expected_name,
                     outcome_text(w, ev, expected[e]), got_name, outcome_text(w, ev, got[e]))};
}

void LengthHistogram::add(std::uint64_t length) {
  if (length >= count_.size()) count_.resize(length + 1, 0);
  ++count_[length];
  ++samples_;
  sum_ += length;
}

void LengthHistogram::merge(const LengthHistogram& other) {
  if (other.count_.size() > count_.size()) count_.resize(other.count_.size(), 0);
  for (size_t i = 0; i < other.count_.size(); ++i) count_[i] += other.count_[i];
  samples_ += other.samples_;
  sum_ += other.sum_;
}

std::uint64_t LengthHistogram::min() const {
  for (size_t i = 0; i < count_.size(); ++i)
    if (count_[i] > 0) return i;
  return 0;
}

std::uint64_t LengthHistogram::max() const {
  for (size_t i = count_.size(); i > 0; --i)
    if (count_[i - 1] > 0) return i - 1;
  return 0;
}

std::uint64_t LengthHistogram::quantile(double q) const {
  if (samples_ == 0) return 0;
  const auto wanted = std::max<std::uint64_t>(
      1, static_cast<std::uint64_t>(std::ceil(q * static_cast<double>(samples_))));
  std::uint64_t seen = 0;
  for (size_t i = 0; i < count_.size(); ++i) {
    seen += count_[i];
    if (seen >= wanted) return i;
  }
  return max();
}

double LengthHistogram::mean() const {
  return samples_ == 0 ? 0.0 : static_cast<double>(sum_) / static_cast<double>(samples_);
}

QueueLengths queue_lengths(const std::vector<Event>& events, const std::vector<Id>& outcomes) {
  QueueLengths q;
  std::uint64_t prq = 0, umq = 0;
  for (std::uint64_t e = 0; e < events.size(); ++e) {
    const bool matched = outcomes[e] != kNoMatch;
    switch (events[e].kind) {
      case Event::Kind::arrive:
        q.prq.add(prq);
        if (matched)
          --prq;
        else
          ++umq;
        break;
      case Event::Kind::post:
        q.umq.add(umq);
        if (matched)
          --umq;
        else
          ++prq;
        break;
      case Event::Kind::probe:
        q.umq.add(umq);
        break;
    }
  }
  return q;
}

std::vector<std::vector<std::uint64_t>> queue_elements(const std::vector<Event>& events,
                                                       const std::vector<Communicator>& comms,
                                                       const std::vector<Id>& outcomes) {
  std::vector<std::vector<std::uint64_t>> elements;
  for (const Communicator& c : comms) {
    if (c.id >= elements.size()) elements.resize(c.id + 1);
    elements[c.id].assign(static_cast<size_t>(std::max(c.size, 0)), 0);
  }
  for (std::uint64_t e = 0; e < events.size(); ++e) {
    const Event& ev = events[e];
    if (ev.kind == Event::Kind::probe || outcomes[e] != kNoMatch) continue;
    const Envelope& v = ev.envelope;
    if (v.source == kAnySource) continue;
    if (v.comm >= elements.size() || static_cast<size_t>(v.source) >= elements[v.comm].size())
      fail(fmt::format("event {}: source {} is not in communicator {}", e, v.source, v.comm));
    ++elements[v.comm][static_cast<size_t>(v.source)];
  }
  return elements;
}

void EngineTotals::add(const ReplayResult& r) {
  const Counters& c = r.counters;
  Counters& t = counters;
  t.prq_searches += c.prq_searches;
  t.prq_traversed += c.prq_traversed;
  t.prq_max = std::max(t.prq_max, c.prq_max);
  t.umq_searches += c.umq_searches;
  t.umq_traversed += c.umq_traversed;
  t.umq_max = std::max(t.umq_max, c.umq_max);
  t.prq_length_max = std::max(t.prq_length_max, c.prq_length_max);
  t.umq_length_max = std::max(t.umq_length_max, c.umq_length_max);
  t.partners += c.partners;
  t.levels += c.levels;
  t.extractions += c.extractions;
  t.extraction_moved += c.extraction_moved;
  t.extraction_seconds += c.extraction_seconds;
  t.memory_overhead_bytes = std::max(t.memory_overhead_bytes, c.memory_overhead_bytes);
  memory_sum += c.memory_overhead_bytes;
  operations += r.operations;
  seconds += r.seconds;
}

namespace {
double ratio(double a, double b) {
  return b == 0 ? 0.0 : a / b;
}
}  // namespace

double EngineTotals::prq_mean() const {
  return ratio(static_cast<double>(counters.prq_traversed),
               static_cast<double>(counters.prq_searches));
}
double EngineTotals::umq_mean() const {
  return ratio(static_cast<double>(counters.umq_traversed),
               static_cast<double>(counters.umq_searches));
}
double EngineTotals::ns_per_operation() const {
  return ratio(seconds * 1e9, static_cast<double>(operations));
}
double EngineTotals::extraction_percent() const {
  return ratio(100 * counters.extraction_seconds, seconds);
}

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  const auto mid = values.begin() + static_cast<std::ptrdiff_t>((values.size() - 1) / 2);
  std::nth_element(values.begin(), mid, values.end());
  return *mid;
}

}  // namespace gc::mq
