/*
 * bench_rank_plan.c - how long one rank takes to derive its own program
 * (xchg_rank_new), and how much it keeps, at sizes no test machine runs:
 * no MPI, one process playing one rank.
 *
 *   bench_rank_plan TOPOLOGY ALG [NODE]
 *
 * Prints one line: topology, algorithm, p, steps, the symmetry used, the
 * time to generate the schedule (rules only), the time to derive the rank's
 * program, its list bytes, its scratch blocks and the blocks it sends.
 * Exit 2 on bad arguments.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "xchg.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static const char *sym_name(xchg_sym_kind k)
{
    switch (k) {
    case XCHG_SYM_XOR: return "xor";
    case XCHG_SYM_CYCLIC: return "cyclic";
    case XCHG_SYM_TRANSLATE: return "translate";
    default: return "none";
    }
}

static long peak_rss_mib(void)
{
    struct rusage ru;
    return getrusage(RUSAGE_SELF, &ru) ? -1 : ru.ru_maxrss / 1024;
}

int main(int argc, char **argv)
{
    if (argc < 3 || argc > 4) {
        fprintf(stderr, "usage: bench_rank_plan TOPOLOGY ALG [NODE]\n");
        return 2;
    }
    xchg_topo t;
    xchg_err err;
    const xchg_alg *alg;
    xchg_opts opts;
    if (xchg_topo_parse(argv[1], &t, &err) || xchg_alg_parse(argv[2], &alg, &opts, &err) ||
        xchg_alg_applies(alg, &t, &opts, &err)) {
        fprintf(stderr, "bench_rank_plan: %s\n", err.msg);
        return 2;
    }
    uint32_t node = argc == 4 ? (uint32_t)strtoul(argv[3], NULL, 10) : t.nodes / 3;
    if (node >= t.nodes) {
        fprintf(stderr, "bench_rank_plan: node %u is not one of the %u nodes\n",
                (unsigned)node, (unsigned)t.nodes);
        return 2;
    }
    double t0 = now();
    xchg_sched *s = NULL;
    if (xchg_alg_generate(alg, &t, &opts, &s, &err)) {
        fprintf(stderr, "bench_rank_plan: %s\n", err.msg);
        return 1;
    }
    double t1 = now();
    xchg_symmetry sym;
    xchg_alg_symmetry(alg, &t, &opts, &sym);
    xchg_rank *r = NULL;
    if (xchg_rank_new(s, &sym, node, &r, &err)) {
        fprintf(stderr, "bench_rank_plan: %s\n", err.msg);
        return 1;
    }
    double t2 = now();
    size_t sent = 0;
    for (size_t k = 0; k < xchg_rank_nsteps(r); k++) {
        xchg_rank_step st;
        xchg_rank_step_get(r, k, &st);
        sent += st.nsend;
    }
    printf("%-16s %-14s p %-6u steps %-6zu sym %-9s generate %8.3f ms  rank %9.3f ms  "
           "lists %10zu B  scratch %7zu blocks  sends %8zu blocks  peak RSS %6ld MiB\n",
           argv[1], argv[2], (unsigned)t.nodes, xchg_sched_nsteps(s), sym_name(sym.kind),
           (t1 - t0) * 1e3, (t2 - t1) * 1e3, xchg_rank_bytes(r), xchg_rank_scratch_blocks(r),
           sent, peak_rss_mib());
    xchg_rank_free(r);
    xchg_sched_free(s);
    return 0;
}
