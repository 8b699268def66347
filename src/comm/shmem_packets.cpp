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
#include <optional>

#include "comm/one_sided_packets.hpp"

namespace gc {

namespace {

class ShmemPacketExchange final : public PacketExchange {
 public:
  ShmemPacketExchange(const Comm& comm, Neighborhood nb, packets::Seal seal)
      : PacketExchange(comm, std::move(nb), seal) {
    const double start = MPI_Wtime();
    heap_.emplace(comm, neighborhood_.ranks, ring_bytes(), name());
    set_remote_bytes(heap_->bytes());
    setup_seconds_ += MPI_Wtime() - start;
  }

  const char* name() const override {
    return seal() == packets::Seal::fence ? "shmem-fence" : "shmem-hash";
  }

 protected:
  void reserve(std::span<packets::Outgoing> batch) override { heap_->reserve(batch, parity()); }
  void write_packets(std::span<const packets::Outgoing> batch) override {
    const int parity = this->parity();
    // Fence puts all but the seal first; hash puts the whole packet.
    const std::uint64_t skip = seal() == packets::Seal::fence ? sizeof(std::uint64_t) : 0;
    for (const packets::Outgoing& packet : batch)
      packets::for_each_piece(
          packet.reserved, skip, packet.bytes, destination_ring(packet.index),
          [&](std::uint64_t position, std::uint64_t from, std::uint64_t length) {
            shmem_putmem_nbi(heap_->buffer(parity) + position, packet.data + from, length,
                             heap_->pe_of(packet.index));
          });
    if (seal() == packets::Seal::hash) return;
    shmem_fence();
    for (const packets::Outgoing& packet : batch) {
      unsigned long seal_word = 0;
      std::memcpy(&seal_word, packet.data, sizeof seal_word);
      const std::uint64_t position = packet.reserved % destination_ring(packet.index);
      shmem_ulong_atomic_set(reinterpret_cast<unsigned long*>(heap_->buffer(parity) + position),
                             seal_word, heap_->pe_of(packet.index));
    }
  }
  void complete_writes() override { shmem_quiet(); }
  std::uint64_t reserved_bytes(int parity) override { return heap_->read_counter(parity); }
  std::uint64_t consumed_by(int index, int parity) override {
    return heap_->consumed_by(index, parity);
  }
  void publish_consumed(int parity, std::uint64_t consumed) override {
    heap_->publish_consumed(parity, consumed);
  }
  void reset_counters(int parity) override { heap_->reset_counters(parity); }
  std::byte* receive_buffer(int parity) override { return heap_->buffer(parity); }
  void sync_incoming() override { std::atomic_thread_fence(std::memory_order_seq_cst); }

 private:
  std::optional<PacketHeap> heap_;
};

}  // namespace

std::unique_ptr<Exchange> make_shmem_fence_exchange(const Comm& comm, Neighborhood nb) {
  return std::make_unique<ShmemPacketExchange>(comm, std::move(nb), packets::Seal::fence);
}
std::unique_ptr<Exchange> make_shmem_hash_exchange(const Comm& comm, Neighborhood nb) {
  return std::make_unique<ShmemPacketExchange>(comm, std::move(nb), packets::Seal::hash);
}

}  // namespace gc
