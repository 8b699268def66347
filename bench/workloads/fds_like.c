/* fds_like: an FDS-like many-to-one workload for the matching tracer, written
 * from the description of FDS 6.1.2 in Ghazimirsaeed, Mirsadeghi and Afsahi,
 * "Communication-aware message matching in MPI" (CCPE 2018), section 6: each
 * process sends a number of messages to process 0 with MPI_Send, process 0
 * receives them with blocking MPI_Recv, and MPI_Gatherv is used; process 0
 * is the only process with long queues. No FDS code.
 *
 * Meshes are numbered in rank order: rank r holds between --meshes-min and
 * --meshes-max of them (drawn from --seed, the same on every rank). A time
 * step:
 *  1. every rank works --work-us per mesh it holds (a busy wait); rank 0
 *     then sleeps --root-delay-us (FDS's process 0 writes the output), so
 *     that the others' messages wait in its queues when it starts receiving;
 *  2. every other rank sends, mesh by mesh, --messages messages of --doubles
 *     doubles to rank 0 with MPI_Send, tag = the message's quantity; rank 0
 *     receives them with blocking MPI_Recv in the same order: mesh by mesh in
 *     mesh order (so source by source), quantity by quantity;
 *  3. an MPI_Gatherv of one double per mesh to rank 0. By default it is
 *     written out as MPICH's linear algorithm (MVAPICH2's too), on a
 *     duplicate of MPI_COMM_WORLD as a library's collective context: the
 *     root posts an MPI_Irecv per rank in rank order and waits for all, the
 *     others MPI_Send; so the matching tracer, which does not see inside
 *     collectives, records it. --gatherv library calls MPI_Gatherv;
 *  4. an MPI_Allreduce (FDS's time-step control) ends the step.
 * Rank 0 checks every value it receives and prints one line.
 *
 *   fds_like [--steps S] [--meshes-min A] [--meshes-max B] [--messages K]
 *            [--doubles D] [--work-us W] [--root-delay-us T]
 *            [--gatherv linear|library] [--seed X]
 */
#include <getopt.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct options {
  long steps, meshes_min, meshes_max, messages, doubles, work_us, root_delay_us;
  int library_gatherv;
  unsigned long long seed;
};

/* One line on rank 0 for bad options; every rank returns non-zero. */
static int parse(int argc, char** argv, struct options* o, int rank) {
  static const struct option longs[] = {
      {"steps", required_argument, 0, 's'},         {"meshes-min", required_argument, 0, 'a'},
      {"meshes-max", required_argument, 0, 'b'},    {"messages", required_argument, 0, 'k'},
      {"doubles", required_argument, 0, 'd'},       {"work-us", required_argument, 0, 'w'},
      {"root-delay-us", required_argument, 0, 't'}, {"gatherv", required_argument, 0, 'g'},
      {"seed", required_argument, 0, 'x'},          {0, 0, 0, 0}};
  struct {
    int key;
    long* value;
    long lo, hi;
  } ranges[] = {{'s', &o->steps, 1, 100000},          {'a', &o->meshes_min, 1, 1000},
                {'b', &o->meshes_max, 1, 1000},       {'k', &o->messages, 1, 1000},
                {'d', &o->doubles, 4, 1 << 16},       {'w', &o->work_us, 0, 1000000},
                {'t', &o->root_delay_us, 0, 10000000}};
  *o = (struct options){4, 1, 4, 4, 8, 50, 20000, 0, 1};
  opterr = 0;
  for (int c; (c = getopt_long(argc, argv, "", longs, NULL)) != -1;) {
    char* end = NULL;
    if (c == 'g') {
      if (strcmp(optarg, "linear") != 0 && strcmp(optarg, "library") != 0) {
        if (rank == 0) fprintf(stderr, "fds_like: --gatherv must be linear or library\n");
        return 2;
      }
      o->library_gatherv = strcmp(optarg, "library") == 0;
      continue;
    }
    if (c == 'x') {
      o->seed = strtoull(optarg, &end, 10);
      if (*optarg == '\0' || *end != '\0') {
        if (rank == 0) fprintf(stderr, "fds_like: --seed must be a number, not '%s'\n", optarg);
        return 2;
      }
      continue;
    }
    int known = 0;
    for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; ++i) {
      if (ranges[i].key != c) continue;
      known = 1;
      const long v = strtol(optarg, &end, 10);
      if (*optarg == '\0' || *end != '\0' || v < ranges[i].lo || v > ranges[i].hi) {
        if (rank == 0)
          fprintf(stderr, "fds_like: --%s must be %ld to %ld, not '%s'\n", longs[i].name,
                  ranges[i].lo, ranges[i].hi, optarg);
        return 2;
      }
      *ranges[i].value = v;
    }
    if (!known) {
      if (rank == 0) fprintf(stderr, "fds_like: unknown option '%s'\n", argv[optind - 1]);
      return 2;
    }
  }
  if (optind < argc || o->meshes_min > o->meshes_max) {
    if (rank == 0)
      fprintf(stderr,
              optind < argc ? "fds_like: unexpected argument '%s'\n"
                            : "fds_like: --meshes-min is above --meshes-max%s\n",
              optind < argc ? argv[optind] : "");
    return 2;
  }
  return 0;
}

static unsigned long long splitmix(unsigned long long x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e6 + (double)t.tv_nsec * 1e-3;
}

/* What message (quantity q of mesh m at step s) carries in slot i: rank 0
 * recomputes it to check. */
static double value(long s, long m, long q, long i) {
  return (double)(((s * 1000003 + m) * 1009 + q) * 64 + i);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  struct options o;
  if (parse(argc, argv, &o, rank) != 0) {
    MPI_Finalize();
    return 2;
  }
  /* Meshes per rank and the first mesh of each rank. */
  long* first = malloc(sizeof(long) * (size_t)(size + 1));
  first[0] = 0;
  for (int r = 0; r < size; ++r)
    first[r + 1] = first[r] + o.meshes_min +
                   (long)(splitmix(o.seed * 0x100000001ULL + (unsigned long long)r) %
                          (unsigned long long)(o.meshes_max - o.meshes_min + 1));
  const long meshes = first[size], mine = first[rank + 1] - first[rank];
  MPI_Comm coll;
  MPI_Comm_dup(MPI_COMM_WORLD, &coll);
  double* buf = malloc(sizeof(double) * (size_t)o.doubles);
  double* gathered = malloc(sizeof(double) * (size_t)meshes);
  double* part = malloc(sizeof(double) * (size_t)mine);
  int* counts = malloc(sizeof(int) * (size_t)size);
  int* displs = malloc(sizeof(int) * (size_t)size);
  MPI_Request* requests = malloc(sizeof(MPI_Request) * (size_t)size);
  for (int r = 0; r < size; ++r) {
    counts[r] = (int)(first[r + 1] - first[r]);
    displs[r] = (int)first[r];
  }
  long received = 0, bad = 0;
  for (long s = 0; s < o.steps; ++s) {
    const double until = now_us() + (double)(o.work_us * mine);
    while (now_us() < until) {
    }
    if (rank == 0 && o.root_delay_us > 0) {
      const struct timespec d = {o.root_delay_us / 1000000, (o.root_delay_us % 1000000) * 1000};
      nanosleep(&d, NULL);
    }
    /* 2. Every mesh's quantities to rank 0, received mesh by mesh. */
    if (rank != 0) {
      for (long m = first[rank]; m < first[rank + 1]; ++m)
        for (long q = 0; q < o.messages; ++q) {
          for (long i = 0; i < o.doubles; ++i) buf[i] = value(s, m, q, i);
          MPI_Send(buf, (int)o.doubles, MPI_DOUBLE, 0, (int)q, MPI_COMM_WORLD);
        }
    } else {
      int owner = 0;
      for (long m = first[1]; m < meshes; ++m) {
        while (first[owner + 1] <= m) ++owner;
        for (long q = 0; q < o.messages; ++q) {
          MPI_Recv(buf, (int)o.doubles, MPI_DOUBLE, owner, (int)q, MPI_COMM_WORLD,
                   MPI_STATUS_IGNORE);
          ++received;
          for (long i = 0; i < o.doubles; ++i) bad += buf[i] != value(s, m, q, i);
        }
      }
    }
    /* 3. One value per mesh to rank 0. */
    for (long m = 0; m < mine; ++m) part[m] = value(s, first[rank] + m, -1, 0);
    if (o.library_gatherv) {
      MPI_Gatherv(part, (int)mine, MPI_DOUBLE, gathered, counts, displs, MPI_DOUBLE, 0, coll);
    } else if (rank == 0) {
      for (int r = 1; r < size; ++r)
        MPI_Irecv(gathered + displs[r], counts[r], MPI_DOUBLE, r, 0, coll, &requests[r - 1]);
      memcpy(gathered, part, sizeof(double) * (size_t)mine);
      MPI_Waitall(size - 1, requests, MPI_STATUSES_IGNORE);
    } else {
      MPI_Send(part, (int)mine, MPI_DOUBLE, 0, 0, coll);
    }
    if (rank == 0)
      for (long m = 0; m < meshes; ++m) bad += gathered[m] != value(s, m, -1, 0);
    /* 4. The step's end. */
    double dt = 1.0 / (double)(rank + 1), smallest = 0;
    MPI_Allreduce(&dt, &smallest, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
  }
  if (rank == 0)
    printf(
        "fds_like: %d ranks, %ld meshes (%ld to %ld a rank), %ld steps, %ld messages a mesh: "
        "rank 0 received %ld messages and %ld gathered values, check %s\n",
        size, meshes, o.meshes_min, o.meshes_max, o.steps, o.messages, received, meshes * o.steps,
        bad == 0 ? "OK" : "FAILED");
  MPI_Bcast(&bad, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  MPI_Comm_free(&coll);
  free(first);
  free(buf);
  free(gathered);
  free(part);
  free(counts);
  free(displs);
  free(requests);
  MPI_Finalize();
  return bad == 0 ? 0 : 1;
}
