/* message_rate: what one small message costs the ranks that send and receive
 * it, the per-message overhead (LogGP's o) that scripts/simulate's platforms
 * charge. Two ranks; each posts MESSAGES receives of 4 bytes from the other,
 * then as many sends to it, and waits for all; REPS rounds, best of 5. Prints
 * the time per message: one send and one receive on each rank, so the
 * overhead at each end is half of it when latency is hidden (it is, with 64
 * messages in flight).
 *
 *   mpirun -np 2 message_rate            (this machine: Open MPI)
 *   scripts/simulate -np 2 --platform this-machine --communication-only message_rate
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { MESSAGES = 64, REPS = 2000 };

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2) {
    if (rank == 0) fprintf(stderr, "message_rate: run it on 2 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int* out = calloc(MESSAGES, sizeof(int));
  int* in = calloc(MESSAGES, sizeof(int));
  MPI_Request req[2 * MESSAGES];
  double best = 1e30;
  for (int t = 0; t < 5; ++t) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    for (int k = 0; k < REPS; ++k) {
      for (int i = 0; i < MESSAGES; ++i)
        MPI_Irecv(in + i, 1, MPI_INT, 1 - rank, i, MPI_COMM_WORLD, &req[i]);
      for (int i = 0; i < MESSAGES; ++i)
        MPI_Isend(out + i, 1, MPI_INT, 1 - rank, i, MPI_COMM_WORLD, &req[MESSAGES + i]);
      MPI_Waitall(2 * MESSAGES, req, MPI_STATUSES_IGNORE);
    }
    const double per = (MPI_Wtime() - t0) / REPS / MESSAGES;
    if (per < best) best = per;
  }
  if (rank == 0) printf("message_rate: %.3f us per message (a send and a receive on each rank)\n", best * 1e6);
  free(out), free(in);
  MPI_Finalize();
  return 0;
}
