/*
 * test_mpi_plan.c - plans for new counts are local arithmetic, and what a
 * communicator keeps stays right when programs use many counts, options
 * and communicators (run by CMake's mpi_plan, on 4 ranks, and
 * mpi_plan_multiple).
 *
 * xchg_mpi_plan_info's `collectives` says how many collective steps a
 * rank took while a plan was made. After one call at a count M with an
 * algorithm forced (its program built, the communicator's shared buffers
 * grown), every call at a new count below M must make its plan with none:
 * checked for the exchange's algorithms (a direct one, Bruck's with its
 * scratch, the shared-memory exchange, in place and not, a derived
 * datatype), and for broadcasts and allgathers. Every result is checked
 * against the pattern it must hold. Then:
 *  - auto, counts rising one by one through 300 values: every result
 *    right, and the collective steps few (each a program built or a store
 *    grown: at most 24 here, against 300 plans);
 *  - 40 sets of options on one communicator (more than it keeps: the
 *    oldest are dropped and made again), each right;
 *  - 30 communicators made, used with changing counts, and freed;
 *  - a persistent plan (its own buffers) run between cached ones on the
 *    same communicator, shared memory both;
 *  - auto's shm bought once it has paid for itself: a schedule first,
 *    then shm, and then a new count runs shm with no collective step.
 * With the argument "multiple" it asks for MPI_THREAD_MULTIPLE and, where
 * the library gives it, two threads call at once, each on a communicator
 * of its own, with a new count at every call.
 */
#include <mpi.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xchg_mpi.h"

static int wrank, wsize;
static long checks, failures;

static void check(int ok, const char *what, long a, long b)
{
    checks++;
    if (!ok) {
        failures++;
        if (failures <= 20)
            fprintf(stderr, "FAIL (rank %d): %s (%ld, %ld)\n", wrank, what, a, b);
    }
}

/* The int rank `from` sends rank `to` at index i of a block. */
static int value(int from, int to, long i)
{
    return from * 1000003 + to * 7919 + (int)i;
}

/* One exchange of count ints on c with opts (in place or not), checked;
 * the collective steps of its plan. */
static unsigned exchange(MPI_Comm c, long count, int in_place, const xchg_mpi_opts *o,
                         const char *what)
{
    int rank, p;
    MPI_Comm_rank(c, &rank);
    MPI_Comm_size(c, &p);
    size_t n = (size_t)count * (size_t)p;
    int *s = malloc((n ? n : 1) * sizeof *s), *r = malloc((n ? n : 1) * sizeof *r);
    int *from = in_place ? r : s;
    for (int d = 0; d < p; d++)
        for (long i = 0; i < count; i++)
            from[(size_t)d * count + i] = value(rank, d, i);
    int rc = xchg_mpi_alltoall(in_place ? MPI_IN_PLACE : s, count, MPI_INT, r, count, MPI_INT, c,
                               o);
    long wrong = 0;
    for (int f = 0; f < p; f++)
        for (long i = 0; i < count; i++)
            wrong += r[(size_t)f * count + i] != value(f, rank, i);
    check(rc == MPI_SUCCESS && wrong == 0, what, count, wrong);
    xchg_mpi_plan_info info;
    xchg_mpi_last_info(&info);
    free(s);
    free(r);
    return info.collectives;
}

/* The exchange of count elements of a vector type with a hole (ints 0
 * and 2 of 3) on c, checked; the collective steps of its plan. */
static unsigned exchange_holes(MPI_Comm c, long count, const xchg_mpi_opts *o, MPI_Datatype vec)
{
    int rank, p;
    MPI_Comm_rank(c, &rank);
    MPI_Comm_size(c, &p);
    size_t ints = (size_t)count * 3 * (size_t)p;
    int *s = calloc(ints, sizeof *s), *r = calloc(ints, sizeof *r);
    for (int d = 0; d < p; d++)
        for (long e = 0; e < count; e++)
            for (int k = 0; k < 2; k++)
                s[((size_t)d * count + e) * 3 + 2 * k] = value(rank, d, 2 * e + k);
    int rc = xchg_mpi_alltoall(s, count, vec, r, count, vec, c, o);
    long wrong = 0;
    for (int f = 0; f < p; f++)
        for (long e = 0; e < count; e++)
            for (int k = 0; k < 3; k++) /* the hole, 1, stays 0 */
                wrong += r[((size_t)f * count + e) * 3 + k] !=
                         (k == 1 ? 0 : value(f, rank, 2 * e + k / 2));
    check(rc == MPI_SUCCESS && wrong == 0, "a derived datatype's exchange", count, wrong);
    xchg_mpi_plan_info info;
    xchg_mpi_last_info(&info);
    free(s);
    free(r);
    return info.collectives;
}

/* A broadcast (root 1 % p) and an allgather of count ints on c, checked;
 * the larger of their plans' collective steps. */
static unsigned others(MPI_Comm c, long count, const xchg_mpi_opts *o)
{
    int rank, p;
    MPI_Comm_rank(c, &rank);
    MPI_Comm_size(c, &p);
    int root = 1 % p;
    int *b = malloc((size_t)(count ? count : 1) * sizeof *b);
    int *g = malloc((size_t)(count ? count : 1) * (size_t)p * sizeof *g);
    for (long i = 0; i < count; i++)
        b[i] = rank == root ? value(root, 0, i) : -1;
    int rc = xchg_mpi_bcast(b, count, MPI_INT, root, c, o);
    xchg_mpi_plan_info info;
    xchg_mpi_last_info(&info);
    unsigned most = info.collectives;
    long wrong = 0;
    for (long i = 0; i < count; i++)
        wrong += b[i] != value(root, 0, i);
    check(rc == MPI_SUCCESS && wrong == 0, "a broadcast", count, wrong);
    for (long i = 0; i < count; i++)
        b[i] = value(rank, 0, i);
    rc = xchg_mpi_allgather(b, count, MPI_INT, g, count, MPI_INT, c, o);
    xchg_mpi_last_info(&info);
    most = info.collectives > most ? info.collectives : most;
    wrong = 0;
    for (int f = 0; f < p; f++)
        for (long i = 0; i < count; i++)
            wrong += g[(size_t)f * count + i] != value(f, 0, i);
    check(rc == MPI_SUCCESS && wrong == 0, "an allgather", count, wrong);
    free(b);
    free(g);
    return most;
}

/* After a call at `top`, 20 new counts below it make their plans alone. */
static void local_counts(MPI_Comm c, const char *alg, int in_place, MPI_Datatype vec)
{
    xchg_mpi_opts o;
    xchg_mpi_opts_default(&o);
    o.alg = alg;
    long top = 1500;
    char what[160];
    snprintf(what, sizeof what, "%s%s%s: the exchange", alg, in_place ? " in place" : "",
             vec != MPI_DATATYPE_NULL ? " of a derived type" : "");
    if (vec != MPI_DATATYPE_NULL)
        exchange_holes(c, top, &o, vec);
    else
        exchange(c, top, in_place, &o, what);
    unsigned steps = 0;
    for (long k = 1; k <= 20; k++) {
        long count = top - 37 * k;
        steps += vec != MPI_DATATYPE_NULL ? exchange_holes(c, count, &o, vec)
                                          : exchange(c, count, in_place, &o, what);
    }
    snprintf(what, sizeof what, "%s%s: 20 new counts below one seen make their plans with no "
                                "collective step",
             alg, in_place ? " in place" : "");
    check(steps == 0, what, (long)steps, 0);
}

/* The same for a broadcast and an allgather, their algorithms forced
 * (the split broadcast cuts its data into p pieces of elements). */
static void local_counts_ops(MPI_Comm c, const char *algs)
{
    xchg_mpi_opts o;
    xchg_mpi_opts_default(&o);
    o.alg = algs;
    others(c, 3000, &o);
    unsigned steps = 0;
    for (long k = 1; k <= 20; k++)
        steps += others(c, 3000 - 53 * k, &o);
    check(steps == 0, "broadcast and allgather: new counts below one seen make their plans alone",
          (long)steps, 0);
}

/* auto through 300 rising counts: right, with few collective steps. */
static void rising_counts(MPI_Comm c)
{
    unsigned steps = 0;
    for (long count = 1; count <= 300; count++)
        steps += exchange(c, count, count % 2, NULL, "auto, rising counts");
    check(steps <= 24, "auto over 300 rising counts takes at most 24 collective steps",
          (long)steps, 24);
}

/* 40 sets of options on one communicator: the algorithm and the topology. */
static void many_options(MPI_Comm c)
{
    static const char *algs[] = {"pairwise", "bruck", "ring", "auto", "bruck:2", "ring-bidir"};
    static const char *topos[] = {"auto", "complete:%d", "ring:%d", "array:%d",
                                  "auto", "complete:%d", "ring:%d"};
    char topo[7][32];
    for (int t = 0; t < 7; t++)
        snprintf(topo[t], sizeof topo[t], topos[t], wsize);
    int made = 0;
    for (int a = 0; a < 6; a++)
        for (int t = 0; t < 7 && made < 40; t++, made++) {
            xchg_mpi_opts o;
            xchg_mpi_opts_default(&o);
            o.alg = algs[a];
            o.topology = topo[t];
            o.machine_file = t % 2 ? "" : NULL;
            exchange(c, 10 + made, 0, &o, "one of 40 sets of options");
        }
    exchange(c, 1000, 0, NULL, "the first options again");
}

/* 30 communicators: made, used with changing counts, freed. */
static void many_communicators(void)
{
    for (int k = 0; k < 30; k++) {
        MPI_Comm c;
        MPI_Comm_split(MPI_COMM_WORLD, k % 3 == 0 ? 0 : wrank % 2, k % 2 ? wrank : -wrank, &c);
        for (long count = 1 + k; count < 2000; count *= 3)
            exchange(c, count, (int)(count % 2), NULL, "one of 30 communicators");
        MPI_Comm_free(&c);
    }
}

/* A persistent shared-memory plan run between cached ones. */
static void persistent_between(MPI_Comm c)
{
    xchg_mpi_opts o;
    xchg_mpi_opts_default(&o);
    o.alg = "shm";
    long n = 50;
    size_t all = (size_t)n * (size_t)wsize;
    int *s = malloc(all * sizeof *s), *r = malloc(all * sizeof *r);
    xchg_mpi_plan *pl = NULL;
    int rc = xchg_mpi_plan_create(n, MPI_INT, n, MPI_INT, 0, c, &o, &pl);
    check(rc == MPI_SUCCESS && pl, "a persistent shm plan is made", rc, 0);
    for (int it = 0; it < 6 && pl; it++) {
        exchange(c, 20 + it, 0, &o, "a cached shm plan between persistent runs");
        for (int d = 0; d < wsize; d++)
            for (long i = 0; i < n; i++)
                s[(size_t)d * n + i] = value(wrank, d, i + it);
        rc = xchg_mpi_plan_run(pl, s, r);
        long wrong = 0;
        for (int f = 0; f < wsize; f++)
            for (long i = 0; i < n; i++)
                wrong += r[(size_t)f * n + i] != value(f, wrank, i + it);
        check(rc == MPI_SUCCESS && wrong == 0, "a persistent shm run", it, wrong);
    }
    xchg_mpi_plan_free(pl);
    free(s);
    free(r);
}

/* Auto's shm waits for its segment to pay for itself: the first calls on
 * a new communicator run a schedule, saying why; after enough of them the
 * segment is made once and the same plan runs shm (rent or buy). */
static void shm_bought(void)
{
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    int node_ranks = 0;
    MPI_Comm node;
    MPI_Comm_split_type(c, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &node_ranks);
    MPI_Comm_free(&node);
    xchg_mpi_plan_info info;
    long calls = 0, first_shm = -1, schedule_said = 0;
    for (; calls < 20000 && first_shm < 0; calls++) {
        exchange(c, 2048, 0, NULL, "auto at 8 KiB blocks before and after shm is bought");
        xchg_mpi_last_info(&info);
        if (!strcmp(info.alg, "shm"))
            first_shm = calls;
        else if (calls == 0)
            schedule_said = strstr(info.why, "pays for itself") != NULL;
    }
    if (node_ranks == wsize && wsize > 1) {
        check(first_shm > 0 && schedule_said,
              "auto runs a schedule first, saying it waits for shm, then buys shm", first_shm,
              schedule_said);
        exchange(c, 2047, 0, NULL, "a new count once shm is bought");
        xchg_mpi_last_info(&info);
        check(!strcmp(info.alg, "shm") && info.collectives == 0,
              "a new count once shm is bought runs shm with no collective step",
              (long)info.collectives, 0);
    }
    MPI_Comm_free(&c);
}

/* Threads: each calls on its own communicator with a new count each time. */
static void *thread_calls(void *arg)
{
    MPI_Comm c = *(MPI_Comm *)arg;
    for (long k = 0; k < 60; k++)
        exchange(c, 1 + (k * 37) % 700, (int)(k % 2), NULL, "a thread's exchange");
    return NULL;
}

int main(int argc, char **argv)
{
    int multiple = argc > 1 && !strcmp(argv[1], "multiple"), level = MPI_THREAD_SINGLE;
    MPI_Init_thread(&argc, &argv, multiple ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE, &level);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    if (multiple && level == MPI_THREAD_MULTIPLE) {
        MPI_Comm c2;
        MPI_Comm_dup(MPI_COMM_WORLD, &c2);
        pthread_t t;
        pthread_create(&t, NULL, thread_calls, &c2);
        thread_calls(&c);
        pthread_join(t, NULL);
        MPI_Comm_free(&c2);
    } else {
        MPI_Datatype vec;
        MPI_Type_vector(2, 1, 2, MPI_INT, &vec); /* ints 0 and 2 of 3 */
        MPI_Type_commit(&vec);
        local_counts(c, "pairwise", 0, MPI_DATATYPE_NULL);
        local_counts(c, "bruck", 0, MPI_DATATYPE_NULL);
        local_counts(c, "bruck", 1, MPI_DATATYPE_NULL);
        local_counts(c, "shm", 0, MPI_DATATYPE_NULL);
        local_counts(c, "pairwise", 0, vec);
        local_counts_ops(c, "bcast-ring,allgather-ring");
        local_counts_ops(c, "bcast-split,allgather-hc");
        rising_counts(c);
        many_options(c);
        many_communicators();
        persistent_between(c);
        shm_bought();
        MPI_Type_free(&vec);
    }
    MPI_Comm_free(&c);
    long all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (wrank == 0)
        printf("test_mpi_plan p %d%s: %ld checks on rank 0, %ld failures on all ranks\n", wsize,
               multiple ? (level == MPI_THREAD_MULTIPLE ? " (threads)" : " (no threads given)")
                        : "",
               checks, all);
    MPI_Finalize();
    return all ? 1 : 0;
}
