// Shared machinery of the bulk-synchronous models (rma, ncl): pushes are
// buffered per neighbour during a round; evoke() moves the round's messages
// (the model's transfer()) and counts; process() walks what arrived; done()
// is a global reduction of the messages still waiting to be sent.
#pragma once

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
    for (size_t i = 0; i < outgoing_.size(); ++i) count(static_cast<int>(i), outgoing_[i].size());
    transfer();
    for (auto& out : outgoing_) out.clear();
    pending_ = 0;
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
    in_counts_.assign(neighborhood_.ranks.size(), 0);
    out_counts_.assign(neighborhood_.ranks.size(), 0);
  }
  // Moves outgoing_ to the neighbours and fills in_counts_.
  virtual void transfer() = 0;
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
  std::uint64_t pending_ = 0;
};

}  // namespace gc
