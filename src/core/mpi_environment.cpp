// MpiEnvironment apart from the rest of core/mpi.cpp: it alone needs
// OpenSHMEM (to finalize it), so code without it (the LD_PRELOAD library of
// nbr/) can use the MPI owners.
#include <cstdlib>

#include "core/mpi.hpp"
#include "core/shmem.hpp"

namespace gc {

MpiEnvironment::MpiEnvironment(int* argc, char*** argv) {
#if GRAPHCOMM_HAVE_OPENSHMEM
  // Open MPI 4.1's memory patcher hooks crash a process that loaded oshmem
  // at finalize (signal 11) when osc rdma was used. scripts/gcrun passes
  // `--mca memory ^patcher`; this covers a run without it (a singleton, or
  // a plain mpirun). The framework reads it in MPI_Init; a user's value wins.
  setenv("OMPI_MCA_memory", "^patcher", 0);
#endif
  int provided = 0;
  MPI_Init_thread(argc, argv, MPI_THREAD_SINGLE, &provided);
  // Errors on communicators become return codes we turn into gc::Error only
  // where we check them; by default MPI aborts, which is what we want for
  // internal failures (never a hang).
}

// shmem_finalize() instead when OpenSHMEM was started (see core/shmem.hpp).
MpiEnvironment::~MpiEnvironment() {
  finalize_mpi();
}

}  // namespace gc
