// shmem-fence: Concurrent-Fence over OpenSHMEM (Boothe & George, "Evaluating
// One-Sided Communication on Graph500 with MPI-RMA and OpenSHMEM"). Packets,
// buffers, phases and termination: one_sided_packets.hpp; the buffers live in
// the symmetric heap (OpenSHMEM starts with the first such exchange).
// A packet: shmem_atomic_fetch_add on the destination's counter reserves its
// room; shmem_putmem_nbi of sender, check and messages; shmem_fence, the
// ordering point (they are delivered before what follows); then the seal by
// shmem_atomic_set, one atomic 8-byte write. shmem_quiet completes the writes.
#include <optional>

#include "comm/one_sided_packets.hpp"

namespace gc {

namespace {

class ShmemFenceExchange final : public PacketExchange {
 public:
  ShmemFenceExchange(const Comm& comm, Neighborhood nb)
      : PacketExchange(comm, std::move(nb), packets::Seal::fence) {
    const double start = MPI_Wtime();
    heap_.emplace(comm, neighborhood_.ranks, phase_bytes(), name());
    set_remote_bytes(heap_->bytes());
    setup_seconds_ += MPI_Wtime() - start;
  }

  const char* name() const override { return "shmem-fence"; }

 protected:
  void write_packets(std::span<const packets::Outgoing> batch) override {
    const int parity = this->parity();
    heap_->reserve(batch, parity, offsets_);
    constexpr std::uint64_t kSeal = sizeof(std::uint64_t);
    for (size_t k = 0; k < batch.size(); ++k)
      shmem_putmem_nbi(static_cast<std::byte*>(heap_->remote(parity, offsets_[k])) + kSeal,
                       batch[k].data + kSeal, batch[k].bytes - kSeal, heap_->pe_of(batch[k].index));
    shmem_fence();
    for (size_t k = 0; k < batch.size(); ++k) {
      unsigned long seal = 0;
      std::memcpy(&seal, batch[k].data, sizeof seal);
      shmem_ulong_atomic_set(static_cast<unsigned long*>(heap_->remote(parity, offsets_[k])), seal,
                             heap_->pe_of(batch[k].index));
    }
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

std::unique_ptr<Exchange> make_shmem_fence_exchange(const Comm& comm, Neighborhood nb) {
  return std::make_unique<ShmemFenceExchange>(comm, std::move(nb));
}

}  // namespace gc
