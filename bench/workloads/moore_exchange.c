/* moore_exchange: the simple case to check a simulated platform against by
 * hand. Every rank of a d = 2 torus of P = side^2 ranks sends B bytes to each
 * of its (2r+1)^2 - 1 Moore neighbours (isend/irecv, then waitall); one
 * warm-up call, then CALLS timed calls between barriers; rank 0 prints the
 * mean time of one call (the maximum over ranks).
 *
 *   moore_exchange [r=4] [bytes=4] [calls=5]
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int r = argc > 1 ? atoi(argv[1]) : 4, bytes = argc > 2 ? atoi(argv[2]) : 4,
            calls = argc > 3 ? atoi(argv[3]) : 5;
  const int side = (int)lround(sqrt((double)size));
  if (side * side != size || 2 * r + 1 > side) {
    if (rank == 0) fprintf(stderr, "moore_exchange: ranks must be a square of side >= 2r+1\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int k = (2 * r + 1) * (2 * r + 1) - 1;
  int* peers = malloc(sizeof(int) * k);
  int n = 0;
  for (int dx = -r; dx <= r; ++dx)
    for (int dy = -r; dy <= r; ++dy)
      if (dx || dy)
        peers[n++] = ((rank / side + dx + side) % side) * side + (rank % side + dy + side) % side;
  char* out = calloc((size_t)k, (size_t)bytes);
  char* in = calloc((size_t)k, (size_t)bytes);
  MPI_Request* req = malloc(sizeof(MPI_Request) * 2 * k);
  double total = 0;
  for (int c = 0; c <= calls; ++c) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    for (int i = 0; i < k; ++i)
      MPI_Irecv(in + (size_t)i * bytes, bytes, MPI_BYTE, peers[i], 0, MPI_COMM_WORLD, &req[i]);
    for (int i = 0; i < k; ++i)
      MPI_Isend(out + (size_t)i * bytes, bytes, MPI_BYTE, peers[i], 0, MPI_COMM_WORLD,
                &req[k + i]);
    MPI_Waitall(2 * k, req, MPI_STATUSES_IGNORE);
    if (c > 0) total += MPI_Wtime() - t0;
  }
  double mean = total / calls, max = 0;
  MPI_Reduce(&mean, &max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("moore_exchange P=%d r=%d neighbours=%d bytes=%d: %.3f us per call\n", size, r, k, bytes, max * 1e6);
  free(peers), free(out), free(in), free(req);
  MPI_Finalize();
  return 0;
}
