// Shared machinery of the bulk-synchronous models (rma, ncl): pushes are
// buffered per neighbour during a round; evoke() moves the round's messages
// (the model's transfer()) and counts; process() walks what arrived; done()
// is a global reduction of the messages still waiting to be sent.
//
// Flow control: a round carries at most Neighborhood::round_messages to one
// neighbour (its batch), the oldest first; the rest stay queued for the next
// rounds. Windows and receive arrays are sized by the batch, not by the
// phase, so their memory is bounded; a phase may take more rounds. done()
// counts the queued rest, so a phase ends only once everything went out.
#pragma once

#include <algorithm>
#include <span>

#include "comm/exchange.hpp"

namespace gc {

class RoundExchange : public Exchange {
 public:
  void push(int index, const Message& message) override {
    outgoing_[static_cast<size_t>(index)].push_back(message);
    ++pending_;
  }

  void evoke() override {
    for (size_t i = 0; i < outgoing_.size(); ++i) {
      const std::uint64_t queued = outgoing_[i].size() - sent_head_[i];
      out_counts_[i] = std::min(queued, batch_limit_);
      if (queued > batch_limit_) ++counters_.flow_waits;
      count(static_cast<int>(i), out_counts_[i]);
    }
    transfer();
    for (size_t i = 0; i < outgoing_.size(); ++i) {
      std::vector<Message>& out = outgoing_[i];
      sent_head_[i] += out_counts_[i];
      pending_ -= out_counts_[i];
      // Drop what went out: at once when all did, else once it is half the
      // queue (amortized O(1) per message however many rounds a backlog takes).
      if (sent_head_[i] == out.size()) {
        out.clear();
        sent_head_[i] = 0;
      } else if (2 * sent_head_[i] > out.size()) {
        out.erase(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(sent_head_[i]));
        sent_head_[i] = 0;
      }
    }
    ++counters_.rounds;
  }

  void process(const std::function<void(int, const Message&)>& handle) override {
    for (size_t i = 0; i < outgoing_.size(); ++i)
      for (const Message& m : incoming(i)) handle(static_cast<int>(i), m);
  }

  bool done(bool) override {
    // Every message sent in the last round has been processed by now, so if
    // no rank has anything queued, nothing will ever be sent again.
    return sum_over_ranks<std::uint64_t>(comm_, pending_) == 0;
  }

 protected:
  RoundExchange(const Comm& comm, Neighborhood nb) : Exchange(comm, std::move(nb)) {
    outgoing_.resize(neighborhood_.ranks.size());
    sent_head_.assign(neighborhood_.ranks.size(), 0);
    in_counts_.assign(neighborhood_.ranks.size(), 0);
    out_counts_.assign(neighborhood_.ranks.size(), 0);
    if (neighborhood_.round_messages > 0) batch_limit_ = neighborhood_.round_messages;
  }
  // Moves each neighbour's batch (out_counts_[i] messages, batch(i)) to it and
  // fills in_counts_.
  virtual void transfer() = 0;
  // The messages this round carries to neighbour i.
  std::span<const Message> batch(size_t i) const {
    return {outgoing_[i].data() + sent_head_[i], out_counts_[i]};
  }
  // Most messages a neighbour may receive from one sender in one round: its
  // phase capacity, bounded by the flow control.
  std::uint64_t round_bound(std::uint64_t capacity) const {
    return std::min(capacity, batch_limit_);
  }
  // The messages that arrived from neighbour i in the last round.
  virtual std::span<const Message> incoming(size_t i) const = 0;

  // The per-neighbour queues of the round (their high-water capacity).
  std::uint64_t queue_bytes() const {
    std::uint64_t bytes = 0;
    for (const auto& out : outgoing_) bytes += out.capacity() * sizeof(Message);
    return bytes;
  }

  // MPICH rejects null buffer pointers even for empty neighbourhoods; an
  // empty vector's data() may be null.
  template <class T>
  static T* nonnull(std::vector<T>& v) {
    static T dummy{};
    return v.empty() ? &dummy : v.data();
  }

  std::vector<std::vector<Message>> outgoing_;
  std::vector<std::uint64_t> in_counts_, out_counts_;
  std::uint64_t pending_ = 0;  // pushed, not yet sent (this round's and the backlog)

 private:
  std::vector<size_t> sent_head_;  // outgoing_[i][0, sent_head_[i]) went out already
  std::uint64_t batch_limit_ = ~std::uint64_t{0};
};

}  // namespace gc
