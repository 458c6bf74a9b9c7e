/*
 * bench_verify.c - times xchg_verify on one schedule; bench/verify_scale.sh
 * runs it over topology sizes and thread counts and makes the table.
 *
 * Usage: bench_verify TOPOLOGY ALGORITHM THREADS [REPEATS]
 * Prints one line: nodes blocks steps seconds ok threads, where seconds is
 * the best of REPEATS runs (default 1) of xchg_verify, wall clock, with the
 * schedule generated beforehand (not timed). Exit 0 when the schedule
 * verified ok, 1 when it did not, 2 on bad usage or a library error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "xchg.h"

/* Wall-clock seconds from a monotonic clock. */
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    if (argc < 4 || argc > 5) {
        fprintf(stderr, "usage: %s TOPOLOGY ALGORITHM THREADS [REPEATS]\n", argv[0]);
        return 2;
    }
    xchg_err err = {{0}};
    xchg_topo t;
    if (xchg_topo_parse(argv[1], &t, &err) != 0) {
        fprintf(stderr, "bench_verify: %s\n", err.msg);
        return 2;
    }
    xchg_sched *s = NULL;
    if (xchg_generate(&t, argv[2], &s, &err) != 0) {
        fprintf(stderr, "bench_verify: %s\n", err.msg);
        return 2;
    }
    int threads = atoi(argv[3]);
    int reps = argc == 5 ? atoi(argv[4]) : 1;
    if (threads < 0 || reps < 1) {
        fprintf(stderr, "bench_verify: THREADS must be >= 0 (0 = all cores), REPEATS >= 1\n");
        xchg_sched_free(s);
        return 2;
    }
    xchg_verify_opts opts = {.threads = threads, .max_work = 0};
    xchg_verify_report rep;
    double best = -1;
    for (int i = 0; i < reps; i++) {
        double t0 = now();
        int rc = xchg_verify(s, &opts, &rep, &err);
        double dt = now() - t0;
        if (rc != 0) {
            fprintf(stderr, "bench_verify: %s\n", err.msg);
            xchg_sched_free(s);
            return 2;
        }
        if (best < 0 || dt < best)
            best = dt;
    }
    printf("%u %llu %zu %.6f %d %d\n", t.nodes, (unsigned long long)rep.blocks, rep.steps, best,
           rep.ok, threads);
    for (int i = 0; i < rep.reported; i++)
        fprintf(stderr, "  %s\n", rep.msgs[i]);
    xchg_sched_free(s);
    return rep.ok ? 0 : 1;
}
