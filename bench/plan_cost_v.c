/*
 * plan_cost_v.c - what the drop-in costs a program whose MPI_Alltoallv
 * counts change at every call and whose calls go to several communicators
 * in turn, alone or from several threads at once (bench/plan_cost_v.sh
 * runs it).
 *
 * Run under the drop-in (LD_PRELOAD=libxchg_mpi.so), MPI_Alltoallv is
 * xchg's and PMPI_Alltoallv the MPI library's own; run without, both are
 * the library's (the control).
 *
 *   plan_cost_v ROUNDS CALLS THREADS MAXBYTES
 *
 * Each of THREADS threads (MPI_THREAD_MULTIPLE when THREADS > 1) owns
 * three communicators: a duplicate of MPI_COMM_WORLD, one with the ranks
 * in reverse order, and one of its half of the ranks. A row is CALLS
 * calls of every thread, call k on communicator k mod 3, with counts
 * drawn anew for each call (each pair's block 0 to MAXBYTES bytes of
 * MPI_INT, a fifth of them 0, displacements with gaps). A round times one
 * row through MPI_Alltoallv and one through PMPI_Alltoallv, which goes
 * first alternating from round to round; each row is timed from a
 * barrier to the slowest rank's end, its buffers filled before and every
 * received int checked after (a wrong one stops the run with exit 1).
 * Round 0 warms both sides and is not printed. Prints one line a round:
 * "row CALLS THREADS T_MPI T_PMPI" (seconds).
 */
#include <mpi.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { COMMS = 3 };

static int world_rank, world_size;

/* One call's arguments and buffers on one thread. */
typedef struct call_bufs {
    int *scounts, *sdispls, *rcounts, *rdispls; /* each of the communicator's size */
    int *sbuf, *rbuf;
    size_t sints, rints;
} call_bufs;

/* One thread's communicators and calls for a row. */
typedef struct thread_work {
    MPI_Comm comm[COMMS];
    call_bufs *calls;
    int ncalls, lib, round, thread, failed;
} thread_work;

static int max_ints;

/* A pseudo-random number of (a, b, c, d): the same on every rank. */
static uint32_t mix(uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
    uint32_t h = a * 0x9E3779B1u ^ (b + 0x7F4A7C15u) * 0x85EBCA77u;
    h ^= (c + 0x165667B1u) * 0xC2B2AE3Du;
    h ^= (d + 0x27D4EB2Fu) * 0x9E3779B1u;
    h ^= h >> 15;
    h *= 0x2C1B3C6Du;
    h ^= h >> 12;
    return h;
}

/* Ints from rank `from` to rank `to` (world ranks) at call k of a round on
 * a thread: 0 one time in five, else 1..max_ints. */
static int count_of(int from, int to, int k, int round, int thread)
{
    uint32_t h = mix((uint32_t)from * 65536u + (uint32_t)to, (uint32_t)k, (uint32_t)round,
                     (uint32_t)thread);
    if (h % 5 == 0)
        return 0;
    return 1 + (int)((h >> 8) % (uint32_t)max_ints);
}

/* The int at index i of the block from world rank `from` to `to`. */
static int value(int from, int to, int k, int i)
{
    return (int)(mix((uint32_t)from, (uint32_t)to, (uint32_t)k, 7u) & 0xFFFFFu) * 64 + i;
}

/* The world rank of each of comm's n ranks (malloc'd). */
static int *world_ranks(MPI_Comm comm, int n)
{
    MPI_Group g, wg;
    MPI_Comm_group(comm, &g);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    int *idx = malloc(sizeof(int) * (size_t)n), *wr = malloc(sizeof(int) * (size_t)n);
    for (int j = 0; j < n; j++)
        idx[j] = j;
    MPI_Group_translate_ranks(g, n, idx, wg, wr);
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
    free(idx);
    return wr;
}

/* Fill call k's counts, displacements and send buffer on comm. */
static void prepare(call_bufs *c, MPI_Comm comm, int k, int round, int thread)
{
    int n, me;
    MPI_Comm_size(comm, &n);
    MPI_Comm_rank(comm, &me);
    int *wr = world_ranks(comm, n);
    size_t so = 0, ro = 0;
    for (int j = 0; j < n; j++) {
        c->scounts[j] = count_of(wr[me], wr[j], k, round, thread);
        c->rcounts[j] = count_of(wr[j], wr[me], k, round, thread);
        c->sdispls[j] = (int)so;
        c->rdispls[j] = (int)ro;
        so += (size_t)c->scounts[j] + 1; /* a gap of one int */
        ro += (size_t)c->rcounts[j] + 1;
    }
    for (int j = 0; j < n; j++)
        for (int i = 0; i < c->scounts[j]; i++)
            c->sbuf[c->sdispls[j] + i] = value(wr[me], wr[j], k, i);
    memset(c->rbuf, 0xff, c->rints * sizeof(int));
    free(wr);
}

/* Check call k's receive buffer; 0 when right. */
static int check(const call_bufs *c, MPI_Comm comm, int k)
{
    int n, me;
    MPI_Comm_size(comm, &n);
    MPI_Comm_rank(comm, &me);
    int *wr = world_ranks(comm, n), bad = 0;
    for (int j = 0; j < n && !bad; j++) {
        for (int i = 0; i < c->rcounts[j]; i++)
            if (c->rbuf[c->rdispls[j] + i] != value(wr[j], wr[me], k, i))
                bad = 1;
        if (c->rbuf[c->rdispls[j] + c->rcounts[j]] != -1) /* the gap untouched */
            bad = 1;
    }
    free(wr);
    return bad;
}

/* A thread's row: its calls, through the drop-in's name or the library's. */
static void *run_row(void *arg)
{
    thread_work *w = arg;
    for (int k = 0; k < w->ncalls && !w->failed; k++) {
        call_bufs *c = &w->calls[k];
        MPI_Comm comm = w->comm[k % COMMS];
        int rc = w->lib ? PMPI_Alltoallv(c->sbuf, c->scounts, c->sdispls, MPI_INT, c->rbuf,
                                         c->rcounts, c->rdispls, MPI_INT, comm)
                        : MPI_Alltoallv(c->sbuf, c->scounts, c->sdispls, MPI_INT, c->rbuf,
                                        c->rcounts, c->rdispls, MPI_INT, comm);
        if (rc != MPI_SUCCESS)
            w->failed = 1;
    }
    return NULL;
}

/* One row of every thread through side lib; the slowest rank's seconds. */
static double time_row(thread_work *w, int threads, int lib, int round)
{
    for (int t = 0; t < threads; t++) {
        w[t].lib = lib;
        w[t].round = round;
        for (int k = 0; k < w[t].ncalls; k++)
            prepare(&w[t].calls[k], w[t].comm[k % COMMS], k, round, t);
    }
    pthread_t tid[64];
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (threads == 1)
        run_row(&w[0]);
    else {
        for (int t = 0; t < threads; t++)
            pthread_create(&tid[t], NULL, run_row, &w[t]);
        for (int t = 0; t < threads; t++)
            pthread_join(tid[t], NULL);
    }
    double mine = MPI_Wtime() - t0, most = 0;
    int bad = 0, any = 0;
    for (int t = 0; t < threads; t++) {
        bad |= w[t].failed;
        for (int k = 0; k < w[t].ncalls; k++)
            bad |= check(&w[t].calls[k], w[t].comm[k % COMMS], k);
    }
    MPI_Allreduce(&mine, &most, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (any) {
        if (world_rank == 0)
            fprintf(stderr, "plan_cost_v: wrong data or a failed call (%s, round %d)\n",
                    lib ? "PMPI_Alltoallv" : "MPI_Alltoallv", round);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return most;
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: plan_cost_v ROUNDS CALLS THREADS MAXBYTES\n");
        return 2;
    }
    int rounds = atoi(argv[1]), ncalls = atoi(argv[2]), threads = atoi(argv[3]);
    max_ints = atoi(argv[4]) / (int)sizeof(int);
    if (rounds < 1 || ncalls < 1 || threads < 1 || threads > 64 || max_ints < 1) {
        fprintf(stderr, "plan_cost_v: ROUNDS and CALLS >= 1, THREADS 1..64, MAXBYTES >= 4\n");
        return 2;
    }
    int provided = MPI_THREAD_SINGLE;
    MPI_Init_thread(&argc, &argv, threads > 1 ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE,
                    &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    if (threads > 1 && provided < MPI_THREAD_MULTIPLE) {
        if (world_rank == 0)
            fprintf(stderr, "plan_cost_v: the MPI library gives no MPI_THREAD_MULTIPLE\n");
        MPI_Finalize();
        return 2;
    }
    thread_work *w = calloc((size_t)threads, sizeof *w);
    for (int t = 0; t < threads; t++) {
        MPI_Comm_dup(MPI_COMM_WORLD, &w[t].comm[0]);
        MPI_Comm_split(MPI_COMM_WORLD, 0, world_size - world_rank, &w[t].comm[1]);
        MPI_Comm_split(MPI_COMM_WORLD, world_rank < world_size / 2, world_rank, &w[t].comm[2]);
        w[t].thread = t;
        w[t].ncalls = ncalls;
        w[t].calls = calloc((size_t)ncalls, sizeof(call_bufs));
        for (int k = 0; k < ncalls; k++) {
            call_bufs *c = &w[t].calls[k];
            size_t ints = (size_t)world_size * ((size_t)max_ints + 1);
            c->scounts = malloc(sizeof(int) * 4 * (size_t)world_size);
            c->sdispls = c->scounts + world_size;
            c->rcounts = c->scounts + 2 * world_size;
            c->rdispls = c->scounts + 3 * world_size;
            c->sbuf = malloc(ints * sizeof(int));
            c->rbuf = malloc(ints * sizeof(int));
            c->sints = c->rints = ints;
        }
    }
    for (int r = 0; r <= rounds; r++) {
        int lib_first = r % 2;
        double t_first = time_row(w, threads, lib_first, r);
        double t_second = time_row(w, threads, !lib_first, r);
        double t_mpi = lib_first ? t_second : t_first, t_pmpi = lib_first ? t_first : t_second;
        if (r > 0 && world_rank == 0)
            printf("row %d %d %.6f %.6f\n", ncalls, threads, t_mpi, t_pmpi);
    }
    for (int t = 0; t < threads; t++) {
        for (int c = 0; c < COMMS; c++)
            MPI_Comm_free(&w[t].comm[c]);
        for (int k = 0; k < ncalls; k++) {
            free(w[t].calls[k].scounts);
            free(w[t].calls[k].sbuf);
            free(w[t].calls[k].rbuf);
        }
        free(w[t].calls);
    }
    free(w);
    MPI_Finalize();
    return 0;
}
