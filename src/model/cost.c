/*
 * cost.c - the cost model: machine presets, the one time line of a schedule
 * (xchg_cost_line, xchg_line_time), the cost from declared message sizes
 * (xchg_cost_compute), and lower bounds on any complete exchange.
 *
 * Model (DESIGN.md "Cost model"; Bokhari, section 4): a step costs one
 * start-up t_s when anybody sends, plus its load times m*t_w; local
 * rearrangement costs t_r per byte copied; an execution mode that
 * synchronises adds one barrier per start-up. So every schedule's time is
 * a line in the block size m:
 *   time(m) = fixed + per_unit*m,  fixed = startups*ts (+ startups*barrier),
 *   per_unit = link_volume*tw + copies*tr,
 * where the link volume is the sum over steps of the busiest directed
 * link's load in blocks (docs/cost-model.md, "The time line"). For a
 * schedule that claims to be contention-free it equals the volume (the sum
 * over steps of the largest message), read from the declared sizes in
 * O(steps); for any other it is measured by xchg_verify's message-level
 * check. xchg_cost_compute is the fast O(steps) form that always takes the
 * volume (it does not see contention).
 *
 * Presets: Bokhari (Paragon, SP2, CS-2), Table 1, messages under 8000
 * bytes. Barrier times there are linear in d for 2^d processors; for other
 * node counts we take d = ceil(log2 nodes) and never go below zero.
 *
 * Lower bounds, each named with the model it assumes (docs/cost-model.md):
 *   start-ups  >= ceil(log2 p)  one-port: the holders of a node's data at
 *                               most double each step;
 *   injection  >= p-1 blocks    every node injects p-1 blocks through its
 *                               one port, at most one message per step;
 *   bisection  >= |A|*|B| / L   the blocks from side A to side B of a cut
 *                               over the L directed links crossing A -> B,
 *                               rounded up; for a torus cut across an even
 *                               largest dimension N1 this is N1*p/8 blocks,
 *                               Liu et al., Lemma 1.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/util.h"
#include "model/model_internal.h"
#include "xchg_model.h"

/* One row of Bokhari, Table 1. Barrier on 2^d processors = bar_a*d - bar_b. */
typedef struct preset {
    const char *name;
    double ts, tw, tr;
    double bar_a, bar_b;
} preset;

static const preset presets[] = {
    {"paragon", 75.0, 0.011, 0.0140, 126.0, 113.0},
    {"sp2", 70.0, 0.043, 0.0043, 72.0, 52.0},
    {"cs2", 105.0, 0.025, 0.0153, 17.0, 5.6},
};

#define NPRESETS (sizeof presets / sizeof presets[0])

size_t xchg_machine_preset_count(void)
{
    return NPRESETS;
}

const char *xchg_machine_preset_name(size_t i)
{
    return i < NPRESETS ? presets[i].name : NULL;
}

/* ceil(log2 n) for n >= 1; 0 for n <= 1. */
static uint64_t ceil_log2(uint64_t n)
{
    uint64_t d = 0;
    while (d < 64 && (UINT64_C(1) << d) < n)
        d++;
    return d;
}

/*
 * Suh et al.'s model as a machine: ts = a = t_s/t_c in units of t_c, tw = 1
 * per flit, no copy cost, no barrier. Returns 0, or XCHG_EINVAL when out is
 * NULL or a is negative or not finite; out is untouched on failure.
 */
int xchg_machine_ratio(double a, xchg_machine *out, xchg_err *err)
{
    if (!out || !isfinite(a) || a < 0)
        return xchg_fail(err, XCHG_EINVAL,
                         "bad a = t_s/t_c: want a finite number >= 0 (Suh et al. use 5000 "
                         "and 10000)");
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "a=%.6g", a);
    out->ts = a;
    out->tw = 1.0;
    snprintf(out->units, sizeof out->units, "t_c");
    xchg_machine_node_defaults(out);
    return XCHG_OK;
}

/* The intra-node figures where nothing is measured (xchg_model.h says
 * why): a message within a node starts up as one between nodes, and its
 * bytes cost one local copy. */
void xchg_machine_node_defaults(xchg_machine *m)
{
    if (!m)
        return;
    m->ts_node = m->ts;
    m->tw_node = m->tr;
}

/*
 * Fill out with the preset called name, its barrier evaluated for `nodes`
 * processors (d = ceil(log2 nodes), clamped at 0 so one node has no barrier
 * cost). Returns 0, or XCHG_EINVAL listing the presets when name is unknown
 * or NULL; out is untouched on failure.
 */
int xchg_machine_preset(const char *name, uint32_t nodes, xchg_machine *out, xchg_err *err)
{
    if (!out)
        return xchg_fail(err, XCHG_EINVAL, "xchg_machine_preset: out is NULL");
    for (size_t i = 0; name && i < NPRESETS; i++) {
        if (strcmp(name, presets[i].name) != 0)
            continue;
        const preset *pr = &presets[i];
        xchg_machine m;
        memset(&m, 0, sizeof m);
        snprintf(m.name, sizeof m.name, "%s", pr->name);
        m.ts = pr->ts;
        m.tw = pr->tw;
        m.tr = pr->tr;
        double d = (double)ceil_log2(nodes);
        double bar = pr->bar_a * d - pr->bar_b;
        m.barrier = bar > 0.0 ? bar : 0.0;
        snprintf(m.units, sizeof m.units, "us");
        xchg_machine_node_defaults(&m);
        *out = m;
        return XCHG_OK;
    }
    char list[128] = "";
    size_t used = 0;
    for (size_t i = 0; i < NPRESETS; i++) {
        int n = snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "",
                         presets[i].name);
        if (n < 0 || (size_t)n >= sizeof list - used)
            break;
        used += (size_t)n;
    }
    return xchg_fail(err, XCHG_EINVAL,
                     "unknown machine preset '%s'; accepted: %s (Bokhari, Table 1)",
                     name ? name : "(null)", list);
}

/* Divide rounding up; den > 0. */
static uint64_t div_up(uint64_t num, uint64_t den)
{
    return num / den + (num % den != 0);
}

/*
 * Bisection bound in blocks for topology t, and its name in name[len].
 * For every dimension k of size n, cut it into a lower part of floor(n/2)
 * and an upper part of ceil(n/2) coordinates; each side holds that many
 * "slices" of lines = p/n nodes, so |A| = floor(n/2)*lines and
 * |B| = ceil(n/2)*lines, and |A|*|B| blocks must go from A to B. The
 * directed links A -> B: one per line on a mesh/array or a size-2 wrapped
 * dimension (both neighbours are the same node: one link), two per line on
 * a wrapped dimension of size >= 3 (the cut and the wrap-around). Keep the
 * largest bound over the dimensions (ties go to the larger dimension, the
 * cut Liu et al. name). Returns 0 with an empty name when there is no bound.
 */
static uint64_t bisection_blocks(const xchg_topo *t, char *name, size_t len)
{
    name[0] = '\0';
    if (t->nodes < 2 || t->kind == XCHG_TOPO_COMPLETE)
        return 0;
    if (t->kind == XCHG_TOPO_HYPERCUBE) {
        /* p/2 nodes a side, p/2 links each way: (p/2)^2 / (p/2). */
        snprintf(name, len, "hypercube bisection");
        return t->nodes / 2;
    }
    if (t->kind == XCHG_TOPO_TREE) {
        /* p/2 leaves below each child of the root, and one edge each way
         * between them and the rest: (p/2)^2 blocks through it. */
        snprintf(name, len, "tree bisection (one edge below the root)");
        return (uint64_t)(t->nodes / 2) * (t->nodes / 2);
    }
    int wraps = t->kind == XCHG_TOPO_RING || t->kind == XCHG_TOPO_TORUS;
    uint64_t best = 0;
    uint32_t best_n = 0;
    for (int k = 0; k < t->ndims; k++) {
        uint64_t n = t->size[k];
        if (n < 2)
            continue;
        uint64_t lines = t->nodes / n;
        uint64_t lo = n / 2, hi = n - n / 2;
        /* |A|*|B| / links = lo*hi*lines^2 / (per_line*lines). */
        uint64_t per_line = (wraps && n > 2) ? 2 : 1;
        uint64_t b = div_up(lo * hi * lines, per_line);
        if (b > best || (b == best && n > best_n)) {
            best = b;
            best_n = (uint32_t)n;
        }
    }
    if (best == 0)
        return 0;
    const char *kind = xchg_topo_kind_name(t->kind);
    if (!wraps)
        snprintf(name, len, "%s bisection", kind);
    else if (best_n == 2)
        snprintf(name, len, "%s bisection (size-2 dimension)", kind);
    else if (best_n % 2 == 0)
        snprintf(name, len, "%s bisection (Liu et al., Lemma 1)", kind);
    else
        snprintf(name, len, "%s bisection (Liu et al., Lemma 1, odd N1)", kind);
    return best;
}

/*
 * Fill the lb_* fields of out for topology t: start-ups ceil(log2 p),
 * injection p-1 blocks, the bisection bound and its name, and
 * lb_time = lb_startups*ts + max(injection, bisection)*m*tw with the name
 * of the volume bound that binds. mach may be NULL (lb_time is then 0).
 * Never fails (does nothing when t or out is NULL); the other fields of
 * out are left alone.
 */
void xchg_cost_lower_bounds(const xchg_topo *t, const xchg_machine *mach, double m,
                            xchg_cost *out)
{
    xchg_op all = {XCHG_OP_ALLTOALL, 0, 0, 0};
    xchg_cost_op_lower_bounds(t, &all, mach, m, out);
}

/*
 * The bounds of the other operations (docs/operations.md), in blocks of
 * the operation's m, with one port a node:
 *   start-ups  ceil(log2 p): the nodes that know a datum (or hold a
 *              partial result) at most double a step; a shift needs 1;
 *   injection  p-1 where one node sends or receives p-1 distinct blocks
 *              (scatter, gather) or every node receives p-1 (allgather,
 *              reduce_scatter: each of the p-1 others' data or
 *              contributions, combined at most per dest); 1 for the
 *              others;
 *   bisection  the complete exchange's only; none is claimed for the
 *              others.
 */
void xchg_cost_op_lower_bounds(const xchg_topo *t, const xchg_op *op,
                               const xchg_machine *mach, double m, xchg_cost *out)
{
    if (!t || !out || !op)
        return;
    uint64_t p = t->nodes;
    int all = op->kind == XCHG_OP_ALLTOALL;
    int spread = all || op->kind == XCHG_OP_SCATTER || op->kind == XCHG_OP_GATHER ||
                 op->kind == XCHG_OP_ALLGATHER || op->kind == XCHG_OP_REDUCE_SCATTER;
    out->lb_startups = op->kind == XCHG_OP_SHIFT ? (p > 1) : ceil_log2(p);
    out->lb_injection_blocks = p < 2 ? 0 : spread ? p - 1 : 1;
    out->lb_bisection_name[0] = '\0';
    out->lb_bisection_blocks =
        all ? bisection_blocks(t, out->lb_bisection_name, sizeof out->lb_bisection_name) : 0;
    uint64_t vol = out->lb_injection_blocks;
    if (out->lb_bisection_blocks > out->lb_injection_blocks) {
        vol = out->lb_bisection_blocks;
        snprintf(out->lb_binding, sizeof out->lb_binding, "%s", out->lb_bisection_name);
    } else {
        snprintf(out->lb_binding, sizeof out->lb_binding, "injection");
    }
    out->lb_time = mach ? (double)out->lb_startups * mach->ts + (double)vol * m * mach->tw
                        : 0.0;
}

/* True when x is a finite number >= 0. */
static int nonneg(double x)
{
    return isfinite(x) && x >= 0.0;
}

int xchg_model_check_machine(const xchg_machine *mach, xchg_err *err)
{
    if (!nonneg(mach->ts) || !nonneg(mach->tw) || !nonneg(mach->tr) ||
        !nonneg(mach->barrier) || !nonneg(mach->ts_node) || !nonneg(mach->tw_node))
        return xchg_fail(err, XCHG_EINVAL,
                         "machine '%s' has ts=%g tw=%g tr=%g barrier=%g ts_node=%g "
                         "tw_node=%g; each must be a finite number >= 0",
                         mach->name, mach->ts, mach->tw, mach->tr, mach->barrier,
                         mach->ts_node, mach->tw_node);
    return XCHG_OK;
}

/*
 * Counts of s from its declared sizes into l (steps, start-ups, volume,
 * copies), with the link volume taken as the volume and the line's fixed
 * and per_unit for that volume. O(steps); never fails.
 */
static void declared_line(const xchg_sched *s, const xchg_machine *mach, int with_barrier,
                          xchg_line *l)
{
    memset(l, 0, sizeof *l);
    size_t n = xchg_sched_nsteps(s);
    l->steps = n;
    for (size_t i = 0; i < n; i++) {
        uint64_t mb = xchg_sched_step_max_blocks(s, i);
        l->startups += mb > 0;
        l->volume_blocks += mb;
        l->copy_blocks += xchg_sched_copy_blocks(s, i);
    }
    l->link_volume_blocks = l->volume_blocks;
    l->link_source = XCHG_LINK_CLAIMED;
    l->fixed = (double)l->startups * mach->ts;
    if (with_barrier)
        l->fixed += (double)l->startups * mach->barrier;
    l->per_unit = (double)l->link_volume_blocks * mach->tw + (double)l->copy_blocks * mach->tr;
    xchg_op op;
    xchg_sched_op(s, &op);
    l->pieces = op.pieces > 1 ? op.pieces : 1;
    l->per_unit /= l->pieces;
}

/* Charge the link volume of rep to l (its per_unit follows). */
static void charge_report(const xchg_verify_report *rep, const xchg_machine *mach, xchg_line *l)
{
    l->link_volume_blocks = rep->link_volume_blocks;
    l->link_conflicts = rep->link_conflicts;
    l->check_failures = rep->failures;
    l->link_source = XCHG_LINK_MEASURED;
    l->per_unit = ((double)l->link_volume_blocks * mach->tw + (double)l->copy_blocks * mach->tr) /
                  (l->pieces ? l->pieces : 1);
}

double xchg_line_time(const xchg_line *l, double m)
{
    return l ? l->fixed + l->per_unit * m : 0.0;
}

/*
 * The time line of s on mach (see xchg_model.h): declared counts, then the link
 * volume from opts->report, from the contention-free claim, or measured by
 * a message-level xchg_verify run (ETOOBIG leaves it UNMEASURED). Returns
 * 0, EINVAL on bad arguments, ENOMEM or the verifier's other codes; out is
 * untouched on failure. Owns nothing it returns.
 */
int xchg_cost_line(const xchg_sched *s, const xchg_machine *mach, const xchg_line_opts *opts,
                   xchg_line *out, xchg_err *err)
{
    if (!s || !mach || !out)
        return xchg_fail(err, XCHG_EINVAL, "xchg_cost_line: schedule, machine and result "
                                           "must not be NULL");
    int rc = xchg_model_check_machine(mach, err);
    if (rc)
        return rc;
    xchg_line_opts o = opts ? *opts : (xchg_line_opts){0};
    if (o.report && o.report->steps != xchg_sched_nsteps(s))
        return xchg_fail(err, XCHG_EINVAL,
                         "xchg_cost_line: the report has %zu steps but the schedule %zu; "
                         "accepted: a report xchg_verify made on this schedule",
                         o.report->steps, xchg_sched_nsteps(s));
    xchg_line l;
    declared_line(s, mach, o.with_barrier, &l);
    if (o.report) {
        charge_report(o.report, mach, &l);
    } else if (!xchg_sched_contention_free(s) && xchg_topo_has_links(xchg_sched_topo(s))) {
        /* Contention is possible: measure it, following no block. */
        xchg_verify_opts vo = {.threads = o.threads,
                               .max_work = o.max_work,
                               .messages_only = 1,
                               .max_bytes = o.max_bytes,
                               .progress = o.progress,
                               .progress_ctx = o.progress_ctx};
        xchg_verify_report rep;
        xchg_err verr = {{0}};
        rc = xchg_verify(s, &vo, &rep, &verr);
        if (rc == XCHG_OK) {
            charge_report(&rep, mach, &l);
        } else if (rc == XCHG_ETOOBIG) {
            l.link_source = XCHG_LINK_UNMEASURED;
        } else {
            return xchg_fail(err, rc, "measuring the link volume of %s: %s",
                             xchg_sched_algorithm(s), verr.msg);
        }
    }
    *out = l;
    return XCHG_OK;
}

/*
 * Cost of schedule s on machine mach with blocks of m bytes: counts from the
 * declared sizes (no block is followed), time from the same line as
 * xchg_cost_line with the link volume taken as the volume, and the lower
 * bounds. with_barrier adds mach->barrier per start-up. Returns 0, or
 * XCHG_EINVAL when s, mach or out is NULL, m is negative or not finite, or
 * a machine parameter is negative or not finite; out is untouched on
 * failure.
 */
int xchg_cost_compute(const xchg_sched *s, const xchg_machine *mach, double m,
                      int with_barrier, xchg_cost *out, xchg_err *err)
{
    if (!s || !mach || !out)
        return xchg_fail(err, XCHG_EINVAL, "xchg_cost_compute: schedule, machine and "
                                           "result must not be NULL");
    if (!nonneg(m))
        return xchg_fail(err, XCHG_EINVAL,
                         "block size m = %g is not accepted: it must be a finite number >= 0",
                         m);
    int rc = xchg_model_check_machine(mach, err);
    if (rc)
        return rc;
    xchg_line l;
    declared_line(s, mach, with_barrier, &l);
    xchg_cost c;
    memset(&c, 0, sizeof c);
    c.steps = l.steps;
    c.startups = l.startups;
    c.volume_blocks = l.volume_blocks;
    c.copy_blocks = l.copy_blocks;
    c.time = xchg_line_time(&l, m);
    xchg_op op;
    xchg_sched_op(s, &op);
    xchg_cost_op_lower_bounds(xchg_sched_topo(s), &op, mach, m, &c);
    *out = c;
    return XCHG_OK;
}
