/*
 * cmd_compare.c - "xchg compare": every registry algorithm that applies to
 * a topology, with each of its variants, verified block by block and costed
 * over a range of block sizes; the winner per size, the exact crossover
 * points where the winner changes, and the lower bound.
 *
 * Thin: the planner (xchg_plan_sweep with verify on) generates, verifies
 * and costs the candidates and picks the winners and crossovers, with the
 * same time line and tie rule as `xchg plan`; this file parses the options
 * and prints. Everything is computed before anything is printed. With
 * --counts (docs/alltoallv.md) the blocks differ in size: the planner
 * prices every verified candidate on the counts and ranks them, at one
 * size (cli_counts.c prints it).
 */
#include "cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char xchg_cli_compare_help[] =
    "usage: xchg compare --topo T [--machine NAME | --ts S --tw W [--tr R] | --a A]\n"
    "                    [--m MIN:MAX] [--only NAMES] [--threads N] [--max-work W]\n"
    "                    [--max-memory BYTES] [--sim] [--wide] [--json] [--ppn K]\n"
    "                    [--plot FILE [--format svg|png]]\n"
    "                    [--counts FILE|uniform|random:X|hot:R[:F]|sparse:F [--seed N]]\n\n"
    "Generate every registry algorithm that applies to T, with each of its\n"
    "variants, verify each block by block (a schedule with too many blocks to\n"
    "follow gets the message-level checks only: routes, ports, link contention,\n"
    "shown as \"messages only\"; one too large even for that is shown as \"not\n"
    "verified (too large)\"; one that fails verification is shown and never\n"
    "wins), and predict its time at block sizes MIN, 2*MIN, ... <= MAX with the\n"
    "cost model's one time line (the same as 'xchg plan'):\n"
    "  time = startups*ts + link_volume_blocks*m*tw + copy_blocks*m*tr\n"
    "where link_volume_blocks is the verifier's congestion-scaled volume (equal to\n"
    "the volume when no link carries two messages in a step). A schedule that is\n"
    "not contention-free and too large to measure may not win.\n\n"
    "Prints (1) the algorithms with start-ups, volume, link volume, copies,\n"
    "contention, LVol/LB (link volume over the binding volume lower bound:\n"
    "injection p-1, or on tori Liu et al., Lemma 1, N1*prod(Ni)/8 blocks) and\n"
    "verification;\n"
    "(2) an OSU-style table of predicted times per size with the best algorithm\n"
    "and the lower bound; (3) the crossover points, the exact block size where\n"
    "the winner's line is crossed by the next winner's;\n"
    "(4) the lower bound per size, which bound binds, and the winner's ratio to it.\n"
    "Ties go to the smaller per-byte cost, then to the earlier algorithm.\n\n"
    "options:\n"
    "  --topo T          ring:P array:P mesh:A[xB..] torus:A[xB..] hypercube:D\n"
    "                    complete:P tree:D\n"
    "  --machine NAME    preset from Bokhari, Table 1: paragon (default), sp2, cs2\n"
    "  --ts S --tw W     custom machine: start-up S us, W us per byte\n"
    "  --tr R            with --ts/--tw: R us per byte copied locally (default 0)\n"
    "  --a A             Suh et al.'s model: ts = A, tw = 1 per flit, tr = 0 (t_c units)\n"
    "  --m MIN:MAX       block sizes in bytes (flits with --a), doubling from MIN;\n"
    "                    decimals with 0 < MIN <= MAX <= 1e15 (default 8:65536; a\n"
    "                    single N means N:N)\n"
    "  --only NAMES      only these registry algorithms, comma-separated, e.g.\n"
    "                    t1,t1.x,t2 (default: every one that applies)\n"
    "  --op NAME         compare the algorithms of another operation: bcast,\n"
    "                    reduce, allgather, reduce_scatter, allreduce, scan,\n"
    "                    scatter, gather, shift (default alltoall;\n"
    "                    docs/operations.md); --m is then the operation's m\n"
    "  --root R          with a rooted --op (bcast, reduce, scatter, gather): the\n"
    "                    root node (default 0)\n"
    "  --q Q             with --op shift: the shift, 1 <= Q < p (default 1)\n"
    "  --ppn K           K ranks a node: T is the network of nodes; flat algorithms\n"
    "                    on complete:K*nodes hosted K a node, leader:X,\n"
    "                    leaders:L:X, pairs:X over every X on T, and aggregate,\n"
    "                    each composition verified block by block\n"
    "                    (docs/hierarchical.md); not with --sim or another --op\n"
    "  --threads N       verifier threads, 0 = every online core (default 0)\n"
    "  --max-work W      follow blocks only in schedules of at most W block-steps\n"
    "                    (p*p*steps; default 2e10); larger ones get the\n"
    "                    message-level checks if those cross at most W links\n"
    "                    (p*steps*the longest route), else are costed from their\n"
    "                    declared sizes and shown as not verified (and may not win\n"
    "                    unless they claim to be contention-free); a schedule that\n"
    "                    takes more than W operations to build is skipped, named\n"
    "  --max-memory BYTES  skip, and name, a candidate whose schedule would take\n"
    "                    more memory (default 4G; suffixes K, M, G, T); a check\n"
    "                    gets what its schedule leaves\n"
    "  --sim             also simulate every candidate at every size (xchg sim:\n"
    "                    barrier steps, one-port, th = 0, docs/simulator.md) and\n"
    "                    rank them by simulated time in a second table\n"
    "  --wide            the table of times in one piece, one column per algorithm\n"
    "                    (default: cut into pages that fit 100 columns)\n"
    "  --json            one JSON object per line: a \"model\" line, one \"algorithm\"\n"
    "                    line each, one \"size\" line each, one \"crossover\" line each\n"
    "  --plot FILE       also draw predicted time against block size on log-log\n"
    "                    axes: one line per algorithm that may win, the lower bound\n"
    "                    dashed, the crossovers marked (docs/drawing.md); stdout is\n"
    "                    unchanged\n"
    "  --format F        the plot's format: svg (default) or png (made by\n"
    "                    rsvg-convert, package librsvg2-bin); without it, a FILE\n"
    "                    ending in .png is PNG\n"
    "  --counts C        blocks of uneven sizes, MPI_Alltoallv's counts\n"
    "                    (docs/alltoallv.md): a FILE of p lines of p byte counts, or\n"
    "                    uniform, random:X, hot:R[:F], sparse:F of mean block --m\n"
    "                    (one size, default 1024; see 'xchg cost --help'). Every\n"
    "                    candidate is verified and priced on them (a message weighs\n"
    "                    its blocks' bytes, one of 0 bytes is not sent) and ranked by\n"
    "                    that time. Not with --sim, --plot, --ppn or another --op\n"
    "  --seed N          the seed of random:X and sparse:F (default 1)\n\n"
    "exit status: 0 ok, 1 an algorithm failed verification, 2 bad input.\n";

/* Everything compare prints, gathered first. */
typedef struct report {
    xchg_topo topo;
    xchg_machine mach;
    double lo, hi;
    xchg_sweep *sw;
    uint64_t vb;          /* binding volume lower bound in blocks (0: none) */
    const char *vb_name;  /* its name (points into lb) */
    xchg_cost lb;         /* lower bounds of the topology */
    int wide;             /* --wide: the times in one table, however wide */
    double *sim;          /* --sim: simulated times, candidate-major over the
                             sizes (NaN: not simulated), or NULL */
    const char *plot;     /* --plot FILE, or NULL */
    int png;              /* write the plot as PNG */
    xchg_op op;           /* --op, --root, --q: the operation compared */
    uint32_t ppn;         /* --ppn: ranks a node (1: every rank a node) */
    xchg_vcounts *counts; /* --counts, or NULL */
    char counts_desc[160];
} report;

/* Text lines fit this many columns unless --wide. */
#define COMPARE_COLUMNS 100

/* Candidate i of the report. */
static const xchg_plan_entry *cand(const report *R, size_t i)
{
    return xchg_sweep_candidate(R->sw, i);
}

/* Unit of block sizes: "flits" with Suh et al.'s model, else "B". */
static const char *size_unit(const report *R)
{
    return strcmp(R->mach.units, "t_c") == 0 ? "flits" : "B";
}

/* The verification column's text. */
static const char *verified_text(const xchg_plan_entry *e, char *buf, size_t len)
{
    switch (e->check) {
    case XCHG_CHECK_BLOCKS:
        return "yes";
    case XCHG_CHECK_FAILED:
        snprintf(buf, len, "NO (%llu failed checks)", (unsigned long long)e->failures);
        return buf;
    case XCHG_CHECK_MESSAGES:
        return "messages only (too large to follow blocks)";
    case XCHG_CHECK_TOOBIG:
        return "not verified (too large)";
    case XCHG_CHECK_SKIPPED:
        return "skipped (too large to build)";
    default:
        return "error";
    }
}

/* The lower bounds of the report's topology into lb (mach may be NULL).
 * With ppn K > 1 the topology is the network of nodes and a node's
 * blocks are K*K of m: the volume bounds scale by K*K (a node injects
 * K*K*(N-1) blocks; the bisection carries K*K per node pair). */
static void bounds(const report *R, const xchg_machine *mach, double m, xchg_cost *lb)
{
    memset(lb, 0, sizeof *lb);
    xchg_cost_op_lower_bounds(&R->topo, &R->op, mach, m, lb);
    if (R->ppn <= 1)
        return;
    uint64_t kk = (uint64_t)R->ppn * R->ppn;
    lb->lb_injection_blocks *= kk;
    lb->lb_bisection_blocks *= kk;
    uint64_t vol = lb->lb_injection_blocks > lb->lb_bisection_blocks ? lb->lb_injection_blocks
                                                                     : lb->lb_bisection_blocks;
    lb->lb_time = mach ? (double)lb->lb_startups * mach->ts + (double)vol * m * mach->tw : 0.0;
}

/* Lower bound time at m for the report's topology and machine. */
static double lb_time_at(const report *R, double m, xchg_cost *lb)
{
    bounds(R, &R->mach, m, lb);
    return lb->lb_time;
}

/* Width of the widest algorithm name (at least 12). */
static int name_width(const report *R)
{
    int w = 12;
    for (size_t i = 0; i < xchg_sweep_ncandidates(R->sw); i++)
        if ((int)strlen(cand(R, i)->alg) > w)
            w = (int)strlen(cand(R, i)->alg);
    return w;
}

/* A comment line of a lead and a comma-separated list, wrapped at list
 * items to fit COMPARE_COLUMNS ("#   " before each continuation). */
static void print_wrapped(const char *lead, const char *list)
{
    size_t col = strlen(lead);
    fputs(lead, stdout);
    while (*list) {
        size_t len = strcspn(list, ",");
        int more = list[len] == ',';
        size_t need = len + (more ? 1 : 0);
        if (col > strlen(lead) && col + need > COMPARE_COLUMNS) {
            fputs("\n#  ", stdout);
            col = 3;
        }
        printf("%.*s%s", (int)len, list, more ? "," : "");
        col += need;
        list += len + (more ? 1 : 0);
        while (*list == ' ') {
            putchar(' ');
            col++;
            list++;
        }
    }
    putchar('\n');
}

/* Text: the title and the model. */
static void text_header(const report *R)
{
    char spec[128];
    printf("# xchg compare on %s (%u node%s), machine %s: ts = %g, tw = %g, tr = %g (%s)\n",
           xchg_topo_spec(&R->topo, spec, sizeof spec), (unsigned)R->topo.nodes,
           R->topo.nodes == 1 ? "" : "s", R->mach.name, R->mach.ts, R->mach.tw, R->mach.tr,
           R->mach.units);
    if (R->ppn > 1)
        printf("# %u ranks a node, %llu ranks (docs/hierarchical.md): flat algorithms on "
               "complete:%llu hosted\n# %u a node; leader:X, leaders:L:X, pairs:X with X "
               "between the nodes, aggregate; within a\n# node ts_node = %g, tw_node = %g: + "
               "node_startups*ts_node + node_volume*m*tw_node; bounds in blocks of m\n",
               (unsigned)R->ppn, (unsigned long long)R->topo.nodes * R->ppn,
               (unsigned long long)R->topo.nodes * R->ppn, (unsigned)R->ppn, R->mach.ts_node,
               R->mach.tw_node);
    printf("# predicted time = startups*ts + link_volume_blocks*m*tw + copy_blocks*m*tr,\n"
           "# where link_volume_blocks is the verifier's congestion-scaled volume (sum over\n"
           "# steps of the busiest link's load; equals the volume when the schedule is\n"
           "# contention-free)\n#\n");
}

/* Text, part 1: one row per algorithm, then the notes the rows refer to. */
static void text_algorithms(const report *R, int w)
{
    char buf[64];
    if (R->vb)
        printf("# volume lower bound: %llu blocks, %s;\n# LVol/LB = link volume / that bound\n",
               (unsigned long long)R->vb, R->vb_name);
    printf("# %-*s %9s %11s %11s %9s %10s %8s  %s\n", w, "Algorithm", "Start-ups", "Volume",
           "Link-volume", "Copies", "Contention", "LVol/LB", "Verified");
    int claimed = 0, unmeasured = 0;
    for (size_t i = 0; i < xchg_sweep_ncandidates(R->sw); i++) {
        const xchg_plan_entry *e = cand(R, i);
        const xchg_line *l = &e->line;
        if (xchg_cli_no_line(e)) {
            printf("  %-*s %s\n", w, e->alg, e->why);
            continue;
        }
        int measured = l->link_source == XCHG_LINK_MEASURED;
        claimed |= l->link_source == XCHG_LINK_CLAIMED;
        unmeasured |= l->link_source == XCHG_LINK_UNMEASURED;
        char lv[32], ct[32], ratio[32];
        snprintf(lv, sizeof lv, "%llu%s", (unsigned long long)l->link_volume_blocks,
                 measured ? "" : l->link_source == XCHG_LINK_CLAIMED ? "*" : "?");
        if (measured)
            snprintf(ct, sizeof ct, "%llu", (unsigned long long)l->link_conflicts);
        else
            snprintf(ct, sizeof ct, "-");
        if (R->vb)
            snprintf(ratio, sizeof ratio, "%.3f",
                     (double)l->link_volume_blocks / (l->pieces ? l->pieces : 1) / (double)R->vb);
        else
            snprintf(ratio, sizeof ratio, "-");
        printf("  %-*s %9llu %11llu %11s %9llu %10s %8s  %s\n", w, e->alg,
               (unsigned long long)l->startups, (unsigned long long)l->volume_blocks, lv,
               (unsigned long long)l->copy_blocks, ct, ratio, verified_text(e, buf, sizeof buf));
        if (e->check == XCHG_CHECK_FAILED)
            printf("  %-*s first failure: %s (excluded from best)\n", w, "", e->why);
    }
    if (claimed)
        printf("# * not verified: link volume = volume by the schedule's contention-free claim\n");
    if (unmeasured)
        printf("# ? not verified: link volume not measured (above --max-work), the volume is "
               "shown; may not win\n");
    if (xchg_sweep_not_applicable(R->sw)[0])
        print_wrapped(R->ppn > 1 ? "# not applicable between the nodes (as X): "
                                 : "# not applicable to this topology: ",
                      xchg_sweep_not_applicable(R->sw));
    for (size_t i = 0; i < xchg_sweep_ncandidates(R->sw); i++)
        if (cand(R, i)->check == XCHG_CHECK_SKIPPED) {
            printf("# skipped: too large to build within the limits; --max-memory BYTES and "
                   "--max-work W\n#   raise them\n");
            break;
        }
}

/* Width of candidate i's column in the times table (0: not shown). */
static int time_width(const report *R, size_t i)
{
    if (xchg_cli_no_line(cand(R, i)))
        return 0;
    int cw = (int)strlen(cand(R, i)->alg) + 2;
    return cw < 14 ? 14 : cw;
}

/* One page of the times table: candidates [i0, i1), and the best and
 * lower-bound columns when last. */
/* Candidate i's time at the k-th size: its line's, or its simulated one
 * when sim is set. */
static double time_at(const report *R, int sim, size_t i, size_t k)
{
    if (sim)
        return R->sim[i * xchg_sweep_nsizes(R->sw) + k];
    return xchg_line_time(&cand(R, i)->line, xchg_sweep_size(R->sw, k));
}

/* The winner at the k-th size, by the model or by the simulation. */
static size_t winner_at(const report *R, int sim, size_t k)
{
    return sim ? xchg_cli_sim_best(R->sw, R->sim, k) : xchg_sweep_winner(R->sw, k);
}

static void text_times_page(const report *R, int sim, int w, size_t i0, size_t i1, int last)
{
    const char *mu = size_unit(R);
    char sz[40];
    printf("# %-10s", mu[0] == 'B' ? "Size(B)" : "Size(flits)");
    for (size_t i = i0; i < i1; i++)
        if (time_width(R, i))
            printf("%*s", time_width(R, i), cand(R, i)->alg);
    if (last)
        printf("  %-*s %14s", w, "best", "lower-bound");
    printf("\n");
    for (size_t k = 0; k < xchg_sweep_nsizes(R->sw); k++) {
        double m = xchg_sweep_size(R->sw, k);
        printf("  %-10s", xchg_cli_size(m, sz, sizeof sz));
        for (size_t i = i0; i < i1; i++)
            if (time_width(R, i))
                printf("%*.2f", time_width(R, i), time_at(R, sim, i, k));
        if (last) {
            size_t b = winner_at(R, sim, k);
            xchg_cost lb;
            printf("  %-*s %14.2f", w, b != XCHG_NO_WINNER ? cand(R, b)->alg : "-",
                   lb_time_at(R, m, &lb));
        }
        printf("\n");
    }
}

/*
 * Text, part 2: predicted times per size, the winner and the lower bound.
 * One column per candidate: unless --wide, the columns are cut into pages
 * that fit COMPARE_COLUMNS, each with the size column, the best and the
 * lower bound on the last.
 */
static void text_times(const report *R, int sim, int w)
{
    size_t n = xchg_sweep_ncandidates(R->sw);
    int left = 12, tail = 2 + w + 15; /* the size column; best and lower-bound */
    if (sim)
        printf("#\n# simulated time (%s) per block size: xchg sim, barrier steps, one-port,\n"
               "# th = 0 (docs/simulator.md); nan: not simulated\n",
               R->mach.units);
    else
        printf("#\n# predicted time (%s) per block size\n", R->mach.units);
    size_t i0 = 0;
    for (int last = 0; !last;) {
        size_t i1 = i0;
        int used = left;
        while (i1 < n && (R->wide || i1 == i0 || used + time_width(R, i1) <= COMPARE_COLUMNS))
            used += time_width(R, i1++);
        /* the best and lower-bound columns go on the last page, or on a
         * page of their own when they do not fit beside the last columns */
        last = i1 == n && (R->wide || i1 == i0 || used + tail <= COMPARE_COLUMNS);
        if (i0 > 0)
            printf("#\n");
        text_times_page(R, sim, w, i0, i1, last);
        i0 = i1;
    }
}

/* Text, part 3: the crossovers. */
static void text_crossovers(const report *R)
{
    const char *mu = size_unit(R);
    char lo[40], hi[40];
    printf("#\n# crossovers: where the winner changes, the block size where the two lines "
           "a + b*m cross\n");
    size_t first = xchg_sweep_winner(R->sw, 0);
    if (first == XCHG_NO_WINNER)
        printf("# no algorithm is eligible to win\n");
    else if (xchg_sweep_ncrossovers(R->sw) == 0)
        printf("# no crossover: %s wins at every size from %s to %s %s\n", cand(R, first)->alg,
               xchg_cli_size(R->lo, lo, sizeof lo), xchg_cli_size(R->hi, hi, sizeof hi), mu);
    for (size_t k = 0; k < xchg_sweep_ncrossovers(R->sw); k++) {
        const xchg_crossover *c = xchg_sweep_crossover(R->sw, k);
        const xchg_plan_entry *f = cand(R, c->from), *t = cand(R, c->to);
        printf("crossover: %s -> %s at m = %.6g %s\n", f->alg, t->alg, c->m, mu);
        printf("#   %s: %.6g + %.6g*m, %s: %.6g + %.6g*m\n", f->alg, f->line.fixed,
               f->line.per_unit, t->alg, t->line.fixed, t->line.per_unit);
    }
}

/* Text, part 4: the lower bound per size and the winner's ratio to it. */
static void text_bounds(const report *R, int w)
{
    const char *mu = size_unit(R);
    char sz[40];
    printf("#\n# lower bound per block size and the winner's ratio to it\n");
    printf("# %-10s %-*s %14s %14s %8s  %s\n", mu[0] == 'B' ? "Size(B)" : "Size(flits)", w,
           "best", "time", "lower-bound", "ratio", "binding");
    for (size_t k = 0; k < xchg_sweep_nsizes(R->sw); k++) {
        double m = xchg_sweep_size(R->sw, k);
        size_t b = xchg_sweep_winner(R->sw, k);
        xchg_cost lb;
        double lt = lb_time_at(R, m, &lb);
        double bt = b != XCHG_NO_WINNER ? xchg_line_time(&cand(R, b)->line, m) : NAN;
        printf("  %-10s %-*s %14.2f %14.2f ", xchg_cli_size(m, sz, sizeof sz), w,
               b != XCHG_NO_WINNER ? cand(R, b)->alg : "-", bt, lt);
        if (b != XCHG_NO_WINNER && lt > 0)
            printf("%8.3f", bt / lt);
        else
            printf("%8s", "-");
        /* the bound's short name: the header gives its source */
        const char *bind = lb.lb_binding[0] ? lb.lb_binding : "-";
        const char *paren = strstr(bind, " (");
        printf("  %.*s\n", paren ? (int)(paren - bind) : (int)strlen(bind), bind);
    }
}

/* Print the report as text. */
static void print_text(const report *R)
{
    int w = name_width(R);
    text_header(R);
    text_algorithms(R, w);
    text_times(R, 0, w);
    if (R->sim)
        text_times(R, 1, w);
    text_crossovers(R);
    text_bounds(R, w);
}

/* JSON: the "model" line. */
static void json_model(const report *R)
{
    char spec[128];
    fputs("{\"type\":\"model\",\"topology\":", stdout);
    xchg_tool_json_str(stdout, xchg_topo_spec(&R->topo, spec, sizeof spec));
    printf(",\"nodes\":%u,\"machine\":", (unsigned)R->topo.nodes);
    xchg_tool_json_str(stdout, R->mach.name);
    fputs(",\"units\":", stdout);
    xchg_tool_json_str(stdout, R->mach.units);
    fputs(",\"ts\":", stdout);
    xchg_cli_json_num(stdout, R->mach.ts);
    fputs(",\"tw\":", stdout);
    xchg_cli_json_num(stdout, R->mach.tw);
    fputs(",\"tr\":", stdout);
    xchg_cli_json_num(stdout, R->mach.tr);
    fputs(",\"volume_bound_blocks\":", stdout);
    xchg_cli_json_u64(stdout, R->vb);
    fputs(",\"volume_bound\":", stdout);
    xchg_tool_json_str(stdout, R->vb ? R->vb_name : "");
    fputs(",\"time\":\"startups*ts + link_volume_blocks*m*tw + copy_blocks*m*tr\""
          ",\"not_applicable\":",
          stdout);
    xchg_tool_json_str(stdout, xchg_sweep_not_applicable(R->sw));
    fputs("}\n", stdout);
}

/* JSON: a ratio of blocks (of m/pieces) to the volume bound, or null
 * without a bound. */
static void json_ratio(const report *R, uint64_t blocks, uint32_t pieces)
{
    if (R->vb)
        xchg_cli_json_num(stdout, (double)blocks / (pieces ? pieces : 1) / (double)R->vb);
    else
        fputs("null", stdout);
}

/* JSON: one "algorithm" line. */
static void json_algorithm(const report *R, const xchg_plan_entry *e)
{
    char buf[64];
    const xchg_line *l = &e->line;
    fputs("{\"type\":\"algorithm\",\"algorithm\":", stdout);
    xchg_tool_json_str(stdout, e->alg);
    fputs(",\"verified\":", stdout);
    xchg_tool_json_str(stdout, verified_text(e, buf, sizeof buf));
    printf(",\"eligible\":%s", e->eligible ? "true" : "false");
    if (!xchg_cli_no_line(e)) {
        int measured = l->link_source == XCHG_LINK_MEASURED;
        fputs(",\"startups\":", stdout);
        xchg_cli_json_u64(stdout, l->startups);
        fputs(",\"volume_blocks\":", stdout);
        xchg_cli_json_u64(stdout, l->volume_blocks);
        fputs(",\"volume_ratio\":", stdout);
        json_ratio(R, l->volume_blocks, l->pieces);
        fputs(",\"link_volume_ratio\":", stdout);
        json_ratio(R, l->link_volume_blocks, l->pieces);
        fputs(",\"link_volume_blocks\":", stdout);
        xchg_cli_json_u64(stdout, l->link_volume_blocks);
        printf(",\"link_volume_measured\":%s", measured ? "true" : "false");
        fputs(",\"link_volume_source\":", stdout);
        xchg_tool_json_str(stdout, xchg_cli_link_source(e->line.link_source));
        fputs(",\"copy_blocks\":", stdout);
        xchg_cli_json_u64(stdout, l->copy_blocks);
        fputs(",\"link_conflicts\":", stdout);
        if (measured)
            xchg_cli_json_u64(stdout, l->link_conflicts);
        else
            fputs("null", stdout);
        printf(",\"contention_free_claim\":%s", e->contention_free ? "true" : "false");
        fputs(",\"a\":", stdout);
        xchg_cli_json_num(stdout, l->fixed);
        fputs(",\"b\":", stdout);
        xchg_cli_json_num(stdout, l->per_unit);
    }
    if (e->why[0]) {
        fputs(",\"message\":", stdout);
        xchg_tool_json_str(stdout, e->why);
    }
    fputs("}\n", stdout);
}

/* JSON: one "size" line, for the k-th size of the sweep. */
static void json_size(const report *R, size_t k)
{
    double m = xchg_sweep_size(R->sw, k);
    fputs("{\"type\":\"size\",\"m\":", stdout);
    xchg_cli_json_size(stdout, m);
    fputs(",\"times\":{", stdout);
    int first = 1;
    for (size_t i = 0; i < xchg_sweep_ncandidates(R->sw); i++) {
        const xchg_plan_entry *e = cand(R, i);
        if (xchg_cli_no_line(e))
            continue;
        if (!first)
            fputc(',', stdout);
        first = 0;
        xchg_tool_json_str(stdout, e->alg);
        fputc(':', stdout);
        xchg_cli_json_num(stdout, xchg_line_time(&e->line, m));
    }
    size_t b = xchg_sweep_winner(R->sw, k);
    xchg_cost lb;
    double lt = lb_time_at(R, m, &lb);
    double bt = b != XCHG_NO_WINNER ? xchg_line_time(&cand(R, b)->line, m) : NAN;
    fputs("},\"best\":", stdout);
    if (b != XCHG_NO_WINNER)
        xchg_tool_json_str(stdout, cand(R, b)->alg);
    else
        fputs("null", stdout);
    fputs(",\"best_time\":", stdout);
    xchg_cli_json_num(stdout, bt);
    if (R->sim) {
        fputs(",\"sim_times\":{", stdout);
        int firsts = 1;
        for (size_t i = 0; i < xchg_sweep_ncandidates(R->sw); i++) {
            if (isnan(time_at(R, 1, i, k)))
                continue;
            fputs(firsts ? "" : ",", stdout);
            firsts = 0;
            xchg_tool_json_str(stdout, cand(R, i)->alg);
            fputc(':', stdout);
            xchg_cli_json_num(stdout, time_at(R, 1, i, k));
        }
        size_t sb = winner_at(R, 1, k);
        fputs("},\"sim_best\":", stdout);
        if (sb != XCHG_NO_WINNER)
            xchg_tool_json_str(stdout, cand(R, sb)->alg);
        else
            fputs("null", stdout);
    }
    fputs(",\"lower_bound\":", stdout);
    xchg_cli_json_num(stdout, lt);
    fputs(",\"binding\":", stdout);
    xchg_tool_json_str(stdout, lb.lb_binding);
    fputs(",\"ratio\":", stdout);
    xchg_cli_json_num(stdout, lt > 0 ? bt / lt : NAN);
    fputs("}\n", stdout);
}

/* JSON: one "crossover" line. */
static void json_crossover(const report *R, const xchg_crossover *c)
{
    fputs("{\"type\":\"crossover\",\"from\":", stdout);
    xchg_tool_json_str(stdout, cand(R, c->from)->alg);
    fputs(",\"to\":", stdout);
    xchg_tool_json_str(stdout, cand(R, c->to)->alg);
    fputs(",\"m\":", stdout);
    xchg_cli_json_num(stdout, c->m);
    fputs("}\n", stdout);
}

/* Print the report as JSON lines. */
static void print_json(const report *R)
{
    json_model(R);
    for (size_t i = 0; i < xchg_sweep_ncandidates(R->sw); i++)
        json_algorithm(R, cand(R, i));
    for (size_t k = 0; k < xchg_sweep_nsizes(R->sw); k++)
        json_size(R, k);
    for (size_t k = 0; k < xchg_sweep_ncrossovers(R->sw); k++)
        json_crossover(R, xchg_sweep_crossover(R->sw, k));
}

/* Points per doubling of the block size on the plot's lines: enough for a
 * line a + b*m, which bends on log-log axes, to look smooth. */
#define PLOT_PER_DOUBLING 8

/* The block sizes the plot's lines go through: PLOT_PER_DOUBLING per
 * doubling from lo, ending at hi. *n gets how many (a new array, or NULL
 * when out of memory). */
static double *plot_sizes(const report *R, size_t *n)
{
    double d = R->hi > R->lo ? log2(R->hi / R->lo) : 0;
    size_t k = (size_t)ceil(d * PLOT_PER_DOUBLING - 1e-9) + 1;
    double *m = malloc(k * sizeof *m);
    if (!m)
        return NULL;
    for (size_t i = 0; i + 1 < k; i++)
        m[i] = R->lo * exp2((double)i / PLOT_PER_DOUBLING);
    m[k - 1] = R->hi;
    *n = k;
    return m;
}

/*
 * Add to pl one line per eligible candidate (predicted time,
 * xchg_line_time), the lower bound dashed, and a marker per crossover.
 */
static int compare_plot_fill(const report *R, xchg_plot *pl, const double *m, size_t n, double *y,
                             xchg_err *err)
{
    int rc = 0;
    for (size_t i = 0; i < xchg_sweep_ncandidates(R->sw) && rc == 0; i++) {
        const xchg_plan_entry *e = cand(R, i);
        if (!e->eligible)
            continue;
        for (size_t k = 0; k < n; k++)
            y[k] = xchg_line_time(&e->line, m[k]);
        rc = xchg_plot_add_series(pl, e->alg, m, y, n, XCHG_PLOT_LINE, err);
    }
    for (size_t k = 0; k < n && rc == 0; k++) {
        xchg_cost lb;
        y[k] = lb_time_at(R, m[k], &lb);
    }
    if (rc == 0)
        rc = xchg_plot_add_series(pl, "lower bound", m, y, n, XCHG_PLOT_BOUND, err);
    for (size_t k = 0; k < xchg_sweep_ncrossovers(R->sw) && rc == 0; k++) {
        const xchg_crossover *c = xchg_sweep_crossover(R->sw, k);
        char label[2 * sizeof(xchg_spec) + 8];
        snprintf(label, sizeof label, "%s -> %s", cand(R, c->from)->alg, cand(R, c->to)->alg);
        rc = xchg_plot_add_marker(pl, c->m, xchg_line_time(&cand(R, c->from)->line, c->m), label,
                                  err);
    }
    return rc;
}

/* xchg_cli_picture_fn: write the plot. */
static int compare_plot_run(void *arg, xchg_write_fn write, void *ctx, xchg_err *err)
{
    return xchg_plot_write(arg, write, ctx, err);
}

/*
 * --plot FILE: predicted time against block size on log-log axes, written
 * before anything is printed so a failed plot leaves stdout empty.
 * 0 or an exit status after printing.
 */
static int compare_plot(const report *R)
{
    char spec[128], title[256], ytitle[64];
    snprintf(title, sizeof title, "xchg compare: %s (%u nodes), machine %s",
             xchg_topo_spec(&R->topo, spec, sizeof spec), (unsigned)R->topo.nodes, R->mach.name);
    snprintf(ytitle, sizeof ytitle, "predicted time (%s)", R->mach.units);
    int flits = size_unit(R)[0] != 'B';
    xchg_plot_opts po = {
        title, flits ? "block size m (flits)" : "block size m (bytes)", ytitle, !flits, 0, 0};
    size_t n = 0;
    double *m = plot_sizes(R, &n);
    double *y = m ? malloc(n * sizeof *y) : NULL;
    xchg_plot *pl = NULL;
    xchg_err err = {{0}};
    int rc;
    if (!y)
        rc = xchg_cli_error("out of memory");
    else if ((rc = xchg_plot_new(&po, &pl, &err)) || (rc = compare_plot_fill(R, pl, m, n, y, &err)))
        rc = xchg_cli_lib_error(rc, "compare --plot", &err);
    else
        rc = xchg_cli_picture_write(R->plot, "--plot", R->png, "compare --plot", compare_plot_run,
                                    pl);
    xchg_plot_free(pl);
    free(m);
    free(y);
    return rc;
}

/* compare --counts: one size (--m N, default 1024: the mean block of a
 * named distribution; not with a file), no --sim, --plot, --ppn or --op;
 * the counts into R (R->lo = R->hi = their mean block). 0 or an exit
 * status after printing. */
static int parse_counts(xchg_cli_opt *opts, report *R)
{
    static const char *const refused[] = {"sim", "plot", "format", "ppn", "op", "root", "q"};
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
        if (xchg_cli_has(opts, refused[i]))
            return xchg_cli_error("--counts does not go with --%s: compare prices the "
                                  "counts' one complete exchange; accepted: --counts C [--m N] "
                                  "without --sim, --plot, --ppn, --op",
                                  refused[i]);
    double m = 1024, hi;
    int rc;
    if (xchg_cli_has(opts, "m")) {
        if ((rc = xchg_cli_range("m", xchg_cli_val(opts, "m"), &m, &hi)))
            return rc;
        if (hi != m)
            return xchg_cli_error("--m %s with --counts: the counts are one exchange; "
                                  "accepted: --m N, one block size (the mean of a named "
                                  "distribution)",
                                  xchg_cli_val(opts, "m"));
    }
    if ((rc = xchg_cli_counts(opts, &R->topo, m, &R->counts, R->counts_desc,
                              sizeof R->counts_desc)))
        return rc;
    xchg_vcounts_summary sm;
    if (xchg_vcounts_summarize(R->counts, &sm) != XCHG_OK)
        return xchg_cli_error("out of memory");
    R->lo = R->hi = sm.mean; /* the lines' size: only the counts rank */
    return 0;
}

/*
 * Parse compare's options into R and the planner's options; returns 0 or
 * an exit status after printing.
 */
static int parse_options(int argc, char **argv, report *R, xchg_plan_opts *po, int *json,
                         int *sim)
{
    xchg_cli_opt opts[] = {{"topo", "T", NULL, 0},      {"machine", "NAME", NULL, 0},
                           {"ts", "S", NULL, 0},         {"tw", "W", NULL, 0},
                           {"tr", "R", NULL, 0},         {"a", "A", NULL, 0},
                           {"m", "MIN:MAX", NULL, 0},    {"threads", "N", NULL, 0},
                           {"max-work", "W", NULL, 0},   {"json", NULL, NULL, 0},
                           {"max-memory", "BYTES", NULL, 0},
                           {"only", "NAMES", NULL, 0},   {"wide", NULL, NULL, 0},
                           {"sim", NULL, NULL, 0},   {"plot", "FILE", NULL, 0},
                           {"format", "F", NULL, 0},
                           {"op", "NAME", NULL, 0},      {"root", "R", NULL, 0},
                           {"q", "Q", NULL, 0},          {"ppn", "K", NULL, 0},
                           {"counts", "C", NULL, 0},     {"seed", "N", NULL, 0},
                           {NULL, NULL, NULL, 0}};
    int rc = xchg_cli_parse("compare", argc, argv, opts);
    if (rc)
        return rc;
    R->lo = 8;
    R->hi = 65536;
    uint64_t v;
    if ((rc = xchg_cli_topo(opts, "compare", &R->topo)))
        return rc;
    if ((xchg_cli_has(opts, "counts") || xchg_cli_has(opts, "seed")) &&
        (rc = parse_counts(opts, R)))
        return rc;
    if (!R->counts && xchg_cli_has(opts, "m") &&
        (rc = xchg_cli_range("m", xchg_cli_val(opts, "m"), &R->lo, &R->hi)))
        return rc;
    if (xchg_cli_has(opts, "threads")) {
        if ((rc = xchg_cli_uint("threads", xchg_cli_val(opts, "threads"), 0, 1024, &v)))
            return rc;
        po->threads = (int)v;
    }
    xchg_cli_limits lim;
    if ((rc = xchg_cli_limits_get(opts, &lim)))
        return rc;
    po->max_work = lim.max_work;
    po->max_build_work = lim.max_work;
    po->max_bytes = lim.max_bytes;
    if ((rc = xchg_cli_machine(opts, R->topo.nodes, &R->mach)))
        return rc;
    if ((rc = xchg_cli_op(opts, R->topo.nodes, &R->op)))
        return rc;
    po->op = R->op.kind;
    po->root = R->op.root;
    po->shift = R->op.shift;
    if ((rc = xchg_cli_ppn(opts, &R->topo, R->op.kind, &R->ppn)))
        return rc;
    po->ppn = R->ppn;
    if (R->ppn > 1 && xchg_cli_has(opts, "sim"))
        return xchg_cli_error("--sim with --ppn: compare simulates one network's schedules; "
                              "accepted: --ppn without --sim, and 'xchg sim --ppn K --alg A' "
                              "for one candidate");
    po->only = xchg_cli_has(opts, "only") ? xchg_cli_val(opts, "only") : NULL;
    xchg_err lerr = {{0}};
    if (xchg_alg_check_list(po->only, &lerr) != XCHG_OK)
        return xchg_cli_error("bad --only: %s", lerr.msg);
    po->verify = 1;
    po->counts = R->counts;
    *json = xchg_cli_has(opts, "json");
    R->wide = xchg_cli_has(opts, "wide");
    *sim = xchg_cli_has(opts, "sim");
    R->plot = xchg_cli_val(opts, "plot");
    if (xchg_cli_has(opts, "format") && !R->plot)
        return xchg_cli_error("--format is the format of --plot's picture; accepted: with "
                              "--plot FILE");
    if (R->plot && (rc = xchg_cli_picture_format(xchg_cli_val(opts, "format"), R->plot,
                                                 &R->png)))
        return rc;
    return 0;
}

int xchg_cli_compare(int argc, char **argv)
{
    report *R = calloc(1, sizeof *R);
    if (!R)
        return xchg_cli_error("out of memory");
    xchg_plan_opts po = {0};
    int json = 0, sim = 0;
    int rc = parse_options(argc, argv, R, &po, &json, &sim);
    if (rc)
        goto out;
    xchg_err err = {{0}};
    xchg_cli_progress bar;
    if ((rc = xchg_cli_progress_start(&bar, "comparing")))
        goto out;
    po.progress = xchg_cli_progress_hook;
    po.progress_ctx = &bar;
    int prc = xchg_plan_sweep(&R->topo, &R->mach, R->lo, R->hi, &po, &R->sw, &err);
    xchg_cli_progress_end(&bar);
    if (prc) {
        rc = xchg_cli_lib_error(prc, "compare", &err);
        goto out;
    }
    if (R->counts) {
        xchg_cli_counts_ranking("compare", &R->topo, &R->mach, R->counts_desc, R->counts, R->sw,
                                json, "algorithm", verified_text);
        rc = XCHG_CLI_OK;
        for (size_t i = 0; i < xchg_sweep_ncandidates(R->sw); i++)
            if (cand(R, i)->check == XCHG_CHECK_FAILED)
                rc = XCHG_CLI_FAILED;
        goto out;
    }
    if (sim) {
        if ((rc = xchg_cli_progress_start(&bar, "simulating")))
            goto out;
        rc = xchg_cli_compare_sim(&R->topo, &R->mach, R->sw, &bar, &R->sim);
        xchg_cli_progress_end(&bar);
        if (rc)
            goto out;
    }
    bounds(R, NULL, 1.0, &R->lb);
    if (R->lb.lb_bisection_blocks > R->lb.lb_injection_blocks) {
        R->vb = R->lb.lb_bisection_blocks;
        R->vb_name = R->lb.lb_bisection_name;
    } else {
        R->vb = R->lb.lb_injection_blocks;
        R->vb_name = R->vb > 1 ? "injection (p-1 blocks through one port)"
                               : "injection (one block through one port)";
    }
    if (R->plot && (rc = compare_plot(R)))
        goto out;
    if (json)
        print_json(R);
    else
        print_text(R);
    rc = XCHG_CLI_OK;
    for (size_t i = 0; i < xchg_sweep_ncandidates(R->sw); i++)
        if (cand(R, i)->check == XCHG_CHECK_FAILED)
            rc = XCHG_CLI_FAILED;
out:
    free(R->sim);
    xchg_sweep_free(R->sw);
    xchg_vcounts_free(R->counts);
    free(R);
    return rc;
}
