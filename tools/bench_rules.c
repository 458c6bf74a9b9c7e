/*
 * bench_rules.c - what xchg-bench accepts across its options, checked once
 * every option is read (bench_args.c) and the job's size is known: the
 * operation with its root or shift, the algorithm and the topology against
 * the registry (so a typo is bad usage with the library's own message, not
 * a failed run), the sizes an operation can take, the OSU benchmarks'
 * memory limit, and the executor's environment variables.
 */
#include <limits.h>
#include <string.h>

#include "bench.h"
#include "tool_ops.h"

/* --op, then --root and --q, which depend on it, into a->op, root, q. */
static int rules_op(bench_args *a, int nprocs)
{
    xchg_err err = {{0}};
    if (a->op_text && (!strcmp(a->op_text, "alltoallv") || !strcmp(a->op_text, "alltoallw")))
        a->vexchange = a->op_text[8] == 'v' ? 1 : 2; /* the exchange of variable blocks */
    else if (a->op_text && xchg_op_parse(a->op_text, &a->op, &err) != 0)
        return xchg_tool_usage_error("--op '%s': %s; or alltoallv, alltoallw", a->op_text,
                                     err.msg);
    if ((a->counts || a->seed_text) && !a->vexchange)
        return xchg_tool_usage_error("--counts and --seed apply to --op alltoallv and "
                                     "alltoallw only");
    if (!a->counts)
        a->counts = "uniform";
    long seed = 1;
    if (a->seed_text && bench_parse_long(a->seed_text, 0, LONG_MAX, &seed) != 0)
        return xchg_tool_usage_error("--seed '%s' is not a whole number; accepted: 0 or more",
                                     a->seed_text);
    a->seed = (uint64_t)seed;
    if (a->vexchange && a->in_place)
        return xchg_tool_usage_error("-l (in place) is for --op alltoall only, not --op %s",
                                     a->op_text);
    const char *opname = bench_op_name(a);
    if (a->root_text && !xchg_tool_op_has_root(a->op))
        return xchg_tool_usage_error("--root applies to bcast, reduce, gather and scatter; --op "
                                     "%s has no root", opname);
    long v;
    if (a->root_text && bench_parse_long(a->root_text, 0, (long)nprocs - 1, &v) != 0)
        return xchg_tool_usage_error("--root '%s' is not a rank of this job; accepted: 0 to %d",
                                     a->root_text, nprocs - 1);
    if (a->root_text)
        a->root = (int)v;
    if (a->q_text && a->op != XCHG_OP_SHIFT)
        return xchg_tool_usage_error("--q applies to --op shift only, not --op %s", opname);
    if (a->q_text) {
        const char *d = a->q_text + (*a->q_text == '-' || *a->q_text == '+');
        if (bench_parse_long(d, 0, INT_MAX, &v) != 0)
            return xchg_tool_usage_error("--q '%s' is not an integer; accepted: a shift such as "
                                         "1, 3 or -2, not a multiple of the %d ranks",
                                         a->q_text, nprocs);
        a->q = *a->q_text == '-' ? -(int)v : (int)v;
    }
    if (a->op == XCHG_OP_SHIFT && nprocs > 0 && a->q % nprocs == 0)
        return xchg_tool_usage_error("--q %d is a multiple of the %d ranks (a shift that moves "
                                     "nothing); accepted: an integer that is not", a->q, nprocs);
    return 0;
}

/* What runs: --pair, -l, --alg and --topo for the operation. */
static int rules_alg(const bench_args *a, int nprocs)
{
    const char *opname = bench_op_name(a);
    xchg_err err = {{0}};
    if (a->pair && a->in_place)
        return xchg_tool_usage_error("--pair times xchg's call against the MPI library's in one "
                                     "run; accepted without -l");
    if (a->in_place && a->op != XCHG_OP_ALLTOALL)
        return xchg_tool_usage_error("-l (in place) is for --op alltoall only, not --op %s",
                                     opname);
    if (a->op != XCHG_OP_ALLTOALL && strcmp(a->alg, "shm") == 0)
        return xchg_tool_usage_error("--alg 'shm' runs the complete exchange only, not --op %s; "
                                     "accepted: an algorithm 'xchg list --op %s' lists, auto or "
                                     "mpi", opname, opname);
    if (xchg_mpi_alg_check_op(a->alg, a->op, &err) != 0)
        return xchg_tool_usage_error("--alg '%s': %s", a->alg, err.msg);
    if (a->topo && strcmp(a->topo, "auto") != 0) {
        xchg_topo t;
        if (xchg_topo_parse(a->topo, &t, &err) != 0)
            return xchg_tool_usage_error("--topo '%s': %s; also accepted: auto", a->topo, err.msg);
        /* a node-aware exchange's topology may be the network of nodes
         * (docs/clusters.md): fewer nodes than ranks, as many a node */
        int aware = !strncmp(a->alg, "leader", 6) || !strncmp(a->alg, "pairs", 5);
        if ((long)t.nodes != (long)nprocs && (!aware || nprocs % (long)t.nodes != 0))
            return xchg_tool_usage_error("--topo '%s' has %u nodes but the job has %d ranks; "
                                         "accepted: a topology of %d nodes (or, with a node-aware "
                                         "--alg, of the nodes), or auto",
                                         a->topo, (unsigned)t.nodes, nprocs, nprocs);
        if (strcmp(a->alg, "mpi") == 0)
            xchg_tool_say("note: --topo is ignored with --alg mpi");
    }
    return 0;
}

/* The job's ranks and the sizes: an MPI_INT at least for a reduction, an
 * int count for the MPI library's call of another operation, and the
 * largest buffer within -M (MAX lowered to fit it, with a warning). */
static int rules_sizes(bench_args *a, int nprocs)
{
    const char *opname = bench_op_name(a);
    if (nprocs < 2)
        return xchg_tool_usage_error("%s needs at least 2 ranks, the job has %d; start it with "
                                     "mpirun -np P (P >= 2)",
                                     a->op == XCHG_OP_ALLTOALL ? "an all-to-all" : opname, nprocs);
    if (xchg_tool_op_reduces(a->op) && a->max_size < sizeof(int))
        return xchg_tool_usage_error("-m MAX %zu is below one MPI_INT; accepted for --op %s: "
                                     "MAX >= %zu",
                                     a->max_size, opname, sizeof(int));
    if (a->op != XCHG_OP_ALLTOALL && a->max_size > (size_t)INT_MAX)
        return xchg_tool_usage_error("-m MAX %zu exceeds %d bytes, the largest count of the MPI "
                                     "library's --op %s call; accepted: MAX <= %d",
                                     a->max_size, INT_MAX, opname, INT_MAX);
    /* The OSU benchmarks' memory limit: the largest buffer (P*MAX bytes
     * where a rank holds P blocks) must fit. */
    size_t p = xchg_tool_op_max_blocks(a->op, nprocs);
    if (a->max_size > a->mem_limit / p) {
        size_t fit = a->mem_limit / p, m = a->min_size;
        if (fit < a->min_size)
            return xchg_tool_usage_error("%s%zu bytes exceeds the memory limit of %zu bytes per "
                                         "buffer; accepted: a smaller -m or a larger -M",
                                         p > 1 ? "P*MIN = " : "MIN = ", p * a->min_size,
                                         a->mem_limit);
        while (m <= fit / 2)
            m *= 2;
        xchg_tool_say("warning: limiting the largest block to %zu bytes (%sMAX must fit -M %zu); "
                      "raise -M for larger blocks", m, p > 1 ? "P x " : "", a->mem_limit);
        a->max_size = m;
    }
    return 0;
}

/* The executor's environment (XCHG_ALG, XCHG_SMPI_COPY_COST, ...), as the
 * drop-in reads it: xchg-bench passes its own options, so a variable it
 * would otherwise never check is refused here, not ignored. */
static int rules_env(void)
{
    xchg_mpi_opts o;
    xchg_err err = {{0}};
    xchg_mpi_opts_default(&o);
    if (xchg_mpi_opts_from_env(&o, &err) != 0)
        return xchg_tool_usage_error("%s", err.msg);
    return 0;
}

int bench_rules(bench_args *a, int nprocs)
{
    int rc;
    if ((rc = rules_env()) || (rc = rules_op(a, nprocs)) || (rc = rules_alg(a, nprocs)) ||
        (rc = rules_sizes(a, nprocs)))
        return rc;
    return 0;
}
