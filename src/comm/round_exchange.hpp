// Shared machinery of the bulk-synchronous models (rma, ncl): pushes are
// buffered per neighbour during a round; evoke() moves the round's messages
// (the model's transfer()) and counts; process() walks what arrived; done()
// is a global reduction of the messages still waiting to be sent and of the
// ranks not settled.
//
// Flow control: a round carries at most ExchangeOptions::round_messages to one
// neighbour (its batch), the oldest first; the rest stay queued for the next
// rounds. Windows and receive arrays are sized by the batch, not by the
// phase, so their memory is bounded; a phase may take more rounds. done()
// counts the queued rest, so a phase ends only once everything went out. The
// queues are chunked (chunk_fifo.hpp): their memory is the backlog's.
#pragma once

#include <algorithm>
#include <span>

#include "comm/chunk_fifo.hpp"
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
      const std::uint64_t queued = outgoing_[i].size();
      out_counts_[i] = std::min(queued, batch_limit_);
      if (queued > batch_limit_) ++counters_.flow_waits;
      count(static_cast<int>(i), out_counts_[i]);
    }
    transfer();
    for (size_t i = 0; i < outgoing_.size(); ++i) {
      outgoing_[i].pop_front(out_counts_[i]);
      pending_ -= out_counts_[i];
    }
    ++counters_.rounds;
  }

  void process(const std::function<void(int, const Message&)>& handle) override {
    for (size_t i = 0; i < outgoing_.size(); ++i)
      for (const Message& m : incoming(i)) handle(static_cast<int>(i), m);
  }

  bool done(bool locally_settled) override {
    // Every message sent in the last round has been processed by now, so if
    // no rank has anything queued and none has work of its own left, nothing
    // will ever be sent again.
    return sum_over_ranks<std::uint64_t>(comm_, pending_ + (locally_settled ? 0 : 1)) == 0;
  }
  bool detects_quiescence() const override { return true; }
  std::uint64_t queued() const override { return pending_; }

 protected:
  RoundExchange(const Comm& comm, Neighborhood nb) : Exchange(comm, std::move(nb)) {
    outgoing_.resize(neighborhood_.ranks.size());
    // Each queue's first chunk made here, in the timed setup, not by the first
    // push inside a phase, where a rank with many neighbours would pay for
    // them all in its first round (as nsr-agg's packets: bench/README.md).
    for (size_t i = 0; i < outgoing_.size(); ++i)
      if (neighborhood_.capacity[i] > 0) outgoing_[i].prepare();
    in_counts_.assign(neighborhood_.ranks.size(), 0);
    out_counts_.assign(neighborhood_.ranks.size(), 0);
    if (neighborhood_.options.round_messages > 0)
      batch_limit_ = neighborhood_.options.round_messages;
  }
  // Moves each neighbour's batch (out_counts_[i] messages, for_each_batch_piece)
  // to it and fills in_counts_.
  virtual void transfer() = 0;
  // f(span) over the messages this round carries to neighbour i, in order,
  // in contiguous pieces.
  template <class F>
  void for_each_batch_piece(size_t i, F&& f) const {
    outgoing_[i].for_each_piece(out_counts_[i], f);
  }
  // Most messages a neighbour may receive from one sender in one round: its
  // phase capacity, bounded by the flow control.
  std::uint64_t round_bound(std::uint64_t capacity) const {
    return std::min(capacity, batch_limit_);
  }
  // The messages that arrived from neighbour i in the last round.
  virtual std::span<const Message> incoming(size_t i) const = 0;

  // The per-neighbour queues of the round (their high-water memory).
  std::uint64_t queue_bytes() const {
    std::uint64_t bytes = 0;
    for (const auto& out : outgoing_) bytes += out.peak_bytes();
    return bytes;
  }

  // MPICH rejects null buffer pointers even for empty neighbourhoods; an
  // empty vector's data() may be null.
  template <class T>
  static T* nonnull(std::vector<T>& v) {
    static T dummy{};
    return v.empty() ? &dummy : v.data();
  }

  std::vector<ChunkFifo<Message>> outgoing_;
  std::vector<std::uint64_t> in_counts_, out_counts_;
  std::uint64_t pending_ = 0;  // pushed, not yet sent (this round's and the backlog)

 private:
  std::uint64_t batch_limit_ = ~std::uint64_t{0};
};

}  // namespace gc
