/*
 * cmd_plan.c - "xchg plan": ask the planner (xchg_plan_sweep) which
 * algorithm is fastest on a topology and machine for a block size; with
 * --sweep, the winner over a range of block sizes and the exact crossover
 * points where it changes. --only restricts the candidates to some registry
 * entries, so "--only t1.x" picks the best x of T1.x and "--only
 * t1,t1.x,t2" replays Suh et al.'s evaluation (section 5).
 *
 * Thin: the candidates, their time lines (the cost model's one line, which
 * charges the link volume), the winners and the crossovers are the
 * library's, the same as `xchg compare` names; this file parses and prints.
 * With --counts (docs/alltoallv.md) the blocks differ in size: the planner
 * prices every candidate on the counts and ranks them by that cost, at one
 * size (cli_counts.c prints it).
 */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

const char xchg_cli_plan_help[] =
    "usage: xchg plan --topo T [--machine NAME | --ts S --tw W [--tr R] | --a A]\n"
    "                 (--m M | --sweep MIN:MAX) [--only LIST] [--threads N]\n"
    "                 [--max-work W] [--max-memory BYTES] [--ppn K] [--json]\n"
    "                 [--counts FILE|uniform|random:X|hot:R[:F]|sparse:F [--seed N]]\n\n"
    "Cost every registry algorithm (each of its variants, e.g. every t1.x) that\n"
    "applies to T with the cost model's one time line (the same as 'xchg\n"
    "compare'):\n"
    "  time = start-ups*ts + link_volume*m*tw + copies*m*tr\n"
    "where the link volume (sum over steps of the busiest link's load) is the\n"
    "volume for a schedule that claims to be contention-free, and is measured by\n"
    "the verifier's message-level check for any other; one too large to measure\n"
    "may not win. Names the fastest at block size M; with --sweep, the fastest\n"
    "at MIN, 2*MIN, ... <= MAX and the exact block sizes where the fastest\n"
    "changes (crossovers). Ties go to the smaller per-byte cost, then to the\n"
    "earlier algorithm.\n\n"
    "options:\n"
    "  --topo T          ring:P array:P mesh:A[xB..] torus:A[xB..] hypercube:D\n"
    "                    complete:P tree:D\n"
    "  --machine NAME    preset from Bokhari, Table 1: paragon (default), sp2, cs2\n"
    "  --ts S --tw W     custom machine: start-up S us, W us per byte\n"
    "  --tr R            with --ts/--tw: R us per byte copied locally (default 0)\n"
    "  --a A             Suh et al.'s model: ts = A, tw = 1 per flit, tr = 0 (t_c\n"
    "                    units, block sizes in flits)\n"
    "  --m M             block size in bytes (flits with --a)\n"
    "  --sweep MIN:MAX   block sizes MIN, 2*MIN, ... <= MAX, and the crossovers;\n"
    "                    decimals with 0 < MIN <= MAX <= 1e15 (a single N: N:N)\n"
    "  --op NAME         plan another operation (bcast, reduce, allgather,\n"
    "                    reduce_scatter, allreduce, scan, scatter, gather, shift;\n"
    "                    default alltoall; docs/operations.md), with --root R\n"
    "                    (bcast, reduce, scatter, gather) or --q Q (shift)\n"
    "  --only LIST       only these registry names, comma-separated (t1,t1.x,t2);\n"
    "                    --only t1.x chooses the best x\n"
    "  --threads N       threads measuring link volumes, 0 = every online core\n"
    "                    (default 0)\n"
    "  --max-work W      measure the link volume of schedules whose messages cross\n"
    "                    at most W links (p*steps*the longest route; default 2e10);\n"
    "                    a larger one that is not contention-free is shown but may\n"
    "                    not win; one that takes more than W operations to build is\n"
    "                    skipped, named\n"
    "  --max-memory BYTES  skip, and name, a candidate whose schedule would take\n"
    "                    more memory (default 4G; suffixes K, M, G, T)\n"
    "  --ppn K           K ranks a node: T is the network of nodes; the candidates\n"
    "                    are the flat algorithms on complete:K*nodes hosted K a node\n"
    "                    and leader:X, leaders:L:X, pairs:X for every X on T, and\n"
    "                    aggregate, on one time line (docs/hierarchical.md);\n"
    "                    alltoall only\n"
    "  --counts C        blocks of uneven sizes, MPI_Alltoallv's counts\n"
    "                    (docs/alltoallv.md): a FILE of p lines of p byte counts, or\n"
    "                    uniform, random:X, hot:R[:F], sparse:F of mean block --m\n"
    "                    (default 1024; see 'xchg cost --help'). Every candidate is\n"
    "                    priced on them (a message weighs its blocks' bytes, one of\n"
    "                    0 bytes is not sent) and ranked by that time, which charges\n"
    "                    the busiest link as the line does. Not with --sweep, --ppn\n"
    "                    or another --op\n"
    "  --seed N          the seed of random:X and sparse:F (default 1)\n"
    "  --json            one JSON object per line: one \"candidate\" line each, then\n"
    "                    one \"best\" line (--m) or \"size\" and \"crossover\" lines\n\n"
    "exit status: 0 ok, 2 bad input or no candidate applies or may win.\n";

/* What plan was asked. */
typedef struct plan_args {
    xchg_topo topo;
    xchg_machine mach;
    int sweep;              /* --sweep given (else --m) */
    double lo, hi;          /* the sizes: [m, m] with --m */
    xchg_plan_opts po;
    int json;
    xchg_vcounts *counts;   /* --counts, or NULL */
    char counts_desc[160];  /* how to name them */
} plan_args;

static int parse_rest(xchg_cli_opt *opts, plan_args *A);

/* plan --counts: one size (--m, default 1024, the mean block of a named
 * distribution; not with a file), the complete exchange, no --ppn; the
 * counts into A and the planner's options. 0 or an exit status. */
static int parse_counts(xchg_cli_opt *opts, plan_args *A)
{
    static const char *const refused[] = {"sweep", "ppn", "op", "root", "q"};
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
        if (xchg_cli_has(opts, refused[i]))
            return xchg_cli_error("--counts does not go with --%s: the counts price one "
                                  "complete exchange at their own sizes; accepted: --counts C "
                                  "[--m M] without --sweep, --ppn, --op",
                                  refused[i]);
    int rc;
    double m;
    if ((rc = xchg_cli_block_size(opts, &m)) ||
        (rc = xchg_cli_counts(opts, &A->topo, m, &A->counts, A->counts_desc,
                              sizeof A->counts_desc)))
        return rc;
    if ((rc = parse_rest(opts, A)))
        return rc;
    xchg_vcounts_summary sm;
    if (xchg_vcounts_summarize(A->counts, &sm) != XCHG_OK)
        return xchg_cli_error("out of memory");
    A->lo = A->hi = sm.mean; /* the lines' size: only the counts rank */
    A->po.counts = A->counts;
    return 0;
}

/* Parse plan's options into A; 0 or an exit status after printing. */
static int parse_options(int argc, char **argv, plan_args *A)
{
    xchg_cli_opt opts[] = {{"topo", "T", NULL, 0},      {"machine", "NAME", NULL, 0},
                           {"ts", "S", NULL, 0},         {"tw", "W", NULL, 0},
                           {"tr", "R", NULL, 0},         {"a", "A", NULL, 0},
                           {"m", "M", NULL, 0},          {"sweep", "MIN:MAX", NULL, 0},
                           {"only", "LIST", NULL, 0},    {"threads", "N", NULL, 0},
                           {"max-work", "W", NULL, 0},   {"json", NULL, NULL, 0},
                           {"max-memory", "BYTES", NULL, 0},
                           {"op", "NAME", NULL, 0},      {"root", "R", NULL, 0},
                           {"q", "Q", NULL, 0},          {"ppn", "K", NULL, 0},
                           {"counts", "C", NULL, 0},     {"seed", "N", NULL, 0},
                           {NULL, NULL, NULL, 0}};
    int rc = xchg_cli_parse("plan", argc, argv, opts);
    if (rc)
        return rc;
    if ((rc = xchg_cli_topo(opts, "plan", &A->topo)))
        return rc;
    if (xchg_cli_has(opts, "counts") || xchg_cli_has(opts, "seed"))
        return parse_counts(opts, A);
    A->sweep = xchg_cli_has(opts, "sweep");
    if (A->sweep == xchg_cli_has(opts, "m"))
        return xchg_cli_error("plan needs exactly one of --m M and --sweep MIN:MAX; e.g. "
                              "xchg plan --topo torus:64x64 --a 5000 --m 64");
    if (A->sweep && (rc = xchg_cli_range("sweep", xchg_cli_val(opts, "sweep"), &A->lo, &A->hi)))
        return rc;
    if (!A->sweep) {
        if ((rc = xchg_cli_number("m", xchg_cli_val(opts, "m"), 0, XCHG_CLI_MAX_M, 1, &A->lo)))
            return rc;
        A->hi = A->lo;
    }
    return parse_rest(opts, A);
}

/* The options every plan takes (threads, limits, machine, --only, --op,
 * --ppn, --json) into A; 0 or an exit status after printing. */
static int parse_rest(xchg_cli_opt *opts, plan_args *A)
{
    int rc;
    uint64_t v;
    if (xchg_cli_has(opts, "threads")) {
        if ((rc = xchg_cli_uint("threads", xchg_cli_val(opts, "threads"), 0, 1024, &v)))
            return rc;
        A->po.threads = (int)v;
    }
    xchg_cli_limits lim;
    if ((rc = xchg_cli_limits_get(opts, &lim)))
        return rc;
    A->po.max_work = lim.max_work;
    A->po.max_build_work = lim.max_work;
    A->po.max_bytes = lim.max_bytes;
    if ((rc = xchg_cli_machine(opts, A->topo.nodes, &A->mach)))
        return rc;
    A->po.only = xchg_cli_val(opts, "only");
    xchg_op op;
    if ((rc = xchg_cli_op(opts, A->topo.nodes, &op)))
        return rc;
    A->po.op = op.kind;
    A->po.root = op.root;
    A->po.shift = op.shift;
    if ((rc = xchg_cli_ppn(opts, &A->topo, op.kind, &A->po.ppn)))
        return rc;
    A->json = xchg_cli_has(opts, "json");
    return 0;
}

/* Print one candidate as a JSON line. */
static void json_candidate(const xchg_plan_entry *e, uint32_t ppn)
{
    fputs("{\"type\":\"candidate\",\"algorithm\":", stdout);
    xchg_tool_json_str(stdout, e->alg);
    fputs(",\"startups\":", stdout);
    xchg_cli_json_u64(stdout, e->line.startups);
    fputs(",\"volume_blocks\":", stdout);
    xchg_cli_json_u64(stdout, e->line.volume_blocks);
    fputs(",\"link_volume_blocks\":", stdout);
    xchg_cli_json_u64(stdout, e->line.link_volume_blocks);
    fputs(",\"link_volume_source\":", stdout);
    xchg_tool_json_str(stdout, xchg_cli_link_source(e->line.link_source));
    fputs(",\"copy_blocks\":", stdout);
    xchg_cli_json_u64(stdout, e->line.copy_blocks);
    if (ppn > 1) {
        fputs(",\"node_startups\":", stdout);
        xchg_cli_json_u64(stdout, e->line.node_startups);
        fputs(",\"node_volume_blocks\":", stdout);
        xchg_cli_json_u64(stdout, e->line.node_volume_blocks);
    }
    printf(",\"contention_free_claim\":%s", e->contention_free ? "true" : "false");
    fputs(",\"fixed\":", stdout);
    xchg_cli_json_num(stdout, e->line.fixed);
    fputs(",\"per_unit\":", stdout);
    xchg_cli_json_num(stdout, e->line.per_unit);
    printf(",\"eligible\":%s", e->eligible ? "true" : "false");
    if (e->why[0]) {
        fputs(",\"why\":", stdout);
        xchg_tool_json_str(stdout, e->why);
    }
    fputs("}\n", stdout);
}

/* The candidates of sw in the order to show them at block size m: the
 * planner's ranking (fastest eligible first, then the rest). Returns a
 * malloc'd array of indices, or NULL. */
static size_t *order_at(const xchg_sweep *sw, double m)
{
    size_t n = xchg_sweep_ncandidates(sw);
    size_t *ord = malloc((n ? n : 1) * sizeof *ord);
    if (ord)
        xchg_sweep_rank(sw, m, ord, n);
    return ord;
}

/* Text: the title, the model, and the candidates' table in the order ord
 * (registry order when NULL), with the time at m when with_time; the
 * candidates that may not win are listed after it. */
static void text_table(const plan_args *A, const xchg_sweep *sw, const size_t *ord,
                       int with_time, double m)
{
    char spec[64];
    const char *only = A->po.only;
    printf("# xchg plan on %s, machine %s (ts = %g, tw = %g, tr = %g; %s)%s%s\n",
           xchg_topo_spec(&A->topo, spec, sizeof spec), A->mach.name, A->mach.ts, A->mach.tw,
           A->mach.tr, A->mach.units, only ? ", only " : "", only ? only : "");
    printf("# time = fixed + per_unit*m, fixed = startups*ts, per_unit = link_volume*tw + "
           "copies*tr;\n# link volume = volume when the schedule claims to be "
           "contention-free, else measured\n");
    uint32_t K = A->po.ppn;
    if (K > 1)
        printf("# %u ranks on each of the %u nodes (%llu ranks; docs/hierarchical.md): flat "
               "algorithms on complete:%llu\n# hosted %u a node, leader:X, leaders:L:X, pairs:X "
               "with X between nodes, aggregate; within a\n# node ts_node = %g, tw_node = %g: "
               "fixed += "
               "node_startups*ts_node, per_unit += node_volume*tw_node\n",
               (unsigned)K, (unsigned)A->topo.nodes, (unsigned long long)A->topo.nodes * K,
               (unsigned long long)A->topo.nodes * K, (unsigned)K, A->mach.ts_node,
               A->mach.tw_node);
    size_t n = xchg_sweep_ncandidates(sw);
    int w = 22;
    for (size_t i = 0; i < n; i++)
        if ((int)strlen(xchg_sweep_candidate(sw, i)->alg) > w)
            w = (int)strlen(xchg_sweep_candidate(sw, i)->alg);
    printf("# %-*s %10s %14s %14s %-13s %8s", w, "Algorithm", "Start-ups", "Volume",
           "Link-volume", " Source", "Copies");
    if (K > 1)
        printf(" %10s %12s", "Node-su", "Node-volume");
    if (with_time)
        printf(" %18s", "Time");
    putchar('\n');
    int ineligible = 0;
    for (size_t k = 0; k < n; k++) {
        const xchg_plan_entry *e = xchg_sweep_candidate(sw, ord ? ord[k] : k);
        ineligible |= !e->eligible;
        if (xchg_cli_no_line(e)) {
            printf("  %-*s %s\n", w, e->alg, e->why);
            continue;
        }
        char src[24];
        snprintf(src, sizeof src, " %s", xchg_cli_link_source(e->line.link_source));
        printf("  %-*s %10llu %14llu %14llu %-13s %8llu", w, e->alg,
               (unsigned long long)e->line.startups, (unsigned long long)e->line.volume_blocks,
               (unsigned long long)e->line.link_volume_blocks, src,
               (unsigned long long)e->line.copy_blocks);
        if (K > 1)
            printf(" %10llu %12llu", (unsigned long long)e->line.node_startups,
                   (unsigned long long)e->line.node_volume_blocks);
        if (with_time)
            printf(" %18.2f", xchg_line_time(&e->line, m));
        putchar('\n');
    }
    for (size_t k = 0; ineligible && k < n; k++) {
        const xchg_plan_entry *e = xchg_sweep_candidate(sw, ord ? ord[k] : k);
        if (!e->eligible)
            printf("# may not win: %s: %s\n", e->alg, e->why);
    }
}

/* Print the answer for one block size (--m). */
static void print_one(const plan_args *A, const xchg_sweep *sw, const size_t *ord)
{
    char spec[64], sz[40];
    const xchg_plan_entry *b = xchg_sweep_candidate(sw, xchg_sweep_winner(sw, 0));
    double m = A->lo, bt = xchg_line_time(&b->line, m);
    if (A->json) {
        for (size_t i = 0; i < xchg_sweep_ncandidates(sw); i++)
            json_candidate(xchg_sweep_candidate(sw, i), A->po.ppn);
        fputs("{\"type\":\"best\",\"topology\":", stdout);
        xchg_tool_json_str(stdout, xchg_topo_spec(&A->topo, spec, sizeof spec));
        fputs(",\"m\":", stdout);
        xchg_cli_json_size(stdout, m);
        fputs(",\"algorithm\":", stdout);
        xchg_tool_json_str(stdout, b->alg);
        fputs(",\"time\":", stdout);
        xchg_cli_json_num(stdout, bt);
        fputs("}\n", stdout);
        return;
    }
    text_table(A, sw, ord, 1, m);
    printf("best at m = %s %s: %s (time %.6g %s)\n", xchg_cli_size(m, sz, sizeof sz),
           strcmp(A->mach.units, "t_c") == 0 ? "flits" : "B", b->alg, bt, A->mach.units);
}

/* Print the winners over the sweep and the crossovers (--sweep); the
 * candidates in registry order. */
static void print_sweep(const plan_args *A, const xchg_sweep *sw)
{
    const char *mu = strcmp(A->mach.units, "t_c") == 0 ? "flits" : "B";
    char sz[40], sz2[40];
    if (A->json) {
        for (size_t i = 0; i < xchg_sweep_ncandidates(sw); i++)
            json_candidate(xchg_sweep_candidate(sw, i), A->po.ppn);
    } else {
        text_table(A, sw, NULL, 0, 0);
        printf("#\n# %-12s %-22s %18s\n", mu[0] == 'B' ? "Size(B)" : "Size(flits)", "best",
               "time");
    }
    for (size_t k = 0; k < xchg_sweep_nsizes(sw); k++) {
        double m = xchg_sweep_size(sw, k);
        const xchg_plan_entry *b = xchg_sweep_candidate(sw, xchg_sweep_winner(sw, k));
        double tm = xchg_line_time(&b->line, m);
        if (A->json) {
            fputs("{\"type\":\"size\",\"m\":", stdout);
            xchg_cli_json_size(stdout, m);
            fputs(",\"best\":", stdout);
            xchg_tool_json_str(stdout, b->alg);
            fputs(",\"time\":", stdout);
            xchg_cli_json_num(stdout, tm);
            fputs("}\n", stdout);
        } else {
            printf("  %-12s %-22s %18.2f\n", xchg_cli_size(m, sz, sizeof sz), b->alg, tm);
        }
    }
    if (!A->json)
        printf("#\n# crossovers: block size where the fastest changes\n");
    for (size_t i = 0; i < xchg_sweep_ncrossovers(sw); i++) {
        const xchg_crossover *c = xchg_sweep_crossover(sw, i);
        const char *from = xchg_sweep_candidate(sw, c->from)->alg;
        const char *to = xchg_sweep_candidate(sw, c->to)->alg;
        if (A->json) {
            fputs("{\"type\":\"crossover\",\"from\":", stdout);
            xchg_tool_json_str(stdout, from);
            fputs(",\"to\":", stdout);
            xchg_tool_json_str(stdout, to);
            fputs(",\"m\":", stdout);
            xchg_cli_json_num(stdout, c->m);
            fputs("}\n", stdout);
        } else {
            printf("crossover: %s -> %s at m = %.6g %s\n", from, to, c->m, mu);
        }
    }
    if (!A->json && xchg_sweep_ncrossovers(sw) == 0)
        printf("crossover: none in [%s, %s]; %s is fastest throughout\n",
               xchg_cli_size(A->lo, sz, sizeof sz), xchg_cli_size(A->hi, sz2, sizeof sz2),
               xchg_sweep_candidate(sw, xchg_sweep_winner(sw, 0))->alg);
}

int xchg_cli_plan(int argc, char **argv)
{
    plan_args A;
    memset(&A, 0, sizeof A);
    int rc = parse_options(argc, argv, &A);
    if (rc) {
        xchg_vcounts_free(A.counts);
        return rc;
    }
    xchg_sweep *sw = NULL;
    xchg_err err = {{0}};
    xchg_cli_progress bar;
    if ((rc = xchg_cli_progress_start(&bar, "planning")))
        return rc;
    A.po.progress = xchg_cli_progress_hook;
    A.po.progress_ctx = &bar;
    int prc = xchg_plan_sweep(&A.topo, &A.mach, A.lo, A.hi, &A.po, &sw, &err);
    xchg_cli_progress_end(&bar);
    if (prc) {
        xchg_vcounts_free(A.counts);
        return xchg_cli_lib_error(prc, "plan", &err);
    }
    if (xchg_sweep_winner(sw, 0) == XCHG_NO_WINNER) {
        /* nothing may win: say why, from the first candidate */
        const xchg_plan_entry *e = xchg_sweep_candidate(sw, 0);
        char spec[64];
        rc = xchg_cli_error("plan: none of the %zu candidates on %s may win (%s: %s); "
                            "accepted: a topology and --only with a candidate that is "
                            "contention-free or measured (raise --max-work)",
                            xchg_sweep_ncandidates(sw),
                            xchg_topo_spec(&A.topo, spec, sizeof spec), e->alg, e->why);
        xchg_sweep_free(sw);
        xchg_vcounts_free(A.counts);
        return rc;
    }
    if (A.counts) {
        xchg_cli_counts_ranking("plan", &A.topo, &A.mach, A.counts_desc, A.counts, sw, A.json,
                                "candidate", NULL);
    } else if (A.sweep) {
        print_sweep(&A, sw);
    } else {
        size_t *ord = order_at(sw, A.lo);
        if (!ord) {
            xchg_sweep_free(sw);
            return xchg_cli_error("out of memory");
        }
        print_one(&A, sw, ord);
        free(ord);
    }
    xchg_sweep_free(sw);
    xchg_vcounts_free(A.counts);
    return XCHG_CLI_OK;
}
