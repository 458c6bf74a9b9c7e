/*
 * bench_v.c - xchg-bench's MPI_Alltoallv and MPI_Alltoallw (--op
 * alltoallv, alltoallw): each size's count matrix, from the named
 * distribution of --counts with the size as its mean block (the core's
 * xchg_vcounts_named: uniform, random:X, hot:R[:F], sparse:F; the same
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

int bench_v_make(const bench_job *job, size_t m, bench_v *v)
{
    const bench_args *a = job->a;
    int p = job->p, me = job->rank;
    memset(v, 0, sizeof *v);
    xchg_err err = {{0}};
    xchg_vcounts *c = NULL;
    if (xchg_vcounts_named(a->counts, (uint32_t)p, (double)m, a->seed, &c, &err) != XCHG_OK) {
        xchg_tool_usage_error("--counts '%s': %s", a->counts, err.msg);
        return BENCH_EXIT_USAGE;
    }
    v->sc = malloc(4 * (size_t)p * sizeof(int));
    v->types = malloc((size_t)p * sizeof(MPI_Datatype));
    if (!v->sc || !v->types) {
        xchg_vcounts_free(c);
        return BENCH_EXIT_MPI;
    }
    v->sd = v->sc + p, v->rc = v->sc + 2 * p, v->rd = v->sc + 3 * p;
    size_t s = 0, r = 0;
    int too_big = xchg_tool_vcounts_args(c, p, me, v->sc, v->sd, v->rc, v->rd, &s, &r);
    for (int j = 0; j < p; j++)
        v->types[j] = MPI_BYTE;
    xchg_vcounts_free(c);
    if (too_big) {
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
