/* The cost of one small message between two ranks, both sending at once:
 * the floor under any model that sends each message on its own (nsr).
 *
 *   mpicc -O2 bench/refs/message_rate.c -o message_rate
 *   scripts/gcrun -np 2 ./message_rate [MESSAGES]
 *
 * Each rank sends MESSAGES 16-byte messages (a relaxation's size) to the
 * other by MPI_Isend, at most WINDOW in flight, and receives as many, in two
 * ways: by MPI_Iprobe(MPI_ANY_SOURCE) + MPI_Recv, as graphcomm's nsr does
 * (Ghosh et al.'s Send-Recv baseline), and into receives kept posted
 * (MPI_Irecv, WINDOW of them), the cheapest way MPI offers. Prints, per way
 * and repetition, microseconds per message a rank sends and receives (max
 * over the ranks' times). */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

enum { WINDOW = 256, REPEAT = 3 };

typedef struct {
  uint64_t target, distance;
} message;

static void receive_probed(long* got, long n) {
  int flag = 1;
  while (flag && *got < n) {
    MPI_Status status;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &status);
    if (flag) {
      message m;
      MPI_Recv(&m, sizeof m, MPI_BYTE, status.MPI_SOURCE, status.MPI_TAG, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
      ++*got;
    }
  }
}

static void receive_posted(long* got, long* posted, long n, int peer, message* in,
                           MPI_Request* requests) {
  int flag = 1;
  while (flag && *got < n) {
    const long slot = *got % WINDOW;
    MPI_Test(&requests[slot], &flag, MPI_STATUS_IGNORE);
    if (flag) {
      ++*got;
      if (*posted < n) {
        MPI_Irecv(&in[slot], sizeof(message), MPI_BYTE, peer, 0, MPI_COMM_WORLD, &requests[slot]);
        ++*posted;
      }
    }
  }
}

static double run(int posted_receives, long n, int peer) {
  message out[WINDOW], in[WINDOW];
  MPI_Request sends[WINDOW], receives[WINDOW];
  for (int i = 0; i < WINDOW; ++i) sends[i] = receives[i] = MPI_REQUEST_NULL;
  long sent = 0, got = 0, posted = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  if (posted_receives)
    for (; posted < WINDOW && posted < n; ++posted)
      MPI_Irecv(&in[posted], sizeof(message), MPI_BYTE, peer, 0, MPI_COMM_WORLD, &receives[posted]);
  while (sent < n || got < n) {
    if (sent < n) {
      const long slot = sent % WINDOW;
      MPI_Wait(&sends[slot], MPI_STATUS_IGNORE);
      out[slot].target = (uint64_t)sent;
      out[slot].distance = 0;
      MPI_Isend(&out[slot], sizeof(message), MPI_BYTE, peer, 0, MPI_COMM_WORLD, &sends[slot]);
      ++sent;
    }
    if (posted_receives)
      receive_posted(&got, &posted, n, peer, in, receives);
    else
      receive_probed(&got, n);
  }
  MPI_Waitall(WINDOW, sends, MPI_STATUSES_IGNORE);
  const double seconds = MPI_Wtime() - start;
  double slowest;
  MPI_Allreduce(&seconds, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return slowest;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const long n = argc > 1 ? atol(argv[1]) : 200000;
  if (size != 2 || n <= 0) {
    if (rank == 0) fprintf(stderr, "message_rate: 2 ranks and a positive message count\n");
    MPI_Finalize();
    return 2;
  }
  for (int way = 0; way < 2; ++way)
    for (int repetition = 0; repetition < REPEAT; ++repetition) {
      const double seconds = run(way, n, 1 - rank);
      if (rank == 0)
        printf("%-22s %ld messages each way: %.3f s, %.3f us per message\n",
               way ? "isend, posted irecv" : "isend, iprobe + recv", n, seconds,
               seconds / (double)n * 1e6);
    }
  MPI_Finalize();
  return 0;
}
