#include "core/barrier.hpp"

#include "core/flavour.hpp"

namespace gc {

void NonblockingBarrier::enter() {
  active_ = true;
  if constexpr (flavour::library_ibarrier_synchronizes) {
    MPI_Ibarrier(comm_.get(), &requests_[0]);
    return;
  }
  round_ = 0;
  start_round();
}

// Round k's messages carry tag k: a rank that is already in the next barrier
// signals with the same tags, but messages between two ranks do not
// overtake, so each receive takes its own barrier's signal.
void NonblockingBarrier::start_round() {
  const int p = comm_.size(), me = comm_.rank(), distance = 1 << round_;
  if (distance >= p) return;
  MPI_Irecv(&received_, 1, MPI_CHAR, (me - distance % p + p) % p, round_, comm_.get(),
            &requests_[0]);
  MPI_Isend(&token_, 1, MPI_CHAR, (me + distance) % p, round_, comm_.get(), &requests_[1]);
}

bool NonblockingBarrier::completed() {
  if (!active_) return true;
  while (true) {
    int flag = 0;
    MPI_Testall(2, requests_.data(), &flag, MPI_STATUSES_IGNORE);
    if (!flag) return false;
    if (flavour::library_ibarrier_synchronizes || (1 << ++round_) >= comm_.size()) break;
    start_round();
  }
  active_ = false;
  return true;
}

}  // namespace gc
