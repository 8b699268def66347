// GoogleTest main for MPI tests: every rank runs every test; only rank 0
// prints; the exit code is non-zero when a test failed on any rank.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdio>

#include "core/shmem.hpp"

namespace {
// Reports failures from ranks other than 0, which print nothing else.
class FailureReporter : public testing::EmptyTestEventListener {
 public:
  explicit FailureReporter(int rank) : rank_(rank) {}
  void OnTestPartResult(const testing::TestPartResult& result) override {
    if (result.failed())
      std::fprintf(stderr, "[rank %d] %s:%d: failure\n%s\n", rank_,
                   result.file_name() ? result.file_name() : "?", result.line_number(),
                   result.summary());
  }

 private:
  int rank_;
};
}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  testing::InitGoogleTest(&argc, argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) {
    auto& listeners = testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new FailureReporter(rank));
  }
  int failed = RUN_ALL_TESTS() != 0 ? 1 : 0;
  int any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  // shmem_finalize() instead when a test started OpenSHMEM: it ends MPI too.
  gc::finalize_mpi();
  return any;
}
