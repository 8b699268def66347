// nsr: nonblocking Send-Recv, the baseline model of Ghosh et al. (IPDPS 2019,
// section III-A): one MPI_Isend per message, no aggregation; receives by
// MPI_Iprobe(MPI_ANY_SOURCE) + MPI_Recv. Termination is local: once a rank is
// settled it tells each neighbour how many messages it sent it (DONE), and a
// rank finishes when every neighbour said DONE and all announced messages
// arrived. Send slots are sized once from the neighbourhood's capacities, so
// an Isend buffer is never moved or reused.
#include <fmt/format.h>

#include "comm/exchange.hpp"

namespace gc {

namespace {

constexpr int kTagData = 1;
constexpr int kTagDone = 2;

class NsrExchange final : public Exchange {
 public:
  NsrExchange(const Comm& comm, Neighborhood nb) : Exchange(comm, std::move(nb)) {
    const double start = MPI_Wtime();
    comm_dup_ = comm.dup();
    const size_t k = neighborhood_.ranks.size();
    index_of_rank_.assign(static_cast<size_t>(comm.size()), -1);
    slot_begin_.resize(k + 1, 0);
    for (size_t i = 0; i < k; ++i) {
      index_of_rank_[static_cast<size_t>(neighborhood_.ranks[i])] = static_cast<int>(i);
      slot_begin_[i + 1] = slot_begin_[i] + neighborhood_.capacity[i];
    }
    slots_.resize(slot_begin_[k]);
    sent_.assign(k, 0);
    received_.assign(k, 0);
    announced_.assign(k, kUnknown);
    done_counts_.assign(k, 0);
    setup_seconds_ = MPI_Wtime() - start;
  }

  const char* name() const override { return "nsr"; }

  void push(int index, const Message& message) override {
    const size_t i = static_cast<size_t>(index);
    if (done_sent_) fail("internal: nsr push after this rank announced DONE");
    if (sent_[i] >= neighborhood_.capacity[i])
      fail(fmt::format("internal: nsr capacity {} to rank {} exceeded", neighborhood_.capacity[i],
                       neighborhood_.ranks[i]));
    Message& slot = slots_[slot_begin_[i] + sent_[i]++];
    slot = message;
    MPI_Request request;
    MPI_Isend(&slot, 1, record_type<Message>(), neighborhood_.ranks[i], kTagData, comm_dup_.get(),
              &request);
    requests_.push_back(request);
    count(index, 1);
  }

  void evoke() override {
    // Retire completed sends so the request list stays short.
    if (requests_.empty()) return;
    int completed = 0;
    indices_.resize(requests_.size());
    MPI_Testsome(static_cast<int>(requests_.size()), requests_.data(), &completed, indices_.data(),
                 MPI_STATUSES_IGNORE);
    if (completed == MPI_UNDEFINED || completed == 0) return;
    std::erase(requests_, MPI_REQUEST_NULL);
  }

  void process(const std::function<void(int, const Message&)>& handle) override {
    while (true) {
      int flag = 0;
      MPI_Status status;
      MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm_dup_.get(), &flag, &status);
      if (!flag) return;
      const int index = index_of_rank_[static_cast<size_t>(status.MPI_SOURCE)];
      if (index < 0)
        fail(fmt::format("internal: nsr message from non-neighbour rank {}", status.MPI_SOURCE));
      const size_t i = static_cast<size_t>(index);
      if (status.MPI_TAG == kTagData) {
        Message message;
        MPI_Recv(&message, 1, record_type<Message>(), status.MPI_SOURCE, kTagData, comm_dup_.get(),
                 MPI_STATUS_IGNORE);
        ++received_[i];
        handle(index, message);
      } else {
        std::uint64_t announced = 0;
        MPI_Recv(&announced, 1, MPI_UINT64_T, status.MPI_SOURCE, kTagDone, comm_dup_.get(),
                 MPI_STATUS_IGNORE);
        announced_[i] = announced;
      }
    }
  }

  bool done(bool locally_settled) override {
    const size_t k = neighborhood_.ranks.size();
    if (locally_settled && !done_sent_) {
      for (size_t i = 0; i < k; ++i) {
        done_counts_[i] = sent_[i];
        MPI_Request request;
        MPI_Isend(&done_counts_[i], 1, MPI_UINT64_T, neighborhood_.ranks[i], kTagDone,
                  comm_dup_.get(), &request);
        requests_.push_back(request);
      }
      done_sent_ = true;
    }
    if (!done_sent_) return false;
    for (size_t i = 0; i < k; ++i)
      if (announced_[i] == kUnknown || received_[i] != announced_[i]) return false;
    // Everything addressed to me arrived; wait for my own sends to complete
    // (their receivers are draining them).
    MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
    requests_.clear();
    return true;
  }

 private:
  static constexpr std::uint64_t kUnknown = ~0ULL;
  Comm comm_dup_;  // a private context: our tags never meet anybody else's
  std::vector<int> index_of_rank_;
  std::vector<std::uint64_t> slot_begin_;
  std::vector<Message> slots_;
  std::vector<std::uint64_t> sent_, received_, announced_, done_counts_;
  std::vector<MPI_Request> requests_;
  std::vector<int> indices_;
  bool done_sent_ = false;
};

}  // namespace

std::unique_ptr<Exchange> make_nsr_exchange(const Comm& comm, Neighborhood nb) {
  return std::make_unique<NsrExchange>(comm, std::move(nb));
}

}  // namespace gc
