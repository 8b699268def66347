// reconstruct(): the order in which each rank's matching layer saw its
// posts, probes and message arrivals, rebuilt from the traces of all ranks
// (docs/mq-trace.md, "Reconstruction").
//
// What the traces know: every rank's own calls in order, with times on a
// clock shared by the ranks of one machine; every send, so the messages to a
// rank and, per sender, their order (MPI's non-overtaking rule: a receive
// that fits two messages of one sender takes the earlier); and which
// envelope each completed receive got. What they do not know is when a
// message arrived. So:
//
//  1. The program's matches (`observed`): among the completed receives of a
//     rank whose message had envelope (comm, source, tag), in posting
//     order, the j-th took the j-th message sent with that envelope. (Under
//     MPI's rules, receives that took messages of one envelope took them in
//     posting order; completion order, Wait's order, may differ.)
//  2. A first order: each arrival at its send time (an arrival is never
//     earlier), merged with the rank's own events by time; a message to self
//     comes right after its send call.
//  3. Rounds: the events are run through the linked-list rules; where the
//     result disagrees with `observed`, the arrival at fault is moved to the
//     earliest place the disagreement proves it must come after: after the
//     message the post (or probe) should have found ahead of it, else after
//     the post or probe; after the message a waiting receive is waiting
//     for. The later messages of its sender move with it (they cannot
//     overtake it). Arrivals only ever move later. A round goes on after a
//     fix (keeping the unexpected queue in arrival order); the next one
//     replays from the start, until one needs no fix. Bounded: gc::Error.
//     On random runs of a single-queue library, every arrival ends at or
//     before its true place (tests/unit/mq/test_mq_reconstruct.cpp).
//  4. Not every run has such an order: Open MPI does not give an
//     ANY_SOURCE receive the earliest arrival among senders (it searches the
//     senders from a rotating start), so two messages may each have to come
//     after the other. When a message has been moved after other messages
//     kMaxChained times, it moves after events only, and a wildcard receive
//     that still waits for another sender's message is replayed as a
//     receive from the source it got (receives_narrowed).
//  5. Damaged runs (a receive never completed, a trace without its end):
//     where MPI's non-overtaking rule contradicts `observed`, a message
//     nobody took is left out, else the receive at stake is replayed
//     accepting only the envelope it got (receives_narrowed).
//
// Receives the program never saw complete stay unmatched: a message that
// nobody took and that would match one is left out; an unfinished receive
// that would take a message somebody else took, and a cancelled receive,
// are replayed on a communicator of their own that no message uses.
#include <algorithm>
#include <cmath>
#include <limits>
#include <list>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

#include <fmt/format.h>

#include "core/error.hpp"
#include "mq/trace/trace.hpp"

namespace gc::mq {

namespace {

// ------------------------------------------------------------ one rank's records

struct OwnEvent {
  bool is_post = false;
  std::size_t index = 0;  // into posts or probes
  double time = 0;
};

struct Post {
  enum class State : std::uint8_t { pending, completed, cancelled };
  Envelope envelope;
  State state = State::pending;
  std::int32_t source = 0, tag = 0;  // what it got, when completed
};

struct Probe {
  Envelope asked;
  std::int32_t found_source = kNotFound, found_tag = kNotFound;
};

struct Send {
  std::uint32_t comm = 0;
  std::int32_t dest = 0, tag = 0;
  double time = 0;
  std::size_t own_before = 0;  // own events (posts, probes) recorded before it
};

struct RankData {
  std::map<std::uint32_t, std::vector<std::int32_t>> comms;  // id -> world ranks
  std::vector<OwnEvent> own;
  std::vector<Post> posts;
  std::vector<Probe> probes;
  std::vector<Send> sends;
  bool complete = false;
};

RankData sort_out(const RankTrace& t) {
  RankData d;
  d.complete = t.complete;
  for (const Record& r : t.records) {
    switch (r.kind) {
      case Record::Kind::comm:
        d.comms[r.comm] = r.world_ranks;
        break;
      case Record::Kind::send:
        d.sends.push_back({r.comm, r.peer, r.tag, r.time, d.own.size()});
        break;
      case Record::Kind::post:
        d.own.push_back({true, d.posts.size(), r.time});
        d.posts.push_back({{r.comm, r.peer, r.tag}, Post::State::pending, 0, 0});
        break;
      case Record::Kind::complete: {
        Post& p = d.posts.at(r.index);
        p.state = Post::State::completed;
        p.source = r.peer;
        p.tag = r.tag;
        break;
      }
      case Record::Kind::cancel:
        d.posts.at(r.index).state = Post::State::cancelled;
        break;
      case Record::Kind::probe:
        d.own.push_back({false, d.probes.size(), r.time});
        d.probes.push_back({{r.comm, r.peer, r.tag}, r.found_peer, r.found_tag});
        break;
      case Record::Kind::end:
        break;
    }
  }
  return d;
}

// ------------------------------------------------------------ messages

struct Message {
  int sender = 0;  // world rank
  std::uint64_t sequence = 0;
  std::size_t in_sender = 0;  // position among this sender's messages to the rank
  Envelope envelope;          // source: the sender's rank in the communicator
  std::uint64_t slot = 0;     // arrives after own events [0, slot)
  double time = 0;            // then ordered by time among the arrivals of a slot
  std::uint64_t slot0 = 0;
  double time0 = 0;
  Id consumer = kNoMatch;  // the receive that took it, by the program's completions
  bool dropped = false;
};

// The messages to each rank, per sender in send order.
std::vector<std::vector<Message>> messages_to_ranks(const std::vector<RankTrace>& traces,
                                                    const std::vector<RankData>& data,
                                                    std::vector<std::uint64_t>& dropped) {
  const std::size_t ranks = traces.size();
  std::vector<std::vector<Message>> incoming(ranks);
  std::vector<std::uint64_t> sequence(ranks, 0);
  for (std::size_t s = 0; s < ranks; ++s) {
    std::fill(sequence.begin(), sequence.end(), 0);
    std::map<std::uint32_t, std::int32_t> my_rank_in;              // comm -> rank of s in it
    std::map<std::pair<std::uint32_t, int>, bool> receiver_knows;  // (comm, dest) -> same comm
    for (const Send& send : data[s].sends) {
      const std::vector<std::int32_t>& members = data[s].comms.at(send.comm);
      const int dest = members.at(static_cast<std::size_t>(send.dest));
      auto mine = my_rank_in.find(send.comm);
      if (mine == my_rank_in.end()) {
        const auto at = std::find(members.begin(), members.end(), static_cast<std::int32_t>(s));
        mine = my_rank_in.emplace(send.comm, static_cast<std::int32_t>(at - members.begin())).first;
      }
      const std::uint64_t seq = sequence[static_cast<std::size_t>(dest)]++;
      auto known = receiver_knows.find({send.comm, dest});
      if (known == receiver_knows.end()) {
        const auto& theirs = data[static_cast<std::size_t>(dest)].comms;
        const auto it = theirs.find(send.comm);
        if (it != theirs.end() && it->second != members)
          fail(fmt::format(
              "communicator {} has different members in the traces of ranks {} and {} (the "
              "traces are not of one run)",
              send.comm, s, dest));
        if (it == theirs.end() && traces[static_cast<std::size_t>(dest)].complete)
          fail(fmt::format(
              "rank {} sent on communicator {} to rank {}, whose trace has no communicator {} "
              "(the traces are not of one run)",
              s, send.comm, dest, send.comm));
        known = receiver_knows.emplace(std::make_pair(send.comm, dest), it != theirs.end()).first;
      }
      if (!known->second) {  // the receiver's trace ended before the communicator was made
        ++dropped[static_cast<std::size_t>(dest)];
        continue;
      }
      std::vector<Message>& to = incoming[static_cast<std::size_t>(dest)];
      Message m;
      m.sender = static_cast<int>(s);
      m.sequence = seq;
      m.envelope = {send.comm, mine->second, send.tag};
      if (static_cast<std::size_t>(dest) == s) {
        m.slot = send.own_before;  // to self: right after the send call
      } else {
        m.slot = 0;  // set by the receiver's clock below
      }
      m.time = send.time;
      to.push_back(m);
    }
  }
  return incoming;
}

// ------------------------------------------------------------ one receiver

class Reconciler {
 public:
  Reconciler(const std::vector<RankTrace>& traces, const std::vector<RankData>& data, int rank,
             std::vector<Message> messages, std::uint64_t dropped_before)
      : traces_(traces),
        me_(data[static_cast<std::size_t>(rank)]),
        rank_(rank),
        messages_(std::move(messages)) {
    w_.rank = rank;
    w_.arrivals_dropped = dropped_before;
    void_comm_ = me_.comms.empty() ? 0 : me_.comms.rbegin()->first + 1;
    lenient_ =
        std::any_of(traces.begin(), traces.end(), [](const RankTrace& t) { return !t.complete; }) ||
        std::any_of(me_.posts.begin(), me_.posts.end(),
                    [](const Post& p) { return p.state == Post::State::pending; });
    for (const Post& p : me_.posts) envelopes_.push_back(p.envelope);
    place_by_time();
    assign_observed();
    chained_.assign(messages_.size(), 0);
  }

  RankWorkload run() {
    const std::uint64_t max_rounds = 100 + 2 * (messages_.size() + me_.posts.size());
    for (std::uint64_t round = 0;; ++round) {
      if (round == max_rounds)
        fail(fmt::format(
            "rank {}: no order of arrivals agrees with the program's matches after {} rounds "
            "(the traces are inconsistent)",
            rank_, round));
      if (simulate() == 0) break;
    }
    return finish();
  }

 private:
  // Moves of one message after another before a wildcard receive is narrowed.
  static constexpr std::uint32_t kMaxChained = 16;
  enum class Where : std::uint8_t { pending, unexpected, matched, dropped };
  struct Key {
    std::uint64_t slot;
    double time;
    int sender;
    std::uint64_t sequence;
    std::size_t id;
    auto operator<=>(const Key&) const = default;
  };
  struct Step {
    bool arrival;
    std::size_t index;  // message, or own event
  };

  // A time just after message y's, in its slot.
  double after_time(std::size_t y) const {
    return std::nextafter(messages_[y].time, std::numeric_limits<double>::infinity());
  }

  Key key(std::size_t m) const {
    const Message& x = messages_[m];
    return {x.slot, x.time, x.sender, x.sequence, m};
  }

  // Arrivals at the sender's send time on this rank's clock (own event times
  // are made monotone first, so that a stray clock step cannot unsort them).
  void place_by_time() {
    std::vector<double> until;
    double t = -std::numeric_limits<double>::infinity();
    for (const OwnEvent& e : me_.own) until.push_back(t = std::max(t, e.time));
    by_sender_.clear();
    for (std::size_t m = 0; m < messages_.size(); ++m) {
      Message& x = messages_[m];
      if (x.sender != rank_)
        x.slot = static_cast<std::uint64_t>(std::upper_bound(until.begin(), until.end(), x.time) -
                                            until.begin());
      x.slot0 = x.slot;
      x.time0 = x.time;
      auto& mine = by_sender_[x.sender];
      x.in_sender = mine.size();
      mine.push_back(m);
    }
    // A sender's messages stay in send order even if its clock stepped back.
    for (auto& [sender, list] : by_sender_)
      for (std::size_t i = 1; i < list.size(); ++i) {
        Message& a = messages_[list[i - 1]];
        Message& b = messages_[list[i]];
        if (std::tie(b.slot, b.time) < std::tie(a.slot, a.time)) {
          b.slot = b.slot0 = a.slot;
          b.time = b.time0 = a.time;
        }
      }
  }

  // observed[r]: the j-th completed receive (in posting order) whose message
  // had envelope E took the j-th message sent with envelope E.
  void assign_observed() {
    std::map<std::tuple<std::uint32_t, std::int32_t, std::int32_t>, std::vector<std::size_t>> sent;
    for (std::size_t m = 0; m < messages_.size(); ++m) {
      const Envelope& e = messages_[m].envelope;
      sent[{e.comm, e.source, e.tag}].push_back(m);
    }
    std::map<std::tuple<std::uint32_t, std::int32_t, std::int32_t>, std::size_t> taken;
    observed_.assign(me_.posts.size(), kNoMatch);
    for (std::size_t r = 0; r < me_.posts.size(); ++r) {
      const Post& p = me_.posts[r];
      if (p.state == Post::State::cancelled) {
        void_receive(r);
        continue;
      }
      if (p.state != Post::State::completed) continue;
      const auto envelope = std::make_tuple(p.envelope.comm, p.source, p.tag);
      const auto it = sent.find(envelope);
      std::size_t& j = taken[envelope];
      if (it != sent.end() && j < it->second.size()) {
        const std::size_t m = it->second[j++];
        observed_[r] = m;
        messages_[m].consumer = r;
        continue;
      }
      const int sender = me_.comms.at(p.envelope.comm).at(static_cast<std::size_t>(p.source));
      if (!traces_[static_cast<std::size_t>(sender)].complete) continue;  // its trace ended first
      fail(fmt::format(
          "rank {}: receive {} completed with message {} from rank {} (communicator {}, tag "
          "{}), but rank {} sent only {} such messages to it",
          rank_, r, j + 1, sender, p.envelope.comm, p.tag, sender,
          it == sent.end() ? 0 : it->second.size()));
    }
  }

  void void_receive(std::size_t r) {
    envelopes_[r] = {void_comm_, 0, 0};
    ++w_.receives_voided;
    ++fixes_;
  }

  void drop(std::size_t m) {
    messages_[m].dropped = true;
    where_[m] = Where::dropped;
    ++w_.arrivals_dropped;
    ++fixes_;
  }

  // Message m arrives at (slot, time) or later, and so do the later
  // messages of its sender. A message whose new place is still in this
  // round's past keeps its place in the unexpected queue by that order; one
  // taken already stays taken in this round: what earlier events saw may
  // change, which the next round checks.
  void move(std::size_t m, std::uint64_t slot, double time) {
    ++fixes_;
    const Message& x = messages_[m];
    const std::vector<std::size_t>& same = by_sender_.at(x.sender);
    for (std::size_t i = x.in_sender; i < same.size(); ++i) {
      const std::size_t n = same[i];
      Message& f = messages_[n];
      if (f.dropped) continue;
      if (i > x.in_sender && std::tie(f.slot, f.time) >= std::tie(slot, time)) break;
      if (where_[n] == Where::pending) pending_.erase(key(n));
      if (where_[n] == Where::unexpected) unexpected_.erase(umq_at_[n]);
      f.slot = slot;
      f.time = time;
      if (where_[n] == Where::matched) continue;
      if (key(n) < now_) {
        auto at = unexpected_.end();
        while (at != unexpected_.begin() && key(n) < key(*std::prev(at))) --at;
        umq_at_[n] = unexpected_.insert(at, n);
        where_[n] = Where::unexpected;
      } else {
        where_[n] = Where::pending;
        pending_.insert(key(n));
      }
    }
  }

  // One run of the events in the current order; fixes what disagrees with
  // `observed` and returns the number of fixes (0: the order is final).
  std::uint64_t simulate() {
    fixes_ = 0;
    probes_unexplained_ = 0;
    steps_.clear();
    pending_.clear();
    unexpected_.clear();
    posted_.clear();
    where_.assign(messages_.size(), Where::pending);
    umq_at_.assign(messages_.size(), unexpected_.end());
    for (std::size_t m = 0; m < messages_.size(); ++m) {
      if (messages_[m].dropped)
        where_[m] = Where::dropped;
      else
        pending_.insert(key(m));
    }
    std::size_t k = 0;
    for (;;) {
      const bool arrival = !pending_.empty() && pending_.begin()->slot <= k;
      if (arrival) {
        now_ = *pending_.begin();
        arrive(now_.id);
      } else if (k < me_.own.size()) {
        now_ = {k, std::numeric_limits<double>::infinity(), 0, 0, 0};
        own_event(k++);
      } else {
        break;
      }
    }
    return fixes_;
  }

  void arrive(std::size_t m) {
    const Message& x = messages_[m];
    for (;;) {
      const auto it = std::find_if(posted_.begin(), posted_.end(), [&](std::size_t r) {
        return accepts(envelopes_[r], x.envelope);
      });
      if (it == posted_.end() || observed_[*it] == m) {
        pending_.erase(key(m));
        if (it == posted_.end()) {
          where_[m] = Where::unexpected;
          umq_at_[m] = unexpected_.insert(unexpected_.end(), m);
        } else {
          where_[m] = Where::matched;
          posted_.erase(it);
        }
        steps_.push_back({true, m});
        return;
      }
      const std::size_t r = *it;
      if (observed_[r] == kNoMatch) {
        // An unfinished receive: nobody's message stays out, somebody's
        // message is not this receive's.
        if (x.consumer == kNoMatch) {
          pending_.erase(key(m));
          drop(m);
          return;
        }
        void_receive(r);
        continue;
      }
      // Receive r waits for another message: this one comes after that one.
      const std::size_t wanted = observed_[r];
      const Message& y = messages_[wanted];
      if (y.sender == x.sender || where_[wanted] != Where::pending) {
        if (!resolve_unexplained(m, r)) return;
        continue;
      }
      if (chained_[m] < kMaxChained) {
        ++chained_[m];
        move(m, y.slot, after_time(wanted));
        return;
      }
      // This message and the one r waits for keep having to come after each
      // other: no single arrival order explains the wildcard's choice (Open
      // MPI searches an ANY_SOURCE receive's senders from a rotating start).
      // Replay r as a receive from the source it got.
      envelopes_[r].source = y.envelope.source;
      ++w_.receives_narrowed;
      ++fixes_;
    }
  }

  // Receive r waits for its message y, and message m (from y's sender,
  // earlier, or after y arrived) fits it: MPI's non-overtaking rule would
  // have given m to r. With every receive completed and every trace
  // complete, the traces are inconsistent. Otherwise a receive the program
  // never completed may have taken m (and shifted which message each later
  // receive of that envelope got): m is left out if nobody took it, or r is
  // replayed accepting only y's envelope. Returns false when m is gone.
  bool resolve_unexplained(std::size_t m, std::size_t r) {
    const Message& x = messages_[m];
    const Message& y = messages_[observed_[r]];
    const bool excluded =
        y.envelope.tag != x.envelope.tag || y.envelope.source != x.envelope.source;
    if (!lenient_ || (x.consumer != kNoMatch && !excluded))
      fail(fmt::format(
          "rank {}: receive {} got message {} of rank {} (communicator {}, tag {}), but message "
          "{} of rank {} (tag {}) fits it too and MPI's non-overtaking rule would have given it "
          "that one (the traces are inconsistent)",
          rank_, r, y.sequence, y.sender, y.envelope.comm, y.envelope.tag, x.sequence, x.sender,
          x.envelope.tag));
    if (x.consumer == kNoMatch) {
      pending_.erase(key(m));
      drop(m);
      return false;
    }
    envelopes_[r].source = y.envelope.source;
    envelopes_[r].tag = y.envelope.tag;
    ++w_.receives_narrowed;
    ++fixes_;
    return true;
  }

  void own_event(std::size_t k) {
    const OwnEvent& e = me_.own[k];
    const auto after_this = [&](std::size_t m) {
      move(m, k + 1, std::max(messages_[m].time, e.time));
    };
    // m came after message y, if y is in the unexpected queue behind it,
    // else after this event (also once m has moved after other messages
    // kMaxChained times: moves after events cannot go on for ever).
    const auto after = [&](std::size_t m, std::size_t y) {
      if (y != kNoMatch && where_[y] == Where::unexpected && key(m) < key(y) &&
          chained_[m] < kMaxChained) {
        ++chained_[m];
        move(m, messages_[y].slot, after_time(y));
      } else {
        after_this(m);
      }
    };
    if (e.is_post) {
      const std::size_t r = e.index;
      for (;;) {
        const auto it = std::find_if(unexpected_.begin(), unexpected_.end(), [&](std::size_t m) {
          return accepts(envelopes_[r], messages_[m].envelope);
        });
        if (it == unexpected_.end()) {
          posted_.push_back(r);
          break;
        }
        const std::size_t m = *it;
        if (observed_[r] == m) {
          unexpected_.erase(it);
          where_[m] = Where::matched;
          break;
        }
        if (observed_[r] == kNoMatch && messages_[m].consumer == kNoMatch) {
          unexpected_.erase(it);
          drop(m);
        } else if (observed_[r] == kNoMatch) {
          void_receive(r);
        } else {
          after(m, observed_[r]);  // m was not there yet, or behind the receive's message
        }
      }
    } else {
      const Probe& p = me_.probes[e.index];
      for (;;) {
        const auto it = std::find_if(unexpected_.begin(), unexpected_.end(), [&](std::size_t m) {
          return accepts(p.asked, messages_[m].envelope);
        });
        if (it == unexpected_.end()) {
          if (p.found_source != kNotFound) ++probes_unexplained_;
          break;
        }
        const Envelope& got = messages_[*it].envelope;
        if (p.found_source == got.source && p.found_tag == got.tag) break;
        // Found nothing: this message was not there yet. Found another
        // envelope: this message came after the first one with it.
        std::size_t found = kNoMatch;
        if (p.found_source != kNotFound)
          for (std::size_t m : unexpected_) {
            const Envelope& v = messages_[m].envelope;
            if (v.comm == p.asked.comm && v.source == p.found_source && v.tag == p.found_tag) {
              found = m;
              break;
            }
          }
        after(*it, found);
      }
    }
    steps_.push_back({false, k});
  }

  RankWorkload finish() {
    std::vector<Id> arrival(messages_.size(), kNoMatch);
    for (const Step& s : steps_) {
      if (s.arrival) {
        const Message& x = messages_[s.index];
        arrival[s.index] = w_.messages.size();
        w_.messages.push_back({x.sender, x.sequence});
        w_.events.push_back({Event::Kind::arrive, x.envelope});
        if (std::tie(x.slot, x.time) != std::tie(x.slot0, x.time0)) ++w_.arrivals_moved;
        continue;
      }
      const OwnEvent& e = me_.own[s.index];
      if (e.is_post)
        w_.events.push_back({Event::Kind::post, envelopes_[e.index]});
      else
        w_.events.push_back({Event::Kind::probe, me_.probes[e.index].asked});
    }
    w_.observed.reserve(observed_.size());
    for (Id m : observed_) w_.observed.push_back(m == kNoMatch ? kNoMatch : arrival.at(m));
    for (const auto& [id, members] : me_.comms)
      w_.comms.push_back({id, static_cast<int>(members.size())});
    if (w_.receives_voided > 0) w_.comms.push_back({void_comm_, 1});
    w_.probes_unexplained = probes_unexplained_;
    return std::move(w_);
  }

  const std::vector<RankTrace>& traces_;
  const RankData& me_;
  const int rank_;
  std::vector<Message> messages_;
  std::map<int, std::vector<std::size_t>> by_sender_;
  std::vector<Envelope> envelopes_;     // per receive, voided ones on void_comm_
  std::vector<Id> observed_;            // per receive: index into messages_
  std::vector<std::uint32_t> chained_;  // per message: times moved after another message
  std::uint32_t void_comm_ = 0;
  bool lenient_ = false;  // some receive never completed, or some trace ended early
  RankWorkload w_;

  // The state of one round.
  std::set<Key> pending_;
  std::list<std::size_t> unexpected_;  // messages, in arrival order
  std::list<std::size_t> posted_;      // receives, in posting order
  std::vector<std::list<std::size_t>::iterator> umq_at_;
  std::vector<Where> where_;
  std::vector<Step> steps_;
  Key now_{};  // where this round is: earlier keys are its past
  std::uint64_t fixes_ = 0, probes_unexplained_ = 0;
};

}  // namespace

std::vector<RankWorkload> reconstruct(const std::vector<RankTrace>& traces) {
  for (std::size_t i = 0; i < traces.size(); ++i)
    if (traces[i].rank != static_cast<int>(i) ||
        traces[i].world_size != static_cast<int>(traces.size()))
      fail(fmt::format("reconstruct: trace {} holds rank {} of {}, expected rank {} of {}",
                       traces[i].path, traces[i].rank, traces[i].world_size, i, traces.size()));
  std::vector<RankData> data;
  data.reserve(traces.size());
  for (const RankTrace& t : traces) data.push_back(sort_out(t));
  std::vector<std::uint64_t> dropped(traces.size(), 0);
  std::vector<std::vector<Message>> incoming = messages_to_ranks(traces, data, dropped);
  std::vector<RankWorkload> out;
  out.reserve(traces.size());
  for (std::size_t r = 0; r < traces.size(); ++r)
    out.push_back(
        Reconciler(traces, data, static_cast<int>(r), std::move(incoming[r]), dropped[r]).run());
  return out;
}

}  // namespace gc::mq
