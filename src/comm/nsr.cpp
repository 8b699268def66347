// nsr: nonblocking Send-Recv, the baseline model of Ghosh et al. (IPDPS 2019,
// section III-A): one MPI_Isend per message, no aggregation; receives by
// MPI_Iprobe(MPI_ANY_SOURCE) + MPI_Recv. Termination is local: once a rank is
// settled it tells each neighbour how many messages it sent it (DONE), and a
// rank finishes when every neighbour said DONE and all announced messages
// arrived. At most kMaxInFlight Isends are outstanding, each from its slot of
// a ring of as many messages (a slot is reused only once its send completed);
// messages pushed beyond that wait, by value, in per-neighbour queues
// (chunked: memory follows the backlog), issued round-robin. The counts, the
// tags of each phase and what arrives early: phase_ledger.hpp. Under SMPI a
// rank with nothing left to send waits for its next arrival in MPI_Wait
// instead of polling (flavour::waiting_ranks_poll).
#include <algorithm>

#include <fmt/format.h>

#include "comm/chunk_fifo.hpp"
#include "comm/exchange.hpp"
#include "comm/phase_ledger.hpp"
#include "core/flavour.hpp"
#include "core/wait.hpp"

namespace gc {

namespace {

class NsrExchange final : public Exchange {
 public:
  NsrExchange(const Comm& comm, Neighborhood nb) : Exchange(comm, std::move(nb)) {
    ledger_ = PhaseLedger(comm, neighborhood_.ranks);
    const size_t k = neighborhood_.ranks.size();
    ring_.resize(kMaxInFlight);
    queued_.resize(k);
    done_counts_.assign(k, Message{});
  }

  const char* name() const override { return "nsr"; }
  bool local_progress() const override { return true; }
  // The ring of in-flight sends and the queue of sends not yet issued.
  std::uint64_t buffer_bytes() const override {
    std::uint64_t bytes =
        ring_.size() * sizeof(Message) + requests_.capacity() * sizeof(MPI_Request);
    for (const auto& q : queued_) bytes += q.peak_bytes();
    return bytes;
  }

  std::uint64_t queued() const override { return queued_total_; }

  void push(int index, const Message& message) override {
    const size_t i = static_cast<size_t>(index);
    if (ledger_.done_sent()) fail("internal: nsr push after this rank announced DONE");
    if (ledger_.sent(i) >= neighborhood_.capacity[i])
      fail(fmt::format("internal: nsr capacity {} to rank {} exceeded", neighborhood_.capacity[i],
                       neighborhood_.ranks[i]));
    ledger_.count_sent(i);
    count(index, 1);
    if (requests_.size() - head_ >= kMaxInFlight) {
      queued_[i].push_back(message);
      ++queued_total_;
      return;
    }
    const double start = MPI_Wtime();
    if (queued_total_ == 0) {
      // No backlog: what issue() would send first is this message. Sent
      // from here, a neighbour's queue holds memory only when it backs up
      // (a chunk each, and a rank can have thousands of neighbours).
      send(i, message);
    } else {
      queued_[i].push_back(message);
      ++queued_total_;
      issue();
    }
    push_mpi_seconds_ += MPI_Wtime() - start;
  }

  void evoke() override {
    // Retire completed sends, oldest first, in chunks: sends complete roughly
    // in order, so this costs O(completed + chunk), never a scan of every
    // outstanding request (there can be millions).
    ++counters_.rounds;
    constexpr size_t kChunk = 256;
    while (head_ < requests_.size()) {
      const size_t n = std::min(kChunk, requests_.size() - head_);
      int flag = 0;
      MPI_Testall(static_cast<int>(n), requests_.data() + head_, &flag, MPI_STATUSES_IGNORE);
      if (!flag) break;
      head_ += n;
    }
    if (head_ == requests_.size()) {
      requests_.clear();
      head_ = 0;
    } else if (head_ > requests_.size() / 2) {
      requests_.erase(requests_.begin(), requests_.begin() + static_cast<std::ptrdiff_t>(head_));
      head_ = 0;
    }
    issue();
  }

  void process(const std::function<void(int, const Message&)>& handle) override {
    // What arrived early, during the previous phase, comes first.
    ledger_.replay_early(handle);
    if (arrived_) {
      arrived_ = false;
      deliver(arrived_status_, arrived_message_, handle);
    }
    while (true) {
      int flag = 0;
      MPI_Status status;
      MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, ledger_.comm(), &flag, &status);
      if (!flag) return;
      Message message;
      MPI_Recv(&message, 1, record_type<Message>(), status.MPI_SOURCE, status.MPI_TAG,
               ledger_.comm(), MPI_STATUS_IGNORE);
      deliver(status, message, handle);
    }
  }

  bool done(bool locally_settled) override {
    if (locally_settled && !ledger_.done_sent())
      ledger_.announce([&](size_t i, std::uint64_t sent) {
        // A DONE is one Message (the count first), like the data, so that
        // a receive posted for any message matches it.
        done_counts_[i] = Message{sent, 0};
        MPI_Request request;
        MPI_Isend(&done_counts_[i], 1, record_type<Message>(), neighborhood_.ranks[i],
                  ledger_.done_tag(), ledger_.comm(), &request);
        requests_.push_back(request);
      });
    if (!ledger_.done_sent() || queued_total_ > 0) return false;
    if (!ledger_.all_arrived()) {
      // Nothing left to send: only arrivals are awaited, and one is on its
      // way (flavour::waiting_ranks_poll); the next process() delivers it.
      if constexpr (!flavour::waiting_ranks_poll) {
        MPI_Request request;
        MPI_Irecv(&arrived_message_, 1, record_type<Message>(), MPI_ANY_SOURCE, MPI_ANY_TAG,
                  ledger_.comm(), &request);
        MPI_Wait(&request, &arrived_status_);
        arrived_ = true;
      }
      return false;
    }
    // Everything addressed to me arrived; wait for my own sends to complete
    // (their receivers are draining them).
    wait_all(static_cast<int>(requests_.size() - head_), requests_.data() + head_);
    requests_.clear();
    head_ = 0;
    ledger_.next_phase();
    return true;
  }

 private:
  PhaseLedger ledger_;
  std::vector<Message> done_counts_;  // what the DONE sends send
  bool arrived_ = false;              // done() received a message: it is here
  MPI_Status arrived_status_{};
  Message arrived_message_{};

  // One received message (data or a DONE count) to its place.
  void deliver(const MPI_Status& status, const Message& message,
               const std::function<void(int, const Message&)>& handle) {
    const int index = ledger_.sender_index(status, "nsr");
    const size_t i = static_cast<size_t>(index);
    const int tag = status.MPI_TAG;
    if (!PhaseLedger::is_data(tag)) {
      ledger_.record_done(i, tag, message.first);
    } else if (ledger_.is_current(tag)) {
      ledger_.count_received(i, 1);
      handle(index, message);
    } else {
      ledger_.keep_for_next_phase(index, message);
    }
  }
  std::vector<MPI_Request> requests_;
  size_t head_ = 0;  // requests_[0, head_) have completed

  // Flow control: at most kMaxInFlight Isends outstanding; the rest wait in
  // queued_ (still one MPI_Isend per message). Millions of outstanding eager
  // sends make Open MPI's progress engine, and so every probe, slow.
  static constexpr size_t kMaxInFlight = 1024;
  // Data send number n goes out from ring_[n % kMaxInFlight]. Fewer than
  // kMaxInFlight requests are outstanding when one is issued and requests
  // retire oldest first, so send n - kMaxInFlight has completed by then.
  std::vector<Message> ring_;
  std::uint64_t data_sends_ = 0;
  std::vector<ChunkFifo<Message>> queued_;  // per neighbour
  std::uint64_t queued_total_ = 0;

  void issue() {
    // Round-robin over the neighbours: none waits behind another's backlog.
    while (queued_total_ > 0 && requests_.size() - head_ < kMaxInFlight)
      for (size_t i = 0; i < queued_.size() && requests_.size() - head_ < kMaxInFlight; ++i) {
        if (queued_[i].empty()) continue;
        const Message message = queued_[i].front();
        queued_[i].pop_front();
        --queued_total_;
        send(i, message);
      }
  }

  // One MPI_Isend to neighbour i, from the ring's next slot.
  void send(size_t i, const Message& message) {
    Message& slot = ring_[data_sends_++ % kMaxInFlight];
    slot = message;
    MPI_Request request;
    MPI_Isend(&slot, 1, record_type<Message>(), neighborhood_.ranks[i], ledger_.data_tag(),
              ledger_.comm(), &request);
    requests_.push_back(request);
  }
};

}  // namespace

std::unique_ptr<Exchange> make_nsr_exchange(const Comm& comm, Neighborhood nb) {
  return Exchange::make_timed<NsrExchange>(comm, std::move(nb));
}

}  // namespace gc
