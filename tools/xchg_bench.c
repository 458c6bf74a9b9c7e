/*
 * xchg_bench.c - xchg-bench: time MPI_Alltoall, or another collective
 * operation (--op), run by xchg's executor against the MPI library's own,
 * with the options and in the output layout of the OSU micro-benchmarks
 * (osu_alltoall, osu_bcast, osu_allreduce, ...), so the tables read the same.
 * This file runs the sizes; bench.h names the files that do the rest.
 *
 *   mpirun -np 16 xchg-bench [-m MIN:MAX] [-i N] [-x N] [-f] [-c] [-l]
 *                            [--op NAME] [--root R] [--q Q] [--pair]
 *                            [--alg SPEC|auto|shm|mpi] [--topo SPEC] [--json]
 *
 * What is timed, as the OSU benchmarks do it: for each size m (MIN, 2*MIN,
 * 4*MIN ... up to MAX) every rank runs WARMUP untimed and ITERS timed
 * calls, each timed call alone between MPI_Wtime calls and followed by an
 * MPI_Barrier outside the timed region. A rank's latency is its mean time
 * per call; the row prints the mean of that over the ranks (Avg), and its
 * minimum and maximum over the ranks. Sizes above 8192 bytes use the large
 * iteration and warm-up counts.
 *
 * The size m is one rank's block, as OSU defines it per benchmark: the
 * block per destination (alltoall), the message (bcast, shift), the vector
 * reduced (reduce, allreduce, scan), the block each rank receives
 * (reduce_scatter; OSU's osu_reduce_scatter counts the whole vector, p
 * times this) and the block each rank contributes or receives (allgather,
 * gather, scatter). Reductions sum MPI_INT with MPI_SUM: m / 4 elements,
 * sizes below 4 bytes skipped and others rounded down to a multiple of 4
 * (OSU's num_elements = size / type size); the other operations move
 * MPI_BYTE.
 *
 * xchg's exchange runs through a persistent plan made per size before the
 * warm-up (xchg_mpi_plan_create); the other operations through their call
 * (xchg_mpi_bcast, ...), which caches its plan on the communicator, after
 * one untimed call that makes it. So deriving a plan is outside the timed
 * loop, as an MPI library's own setup is when it caches it per
 * communicator. --alg mpi calls the MPI library's own call by its
 * profiling name (PMPI_Alltoall, PMPI_Bcast, ...; shift: PMPI_Sendrecv to
 * (r+q) mod p from (r-q) mod p on a duplicated communicator): this program
 * links libxchg_mpi, whose MPI_Alltoall is the drop-in (xchg itself).
 * --pair times that call too, in the same loop: each iteration makes one
 * call of xchg's and one of the library's, xchg's first on even iterations
 * and second on odd ones, each timed alone with its barrier after it; the
 * row adds the library's Avg and the ratio of the two, so both sides meet
 * the same state of the machine and of the MPI library, and the median
 * ratio: each rank's median call of each side, averaged over the ranks.
 * On an oversubscribed machine a few calls that lose the core for a
 * scheduler's slice move a mean by more than the differences being
 * measured (docs/mpi-ops.md, "Measured", has the figures); the median call
 * is what the two calls themselves cost. The pair ratio compares the two
 * calls of each iteration, which met the same state of the machine, and
 * takes each rank's median of those ratios. Two identical calls stray less
 * by it than by the median ratio (bench/results/pair_ratio_control.txt
 * counts both), so where xchg passes the call to the library it shows what
 * xchg's way there costs. Where the two sides run different algorithms it
 * is no measure of the slowdown: a call that returns at once on some ranks
 * against one that never does makes those ranks' ratios huge
 * (docs/mpi-ops.md). With --alg mpi both calls of a pair are the
 * library's: a control, whose ratios show how far two identical calls
 * stray on this machine (bench/mpi_ops.sh prints it beside each size).
 * --min-time S raises the timed count at each size to fill S seconds at
 * the warm-up's pace: on a shared machine a paired ratio of a few calls
 * strays far from 1 even when both sides make the same call
 * (bench/pair_control.sh), and thousands of calls of a small size cost
 * less than a second.
 *
 * Validation (-c) fills every input before every call and checks every
 * output afterwards against a value computed locally from the inputs (the
 * operation's definition; bench_data.c).
 *
 * Exit status: 0 ok, 1 a validation failed, 2 bad usage (every rank exits
 * 2 after MPI_Finalize; rank 0 says why on stderr), 3 an MPI call failed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "tool_ops.h"

void bench_finish(int code)
{
    fflush(stdout);
    fflush(stderr);
    MPI_Finalize();
    exit(code);
}

/*
 * This rank's buffers at the largest size into job: the exchange in place
 * needs one; otherwise a send and a receive buffer of as many blocks as the
 * rank sends and receives (64 ranks of 1 MiB blocks: 2 x 64 MiB per rank),
 * every page touched before timing, as the OSU benchmarks set theirs; and
 * the scratch for checking reductions. Collective: when any rank lacks the
 * memory, rank 0 says so and every rank ends with status 2.
 */
static void alloc_buffers(bench_job *job)
{
    const bench_args *a = job->a;
    int p = job->p;
    size_t sbytes =
        a->in_place ? 0 : xchg_tool_op_send_blocks(a->op, job->rank, a->root, p) * a->max_size;
    job->rbytes = xchg_tool_op_recv_blocks(a->op, job->rank, a->root, p) * a->max_size;
    if (a->vexchange) /* each size's own buffers, sized by its counts (bench_v.c) */
        sbytes = job->rbytes = 0;
    job->coefs = malloc((size_t)p * sizeof *job->coefs);
    int okmem = job->coefs != NULL;
    if (okmem && job->rbytes)
        okmem = posix_memalign((void **)&job->rbuf, 4096, job->rbytes) == 0;
    if (okmem && sbytes)
        okmem = posix_memalign((void **)&job->sbuf, 4096, sbytes) == 0;
    int allmem = 0;
    MPI_Allreduce(&okmem, &allmem, 1, MPI_INT, MPI_MIN, job->comm);
    if (!allmem) {
        size_t most = xchg_tool_op_max_blocks(a->op, p) * a->max_size;
        xchg_tool_usage_error("cannot allocate %s%zu bytes per rank for %d ranks x %zu-byte "
                              "blocks; accepted: a smaller -m MAX",
                              a->in_place ? "" : "2 x ", most, p, a->max_size);
        free(job->sbuf);
        free(job->rbuf);
        free(job->coefs);
        MPI_Comm_free(&job->comm);
        bench_finish(BENCH_EXIT_USAGE);
    }
    if (job->rbuf)
        memset(job->rbuf, 0, job->rbytes);
    if (job->sbuf && a->op == XCHG_OP_ALLTOALL)
        bench_fill_blocks(job->sbuf, job->rank, p, a->max_size, -1);
    else if (job->sbuf)
        memset(job->sbuf, 1, sbytes);
}

/* Time every size and print its row (rank 0); stops at the first size
 * that fails validation, as the OSU benchmarks do. Returns the exit
 * status: 0, or 1 after a failed validation. */
static int run_sizes(const bench_job *job)
{
    const bench_args *a = job->a;
    if (job->rank == 0 && !a->json)
        bench_print_header(a, job->p);
    bench_row row, prev;
    int have_prev = 0;
    size_t esize = xchg_tool_op_reduces(a->op) ? sizeof(int) : 1;
    for (size_t size = a->min_size; size <= a->max_size; size *= 2) {
        /* A reduction's size in whole elements (OSU: size / type size). */
        size_t count = size / esize, m = count * esize;
        if (count > 0) {
            bench_run_size(job, m, count, &row);
            if (job->rank == 0) {
                if (a->json) {
                    bench_print_json(a, job->p, &row);
                } else {
                    bench_print_plan_line(a, &row, have_prev ? &prev : NULL);
                    bench_print_row(a, &row);
                }
                fflush(stdout);
            }
            prev = row;
            have_prev = 1;
            if (row.checked && !row.valid) {
                xchg_tool_say("DATA VALIDATION ERROR at size %zu with --op %s --alg %s", m,
                              bench_op_name(a), a->alg);
                return BENCH_EXIT_INVALID;
            }
        }
        if (size > SIZE_MAX / 2)
            break;
    }
    return BENCH_EXIT_OK;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    bench_args a;
    bench_job job = {.a = &a, .shift_comm = MPI_COMM_NULL};
    /* A private communicator whose errors come back as codes, so a failure
     * is reported with the size it happened at. */
    MPI_Comm_dup(MPI_COMM_WORLD, &job.comm);
    MPI_Comm_set_errhandler(job.comm, MPI_ERRORS_RETURN);
    MPI_Comm_rank(job.comm, &job.rank);
    MPI_Comm_size(job.comm, &job.p);
    xchg_tool_usage_setup(BENCH_NAME, " (see " BENCH_NAME " --help)", job.rank == 0);

    int prc = bench_parse_args(argc, argv, job.rank, &a);
    if (prc == 0)
        prc = bench_rules(&a, job.p);
    if (prc != 0) {
        MPI_Comm_free(&job.comm);
        bench_finish(prc < 0 ? BENCH_EXIT_OK : prc);
    }
    /* A shift through the MPI library goes on a communicator of its own, as
     * xchg's plan does, so it never meets the benchmark's other messages. */
    if (a.op == XCHG_OP_SHIFT)
        MPI_Comm_dup(job.comm, &job.shift_comm);
    alloc_buffers(&job);

    int status = run_sizes(&job);
    if (job.shift_comm != MPI_COMM_NULL)
        MPI_Comm_free(&job.shift_comm);
    free(job.coefs);
    free(job.sbuf);
    free(job.rbuf);
    MPI_Comm_free(&job.comm);
    bench_finish(status);
    return status;
}
