// partner-dynamic: the dynamic approach of Ghazimirsaeed, Mirsadeghi and
// Afsahi, "Communication-aware message matching in MPI" (CCPE 2018).
//
// Each side (PRQ, UMQ) of each communicator starts with one non-partner
// queue (level 0) and no partners. When the newest non-partner queue holds
// more than t elements (options.threshold), partners are extracted from it:
// the sources whose element count in it exceeds the edge point
// (profile.hpp). Each gets a partner queue, its elements move there in
// order, and a new level begins: a new non-partner queue for the traffic of
// the remaining non-partners. At most cap_factor * sqrt(N) partner queues per
// side (the fullest sources first when the cap cuts a selection); once the
// cap is reached no more extraction is tried. Partners are found by a
// row-displacement perfect hash (perfect_hash.hpp), rebuilt at extraction.
//
// Where a source's elements are, in MPI order: a non-partner's in the
// non-partner queues, earlier levels first (a level receives new elements
// only while it is the newest); a partner extracted from the level-L queue
// has its earliest elements in the queues of levels 0..L-1 (they arrived
// before it became a partner), then in its partner queue. So a search for a
// source walks exactly those queues in that order and takes the first hit.
// Receives with MPI_ANY_SOURCE wait in an any-source PRQ; an arrival takes
// the earlier of its own hit and the any-source PRQ's, a search with
// MPI_ANY_SOURCE the earliest over all UMQ queues of the communicator.
//
// A drained level other than the newest can never fill again: it is
// dropped, so searches skip it.
//
// An extraction that finds no partner (e.g. all counts equal) keeps the
// level and doubles the trigger, so a long queue is not rescanned at every
// append; the trigger returns to t once the queue falls to t/2.
#include <algorithm>
#include <chrono>
#include <utility>

#include <fmt/format.h>

#include "core/error.hpp"
#include "mq/engines.hpp"
#include "mq/partner_search.hpp"
#include "mq/perfect_hash.hpp"
#include "mq/profile.hpp"

namespace gc::mq {
namespace {

class PartnerDynamic final : public Engine {
 public:
  explicit PartnerDynamic(const EngineOptions& options)
      : metric_(options.metric), alpha_(options.alpha), cap_factor_(options.cap_factor) {
    check_metric(metric_);
    if (options.threshold < 0)
      fail(fmt::format("partner-dynamic: threshold {} must be >= 0", options.threshold));
    if (!(options.cap_factor >= 0))
      fail(fmt::format("partner-dynamic: cap factor {} must be >= 0", options.cap_factor));
    threshold_ = static_cast<std::uint64_t>(options.threshold);
  }

  void add_communicator(std::uint32_t id, int size) override {
    if (comms_.size() <= id) comms_.resize(id + 1);
    Comm& c = comms_[id];
    if (c.added) return;
    c.added = true;
    c.size = static_cast<std::uint32_t>(std::max(size, 0));
    c.cap = partner_cap(cap_factor_, size);
    for (Side* side : {&c.prq, &c.umq}) {
      side->levels.assign(1, Level{});
      side->levels_created = 1;
      side->trigger = threshold_;
    }
    update_memory();
  }

  Id arrive(const Envelope& message, Id id) override {
    Comm& c = comm(message.comm);
    const auto accept = [&](const QueueElement& r) { return accepts(r.envelope, message); };
    std::uint64_t traversed = 0;
    Hit best = find_from(c.prq, message.source, accept, traversed);
    take_if_earlier(pool_, c.any_source, accept, best, traversed);
    count_search(c_.prq_searches, c_.prq_traversed, c_.prq_max, traversed);
    if (best) {
      const Id matched = pool_[best.node].element.id;
      remove(c.prq, best);
      --prq_length_;
      return matched;
    }
    append(c, c.umq, {message, id, order_++});
    c_.umq_length_max = std::max(c_.umq_length_max, ++umq_length_);
    return kNoMatch;
  }

  Id post(const Envelope& receive, Id id) override {
    Comm& c = comm(receive.comm);
    const Hit found = search_umq(c, receive);
    if (found) {
      const Id matched = pool_[found.node].element.id;
      remove(c.umq, found);
      --umq_length_;
      return matched;
    }
    if (receive.source == kAnySource)
      c.any_source.push_back(pool_, {receive, id, order_++});
    else
      append(c, c.prq, {receive, id, order_++});
    c_.prq_length_max = std::max(c_.prq_length_max, ++prq_length_);
    return kNoMatch;
  }

  Id probe(const Envelope& receive) override {
    const Hit found = search_umq(comm(receive.comm), receive);
    return found ? pool_[found.node].element.id : kNoMatch;
  }

  const Counters& counters() const override {
    c_.partners = 0;
    c_.levels = 0;
    for (const Comm& c : comms_)
      for (const Side* side : {&c.prq, &c.umq}) {
        c_.partners += side->partners.size();
        c_.levels = std::max<std::uint64_t>(c_.levels, side->levels_created);
      }
    c_.memory_overhead_bytes = memory_peak_;
    return c_;
  }

 private:
  struct Partner {
    Queue queue;
    std::uint32_t level = 0;  // extracted from this level: levels below it may hold its elements
    std::int32_t source = 0;
  };
  struct Level {
    Queue queue;  // the non-partner queue of the level
    std::uint32_t id = 0;
  };
  // One side (PRQ or UMQ) of a communicator: its levels and partners.
  struct Side {
    std::vector<Level> levels;  // by id, the drained ones dropped; back() is the newest
    std::uint32_t levels_created = 0;
    std::vector<Partner> partners;
    PerfectHash partner_of;     // source -> index into partners
    std::uint64_t trigger = 0;  // extraction when the newest level holds more
  };
  struct Comm {
    Side prq, umq;
    Queue any_source;  // posted receives with MPI_ANY_SOURCE
    std::uint32_t size = 0;
    std::uint32_t cap = 0;  // partner queues per side
    bool added = false;
  };

  Comm& comm(std::uint32_t id) {
    if (id >= comms_.size() || !comms_[id].added) [[unlikely]]
      fail("partner-dynamic: event on a communicator never added");
    return comms_[id];
  }

  // The first element from `source` that accept() holds for, in MPI order.
  template <class Accept>
  Hit find_from(Side& side, std::int32_t source, const Accept& accept, std::uint64_t& traversed) {
    const std::int32_t p = side.partner_of.lookup(static_cast<std::uint32_t>(source));
    const std::uint32_t below = p < 0 ? side.levels_created : side.partners[p].level;
    for (std::size_t l = 0; l < side.levels.size() && side.levels[l].id < below; ++l) {
      Queue& q = side.levels[l].queue;
      const std::uint32_t n = q.find(pool_, accept, traversed);
      if (n != Queue::kNone) return {&q, n, static_cast<std::int32_t>(l)};
    }
    if (p >= 0) {
      Queue& q = side.partners[p].queue;
      const std::uint32_t n = q.find(pool_, accept, traversed);
      if (n != Queue::kNone) return {&q, n};
    }
    return {};
  }

  // The earliest-arrived message that `receive` accepts, counted as one UMQ search.
  Hit search_umq(Comm& c, const Envelope& receive) {
    const auto accept = [&](const QueueElement& m) { return accepts(receive, m.envelope); };
    std::uint64_t traversed = 0;
    Hit best;
    if (receive.source != kAnySource) {
      best = find_from(c.umq, receive.source, accept, traversed);
    } else {
      // Every element of a level precedes every element of later levels:
      // the first level with a hit holds the earliest non-partner candidate.
      for (std::size_t l = 0; l < c.umq.levels.size(); ++l) {
        Queue& q = c.umq.levels[l].queue;
        const std::uint32_t n = q.find(pool_, accept, traversed);
        if (n != Queue::kNone) {
          best = {&q, n, static_cast<std::int32_t>(l)};
          break;
        }
      }
      for (Partner& partner : c.umq.partners)
        take_if_earlier(pool_, partner.queue, accept, best, traversed);
    }
    count_search(c_.umq_searches, c_.umq_traversed, c_.umq_max, traversed);
    return best;
  }

  // Removes a found element; drops its level if that drained an old one.
  void remove(Side& side, const Hit& hit) {
    hit.queue->erase(pool_, hit.node);
    const auto l = static_cast<std::size_t>(hit.level);
    if (hit.level >= 0 && l + 1 < side.levels.size() && hit.queue->empty())
      side.levels.erase(side.levels.begin() + hit.level);
  }

  // Appends an element with a specific source to its queue on `side`, then
  // extracts partners if the newest level has grown past the trigger.
  void append(Comm& c, Side& side, const QueueElement& e) {
    const std::int32_t p = side.partner_of.lookup(static_cast<std::uint32_t>(e.envelope.source));
    if (p >= 0) {
      side.partners[p].queue.push_back(pool_, e);
      return;
    }
    Queue& newest = side.levels.back().queue;
    newest.push_back(pool_, e);
    if (newest.size() > side.trigger) {
      if (side.partners.size() < c.cap) extract(c, side);
    } else if (newest.size() <= std::max<std::uint64_t>(1, threshold_ / 2)) {
      side.trigger = threshold_;
    }
  }

  // Partner extraction from the newest level of `side`.
  void extract(Comm& c, Side& side) {
    const auto start = std::chrono::steady_clock::now();
    Queue& newest = side.levels.back().queue;
    const std::uint32_t level = side.levels.back().id;

    // Elements per source in the queue, as (source, count) runs.
    sources_.clear();
    for (std::uint32_t n = newest.head(); n != Queue::kNone; n = pool_[n].next)
      sources_.push_back(pool_[n].element.envelope.source);
    std::sort(sources_.begin(), sources_.end());
    runs_.clear();
    counts_.clear();
    for (std::size_t i = 0; i < sources_.size();) {
      std::size_t j = i;
      while (j < sources_.size() && sources_[j] == sources_[i]) ++j;
      runs_.push_back({static_cast<std::uint64_t>(j - i), sources_[i]});
      counts_.push_back(j - i);
      i = j;
    }
    const double edge = edge_point(counts_, metric_, alpha_);
    std::erase_if(runs_, [&](const auto& r) { return static_cast<double>(r.first) <= edge; });
    const std::size_t room = c.cap - side.partners.size();
    if (runs_.size() > room) {
      // The cap cuts the selection: the fullest sources (lowest rank on ties).
      std::partial_sort(runs_.begin(), runs_.begin() + static_cast<std::ptrdiff_t>(room),
                        runs_.end(), [](const auto& a, const auto& b) {
                          return a.first != b.first ? a.first > b.first : a.second < b.second;
                        });
      runs_.resize(room);
    }
    if (runs_.empty()) {
      side.trigger = 2 * newest.size();  // retry only after the queue doubles
      c_.extraction_seconds += seconds_since(start);
      return;
    }

    const std::size_t first_new = side.partners.size();
    for (const auto& run : runs_) side.partners.push_back({Queue{}, level, run.second});
    keys_.clear();
    for (const Partner& partner : side.partners)
      keys_.push_back(static_cast<std::uint32_t>(partner.source));
    side.partner_of = PerfectHash(keys_, c.size);

    // Move the new partners' elements to their queues, keeping their order.
    std::uint64_t moved = 0;
    for (std::uint32_t n = newest.head(); n != Queue::kNone;) {
      const std::uint32_t next = pool_[n].next;
      const QueueElement e = pool_[n].element;
      const std::int32_t p = side.partner_of.lookup(static_cast<std::uint32_t>(e.envelope.source));
      if (p >= 0 && static_cast<std::size_t>(p) >= first_new) {
        newest.erase(pool_, n);
        side.partners[p].queue.push_back(pool_, e);
        ++moved;
      }
      n = next;
    }
    if (newest.empty()) side.levels.pop_back();  // every element moved
    side.levels.push_back({Queue{}, side.levels_created++});
    side.trigger = threshold_;
    ++c_.extractions;
    c_.extraction_moved += moved;
    update_memory();
    c_.extraction_seconds += seconds_since(start);
  }

  static double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

  // Partner tables, hashes and queue headers of all communicators; keeps the peak.
  void update_memory() {
    std::uint64_t bytes = 0;
    for (const Comm& c : comms_) {
      if (!c.added) continue;
      bytes += Queue::kHeaderBytes;  // the any-source PRQ
      for (const Side* side : {&c.prq, &c.umq})
        bytes += side->levels.size() * sizeof(Level) + side->partners.size() * sizeof(Partner) +
                 side->partner_of.memory_bytes();
    }
    memory_peak_ = std::max(memory_peak_, bytes);
  }

  std::string metric_;
  double alpha_;
  double cap_factor_;
  std::uint64_t threshold_ = 0;
  ElementPool pool_;
  std::vector<Comm> comms_;  // by communicator id
  std::uint64_t order_ = 0;
  std::uint64_t prq_length_ = 0, umq_length_ = 0;
  std::uint64_t memory_peak_ = 0;
  // Extraction scratch, reused.
  std::vector<std::int32_t> sources_;
  std::vector<std::pair<std::uint64_t, std::int32_t>> runs_;  // (count, source)
  std::vector<std::uint64_t> counts_;
  std::vector<std::uint32_t> keys_;
  mutable Counters c_;
};

}  // namespace

std::unique_ptr<Engine> make_partner_dynamic(const EngineOptions& options) {
  return std::make_unique<PartnerDynamic>(options);
}

}  // namespace gc::mq
