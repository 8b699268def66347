// rma-hash: Concurrent-Hash over MPI-3 RMA, passive target (Boothe & George,
// "Evaluating One-Sided Communication on Graph500 with MPI-RMA and
// OpenSHMEM"). Packets, buffers, phases and termination: one_sided_packets.hpp;
// one MPI_Win_lock_all epoch for the exchange's lifetime.
// A packet: MPI_Fetch_and_op(MPI_SUM) on the destination's counter and a flush
// reserve its room; one MPI_Put writes header and messages, with no ordering
// point: the receiver takes the packet once the CRC-32 in its header matches
// what arrived (after MPI_Win_sync).
#include <optional>

#include "comm/one_sided_packets.hpp"

namespace gc {

namespace {

class RmaHashExchange final : public PacketExchange {
 public:
  RmaHashExchange(const Comm& comm, Neighborhood nb)
      : PacketExchange(comm, std::move(nb), packets::Seal::hash) {
    const double start = MPI_Wtime();
    window_.emplace(comm, topology(), neighborhood_.ranks, phase_bytes());
    set_remote_bytes(window_->bytes());
    setup_seconds_ += MPI_Wtime() - start;
  }

  const char* name() const override { return "rma-hash"; }

 protected:
  void write_packets(std::span<const packets::Outgoing> batch) override {
    const int parity = this->parity();
    window_->reserve(batch, parity, offsets_);
    for (size_t k = 0; k < batch.size(); ++k) {
      const int bytes = static_cast<int>(batch[k].bytes);
      MPI_Put(batch[k].data, bytes, MPI_BYTE, window_->rank_of(batch[k].index),
              window_->remote_displacement(batch[k].index, parity, offsets_[k]), bytes, MPI_BYTE,
              window_->get());
    }
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

std::unique_ptr<Exchange> make_rma_hash_exchange(const Comm& comm, Neighborhood nb) {
  return std::make_unique<RmaHashExchange>(comm, std::move(nb));
}

}  // namespace gc
