// shmem-fence and shmem-hash: Concurrent-Fence and Concurrent-Hash over
// OpenSHMEM (Boothe & George, "Evaluating One-Sided Communication on Graph500
// with MPI-RMA and OpenSHMEM"). Packets, buffers, phases and termination:
// one_sided_packets.hpp; the buffers live in the symmetric heap (OpenSHMEM
// starts with the first such exchange). Both reserve a packet's room by
// shmem_atomic_fetch_add on the destination's counter; then
// - fence: shmem_putmem_nbi of sender, check and messages; shmem_fence, the
//   ordering point (they are delivered before what follows); then the seal by
//   shmem_atomic_set, one atomic 8-byte write;
// - hash: one shmem_putmem_nbi of header and messages, with no ordering
//   point: the receiver takes the packet once the CRC-32 in its header matches.
// shmem_quiet completes the writes.
#include <shmem.h>

#include "comm/one_sided_packets.hpp"
#include "core/shmem.hpp"

namespace gc {

namespace {

// The transport of shmem-fence and shmem-hash, symmetric memory: per phase
// parity a reservation counter and a consumed counter, then two rings.
// Symmetric allocations are as large on every PE, so the rings are placed by
// the largest; each PE's ring keeps its own size (`ring_bytes`, what its
// writers wrap by). Collective over the whole
// job: symmetric allocation involves every PE, so `comm` must be
// MPI_COMM_WORLD or a duplicate (then PE = rank).
class PacketHeap {
 public:
  PacketHeap(const Comm& comm, const std::vector<int>& neighbours, std::uint64_t ring_bytes,
             const std::vector<std::uint64_t>& /*rings*/, const char* what)
      : neighbours_(neighbours), rank_(comm.rank()) {
    require_whole_job(comm.get(), what);
    stride_ = (max_over_ranks(comm, ring_bytes) + 63) / 64 * 64;
    const std::uint64_t bytes = kCountersBytes + 2 * stride_;
    ensure_shmem_initialized(bytes);
    block_ = SymmetricBlock(bytes, what);
  }

  std::uint64_t bytes() const { return block_.size(); }
  std::byte* receive_buffer(int parity) const {
    return block_.data() + kCountersBytes + parity * stride_;
  }

  std::uint64_t reserved_bytes(int parity) const {
    return shmem_ulong_atomic_fetch(reserved(parity), rank_);
  }
  std::uint64_t consumed_by(int index, int parity) const {
    return shmem_ulong_atomic_fetch(consumed(parity), pe_of(index));
  }
  void publish_consumed(int parity, std::uint64_t value) const {
    shmem_ulong_atomic_set(consumed(parity), value, rank_);
  }
  void reset_counters(int parity) const {
    shmem_ulong_atomic_set(consumed(parity), 0, rank_);
    shmem_ulong_atomic_set(reserved(parity), 0, rank_);
    shmem_quiet();
  }

  // Reserves room for each packet in its destination's ring of `parity` (one
  // blocking fetch-and-add each).
  void reserve(std::span<packets::Outgoing> batch, int parity) const {
    for (packets::Outgoing& packet : batch)
      packet.reserved =
          shmem_ulong_atomic_fetch_add(reserved(parity), packet.bytes, pe_of(packet.index));
  }

  void put(const packets::Outgoing& packet, int parity, std::uint64_t position, std::uint64_t from,
           std::uint64_t length) const {
    shmem_putmem_nbi(receive_buffer(parity) + position, packet.data + from, length,
                     pe_of(packet.index));
  }
  // The puts are delivered before what follows.
  void order(std::span<const packets::Outgoing>) const { shmem_fence(); }
  void put_seal(const packets::Outgoing& packet, int parity, std::uint64_t position) const {
    unsigned long seal_word = 0;
    std::memcpy(&seal_word, packet.data, sizeof seal_word);
    shmem_ulong_atomic_set(reinterpret_cast<unsigned long*>(receive_buffer(parity) + position),
                           seal_word, pe_of(packet.index));
  }
  void complete_writes() const { shmem_quiet(); }
  void sync_incoming() const { std::atomic_thread_fence(std::memory_order_seq_cst); }

 private:
  static constexpr std::uint64_t kCountersBytes = 64;
  static_assert(sizeof(unsigned long) == sizeof(std::uint64_t));
  unsigned long* reserved(int parity) const {
    return reinterpret_cast<unsigned long*>(block_.data()) + parity;
  }
  unsigned long* consumed(int parity) const {
    return reinterpret_cast<unsigned long*>(block_.data()) + 2 + parity;
  }
  int pe_of(int index) const { return neighbours_[static_cast<size_t>(index)]; }

  std::vector<int> neighbours_;
  int rank_;
  std::uint64_t stride_ = 0;
  SymmetricBlock block_;
};

}  // namespace

std::unique_ptr<Exchange> make_shmem_fence_exchange(const Comm& comm, Neighborhood nb) {
  return make_packet_exchange<PacketHeap>(comm, std::move(nb), packets::Seal::fence, "shmem-fence");
}
std::unique_ptr<Exchange> make_shmem_hash_exchange(const Comm& comm, Neighborhood nb) {
  return make_packet_exchange<PacketHeap>(comm, std::move(nb), packets::Seal::hash, "shmem-hash");
}

}  // namespace gc
