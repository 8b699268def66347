/*
 * nbr_alltoallv.c -- side-by-side reference for neighbourhood alltoallv:
 *   (a) MPI_Neighbor_alltoallv on a plain MPI dist-graph communicator
 *   (b) MPIL_Neighbor_alltoallv, NEIGHBOR_ALLTOALLV_STANDARD (MPI Advance)
 *   (c) MPIL_Neighbor_alltoallv_init, NEIGHBOR_ALLTOALLV_INIT_STANDARD,
 *       then MPIL_Start/MPIL_Wait per call
 *   (d) persistent NEIGHBOR_ALLTOALLV_INIT_LOCALITY (3-step node-aware),
 *       either through MPIL_Neighbor_alltoallv_init_ext with explicit global
 *       indices (default, --locality-api ext) or through the plain
 *       MPIL_Neighbor_alltoallv_init (--locality-api plain; the library then
 *       derives the indices itself with an MPI_Exscan + one neighbour exchange).
 *
 * Usage:
 *   nbr_alltoallv --topology FILE --sizes 4,64,1024,4096 --iters N --ppn P
 *                 [--repeat R] [--type auto|char|int] [--locality-api ext|plain]
 *                 [--force-locality]
 *
 * --type auto (default): MPI_INT when the block size is a multiple of 4
 * bytes, else MPI_CHAR.  --force-locality: run (d) even when the topology
 * triggers the library's on-node message-count overflow (see LIMITATION).
 *
 * FILE: one line per rank "r: n1 n2 ..." = rank r's outgoing neighbours
 * (0-based, repeats allowed, empty lists allowed, '#' starts a comment,
 * ranks without a line have no outgoing neighbours, several lines for the
 * same r are concatenated).  Incoming lists are derived: s is an incoming
 * neighbour of r once per occurrence of r in s's list, in increasing s and
 * list order.  Every rank reads the file.
 *
 * Output (rank 0), one line per size:
 *   size=<bytes> mpi_us=.. mpil_std_us=.. mpil_persist_std_us=..
 *   mpil_persist_locality_us=.. check=ok
 * plus '#'-prefixed informational lines (setup, persistent init times,
 * LIMITATION).  mpil_persist_locality_us=NA when (d) was skipped.
 * Exit status 1 and MISMATCH lines if any variant differs from (a) or (a)
 * differs from the independently computed expected values.
 */
#include <ctype.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "locality_aware.h"

/* ------------------------------------------------------------------ */
/* small helpers                                                        */
/* ------------------------------------------------------------------ */
static int g_rank = 0, g_nprocs = 1;

static void die(const char* msg)
{
    if (g_rank == 0) fprintf(stderr, "nbr_alltoallv: %s\n", msg);
    MPI_Abort(MPI_COMM_WORLD, 2);
    exit(2);
}

static void* xmalloc(size_t n)
{
    void* p = malloc(n ? n : 1);
    if (!p) die("out of memory");
    return p;
}

typedef struct { int n, cap; int* v; } IntVec;
static void iv_push(IntVec* a, int x)
{
    if (a->n == a->cap)
    {
        a->cap = a->cap ? 2 * a->cap : 8;
        a->v   = (int*)realloc(a->v, (size_t)a->cap * sizeof(int));
        if (!a->v) die("out of memory");
    }
    a->v[a->n++] = x;
}

static int cmp_double(const void* a, const void* b)
{
    double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

static double median(double* v, int n)
{
    qsort(v, (size_t)n, sizeof(double), cmp_double);
    return (n % 2) ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* 32-bit mix (splitmix-like) of a 64-bit key: value stored in send blocks */
static uint32_t mix32(uint64_t k)
{
    k += 0x9E3779B97F4A7C15ull;
    k = (k ^ (k >> 30)) * 0xBF58476D1CE4E5B9ull;
    k = (k ^ (k >> 27)) * 0x94D049BB133111EBull;
    k ^= k >> 31;
    return (uint32_t)k;
}

/* ------------------------------------------------------------------ */
/* topology file                                                        */
/* ------------------------------------------------------------------ */
/* out[r] = outgoing list of rank r, for all r (every rank parses the file) */
static void read_topology(const char* path, int nprocs, IntVec* out)
{
    FILE* f = fopen(path, "r");
    char msg[512];
    if (!f)
    {
        snprintf(msg, sizeof msg, "%s: cannot open", path);
        die(msg);
    }
    char* line = NULL;
    size_t cap = 0;
    long lineno = 0;
    while (getline(&line, &cap, f) != -1)
    {
        lineno++;
        char* hash = strchr(line, '#');
        if (hash) *hash = '\0';
        char* p = line;
        while (isspace((unsigned char)*p)) p++;
        if (*p == '\0') continue;
        char* end;
        long r = strtol(p, &end, 10);
        if (end == p) goto bad;
        p = end;
        while (isspace((unsigned char)*p)) p++;
        if (*p != ':') goto bad;
        p++;
        if (r < 0 || r >= nprocs)
        {
            snprintf(msg, sizeof msg, "%s:%ld: rank %ld out of range (job has %d ranks)",
                     path, lineno, r, nprocs);
            die(msg);
        }
        for (;;)
        {
            while (isspace((unsigned char)*p)) p++;
            if (*p == '\0') break;
            long d = strtol(p, &end, 10);
            if (end == p || (*end && !isspace((unsigned char)*end))) goto bad;
            if (d < 0 || d >= nprocs)
            {
                snprintf(msg, sizeof msg,
                         "%s:%ld: neighbour %ld out of range (job has %d ranks)", path,
                         lineno, d, nprocs);
                die(msg);
            }
            iv_push(&out[r], (int)d);
            p = end;
        }
        continue;
    bad:
        snprintf(msg, sizeof msg, "%s:%ld: expected 'r: n1 n2 ...'", path, lineno);
        die(msg);
    }
    free(line);
    fclose(f);
}

/* ------------------------------------------------------------------ */
/* options                                                              */
/* ------------------------------------------------------------------ */
typedef struct
{
    const char* topology;
    const char* sizes;
    int iters, ppn, repeat;
    int type; /* 0 auto, 1 char, 2 int */
    int loc_ext;
    int force_locality;
} Options;

static void parse_args(int argc, char** argv, Options* o)
{
    o->topology = NULL;
    o->sizes    = "4,64,1024,4096";
    o->iters    = 100;
    o->ppn      = 0;
    o->repeat   = 3;
    o->type     = 0;
    o->loc_ext  = 1;
    o->force_locality = 0;
    for (int i = 1; i < argc; i++)
    {
        const char* a = argv[i];
        const char* v = (i + 1 < argc) ? argv[i + 1] : NULL;
#define NEEDV() do { if (!v) die("missing value after option"); i++; } while (0)
        if (!strcmp(a, "--topology")) { NEEDV(); o->topology = v; }
        else if (!strcmp(a, "--sizes")) { NEEDV(); o->sizes = v; }
        else if (!strcmp(a, "--iters")) { NEEDV(); o->iters = atoi(v); }
        else if (!strcmp(a, "--ppn")) { NEEDV(); o->ppn = atoi(v); }
        else if (!strcmp(a, "--repeat")) { NEEDV(); o->repeat = atoi(v); }
        else if (!strcmp(a, "--type"))
        {
            NEEDV();
            if (!strcmp(v, "auto")) o->type = 0;
            else if (!strcmp(v, "char")) o->type = 1;
            else if (!strcmp(v, "int")) o->type = 2;
            else die("--type: auto, char or int");
        }
        else if (!strcmp(a, "--locality-api"))
        {
            NEEDV();
            if (!strcmp(v, "ext")) o->loc_ext = 1;
            else if (!strcmp(v, "plain")) o->loc_ext = 0;
            else die("--locality-api: ext or plain");
        }
        else if (!strcmp(a, "--force-locality")) o->force_locality = 1;
        else
        {
            char msg[256];
            snprintf(msg, sizeof msg,
                     "unknown argument '%s'\nusage: nbr_alltoallv --topology FILE "
                     "--sizes 4,64,1024,4096 --iters N --ppn P [--repeat R] "
                     "[--type auto|char|int] [--locality-api ext|plain] [--force-locality]",
                     a);
            die(msg);
        }
#undef NEEDV
    }
    if (!o->topology) die("--topology FILE is required");
    if (o->iters < 1) die("--iters must be >= 1");
    if (o->repeat < 1) die("--repeat must be >= 1");
    if (o->ppn < 1) die("--ppn P (>= 1) is required");
    if (g_nprocs % o->ppn != 0)
        die("--ppn must divide the number of ranks (MPI Advance's update_locality / "
            "get_global_proc assume every emulated node has exactly ppn ranks)");
}

/* ------------------------------------------------------------------ */
/* main                                                                 */
/* ------------------------------------------------------------------ */
enum { V_MPI = 0, V_STD, V_PSTD, V_PLOC, NV };
static const char* vname[NV] = {"mpi", "mpil_std", "mpil_persist_std",
                                "mpil_persist_locality"};

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_nprocs);
    const int me = g_rank, np = g_nprocs;

    Options o;
    parse_args(argc, argv, &o);

    /* sizes */
    int nsizes = 0;
    long sizes[64];
    {
        char* s = strdup(o.sizes);
        for (char* tok = strtok(s, ","); tok; tok = strtok(NULL, ","))
        {
            char* end;
            long v = strtol(tok, &end, 10);
            if (*end || v < 1 || v > (1L << 24) || nsizes == 64)
                die("--sizes: comma-separated byte counts from 1 to 16 MiB (max 64)");
            sizes[nsizes++] = v;
        }
        free(s);
    }

    /* topology: every rank parses the whole file */
    IntVec* out = (IntVec*)calloc((size_t)np, sizeof(IntVec));
    read_topology(o.topology, np, out);

    /* derived incoming lists for this rank: increasing s, then list order;
     * in_pos[j] = position of this rank in s's list for incoming block j */
    IntVec in_src = {0, 0, NULL}, in_pos = {0, 0, NULL};
    int maxout = 0;
    long total_edges = 0, dup_edges = 0;
    for (int s = 0; s < np; s++)
    {
        if (out[s].n > maxout) maxout = out[s].n;
        total_edges += out[s].n;
        for (int p = 0; p < out[s].n; p++)
        {
            if (out[s].v[p] == me)
            {
                iv_push(&in_src, s);
                iv_push(&in_pos, p);
            }
            for (int q = 0; q < p; q++)
                if (out[s].v[q] == out[s].v[p])
                {
                    dup_edges++;
                    break;
                }
        }
    }
    const int outdeg = out[me].n, indeg = in_src.n;

    /* Known MPI Advance limitation (checked from the file, identical on all
     * ranks): form_local_comm() (neighbor_locality.cpp) sizes the on-node
     * (local_L) message arrays procs[]/indptr[] for ppn messages, one entry per
     * original message.  A rank that sends or receives more than ppn messages
     * to/from ranks of its own emulated node (only possible with duplicate
     * edges) overflows the heap in MPIL_Neighbor_alltoallv_init[_ext] with
     * NEIGHBOR_ALLTOALLV_INIT_LOCALITY.  Variant (d) is skipped (reported as
     * NA) unless --force-locality is given. */
    int loc_skip = 0, loc_worst_rank = -1, loc_worst = 0;
    {
        int* on_in = (int*)calloc((size_t)np, sizeof(int));
        for (int s = 0; s < np; s++)
        {
            int on_out = 0;
            for (int p = 0; p < out[s].n; p++)
                if (out[s].v[p] / o.ppn == s / o.ppn)
                {
                    on_out++;
                    on_in[out[s].v[p]]++;
                }
            if (on_out > loc_worst) { loc_worst = on_out; loc_worst_rank = s; }
        }
        for (int r = 0; r < np; r++)
            if (on_in[r] > loc_worst) { loc_worst = on_in[r]; loc_worst_rank = r; }
        free(on_in);
        loc_skip = loc_worst > o.ppn && !o.force_locality;
        if (loc_worst > o.ppn && me == 0)
            printf("# LIMITATION: rank %d sends or receives %d messages within its emulated "
                   "node (> ppn=%d, duplicate on-node edges): MPI Advance's locality init "
                   "overflows local_L arrays sized ppn (neighbor_locality.cpp "
                   "form_local_comm); %s\n",
                   loc_worst_rank, loc_worst, o.ppn,
                   loc_skip ? "variant (d) skipped, reported as NA (--force-locality to run it)"
                            : "running it anyway (--force-locality)");
    }
    /* Open MPI dislikes NULL arrays even for degree 0: always >= 1 element */
    int* dests = (int*)xmalloc((size_t)(outdeg ? outdeg : 1) * sizeof(int));
    int* srcs  = (int*)xmalloc((size_t)(indeg ? indeg : 1) * sizeof(int));
    for (int i = 0; i < outdeg; i++) dests[i] = out[me].v[i];
    for (int j = 0; j < indeg; j++) srcs[j] = in_src.v[j];

    int nempty_out = 0, nempty_in = 0;
    {
        int e[2] = {outdeg == 0, indeg == 0}, r[2];
        MPI_Allreduce(e, r, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        nempty_out = r[0];
        nempty_in  = r[1];
    }

    /* (a) plain MPI communicator */
    MPI_Comm plain;
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, indeg, srcs, MPI_UNWEIGHTED, outdeg,
                                   dests, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &plain);

    /* (b)-(d) MPI Advance communicator; nodes emulated as ppn consecutive ranks.
     * update_locality() splits global_comm by rank/ppn into local_comm and by
     * local rank into group_comm and fills the rank->node / rank->local maps;
     * since local_comm is then set, the locality init will not call
     * MPIL_Comm_topo_init (which would split by MPI_COMM_TYPE_SHARED, i.e. one
     * node for the whole single-host job).  No leader init is needed for the
     * neighbourhood path (leader_* comms are used only by the alltoall
     * hierarchical/multileader algorithms). */
    MPIL_Comm* xcomm = NULL;
    MPIL_Dist_graph_create_adjacent(MPI_COMM_WORLD, indeg, srcs, MPI_UNWEIGHTED, outdeg,
                                    dests, MPI_UNWEIGHTED, NULL, 0, &xcomm);
    MPIL_Comm_update_locality(xcomm, o.ppn);
    MPIL_Info* xinfo = NULL;
    MPIL_Info_init(&xinfo);

    /* sanity: the communicators report our lists in our order */
    {
        int bad = 0;
        int ind, outd, w;
        MPI_Dist_graph_neighbors_count(plain, &ind, &outd, &w);
        if (ind != indeg || outd != outdeg) bad = 1;
        else
        {
            int* s2 = (int*)xmalloc((size_t)(ind ? ind : 1) * sizeof(int));
            int* d2 = (int*)xmalloc((size_t)(outd ? outd : 1) * sizeof(int));
            MPI_Dist_graph_neighbors(plain, ind, s2, MPI_UNWEIGHTED, outd, d2,
                                     MPI_UNWEIGHTED);
            for (int j = 0; j < ind; j++) bad |= s2[j] != srcs[j];
            for (int i = 0; i < outd; i++) bad |= d2[i] != dests[i];
            free(s2);
            free(d2);
        }
        int anybad;
        MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        if (anybad) die("MPI_Dist_graph_neighbors does not return the given order");
    }

    if (me == 0)
    {
        printf("# nbr_alltoallv: ranks=%d ppn=%d nodes=%d edges=%ld duplicate_edges=%ld "
               "ranks_without_out=%d ranks_without_in=%d iters=%d warmup=%d repeat=%d "
               "locality_api=%s\n",
               np, o.ppn, np / o.ppn, total_edges, dup_edges, nempty_out, nempty_in,
               o.iters, o.iters / 10, o.repeat, o.loc_ext ? "ext" : "plain");
        fflush(stdout);
    }

    int status = 0;
    for (int si = 0; si < nsizes; si++)
    {
        const long bytes = sizes[si];
        int use_int = (o.type == 2) || (o.type == 0 && bytes % 4 == 0);
        if (use_int && bytes % 4 != 0) die("--type int needs sizes divisible by 4");
        const MPI_Datatype dt = use_int ? MPI_INT : MPI_CHAR;
        const int esz         = use_int ? 4 : 1;
        const int count       = (int)(bytes / esz); /* elements per block */

        /* buffers: one send buffer shared by all variants; one receive
         * buffer per variant so each variant's result is kept apart */
        const size_t sbytes = (size_t)(outdeg ? outdeg : 1) * (size_t)bytes;
        const size_t rbytes = (size_t)(indeg ? indeg : 1) * (size_t)bytes;
        char* sendbuf = (char*)xmalloc(sbytes);
        char* recvbuf[NV];
        for (int v = 0; v < NV; v++)
        {
            recvbuf[v] = (char*)xmalloc(rbytes);
            memset(recvbuf[v], 0xA5, rbytes);
        }
        char* expect = (char*)xmalloc(rbytes);

        int* scounts = (int*)xmalloc((size_t)(outdeg ? outdeg : 1) * sizeof(int));
        int* sdispls = (int*)xmalloc((size_t)(outdeg ? outdeg : 1) * sizeof(int));
        int* rcounts = (int*)xmalloc((size_t)(indeg ? indeg : 1) * sizeof(int));
        int* rdispls = (int*)xmalloc((size_t)(indeg ? indeg : 1) * sizeof(int));
        for (int i = 0; i < outdeg; i++)
        {
            scounts[i] = count;
            sdispls[i] = i * count;
        }
        for (int j = 0; j < indeg; j++)
        {
            rcounts[j] = count;
            rdispls[j] = j * count;
        }

        /* values: element e of the block that rank s sends to the p-th entry
         * of its list is mix32(s, p, e) (an int) or its low byte (a char) */
#define VAL_KEY(s, p, e) (((uint64_t)(s) << 40) ^ ((uint64_t)(p) << 24) ^ (uint64_t)(e))
        for (int i = 0; i < outdeg; i++)
            for (int e = 0; e < count; e++)
            {
                uint32_t x = mix32(VAL_KEY(me, i, e));
                if (use_int) ((int32_t*)sendbuf)[(size_t)i * count + e] = (int32_t)x;
                else sendbuf[(size_t)i * count + e] = (char)(x & 0xff);
            }
        for (int j = 0; j < indeg; j++)
            for (int e = 0; e < count; e++)
            {
                uint32_t x = mix32(VAL_KEY(in_src.v[j], in_pos.v[j], e));
                if (use_int) ((int32_t*)expect)[(size_t)j * count + e] = (int32_t)x;
                else expect[(size_t)j * count + e] = (char)(x & 0xff);
            }

        /* global indices for the locality path (ext API): element e of the
         * block at position p of sender s has id s*BIG + p*count + e, with
         * BIG = maxout*count; unique per (sender, position, element), so the
         * library's duplicate removal never merges two items and the result is
         * exactly an alltoallv.  The library stores indices as int (CommData
         * indices, form_local_comm's MPI_INT exchange), so ids must be < 2^31. */
        long* gsidx = NULL;
        long* gridx = NULL;
        if (o.loc_ext)
        {
            const long big = (long)maxout * count;
            if ((double)np * (double)big > (double)INT_MAX)
                die("locality ext: global ids would exceed INT_MAX (library keeps indices "
                    "as int); use fewer ranks/smaller sizes or --type int");
            gsidx = (long*)xmalloc((size_t)(outdeg ? outdeg : 1) * count * sizeof(long));
            gridx = (long*)xmalloc((size_t)(indeg ? indeg : 1) * count * sizeof(long));
            for (int i = 0; i < outdeg; i++)
                for (int e = 0; e < count; e++)
                    gsidx[(size_t)i * count + e] = (long)me * big + (long)i * count + e;
            for (int j = 0; j < indeg; j++)
                for (int e = 0; e < count; e++)
                    gridx[(size_t)j * count + e] =
                        (long)in_src.v[j] * big + (long)in_pos.v[j] * count + e;
        }

        /* persistent requests (init time measured separately) */
        MPIL_Request *req_std = NULL, *req_loc = NULL;
        double t_init[2];
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        MPIL_Set_alltoallv_neighbor_init_alogorithm(NEIGHBOR_ALLTOALLV_INIT_STANDARD);
        MPIL_Neighbor_alltoallv_init(sendbuf, scounts, sdispls, dt, recvbuf[V_PSTD],
                                     rcounts, rdispls, dt, xcomm, xinfo, &req_std);
        t_init[0] = MPI_Wtime() - t0;
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        MPIL_Set_alltoallv_neighbor_init_alogorithm(NEIGHBOR_ALLTOALLV_INIT_LOCALITY);
        if (loc_skip)
            req_loc = NULL;
        else if (o.loc_ext)
            MPIL_Neighbor_alltoallv_init_ext(sendbuf, scounts, sdispls, gsidx, dt,
                                             recvbuf[V_PLOC], rcounts, rdispls, gridx, dt,
                                             xcomm, xinfo, &req_loc);
        else
            MPIL_Neighbor_alltoallv_init(sendbuf, scounts, sdispls, dt, recvbuf[V_PLOC],
                                         rcounts, rdispls, dt, xcomm, xinfo, &req_loc);
        t_init[1] = MPI_Wtime() - t0;
        MPIL_Set_alltoallv_neighbor_init_alogorithm(NEIGHBOR_ALLTOALLV_INIT_STANDARD);
        MPIL_Set_alltoallv_neighbor_alogorithm(NEIGHBOR_ALLTOALLV_STANDARD);
        {
            double mx[2];
            MPI_Reduce(t_init, mx, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
            t_init[0] = mx[0];
            t_init[1] = mx[1];
        }

        /* one call of variant v */
#define CALL(v)                                                                          \
    do {                                                                                 \
        switch (v)                                                                       \
        {                                                                                \
            case V_MPI:                                                                  \
                MPI_Neighbor_alltoallv(sendbuf, scounts, sdispls, dt, recvbuf[V_MPI],    \
                                       rcounts, rdispls, dt, plain);                     \
                break;                                                                   \
            case V_STD:                                                                  \
                MPIL_Neighbor_alltoallv(sendbuf, scounts, sdispls, dt, recvbuf[V_STD],   \
                                        rcounts, rdispls, dt, xcomm);                    \
                break;                                                                   \
            case V_PSTD:                                                                 \
                MPIL_Start(req_std);                                                     \
                MPIL_Wait(req_std, MPI_STATUS_IGNORE);                                   \
                break;                                                                   \
            case V_PLOC:                                                                 \
                MPIL_Start(req_loc);                                                     \
                MPIL_Wait(req_loc, MPI_STATUS_IGNORE);                                   \
                break;                                                                   \
        }                                                                                \
    } while (0)

        /* warm-up: iters/10 calls of each variant */
        const int warm = o.iters / 10;
        const int nv = loc_skip ? V_PLOC : NV; /* variants actually run */
        for (int v = 0; v < nv; v++)
        {
            MPI_Barrier(MPI_COMM_WORLD);
            for (int k = 0; k < warm; k++) CALL(v);
        }

        /* timed: repeat R times, variants interleaved within a repeat */
        double* tv[NV];
        for (int v = 0; v < NV; v++) tv[v] = (double*)xmalloc((size_t)o.repeat * sizeof(double));
        for (int v = nv; v < NV; v++)
            for (int r = 0; r < o.repeat; r++) tv[v][r] = 0.0;
        for (int r = 0; r < o.repeat; r++)
            for (int v = 0; v < nv; v++)
            {
                MPI_Barrier(MPI_COMM_WORLD);
                double start = MPI_Wtime();
                for (int k = 0; k < o.iters; k++) CALL(v);
                double mine = (MPI_Wtime() - start) / o.iters, mx;
                MPI_Allreduce(&mine, &mx, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
                tv[v][r] = mx;
            }

        /* check: poison every receive buffer, make one last call of each
         * variant, compare (a) with the expected values and (b)-(d) with (a) */
        for (int v = 0; v < nv; v++)
        {
            memset(recvbuf[v], 0xA5, rbytes);
            MPI_Barrier(MPI_COMM_WORLD);
            CALL(v);
        }
        /* self-test of the checker: NBR_SABOTAGE=<variant 0..3> flips one
         * received byte of that variant on the last rank with incoming data */
        {
            const char* sab = getenv("NBR_SABOTAGE");
            int has_in = indeg > 0, last = -1, cand = has_in ? me : -1;
            MPI_Allreduce(&cand, &last, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
            if (sab && me == last)
            {
                int v = atoi(sab);
                if (v >= 0 && v < NV) recvbuf[v][rbytes / 2] ^= 0x5a;
            }
        }
        int bad = 0;
        char detail[512] = "";
        {
            const size_t n = (size_t)indeg * (size_t)bytes;
            size_t k;
            for (k = 0; k < n && recvbuf[V_MPI][k] == expect[k]; k++);
            if (k < n)
            {
                bad |= 1;
                size_t blk = k / (size_t)bytes;
                snprintf(detail, sizeof detail,
                         "rank %d: mpi differs from expected at byte %zu (block %zu from "
                         "rank %d pos %d): got 0x%02x want 0x%02x",
                         me, k, blk, in_src.v[blk], in_pos.v[blk],
                         (unsigned char)recvbuf[V_MPI][k], (unsigned char)expect[k]);
            }
            for (int v = V_STD; v < nv; v++)
            {
                for (k = 0; k < n && recvbuf[v][k] == recvbuf[V_MPI][k]; k++);
                if (k < n)
                {
                    size_t nd = 0;
                    for (size_t q = k; q < n; q++) nd += recvbuf[v][q] != recvbuf[V_MPI][q];
                    size_t blk = k / (size_t)bytes;
                    if (!(bad & (1 << v)))
                    {
                        size_t len = strlen(detail);
                        snprintf(detail + len, sizeof detail - len,
                                 "%srank %d: %s differs from mpi in %zu of %zu bytes, "
                                 "first at byte %zu (block %zu from rank %d pos %d): got "
                                 "0x%02x want 0x%02x",
                                 len ? "; " : "", me, vname[v], nd, n, k, blk,
                                 in_src.v[blk], in_pos.v[blk],
                                 (unsigned char)recvbuf[v][k],
                                 (unsigned char)recvbuf[V_MPI][k]);
                    }
                    bad |= 1 << v;
                }
            }
        }
        int anybad;
        MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_BOR, MPI_COMM_WORLD);
        if (bad) fprintf(stderr, "MISMATCH size=%ld %s\n", bytes, detail);

        if (me == 0)
        {
            double med[NV];
            for (int v = 0; v < NV; v++) med[v] = 1e6 * median(tv[v], o.repeat);
            char locs[32];
            if (loc_skip) snprintf(locs, sizeof locs, "NA");
            else snprintf(locs, sizeof locs, "%.3f", med[V_PLOC]);
            printf("size=%ld mpi_us=%.3f mpil_std_us=%.3f mpil_persist_std_us=%.3f "
                   "mpil_persist_locality_us=%s check=%s\n",
                   bytes, med[V_MPI], med[V_STD], med[V_PSTD], locs,
                   anybad ? "MISMATCH" : "ok");
            printf("# size=%ld type=%s count=%d persist_std_init_us=%.3f "
                   "persist_locality_init_us=%.3f%s%s\n",
                   bytes, use_int ? "MPI_INT" : "MPI_CHAR", count, 1e6 * t_init[0],
                   1e6 * t_init[1], loc_skip ? " (locality skipped)" : "",
                   anybad ? " (MISMATCH bits: 1=mpi-vs-expected 2=std 4=persist_std "
                            "8=persist_locality)"
                          : "");
            if (anybad)
                printf("MISMATCH size=%ld variants_mask=%d (see stderr for per-rank details)\n",
                       bytes, anybad);
            fflush(stdout);
        }
        if (anybad) status = 1;

        for (int v = 0; v < NV; v++)
        {
            free(tv[v]);
            free(recvbuf[v]);
        }
        MPIL_Request_free(&req_std);
        if (req_loc) MPIL_Request_free(&req_loc);
        free(sendbuf);
        free(expect);
        free(scounts);
        free(sdispls);
        free(rcounts);
        free(rdispls);
        free(gsidx);
        free(gridx);
    }

    MPIL_Info_free(&xinfo);
    MPIL_Comm_free(&xcomm);
    MPI_Comm_free(&plain);
    for (int r = 0; r < np; r++) free(out[r].v);
    free(out);
    free(in_src.v);
    free(in_pos.v);
    free(dests);
    free(srcs);
    MPI_Finalize();
    return status;
}
