// MpiEnvironment apart from the rest of core/mpi.cpp: it alone needs
// OpenSHMEM (to finalize it), so code without it (the LD_PRELOAD library of
// nbr/) can use the MPI owners.
#include "core/mpi.hpp"
#include "core/shmem.hpp"

namespace gc {

MpiEnvironment::MpiEnvironment(int* argc, char*** argv) {
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
