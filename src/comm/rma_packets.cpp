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
    window_.emplace(comm, topology(), neighborhood_.ranks, phase_bytes());
    set_remote_bytes(window_->bytes());
    setup_seconds_ += MPI_Wtime() - start;
  }

  const char* name() const override {
    return seal() == packets::Seal::fence ? "rma-fence" : "rma-hash";
  }

 protected:
  void write_packets(std::span<const packets::Outgoing> batch) override {
    const int parity = this->parity();
    const MPI_Win win = window_->get();
    window_->reserve(batch, parity, offsets_);
    // Fence puts all but the seal first; hash puts the whole packet.
    const std::uint64_t skip = seal() == packets::Seal::fence ? sizeof(std::uint64_t) : 0;
    for (size_t k = 0; k < batch.size(); ++k) {
      const int bytes = static_cast<int>(batch[k].bytes - skip);
      MPI_Put(batch[k].data + skip, bytes, MPI_BYTE, window_->rank_of(batch[k].index),
              window_->remote_displacement(batch[k].index, parity, offsets_[k] + skip), bytes,
              MPI_BYTE, win);
    }
    if (seal() == packets::Seal::hash) return;
    window_->flush(batch);
    for (size_t k = 0; k < batch.size(); ++k)
      MPI_Accumulate(batch[k].data, 1, MPI_UINT64_T, window_->rank_of(batch[k].index),
                     window_->remote_displacement(batch[k].index, parity, offsets_[k]), 1,
                     MPI_UINT64_T, MPI_REPLACE, win);
  }
  void complete_writes() override { MPI_Win_flush_all(window_->get()); }
  std::uint64_t reserved_bytes(int parity) override { return window_->read_counter(parity); }
  void reset_counter(int parity) override { window_->reset_counter(parity); }
  std::byte* receive_buffer(int parity) override { return window_->local_buffer(parity); }
  void sync_incoming() override { MPI_Win_sync(window_->get()); }

 private:
  std::optional<PacketWindow> window_;
  std::vector<std::uint64_t> offsets_;
};

}  // namespace

std::unique_ptr<Exchange> make_rma_fence_exchange(const Comm& comm, Neighborhood nb) {
  return std::make_unique<RmaPacketExchange>(comm, std::move(nb), packets::Seal::fence);
}
std::unique_ptr<Exchange> make_rma_hash_exchange(const Comm& comm, Neighborhood nb) {
  return std::make_unique<RmaPacketExchange>(comm, std::move(nb), packets::Seal::hash);
}

}  // namespace gc
