/*
 * cmd_plan.c - "xchg plan": ask the planner (xchg_plan) which algorithm is
 * fastest on a topology and machine for a block size; with --sweep, the
 * winner over a range of block sizes and the exact crossover points where
 * it changes. --only restricts the candidates to some registry entries, so
 * "--only t1.x" picks the best x of T1.x and "--only t1,t1.x,t2" replays
 * seed 000's evaluation.
 */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

const char xchg_cli_plan_help[] =
    "usage: xchg plan --topo T [--machine NAME | --ts S --tw W [--tr R] | --a A]\n"
    "                 (--m M | --sweep MIN:MAX) [--only LIST] [--json]\n\n"
    "Cost every registry algorithm (each of its variants, e.g. every t1.x) that\n"
    "applies to T and claims to be contention-free, from its declared message\n"
    "sizes (time = start-ups*ts + volume*m*tw + copies*m*tr), and name the\n"
    "fastest at block size M. With --sweep, the fastest at MIN, 2*MIN, ... <= MAX\n"
    "and the exact block sizes where the fastest changes (crossovers).\n\n"
    "options:\n"
    "  --topo T          ring:P array:P mesh:AxB.. torus:AxB.. hypercube:D complete:P\n"
    "  --machine NAME    preset from seed 002 Table 1: paragon (default), sp2, cs2\n"
    "  --ts S --tw W     custom machine: start-up S us, W us per byte\n"
    "  --tr R            with --ts/--tw: R us per byte copied locally (default 0)\n"
    "  --a A             seed 000's model: ts = A, tw = 1 per flit, tr = 0 (t_c units,\n"
    "                    block sizes in flits)\n"
    "  --m M             block size in bytes (flits with --a)\n"
    "  --sweep MIN:MAX   block sizes MIN, 2*MIN, ... <= MAX, and the crossovers;\n"
    "                    decimals with 0 < MIN <= MAX <= 1e15 (a single N: N:N)\n"
    "  --only LIST       only these registry names, comma-separated (t1,t1.x,t2);\n"
    "                    --only t1.x chooses the best x\n"
    "  --json            one JSON object per line: one \"candidate\" line each, then\n"
    "                    one \"best\" line (--m) or \"size\" and \"crossover\" lines\n\n"
    "exit status: 0 ok, 2 bad input or no candidate applies.\n";

/* Most candidates shown. */
#define PLAN_MAX_ROWS 512

/* Index of the fastest row at block size m (ties: the earlier row). */
static size_t fastest(const xchg_plan_entry *e, size_t n, double m)
{
    size_t b = 0;
    for (size_t i = 1; i < n; i++)
        if (e[i].fixed + e[i].per_unit * m < e[b].fixed + e[b].per_unit * m)
            b = i;
    return b;
}

/* One crossover on the lower envelope. */
typedef struct cross {
    size_t from, to;
    double m;
} cross;

/*
 * Walk the lower envelope of the lines fixed + per_unit*m from lo to hi:
 * from the winner at lo, the next winner is the line of smaller slope whose
 * crossing with the current one comes first. Writes at most max crossings
 * and returns how many.
 */
static size_t envelope(const xchg_plan_entry *e, size_t n, double lo, double hi, cross *out,
                       size_t max)
{
    size_t cur = fastest(e, n, lo), k = 0;
    double at = lo;
    while (k < max) {
        size_t next = n;
        double best_m = 0;
        for (size_t i = 0; i < n; i++) {
            if (e[i].per_unit >= e[cur].per_unit)
                continue;
            double m = (e[i].fixed - e[cur].fixed) / (e[cur].per_unit - e[i].per_unit);
            if (m <= at)
                m = at;
            if (next == n || m < best_m ||
                (m == best_m && e[i].per_unit < e[next].per_unit)) {
                next = i;
                best_m = m;
            }
        }
        if (next == n || best_m > hi)
            break;
        out[k++] = (cross){cur, next, best_m};
        cur = next;
        at = best_m;
    }
    return k;
}

/* Print one candidate as a JSON line. */
static void json_candidate(const xchg_plan_entry *e)
{
    fputs("{\"type\":\"candidate\",\"algorithm\":", stdout);
    xchg_cli_json_str(stdout, e->alg);
    fputs(",\"startups\":", stdout);
    xchg_cli_json_u64(stdout, e->startups);
    fputs(",\"volume_blocks\":", stdout);
    xchg_cli_json_u64(stdout, e->volume_blocks);
    fputs(",\"copy_blocks\":", stdout);
    xchg_cli_json_u64(stdout, e->copy_blocks);
    fputs(",\"fixed\":", stdout);
    xchg_cli_json_num(stdout, e->fixed);
    fputs(",\"per_unit\":", stdout);
    xchg_cli_json_num(stdout, e->per_unit);
    fputs("}\n", stdout);
}

/* Order candidates by time at the block size in *ctx_m (for the text table). */
static double sort_m;
static int by_time(const void *a, const void *b)
{
    const xchg_plan_entry *x = a, *y = b;
    double tx = x->fixed + x->per_unit * sort_m, ty = y->fixed + y->per_unit * sort_m;
    return tx < ty ? -1 : tx > ty ? 1 : 0;
}

int xchg_cli_plan(int argc, char **argv)
{
    xchg_cli_opt opts[] = {{"topo", "T", NULL, 0},      {"machine", "NAME", NULL, 0},
                           {"ts", "S", NULL, 0},         {"tw", "W", NULL, 0},
                           {"tr", "R", NULL, 0},         {"a", "A", NULL, 0},
                           {"m", "M", NULL, 0},          {"sweep", "MIN:MAX", NULL, 0},
                           {"only", "LIST", NULL, 0},    {"json", NULL, NULL, 0},
                           {NULL, NULL, NULL, 0}};
    int rc = xchg_cli_parse("plan", argc, argv, opts);
    if (rc)
        return rc;
    xchg_topo t;
    if ((rc = xchg_cli_topo(opts, "plan", &t)))
        return rc;
    int sweep = xchg_cli_has(opts, "sweep");
    if (sweep == xchg_cli_has(opts, "m"))
        return xchg_cli_error("plan needs exactly one of --m M and --sweep MIN:MAX; e.g. "
                              "xchg plan --topo torus:64x64 --a 5000 --m 64");
    double m = 0, lo = 0, hi = 0;
    if (sweep && (rc = xchg_cli_range("sweep", xchg_cli_val(opts, "sweep"), &lo, &hi)))
        return rc;
    if (!sweep && (rc = xchg_cli_number("m", xchg_cli_val(opts, "m"), 0, XCHG_CLI_MAX_M, 0, &m)))
        return rc;
    xchg_machine mach;
    if ((rc = xchg_cli_machine(opts, t.nodes, &mach)))
        return rc;
    const char *only = xchg_cli_val(opts, "only");
    int json = xchg_cli_has(opts, "json");
    const char *mu = strcmp(mach.units, "t_c") == 0 ? "flits" : "B";

    xchg_plan_entry *all = calloc(PLAN_MAX_ROWS, sizeof *all);
    if (!all)
        return xchg_cli_error("out of memory");
    xchg_plan_entry best;
    size_t n = 0;
    xchg_err err = {{0}};
    int prc = xchg_plan(&t, &mach, sweep ? lo : m, only, &best, all, PLAN_MAX_ROWS, &n, &err);
    if (prc) {
        free(all);
        return xchg_cli_lib_error(prc, "plan", &err);
    }
    if (n > PLAN_MAX_ROWS)
        n = PLAN_MAX_ROWS;
    char spec[64], sz[40], sz2[40];
    xchg_topo_spec(&t, spec, sizeof spec);

    if (json) {
        for (size_t i = 0; i < n; i++)
            json_candidate(&all[i]);
    } else {
        printf("# xchg plan on %s, machine %s (ts = %g, tw = %g, tr = %g; %s)%s%s\n", spec,
               mach.name, mach.ts, mach.tw, mach.tr, mach.units, only ? ", only " : "",
               only ? only : "");
        printf("# time = fixed + per_unit*m, fixed = startups*ts, per_unit = volume*tw + "
               "copies*tr\n");
    }

    if (!sweep) {
        if (json) {
            fputs("{\"type\":\"best\",\"topology\":", stdout);
            xchg_cli_json_str(stdout, spec);
            fputs(",\"m\":", stdout);
            xchg_cli_json_size(stdout, m);
            fputs(",\"algorithm\":", stdout);
            xchg_cli_json_str(stdout, best.alg);
            fputs(",\"time\":", stdout);
            xchg_cli_json_num(stdout, best.time);
            fputs("}\n", stdout);
        } else {
            sort_m = m;
            qsort(all, n, sizeof *all, by_time);
            printf("# %-22s %10s %14s %8s %18s\n", "Algorithm", "Start-ups", "Volume", "Copies",
                   "Time");
            for (size_t i = 0; i < n; i++)
                printf("  %-22s %10llu %14llu %8llu %18.2f\n", all[i].alg,
                       (unsigned long long)all[i].startups,
                       (unsigned long long)all[i].volume_blocks,
                       (unsigned long long)all[i].copy_blocks, all[i].time);
            printf("best at m = %s %s: %s (time %.6g %s)\n", xchg_cli_size(m, sz, sizeof sz), mu,
                   best.alg, best.time, mach.units);
        }
        free(all);
        return XCHG_CLI_OK;
    }

    if (!json) {
        printf("# %-22s %10s %14s %8s\n", "Algorithm", "Start-ups", "Volume", "Copies");
        for (size_t i = 0; i < n; i++)
            printf("  %-22s %10llu %14llu %8llu\n", all[i].alg,
                   (unsigned long long)all[i].startups, (unsigned long long)all[i].volume_blocks,
                   (unsigned long long)all[i].copy_blocks);
        printf("#\n# Size(%s) %-22s %18s\n", mu, "best", "time");
    }
    for (double s = lo; s <= hi; s *= 2) {
        size_t b = fastest(all, n, s);
        double tm = all[b].fixed + all[b].per_unit * s;
        if (json) {
            fputs("{\"type\":\"size\",\"m\":", stdout);
            xchg_cli_json_size(stdout, s);
            fputs(",\"best\":", stdout);
            xchg_cli_json_str(stdout, all[b].alg);
            fputs(",\"time\":", stdout);
            xchg_cli_json_num(stdout, tm);
            fputs("}\n", stdout);
        } else {
            printf("  %-12s %-22s %18.2f\n", xchg_cli_size(s, sz, sizeof sz), all[b].alg, tm);
        }
    }
    cross cx[PLAN_MAX_ROWS];
    size_t nc = envelope(all, n, lo, hi, cx, PLAN_MAX_ROWS);
    if (!json)
        printf("#\n# crossovers: block size where the fastest changes\n");
    for (size_t i = 0; i < nc; i++) {
        if (json) {
            fputs("{\"type\":\"crossover\",\"from\":", stdout);
            xchg_cli_json_str(stdout, all[cx[i].from].alg);
            fputs(",\"to\":", stdout);
            xchg_cli_json_str(stdout, all[cx[i].to].alg);
            fputs(",\"m\":", stdout);
            xchg_cli_json_num(stdout, cx[i].m);
            fputs("}\n", stdout);
        } else {
            printf("crossover: %s -> %s at m = %.6g %s\n", all[cx[i].from].alg,
                   all[cx[i].to].alg, cx[i].m, mu);
        }
    }
    if (!json && nc == 0)
        printf("crossover: none in [%s, %s]; %s is fastest throughout\n",
               xchg_cli_size(lo, sz, sizeof sz), xchg_cli_size(hi, sz2, sizeof sz2),
               all[fastest(all, n, lo)].alg);
    free(all);
    return XCHG_CLI_OK;
}
