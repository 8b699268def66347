// rma-fence and rma-hash: Concurrent-Fence and Concurrent-Hash over MPI-3
// RMA, passive target (Boothe & George, "Evaluating One-Sided Communication
// on Graph500 with MPI-RMA and OpenSHMEM"). Packets, buffers, phases and
// termination: one_sided_packets.hpp; one MPI_Win_lock_all epoch for the
// exchange's lifetime. Both reserve a packet's room by MPI_Fetch_and_op
// (MPI_SUM) on the destination's counter and a flush; then
// - fence: MPI_Put of sender, check and messages; MPI_Win_flush, the ordering
//   point (they are complete at the target); then the seal, one 8-byte
//   MPI_Accumulate(MPI_REPLACE), so the receiver never sees half a seal;
// - hash: one MPI_Put of header and messages, with no ordering point: the
//   receiver takes the packet once the CRC-32 in its header matches.
// The receiver reads after MPI_Win_sync.
#include <optional>

#include "comm/one_sided_packets.hpp"

namespace gc {

namespace {

class RmaPacketExchange final : public PacketExchange {
 public:
  RmaPacketExchange(const Comm& comm, Neighborhood nb, packets::Seal seal)
      : PacketExchange(comm, std::move(nb), seal) {
    const double start = MPI_Wtime();
    window_.emplace(comm, neighborhood_.ranks, ring_bytes(), destination_rings());
    set_remote_bytes(window_->bytes());
    setup_seconds_ += MPI_Wtime() - start;
  }

  const char* name() const override {
    return seal() == packets::Seal::fence ? "rma-fence" : "rma-hash";
  }

 protected:
  void reserve(std::span<packets::Outgoing> batch) override { window_->reserve(batch, parity()); }
  void write_packets(std::span<const packets::Outgoing> batch) override {
    const int parity = this->parity();
    const MPI_Win win = window_->get();
    // Fence puts all but the seal first; hash puts the whole packet.
    const std::uint64_t skip = seal() == packets::Seal::fence ? sizeof(std::uint64_t) : 0;
    for (const packets::Outgoing& packet : batch)
      packets::for_each_piece(
          packet.reserved, skip, packet.bytes, destination_ring(packet.index),
          [&](std::uint64_t position, std::uint64_t from, std::uint64_t length) {
            const int bytes = static_cast<int>(length);
            MPI_Put(packet.data + from, bytes, MPI_BYTE, window_->rank_of(packet.index),
                    window_->remote_displacement(packet.index, parity, position), bytes, MPI_BYTE,
                    win);
          });
    if (seal() == packets::Seal::hash) return;
    window_->flush(batch);
    for (const packets::Outgoing& packet : batch)
      MPI_Accumulate(packet.data, 1, MPI_UINT64_T, window_->rank_of(packet.index),
                     window_->remote_displacement(packet.index, parity,
                                                  packet.reserved % destination_ring(packet.index)),
                     1, MPI_UINT64_T, MPI_REPLACE, win);
  }
  void complete_writes() override { MPI_Win_flush_all(window_->get()); }
  std::uint64_t reserved_bytes(int parity) override { return window_->read_counter(parity); }
  std::uint64_t consumed_by(int index, int parity) override {
    return window_->consumed_by(index, parity);
  }
  void publish_consumed(int parity, std::uint64_t consumed) override {
    window_->publish_consumed(parity, consumed);
  }
  void reset_counters(int parity) override { window_->reset_counters(parity); }
  std::byte* receive_buffer(int parity) override { return window_->local_buffer(parity); }
  void sync_incoming() override { MPI_Win_sync(window_->get()); }

 private:
  std::optional<PacketWindow> window_;
};

}  // namespace

std::unique_ptr<Exchange> make_rma_fence_exchange(const Comm& comm, Neighborhood nb) {
  return std::make_unique<RmaPacketExchange>(comm, std::move(nb), packets::Seal::fence);
}
std::unique_ptr<Exchange> make_rma_hash_exchange(const Comm& comm, Neighborhood nb) {
  return std::make_unique<RmaPacketExchange>(comm, std::move(nb), packets::Seal::hash);
}

}  // namespace gc
