/*
 * planner.c - the planner: which algorithm is fastest on a topology and a
 * machine, for one block size (xchg_plan) or over a range of them
 * (xchg_plan_sweep: the winner at each size of a doubling sweep and the
 * exact crossovers on the lower envelope). The CLI's `plan` and `compare`
 * and the MPI executor's `auto` mode all ask this file, so they name the
 * same winners.
 *
 * Candidates: every registry entry (or those named in `only`) with each of
 * the specs xchg_alg_variants gives, in registry order; the planner keeps
 * no list of algorithms of its own. Each is generated, optionally verified
 * block by block, and given its time line by xchg_cost_line (the one line
 * of the cost model: it charges the link volume, docs/cost-model.md).
 *
 * Who may win: a candidate that was generated, did not fail a check, and
 * whose link volume is known (claimed contention-free, or measured). The
 * winner at m is the eligible candidate of least time; ties go to the
 * smaller per_unit (the line that stays ahead for larger blocks), then to
 * the earlier candidate. The envelope walk uses the same rule, so a
 * crossover's `to` is the winner just above its m.
 *
 * With a count matrix (opts->counts; docs/alltoallv.md) the blocks differ
 * in size and a time is no longer a line in m: each candidate is also
 * priced on the counts (xchg_cost_vcounts, its link time, which charges
 * the busiest link as the line does), one size only, and the winner is the
 * eligible candidate of least such time (ties: the earlier one).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "model/model_internal.h"

struct xchg_sweep {
    xchg_plan_entry *cand;   /* candidates, registry order */
    size_t ncand, cap;
    char *na;                /* names that do not apply, ", "-separated */
    size_t na_len, na_cap;
    double *sizes;           /* lo, 2*lo, ... <= hi */
    size_t *winners;         /* per size: index into cand or XCHG_NO_WINNER */
    size_t nsizes;
    xchg_crossover *cross;   /* at most ncand - 1 */
    size_t ncross;
};

void xchg_sweep_free(xchg_sweep *sw)
{
    if (!sw)
        return;
    free(sw->cand);
    free(sw->na);
    free(sw->sizes);
    free(sw->winners);
    free(sw->cross);
    free(sw);
}

/* Nonzero when candidate i beats candidate j at m (the tie rule above). */
static int beats(const xchg_plan_entry *c, size_t i, size_t j, double m)
{
    if (c[i].has_vcost && c[j].has_vcost) { /* priced on counts: m is not read */
        if (c[i].vcost.link_time != c[j].vcost.link_time)
            return c[i].vcost.link_time < c[j].vcost.link_time;
        return i < j;
    }
    double ti = xchg_line_time(&c[i].line, m), tj = xchg_line_time(&c[j].line, m);
    if (ti != tj)
        return ti < tj;
    if (c[i].line.per_unit != c[j].line.per_unit)
        return c[i].line.per_unit < c[j].line.per_unit;
    return i < j;
}

/* Index of the winner among the n candidates at m, or XCHG_NO_WINNER. */
static size_t best_of(const xchg_plan_entry *c, size_t n, double m)
{
    size_t best = XCHG_NO_WINNER;
    for (size_t i = 0; i < n; i++)
        if (c[i].eligible && (best == XCHG_NO_WINNER || beats(c, i, best, m)))
            best = i;
    return best;
}

/*
 * Walk the lower envelope of the eligible lines from lo to hi: from the
 * winner at lo, the next winner is the line of smaller slope that crosses
 * the current one first (ties: the smaller slope, then the earlier
 * candidate, as in beats()). Slopes strictly decrease along the walk, so
 * there are fewer crossovers than candidates; writes them to out (room for
 * n) and returns how many.
 */
static size_t envelope(const xchg_plan_entry *c, size_t n, double lo, double hi,
                       xchg_crossover *out)
{
    size_t cur = best_of(c, n, lo), k = 0;
    double at = lo;
    while (cur != XCHG_NO_WINNER && k < n) {
        size_t next = XCHG_NO_WINNER;
        double nx = 0;
        const xchg_line *lc = &c[cur].line;
        for (size_t j = 0; j < n; j++) {
            const xchg_line *lj = &c[j].line;
            if (!c[j].eligible || j == cur || !(lj->per_unit < lc->per_unit))
                continue;
            double x = (lj->fixed - lc->fixed) / (lc->per_unit - lj->per_unit);
            if (!(x > at) || x > hi)
                continue; /* crosses before (rounding) or beyond the range */
            if (next == XCHG_NO_WINNER || x < nx ||
                (x == nx && lj->per_unit < c[next].line.per_unit)) {
                next = j;
                nx = x;
            }
        }
        if (next == XCHG_NO_WINNER)
            break;
        out[k].from = cur;
        out[k].to = next;
        out[k].m = nx;
        k++;
        cur = next;
        at = nx;
    }
    return k;
}

/* Append an empty candidate to sw; NULL when out of memory. */
static xchg_plan_entry *add_candidate(xchg_sweep *sw)
{
    if (sw->ncand == sw->cap) {
        size_t cap = sw->cap ? 2 * sw->cap : 32;
        xchg_plan_entry *v = realloc(sw->cand, cap * sizeof *v);
        if (!v)
            return NULL;
        sw->cand = v;
        sw->cap = cap;
    }
    xchg_plan_entry *e = &sw->cand[sw->ncand++];
    memset(e, 0, sizeof *e);
    return e;
}

/* Append name to the not-applicable list; XCHG_ENOMEM or 0. */
static int add_na(xchg_sweep *sw, const char *name)
{
    size_t need = sw->na_len + strlen(name) + 3;
    if (need > sw->na_cap) {
        size_t cap = need * 2;
        char *v = realloc(sw->na, cap);
        if (!v)
            return XCHG_ENOMEM;
        sw->na = v;
        sw->na_cap = cap;
    }
    sw->na_len += (size_t)sprintf(sw->na + sw->na_len, "%s%s", sw->na_len ? ", " : "", name);
    return XCHG_OK;
}

/* One candidate's share of the planner's progress: the caller's hook sees
 * base + share * (the candidate's own fraction done). */
typedef struct share {
    const xchg_plan_opts *opts;
    double base, share;
} share;

static void share_progress(void *ctx, double done)
{
    const share *sh = ctx;
    sh->opts->progress(sh->opts->progress_ctx, sh->base + sh->share * done);
}

/* What a candidate's check may use: its memory (the limit less the
 * schedule's estimate) and the shared progress. */
typedef struct budget {
    uint64_t check_bytes;
    share sh;
} budget;

/*
 * Verify s block by block (message by message when there are too many
 * blocks) as opts says, filling e->check, e->failures and e->why; *rep gets
 * the report and *have is set when a run completed. Returns 0, or
 * XCHG_ENOMEM (the only code that stops the planner).
 */
static int verify_candidate(const xchg_sched *s, const xchg_plan_opts *opts,
                            const budget *bu, xchg_plan_entry *e, xchg_verify_report *rep,
                            int *have)
{
    xchg_verify_opts vo = {.threads = opts->threads,
                           .max_work = opts->max_work,
                           .max_bytes = bu->check_bytes,
                           .progress = opts->progress ? share_progress : NULL,
                           .progress_ctx = (void *)&bu->sh};
    xchg_err verr = {{0}};
    *have = 0;
    int rc = xchg_verify(s, &vo, rep, &verr);
    if (rc == XCHG_ETOOBIG) {
        /* too many blocks to follow: still check every message's route,
         * ports and links, so contention is measured, not assumed away */
        vo.messages_only = 1;
        rc = xchg_verify(s, &vo, rep, &verr);
    }
    if (rc == XCHG_ENOMEM)
        return rc;
    if (rc == XCHG_ETOOBIG) {
        e->check = XCHG_CHECK_TOOBIG;
    } else if (rc) {
        e->check = XCHG_CHECK_ERROR;
        snprintf(e->why, sizeof e->why, "verify failed to run: %.170s", verr.msg);
    } else {
        *have = 1;
        e->failures = rep->failures;
        e->check = !rep->ok             ? XCHG_CHECK_FAILED
                   : rep->messages_only ? XCHG_CHECK_MESSAGES
                                        : XCHG_CHECK_BLOCKS;
        if (!rep->ok)
            snprintf(e->why, sizeof e->why, "%.159s",
                     rep->reported > 0 ? rep->msgs[0] : "verification failed");
    }
    return XCHG_OK;
}

/*
 * Nonzero when spec's schedule on t would take more than the memory limit
 * (its estimate; nothing is built): e is then marked skipped, with the
 * estimate and the limit in why. Otherwise sets bu->check_bytes to what is
 * left for the check, and returns 0.
 */
static int over_budget(const xchg_topo *t, const char *spec, const xchg_plan_opts *opts,
                       budget *bu, xchg_plan_entry *e)
{
    uint64_t limit = opts->max_bytes ? opts->max_bytes : XCHG_DEFAULT_MAX_BYTES;
    uint64_t max_work = opts->max_build_work ? opts->max_build_work
                                             : XCHG_VERIFY_DEFAULT_MAX_WORK;
    xchg_estimate est;
    if (xchg_estimate_spec(t, spec, &est, NULL) != XCHG_OK)
        return 0; /* generating will say why */
    char a[32], b[32];
    if (est.bytes >= limit) {
        e->check = XCHG_CHECK_SKIPPED;
        snprintf(e->why, sizeof e->why,
                 "skipped: its schedule would take about %s (%llu steps), over the memory "
                 "limit of %s",
                 xchg_bytes_text(est.bytes, a, sizeof a), (unsigned long long)est.steps,
                 xchg_bytes_text(limit, b, sizeof b));
        return 1;
    }
    if (est.work > max_work) {
        e->check = XCHG_CHECK_SKIPPED;
        snprintf(e->why, sizeof e->why,
                 "skipped: building it would take about %.3g operations (%llu steps), over "
                 "the work limit of %.3g",
                 (double)est.work, (unsigned long long)est.steps, (double)max_work);
        return 1;
    }
    bu->check_bytes = limit - est.bytes;
    return 0;
}

/*
 * Generate spec on t, check it as opts says and give it its line; fills
 * e. A candidate that cannot be generated or costed is kept, with check
 * XCHG_CHECK_ERROR and the reason in why. Returns 0, or XCHG_ENOMEM with a
 * message in err.
 */
static int cost_candidate(const xchg_topo *t, const xchg_machine *mach, const char *spec,
                          const xchg_plan_opts *opts, budget *bu, xchg_plan_entry *e,
                          xchg_err *err)
{
    snprintf(e->alg, sizeof e->alg, "%.*s", (int)sizeof e->alg - 1, spec);
    if (over_budget(t, spec, opts, bu, e))
        return XCHG_OK;
    xchg_sched *s = NULL;
    xchg_err gerr = {{0}};
    int rc = xchg_generate(t, spec, &s, &gerr);
    if (rc == XCHG_ENOMEM)
        return xchg_fail(err, rc, "planner: out of memory generating %s", spec);
    if (rc) {
        e->check = XCHG_CHECK_ERROR;
        snprintf(e->why, sizeof e->why, "generation failed: %.170s", gerr.msg);
        return XCHG_OK;
    }
    e->contention_free = xchg_sched_contention_free(s);
    xchg_line_opts lo = {.with_barrier = opts->with_barrier,
                         .threads = opts->threads,
                         .max_work = opts->max_work,
                         .max_bytes = bu->check_bytes,
                         .progress = opts->progress ? share_progress : NULL,
                         .progress_ctx = &bu->sh};
    xchg_verify_report rep;
    int have = 0;
    if (opts->verify && (rc = verify_candidate(s, opts, bu, e, &rep, &have))) {
        xchg_sched_free(s);
        return xchg_fail(err, rc, "planner: out of memory verifying %s", spec);
    }
    if (have)
        lo.report = &rep;
    if (e->check != XCHG_CHECK_ERROR) {
        xchg_err cerr = {{0}};
        rc = xchg_cost_line(s, mach, &lo, &e->line, &cerr);
        if (rc == XCHG_ENOMEM) {
            xchg_sched_free(s);
            return xchg_fail(err, rc, "planner: out of memory costing %s", spec);
        }
        if (rc) {
            memset(&e->line, 0, sizeof e->line);
            e->check = XCHG_CHECK_ERROR;
            snprintf(e->why, sizeof e->why, "cost failed: %.180s", cerr.msg);
        }
    }
    uint64_t pp = (uint64_t)t->nodes * t->nodes, nsteps = xchg_sched_nsteps(s);
    uint64_t limit = opts->max_work ? opts->max_work : XCHG_VERIFY_DEFAULT_MAX_WORK;
    if (opts->counts && e->check != XCHG_CHECK_ERROR && nsteps && pp > limit / nsteps) {
        /* pricing the counts follows every block, as the verifier does */
        e->check = XCHG_CHECK_ERROR;
        snprintf(e->why, sizeof e->why,
                 "too large to price on the counts: %llu blocks over %llu steps is over the "
                 "work limit of %.3g block-steps",
                 (unsigned long long)pp, (unsigned long long)nsteps, (double)limit);
    } else if (opts->counts && e->check != XCHG_CHECK_ERROR) {
        xchg_err cerr = {{0}};
        rc = xchg_cost_vcounts(s, mach, opts->counts, opts->with_barrier, &e->vcost, &cerr);
        if (rc == XCHG_ENOMEM) {
            xchg_sched_free(s);
            return xchg_fail(err, rc, "planner: out of memory costing %s on the counts", spec);
        }
        if (rc) {
            e->check = XCHG_CHECK_ERROR;
            snprintf(e->why, sizeof e->why, "cost on the counts failed: %.160s", cerr.msg);
        } else {
            e->has_vcost = 1;
        }
    }
    xchg_sched_free(s);
    if (!opts->verify && e->check != XCHG_CHECK_ERROR) {
        /* What xchg_cost_line checked is all that was checked. */
        switch (e->line.link_source) {
        case XCHG_LINK_MEASURED:
            e->failures = e->line.check_failures;
            e->check = e->failures ? XCHG_CHECK_FAILED : XCHG_CHECK_MESSAGES;
            if (e->failures)
                snprintf(e->why, sizeof e->why,
                         "failed the message-level check (%llu failed checks; see 'xchg "
                         "verify --messages-only')",
                         (unsigned long long)e->failures);
            break;
        case XCHG_LINK_UNMEASURED:
            e->check = XCHG_CHECK_TOOBIG;
            break;
        default:
            e->check = XCHG_CHECK_NONE;
        }
    }
    e->eligible = e->check != XCHG_CHECK_ERROR && e->check != XCHG_CHECK_FAILED &&
                  e->line.link_source != XCHG_LINK_UNMEASURED;
    if (e->check != XCHG_CHECK_ERROR && e->line.link_source == XCHG_LINK_UNMEASURED)
        snprintf(e->why, sizeof e->why,
                 "not contention-free and its link volume is not measured (the "
                 "message-level check is over the work limit)");
    return XCHG_OK;
}

/* Append ", word" (or "word" when first) to buf of len bytes holding *at. */
static void append(char *buf, size_t len, size_t *at, const char *sep, const char *word)
{
    int n = snprintf(buf + *at, len - *at, "%s%s", *at ? sep : "", word);
    if (n > 0)
        *at = *at + (size_t)n < len ? *at + (size_t)n : len - 1;
}

/* ENOTAPPLIC when no candidate applies to t: why each algorithm of `only`
 * (when given) does not, and which algorithms do. */
static int explain_none(const xchg_topo *t, const char *only, xchg_err *err)
{
    char spec[64], why[sizeof err->msg] = "", apply[sizeof err->msg / 2] = "";
    size_t w = 0, a = 0;
    xchg_topo_spec(t, spec, sizeof spec);
    for (size_t i = 0; i < xchg_alg_count(); i++) {
        const xchg_alg *alg = xchg_alg_at(i);
        xchg_spec specs[XCHG_MAX_VARIANTS];
        xchg_err no = {{0}};
        if (xchg_alg_variants(t, alg, specs, XCHG_MAX_VARIANTS, &no) > 0)
            append(apply, sizeof apply, &a, ", ", alg->name);
        else if (only && *only && xchg_alg_in_list(only, alg->name))
            append(why, sizeof why, &w, "; ", no.msg[0] ? no.msg : alg->name);
    }
    if (!only || !*only)
        return xchg_fail(err, XCHG_ENOTAPPLIC,
                         "planner: no algorithm applies to %s; accepted: a topology one of "
                         "'xchg list' accepts",
                         spec);
    int several = strchr(only, ',') != NULL;
    return xchg_fail(err, XCHG_ENOTAPPLIC,
                     "planner: %s%s %s to %s; accepted: an algorithm that does (%s). Why: %s",
                     several ? "none of " : "", only, several ? "applies" : "does not apply",
                     spec, a ? apply : "none", why);
}

/* spec with the operation's root or q of opts appended ("bcast-hc:root=3")
 * where the algorithm takes them and they are not the defaults. */
static void with_params(const char *spec, const xchg_alg *a, const xchg_plan_opts *opts,
                        char *out, size_t len)
{
    int rooted = a->op == XCHG_OP_BCAST || a->op == XCHG_OP_REDUCE ||
                 a->op == XCHG_OP_SCATTER || a->op == XCHG_OP_GATHER;
    if (rooted && opts->root && a->parse && !strchr(spec, ':'))
        snprintf(out, len, "%.40s:root=%u", spec, opts->root);
    else if (a->op == XCHG_OP_SHIFT && opts->shift > 1 && a->parse && !strchr(spec, ':'))
        snprintf(out, len, "%.40s:q=%u", spec, opts->shift);
    else
        snprintf(out, len, "%.60s", spec);
}

/* The operation in words: "the complete exchange", or its name. */
static const char *op_words(xchg_op_kind k)
{
    return k == XCHG_OP_ALLTOALL ? "the complete exchange" : xchg_op_name(k);
}

/* EINVAL when opts->only names an algorithm of another operation than
 * opts->op: planned as that operation it would be costed as something it
 * does not do, and left out silently it would look forgotten. */
static int check_only_op(const xchg_plan_opts *opts, xchg_err *err)
{
    if (!opts->only || !opts->only[0]) /* no list: every algorithm of opts->op */
        return XCHG_OK;
    for (size_t i = 0; i < xchg_alg_count(); i++) {
        const xchg_alg *a = xchg_alg_at(i);
        if (!a || a->op == opts->op || !xchg_alg_in_list(opts->only, a->name))
            continue;
        return xchg_fail(err, XCHG_EINVAL,
                         "planner: %s performs %s, not %s; accepted: an algorithm of %s "
                         "('xchg list --op %s'), or --op %s to plan %s",
                         a->name, xchg_op_name(a->op), op_words(opts->op),
                         op_words(opts->op), xchg_op_name(opts->op), xchg_op_name(a->op),
                         xchg_op_name(a->op));
    }
    return XCHG_OK;
}

/* Fill sw->cand and sw->na for t; 0, or EINVAL/ENOTAPPLIC/ENOMEM in err. */
static int gather(const xchg_topo *t, const xchg_machine *mach, const xchg_plan_opts *opts,
                  xchg_sweep *sw, xchg_err *err)
{
    int rc = xchg_alg_check_list(opts->only, err);
    if (!rc)
        rc = check_only_op(opts, err);
    if (rc)
        return rc;
    xchg_spec specs[XCHG_MAX_VARIANTS];
    size_t total = 0, done = 0;
    for (size_t i = 0; i < xchg_alg_count(); i++) {
        const xchg_alg *a = xchg_alg_at(i);
        if (a && a->op == opts->op && xchg_alg_in_list(opts->only, a->name))
            total += (size_t)xchg_alg_variants(t, a, specs, XCHG_MAX_VARIANTS, NULL);
    }
    for (size_t i = 0; i < xchg_alg_count(); i++) {
        const xchg_alg *a = xchg_alg_at(i);
        if (!a || a->op != opts->op || !xchg_alg_in_list(opts->only, a->name))
            continue;
        int n = xchg_alg_variants(t, a, specs, XCHG_MAX_VARIANTS, NULL);
        if (n == 0 && add_na(sw, a->name))
            return xchg_fail(err, XCHG_ENOMEM, "planner: out of memory");
        for (int k = 0; k < n; k++) {
            xchg_plan_entry *e = add_candidate(sw);
            if (!e)
                return xchg_fail(err, XCHG_ENOMEM, "planner: out of memory");
            budget bu = {0, {opts, (double)done / (double)total, 1.0 / (double)total}};
            char spec[XCHG_SPEC_MAX];
            with_params(specs[k], a, opts, spec, sizeof spec);
            if ((rc = cost_candidate(t, mach, spec, opts, &bu, e, err)))
                return rc;
            done++;
            if (opts->progress)
                opts->progress(opts->progress_ctx, (double)done / (double)total);
        }
    }
    if (sw->ncand == 0)
        return explain_none(t, opts->only, err);
    return XCHG_OK;
}

/* True when x is finite, >= 0 and small enough that times stay finite. */
static int good_size(double x)
{
    return x >= 0 && x <= 1e300;
}

int xchg_plan_sweep(const xchg_topo *t, const xchg_machine *mach, double lo, double hi,
                    const xchg_plan_opts *opts, xchg_sweep **out, xchg_err *err)
{
    if (!t || !mach || !out)
        return xchg_fail(err, XCHG_EINVAL,
                         "xchg_plan_sweep needs a topology, a machine and a result");
    if (!good_size(lo) || !good_size(hi) || lo > hi || (lo == 0 && hi != 0))
        return xchg_fail(err, XCHG_EINVAL,
                         "planner: block sizes [%g, %g] are not accepted: want finite numbers "
                         "with 0 < lo <= hi, or lo = hi >= 0",
                         lo, hi);
    xchg_plan_opts o;
    memset(&o, 0, sizeof o);
    if (opts)
        o = *opts;
    xchg_sweep *sw = calloc(1, sizeof *sw);
    if (!sw)
        return xchg_fail(err, XCHG_ENOMEM, "planner: out of memory");
    if (o.counts && (o.ppn > 1 || o.op != XCHG_OP_ALLTOALL || lo != hi ||
                     xchg_vcounts_nodes(o.counts) != t->nodes)) {
        xchg_sweep_free(sw);
        return xchg_fail(err, XCHG_EINVAL,
                         "planner: counts of %u nodes price the complete exchange on as many "
                         "nodes at one size; accepted: counts of %u nodes with %s, ppn 1 and "
                         "lo = hi (here %s, ppn %u, [%g, %g])",
                         (unsigned)xchg_vcounts_nodes(o.counts), (unsigned)t->nodes,
                         op_words(XCHG_OP_ALLTOALL), xchg_op_name(o.op), (unsigned)o.ppn, lo,
                         hi);
    }
    if (o.ppn > 1 && o.op != XCHG_OP_ALLTOALL) {
        xchg_sweep_free(sw);
        return xchg_fail(err, XCHG_EINVAL,
                         "planner: ranks a node (ppn %u) are modelled for the complete "
                         "exchange only; accepted: ppn 1 with %s",
                         (unsigned)o.ppn, xchg_op_name(o.op));
    }
    int rc = gather(t, mach, &o, sw, err);
    if (rc)
        goto fail;
    if (o.ppn > 1) {
        /* clusters: the candidates on the node network become the inner
         * algorithms of the node-aware variants, beside the flat ones */
        xchg_plan_entry *c = NULL;
        size_t nc = 0;
        if ((rc = xchg_ppn_candidates(t, mach, &o, sw->cand, sw->ncand, &c, &nc, err)))
            goto fail;
        free(sw->cand);
        sw->cand = c;
        sw->ncand = sw->cap = nc;
    }
    size_t n = 1;
    for (double m = lo; m > 0 && m <= hi / 2; m *= 2)
        n++;
    sw->sizes = malloc(n * sizeof *sw->sizes);
    sw->winners = malloc(n * sizeof *sw->winners);
    sw->cross = malloc(sw->ncand * sizeof *sw->cross);
    if (!sw->sizes || !sw->winners || !sw->cross) {
        rc = xchg_fail(err, XCHG_ENOMEM, "planner: out of memory");
        goto fail;
    }
    double m = lo;
    for (size_t k = 0; k < n; k++, m *= 2) {
        sw->sizes[k] = m;
        sw->winners[k] = best_of(sw->cand, sw->ncand, m);
    }
    sw->nsizes = n;
    sw->ncross = envelope(sw->cand, sw->ncand, lo, hi, sw->cross);
    *out = sw;
    return XCHG_OK;
fail:
    xchg_sweep_free(sw);
    return rc;
}

size_t xchg_sweep_ncandidates(const xchg_sweep *sw)
{
    return sw ? sw->ncand : 0;
}

const xchg_plan_entry *xchg_sweep_candidate(const xchg_sweep *sw, size_t i)
{
    return sw && i < sw->ncand ? &sw->cand[i] : NULL;
}

const char *xchg_sweep_not_applicable(const xchg_sweep *sw)
{
    return sw && sw->na ? sw->na : "";
}

size_t xchg_sweep_nsizes(const xchg_sweep *sw)
{
    return sw ? sw->nsizes : 0;
}

double xchg_sweep_size(const xchg_sweep *sw, size_t k)
{
    return sw && k < sw->nsizes ? sw->sizes[k] : NAN;
}

size_t xchg_sweep_winner(const xchg_sweep *sw, size_t k)
{
    return sw && k < sw->nsizes ? sw->winners[k] : XCHG_NO_WINNER;
}

size_t xchg_sweep_best_at(const xchg_sweep *sw, double m)
{
    return sw ? best_of(sw->cand, sw->ncand, m) : XCHG_NO_WINNER;
}

/*
 * Rank every candidate at m: an insertion sort of the eligible ones by
 * beats() (stable, O(n^2) over a few dozen candidates), then the others in
 * registry order; the first max go to rank. Returns the number of
 * candidates; never fails.
 */
size_t xchg_sweep_rank(const xchg_sweep *sw, double m, size_t *rank, size_t max)
{
    if (!sw)
        return 0;
    size_t k = 0;
    for (size_t i = 0; i < sw->ncand && rank; i++) {
        if (!sw->cand[i].eligible)
            continue;
        /* the place of i among the k ranked so far, kept within max */
        size_t at = k;
        while (at > 0 && beats(sw->cand, i, rank[at - 1], m))
            at--;
        if (at >= max)
            continue;
        size_t end = k < max ? k : max - 1;
        memmove(rank + at + 1, rank + at, (end - at) * sizeof *rank);
        rank[at] = i;
        if (k < max)
            k++;
    }
    for (size_t i = 0; i < sw->ncand && rank && k < max; i++)
        if (!sw->cand[i].eligible)
            rank[k++] = i;
    return sw->ncand;
}

size_t xchg_sweep_ncrossovers(const xchg_sweep *sw)
{
    return sw ? sw->ncross : 0;
}

const xchg_crossover *xchg_sweep_crossover(const xchg_sweep *sw, size_t i)
{
    return sw && i < sw->ncross ? &sw->cross[i] : NULL;
}

/*
 * One block size: a sweep over [m, m] and its winner. Returns 0 with *best
 * (and all/n_all as xchg_model.h says); EINVAL, ENOTAPPLIC (nothing applies, or
 * nothing may win: the message names the first candidate's reason), ENOMEM.
 * Outputs are untouched on failure.
 */
int xchg_plan(const xchg_topo *t, const xchg_machine *mach, double m,
              const xchg_plan_opts *opts, xchg_plan_entry *best, xchg_plan_entry *all,
              size_t max_all, size_t *n_all, xchg_err *err)
{
    if (!t || !mach || !best)
        return xchg_fail(err, XCHG_EINVAL, "xchg_plan needs a topology, a machine and a result");
    if (!good_size(m))
        return xchg_fail(err, XCHG_EINVAL, "planner: block size %g must be a finite number >= 0",
                         m);
    xchg_sweep *sw = NULL;
    int rc = xchg_plan_sweep(t, mach, m, m, opts, &sw, err);
    if (rc)
        return rc;
    size_t w = xchg_sweep_winner(sw, 0);
    if (w == XCHG_NO_WINNER) {
        char spec[64];
        const xchg_plan_entry *e = &sw->cand[0];
        rc = xchg_fail(err, XCHG_ENOTAPPLIC,
                       "planner: none of the %zu candidates on %s may win (%s: %s)", sw->ncand,
                       xchg_topo_spec(t, spec, sizeof spec), e->alg,
                       e->why[0] ? e->why : "not eligible");
        xchg_sweep_free(sw);
        return rc;
    }
    *best = sw->cand[w];
    for (size_t i = 0; all && i < sw->ncand && i < max_all; i++)
        all[i] = sw->cand[i];
    if (n_all)
        *n_all = sw->ncand;
    xchg_sweep_free(sw);
    return XCHG_OK;
}
