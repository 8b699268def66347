// Shared machinery of the Concurrent-Fence and Concurrent-Hash models of
// Boothe & George, "Evaluating One-Sided Communication on Graph500 with
// MPI-RMA and OpenSHMEM": rma-fence, rma-hash (MPI-3 RMA) and shmem-fence,
// shmem-hash (OpenSHMEM). Each model file holds only its transport: how it
// reserves room, writes a packet and reads its counter.
//
// Each rank owns a receive buffer in remotely writable memory (an MPI window
// or the symmetric heap) and a reservation counter. push() appends a message
// to the destination's coalescing packet; a full packet, and at evoke() every
// partial one, is sent: the sender reserves room in the destination's buffer
// by an atomic fetch-and-add on its counter, then writes the packet there.
// process() walks the buffer in reservation order from its read position and
// stops at the first packet not yet complete; the kernel calls it again later.
//
// Packet: a 16-byte header, then 1..kPacketMessages messages of 16 bytes.
//   seal    u64  count (low 32 bits) | stamp (high 32 bits)
//   sender  u32  the sender's rank
//   check   u32  hash: CRC-32 of seal, sender and messages; fence: 0
// Fence writes sender, check and messages, then an ordering point
// (MPI_Win_flush: their remote completion; shmem_fence: delivery in order),
// then the seal in one atomic 8-byte write: a packet is complete once its seal
// is there (read with an atomic load). Hash writes the whole packet in one
// put: a packet is complete once its CRC matches what arrived (a packet read
// while still landing passes only by a 2^-32 chance: the method's own risk).
// 256 messages (4 KiB of payload) a packet: one reservation per 256 messages
// when packets fill, while the coalescing slots of a rank with thousands of
// neighbours stay a few MiB.
//
// Buffers hold zeros wherever nothing was written in their current use: they
// start zeroed and the receiver zeroes every packet it consumed. So zeroed or
// stale memory never validates (the stamp is never 0 and carries the phase),
// and neither does a seal with a zero count.
//
// Sizing: capacity[i] bounds what neighbour i is sent in one phase. A packet
// holds at least one message, so a phase's packets from a neighbour with
// capacity c take at most c * (16 + 16) bytes: the buffer, the sum of that over
// the neighbours who send to this rank, can never overflow within a phase.
//
// Phases and termination. There are two buffers and two counters, used by
// phase parity. A rank that is settled (it will push nothing more in this
// phase) sends its partial packets, completes all its writes (flush_all,
// quiet) and enters MPI_Ibarrier; it keeps processing while the barrier is
// pending. Once the barrier completes, every rank has completed every write of
// this phase, so every packet in this rank's buffer is complete: process()
// consumes the rest, and done() returns true once the read position reaches
// the (now final) counter. The rank then resets this parity's counter and
// read position for phase k+2. A fast rank may already write phase k+1
// packets, into the other parity's buffer, which was reset at the end of phase
// k-1; nobody writes phase k+2 packets before every rank entered phase k+1's
// barrier, that is, after every rank finished phase k and reset its counter.
#pragma once

#include <atomic>
#include <cstring>
#include <exception>
#include <span>

#include <sched.h>

#include <fmt/format.h>
#include <zlib.h>

#include "comm/exchange.hpp"
#include "comm/phase_barrier.hpp"
#include "core/shmem.hpp"

#if GRAPHCOMM_HAVE_OPENSHMEM
#include <shmem.h>
#endif

namespace gc {

namespace packets {

inline constexpr std::uint32_t kPacketMessages = 256;
inline constexpr std::uint64_t kHeaderBytes = 16;
inline constexpr std::uint64_t kPacketCells = 1 + kPacketMessages;  // header + messages
// What a phase may need in a receive buffer per message of capacity.
inline constexpr std::uint64_t kBytesPerCapacity = kHeaderBytes + sizeof(Message);

struct Header {
  std::uint64_t seal;
  std::uint32_t sender;
  std::uint32_t check;
};
static_assert(sizeof(Header) == kHeaderBytes && sizeof(Message) == kHeaderBytes);

// Never 0; tells phases apart (modulo 2^24).
inline std::uint32_t stamp_of(std::uint64_t phase) {
  return 0xA5000000u | static_cast<std::uint32_t>(phase & 0xFFFFFF);
}
inline std::uint64_t seal_of(std::uint32_t count, std::uint32_t stamp) {
  return static_cast<std::uint64_t>(stamp) << 32 | count;
}
// CRC-32 of seal, sender and the messages of the packet at `p`.
inline std::uint32_t crc_of(const std::byte* p, std::uint32_t count) {
  uLong crc = crc32(0L, Z_NULL, 0);
  crc = crc32(crc, reinterpret_cast<const Bytef*>(p), 12);
  crc = crc32(crc, reinterpret_cast<const Bytef*>(p + kHeaderBytes),
              static_cast<uInt>(count * sizeof(Message)));
  return static_cast<std::uint32_t>(crc);
}

enum class Seal { fence, hash };

// One packet ready to go: to neighbour `index`, `bytes` bytes at `data`.
struct Outgoing {
  int index;
  std::byte* data;
  std::uint64_t bytes;
};

// A reservation beyond the destination's buffer breaks the sizing argument:
// the kernel pushed more than the capacity it declared (push() checks that),
// or the sizing is wrong. Never silently overwrite.
inline void check_room(const Outgoing& packet, std::uint64_t offset, std::uint64_t buffer_bytes,
                       int rank) {
  if (offset + packet.bytes > buffer_bytes)
    fail(fmt::format("internal: receive buffer of rank {} overflows ({} + {} > {} bytes)", rank,
                     offset, packet.bytes, buffer_bytes));
}

}  // namespace packets

class PacketExchange : public Exchange {
 public:
  void push(int index, const Message& message) override {
    const size_t i = static_cast<size_t>(index);
    if (state_ != State::active)
      fail(fmt::format("internal: {} push after this rank settled", name()));
    if (sent_[i] >= neighborhood_.capacity[i])
      fail(fmt::format("internal: {} capacity {} to rank {} exceeded", name(),
                       neighborhood_.capacity[i], neighborhood_.ranks[i]));
    ++sent_[i];
    Message*& packet = open_[i];
    if (!packet) packet = take_slot();
    packet[1 + open_count_[i]++] = message;
    if (open_count_[i] == packets::kPacketMessages) {
      const double start = MPI_Wtime();
      const int one[1] = {index};
      send(one);
      push_mpi_seconds_ += MPI_Wtime() - start;
    }
  }

  // evoke() and process() only write and read remote memory: no collective.
  bool local_progress() const override { return true; }

  void evoke() override {
    send_partial_packets();
    if (issued_) complete_all();
    if (moved_) ++counters_.rounds;
    moved_ = false;
  }

  void process(const std::function<void(int, const Message&)>& handle) override {
    const std::uint64_t start = read_;
    consume(handle);
    // An idle poll gives the core away when ranks outnumber cores: the rank
    // this one waits for may be waiting for the core (Open MPI's own progress
    // loop yields when oversubscribed; OpenSHMEM's calls never do).
    if (read_ == start && oversubscribed_) sched_yield();
  }

  bool done(bool locally_settled) override {
    if (state_ == State::active) {
      if (!locally_settled) return false;
      send_partial_packets();
      if (issued_) complete_all();
      barrier_.enter();
      state_ = State::closing;
    }
    if (state_ == State::closing) {
      if (!barrier_.completed()) return false;
      state_ = State::draining;
    }
    // Every write of this phase is complete: the counter is final and every
    // packet below it is complete; the next process() takes what is left.
    sync_incoming();
    if (read_ < reserved_bytes(parity())) return false;
    reset_counter(parity());
    read_ = 0;
    std::fill(sent_.begin(), sent_.end(), 0);
    ++phase_;
    state_ = State::active;
    return true;
  }

  std::uint64_t buffer_bytes() const override {
    return remote_bytes_ + slots_.size() * sizeof(Message);
  }

 protected:
  PacketExchange(const Comm& comm, Neighborhood nb, packets::Seal seal)
      : Exchange(comm, std::move(nb)), seal_(seal) {
    const double start = MPI_Wtime();
    barrier_ = PhaseBarrier(comm);
    topology_ = comm.dist_graph_adjacent(neighborhood_.ranks);
    const size_t k = neighborhood_.ranks.size();
    index_of_rank_.assign(static_cast<size_t>(comm.size()), -1);
    for (size_t i = 0; i < k; ++i)
      index_of_rank_[static_cast<size_t>(neighborhood_.ranks[i])] = static_cast<int>(i);
    // What the neighbours may send me in one phase.
    std::vector<std::uint64_t> incoming(k);
    std::uint64_t dummy = 0;
    MPI_Neighbor_alltoall(k ? neighborhood_.capacity.data() : &dummy, 1, MPI_UINT64_T,
                          k ? incoming.data() : &dummy, 1, MPI_UINT64_T, topology_.get());
    for (std::uint64_t c : incoming) phase_bytes_ += c * packets::kBytesPerCapacity;
    // A slot per neighbour for its open packet, and spares for packets in
    // flight (their memory is the source of a pending write until completed).
    const size_t slot_count = k + kSpareSlots;
    slots_.resize(slot_count * packets::kPacketCells);
    for (size_t s = slot_count; s-- > 0;)
      free_.push_back(slots_.data() + s * packets::kPacketCells);
    open_.assign(k, nullptr);
    open_count_.assign(k, 0);
    sent_.assign(k, 0);
    oversubscribed_ = node_oversubscribed(comm);
    setup_seconds_ = MPI_Wtime() - start;
  }

  // Bytes of one receive buffer (one parity): what a phase can need.
  std::uint64_t phase_bytes() const { return phase_bytes_; }
  int parity() const { return static_cast<int>(phase_ & 1); }
  packets::Seal seal() const { return seal_; }
  const Comm& topology() const { return topology_; }
  // The transport's remotely accessible memory, for buffer_bytes().
  void set_remote_bytes(std::uint64_t bytes) { remote_bytes_ = bytes; }

  // The transport. write_packets: reserve room for each packet in its
  // destination's buffer of this parity and write it (the model's sequence);
  // at most one packet per destination. complete_writes: every write issued so
  // far is complete at its target and its source memory free.
  virtual void write_packets(std::span<const packets::Outgoing> batch) = 0;
  virtual void complete_writes() = 0;
  // This rank's counter of `parity` (an atomic read), its reset (nobody
  // reserves in it meanwhile), and its receive buffer.
  virtual std::uint64_t reserved_bytes(int parity) = 0;
  virtual void reset_counter(int parity) = 0;
  virtual std::byte* receive_buffer(int parity) = 0;
  // Makes remote writes to this rank's memory visible to its loads.
  virtual void sync_incoming() = 0;

 private:
  enum class State { active, closing, draining };
  static constexpr size_t kSpareSlots = 32;

  // The messages of the packet at `at` when it is complete, else 0; `room`:
  // bytes reserved from `at` on.
  std::uint32_t complete_count(std::byte* at, std::uint64_t room, std::uint32_t stamp) const {
    const std::uint64_t seal = std::atomic_ref<std::uint64_t>(*reinterpret_cast<std::uint64_t*>(at))
                                   .load(std::memory_order_acquire);
    const auto count = static_cast<std::uint32_t>(seal);
    if (seal >> 32 != stamp || count == 0 || count > packets::kPacketMessages ||
        packets::kHeaderBytes + count * sizeof(Message) > room)
      return 0;
    if (seal_ == packets::Seal::hash) {
      std::uint32_t check;
      std::memcpy(&check, at + 12, sizeof check);
      if (packets::crc_of(at, count) != check) return 0;
    }
    return count;
  }

  // Hands every complete packet, in reservation order from the read
  // position, to `handle`; stops at the first incomplete one.
  void consume(const std::function<void(int, const Message&)>& handle) {
    sync_incoming();
    const std::uint64_t reserved = reserved_bytes(parity());
    std::byte* buffer = receive_buffer(parity());
    const std::uint32_t stamp = packets::stamp_of(phase_);
    while (read_ < reserved) {
      std::byte* at = buffer + read_;
      const std::uint32_t count = complete_count(at, reserved - read_, stamp);
      if (count == 0) {
        if (state_ == State::draining)
          fail(
              fmt::format("internal: {}: incomplete packet at byte {} after every rank completed "
                          "its writes",
                          name(), read_));
        return;
      }
      packets::Header header;
      std::memcpy(&header, at, sizeof header);
      const int from = header.sender < index_of_rank_.size() ? index_of_rank_[header.sender] : -1;
      if (from < 0)
        fail(fmt::format("internal: {}: packet from non-neighbour rank {}", name(), header.sender));
      const std::uint64_t bytes = packets::kHeaderBytes + count * sizeof(Message);
      read_ += bytes;
      for (std::uint32_t k = 0; k < count; ++k) {
        Message m;
        std::memcpy(&m, at + packets::kHeaderBytes + k * sizeof(Message), sizeof m);
        handle(from, m);
      }
      std::memset(at, 0, bytes);  // keeps the buffer zero where unwritten
    }
  }

  Message* take_slot() {
    if (free_.empty()) complete_all();
    Message* slot = free_.back();
    free_.pop_back();
    return slot;
  }

  void complete_all() {
    complete_writes();
    free_.insert(free_.end(), in_flight_.begin(), in_flight_.end());
    in_flight_.clear();
    issued_ = false;
  }

  void send_partial_packets() {
    partial_.clear();
    for (size_t i = 0; i < open_.size(); ++i)
      if (open_count_[i] > 0) partial_.push_back(static_cast<int>(i));
    if (!partial_.empty()) send(partial_);
  }

  // Seals the open packets of `indices` and hands them to the transport.
  void send(std::span<const int> indices) {
    outgoing_.clear();
    const std::uint32_t stamp = packets::stamp_of(phase_);
    for (int index : indices) {
      const size_t i = static_cast<size_t>(index);
      const std::uint32_t n = open_count_[i];
      std::byte* data = reinterpret_cast<std::byte*>(open_[i]);
      const packets::Header header{packets::seal_of(n, stamp),
                                   static_cast<std::uint32_t>(comm_.rank()), 0};
      std::memcpy(data, &header, sizeof header);
      if (seal_ == packets::Seal::hash) {
        const std::uint32_t check = packets::crc_of(data, n);
        std::memcpy(data + 12, &check, sizeof check);
      }
      outgoing_.push_back({index, data, packets::kHeaderBytes + n * sizeof(Message)});
      count(index, n);
      in_flight_.push_back(open_[i]);
      open_[i] = nullptr;
      open_count_[i] = 0;
    }
    write_packets(outgoing_);
    issued_ = moved_ = true;
  }

  packets::Seal seal_;
  Comm topology_;
  std::vector<int> index_of_rank_;
  std::uint64_t phase_bytes_ = 0, remote_bytes_ = 0;

  std::vector<Message> slots_;  // packet slots: a header cell, then the messages
  std::vector<Message*> open_;  // per neighbour: its packet being filled, or null
  std::vector<std::uint32_t> open_count_;
  std::vector<Message*> free_, in_flight_;
  std::vector<std::uint64_t> sent_;  // per neighbour, this phase: the capacity check
  std::vector<int> partial_;
  std::vector<packets::Outgoing> outgoing_;
  bool oversubscribed_ = false;  // more ranks on this node than cores
  bool issued_ = false;          // writes issued since the last complete_writes()
  bool moved_ = false;           // packets sent since the last evoke()

  std::uint64_t phase_ = 0;
  State state_ = State::active;
  PhaseBarrier barrier_;
  std::uint64_t read_ = 0;  // position in this parity's receive buffer
};

// The window of rma-fence and rma-hash: two reservation counters (one per
// phase parity), then two receive buffers of `phase_bytes` each; one
// MPI_Win_lock_all epoch for its lifetime. Collective.
class PacketWindow {
 public:
  PacketWindow(const Comm& comm, const Comm& topology, const std::vector<int>& neighbours,
               std::uint64_t phase_bytes)
      : neighbours_(neighbours), phase_bytes_(phase_bytes), rank_(comm.rank()) {
    // Where each neighbour's second buffer begins depends on its size.
    neighbour_phase_bytes_.resize(neighbours.size());
    std::uint64_t dummy = 0;
    MPI_Neighbor_allgather(&phase_bytes_, 1, MPI_UINT64_T,
                           neighbours.empty() ? &dummy : neighbour_phase_bytes_.data(), 1,
                           MPI_UINT64_T, topology.get());
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "accumulate_ordering", "none");  // every ordering point is a flush
    MPI_Info_set(info, "same_disp_unit", "true");
    bytes_ = kCountersBytes + 2 * phase_bytes;
    MPI_Win_allocate(static_cast<MPI_Aint>(bytes_), 1, info, comm.get(), &base_, &window_);
    MPI_Info_free(&info);
    std::memset(base_, 0, bytes_);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, window_);
    MPI_Win_sync(window_);
    comm.barrier();  // nobody writes before every rank zeroed its window
  }
  ~PacketWindow() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    // Collective: skipped while an error unwinds on this rank alone.
    if (window_ != MPI_WIN_NULL && !finalized && std::uncaught_exceptions() == 0) {
      MPI_Win_unlock_all(window_);
      MPI_Win_free(&window_);
    }
  }
  PacketWindow(const PacketWindow&) = delete;
  PacketWindow& operator=(const PacketWindow&) = delete;

  MPI_Win get() const { return window_; }
  std::uint64_t bytes() const { return bytes_; }
  int rank_of(int index) const { return neighbours_[static_cast<size_t>(index)]; }
  std::byte* local_buffer(int parity) const {
    return static_cast<std::byte*>(base_) + kCountersBytes + parity * phase_bytes_;
  }
  // Where, in neighbour `index`'s window, the packet at `offset` of its
  // buffer of `parity` begins.
  MPI_Aint remote_displacement(int index, int parity, std::uint64_t offset) const {
    return static_cast<MPI_Aint>(
        kCountersBytes + parity * neighbour_phase_bytes_[static_cast<size_t>(index)] + offset);
  }

  // This rank's counter of `parity`, read atomically through MPI.
  std::uint64_t read_counter(int parity) const {
    std::uint64_t ignored = 0, value = 0;
    MPI_Fetch_and_op(&ignored, &value, MPI_UINT64_T, rank_, counter(parity), MPI_NO_OP, window_);
    MPI_Win_flush(rank_, window_);
    return value;
  }
  void reset_counter(int parity) const {
    std::uint64_t zero = 0, old = 0;
    MPI_Fetch_and_op(&zero, &old, MPI_UINT64_T, rank_, counter(parity), MPI_REPLACE, window_);
    MPI_Win_flush(rank_, window_);
    MPI_Win_sync(window_);
  }

  // Reserves room for each packet in its destination's buffer of `parity` (one
  // fetch-and-add each, completed together); offsets[k] is where packets[k]
  // goes in that buffer.
  void reserve(std::span<const packets::Outgoing> batch, int parity,
               std::vector<std::uint64_t>& offsets) const {
    offsets.resize(batch.size());
    for (size_t k = 0; k < batch.size(); ++k)
      MPI_Fetch_and_op(&batch[k].bytes, &offsets[k], MPI_UINT64_T, rank_of(batch[k].index),
                       counter(parity), MPI_SUM, window_);
    flush(batch);
    for (size_t k = 0; k < batch.size(); ++k)
      packets::check_room(batch[k], offsets[k],
                          neighbour_phase_bytes_[static_cast<size_t>(batch[k].index)],
                          rank_of(batch[k].index));
  }
  // Remote completion of everything issued to the destinations of `batch`.
  void flush(std::span<const packets::Outgoing> batch) const {
    if (batch.size() == 1)
      MPI_Win_flush(rank_of(batch[0].index), window_);
    else
      MPI_Win_flush_all(window_);
  }

 private:
  static constexpr std::uint64_t kCountersBytes = 64;
  static MPI_Aint counter(int parity) { return parity * 8; }

  std::vector<int> neighbours_;
  std::vector<std::uint64_t> neighbour_phase_bytes_;
  std::uint64_t phase_bytes_;
  int rank_;
  std::uint64_t bytes_ = 0;
  MPI_Win window_ = MPI_WIN_NULL;
  void* base_ = nullptr;
};

#if GRAPHCOMM_HAVE_OPENSHMEM
// The symmetric memory of shmem-fence and shmem-hash: two reservation counters
// (one per phase parity), then two receive buffers, as large on every PE (the
// largest need: symmetric allocations are). Collective over the whole job:
// symmetric allocation involves every PE, so `comm` must be MPI_COMM_WORLD or
// a duplicate (then PE = rank).
class PacketHeap {
 public:
  PacketHeap(const Comm& comm, const std::vector<int>& neighbours, std::uint64_t phase_bytes,
             const char* what)
      : neighbours_(neighbours), rank_(comm.rank()) {
    int relation = MPI_UNEQUAL;
    MPI_Comm_compare(comm.get(), MPI_COMM_WORLD, &relation);
    if (relation != MPI_IDENT && relation != MPI_CONGRUENT)
      fail_everywhere(fmt::format("{}: OpenSHMEM models run on all ranks of the job only", what));
    phase_bytes_ = (max_over_ranks(comm, phase_bytes) + 63) / 64 * 64;
    const std::uint64_t bytes = kCountersBytes + 2 * phase_bytes_;
    ensure_shmem_initialized(bytes);
    block_ = SymmetricBlock(bytes, what);
  }

  std::uint64_t bytes() const { return block_.size(); }
  int pe_of(int index) const { return neighbours_[static_cast<size_t>(index)]; }
  std::byte* buffer(int parity) const {
    return block_.data() + kCountersBytes + parity * phase_bytes_;
  }
  // Where the packet at `offset` of a buffer of `parity` begins, on every PE.
  void* remote(int parity, std::uint64_t offset) const { return buffer(parity) + offset; }

  std::uint64_t read_counter(int parity) const {
    return shmem_ulong_atomic_fetch(counter(parity), rank_);
  }
  void reset_counter(int parity) const {
    shmem_ulong_atomic_set(counter(parity), 0, rank_);
    shmem_quiet();
  }
  // Reserves room for each packet in its destination's buffer of `parity`
  // (one blocking fetch-and-add each); offsets[k] is where packets[k] goes.
  void reserve(std::span<const packets::Outgoing> batch, int parity,
               std::vector<std::uint64_t>& offsets) const {
    offsets.resize(batch.size());
    for (size_t k = 0; k < batch.size(); ++k) {
      offsets[k] =
          shmem_ulong_atomic_fetch_add(counter(parity), batch[k].bytes, pe_of(batch[k].index));
      packets::check_room(batch[k], offsets[k], phase_bytes_, pe_of(batch[k].index));
    }
  }

 private:
  static constexpr std::uint64_t kCountersBytes = 64;
  static_assert(sizeof(unsigned long) == sizeof(std::uint64_t));
  unsigned long* counter(int parity) const {
    return reinterpret_cast<unsigned long*>(block_.data()) + parity;
  }

  std::vector<int> neighbours_;
  int rank_;
  std::uint64_t phase_bytes_ = 0;
  SymmetricBlock block_;
};
#endif

}  // namespace gc
