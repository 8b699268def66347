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
#include <atomic>

#include "comm/one_sided_packets.hpp"
#include "core/flavour.hpp"
#include "core/window.hpp"

namespace gc {

namespace {

// The transport of rma-fence and rma-hash, a window: per phase parity a
// reservation counter and a consumed counter, then two rings (`ring_bytes`
// each; a neighbour's from `rings`); one MPI_Win_lock_all epoch for its
// lifetime. Collective.
class PacketWindow {
 public:
  PacketWindow(const Comm& comm, const std::vector<int>& neighbours, std::uint64_t ring_bytes,
               std::vector<std::uint64_t> rings, const char* /*what*/)
      : neighbours_(neighbours),
        rings_(std::move(rings)),
        ring_bytes_(ring_bytes),
        rank_(comm.rank()),
        bytes_(kCountersBytes + 2 * ring_bytes),
        window_(comm, bytes_, 1,
                {{"accumulate_ordering", "none"},  // every ordering point is a flush
                 {"same_disp_unit", "true"}},
                neighbours_) {
    std::memset(window_.base(), 0, bytes_);
    MPI_Win_sync(window_.get());
    comm.barrier();  // nobody writes before every rank zeroed its window
  }
  PacketWindow(const PacketWindow&) = delete;
  PacketWindow& operator=(const PacketWindow&) = delete;

  std::uint64_t bytes() const { return bytes_; }
  std::byte* receive_buffer(int parity) const {
    return static_cast<std::byte*>(window_.base()) + kCountersBytes + parity * ring_bytes_;
  }

  // This rank's reservation counter of `parity`, read atomically: through MPI,
  // or where the library's RMA writes this memory in this process, by a load.
  std::uint64_t reserved_bytes(int parity) const {
    if constexpr (flavour::own_window_reads_need_mpi) {
      return fetch(rank_, reserved(parity));
    } else {
      MPI_Win_sync(window_.get());
      auto* counter = static_cast<std::uint64_t*>(window_.base()) + reserved(parity) / 8;
      return std::atomic_ref<std::uint64_t>(*counter).load(std::memory_order_acquire);
    }
  }
  std::uint64_t consumed_by(int index, int parity) const {
    return fetch(rank_of(index), consumed(parity));
  }
  void publish_consumed(int parity, std::uint64_t value) const { replace(consumed(parity), value); }
  void reset_counters(int parity) const {
    replace(consumed(parity), 0);
    replace(reserved(parity), 0);
    MPI_Win_sync(window_.get());
  }

  // Reserves room for each packet in its destination's ring of `parity` (one
  // fetch-and-add each, completed together).
  void reserve(std::span<packets::Outgoing> batch, int parity) const {
    for (packets::Outgoing& packet : batch)
      MPI_Fetch_and_op(&packet.bytes, &packet.reserved, MPI_UINT64_T, rank_of(packet.index),
                       reserved(parity), MPI_SUM, window_.get());
    flush(batch);
  }

  void put(const packets::Outgoing& packet, int parity, std::uint64_t position, std::uint64_t from,
           std::uint64_t length) const {
    const int bytes = static_cast<int>(length);
    MPI_Put(packet.data + from, bytes, MPI_BYTE, rank_of(packet.index),
            remote_displacement(packet.index, parity, position), bytes, MPI_BYTE, window_.get());
  }
  // The puts are complete at their targets.
  void order(std::span<const packets::Outgoing> batch) const { flush(batch); }
  // MPI_REPLACE, so that the receiver never reads half a seal.
  void put_seal(const packets::Outgoing& packet, int parity, std::uint64_t position) const {
    MPI_Accumulate(packet.data, 1, MPI_UINT64_T, rank_of(packet.index),
                   remote_displacement(packet.index, parity, position), 1, MPI_UINT64_T,
                   MPI_REPLACE, window_.get());
  }
  void complete_writes() const { window_.flush_all(); }
  void sync_incoming() const { MPI_Win_sync(window_.get()); }

 private:
  static constexpr std::uint64_t kCountersBytes = 64;
  static MPI_Aint reserved(int parity) { return parity * 8; }
  static MPI_Aint consumed(int parity) { return 16 + parity * 8; }

  int rank_of(int index) const { return neighbours_[static_cast<size_t>(index)]; }
  // Where, in neighbour `index`'s window, byte `position` of its ring of
  // `parity` is.
  MPI_Aint remote_displacement(int index, int parity, std::uint64_t position) const {
    return static_cast<MPI_Aint>(kCountersBytes + parity * rings_[static_cast<size_t>(index)] +
                                 position);
  }
  // Remote completion of everything issued to the destinations of `batch`.
  void flush(std::span<const packets::Outgoing> batch) const {
    if (batch.size() == 1)
      MPI_Win_flush(rank_of(batch[0].index), window_.get());
    else
      window_.flush_all();
  }
  std::uint64_t fetch(int rank, MPI_Aint at) const {
    std::uint64_t ignored = 0, value = 0;
    MPI_Fetch_and_op(&ignored, &value, MPI_UINT64_T, rank, at, MPI_NO_OP, window_.get());
    MPI_Win_flush(rank, window_.get());
    return value;
  }
  void replace(MPI_Aint at, std::uint64_t value) const {
    std::uint64_t old = 0;
    MPI_Fetch_and_op(&value, &old, MPI_UINT64_T, rank_, at, MPI_REPLACE, window_.get());
    MPI_Win_flush(rank_, window_.get());
  }

  std::vector<int> neighbours_;
  std::vector<std::uint64_t> rings_;
  std::uint64_t ring_bytes_ = 0;
  int rank_;
  std::uint64_t bytes_ = 0;
  Window window_;
};

}  // namespace

std::unique_ptr<Exchange> make_rma_fence_exchange(const Comm& comm, Neighborhood nb) {
  return make_packet_exchange<PacketWindow>(comm, std::move(nb), packets::Seal::fence, "rma-fence");
}
std::unique_ptr<Exchange> make_rma_hash_exchange(const Comm& comm, Neighborhood nb) {
  return make_packet_exchange<PacketWindow>(comm, std::move(nb), packets::Seal::hash, "rma-hash");
}

}  // namespace gc
