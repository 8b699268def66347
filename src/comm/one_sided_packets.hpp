// Shared machinery of the Concurrent-Fence and Concurrent-Hash models of
// Boothe & George, "Evaluating One-Sided Communication on Graph500 with
// MPI-RMA and OpenSHMEM": rma-fence, rma-hash (MPI-3 RMA) and shmem-fence,
// shmem-hash (OpenSHMEM). Each model file holds only its transport: how it
// reserves room, writes a packet and reads its counter (PacketTransport,
// below); PacketExchange<Transport> is instantiated there.
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
// Bounded buffers, flow control. A receive buffer is a ring: the reservation
// counter only grows, and a packet reserved at byte r lies at r modulo the
// ring's size (in at most two pieces; headers never wrap, as sizes are
// multiples of 16). The receiver publishes how far it consumed (and zeroed);
// a sender writes a packet reserved at r only once that is at least
// r + bytes - ring, and keeps it back until then (its slot stays taken),
// asking again at each evoke(), process() and done(). No deadlock: the
// reader stops only at the earliest unwritten packet, whose room is free
// once everything before it is consumed, because no packet exceeds a ring.
// The ring holds ExchangeOptions::round_messages messages per sender who may
// write to this rank (and at least one full packet), or, if less, a whole
// phase's worth: capacity c from a neighbour takes at most c * (16 + 16)
// bytes in a phase (a packet holds at least one message), so with
// round_messages 0 the ring never wraps.
//
// Phases and termination. There are two rings and two pairs of counters
// (reserved, consumed), used by phase parity. A rank that is settled (it will
// push nothing more in this phase) sends its partial packets, writes what it
// kept back as the rings make room, completes all its writes (flush_all,
// quiet) and enters MPI_Ibarrier; it keeps processing meanwhile. Once the
// barrier completes, every rank has completed every write of this phase, so
// every packet in this rank's ring is complete: process() consumes the rest,
// and done() returns true once the read position reaches the (now final)
// reservation counter. The rank then resets this parity's counters and read
// position for phase k+2. A fast rank may already write phase k+1 packets,
// into the other parity's ring, which was reset at the end of phase k-1;
// nobody writes phase k+2 packets before every rank entered phase k+1's
// barrier, that is, after every rank finished phase k and reset its counters.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <concepts>
#include <cstring>
#include <deque>
#include <optional>
#include <span>
#include <vector>

#include <sched.h>

#include <fmt/format.h>
#include <zlib.h>

#include "comm/exchange.hpp"
#include "comm/neighbor_index.hpp"
#include "comm/phase_barrier.hpp"

namespace gc {

namespace packets {

inline constexpr std::uint32_t kPacketMessages = 256;
inline constexpr std::uint64_t kHeaderBytes = 16;
inline constexpr std::uint64_t kPacketCells = 1 + kPacketMessages;  // header + messages
inline constexpr std::uint64_t kMaxPacketBytes = kPacketCells * kHeaderBytes;
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

// The bytes [skip, bytes) of a packet reserved at byte `reserved` of a ring of
// `ring` bytes: f(ring position, offset in the packet, length) for each of
// the one or two contiguous pieces.
template <class F>
void for_each_piece(std::uint64_t reserved, std::uint64_t skip, std::uint64_t bytes,
                    std::uint64_t ring, F&& f) {
  const std::uint64_t at = (reserved + skip) % ring;
  const std::uint64_t first = std::min(bytes - skip, ring - at);
  f(at, skip, first);
  if (skip + first < bytes) f(std::uint64_t{0}, skip + first, bytes - skip - first);
}

// CRC-32 of seal, sender and the `count` messages of a packet whose header is
// at `header` and whose messages are at `messages` of a ring of `ring` bytes
// (contiguous when ring is 0: a packet slot).
inline std::uint32_t crc_of(const std::byte* header, const std::byte* base,
                            std::uint64_t messages_at, std::uint64_t ring, std::uint32_t count) {
  uLong crc = crc32(0L, Z_NULL, 0);
  crc = crc32(crc, reinterpret_cast<const Bytef*>(header), 12);
  const std::uint64_t bytes = count * sizeof(Message);
  const std::uint64_t first = ring ? std::min(bytes, ring - messages_at) : bytes;
  crc = crc32(crc, reinterpret_cast<const Bytef*>(base + messages_at), static_cast<uInt>(first));
  if (first < bytes)
    crc = crc32(crc, reinterpret_cast<const Bytef*>(base), static_cast<uInt>(bytes - first));
  return static_cast<std::uint32_t>(crc);
}

enum class Seal { fence, hash };

// One packet: to neighbour `index`, `bytes` bytes at `data`, reserved at byte
// `reserved` of the destination's ring.
struct Outgoing {
  int index;
  std::byte* data;
  std::uint64_t bytes;
  std::uint64_t reserved = 0;
};

}  // namespace packets

// The transport: what differs between the models, each model file's own.
// - Its constructor (collective) takes this rank's neighbours, the bytes of
//   each of this rank's two rings (one per phase parity), each neighbour's,
//   and the model's name; it allocates and zeroes the rings and counters.
//   bytes(): that remotely accessible memory.
// - reserve(batch, parity): room for each packet in its destination's ring
//   of `parity` (sets `reserved`).
// - put(packet, parity, position, from, length): bytes [from, from + length)
//   of a packet to `position` of its destination's ring of `parity`.
// - order(batch): the ordering point after the puts to `batch`'s destinations.
// - put_seal(packet, parity, position): its seal, one atomic 8-byte write.
// - complete_writes(): every write issued so far is complete at its target
//   and its source memory free.
// - reserved_bytes(parity): this rank's reservation counter (an atomic read);
//   consumed_by(index, parity): how far neighbour `index` consumed its ring
//   (a remote atomic read); publish_consumed(parity, consumed): this rank's;
//   reset_counters(parity): both of this rank's (nobody reserves meanwhile).
// - receive_buffer(parity): this rank's ring.
// - sync_incoming(): makes remote writes to this rank's memory visible to its
//   loads, and its own stores (zeroing) visible to remote writers.
template <class T>
concept PacketTransport = requires(T& t, const Comm& comm, const std::vector<int>& neighbours,
                                   const std::vector<std::uint64_t>& rings,
                                   std::span<packets::Outgoing> batch,
                                   const packets::Outgoing& packet, int parity, int index,
                                   std::uint64_t value) {
  T(comm, neighbours, value, rings, "model");
  { t.bytes() } -> std::convertible_to<std::uint64_t>;
  t.reserve(batch, parity);
  t.put(packet, parity, value, value, value);
  t.order(std::span<const packets::Outgoing>(batch));
  t.put_seal(packet, parity, value);
  t.complete_writes();
  { t.reserved_bytes(parity) } -> std::convertible_to<std::uint64_t>;
  { t.consumed_by(index, parity) } -> std::convertible_to<std::uint64_t>;
  t.publish_consumed(parity, value);
  t.reset_counters(parity);
  { t.receive_buffer(parity) } -> std::same_as<std::byte*>;
  t.sync_incoming();
};

template <PacketTransport Transport>
class PacketExchange final : public Exchange {
 public:
  // `name`: the model's, e.g. "rma-fence".
  PacketExchange(const Comm& comm, Neighborhood nb, packets::Seal seal, const char* name)
      : Exchange(comm, std::move(nb)), seal_(seal), name_(name) {
    phase_end_ = PhaseBarrier(comm);
    topology_ = comm.dist_graph_adjacent(neighborhood_.ranks);
    const size_t k = neighborhood_.ranks.size();
    neighbors_ = NeighborIndex(neighborhood_.ranks, comm.size());
    // What the neighbours may send me in one phase sizes my rings; they learn
    // the size to wrap their writes.
    std::vector<std::uint64_t> incoming(k);
    std::uint64_t dummy = 0;
    neighbor_alltoall(k ? neighborhood_.capacity.data() : &dummy, 1, MPI_UINT64_T,
                      k ? incoming.data() : &dummy, 1, MPI_UINT64_T, topology_.get());
    std::uint64_t phase_need = 0, bounded = 0;
    const std::uint64_t round = neighborhood_.options.round_messages;
    for (std::uint64_t c : incoming) {
      phase_need += c * packets::kBytesPerCapacity;
      bounded += (round ? std::min(c, round) : c) * packets::kBytesPerCapacity;
    }
    ring_bytes_ = std::min(phase_need, std::max(bounded, packets::kMaxPacketBytes));
    bounded_ring_ = ring_bytes_ < phase_need;
    destination_ring_.assign(k, 0);
    neighbor_allgather(&ring_bytes_, 1, MPI_UINT64_T, k ? destination_ring_.data() : &dummy, 1,
                       MPI_UINT64_T, topology_.get());
    known_consumed_.assign(k, 0);
    // A slot per neighbour for its open packet, and spares for packets in
    // flight (their memory is the source of a pending write until completed)
    // or kept back; more are made when every one is taken.
    for (size_t s = 0; s < k + kSpareSlots; ++s) free_.push_back(new_slot());
    open_.assign(k, nullptr);
    open_count_.assign(k, 0);
    sent_.assign(k, 0);
    oversubscribed_ = node_oversubscribed(comm);
    transport_.emplace(comm, neighborhood_.ranks, ring_bytes_, destination_ring_, name_);
  }

  const char* name() const override { return name_; }

  void push(int index, const Message& message) override {
    const size_t i = static_cast<size_t>(index);
    if (!phase_end_.active())
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
    send_open_packets();
    write_waiting();
    complete_writes();
    if (moved_) ++counters_.rounds;
    moved_ = false;
  }

  void process(const std::function<void(int, const Message&)>& handle) override {
    const std::uint64_t start = read_;
    consume(handle);
    write_waiting();
    // An idle poll gives the core away when ranks outnumber cores: the rank
    // this one waits for may be waiting for the core (Open MPI's own progress
    // loop yields when oversubscribed; OpenSHMEM's calls never do).
    if (read_ == start && oversubscribed_) sched_yield();
  }

  bool done(bool locally_settled) override {
    if (!phase_end_.done(locally_settled, *this)) return false;
    transport_->reset_counters(parity());
    read_ = 0;
    std::fill(sent_.begin(), sent_.end(), 0);
    std::fill(known_consumed_.begin(), known_consumed_.end(), 0);
    ++phase_;
    return true;
  }

  std::uint64_t buffer_bytes() const override {
    return transport_->bytes() + slots_.size() * sizeof(Slot);
  }
  // The messages of the packets kept back for room in their destination's ring.
  std::uint64_t queued() const override {
    std::uint64_t bytes = 0;
    for (const packets::Outgoing& packet : kept_back_)
      bytes += packet.bytes - packets::kHeaderBytes;
    return bytes / sizeof(Message);
  }

 private:
  static constexpr size_t kSpareSlots = 32;
  using Slot = std::array<Message, packets::kPacketCells>;

  int parity() const { return static_cast<int>(phase_ & 1); }

  // The messages of the packet at ring position `at` when it is complete,
  // else 0; `room`: bytes reserved from there on.
  std::uint32_t complete_count(const std::byte* buffer, std::uint64_t at, std::uint64_t room,
                               std::uint32_t stamp) const {
    const std::uint64_t seal =
        std::atomic_ref<const std::uint64_t>(*reinterpret_cast<const std::uint64_t*>(buffer + at))
            .load(std::memory_order_acquire);
    const auto count = static_cast<std::uint32_t>(seal);
    if (seal >> 32 != stamp || count == 0 || count > packets::kPacketMessages ||
        packets::kHeaderBytes + count * sizeof(Message) > room)
      return 0;
    if (seal_ == packets::Seal::hash) {
      std::uint32_t check;
      std::memcpy(&check, buffer + at + 12, sizeof check);
      const std::uint64_t messages_at = (at + packets::kHeaderBytes) % ring_bytes_;
      if (packets::crc_of(buffer + at, buffer, messages_at, ring_bytes_, count) != check) return 0;
    }
    return count;
  }

  // Hands every complete packet, in reservation order from the read
  // position, to `handle`; stops at the first incomplete one. Publishes how
  // far it consumed, so senders kept back may write.
  void consume(const std::function<void(int, const Message&)>& handle) {
    transport_->sync_incoming();
    const std::uint64_t reserved = transport_->reserved_bytes(parity());
    std::byte* buffer = transport_->receive_buffer(parity());
    const std::uint32_t stamp = packets::stamp_of(phase_);
    const std::uint64_t start = read_;
    while (read_ < reserved) {
      const std::uint64_t at = read_ % ring_bytes_;
      const std::uint32_t count = complete_count(buffer, at, reserved - read_, stamp);
      if (count == 0) {
        if (phase_end_.draining())
          fail(
              fmt::format("internal: {}: incomplete packet at byte {} after every rank completed "
                          "its writes",
                          name(), read_));
        break;
      }
      packets::Header header;
      std::memcpy(&header, buffer + at, sizeof header);
      const int from = neighbors_.of(header.sender);
      if (from < 0)
        fail(fmt::format("internal: {}: packet from non-neighbour rank {}", name(), header.sender));
      const std::uint64_t bytes = packets::kHeaderBytes + count * sizeof(Message);
      const std::uint64_t packet = read_;
      read_ += bytes;
      // A message (16 bytes at a multiple of 16) never wraps.
      for (std::uint32_t k = 0; k < count; ++k) {
        Message m;
        std::memcpy(&m, buffer + (at + (k + 1) * sizeof(Message)) % ring_bytes_, sizeof m);
        handle(from, m);
      }
      // Keeps the ring zero where unwritten.
      packets::for_each_piece(packet, 0, bytes, ring_bytes_,
                              [&](std::uint64_t position, std::uint64_t, std::uint64_t length) {
                                std::memset(buffer + position, 0, length);
                              });
    }
    if (read_ != start && kept_back_by_others_possible()) {
      transport_->sync_incoming();
      transport_->publish_consumed(parity(), read_);
    }
  }

  // Senders can be kept back only when a ring is smaller than a phase's need.
  bool kept_back_by_others_possible() const { return bounded_ring_; }

  Message* take_slot() {
    if (free_.empty()) complete_writes();
    if (free_.empty()) return new_slot();
    Message* slot = free_.back();
    free_.pop_back();
    return slot;
  }
  Message* new_slot() { return slots_.emplace_back().data(); }

  // The steps of the phase end (phase_barrier.hpp).
  friend class PhaseBarrier;
  // Completes the writes issued so far and frees their slots.
  void complete_writes() {
    if (!issued_) return;
    transport_->complete_writes();
    free_.insert(free_.end(), in_flight_.begin(), in_flight_.end());
    in_flight_.clear();
    issued_ = false;
  }

  // Every write of this phase is complete: the counter is final and every
  // packet below it is complete; the next process() takes what is left.
  bool drained() {
    transport_->sync_incoming();
    return read_ >= transport_->reserved_bytes(parity());
  }

  void send_open_packets() {
    partial_.clear();
    for (size_t i = 0; i < open_.size(); ++i)
      if (open_count_[i] > 0) partial_.push_back(static_cast<int>(i));
    if (!partial_.empty()) send(partial_);
  }

  // Seals the open packets of `indices`, reserves their room and writes
  // those whose room is free; keeps back the others.
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
        const std::uint32_t check = packets::crc_of(data, data, packets::kHeaderBytes, 0, n);
        std::memcpy(data + 12, &check, sizeof check);
      }
      outgoing_.push_back({index, data, packets::kHeaderBytes + n * sizeof(Message)});
      count(index, n);
      open_[i] = nullptr;
      open_count_[i] = 0;
    }
    transport_->reserve(outgoing_, parity());
    for (const packets::Outgoing& packet : outgoing_) {
      const size_t i = static_cast<size_t>(packet.index);
      if (packet.bytes > destination_ring_[i])
        fail(fmt::format("internal: {}: a {}-byte packet exceeds the {}-byte ring of rank {}",
                         name(), packet.bytes, destination_ring_[i], neighborhood_.ranks[i]));
    }
    write_if_room(outgoing_, false);
    moved_ = true;
  }

  // Writes the packets of `batch` whose room in the destination's ring is
  // free (as last known, or asked again when `ask`), at most one per
  // destination per write; keeps back the rest, in order.
  void write_if_room(std::vector<packets::Outgoing>& batch, bool ask) {
    std::vector<packets::Outgoing> rest;
    asked_.assign(known_consumed_.size(), false);
    while (!batch.empty()) {
      ready_.clear();
      rest.clear();
      taken_.assign(known_consumed_.size(), false);
      for (const packets::Outgoing& packet : batch) {
        const size_t i = static_cast<size_t>(packet.index);
        const std::uint64_t ring = destination_ring_[i];
        bool room = packet.reserved + packet.bytes <= known_consumed_[i] + ring;
        if (!room && ask && !asked_[i]) {
          known_consumed_[i] = transport_->consumed_by(packet.index, parity());
          asked_[i] = true;
          room = packet.reserved + packet.bytes <= known_consumed_[i] + ring;
        }
        if (room && !taken_[i]) {
          taken_[i] = true;
          ready_.push_back(packet);
        } else {
          rest.push_back(packet);
        }
      }
      if (ready_.empty()) break;
      write_packets(ready_);
      for (const packets::Outgoing& packet : ready_)
        in_flight_.push_back(reinterpret_cast<Message*>(packet.data));
      issued_ = true;
      batch.swap(rest);
    }
    // What is left has no room yet.
    if (&batch != &kept_back_) {
      counters_.flow_waits += batch.size();
      kept_back_.insert(kept_back_.end(), batch.begin(), batch.end());
    }
  }

  // Writes each packet of `batch` (at most one per destination, room known
  // free). Fence: all but the seal, the ordering point, then the seal; hash:
  // the whole packet with no ordering point.
  void write_packets(std::span<const packets::Outgoing> batch) {
    const int parity = this->parity();
    const std::uint64_t skip = seal_ == packets::Seal::fence ? sizeof(std::uint64_t) : 0;
    for (const packets::Outgoing& packet : batch)
      packets::for_each_piece(
          packet.reserved, skip, packet.bytes, destination_ring(packet),
          [&](std::uint64_t position, std::uint64_t from, std::uint64_t length) {
            transport_->put(packet, parity, position, from, length);
          });
    if (seal_ == packets::Seal::hash) return;
    transport_->order(batch);
    for (const packets::Outgoing& packet : batch)
      transport_->put_seal(packet, parity, packet.reserved % destination_ring(packet));
  }
  std::uint64_t destination_ring(const packets::Outgoing& packet) const {
    return destination_ring_[static_cast<size_t>(packet.index)];
  }

  // Writes what was kept back and now has room; true once nothing is.
  bool write_waiting() {
    if (!kept_back_.empty()) write_if_room(kept_back_, true);
    return kept_back_.empty();
  }

  packets::Seal seal_;
  Comm topology_;
  const char* name_;
  NeighborIndex neighbors_;
  std::uint64_t ring_bytes_ = 0;
  bool bounded_ring_ = false;  // smaller than a phase's need: senders may be kept back
  std::vector<std::uint64_t> destination_ring_;  // per neighbour: its ring's bytes
  std::vector<std::uint64_t> known_consumed_;    // per neighbour, this phase: a lower bound

  std::deque<Slot> slots_;      // packet slots: a header cell, then the messages
  std::vector<Message*> open_;  // per neighbour: its packet being filled, or null
  std::vector<std::uint32_t> open_count_;
  std::vector<Message*> free_, in_flight_;
  std::vector<std::uint64_t> sent_;  // per neighbour, this phase: the capacity check
  std::vector<int> partial_;
  std::vector<packets::Outgoing> outgoing_, ready_, kept_back_;
  std::vector<bool> asked_, taken_;
  bool oversubscribed_ = false;  // more ranks on this node than cores
  bool issued_ = false;          // writes issued since the last complete_writes()
  bool moved_ = false;           // packets sent since the last evoke()

  std::uint64_t phase_ = 0;
  PhaseBarrier phase_end_;
  std::uint64_t read_ = 0;  // position in this parity's ring (reservation order)
  // Last, so destroyed first: releasing it completes any write still reading
  // from a slot.
  std::optional<Transport> transport_;
};

// The model `name` (e.g. "rma-fence") over `Transport`.
template <PacketTransport Transport>
std::unique_ptr<Exchange> make_packet_exchange(const Comm& comm, Neighborhood nb,
                                               packets::Seal seal, const char* name) {
  return Exchange::make_timed<PacketExchange<Transport>>(comm, std::move(nb), seal, name);
}

}  // namespace gc
