/*
 * cmd_compare.c - "xchg compare": every registry algorithm that applies to
 * a topology, with each of its variants, generated, verified block by block
 * and costed over a range of block sizes; the winner per size, the exact
 * crossover points where the winner changes, and the lower bound.
 *
 * Predicted time of an algorithm at block size m is a line a + b*m with
 *   a = startups*ts,  b = link_volume_blocks*tw + copy_blocks*tr,
 * link_volume_blocks from the verifier (the busiest directed link's load
 * summed over steps; equal to the volume for contention-free schedules), so
 * contention costs what it costs on a store-and-forward link. Everything is
 * computed before anything is printed.
 */
#include "cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char xchg_cli_compare_help[] =
    "usage: xchg compare --topo T [--machine NAME | --ts S --tw W [--tr R] | --a A]\n"
    "                    [--m MIN:MAX] [--only NAMES] [--threads N] [--max-work W]\n"
    "                    [--json]\n\n"
    "Generate every registry algorithm that applies to T, with each of its\n"
    "variants, verify each block by block (a schedule with too many blocks to\n"
    "follow gets the message-level checks only: routes, ports, link contention,\n"
    "shown as \"messages only\"; one too large even for that is shown as \"not\n"
    "verified (too large)\"; one that fails verification is shown and never\n"
    "wins), and predict its time at block sizes MIN, 2*MIN, ... <= MAX:\n"
    "  time = startups*ts + link_volume_blocks*m*tw + copy_blocks*m*tr\n"
    "where link_volume_blocks is the verifier's congestion-scaled volume (equal to\n"
    "the volume when no link carries two messages in a step).\n\n"
    "Prints (1) the algorithms with start-ups, volume, link volume, copies,\n"
    "contention, LVol/LB (link volume over the binding volume lower bound:\n"
    "injection p-1, or on tori seed 001 Lemma 1, N1*prod(Ni)/8 blocks; the link\n"
    "volume is the volume when contention-free) and verification;\n"
    "(2) an OSU-style table of predicted times per size with the best algorithm\n"
    "and the lower bound; (3) the crossover points, the exact block size where\n"
    "the winner's line is crossed by the next winner's;\n"
    "(4) the lower bound per size, which bound binds, and the winner's ratio to it.\n\n"
    "options:\n"
    "  --topo T          ring:P array:P mesh:AxB.. torus:AxB.. hypercube:D complete:P\n"
    "  --machine NAME    preset from seed 002 Table 1: paragon (default), sp2, cs2\n"
    "  --ts S --tw W     custom machine: start-up S us, W us per byte\n"
    "  --tr R            with --ts/--tw: R us per byte copied locally (default 0)\n"
    "  --a A             seed 000's model: ts = A, tw = 1 per flit, tr = 0 (t_c units)\n"
    "  --m MIN:MAX       block sizes in bytes (flits with --a), doubling from MIN;\n"
    "                    decimals with 0 < MIN <= MAX <= 1e15 (default 8:65536; a\n"
    "                    single N means N:N)\n"
    "  --only NAMES      only these registry algorithms, comma-separated, e.g.\n"
    "                    t1,t1.x,t2 (default: every one that applies)\n"
    "  --threads N       verifier threads, 0 = every online core (default 0)\n"
    "  --max-work W      follow blocks only in schedules of at most W block-steps\n"
    "                    (p*p*steps; default: the library's limit); larger ones get\n"
    "                    the message-level checks if they have at most W messages\n"
    "                    (p*steps), else are costed from their declared sizes and\n"
    "                    shown as not verified\n"
    "  --json            one JSON object per line: a \"model\" line, one \"algorithm\"\n"
    "                    line each, one \"size\" line each, one \"crossover\" line each\n\n"
    "exit status: 0 ok, 1 an algorithm failed verification, 2 bad input.\n";

enum { ROW_VERIFIED, ROW_MESSAGES, ROW_FAILED, ROW_TOOBIG, ROW_ERROR };

/* One schedule in the comparison. */
typedef struct row {
    char spec[64];
    int state;             /* ROW_* */
    char msg[200];         /* error or first failure */
    uint64_t startups, volume, link_volume, copies, conflicts, failures;
    int cf_claim;          /* schedule claims contention-free */
    int link_from_verify;  /* link_volume measured, not assumed */
    double a, b;           /* time = a + b*m */
    int eligible;          /* may win */
} row;

/* A growable list of rows. */
typedef struct rows {
    row *v;
    size_t n, cap;
} rows;

/* Append a zeroed row; NULL when out of memory. */
static row *rows_add(rows *r)
{
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 16;
        row *v = realloc(r->v, cap * sizeof *v);
        if (!v)
            return NULL;
        r->v = v;
        r->cap = cap;
    }
    row *x = &r->v[r->n++];
    memset(x, 0, sizeof *x);
    return x;
}

/*
 * Generate, verify and cost one spec (that applies to t) into a new row of
 * out. Returns 0, or an exit status when out of memory.
 */
static int add_spec(const xchg_topo *t, const char *spec, const xchg_machine *mach,
                    const xchg_verify_opts *vo, rows *out)
{
    xchg_err err = {{0}};
    row *r = rows_add(out);
    if (!r)
        return xchg_cli_error("out of memory");
    snprintf(r->spec, sizeof r->spec, "%.63s", spec);
    xchg_sched *s = NULL;
    int rc = xchg_generate(t, spec, &s, &err);
    if (rc) {
        r->state = ROW_ERROR;
        snprintf(r->msg, sizeof r->msg, "generation failed: %.170s", err.msg);
        return 0;
    }
    xchg_cost c;
    rc = xchg_cost_compute(s, mach, 1.0, 0, &c, &err);
    if (rc) {
        r->state = ROW_ERROR;
        snprintf(r->msg, sizeof r->msg, "cost failed: %.180s", err.msg);
        xchg_sched_free(s);
        return 0;
    }
    r->startups = c.startups;
    r->volume = c.volume_blocks;
    r->copies = c.copy_blocks;
    r->cf_claim = xchg_sched_contention_free(s);
    xchg_verify_report rep;
    rc = xchg_verify(s, vo, &rep, &err);
    if (rc == XCHG_ETOOBIG) {
        /* too many blocks to follow: still check every message's route,
         * ports and links, so contention is measured, not assumed away */
        xchg_verify_opts mo = *vo;
        mo.messages_only = 1;
        rc = xchg_verify(s, &mo, &rep, &err);
    }
    xchg_sched_free(s);
    if (rc == XCHG_ETOOBIG) {
        r->state = ROW_TOOBIG;
        r->link_volume = r->volume;
        r->eligible = 1;
    } else if (rc) {
        r->state = ROW_ERROR;
        snprintf(r->msg, sizeof r->msg, "verify failed to run: %.170s", err.msg);
        return 0;
    } else {
        r->link_from_verify = 1;
        r->link_volume = rep.link_volume_blocks;
        r->conflicts = rep.link_conflicts;
        r->failures = rep.failures;
        r->state = !rep.ok ? ROW_FAILED : rep.messages_only ? ROW_MESSAGES : ROW_VERIFIED;
        r->eligible = rep.ok;
        if (!rep.ok)
            snprintf(r->msg, sizeof r->msg, "%.159s",
                     rep.reported > 0 ? rep.msgs[0] : "verification failed");
    }
    r->a = (double)r->startups * mach->ts;
    r->b = (double)r->link_volume * mach->tw + (double)r->copies * mach->tr;
    return 0;
}

/* Time of row r at block size m. */
static double row_time(const row *r, double m)
{
    return r->a + r->b * m;
}

/* The binding volume lower bound of t in blocks (the larger of injection
 * and bisection, seed 001 Lemma 1 on tori) and its name. */
static uint64_t volume_bound(const xchg_topo *t, const char **name)
{
    static xchg_cost lb; /* static: *name points into it */
    memset(&lb, 0, sizeof lb);
    xchg_cost_lower_bounds(t, NULL, 1.0, &lb);
    if (lb.lb_bisection_blocks > lb.lb_injection_blocks) {
        *name = lb.lb_bisection_name;
        return lb.lb_bisection_blocks;
    }
    *name = "injection (p-1 blocks through one port)";
    return lb.lb_injection_blocks;
}

/* Index of the eligible row with the least time at m (ties: smaller slope,
 * then earlier row); -1 when none is eligible. */
static long best_at(const rows *rs, double m)
{
    long best = -1;
    for (size_t i = 0; i < rs->n; i++) {
        const row *r = &rs->v[i];
        if (!r->eligible)
            continue;
        if (best < 0) {
            best = (long)i;
            continue;
        }
        double tb = row_time(&rs->v[best], m), tr = row_time(r, m);
        if (tr < tb || (tr == tb && r->b < rs->v[best].b))
            best = (long)i;
    }
    return best;
}

/* A change of winner: from row `from` to row `to` at block size m. */
typedef struct crossing {
    long from, to;
    double m;
} crossing;

/*
 * Walk the lower envelope of the eligible lines from lo to hi: from the
 * winner at lo, the next winner is the line with a smaller slope that
 * crosses the current one first (ties: the smallest slope). Writes at most
 * max crossings (there are fewer than the number of rows, since slopes only
 * decrease) and returns how many.
 */
static size_t envelope(const rows *rs, double lo, double hi, crossing *out, size_t max)
{
    long cur = best_at(rs, lo);
    double at = lo;
    size_t n = 0;
    while (cur >= 0 && n < max) {
        const row *c = &rs->v[cur];
        long next = -1;
        double nx = 0;
        for (size_t j = 0; j < rs->n; j++) {
            const row *r = &rs->v[j];
            if (!r->eligible || (long)j == cur || !(r->b < c->b))
                continue;
            double x = (r->a - c->a) / (c->b - r->b);
            if (!(x > at) || x > hi)
                continue;
            if (next < 0 || x < nx || (x == nx && r->b < rs->v[next].b)) {
                next = (long)j;
                nx = x;
            }
        }
        if (next < 0)
            break;
        out[n].from = cur;
        out[n].to = next;
        out[n].m = nx;
        n++;
        cur = next;
        at = nx;
    }
    return n;
}

/* The verification column's text. */
static const char *verified_text(const row *r, char *buf, size_t len)
{
    switch (r->state) {
    case ROW_VERIFIED:
        return "yes";
    case ROW_FAILED:
        snprintf(buf, len, "NO (%llu failed checks)", (unsigned long long)r->failures);
        return buf;
    case ROW_MESSAGES:
        return "messages only (too large to follow blocks)";
    case ROW_TOOBIG:
        return "not verified (too large)";
    default:
        return "error";
    }
}

/* Everything compare prints, gathered first. */
typedef struct report {
    xchg_topo topo;
    xchg_machine mach;
    double lo, hi;
    rows rs;
    char na[1024];       /* names of algorithms that do not apply */
    crossing cross[256];
    size_t ncross;
} report;

/* Print the report as text. */
static void print_text(report *R)
{
    char spec[128], buf[64], sz[40], sz2[40];
    const char *tu = R->mach.units;
    const char *mu = strcmp(tu, "t_c") == 0 ? "flits" : "B";
    const rows *rs = &R->rs;
    printf("# xchg compare on %s (%u node%s), machine %s: ts = %g, tw = %g, tr = %g (%s)\n",
           xchg_topo_spec(&R->topo, spec, sizeof spec), (unsigned)R->topo.nodes,
           R->topo.nodes == 1 ? "" : "s", R->mach.name,
           R->mach.ts, R->mach.tw, R->mach.tr, tu);
    printf("# predicted time = startups*ts + link_volume_blocks*m*tw + copy_blocks*m*tr, "
           "where link_volume_blocks\n"
           "# is the verifier's congestion-scaled volume (sum over steps of the busiest "
           "link's load; equals the\n"
           "# volume when the schedule is contention-free)\n#\n");
    /* (1) the algorithms */
    int w = 12;
    for (size_t i = 0; i < rs->n; i++)
        if ((int)strlen(rs->v[i].spec) > w)
            w = (int)strlen(rs->v[i].spec);
    const char *vb_name;
    uint64_t vb = volume_bound(&R->topo, &vb_name);
    if (vb)
        printf("# volume lower bound: %llu blocks, %s; LVol/LB = link volume / that "
               "bound\n",
               (unsigned long long)vb, vb_name);
    printf("# %-*s %10s %12s %12s %10s %11s %8s  %s\n", w, "Algorithm", "Start-ups", "Volume",
           "Link-volume", "Copies", "Contention", "LVol/LB", "Verified");
    int assumed = 0;
    for (size_t i = 0; i < rs->n; i++) {
        const row *r = &rs->v[i];
        if (r->state == ROW_ERROR) {
            printf("  %-*s %s\n", w, r->spec, r->msg);
            continue;
        }
        char lv[32], ct[32];
        snprintf(lv, sizeof lv, "%llu%s", (unsigned long long)r->link_volume,
                 r->link_from_verify ? "" : "*");
        if (r->link_from_verify)
            snprintf(ct, sizeof ct, "%llu", (unsigned long long)r->conflicts);
        else
            snprintf(ct, sizeof ct, "-");
        assumed |= !r->link_from_verify;
        char ratio[32];
        if (vb)
            snprintf(ratio, sizeof ratio, "%.3f", (double)r->link_volume / (double)vb);
        else
            snprintf(ratio, sizeof ratio, "-");
        printf("  %-*s %10llu %12llu %12s %10llu %11s %8s  %s\n", w, r->spec,
               (unsigned long long)r->startups, (unsigned long long)r->volume, lv,
               (unsigned long long)r->copies, ct, ratio, verified_text(r, buf, sizeof buf));
        if (r->state == ROW_FAILED)
            printf("  %-*s first failure: %s (excluded from best)\n", w, "", r->msg);
    }
    if (assumed)
        printf("# * not verified: link volume taken as the declared volume (%s)\n",
               "contention, if any, is not counted");
    if (R->na[0])
        printf("# not applicable to this topology: %s\n", R->na);
    /* (2) predicted times */
    printf("#\n# predicted time (%s) per block size\n", tu);
    printf("# %-10s", mu[0] == 'B' ? "Size(B)" : "Size(flits)");
    int cw[1024];
    size_t ncol = rs->n < 1024 ? rs->n : 1024;
    for (size_t i = 0; i < ncol; i++) {
        cw[i] = (int)strlen(rs->v[i].spec) + 2;
        if (cw[i] < 14)
            cw[i] = 14;
        if (rs->v[i].state != ROW_ERROR)
            printf("%*s", cw[i], rs->v[i].spec);
    }
    printf("  %-*s %14s\n", w, "best", "lower-bound");
    for (double m = R->lo; m <= R->hi; m *= 2) {
        printf("  %-10s", xchg_cli_size(m, sz, sizeof sz));
        for (size_t i = 0; i < ncol; i++)
            if (rs->v[i].state != ROW_ERROR)
                printf("%*.2f", cw[i], row_time(&rs->v[i], m));
        long b = best_at(rs, m);
        xchg_cost lb;
        memset(&lb, 0, sizeof lb);
        xchg_cost_lower_bounds(&R->topo, &R->mach, m, &lb);
        printf("  %-*s %14.2f\n", w, b >= 0 ? rs->v[b].spec : "-", lb.lb_time);
        if (m > R->hi / 2)
            break;
    }
    /* (3) crossovers */
    printf("#\n# crossovers: where the winner changes, the block size where the two lines "
           "a + b*m cross\n");
    long first = best_at(rs, R->lo);
    if (first < 0)
        printf("# no algorithm is eligible to win (none verified)\n");
    else if (R->ncross == 0)
        printf("# no crossover: %s wins at every size from %s to %s %s\n",
               rs->v[first].spec, xchg_cli_size(R->lo, sz, sizeof sz),
               xchg_cli_size(R->hi, sz2, sizeof sz2), mu);
    for (size_t k = 0; k < R->ncross; k++) {
        const row *f = &rs->v[R->cross[k].from], *t = &rs->v[R->cross[k].to];
        printf("crossover: %s -> %s at m = %.6g %s (%s: %.6g + %.6g*m, %s: %.6g + %.6g*m)\n",
               f->spec, t->spec, R->cross[k].m, mu, f->spec, f->a, f->b, t->spec, t->a, t->b);
    }
    /* (4) lower bound and the winner's ratio */
    printf("#\n# lower bound per block size and the winner's ratio to it\n");
    printf("# %-10s %-*s %14s %14s %8s  %s\n", mu[0] == 'B' ? "Size(B)" : "Size(flits)", w,
           "best", "time", "lower-bound", "ratio", "binding");
    for (double m = R->lo; m <= R->hi; m *= 2) {
        long b = best_at(rs, m);
        xchg_cost lb;
        memset(&lb, 0, sizeof lb);
        xchg_cost_lower_bounds(&R->topo, &R->mach, m, &lb);
        double bt = b >= 0 ? row_time(&rs->v[b], m) : NAN;
        printf("  %-10s %-*s %14.2f %14.2f ", xchg_cli_size(m, sz, sizeof sz), w,
               b >= 0 ? rs->v[b].spec : "-", bt, lb.lb_time);
        if (b >= 0 && lb.lb_time > 0)
            printf("%8.3f", bt / lb.lb_time);
        else
            printf("%8s", "-");
        printf("  %s\n", lb.lb_binding[0] ? lb.lb_binding : "-");
        if (m > R->hi / 2)
            break;
    }
}

/* Print the report as JSON lines. */
static void print_json(report *R)
{
    char spec[128], buf[64];
    const rows *rs = &R->rs;
    fputs("{\"type\":\"model\",\"topology\":", stdout);
    xchg_cli_json_str(stdout, xchg_topo_spec(&R->topo, spec, sizeof spec));
    printf(",\"nodes\":%u,\"machine\":", (unsigned)R->topo.nodes);
    xchg_cli_json_str(stdout, R->mach.name);
    fputs(",\"units\":", stdout);
    xchg_cli_json_str(stdout, R->mach.units);
    fputs(",\"ts\":", stdout);
    xchg_cli_json_num(stdout, R->mach.ts);
    fputs(",\"tw\":", stdout);
    xchg_cli_json_num(stdout, R->mach.tw);
    fputs(",\"tr\":", stdout);
    xchg_cli_json_num(stdout, R->mach.tr);
    const char *vb_name;
    uint64_t vb = volume_bound(&R->topo, &vb_name);
    fputs(",\"volume_bound_blocks\":", stdout);
    xchg_cli_json_u64(stdout, vb);
    fputs(",\"volume_bound\":", stdout);
    xchg_cli_json_str(stdout, vb ? vb_name : "");
    fputs(",\"time\":\"startups*ts + link_volume_blocks*m*tw + copy_blocks*m*tr\""
          ",\"not_applicable\":",
          stdout);
    xchg_cli_json_str(stdout, R->na);
    fputs("}\n", stdout);
    for (size_t i = 0; i < rs->n; i++) {
        const row *r = &rs->v[i];
        fputs("{\"type\":\"algorithm\",\"algorithm\":", stdout);
        xchg_cli_json_str(stdout, r->spec);
        fputs(",\"verified\":", stdout);
        xchg_cli_json_str(stdout, verified_text(r, buf, sizeof buf));
        printf(",\"eligible\":%s", r->eligible ? "true" : "false");
        if (r->state != ROW_ERROR) {
            fputs(",\"startups\":", stdout);
            xchg_cli_json_u64(stdout, r->startups);
            fputs(",\"volume_blocks\":", stdout);
            xchg_cli_json_u64(stdout, r->volume);
            fputs(",\"volume_ratio\":", stdout);
            if (vb)
                xchg_cli_json_num(stdout, (double)r->volume / (double)vb);
            else
                fputs("null", stdout);
            fputs(",\"link_volume_ratio\":", stdout);
            if (vb)
                xchg_cli_json_num(stdout, (double)r->link_volume / (double)vb);
            else
                fputs("null", stdout);
            fputs(",\"link_volume_blocks\":", stdout);
            xchg_cli_json_u64(stdout, r->link_volume);
            printf(",\"link_volume_measured\":%s", r->link_from_verify ? "true" : "false");
            fputs(",\"copy_blocks\":", stdout);
            xchg_cli_json_u64(stdout, r->copies);
            fputs(",\"link_conflicts\":", stdout);
            if (r->link_from_verify)
                xchg_cli_json_u64(stdout, r->conflicts);
            else
                fputs("null", stdout);
            printf(",\"contention_free_claim\":%s", r->cf_claim ? "true" : "false");
            fputs(",\"a\":", stdout);
            xchg_cli_json_num(stdout, r->a);
            fputs(",\"b\":", stdout);
            xchg_cli_json_num(stdout, r->b);
        }
        if (r->msg[0]) {
            fputs(",\"message\":", stdout);
            xchg_cli_json_str(stdout, r->msg);
        }
        fputs("}\n", stdout);
    }
    for (double m = R->lo; m <= R->hi; m *= 2) {
        fputs("{\"type\":\"size\",\"m\":", stdout);
        xchg_cli_json_size(stdout, m);
        fputs(",\"times\":{", stdout);
        int first = 1;
        for (size_t i = 0; i < rs->n; i++) {
            if (rs->v[i].state == ROW_ERROR)
                continue;
            if (!first)
                fputc(',', stdout);
            first = 0;
            xchg_cli_json_str(stdout, rs->v[i].spec);
            fputc(':', stdout);
            xchg_cli_json_num(stdout, row_time(&rs->v[i], m));
        }
        long b = best_at(rs, m);
        xchg_cost lb;
        memset(&lb, 0, sizeof lb);
        xchg_cost_lower_bounds(&R->topo, &R->mach, m, &lb);
        double bt = b >= 0 ? row_time(&rs->v[b], m) : NAN;
        fputs("},\"best\":", stdout);
        if (b >= 0)
            xchg_cli_json_str(stdout, rs->v[b].spec);
        else
            fputs("null", stdout);
        fputs(",\"best_time\":", stdout);
        xchg_cli_json_num(stdout, bt);
        fputs(",\"lower_bound\":", stdout);
        xchg_cli_json_num(stdout, lb.lb_time);
        fputs(",\"binding\":", stdout);
        xchg_cli_json_str(stdout, lb.lb_binding);
        fputs(",\"ratio\":", stdout);
        xchg_cli_json_num(stdout, lb.lb_time > 0 ? bt / lb.lb_time : NAN);
        fputs("}\n", stdout);
        if (m > R->hi / 2)
            break;
    }
    for (size_t k = 0; k < R->ncross; k++) {
        fputs("{\"type\":\"crossover\",\"from\":", stdout);
        xchg_cli_json_str(stdout, rs->v[R->cross[k].from].spec);
        fputs(",\"to\":", stdout);
        xchg_cli_json_str(stdout, rs->v[R->cross[k].to].spec);
        fputs(",\"m\":", stdout);
        xchg_cli_json_num(stdout, R->cross[k].m);
        fputs("}\n", stdout);
    }
}

/* Append name to the comma-separated list in buf (truncating quietly). */
static void list_add(char *buf, size_t len, const char *name)
{
    size_t used = strlen(buf);
    if (used + 1 < len)
        snprintf(buf + used, len - used, "%s%s", used ? ", " : "", name);
}

int xchg_cli_compare(int argc, char **argv)
{
    xchg_cli_opt opts[] = {{"topo", "T", NULL, 0},      {"machine", "NAME", NULL, 0},
                           {"ts", "S", NULL, 0},         {"tw", "W", NULL, 0},
                           {"tr", "R", NULL, 0},         {"a", "A", NULL, 0},
                           {"m", "MIN:MAX", NULL, 0},    {"threads", "N", NULL, 0},
                           {"max-work", "W", NULL, 0},   {"json", NULL, NULL, 0},
                           {"only", "NAMES", NULL, 0},   {NULL, NULL, NULL, 0}};
    int rc = xchg_cli_parse("compare", argc, argv, opts);
    if (rc)
        return rc;
    report *R = calloc(1, sizeof *R);
    if (!R)
        return xchg_cli_error("out of memory");
    R->lo = 8;
    R->hi = 65536;
    xchg_verify_opts vo = {.threads = 0, .max_work = 0};
    uint64_t v;
    if ((rc = xchg_cli_topo(opts, "compare", &R->topo)))
        goto out;
    if (xchg_cli_has(opts, "m") &&
        (rc = xchg_cli_range("m", xchg_cli_val(opts, "m"), &R->lo, &R->hi)))
        goto out;
    if (xchg_cli_has(opts, "threads")) {
        if ((rc = xchg_cli_uint("threads", xchg_cli_val(opts, "threads"), 0, 1024, &v)))
            goto out;
        vo.threads = (int)v;
    }
    if (xchg_cli_has(opts, "max-work")) {
        rc = xchg_cli_uint("max-work", xchg_cli_val(opts, "max-work"), 1, UINT64_MAX, &v);
        if (rc)
            goto out;
        vo.max_work = v;
    }
    if ((rc = xchg_cli_machine(opts, R->topo.nodes, &R->mach)))
        goto out;
    const char *only = xchg_cli_has(opts, "only") ? xchg_cli_val(opts, "only") : NULL;
    xchg_err lerr = {{0}};
    if (xchg_alg_check_list(only, &lerr) != XCHG_OK) {
        rc = xchg_cli_error("bad --only: %s", lerr.msg);
        goto out;
    }

    size_t nalg = xchg_alg_count();
    for (size_t i = 0; i < nalg; i++) {
        const xchg_alg *alg = xchg_alg_at(i);
        if (!alg || !xchg_alg_in_list(only, alg->name))
            continue;
        xchg_spec specs[XCHG_MAX_VARIANTS];
        int nv = xchg_alg_variants(&R->topo, alg, specs, XCHG_MAX_VARIANTS, NULL);
        for (int k = 0; k < nv; k++)
            if ((rc = add_spec(&R->topo, specs[k], &R->mach, &vo, &R->rs)))
                goto out;
        if (nv == 0)
            list_add(R->na, sizeof R->na, alg->name);
    }
    if (R->rs.n == 0) {
        char spec[128];
        rc = xchg_cli_error("no algorithm applies to %s; accepted: a topology one of 'xchg "
                            "list' accepts",
                            xchg_topo_spec(&R->topo, spec, sizeof spec));
        goto out;
    }
    R->ncross = envelope(&R->rs, R->lo, R->hi, R->cross,
                         sizeof R->cross / sizeof R->cross[0]);
    if (xchg_cli_has(opts, "json"))
        print_json(R);
    else
        print_text(R);
    rc = XCHG_CLI_OK;
    for (size_t i = 0; i < R->rs.n; i++)
        if (R->rs.v[i].state == ROW_FAILED)
            rc = XCHG_CLI_FAILED;
out:
    free(R->rs.v);
    free(R);
    return rc;
}
