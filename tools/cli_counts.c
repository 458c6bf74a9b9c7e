/*
 * cli_counts.c - what the CLI prints about uneven block sizes (--counts;
 * docs/alltoallv.md): the one-line description of a count matrix, and the
 * ranking `xchg plan` and `xchg compare` print with --counts, where every
 * candidate is priced on the counts (the planner's xchg_plan_entry.vcost,
 * xchg_cost_vcounts) instead of on a time line in m. --counts itself is
 * read by xchg_cli_counts (cli_common.c).
 */
#include "cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void xchg_cli_counts_describe(const char *lead, const char *desc, const xchg_vcounts *c,
                              const char *unit)
{
    xchg_vcounts_summary s;
    if (xchg_vcounts_summarize(c, &s) != XCHG_OK)
        return;
    uint64_t off = (uint64_t)s.nodes * (s.nodes - 1);
    printf("%s%s: %llu of %llu blocks off the diagonal nonzero, %llu %s in all, mean %.6g %s, "
           "largest %llu %s\n",
           lead, desc, (unsigned long long)s.nonzero, (unsigned long long)off,
           (unsigned long long)s.total, unit, s.mean, unit, (unsigned long long)s.max_block,
           unit);
}

/* The order to print the candidates in: the planner's ranking (fastest
 * on the counts first, then those that may not win). NULL when out of
 * memory. */
static size_t *ranking(const xchg_sweep *sw)
{
    size_t n = xchg_sweep_ncandidates(sw);
    size_t *ord = malloc((n ? n : 1) * sizeof *ord);
    if (ord)
        xchg_sweep_rank(sw, 0, ord, n);
    return ord;
}

/* One candidate as a JSON line of type `type`. */
static void json_entry(const xchg_plan_entry *e, const char *type, const char *note)
{
    const xchg_vcost *v = &e->vcost;
    printf("{\"type\":\"%s\",\"algorithm\":", type);
    xchg_tool_json_str(stdout, e->alg);
    printf(",\"eligible\":%s", e->eligible ? "true" : "false");
    if (e->has_vcost) {
        xchg_cli_json_vcost(stdout, v, 0);
    }
    if (note) {
        fputs(",\"verified\":", stdout);
        xchg_tool_json_str(stdout, note);
    }
    if (e->why[0]) {
        fputs(",\"why\":", stdout);
        xchg_tool_json_str(stdout, e->why);
    }
    fputs("}\n", stdout);
}

/*
 * Text: the title, the counts, the model, one row per candidate in the
 * planner's order (the link time is the one ranked; Source says where the
 * link volume comes from), the candidates that may not win with why, the
 * lower bounds and the best. JSON: one line per candidate in the same
 * order, then "best" with the bounds.
 */
void xchg_cli_counts_ranking(const char *cmd, const xchg_topo *t, const xchg_machine *mach,
                             const char *desc, const xchg_vcounts *c, const xchg_sweep *sw,
                             int json, const char *type,
                             const char *(*note)(const xchg_plan_entry *e, char *buf,
                                                 size_t len))
{
    size_t *ord = ranking(sw);
    if (!ord) {
        xchg_cli_error("out of memory");
        return;
    }
    size_t n = xchg_sweep_ncandidates(sw);
    size_t best = xchg_sweep_best_at(sw, 0);
    const char *mu = strcmp(mach->units, "t_c") == 0 ? "flits" : "B";
    char spec[64], buf[96];
    if (json) {
        for (size_t k = 0; k < n; k++) {
            const xchg_plan_entry *e = xchg_sweep_candidate(sw, ord[k]);
            json_entry(e, type, note ? note(e, buf, sizeof buf) : NULL);
        }
        const xchg_plan_entry *b = best != XCHG_NO_WINNER ? xchg_sweep_candidate(sw, best)
                                                          : NULL;
        fputs("{\"type\":\"best\",\"topology\":", stdout);
        xchg_tool_json_str(stdout, xchg_topo_spec(t, spec, sizeof spec));
        fputs(",\"counts\":", stdout);
        xchg_tool_json_str(stdout, desc);
        fputs(",\"algorithm\":", stdout);
        if (b)
            xchg_tool_json_str(stdout, b->alg);
        else
            fputs("null", stdout);
        fputs(",\"time\":", stdout);
        xchg_cli_json_num(stdout, b ? b->vcost.link_time : NAN);
        if (b) {
            fputs(",\"lower_bound\":{\"startups\":", stdout);
            xchg_cli_json_u64(stdout, b->vcost.lb_startups);
            fputs(",\"direct_startups\":", stdout);
            xchg_cli_json_u64(stdout, b->vcost.lb_direct_startups);
            fputs(",\"injection_bytes\":", stdout);
            xchg_cli_json_u64(stdout, b->vcost.lb_injection_bytes);
            fputs(",\"time\":", stdout);
            xchg_cli_json_num(stdout, b->vcost.lb_time);
            fputc('}', stdout);
        }
        fputs("}\n", stdout);
        free(ord);
        return;
    }
    printf("# xchg %s on %s, machine %s (ts = %g, tw = %g, tr = %g; %s)\n", cmd,
           xchg_topo_spec(t, spec, sizeof spec), mach->name, mach->ts, mach->tw, mach->tr,
           mach->units);
    xchg_cli_counts_describe("# counts ", desc, c, mu);
    printf("# time = startups*ts + link_volume*tw + copies*tr in bytes of the counts; a\n"
           "# start-up only for a step with a message of > 0 bytes (docs/alltoallv.md)\n");
    int w = 20;
    for (size_t i = 0; i < n; i++)
        if ((int)strlen(xchg_sweep_candidate(sw, i)->alg) > w)
            w = (int)strlen(xchg_sweep_candidate(sw, i)->alg);
    char vh[24], lh[24];
    snprintf(vh, sizeof vh, "Volume(%s)", mu);
    snprintf(lh, sizeof lh, "Link-vol(%s)", mu);
    printf("# %-*s %9s %8s %12s %12s %-9s %14s%s\n", w, "Algorithm", "Start-ups", "Messages",
           vh, lh, " Source", "Time", note ? "  Verified" : "");
    int ineligible = 0;
    for (size_t k = 0; k < n; k++) {
        const xchg_plan_entry *e = xchg_sweep_candidate(sw, ord[k]);
        const xchg_vcost *v = &e->vcost;
        ineligible |= !e->eligible;
        if (!e->has_vcost) {
            printf("  %-*s %s\n", w, e->alg, e->why);
            continue;
        }
        printf("  %-*s %9llu %8llu %12llu %12llu  %-8s %14.2f", w, e->alg,
               (unsigned long long)v->startups, (unsigned long long)v->messages,
               (unsigned long long)v->volume_bytes, (unsigned long long)v->link_volume_bytes,
               xchg_cli_link_source(v->link_source), v->link_time);
        if (note)
            printf("  %s", note(e, buf, sizeof buf));
        putchar('\n');
    }
    for (size_t k = 0; ineligible && k < n; k++) {
        const xchg_plan_entry *e = xchg_sweep_candidate(sw, ord[k]);
        if (!e->eligible && e->has_vcost)
            printf("# may not win: %s: %s\n", e->alg, e->why);
    }
    if (best == XCHG_NO_WINNER) {
        printf("best on these counts: none may win\n");
        free(ord);
        return;
    }
    const xchg_plan_entry *b = xchg_sweep_candidate(sw, best);
    const xchg_vcost *v = &b->vcost;
    printf("# lower bound: %llu start-ups (one-port; %llu for a direct schedule), %llu %s "
           "through one port: %.6g %s\n",
           (unsigned long long)v->lb_startups, (unsigned long long)v->lb_direct_startups,
           (unsigned long long)v->lb_injection_bytes, mu, v->lb_time, mach->units);
    printf("best on these counts: %s (time %.6g %s)\n", b->alg, v->link_time, mach->units);
    free(ord);
}
