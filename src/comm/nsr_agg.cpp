// nsr-agg: coalesced nonblocking Send-Recv, the design of the Graph500
// reference code's `mpi_simple` BFS (graph500.org reference 2.1.4,
// mpi/bfs_simple.c): pushes go into a per-destination coalescing buffer of
// kPacket messages, sent (MPI_Issend, at most kMaxInFlight at a time) when
// full or when it stopped growing; receives are kept posted (MPI_Irecv from
// any source) and polled in the order they were posted. Termination per phase
// as in nsr (phase_ledger.hpp): a settled rank flushes its buffers and tells
// every neighbour how many messages it sent (DONE); packets of the next phase
// that arrive early are kept for it. Under SMPI, whose MPI_Test keeps what it
// completes (core/flavour.hpp), packets are sent by MPI_Isend and received as
// MPI_Iprobe finds them, by MPI_Recv.
#include <algorithm>
#include <deque>

#include "comm/exchange.hpp"
#include "comm/phase_ledger.hpp"
#include "core/flavour.hpp"

namespace gc {

namespace {

constexpr size_t kPacket = 256;     // messages per packet (4 KiB)
constexpr int kPostedReceives = 8;  // receives kept posted
// Flow control: data packets go out by MPI_Issend, at most this many in
// flight; the rest wait in order (memory of ours, bounded by what the kernel
// pushed). A plain Isend of a 4 KiB packet completes at once (eager) and the
// receiver's MPI keeps what it has not matched yet, however much that is. Few
// in flight are enough on shared memory, and fewer cost less: each issue()
// tests every send in flight.
constexpr size_t kMaxInFlight = 4;
// Receives kept posted and completed by MPI_Test; else received when probed.
constexpr bool kPostsReceives = flavour::library_forgets_tested_requests;
// A synchronous send is the flow control above; under SMPI a plain MPI_Isend
// below the eager threshold is detached: no communication for MPI_Test to keep.
constexpr auto kSendPacket = kPostsReceives ? &MPI_Issend : &MPI_Isend;

class NsrAggExchange final : public Exchange {
 public:
  NsrAggExchange(const Comm& comm, Neighborhood nb) : Exchange(comm, std::move(nb)) {
    ledger_ = PhaseLedger(comm, neighborhood_.ranks);
    const size_t k = neighborhood_.ranks.size();
    open_.assign(k, kNone);
    size_at_evoke_.assign(k, 0);
    done_counts_.assign(k, Message{0, 0});
    // A packet for every neighbour this rank may send to, made (and its pages
    // touched) here, in the timed setup: made on first push, inside the
    // phase, they cost a rank with many neighbours more than a small phase's
    // own work (bench/README.md, "nsr-agg's packets made at setup"). More
    // come only when full packets wait to be sent.
    for (size_t i = 0; i < k; ++i)
      if (neighborhood_.capacity[i] > 0) {
        packets_.emplace_back();
        free_.push_back(packets_.size() - 1);
      }
    receive_buffers_.resize((kPostsReceives ? kPostedReceives : 1) * kPacket);
    if constexpr (kPostsReceives) {
      receive_requests_.assign(kPostedReceives, MPI_REQUEST_NULL);
      if (k > 0)
        for (int r = 0; r < kPostedReceives; ++r) post_receive(r);
    }
  }

  ~NsrAggExchange() override {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized) return;
    // Completed by MPI_Wait, not freed: SMPI 3.32 leaves a cancelled and
    // freed receive in the rank's mailbox, where every later message of the
    // simulation walks past it (docs/simulation.md).
    for (MPI_Request& r : receive_requests_)
      if (r != MPI_REQUEST_NULL) {
        MPI_Cancel(&r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
      }
    for (InFlight& f : in_flight_) MPI_Request_free(&f.request);
  }

  const char* name() const override { return "nsr-agg"; }
  bool local_progress() const override { return true; }
  std::uint64_t buffer_bytes() const override {
    return (packets_.size() * kPacket + receive_buffers_.size()) * sizeof(Message);
  }
  // The messages of the packets waiting for a send slot.
  std::uint64_t queued() const override { return waiting_messages_; }

  void push(int index, const Message& message) override {
    const size_t i = static_cast<size_t>(index);
    if (ledger_.done_sent()) fail("internal: nsr-agg push after this rank announced DONE");
    if (open_[i] == kNone) open_[i] = take_packet();
    Packet& p = packets_[open_[i]];
    p.data[p.size++] = message;
    ledger_.count_sent(i);
    count(index, 1);
    if (p.size == kPacket) {
      const double start = MPI_Wtime();
      send_packet(i);
      push_mpi_seconds_ += MPI_Wtime() - start;
    }
  }

  // A partial packet is sent once it stopped growing: when it is as it was at
  // the previous evoke. A rank that keeps pushing keeps aggregating; one that
  // waits for answers does not hold back what they depend on.
  void evoke() override {
    ++counters_.rounds;
    for (size_t i = 0; i < open_.size(); ++i) {
      if (open_[i] == kNone) continue;
      if (packets_[open_[i]].size == size_at_evoke_[i])
        send_packet(i);
      else
        size_at_evoke_[i] = packets_[open_[i]].size;
    }
    issue();
  }

  void process(const std::function<void(int, const Message&)>& handle) override {
    ledger_.replay_early(handle);
    if (neighborhood_.ranks.empty()) return;
    // Receives are matched in the order they were posted, so handling them
    // from the oldest posted keeps every sender's messages in push order
    // (kernels rely on it, as on MPI's non-overtaking rule).
    while (true) {
      int flag = arrived_ ? 1 : 0;
      MPI_Status status = arrived_status_;
      if (!arrived_) {
        if constexpr (kPostsReceives)
          MPI_Test(&receive_requests_[oldest_], &flag, &status);
        else
          receive_probed(flag, status);
      }
      arrived_ = false;
      if (!flag) return;
      const int r = oldest_;
      if constexpr (kPostsReceives) oldest_ = (oldest_ + 1) % kPostedReceives;
      deliver(r, status, handle);
    }
  }

  bool done(bool locally_settled) override {
    if (locally_settled && !ledger_.done_sent()) {
      for (size_t i = 0; i < open_.size(); ++i)
        if (open_[i] != kNone) send_packet(i);
      ledger_.announce([&](size_t i, std::uint64_t sent) {
        // A DONE is one Message (the count first) so that every receive
        // matches the posted Message-typed buffers.
        done_counts_[i] = Message{sent, 0};
        MPI_Request request;
        MPI_Isend(&done_counts_[i], 1, record_type<Message>(), neighborhood_.ranks[i],
                  ledger_.done_tag(), ledger_.comm(), &request);
        in_flight_.push_back({request, kNone});
      });
    }
    if (!ledger_.done_sent()) return false;
    issue();
    if (!waiting_.empty()) return false;
    if (!ledger_.all_arrived()) {
      // Nothing left to send: only arrivals are awaited, and one is on its
      // way; the next process() delivers it.
      if constexpr (!flavour::waiting_ranks_poll) {
        if constexpr (kPostsReceives)
          MPI_Wait(&receive_requests_[oldest_], &arrived_status_);
        else
          receive(MPI_ANY_SOURCE, MPI_ANY_TAG, arrived_status_);
        arrived_ = true;
      }
      return false;
    }
    // Everything addressed to me arrived; my own sends are being drained.
    for (InFlight& f : in_flight_) {
      MPI_Wait(&f.request, MPI_STATUS_IGNORE);
      if (f.packet != kNone) free_.push_back(f.packet);
    }
    in_flight_.clear();
    data_in_flight_ = 0;
    ledger_.next_phase();
    return true;
  }

 private:
  static constexpr size_t kNone = ~size_t{0};
  struct Packet {
    std::vector<Message> data = std::vector<Message>(kPacket);
    size_t size = 0;
  };
  struct InFlight {
    MPI_Request request;
    size_t packet;  // kNone for a DONE count
  };

  size_t take_packet() {
    if (free_.empty()) {
      packets_.emplace_back();
      return packets_.size() - 1;
    }
    const size_t p = free_.back();
    free_.pop_back();
    packets_[p].size = 0;
    return p;
  }

  void send_packet(size_t i) {
    const size_t p = open_[i];
    open_[i] = kNone;
    size_at_evoke_[i] = 0;
    waiting_.push_back({i, p});
    waiting_messages_ += packets_[p].size;
    issue();
  }

  // Returns the buffers of completed sends to the free list, then issues
  // waiting packets while fewer than kMaxInFlight are in flight.
  void issue() {
    size_t kept = 0;
    for (size_t f = 0; f < in_flight_.size(); ++f) {
      int flag = 0;
      MPI_Test(&in_flight_[f].request, &flag, MPI_STATUS_IGNORE);
      if (!flag) {
        in_flight_[kept++] = in_flight_[f];
      } else if (in_flight_[f].packet != kNone) {
        free_.push_back(in_flight_[f].packet);
        --data_in_flight_;
      }
    }
    in_flight_.resize(kept);
    while (!waiting_.empty() && data_in_flight_ < kMaxInFlight) {
      const auto [i, p] = waiting_.front();
      waiting_.pop_front();
      waiting_messages_ -= packets_[p].size;
      MPI_Request request;
      const int count = checked_count(packets_[p].size, "nsr-agg packet");
      kSendPacket(packets_[p].data.data(), count, record_type<Message>(), neighborhood_.ranks[i],
                  ledger_.data_tag(), ledger_.comm(), &request);
      in_flight_.push_back({request, p});
      ++data_in_flight_;
    }
  }

  // The next message, if one is there (into the one receive buffer).
  void receive_probed(int& flag, MPI_Status& status) {
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, ledger_.comm(), &flag, &status);
    if (flag) receive(status.MPI_SOURCE, status.MPI_TAG, status);
  }

  // One packet or DONE into the one receive buffer (receives not posted).
  void receive(int source, int tag, MPI_Status& status) {
    MPI_Recv(receive_buffers_.data(), static_cast<int>(kPacket), record_type<Message>(), source,
             tag, ledger_.comm(), &status);
  }

  void post_receive(int r) {
    if constexpr (!kPostsReceives) return;
    MPI_Irecv(receive_buffers_.data() + static_cast<size_t>(r) * kPacket, static_cast<int>(kPacket),
              record_type<Message>(), MPI_ANY_SOURCE, MPI_ANY_TAG, ledger_.comm(),
              &receive_requests_[static_cast<size_t>(r)]);
  }

  void deliver(int r, const MPI_Status& status,
               const std::function<void(int, const Message&)>& handle) {
    const int index = ledger_.sender_index(status, "nsr-agg");
    const size_t i = static_cast<size_t>(index);
    const Message* data = receive_buffers_.data() + static_cast<size_t>(r) * kPacket;
    const int tag = status.MPI_TAG;
    if (!PhaseLedger::is_data(tag)) {
      ledger_.record_done(i, tag, data->first);
      post_receive(r);
      return;
    }
    int count = 0;
    MPI_Get_count(&status, record_type<Message>(), &count);
    // Copy out before reposting: the handler may push, and pushes may progress MPI.
    incoming_.assign(data, data + count);
    post_receive(r);
    if (ledger_.is_current(tag)) {
      ledger_.count_received(i, static_cast<std::uint64_t>(count));
      for (const Message& m : incoming_) handle(index, m);
    } else {
      for (const Message& m : incoming_) ledger_.keep_for_next_phase(index, m);
    }
  }

  PhaseLedger ledger_;
  std::vector<Packet> packets_;
  std::vector<size_t> free_, open_;    // free packets; the open packet per neighbour
  std::vector<size_t> size_at_evoke_;  // the open packet's size at the last evoke
  std::vector<InFlight> in_flight_;
  struct Waiting {
    size_t index, packet;
  };
  std::deque<Waiting> waiting_;         // full packets not yet sent, in push order
  std::uint64_t waiting_messages_ = 0;  // theirs
  size_t data_in_flight_ = 0;
  std::vector<Message> receive_buffers_, incoming_;
  std::vector<MPI_Request> receive_requests_;
  int oldest_ = 0;        // the posted receive that matches the next message
  bool arrived_ = false;  // done() waited for that receive: its status is here
  MPI_Status arrived_status_{};
  std::vector<Message> done_counts_;  // what the DONE sends send
};

}  // namespace

std::unique_ptr<Exchange> make_nsr_agg_exchange(const Comm& comm, Neighborhood nb) {
  return Exchange::make_timed<NsrAggExchange>(comm, std::move(nb));
}

}  // namespace gc
