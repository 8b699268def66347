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
// Receives with MPI_ANY_SOURCE: until the PRQ side has partners, its one
// non-partner queue is the MPI library's PRQ and holds them in posting order
// with the rest (an arrival is then one walk, as in linked-list; they do not
// count towards t nor in the statistics of an extraction). The extraction
// that makes the first PRQ partners moves them, in order, to an any-source
// PRQ where later ones wait too; from then on an arrival takes the earlier
// of its own hit and the any-source PRQ's. A search with MPI_ANY_SOURCE
// takes the earliest over the UMQ levels and the partner UMQ queues that
// hold messages (a bit per partner says which).
//
// A drained level other than the newest can never fill again: it is
// dropped, so searches skip it.
//
// Until some queue would outgrow t, no extraction can happen anywhere, and
// the engine is the one queue pair of queue_pair_start.hpp: linked-list,
// with the same code on the hot path. The first append that takes the PRQ
// or the UMQ past t (wildcards counted: leaving early costs nothing but the
// fast path) moves every element, in order, to its communicator's level-0
// queue, and the engine goes on per communicator as above: no side of any
// communicator can have been past t before (each holds at most all of the
// one queue), so extractions happen exactly where they would have. (An
// event on a communicator never added is refused when its element moves, or
// at once after the move: the one queue has no per-communicator state to
// check.)
//
// An extraction counts the elements per source of the newest level in a
// hash table of twice its length (linear time; most extractions on short
// queues find every count equal, so no partner, and stop there). One that
// finds no partner keeps the level and doubles the trigger, so a long queue
// is not rescanned at every append; the trigger returns to t once the queue
// falls to t/2. Counters: `extraction_moved` counts the elements moved to
// partner queues and the wildcard receives moved to the any-source PRQ.
#include <algorithm>
#include <bit>
#include <chrono>
#include <tuple>
#include <utility>

#include <fmt/format.h>

#include "core/error.hpp"
#include "mq/engines/engines.hpp"
#include "mq/engines/partner_search.hpp"
#include "mq/engines/perfect_hash.hpp"
#include "mq/engines/profile.hpp"
#include "mq/engines/queue_pair_start.hpp"

namespace gc::mq {
namespace {

class PartnerDynamic final : public Engine {
 public:
  explicit PartnerDynamic(const EngineOptions& options)
      : metric_(options.metric),
        alpha_(options.alpha),
        cap_factor_(options.cap_factor),
        memory_(options.memory),
        start_(static_cast<std::uint64_t>(std::max(options.threshold, 0))) {
    check_metric(metric_);
    if (options.threshold < 0)
      fail(fmt::format("partner-dynamic: threshold {} must be >= 0", options.threshold));
    if (!(options.cap_factor >= 0))
      fail(fmt::format("partner-dynamic: cap factor {} must be >= 0", options.cap_factor));
    threshold_ = static_cast<std::uint64_t>(options.threshold);
    trigger_reset_ = std::max<std::uint64_t>(1, threshold_ / 2);
  }

  void add_communicator(std::uint32_t id, int size) override {
    if (comms_.size() <= id) comms_.resize(id + 1);
    comm_slots_ = comms_.size();
    CommQueues& c = comms_[id];
    if (c.added) return;
    c.added = true;
    c.size = static_cast<std::uint32_t>(std::max(size, 0));
    c.cap = partner_cap(memory_, cap_factor_, true, size);
    for (Side* side : {&c.prq, &c.umq}) {
      side->levels.assign(1, Level{});
      side->levels_created = 1;
      side->trigger = threshold_;
    }
    update_memory();
  }

  Id arrive(const Envelope& message, Id id) override {
    if (start_.active()) [[likely]] {
      const Id matched = start_.arrive(pool_, message, id, order_, counters_);
      if (matched != QueuePairStart::kFull) return matched;
      leave_start();
      CommQueues& c = comm(message.comm);
      append(c, c.umq, {message, id, order_++});
      counters_.umq_length_max = std::max(counters_.umq_length_max, ++umq_length_);
      return kNoMatch;
    }
    CommQueues& c = comm(message.comm);
    const auto accept = [&](const QueueElement& r) { return accepts(r.envelope, message); };
    std::uint64_t traversed = 0;
    Hit best = find_from(c.prq, message.source, accept, traversed);
    take_if_earlier(pool_, c.any_source, accept, best, traversed);  // empty before PRQ partners
    count_search(counters_.prq_searches, counters_.prq_traversed, counters_.prq_max, traversed);
    if (best) {
      const Id matched = pool_[best.node].element.id;
      remove(c.prq, best);
      --prq_length_;
      return matched;
    }
    append(c, c.umq, {message, id, order_++});
    counters_.umq_length_max = std::max(counters_.umq_length_max, ++umq_length_);
    return kNoMatch;
  }

  Id post(const Envelope& receive, Id id) override {
    if (start_.active()) [[likely]] {
      const Id matched = start_.post(pool_, receive, id, order_, counters_);
      if (matched != QueuePairStart::kFull) return matched;
      leave_start();
      CommQueues& c = comm(receive.comm);
      append(c, c.prq, {receive, id, order_++});
      counters_.prq_length_max = std::max(counters_.prq_length_max, ++prq_length_);
      return kNoMatch;
    }
    CommQueues& c = comm(receive.comm);
    const Hit found = search_umq(c, receive);
    if (found) {
      const Id matched = pool_[found.node].element.id;
      remove(c.umq, found);
      --umq_length_;
      return matched;
    }
    append(c, c.prq, {receive, id, order_++});
    counters_.prq_length_max = std::max(counters_.prq_length_max, ++prq_length_);
    return kNoMatch;
  }

  Id probe(const Envelope& receive) override {
    if (start_.active()) [[likely]]
      return start_.probe(pool_, receive, counters_);
    const Hit found = search_umq(comm(receive.comm), receive);
    return found ? pool_[found.node].element.id : kNoMatch;
  }

  const Counters& counters() const override {
    counters_.partners = 0;
    counters_.levels = 0;
    for (const CommQueues& c : comms_)
      for (const Side* side : {&c.prq, &c.umq}) {
        counters_.partners += side->partners.size();
        counters_.levels = std::max<std::uint64_t>(counters_.levels, side->levels_created);
      }
    counters_.memory_overhead_bytes = memory_peak_;
    return counters_;
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
    OccupiedQueues occupied;    // the partner queues that hold elements
    PerfectHash partner_of;     // source -> index into partners
    std::uint64_t trigger = 0;  // extraction when the newest level holds more
    // PRQ before its first partners: receives with MPI_ANY_SOURCE in level 0.
    std::uint64_t wildcards = 0;
  };
  // One communicator's queues: both sides and its MPI_ANY_SOURCE receives.
  struct CommQueues {
    Side prq, umq;
    Queue any_source;  // posted receives with MPI_ANY_SOURCE
    std::uint32_t size = 0;
    std::uint32_t cap = 0;  // partner queues per side
    bool added = false;
  };

  CommQueues& comm(std::uint32_t id) {
    if (id >= comm_slots_ || !comms_[id].added) [[unlikely]]
      fail("partner-dynamic: event on a communicator never added");
    return comms_[id];
  }

  // From the one queue pair to the per-communicator levels: every element,
  // in order, to level 0 of its communicator's side (receives with
  // MPI_ANY_SOURCE counted there as wildcards, as append() does).
  [[gnu::noinline]] void leave_start() {
    std::tie(prq_length_, umq_length_) = start_.drain(pool_, [&](bool prq, const QueueElement& e) {
      CommQueues& c = comm(e.envelope.comm);  // checked here: the one queue needs no communicator
      Side& side = prq ? c.prq : c.umq;
      side.levels.front().queue.push_back(pool_, e);
      side.wildcards += e.envelope.source == kAnySource;
    });
  }

  // The first element from `source` that accept() holds for, in MPI order.
  template <class Accept>
  Hit find_from(Side& side, std::int32_t source, const Accept& accept, std::uint64_t& traversed) {
    if (side.partners.empty()) {
      // One level: the library's one queue (wildcards in it on the PRQ side),
      // walked inline as linked-list walks it.
      Queue& q = side.levels.front().queue;
      const std::uint32_t n = q.find(pool_, accept, traversed);
      return n == Queue::kNone ? Hit{} : Hit{&q, n, 0};
    }
    const std::int32_t p = side.partner_of.lookup(static_cast<std::uint32_t>(source));
    const std::uint32_t below =
        p < 0 ? side.levels_created : side.partners[static_cast<std::size_t>(p)].level;
    for (std::size_t l = 0; l < side.levels.size() && side.levels[l].id < below; ++l) {
      Queue& q = side.levels[l].queue;
      const std::uint32_t n = scan(pool_, q, accept, traversed);
      if (n != Queue::kNone) return {&q, n, static_cast<std::int32_t>(l)};
    }
    if (p >= 0) {
      Queue& q = side.partners[static_cast<std::size_t>(p)].queue;
      const std::uint32_t n = scan(pool_, q, accept, traversed);
      if (n != Queue::kNone) return {&q, n, -1, p};
    }
    return {};
  }

  // The earliest-arrived message that `receive` accepts, counted as one UMQ search.
  Hit search_umq(CommQueues& c, const Envelope& receive) {
    const auto accept = [&](const QueueElement& m) { return accepts(receive, m.envelope); };
    std::uint64_t traversed = 0;
    Hit best;
    // Without partners the one level is the library's UMQ: whatever the source.
    if (c.umq.partners.empty() || receive.source != kAnySource) {
      best = find_from(c.umq, receive.source, accept, traversed);
    } else {
      // Every element of a level precedes every element of later levels:
      // the first level with a hit holds the earliest non-partner candidate.
      for (std::size_t l = 0; l < c.umq.levels.size(); ++l) {
        Queue& q = c.umq.levels[l].queue;
        const std::uint32_t n = scan(pool_, q, accept, traversed);
        if (n != Queue::kNone) {
          best = {&q, n, static_cast<std::int32_t>(l)};
          break;
        }
      }
      c.umq.occupied.for_each([&](std::int32_t p) {
        take_if_earlier(pool_, c.umq.partners[static_cast<std::size_t>(p)].queue, accept, best,
                        traversed, p);
      });
    }
    count_search(counters_.umq_searches, counters_.umq_traversed, counters_.umq_max, traversed);
    return best;
  }

  // Removes a found element; drops its level if that drained an old one.
  void remove(Side& side, const Hit& hit) {
    // Without a branch on the source: wildcards are as frequent as a program makes them.
    side.wildcards -= (hit.level >= 0) & (pool_[hit.node].element.envelope.source == kAnySource);
    hit.queue->erase(pool_, hit.node);
    if (hit.queue->empty()) {
      if (hit.partner >= 0)
        side.occupied.clear(hit.partner);
      else if (hit.level >= 0 && hit.queue != &side.levels.back().queue) [[unlikely]]
        drop_level(side, static_cast<std::size_t>(hit.level));
    }
  }

  // Drops drained level l, not the newest (which still fills).
  [[gnu::noinline]] static void drop_level(Side& side, std::size_t l) {
    side.levels.erase(side.levels.begin() + static_cast<std::ptrdiff_t>(l));
  }

  // Appends an element to its queue on `side` (a receive with MPI_ANY_SOURCE
  // to level 0 or, once the PRQ has partners, to the any-source PRQ), then
  // extracts partners if the newest level has grown past the trigger.
  void append(CommQueues& c, Side& side, const QueueElement& e) {
    const bool wildcard = e.envelope.source == kAnySource;
    if (!side.partners.empty()) {
      if (wildcard) {
        c.any_source.push_back(pool_, e);
        return;
      }
      const std::int32_t p = side.partner_of.lookup(static_cast<std::uint32_t>(e.envelope.source));
      if (p >= 0) {
        side.partners[static_cast<std::size_t>(p)].queue.push_back(pool_, e);
        side.occupied.set(p);
        return;
      }
    }
    Queue& newest = side.levels.back().queue;
    newest.push_back(pool_, e);
    side.wildcards += wildcard;  // only before the first partners: see above
    const std::uint64_t length = newest.size() - side.wildcards;
    if (length > side.trigger) [[unlikely]] {
      if (side.partners.size() < c.cap) extract(c, side);
    } else if (length <= trigger_reset_) {
      side.trigger = threshold_;
    }
  }

  // Partner extraction from the newest level of `side`.
  void extract(CommQueues& c, Side& side) {
    const auto start = std::chrono::steady_clock::now();
    Queue& newest = side.levels.back().queue;
    const std::uint32_t level = side.levels.back().id;

    // Elements per source in the queue, as (count, source) runs: counted in
    // an open-addressing table of twice the queue's length (linear time; a
    // failed extraction costs little, and most fail on short queues).
    const std::uint64_t length = newest.size() - side.wildcards;
    const int bits = std::bit_width(2 * length - 1);
    slots_.assign(std::size_t{1} << bits, {0, kAnySource});
    const std::uint64_t mask = slots_.size() - 1;
    for (std::uint32_t n = newest.head(); n != Queue::kNone; n = pool_[n].next) {
      const std::int32_t source = pool_[n].element.envelope.source;
      if (source == kAnySource) continue;
      std::uint64_t i = (static_cast<std::uint32_t>(source) * 0x9E3779B97F4A7C15ULL) >> (64 - bits);
      while (slots_[i].second != source && slots_[i].second != kAnySource) i = (i + 1) & mask;
      slots_[i].second = source;
      ++slots_[i].first;
    }
    runs_.clear();
    counts_.clear();
    for (const auto& slot : slots_)
      if (slot.second != kAnySource) {
        runs_.push_back(slot);
        counts_.push_back(slot.first);
      }
    // Equal counts (typically one element per source) equal every metric's
    // edge point, so none exceeds it: no statistics needed.
    if (std::all_of(counts_.begin(), counts_.end(),
                    [&](std::uint64_t n) { return n == counts_.front(); })) {
      runs_.clear();
    } else {
      const double edge = edge_point_in_place(counts_, metric_, alpha_);
      std::erase_if(runs_, [&](const auto& r) { return static_cast<double>(r.first) <= edge; });
    }
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
      side.trigger = 2 * length;  // retry only after the queue doubles
      counters_.extraction_seconds += seconds_since(start);
      return;
    }
    // New partners in rank order (the table's order is the hash's).
    std::sort(runs_.begin(), runs_.end(),
              [](const auto& a, const auto& b) { return a.second < b.second; });

    // The first PRQ partners: the receives with MPI_ANY_SOURCE leave level
    // 0 for the any-source PRQ (empty until now), keeping their order.
    std::uint64_t moved = 0;
    if (side.wildcards != 0) {
      for (std::uint32_t n = newest.head(); n != Queue::kNone;) {
        const std::uint32_t next = pool_[n].next;
        const QueueElement e = pool_[n].element;
        if (e.envelope.source == kAnySource) {
          newest.erase(pool_, n);
          c.any_source.push_back(pool_, e);
          ++moved;
        }
        n = next;
      }
      side.wildcards = 0;
    }

    const std::size_t first_new = side.partners.size();
    for (const auto& run : runs_) side.partners.push_back({Queue{}, level, run.second});
    keys_.clear();
    for (const Partner& partner : side.partners)
      keys_.push_back(static_cast<std::uint32_t>(partner.source));
    side.partner_of = PerfectHash(keys_, c.size);
    side.occupied.resize(side.partners.size());

    // Move the new partners' elements to their queues, keeping their order.
    for (std::uint32_t n = newest.head(); n != Queue::kNone;) {
      const std::uint32_t next = pool_[n].next;
      const QueueElement e = pool_[n].element;
      const std::int32_t p = side.partner_of.lookup(static_cast<std::uint32_t>(e.envelope.source));
      if (p >= 0 && static_cast<std::size_t>(p) >= first_new) {
        newest.erase(pool_, n);
        side.partners[static_cast<std::size_t>(p)].queue.push_back(pool_, e);
        side.occupied.set(p);
        ++moved;
      }
      n = next;
    }
    if (newest.empty()) side.levels.pop_back();  // every element moved
    side.levels.push_back({Queue{}, side.levels_created++});
    side.trigger = threshold_;
    ++counters_.extractions;
    counters_.extraction_moved += moved;
    update_memory();
    counters_.extraction_seconds += seconds_since(start);
  }

  static double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

  // Partner tables, hashes and queue headers of all communicators; keeps the peak.
  void update_memory() {
    std::uint64_t bytes = QueuePairStart::kMemoryBytes;
    for (const CommQueues& c : comms_) {
      if (!c.added) continue;
      bytes += Queue::kHeaderBytes;  // the any-source PRQ
      for (const Side* side : {&c.prq, &c.umq})
        bytes += side->levels.size() * sizeof(Level) + side->partners.size() * sizeof(Partner) +
                 side->partner_of.memory_bytes() + side->occupied.memory_bytes();
    }
    memory_peak_ = std::max(memory_peak_, bytes);
  }

  std::string metric_;
  double alpha_;
  double cap_factor_;
  EngineOptions::Memory memory_;
  std::uint64_t threshold_ = 0;
  std::uint64_t trigger_reset_ = 1;  // the trigger returns to t at this length or below
  ElementPool pool_;
  QueuePairStart start_;           // see the top and queue_pair_start.hpp
  std::vector<CommQueues> comms_;  // by communicator id
  std::size_t comm_slots_ = 0;     // comms_.size(), without a division on every operation
  std::uint64_t order_ = 0;
  std::uint64_t prq_length_ = 0, umq_length_ = 0;  // after the single-queue start
  std::uint64_t memory_peak_ = 0;
  // Extraction scratch, reused.
  std::vector<std::pair<std::uint64_t, std::int32_t>> slots_;  // (count, source), source -1: free
  std::vector<std::pair<std::uint64_t, std::int32_t>> runs_;   // (count, source)
  std::vector<std::uint64_t> counts_;
  std::vector<std::uint32_t> keys_;
  mutable Counters counters_;
};

}  // namespace

std::unique_ptr<Engine> make_partner_dynamic(const EngineOptions& options) {
  return std::make_unique<PartnerDynamic>(options);
}

}  // namespace gc::mq
