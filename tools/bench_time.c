/*
 * bench_time.c - how xchg-bench times one size, as the OSU benchmarks do:
 * WARMUP untimed calls, then ITERS timed ones, each timed alone between
 * MPI_Wtime calls with an MPI_Barrier after it outside the timed region;
 * xchg's plan made before the warm-up; with --pair the MPI library's call
 * in the same loop, the two taking turns; with -c every input refilled
 * before and every output checked after each of xchg's calls.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "tool_ops.h"

/* --min-time: the most timed calls it asks for at one size */
#define MAX_TIMED_ITERS 1000000L

/* How MPI_Alltoall is called for m bytes: an int count of a type. Above
 * INT_MAX bytes the block goes as a count of contiguous chunks (Open MPI 4
 * has no MPI_Alltoall_c). */
typedef struct mpi_call {
    int count;
    MPI_Datatype type;
    int owned;
} mpi_call;

static int mpi_call_make(size_t m, mpi_call *c)
{
    c->owned = 0;
    if (m <= (size_t)INT_MAX) {
        c->count = (int)m;
        c->type = MPI_BYTE;
        return MPI_SUCCESS;
    }
    size_t unit = 1;
    while (unit < ((size_t)1 << 30) && m % (unit * 2) == 0)
        unit *= 2;
    if (m / unit > (size_t)INT_MAX)
        return MPI_ERR_COUNT;
    int rc = MPI_Type_contiguous((int)unit, MPI_BYTE, &c->type);
    if (rc == MPI_SUCCESS)
        rc = MPI_Type_commit(&c->type);
    c->count = (int)(m / unit);
    c->owned = rc == MPI_SUCCESS;
    return rc;
}

static void mpi_call_free(mpi_call *c)
{
    if (c->owned)
        MPI_Type_free(&c->type);
    c->owned = 0;
}

/* Report a failed MPI call and stop the job (the other ranks may be inside
 * a collective). */
static void mpi_fail(const bench_job *job, int rc, const char *what, size_t m)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    fprintf(stderr, BENCH_NAME ": rank %d: %s failed at block size %zu: %s\n", job->rank, what,
            m, msg);
    fflush(stderr);
    MPI_Abort(job->comm, BENCH_EXIT_MPI);
    exit(BENCH_EXIT_MPI);
}

/* What a run of one size calls: the operation, its buffers and the plan or
 * the MPI library's call. */
typedef struct bench_call {
    const bench_args *a;
    const xchg_mpi_opts *opts; /* xchg's side (the other operations) */
    xchg_mpi_plan *plan;       /* xchg's side of the exchange */
    int is_mpi;
    mpi_call mc; /* the exchange's MPI_Alltoall count and type */
    MPI_Comm comm, shift_comm;
    size_t count; /* elements: bytes, or ints for a reduction */
    unsigned char *sbuf, *rbuf;
    const bench_job *job;
    const bench_v *v; /* alltoallv, alltoallw: this size's call */
} bench_call;

/* One call of the operation: xchg's or the MPI library's. */
static int op_call(const bench_call *c)
{
    const bench_args *a = c->a;
    if (a->vexchange)
        return bench_v_call(c->job, c->v, c->is_mpi, c->opts);
    if (a->op == XCHG_OP_ALLTOALL) {
        const void *send = a->in_place ? MPI_IN_PLACE : (const void *)c->sbuf;
        if (c->is_mpi)
            return PMPI_Alltoall(send, c->mc.count, c->mc.type, c->rbuf, c->mc.count, c->mc.type,
                                 c->comm);
        return xchg_mpi_plan_run(c->plan, send, c->rbuf);
    }
    xchg_tool_opcall oc = {.kind = a->op,
                           .is_mpi = c->is_mpi,
                           .opts = c->opts,
                           .comm = c->comm,
                           .shift_comm = c->shift_comm,
                           .root = a->root,
                           .q = a->q,
                           .count = c->count,
                           .sbuf = c->sbuf,
                           .rbuf = c->rbuf};
    return xchg_tool_op_call(&oc);
}

/*
 * Get xchg's side of size m ready outside the timed loop, and say in
 * row->info what runs. The exchange's persistent plan derives this rank's
 * lists once and every timed call reuses them; another operation's first
 * call makes the plan its later calls find cached on the communicator; the
 * MPI library's exchange needs its count and type. When xchg has no plan
 * for the size, says why and ends the job with status 2.
 */
static void plan_size(const bench_job *job, bench_call *c, size_t m, bench_row *row)
{
    const bench_args *a = job->a;
    int rc;
    if (c->is_mpi) {
        if (a->op == XCHG_OP_ALLTOALL && !a->vexchange &&
            (rc = mpi_call_make(m, &c->mc)) != MPI_SUCCESS)
            mpi_fail(job, rc, "making the datatype", m);
        snprintf(row->info.alg, sizeof row->info.alg, "mpi");
        snprintf(row->info.topology, sizeof row->info.topology, "-");
        snprintf(row->info.why, sizeof row->info.why, "--alg mpi: %s",
                 bench_op_mpi_name(a));
        row->have_info = 1;
        return;
    }
    if (a->op == XCHG_OP_ALLTOALL && !a->vexchange)
        rc = xchg_mpi_plan_create((MPI_Count)m, MPI_BYTE, (MPI_Count)m, MPI_BYTE, a->in_place,
                                  c->comm, c->opts, &c->plan);
    else
        rc = op_call(c);
    if (rc != MPI_SUCCESS) {
        char msg[MPI_MAX_ERROR_STRING];
        int len = 0;
        MPI_Error_string(rc, msg, &len);
        xchg_tool_usage_error("--op %s --alg '%s'%s%s: no plan for size %zu on %d ranks: %s",
                              bench_op_name(a), a->alg, a->topo ? " --topo " : "",
                              a->topo ? a->topo : "", m, job->p, msg);
        bench_finish(BENCH_EXIT_USAGE);
    }
    if (a->op == XCHG_OP_ALLTOALL && !a->vexchange)
        xchg_mpi_plan_info_get(c->plan, &row->info);
    else
        xchg_mpi_last_info(&row->info);
    row->have_info = 1;
}

/*
 * --min-time: the timed iterations that fill min_time seconds, at the pace
 * of the warm-up (warmup iterations in `took` seconds on this rank, the
 * barriers and, with --pair, both calls included), and never fewer than
 * iters. The slowest rank's pace decides, so every rank runs the same
 * count. At most MAX_TIMED_ITERS, or iters when that is more.
 */
static long iters_for_time(MPI_Comm comm, double min_time, long iters, long warmup, double took)
{
    double slowest = took;
    MPI_Allreduce(&took, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm);
    double per = slowest / (double)warmup;
    double need = per > 0 ? min_time / per + 1 : (double)MAX_TIMED_ITERS;
    long n = need < (double)MAX_TIMED_ITERS ? (long)need : MAX_TIMED_ITERS;
    return n > iters ? n : iters;
}

/* What the timed loop leaves on this rank. */
typedef struct timings {
    long iters;              /* timed iterations run */
    double total, total_lib; /* seconds in xchg's timed calls, in the library's (--pair) */
    double *each, *each_lib; /* --pair: every timed call's time */
    double *pair_ratios;     /* --pair: room for each iteration's xchg / library */
    long bad;                /* wrong blocks or elements (-c), counted at the first bad call */
} timings;

/*
 * The warm-up and timed calls of size m (count elements): c is xchg's side
 * (or the library's with --alg mpi), lib the library's, which --pair runs
 * in turn with c. iters and warmup: the counts for this size. Fills *t;
 * the caller frees its arrays.
 */
static void time_calls(const bench_job *job, const bench_call *c, const bench_call *lib,
                       size_t m, size_t count, long iters, long warmup, timings *t)
{
    const bench_args *a = job->a;
    const char *what = c->is_mpi                                    ? bench_op_mpi_name(a)
                       : a->op == XCHG_OP_ALLTOALL && !a->vexchange ? "xchg_mpi_plan_run"
                                                                    : "xchg's call";
    memset(t, 0, sizeof *t);
    MPI_Barrier(job->comm);
    double warm_start = MPI_Wtime();
    for (long i = 0; i < warmup + iters; i++) {
        if (i == warmup && a->min_time > 0)
            iters = iters_for_time(job->comm, a->min_time, iters, warmup,
                                   MPI_Wtime() - warm_start);
        if (i == warmup && a->pair) {
            t->each = malloc((size_t)iters * sizeof *t->each);
            t->each_lib = malloc((size_t)iters * sizeof *t->each_lib);
            t->pair_ratios = malloc((size_t)iters * sizeof *t->pair_ratios);
            if (!t->each || !t->each_lib || !t->pair_ratios)
                mpi_fail(job, MPI_ERR_NO_MEM, "keeping each call's time (--pair)", m);
        }
        /* with --pair, two turns: xchg first on even iterations, the
         * library first on odd ones, so neither always follows the other */
        for (int turn = 0; turn < (a->pair ? 2 : 1); turn++) {
            int is_lib = a->pair && (turn + i) % 2 == 1;
            if (a->validate && !is_lib && a->vexchange) {
                bench_v_fill(job, c->v, m, i);
                MPI_Barrier(job->comm);
            } else if (a->validate && !is_lib) {
                bench_fill(job, m, count, i);
                MPI_Barrier(job->comm);
            }
            double t0 = MPI_Wtime();
            int rc = op_call(is_lib ? lib : c);
            double t1 = MPI_Wtime();
            if (rc != MPI_SUCCESS)
                mpi_fail(job, rc, is_lib ? bench_op_mpi_name(a) : what, m);
            MPI_Barrier(job->comm);
            if (a->validate && !is_lib && t->bad == 0)
                t->bad += a->vexchange ? bench_v_check(job, c->v, m, i)
                                       : bench_check(job, m, count, i);
            if (i >= warmup) {
                *(is_lib ? &t->total_lib : &t->total) += t1 - t0;
                if (a->pair)
                    (is_lib ? t->each_lib : t->each)[i - warmup] = t1 - t0;
            }
        }
    }
    t->iters = iters;
}

/* Fill row's figures from t (collective): each rank's mean call, its mean,
 * minimum and maximum over the ranks; with --pair the library's, the
 * median calls and the ratios; with -c whether every rank's outputs were
 * right. Sorts t's arrays. */
static void summarise(const bench_job *job, timings *t, bench_row *row)
{
    const bench_args *a = job->a;
    MPI_Comm comm = job->comm;
    int p = job->p;
    row->iters = t->iters;
    double lat = t->total * 1e6 / (double)t->iters;
    MPI_Allreduce(&lat, &row->min_us, 1, MPI_DOUBLE, MPI_MIN, comm);
    MPI_Allreduce(&lat, &row->max_us, 1, MPI_DOUBLE, MPI_MAX, comm);
    row->avg_us = xchg_tool_rank_mean(comm, p, lat);
    if (a->pair) {
        /* first the pairs, before the medians below sort each side */
        long n_pairs = 0;
        for (long k = 0; k < t->iters; k++)
            if (t->each_lib[k] > 0)
                t->pair_ratios[n_pairs++] = t->each[k] / t->each_lib[k];
        row->pair_ratio =
            xchg_tool_rank_mean(comm, p, xchg_tool_median(t->pair_ratios, n_pairs));
        row->mpi_avg_us = xchg_tool_rank_mean(comm, p, t->total_lib * 1e6 / (double)t->iters);
        row->ratio = row->mpi_avg_us > 0 ? row->avg_us / row->mpi_avg_us : 0;
        /* each rank's median call, then the mean over the ranks: a call
         * that a busy machine stretched moves a mean, not a median */
        row->med_us = xchg_tool_rank_mean(comm, p, xchg_tool_median(t->each, t->iters) * 1e6);
        row->mpi_med_us =
            xchg_tool_rank_mean(comm, p, xchg_tool_median(t->each_lib, t->iters) * 1e6);
        row->med_ratio = row->mpi_med_us > 0 ? row->med_us / row->mpi_med_us : 0;
    }
    if (a->validate) {
        long total = 0;
        MPI_Allreduce(&t->bad, &total, 1, MPI_LONG, MPI_SUM, comm);
        row->checked = 1;
        row->valid = total == 0;
    }
}

void bench_run_size(const bench_job *job, size_t m, size_t count, bench_row *row)
{
    const bench_args *a = job->a;
    long iters = m > LARGE_MESSAGE_SIZE ? a->iters_large : a->iters;
    long warmup = m > LARGE_MESSAGE_SIZE ? a->warmup_large : a->warmup;
    if (a->min_time > 0 && warmup < 1)
        warmup = 1; /* --min-time counts from the warm-up's time */
    xchg_mpi_opts o;
    xchg_mpi_opts_default(&o);
    o.alg = a->alg;
    o.topology = a->topo;
    o.verbose = a->verbose;
    o.tuning_file = a->tuning ? a->tuning : getenv("XCHG_TUNING_FILE");
    o.machine_file = a->machine ? a->machine : getenv("XCHG_MACHINE_FILE");
    bench_call c = {.a = a,
                    .opts = &o,
                    .is_mpi = strcmp(a->alg, "mpi") == 0,
                    .mc = {0, MPI_BYTE, 0},
                    .comm = job->comm,
                    .shift_comm = job->shift_comm,
                    .count = count,
                    .sbuf = job->sbuf,
                    .rbuf = job->rbuf,
                    .job = job};
    memset(row, 0, sizeof *row);
    row->bytes = m;
    bench_v v = {0};
    if (a->vexchange) {
        int code = bench_v_make(job, m, &v);
        if (code != BENCH_EXIT_OK) {
            if (code == BENCH_EXIT_MPI)
                mpi_fail(job, MPI_ERR_NO_MEM, "allocating the blocks", m);
            bench_finish(code);
        }
        c.v = &v;
    }
    plan_size(job, &c, m, row);

    /* --pair: the MPI library's call, timed in the same loop */
    bench_call lib = c;
    lib.is_mpi = 1;
    lib.plan = NULL;
    int rc;
    if (a->pair && a->op == XCHG_OP_ALLTOALL && !a->vexchange &&
        (rc = mpi_call_make(m, &lib.mc)) != MPI_SUCCESS)
        mpi_fail(job, rc, "making the datatype", m);

    timings t;
    time_calls(job, &c, &lib, m, count, iters, warmup, &t);
    summarise(job, &t, row);
    free(t.each);
    free(t.each_lib);
    free(t.pair_ratios);
    xchg_mpi_plan_free(c.plan);
    bench_v_free(&v);
    mpi_call_free(&c.mc);
    mpi_call_free(&lib.mc);
}
