/*
 * cli_ppn.c - --ppn K, ranks a node (docs/hierarchical.md): the option's
 * check, shared by cost, plan, compare and sim, and what `xchg cost --ppn`
 * prints: the line of a node-aware variant (leader:X, leaders:L:X,
 * pairs:X, from X's line on the node network; aggregate, which has no X)
 * or of a flat algorithm on all the ranks hosted K a node. Thin: the lines
 * are the library's (xchg_hier_line, xchg_aggregate_line, xchg_flat_line,
 * the planner for an inner "auto").
 */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

int xchg_cli_ppn(xchg_cli_opt *opts, const xchg_topo *t, xchg_op_kind op, uint32_t *ppn)
{
    *ppn = 1;
    if (!xchg_cli_has(opts, "ppn"))
        return 0;
    uint64_t v;
    int rc = xchg_cli_uint("ppn", xchg_cli_val(opts, "ppn"), 1, XCHG_MAX_NODES, &v);
    if (rc)
        return rc;
    uint64_t p = v * t->nodes;
    if (p > XCHG_MAX_NODES)
        return xchg_cli_error("--ppn %llu on %u nodes makes %llu ranks; accepted: at most %u "
                              "ranks (nodes of --topo times --ppn)",
                              (unsigned long long)v, (unsigned)t->nodes,
                              (unsigned long long)p, (unsigned)XCHG_MAX_NODES);
    if (v > 1 && op != XCHG_OP_ALLTOALL)
        return xchg_cli_error("--ppn %llu with --op %s: ranks a node are modelled for the "
                              "complete exchange only; accepted: --ppn with --op alltoall "
                              "(the default), or --ppn 1",
                              (unsigned long long)v, xchg_op_name(op));
    *ppn = (uint32_t)v;
    return 0;
}

/* The best inner algorithm of variant h at block size m: the planner's
 * first candidate of that variant. 0, or an exit status after printing. */
static int resolve_auto(const xchg_topo *t, uint32_t ppn, const xchg_machine *mach, double m,
                        int barrier, const char *spec, const xchg_hier *h, char *inner,
                        size_t len)
{
    xchg_plan_opts po = {.ppn = ppn, .with_barrier = barrier};
    xchg_sweep *sw = NULL;
    xchg_err err = {{0}};
    int rc = xchg_plan_sweep(t, mach, m, m, &po, &sw, &err);
    if (rc)
        return xchg_cli_lib_error(rc, "cost", &err);
    size_t n = xchg_sweep_ncandidates(sw);
    size_t *ord = malloc((n ? n : 1) * sizeof *ord);
    if (!ord) {
        xchg_sweep_free(sw);
        return xchg_cli_error("out of memory");
    }
    xchg_sweep_rank(sw, m, ord, n);
    char prefix[32];
    if (h->leaders == 1)
        snprintf(prefix, sizeof prefix, "leader:");
    else if (h->leaders == ppn)
        snprintf(prefix, sizeof prefix, "pairs:");
    else
        snprintf(prefix, sizeof prefix, "leaders:%u:", (unsigned)h->leaders);
    rc = -1;
    for (size_t k = 0; k < n && rc; k++) {
        const xchg_plan_entry *e = xchg_sweep_candidate(sw, ord[k]);
        if (e->eligible && strncmp(e->alg, prefix, strlen(prefix)) == 0) {
            snprintf(inner, len, "%s", e->alg + strlen(prefix));
            rc = 0;
        }
    }
    if (rc)
        rc = xchg_cli_error("cost: no algorithm between the nodes may carry %s; accepted: "
                            "%sX with X from 'xchg list --topo' of the node network",
                            spec, prefix);
    free(ord);
    xchg_sweep_free(sw);
    return rc;
}

int xchg_cli_ppn_variant(const xchg_topo *t, uint32_t ppn, const xchg_machine *mach, double m,
                         int barrier, const char *spec, xchg_hier *h, char *inner, size_t len)
{
    xchg_err err = {{0}};
    int hr = xchg_hier_parse(spec, ppn, h, &err);
    if (hr < 0)
        return xchg_cli_error("bad --alg: %s", err.msg);
    if (hr == 0)
        return 1;
    snprintf(inner, len, "%s", h->inner);
    if (!h->aggregate && strcmp(inner, "auto") == 0)
        return resolve_auto(t, ppn, mach, m, barrier, spec, h, inner, len);
    return 0;
}

/* The line of spec on t with ppn a node into *l and what it is in words;
 * 0 or an exit status after printing. */
static int ppn_line(const xchg_topo *t, uint32_t ppn, const xchg_machine *mach, double m,
                    int barrier, const char *spec, xchg_line *l, char *what, size_t len)
{
    xchg_hier h;
    xchg_err err = {{0}};
    int hr = xchg_hier_parse(spec, ppn, &h, &err);
    if (hr < 0)
        return xchg_cli_error("bad --alg: %s", err.msg);
    int rc;
    char tspec[64];
    xchg_topo_spec(t, tspec, sizeof tspec);
    if (hr == 0) {
        /* flat: every rank a node of complete:p, K of them on each network node */
        char rspec[40];
        snprintf(rspec, sizeof rspec, "complete:%llu", (unsigned long long)t->nodes * ppn);
        xchg_topo r;
        if ((rc = xchg_topo_parse(rspec, &r, &err)))
            return xchg_cli_lib_error(rc, "cost", &err);
        xchg_sched *s = NULL;
        if ((rc = xchg_cli_generate(&r, spec, &s)))
            return rc;
        xchg_line_opts lo = {.with_barrier = barrier};
        rc = xchg_flat_line(s, t, ppn, mach, &lo, l, &err);
        xchg_sched_free(s);
        if (rc)
            return xchg_cli_lib_error(rc, "cost", &err);
        snprintf(what, len, "flat: %s on %s, %u ranks on each node of %s", spec, rspec,
                 (unsigned)ppn, tspec);
        return 0;
    }
    if (h.aggregate) {
        xchg_line_opts lo = {.with_barrier = barrier};
        if ((rc = xchg_aggregate_line(t, ppn, mach, &lo, l, &err)))
            return xchg_cli_lib_error(rc, "cost", &err);
        uint32_t O = (uint32_t)((t->nodes + ppn - 1) / ppn);
        snprintf(what, len,
                 "every rank owns up to %u node%s: between nodes directly on %.40s with "
                 "blocks of %llu*m, an exchange within the node before and after",
                 (unsigned)O, O == 1 ? "" : "s", tspec, (unsigned long long)ppn * ppn);
        return 0;
    }
    char inner[XCHG_SPEC_MAX];
    snprintf(inner, sizeof inner, "%s", h.inner);
    if (strcmp(inner, "auto") == 0 &&
        (rc = resolve_auto(t, ppn, mach, m, barrier, spec, &h, inner, sizeof inner)))
        return rc;
    xchg_sched *s = NULL;
    if ((rc = xchg_cli_generate(t, inner, &s)))
        return rc;
    xchg_line il;
    xchg_line_opts lo = {.with_barrier = barrier};
    rc = xchg_cost_line(s, mach, &lo, &il, &err);
    xchg_sched_free(s);
    if (!rc)
        rc = xchg_hier_line(&il, t, ppn, h.leaders, mach, barrier, l, &err);
    if (rc)
        return xchg_cli_lib_error(rc, "cost", &err);
    uint32_t G = ppn / h.leaders;
    char lead[40];
    if (h.leaders == 1)
        snprintf(lead, sizeof lead, "one leader a node");
    else if (h.leaders == ppn)
        snprintf(lead, sizeof lead, "every rank a leader");
    else
        snprintf(lead, sizeof lead, "%u leaders a node (groups of %u)", (unsigned)h.leaders,
                 (unsigned)G);
    snprintf(what, len, "%.40s, between nodes %.60s%s on %.40s with blocks of %llu*m", lead, inner,
             strcmp(h.inner, "auto") == 0 ? " (auto)" : "", tspec,
             (unsigned long long)G * ppn);
    return 0;
}

int xchg_cli_cost_ppn(xchg_cli_opt *opts, const xchg_topo *t, uint32_t ppn,
                      const xchg_machine *mach, double m, int barrier)
{
    const char *spec = xchg_cli_val(opts, "alg");
    if (!spec || xchg_cli_has(opts, "schedule"))
        return xchg_cli_error("cost --ppn needs --alg (a flat algorithm, or leader:X, "
                              "leaders:L:X, pairs:X, aggregate); a --schedule file is one "
                              "network's");
    xchg_line l;
    char what[240];
    int rc = ppn_line(t, ppn, mach, m, barrier, spec, &l, what, sizeof what);
    if (rc)
        return rc;
    char tspec[64];
    xchg_topo_spec(t, tspec, sizeof tspec);
    double time = xchg_line_time(&l, m);
    uint64_t p = (uint64_t)t->nodes * ppn;
    if (xchg_cli_has(opts, "json")) {
        fputs("{\"topology\":", stdout);
        xchg_tool_json_str(stdout, tspec);
        printf(",\"ppn\":%u,\"ranks\":%llu,\"algorithm\":", (unsigned)ppn,
               (unsigned long long)p);
        xchg_tool_json_str(stdout, spec);
        fputs(",\"what\":", stdout);
        xchg_tool_json_str(stdout, what);
        fputs(",\"m\":", stdout);
        xchg_cli_json_size(stdout, m);
        fputs(",\"steps\":", stdout);
        xchg_cli_json_u64(stdout, l.steps);
        fputs(",\"startups\":", stdout);
        xchg_cli_json_u64(stdout, l.startups);
        fputs(",\"volume_blocks\":", stdout);
        xchg_cli_json_u64(stdout, l.volume_blocks);
        fputs(",\"link_volume_blocks\":", stdout);
        xchg_cli_json_u64(stdout, l.link_volume_blocks);
        fputs(",\"copy_blocks\":", stdout);
        xchg_cli_json_u64(stdout, l.copy_blocks);
        fputs(",\"node_startups\":", stdout);
        xchg_cli_json_u64(stdout, l.node_startups);
        fputs(",\"node_volume_blocks\":", stdout);
        xchg_cli_json_u64(stdout, l.node_volume_blocks);
        fputs(",\"fixed\":", stdout);
        xchg_cli_json_num(stdout, l.fixed);
        fputs(",\"per_unit\":", stdout);
        xchg_cli_json_num(stdout, l.per_unit);
        fputs(",\"time\":", stdout);
        xchg_cli_json_num(stdout, time);
        fputs("}\n", stdout);
        return XCHG_CLI_OK;
    }
    const char *tu = mach->units;
    char sz[40];
    printf("topology      %s nodes of %u ranks (%llu ranks)\n", tspec, (unsigned)ppn,
           (unsigned long long)p);
    printf("algorithm     %s: %s\n", spec, what);
    printf("machine       %s: ts = %g, tw = %g, tr = %g, ts_node = %g, tw_node = %g (%s)%s\n",
           mach->name, mach->ts, mach->tw, mach->tr, mach->ts_node, mach->tw_node, tu,
           barrier ? ", a barrier per start-up between nodes" : "");
    printf("block size    m = %s %s\n", xchg_cli_size(m, sz, sizeof sz),
           strcmp(tu, "t_c") == 0 ? "flits" : "B");
    printf("steps         %llu\n", (unsigned long long)l.steps);
    printf("between nodes %llu start-ups, volume %llu blocks through the busiest port, link "
           "volume %llu (%s)\n",
           (unsigned long long)l.startups, (unsigned long long)l.volume_blocks,
           (unsigned long long)l.link_volume_blocks, xchg_cli_link_source(l.link_source));
    printf("within nodes  %llu start-ups, volume %llu blocks\n",
           (unsigned long long)l.node_startups, (unsigned long long)l.node_volume_blocks);
    printf("copies        %llu blocks (the busiest rank's)\n", (unsigned long long)l.copy_blocks);
    printf("time          %.6g %s = %.6g + %.6g*m: start-ups*ts + node_start-ups*ts_node + "
           "(link_volume*tw + copies*tr + node_volume*tw_node)*m\n",
           time, tu, l.fixed, l.per_unit);
    return XCHG_CLI_OK;
}
