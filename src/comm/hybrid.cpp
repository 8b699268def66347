// hybrid: the MPI+OpenSHMEM design of Jose, Potluri, Tomko, Panda,
// "Designing Scalable Graph500 Benchmark with Hybrid MPI+OpenSHMEM
// Programming Models" (ISC 2013). MPI does setup and level synchronization;
// OpenSHMEM moves the data.
//
// Receive ring. Each rank owns, in the symmetric heap, a ring of fixed-size
// slots (one packet each: a header cell, up to 256 messages, a tail cell) and
// two counters: `reserved` (slots taken by senders, ever) and `consumed`
// (slots this rank has handled, ever). Its size comes from the kernel's
// declared per-phase volume (for BFS and matching, bounded by the local edge
// count), each neighbour's share at most ExchangeOptions::round_messages, and is
// capped: it does not grow with the number of ranks, unlike a buffer per
// sender or one sized for the worst phase. A sender reserves slot
// s by an atomic fetch-and-add on `reserved`; the slot is free once the
// receiver's `consumed` passed s - slots. When it is not, the packet waits in
// the sender's queue and is written by a later evoke/process/done (flow
// control: a full ring slows senders, it never fails and never blocks a rank
// that must keep receiving).
//
// Tail marker. A packet is complete when its tail cell holds its seal (count
// and phase stamp). Within a node the sender writes the slot through
// shmem_ptr with ordinary stores and then the tail with a release store, so
// the receiver may process a packet the moment its tail is there. Across
// nodes (and in tests, direct = false) the body goes by shmem_putmem, then a
// shmem_fence (the paper relies on InfiniBand's in-order delivery of one put;
// a shared-memory copy gives no such order), then the tail by an atomic set.
// The receiver handles slots in reservation order, zeroes each one it has
// handled and only then advances `consumed`, so a slot it reads is either
// zero or a complete packet of its writer's phase.
//
// Phases. Every packet carries its phase's stamp. A rank that is settled
// sends its open packets, waits until its queue has drained (processing all
// the while), completes its writes and enters MPI_Ibarrier; it keeps
// processing while the barrier is pending (the paper's level synchronization
// overlapped with receiving). Once the barrier completes every packet of the
// phase is written, and they are all ahead of any packet of the next phase in
// every ring (those are reserved only after the barrier): the phase ends at
// the first slot that does not hold a complete packet of it.
//
// Intra-node work sharing: WorkShare (comm/work_share.hpp) over symmetric
// tables that the ranks of a node read through shmem_ptr, and a claim word
// per rank that they update with atomic compare-and-swap.
#include <atomic>
#include <cstring>
#include <deque>
#include <memory>

#include <sched.h>
#include <shmem.h>

#include <fmt/format.h>

#include "comm/models.hpp"
#include "comm/neighbor_index.hpp"
#include "comm/phase_barrier.hpp"
#include "comm/work_share.hpp"
#include "core/shmem.hpp"

namespace gc {

namespace {

constexpr std::uint32_t kPacketMessages = 256;
constexpr std::uint64_t kSlotCells = 1 + kPacketMessages + 1;  // header, messages, tail
constexpr std::uint64_t kSlotBytes = kSlotCells * sizeof(Message);
constexpr std::uint64_t kMinSlots = 16, kMaxSlots = 4096;  // 66 KiB .. 16.5 MiB
constexpr std::uint64_t kControlBytes = 64;

// The control words at the head of a rank's ring block.
enum Control { kReserved = 0, kConsumed = 1, kOfferWord = 2, kOfferEnd = 3 };

static_assert(std::atomic_ref<std::uint64_t>::is_always_lock_free);
static_assert(sizeof(unsigned long) == sizeof(std::uint64_t));

std::uint64_t atomic_load(const std::uint64_t* word) {
  return std::atomic_ref<std::uint64_t>(*const_cast<std::uint64_t*>(word))
      .load(std::memory_order_acquire);
}
void atomic_store(std::uint64_t* word, std::uint64_t value) {
  std::atomic_ref<std::uint64_t>(*word).store(value, std::memory_order_release);
}

// Never 0; tells phases apart (modulo 2^24).
std::uint64_t seal_of(std::uint32_t count, std::uint64_t phase) {
  return (0xB5000000ULL | (phase & 0xFFFFFF)) << 32 | count;
}

// An offer: the phase in the high 24 bits, the next unclaimed item below.
constexpr unsigned kOfferShift = 40;
std::uint64_t offer_word(std::uint64_t phase, std::uint64_t next) {
  return (phase & 0xFFFFFF) << kOfferShift | next;
}

struct Header {
  std::uint32_t sender;
  std::uint32_t count;
  std::uint64_t unused;
};
static_assert(sizeof(Header) == sizeof(Message));

class HybridExchange final : public Exchange, public WorkShare {
 public:
  HybridExchange(const Comm& comm, Neighborhood nb, HybridOptions options)
      : Exchange(comm, std::move(nb)), me_(comm.rank()) {
    require_whole_job(comm.get(), "hybrid");
    phase_end_ = PhaseBarrier(comm);
    const size_t p = static_cast<size_t>(comm.size());
    neighbors_ = NeighborIndex(neighborhood_.ranks, comm.size());
    // A phase's volume, each neighbour's share bounded by the flow control's
    // round bound (0: none), as the packet models bound their rings.
    const std::uint64_t bound = neighborhood_.options.round_messages;
    std::uint64_t volume = 0;
    for (std::uint64_t c : neighborhood_.capacity) volume += bound > 0 ? std::min(c, bound) : c;
    slots_ = options.ring_slots;
    if (slots_ == 0)
      slots_ = std::clamp((volume + kPacketMessages - 1) / kPacketMessages, kMinSlots, kMaxSlots);
    slots_ = max_over_ranks(comm, slots_);  // symmetric allocation
    const std::uint64_t bytes = kControlBytes + slots_ * kSlotBytes;
    ensure_shmem_initialized(bytes);
    ring_ = SymmetricBlock(bytes, "hybrid");
    remote_readers_ = !options.direct;
    ring_of_.assign(p, nullptr);
    for (size_t r = 0; r < p; ++r) {
      void* there = options.direct ? shmem_ptr(ring_.data(), static_cast<int>(r)) : nullptr;
      ring_of_[r] = static_cast<std::byte*>(there);
      if (!there)
        remote_readers_ = true;
      else if (static_cast<int>(r) != me_)
        peers_.push_back(static_cast<int>(r));
    }
    open_.assign(p, nullptr);
    open_count_.assign(p, 0);
    known_consumed_.assign(p, 0);
    oversubscribed_ = node_oversubscribed(comm);
  }

  const char* name() const override { return "hybrid"; }
  // The messages of the packets waiting for a free slot in their ring.
  std::uint64_t queued() const override { return waiting_messages_; }
  bool local_progress() const override { return true; }
  WorkShare* node_work_share() override { return this; }

  std::uint64_t buffer_bytes() const override {
    std::uint64_t tables = 0;
    for (const SymmetricBlock& t : tables_) tables += t.size();
    return ring_.size() + tables + staging_.size() * kSlotBytes;
  }

  void push(int index, const Message& message) override {
    enqueue(neighborhood_.ranks[static_cast<size_t>(index)], message);
  }

  void push_to_rank(int rank, const Message& message) override {
    if (rank == me_ || rank < 0 || rank >= comm_.size())
      fail(fmt::format("internal: hybrid: push_to_rank({}) on rank {}", rank, me_));
    enqueue(rank, message);
  }

  void evoke() override {
    send_open_packets();
    write_waiting();
    if (moved_) ++counters_.rounds;
    moved_ = false;
  }

  void process(const std::function<void(int, const Message&)>& handle) override {
    if (!waiting_.empty()) write_waiting();
    if (consume(handle) == 0 && oversubscribed_) sched_yield();
  }

  bool done(bool locally_settled) override {
    if (!phase_end_.done(locally_settled, *this)) return false;
    ++phase_;
    return true;
  }

  // WorkShare.
  const std::vector<int>& peers() const override { return peers_; }

  int add_table(std::uint64_t bytes) override {
    tables_.emplace_back(max_over_ranks(comm_, bytes), "hybrid work-share table");
    return static_cast<int>(tables_.size() - 1);
  }
  std::byte* table(int handle) override { return tables_.at(static_cast<size_t>(handle)).data(); }
  const std::byte* peer_table(int handle, int rank) const override {
    const std::byte* mine = tables_.at(static_cast<size_t>(handle)).data();
    if (rank == me_) return mine;
    const void* there = shmem_ptr(mine, rank);
    if (!there) fail(fmt::format("internal: hybrid: rank {} is not a node peer of {}", rank, me_));
    return static_cast<const std::byte*>(there);
  }

  void offer(std::uint64_t count) override {
    if (count >= std::uint64_t{1} << kOfferShift)
      fail(fmt::format("internal: hybrid: offer of {} items", count));
    std::uint64_t* control = control_of(me_);
    atomic_store(control + kOfferEnd, count);
    atomic_store(control + kOfferWord, offer_word(phase_, 0));
  }

  std::optional<std::pair<std::uint64_t, std::uint64_t>> claim(int rank,
                                                               std::uint64_t chunk) override {
    std::uint64_t* control = control_of(rank);
    std::atomic_ref<std::uint64_t> word(control[kOfferWord]);
    std::uint64_t seen = word.load(std::memory_order_acquire);
    while (true) {
      if (seen >> kOfferShift != (phase_ & 0xFFFFFF)) return std::nullopt;
      const std::uint64_t next = seen & ((std::uint64_t{1} << kOfferShift) - 1);
      const std::uint64_t end = atomic_load(control + kOfferEnd);
      if (next >= end) return std::nullopt;
      const std::uint64_t stop = std::min(end, next + chunk);
      if (word.compare_exchange_weak(seen, offer_word(phase_, stop), std::memory_order_acq_rel)) {
        if (rank != me_) taken_ += stop - next;
        return std::pair{next, stop};
      }
    }
  }

  std::uint64_t items_taken() const override { return taken_; }

 private:
  struct Waiting {
    int rank;
    std::uint64_t slot;
    Message* packet;
    std::uint32_t count;  // its messages
    bool waited = false;  // found its slot taken once (counted in flow_waits)
  };

  std::uint64_t* control_of(int rank) const {
    std::byte* base = rank == me_ ? ring_.data() : ring_of_[static_cast<size_t>(rank)];
    if (!base) fail(fmt::format("internal: hybrid: rank {} is not a node peer of {}", rank, me_));
    return reinterpret_cast<std::uint64_t*>(base);
  }
  Message* slot_at(std::uint64_t slot) const {
    return reinterpret_cast<Message*>(ring_.data() + kControlBytes + (slot % slots_) * kSlotBytes);
  }

  // The messages of a complete packet of this phase at `at`, else 0.
  std::uint32_t complete_count(const Message* at) const {
    const std::uint64_t seal = atomic_load(&at[kSlotCells - 1].first);
    const auto count = static_cast<std::uint32_t>(seal);
    if (count == 0 || count > kPacketMessages || seal != seal_of(count, phase_)) return 0;
    return count;
  }

  // Hands every complete packet at the head of the ring to `handle`.
  std::uint64_t consume(const std::function<void(int, const Message&)>& handle) {
    std::uint64_t handled = 0;
    while (true) {
      Message* at = slot_at(consumed_);
      const std::uint32_t count = complete_count(at);
      if (count == 0) break;
      Header header;
      std::memcpy(&header, at, sizeof header);
      if (header.count != count || header.sender >= neighbors_.size())
        fail(fmt::format("internal: hybrid: corrupt packet in slot {} of rank {}", consumed_, me_));
      // kFromOutsideNeighborhood: the sender pushed through node work sharing.
      const int from = neighbors_.of(header.sender);
      for (std::uint32_t k = 0; k < count; ++k) handle(from, at[1 + k]);
      // Zero before advancing `consumed`: a writer reuses the slot only after.
      std::memset(static_cast<void*>(at), 0, (1 + count) * sizeof(Message));
      atomic_store(&at[kSlotCells - 1].first, 0);
      ++consumed_;
      std::uint64_t* mine = control_of(me_) + kConsumed;
      if (remote_readers_)
        shmem_ulong_atomic_set(reinterpret_cast<unsigned long*>(mine), consumed_, me_);
      else
        atomic_store(mine, consumed_);
      ++handled;
    }
    return handled;
  }

  void enqueue(int rank, const Message& message) {
    if (!phase_end_.active()) fail("internal: hybrid push after this rank settled");
    const size_t r = static_cast<size_t>(rank);
    Message*& packet = open_[r];
    if (!packet) {
      packet = take_staging();
      open_ranks_.push_back(rank);
    }
    packet[1 + open_count_[r]++] = message;
    if (open_count_[r] == kPacketMessages) {
      const double start = MPI_Wtime();
      send(rank);
      write_waiting();
      push_mpi_seconds_ += MPI_Wtime() - start;
    }
  }

  Message* take_staging() {
    if (free_.empty()) {
      staging_.push_back(std::make_unique<Message[]>(kSlotCells));
      return staging_.back().get();
    }
    Message* slot = free_.back();
    free_.pop_back();
    return slot;
  }

  void send_open_packets() {
    for (int rank : open_ranks_)
      if (open_[static_cast<size_t>(rank)]) send(rank);
    open_ranks_.clear();
  }

  // Seals `rank`'s open packet, reserves its slot and queues it.
  void send(int rank) {
    const size_t r = static_cast<size_t>(rank);
    Message* packet = open_[r];
    const std::uint32_t count = open_count_[r];
    const Header header{static_cast<std::uint32_t>(me_), count, 0};
    std::memcpy(static_cast<void*>(packet), &header, sizeof header);
    packet[kSlotCells - 1] = Message{seal_of(count, phase_), 0};
    const std::uint64_t slot = shmem_ulong_atomic_fetch_add(
        reinterpret_cast<unsigned long*>(ring_.data()) + kReserved, 1, rank);
    waiting_.push_back({rank, slot, packet, count});
    waiting_messages_ += count;
    counters_.messages_to[r] += count;
    counters_.bytes_to[r] += count * sizeof(Message);
    open_[r] = nullptr;
    open_count_[r] = 0;
    moved_ = true;
  }

  // The steps of the phase end (phase_barrier.hpp).
  friend class gc::PhaseBarrier;  // not a class of this anonymous namespace
  // Writes every waiting packet whose slot is free; true once none waits.
  bool write_waiting() {
    for (auto it = waiting_.begin(); it != waiting_.end();) {
      if (room(it->rank, it->slot)) {
        write(*it);
        free_.push_back(it->packet);
        waiting_messages_ -= it->count;
        it = waiting_.erase(it);
      } else {
        if (!it->waited) ++counters_.flow_waits;
        it->waited = true;
        ++it;
      }
    }
    return waiting_.empty();
  }
  // Only puts need completing, and they go only to ranks out of shmem_ptr's reach.
  void complete_writes() {
    if (remote_readers_) shmem_quiet();
  }
  // Every packet of this phase is written; any left must be processed first.
  bool drained() const { return complete_count(slot_at(consumed_)) == 0; }

  bool room(int rank, std::uint64_t slot) {
    std::uint64_t& known = known_consumed_[static_cast<size_t>(rank)];
    if (slot < known + slots_) return true;
    std::byte* there = ring_of_[static_cast<size_t>(rank)];
    if (there)
      known = atomic_load(reinterpret_cast<std::uint64_t*>(there) + kConsumed);
    else
      known = shmem_ulong_atomic_fetch(reinterpret_cast<unsigned long*>(ring_.data()) + kConsumed,
                                       rank);
    return slot < known + slots_;
  }

  void write(const Waiting& w) {
    const std::uint64_t seal = w.packet[kSlotCells - 1].first;
    const std::uint64_t offset = kControlBytes + (w.slot % slots_) * kSlotBytes;
    const std::uint64_t body = (1 + static_cast<std::uint32_t>(seal)) * sizeof(Message);
    const std::uint64_t tail_offset = offset + (kSlotCells - 1) * sizeof(Message);
    if (std::byte* there = ring_of_[static_cast<size_t>(w.rank)]) {
      std::memcpy(there + offset, w.packet, body);
      atomic_store(reinterpret_cast<std::uint64_t*>(there + tail_offset), seal);
    } else {
      shmem_putmem(ring_.data() + offset, w.packet, body, w.rank);
      shmem_fence();
      shmem_ulong_atomic_set(reinterpret_cast<unsigned long*>(ring_.data() + tail_offset), seal,
                             w.rank);
    }
  }

  int me_;
  NeighborIndex neighbors_;
  std::uint64_t slots_ = 0;
  SymmetricBlock ring_;
  std::vector<std::byte*> ring_of_;  // per rank: its ring through shmem_ptr, or null
  bool remote_readers_ = false;      // some rank reads `consumed` by OpenSHMEM atomics
  std::vector<int> peers_;
  std::vector<SymmetricBlock> tables_;
  std::uint64_t taken_ = 0;

  std::vector<Message*> open_;  // per rank: the packet being filled, or null
  std::vector<std::uint32_t> open_count_;
  std::vector<int> open_ranks_;  // ranks with an open packet
  std::vector<std::unique_ptr<Message[]>> staging_;
  std::vector<Message*> free_;
  std::deque<Waiting> waiting_;         // reserved, not yet written (ring full)
  std::uint64_t waiting_messages_ = 0;  // theirs
  std::vector<std::uint64_t> known_consumed_;
  bool oversubscribed_ = false;
  bool moved_ = false;

  std::uint64_t phase_ = 0;
  PhaseBarrier phase_end_;  // the paper's level synchronization
  std::uint64_t consumed_ = 0;
};

}  // namespace

std::unique_ptr<Exchange> make_hybrid_exchange(const Comm& comm, Neighborhood nb,
                                               HybridOptions options) {
  return Exchange::make_timed<HybridExchange>(comm, std::move(nb), options);
}

}  // namespace gc
