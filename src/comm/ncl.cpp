// ncl: MPI-3 neighborhood collectives (Ghosh et al., IPDPS 2019, section
// III-C): a distributed graph topology built from the ghost relation
// (MPI_Dist_graph_create_adjacent); per round, MPI_Neighbor_alltoall for the
// counts and MPI_Neighbor_alltoallv for the data.
//
// ncl-combined: the same, with both collectives done by a collaborative plan
// of nbr/ (friend groups combine the messages to their common neighbours;
// Ghazimirsaeed, Mirsadeghi, Afsahi), built once with the topology
// (distributed, or on rank 0 with ExchangeOptions::gathered_plan).
#include <optional>

#include "comm/round_exchange.hpp"
#include "nbr/collectives.hpp"

namespace gc {

namespace {

class NclExchange final : public RoundExchange {
 public:
  NclExchange(const Comm& comm, Neighborhood nb, bool combined)
      : RoundExchange(comm, std::move(nb)) {
    topology_ = comm.dist_graph_adjacent(neighborhood_.ranks);
    if (combined) {
      nbr::PlanOptions plan;
      plan.gathered = neighborhood_.options.gathered_plan;
      combined_.emplace(topology_.get(), plan);
    }
    const size_t k = neighborhood_.ranks.size();
    send_counts_.resize(k);
    send_displs_.resize(k);
    recv_counts_.resize(k);
    recv_displs_.resize(k + 1);
  }
  const char* name() const override { return combined_ ? "ncl-combined" : "ncl"; }
  const nbr::Plan* combined_plan() const override {
    return combined_ ? &combined_->plan() : nullptr;
  }
  // The round's queues and the collective's send and receive arrays, at their
  // high-water capacity (they grow with the largest round).
  std::uint64_t buffer_bytes() const override {
    return queue_bytes() + (send_buffer_.capacity() + received_.capacity()) * sizeof(Message);
  }

 protected:
  void transfer() override {
    const size_t k = neighborhood_.ranks.size();
    if (combined_)
      combined_->alltoall(nonnull(out_counts_), 1, MPI_UINT64_T, nonnull(in_counts_), 1,
                          MPI_UINT64_T);
    else
      neighbor_alltoall(nonnull(out_counts_), 1, MPI_UINT64_T, nonnull(in_counts_), 1, MPI_UINT64_T,
                        topology_.get());
    send_buffer_.clear();
    int out_at = 0, in_at = 0;
    for (size_t i = 0; i < k; ++i) {
      send_counts_[i] = checked_count(out_counts_[i], "neighbor_alltoallv count");
      send_displs_[i] = out_at;
      out_at += send_counts_[i];
      for_each_batch_piece(i, [&](std::span<const Message> piece) {
        send_buffer_.insert(send_buffer_.end(), piece.begin(), piece.end());
      });
      recv_counts_[i] = checked_count(in_counts_[i], "neighbor_alltoallv count");
      recv_displs_[i] = in_at;
      in_at += recv_counts_[i];
    }
    recv_displs_[k] = in_at;
    received_.resize(static_cast<size_t>(in_at));
    if (combined_)
      combined_->alltoallv(nonnull(send_buffer_), nonnull(send_counts_), nonnull(send_displs_),
                           record_type<Message>(), nonnull(received_), nonnull(recv_counts_),
                           nonnull(recv_displs_), record_type<Message>());
    else
      neighbor_alltoallv(nonnull(send_buffer_), nonnull(send_counts_), nonnull(send_displs_),
                         record_type<Message>(), nonnull(received_), nonnull(recv_counts_),
                         nonnull(recv_displs_), record_type<Message>(), topology_.get());
  }
  std::span<const Message> incoming(size_t i) const override {
    return {received_.data() + recv_displs_[i], received_.data() + recv_displs_[i + 1]};
  }

 private:
  Comm topology_;
  std::optional<nbr::Collectives> combined_;  // ncl-combined's plan
  std::vector<int> send_counts_, send_displs_, recv_counts_, recv_displs_;
  std::vector<Message> send_buffer_, received_;
};

}  // namespace

std::unique_ptr<Exchange> make_ncl_exchange(const Comm& comm, Neighborhood nb) {
  return Exchange::make_timed<NclExchange>(comm, std::move(nb), false);
}

std::unique_ptr<Exchange> make_ncl_combined_exchange(const Comm& comm, Neighborhood nb) {
  return Exchange::make_timed<NclExchange>(comm, std::move(nb), true);
}

}  // namespace gc
