// shmem-hash: Concurrent-Hash over OpenSHMEM (Boothe & George, "Evaluating
// One-Sided Communication on Graph500 with MPI-RMA and OpenSHMEM"). Packets,
// buffers, phases and termination: one_sided_packets.hpp; the buffers live in
// the symmetric heap (OpenSHMEM starts with the first such exchange).
// A packet: shmem_atomic_fetch_add on the destination's counter reserves its
// room; one shmem_putmem_nbi writes header and messages, with no ordering
// point: the receiver takes the packet once the CRC-32 in its header matches
// what arrived. shmem_quiet completes the writes.
#include <optional>

#include "comm/one_sided_packets.hpp"

namespace gc {

namespace {

class ShmemHashExchange final : public PacketExchange {
 public:
  ShmemHashExchange(const Comm& comm, Neighborhood nb)
      : PacketExchange(comm, std::move(nb), packets::Seal::hash) {
    const double start = MPI_Wtime();
    heap_.emplace(comm, neighborhood_.ranks, phase_bytes(), name());
    set_remote_bytes(heap_->bytes());
    setup_seconds_ += MPI_Wtime() - start;
  }

  const char* name() const override { return "shmem-hash"; }

 protected:
  void write_packets(std::span<const packets::Outgoing> batch) override {
    const int parity = this->parity();
    heap_->reserve(batch, parity, offsets_);
    for (size_t k = 0; k < batch.size(); ++k)
      shmem_putmem_nbi(heap_->remote(parity, offsets_[k]), batch[k].data, batch[k].bytes,
                       heap_->pe_of(batch[k].index));
  }
  void complete_writes() override { shmem_quiet(); }
  std::uint64_t reserved_bytes(int parity) override { return heap_->read_counter(parity); }
  void reset_counter(int parity) override { heap_->reset_counter(parity); }
  std::byte* receive_buffer(int parity) override { return heap_->buffer(parity); }
  void sync_incoming() override { std::atomic_thread_fence(std::memory_order_acquire); }

 private:
  std::optional<PacketHeap> heap_;
  std::vector<std::uint64_t> offsets_;
};

}  // namespace

std::unique_ptr<Exchange> make_shmem_hash_exchange(const Comm& comm, Neighborhood nb) {
  return std::make_unique<ShmemHashExchange>(comm, std::move(nb));
}

}  // namespace gc
