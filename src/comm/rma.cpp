// rma: MPI-3 one-sided, passive target (Ghosh et al., IPDPS 2019, section
// III-B). One MPI_Win_lock_all epoch for the whole run. The window holds, for
// each neighbour, a region as large as the most that neighbour will send in
// one round (its capacity, bounded by the flow control of round_exchange.hpp;
// a prefix sum over those bounds); each rank learns its offset in every
// neighbour's window once, by MPI_Neighbor_alltoall. A round: MPI_Put of the
// buffered messages (one put per queue chunk) at the start of my region in each neighbour's window,
// MPI_Win_flush_all (remote completion), MPI_Neighbor_alltoall of the counts,
// MPI_Win_sync, then the receiver reads its regions. A region is overwritten
// only in the next round, after the global reduction in done(), which every
// rank enters only after reading.
#include <fmt/format.h>

#include "comm/round_exchange.hpp"
#include "core/window.hpp"

namespace gc {

namespace {

class RmaExchange final : public RoundExchange {
 public:
  RmaExchange(const Comm& comm, Neighborhood nb) : RoundExchange(comm, std::move(nb)) {
    topology_ = comm.dist_graph_adjacent(neighborhood_.ranks);
    const size_t k = neighborhood_.ranks.size();
    // What each neighbour may send me in a round, hence my regions and their
    // offsets (the sender's bound: it is the one that enforces it).
    std::vector<std::uint64_t> incoming_capacity(k), my_offsets(k), remote(k);
    outgoing_capacity_.resize(k);
    for (size_t i = 0; i < k; ++i) outgoing_capacity_[i] = round_bound(neighborhood_.capacity[i]);
    neighbor_alltoall(nonnull(outgoing_capacity_), 1, MPI_UINT64_T, nonnull(incoming_capacity), 1,
                      MPI_UINT64_T, topology_.get());
    region_begin_.resize(k + 1, 0);
    for (size_t i = 0; i < k; ++i) {
      my_offsets[i] = region_begin_[i];
      region_begin_[i + 1] = region_begin_[i] + incoming_capacity[i];
    }
    neighbor_alltoall(nonnull(my_offsets), 1, MPI_UINT64_T, nonnull(remote), 1, MPI_UINT64_T,
                      topology_.get());
    remote_offset_ = std::move(remote);

    window_ = Window(comm, region_begin_[k] * sizeof(Message), static_cast<int>(sizeof(Message)),
                     {{"same_disp_unit", "true"}, {"accumulate_ops", "same_op_no_op"}},
                     neighborhood_.ranks);
  }

  const char* name() const override { return "rma"; }
  // The window (every neighbour's region) and the round's queues.
  std::uint64_t buffer_bytes() const override {
    return region_begin_.back() * sizeof(Message) + queue_bytes();
  }

 protected:
  void transfer() override {
    const size_t k = neighborhood_.ranks.size();
    for (size_t i = 0; i < k; ++i) {
      if (out_counts_[i] == 0) continue;
      if (out_counts_[i] > outgoing_capacity_[i])
        fail(fmt::format("internal: rma region for rank {} too small ({} > {})",
                         neighborhood_.ranks[i], out_counts_[i], outgoing_capacity_[i]));
      std::uint64_t at = remote_offset_[i];
      for_each_batch_piece(i, [&](std::span<const Message> piece) {
        const int count = checked_count(piece.size(), "MPI_Put count");
        MPI_Put(piece.data(), count, record_type<Message>(), neighborhood_.ranks[i],
                static_cast<MPI_Aint>(at), count, record_type<Message>(), window_.get());
        at += piece.size();
      });
    }
    window_.flush_all();
    neighbor_alltoall(nonnull(out_counts_), 1, MPI_UINT64_T, nonnull(in_counts_), 1, MPI_UINT64_T,
                      topology_.get());
    MPI_Win_sync(window_.get());  // make the neighbours' puts visible to my loads
  }

  std::span<const Message> incoming(size_t i) const override {
    const Message* region = static_cast<const Message*>(window_.base()) + region_begin_[i];
    return {region, region + in_counts_[i]};
  }

 private:
  Comm topology_;
  Window window_;
  std::vector<std::uint64_t> region_begin_, remote_offset_, outgoing_capacity_;
};

}  // namespace

std::unique_ptr<Exchange> make_rma_exchange(const Comm& comm, Neighborhood nb) {
  return Exchange::make_timed<RmaExchange>(comm, std::move(nb));
}

}  // namespace gc
