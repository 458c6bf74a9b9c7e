/*
 * bench_v.c - xchg-bench's MPI_Alltoallv and MPI_Alltoallw (--op
 * alltoallv, alltoallw): each size's count matrix, from the named
 * distribution of --counts with the size as its mean block (the core's
 * tmp_counts_named: uniform, random:X, hot:R[:F], sparse:F; the same
 * matrix on every rank, seeded), this rank's row and column of it as the
 * calls' counts and displacements (bytes of MPI_BYTE; w: MPI_BYTE for
 * every peer, displacements in bytes), the buffers, one call of xchg or
 * of the MPI library, and -c's fill and check: block (o -> d) is the
 * pattern of bench_data.c for its origin, destination, size and call.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "tool_ops.h"

const char *bench_op_name(const bench_args *a)
{
    return a->vexchange == 2 ? "alltoallw" : a->vexchange ? "alltoallv" : xchg_op_name(a->op);
}

const char *bench_op_mpi_name(const bench_args *a)
{
    return a->vexchange == 2 ? "MPI_Alltoallw"
           : a->vexchange    ? "MPI_Alltoallv"
                             : xchg_tool_op_mpi_name(a->op);
}

const char *bench_op_title(const bench_args *a)
{
    return a->vexchange == 2 ? "Alltoallw" : a->vexchange ? "Alltoallv" : xchg_tool_op_title(a->op);
}

/* TEMPORARY until the core's count matrices land: the same forms. */
typedef struct tmp_counts {
    int p;
    uint64_t *c;
} tmp_counts;

static uint64_t rng(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static int tmp_counts_named(const char *spec, int p, double m, uint64_t seed, tmp_counts **out,
                             xchg_err *err)
{
    double x = 0;
    int kind = 0, hot = 0;
    double f = 8;
    if (!strcmp(spec, "uniform"))
        kind = 0;
    else if (sscanf(spec, "random:%lf", &x) == 1 && x >= 0 && x <= 100)
        kind = 1;
    else if (sscanf(spec, "hot:%d:%lf", &hot, &f) >= 1 && hot >= 0 && hot < p && f >= 0)
        kind = 2;
    else if (sscanf(spec, "sparse:%lf", &x) == 1 && x > 0 && x <= 1)
        kind = 3;
    else {
        snprintf(err->msg, sizeof err->msg,
                 "not a distribution; accepted: uniform, random:X (0 <= X <= 100), hot:R[:F] "
                 "(R a rank), sparse:F (0 < F <= 1)");
        return XCHG_EINVAL;
    }
    tmp_counts *c = malloc(sizeof *c);
    c->p = p;
    c->c = malloc(sizeof(uint64_t) * (size_t)p * (size_t)p);
    for (int i = 0; i < p; i++)
        for (int j = 0; j < p; j++) {
            double v = m;
            uint64_t r = rng(&seed);
            if (kind == 1)
                v = m * (1 + ((double)(r >> 11) / 9007199254740992.0 * 2 - 1) * x / 100);
            else if (kind == 2 && (i == hot || j == hot))
                v = m * f;
            else if (kind == 3 && i != j && (double)(r >> 11) / 9007199254740992.0 >= x)
                v = 0;
            c->c[(size_t)i * (size_t)p + (size_t)j] = (uint64_t)(v + 0.5);
        }
    *out = c;
    return XCHG_OK;
}
static uint64_t tmp_counts_at(const tmp_counts *c, int i, int j)
{
    return c->c[(size_t)i * (size_t)c->p + (size_t)j];
}
static void tmp_counts_free(tmp_counts *c)
{
    if (c)
        free(c->c);
    free(c);
}

int bench_v_make(const bench_job *job, size_t m, bench_v *v)
{
    const bench_args *a = job->a;
    int p = job->p, me = job->rank;
    memset(v, 0, sizeof *v);
    xchg_err err = {{0}};
    tmp_counts *c = NULL;
    if (tmp_counts_named(a->counts, p, (double)m, a->seed, &c, &err) != XCHG_OK) {
        xchg_tool_usage_error("--counts '%s': %s", a->counts, err.msg);
        return BENCH_EXIT_USAGE;
    }
    v->sc = malloc(4 * (size_t)p * sizeof(int));
    v->types = malloc((size_t)p * sizeof(MPI_Datatype));
    if (!v->sc || !v->types) {
        tmp_counts_free(c);
        return BENCH_EXIT_MPI;
    }
    v->sd = v->sc + p, v->rc = v->sc + 2 * p, v->rd = v->sc + 3 * p;
    size_t s = 0, r = 0;
    int too_big = 0;
    for (int j = 0; j < p; j++) {
        uint64_t out = tmp_counts_at(c, me, j), in = tmp_counts_at(c, j, me);
        too_big |= out > INT_MAX || in > INT_MAX || s > INT_MAX || r > INT_MAX;
        v->sc[j] = (int)out, v->sd[j] = (int)s, s += (size_t)out;
        v->rc[j] = (int)in, v->rd[j] = (int)r, r += (size_t)in;
        v->types[j] = MPI_BYTE;
    }
    tmp_counts_free(c);
    if (too_big || s > INT_MAX || r > INT_MAX) {
        xchg_tool_usage_error("--op %s --counts '%s' at %zu bytes: a block or a rank's "
                              "buffer passes MPI_Alltoallv's int counts",
                              a->vexchange == 2 ? "alltoallw" : "alltoallv", a->counts, m);
        return BENCH_EXIT_USAGE;
    }
    v->sbytes = s, v->rbytes = r;
    v->s = malloc(s ? s : 1), v->r = malloc(r ? r : 1);
    if (!v->s || !v->r)
        return BENCH_EXIT_MPI;
    memset(v->s, 1, s);
    memset(v->r, 0, r);
    return BENCH_EXIT_OK;
}

void bench_v_free(bench_v *v)
{
    free(v->sc);
    free(v->types);
    free(v->s);
    free(v->r);
    memset(v, 0, sizeof *v);
}

int bench_v_call(const bench_job *job, const bench_v *v, int is_mpi, const xchg_mpi_opts *opts)
{
    MPI_Comm comm = job->comm;
    if (job->a->vexchange == 2)
        return is_mpi ? PMPI_Alltoallw(v->s, v->sc, v->sd, v->types, v->r, v->rc, v->rd, v->types,
                                       comm)
                      : xchg_mpi_alltoallw(v->s, v->sc, v->sd, v->types, v->r, v->rc, v->rd,
                                           v->types, comm, opts);
    return is_mpi ? PMPI_Alltoallv(v->s, v->sc, v->sd, MPI_BYTE, v->r, v->rc, v->rd, MPI_BYTE, comm)
                  : xchg_mpi_alltoallv(v->s, v->sc, v->sd, MPI_BYTE, v->r, v->rc, v->rd, MPI_BYTE,
                                       comm, opts);
}

void bench_v_fill(const bench_job *job, const bench_v *v, size_t m, long call)
{
    for (int d = 0; d < job->p; d++)
        bench_block_fill(v->s + v->sd[d], (size_t)v->sc[d], job->rank, d, m, call);
    memset(v->r, 0xEE, v->rbytes); /* a block never written is caught */
}

long bench_v_check(const bench_job *job, const bench_v *v, size_t m, long call)
{
    long bad = 0;
    for (int o = 0; o < job->p; o++) {
        size_t n = (size_t)v->rc[o];
        size_t at = bench_block_check(v->r + v->rd[o], n, o, job->rank, m, call);
        if (at < n && bad++ == 0)
            fprintf(stderr,
                    BENCH_NAME ": rank %d, mean size %zu, call %ld: the %zu-byte block from "
                    "rank %d is wrong at byte %zu\n",
                    job->rank, m, call, n, o, at);
    }
    return bad;
}
