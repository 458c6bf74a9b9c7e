/*
 * verify.c - the schedule verifier: follows every block (origin, dest)
 * through the schedule and checks that the schedule does what it claims.
 *
 * Checks (see xchg_verify in xchg.h):
 *   delivery    after the last step block (o, d) is at node d;
 *   sizes       at each (step, node) the number of blocks the node holds and
 *               its rule selects equals the declared size; this is how "a node
 *               sends only blocks it holds" is checked, since the declared size
 *               is what the cost model and the executor trust;
 *   one-port    per step no node receives two messages; a message's partner
 *               is a node (< p) other than the sender (a bad partner counts as
 *               a port violation); a message declaring 0 blocks is idle;
 *   routes      xchg_topo_route walked hop by hop with xchg_topo_neighbor
 *               stays in the network and ends at the partner;
 *   contention  no directed link carries two messages in a step; a failure
 *               only when the schedule claims to be contention-free,
 *               otherwise counted. Links are numbered and routes walked
 *               by src/sched/links.h. A complete topology has no links.
 * It also counts start-ups and volume from what is actually selected, the
 * busiest-link volume from declared sizes, and the longest route.
 *
 * How it goes fast: the work is p*p*nsteps block-steps (3.8e9 for a standard
 * exchange on a 14-cube), so each worker thread takes origins one at a time,
 * keeps cur[d] = where block (o, d) is (p entries per thread, never p*p), and
 * runs the schedule step-major for that origin. The switch over partner kind
 * and rule kind is made once per (origin, step); the loop over d is one of a
 * few specialised loops (the always-inline run_step, instantiated with
 * constant kinds), with xchg_rule_eval as the fallback for callback rules.
 * Per (step, node) counts of selected blocks go into a per-thread uint32 array
 * (nsteps*p) and are merged at the end. The per-step message checks (ports,
 * routes, links) are spread over the same threads, one step at a time, and
 * counted only; the few failing steps are re-run serially to write the
 * messages, so the report is the same for any number of threads.
 *
 * Callback rules (XCHG_RULE_FN) are called from several threads at once with
 * the schedule's ctx: they must only read it.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched/links.h"
#include "sched/sched_internal.h"

#if defined(__GNUC__)
#define VERIFY_INLINE inline __attribute__((always_inline))
#else
#define VERIFY_INLINE inline
#endif

/* Default limit on p*p*nsteps and on the memory of the count arrays. */
#define VERIFY_DEFAULT_MAX_WORK 20000000000ull
#define VERIFY_MAX_BYTES (2048ull << 20)
#define VERIFY_MAX_THREADS 256

/* Partner kinds of the inner loop: XOR computed inline (only when every
 * node's partner is a valid other node), or looked up in a per-step table. */
enum { PK_XOR, PK_TAB };
/* Rule kinds of the inner loop; RK_FN falls back to xchg_rule_eval. */
enum { RK_IS_TO, RK_MASK, RK_NE, RK_DIST, RK_SIDE, RK_REL, RK_FN, RK_LIN, RK_CD, RK_COUNT };

/* One class of a CLASS_DIST rule, prepared: the logical coordinate of every
 * node (shared table), the modulus, range and direction. */
typedef struct cdplan {
    const uint32_t *lc;
    uint32_t m, lo, hi;
    uint32_t olo, ohi;     /* origin distance range */
    int ochk;              /* the origin range is not "any" */
    int dir;
} cdplan;

/* One step, prepared for the inner loop (read-only, shared by threads). */
typedef struct plan {
    int pk, rk;
    uint32_t xmask;        /* PK_XOR: partner = node ^ xmask */
    uint32_t *part;        /* PK_TAB: partner of each node, XCHG_NONE idle */
    uint32_t *tgt;         /* PK_TAB: where a node's selected blocks go (the
                              node itself when its partner is not valid) */
    uint32_t rmask;        /* RK_MASK */
    const uint32_t *cc;    /* RK_NE/DIST/SIDE: coordinate of each node */
    uint32_t n, lo, hi;    /* RK_DIST: dimension size and distance range */
    int dir;               /* RK_DIST, RK_SIDE */
    uint8_t *relsel;       /* RK_REL: selected, per (dest - origin) mod p */
    const uint8_t *cls;    /* RK_LIN: class of each node, or NULL (class 0) */
    uint32_t lpm[XCHG_RULE_CLASSES], lpv[XCHG_RULE_CLASSES]; /* RK_LIN */
    uint32_t lem[XCHG_RULE_CLASSES], lev[XCHG_RULE_CLASSES]; /* RK_LIN */
    cdplan cd[XCHG_RULE_CDIST_CLASSES]; /* RK_CD, indexed by cls (or 0) */
    int active;            /* some node has a partner */
} plan;

/* Message-check counts of one step. */
typedef struct stepres {
    uint64_t port, route, conflicts, link_max_blocks, hops;
    uint32_t max_link_msgs;
} stepres;

/* An undelivered block. */
typedef struct miss {
    uint32_t o, d, at;
} miss;

struct shared;

/* Per-thread state; every array is owned and freed by the caller. */
typedef struct wstate {
    struct shared *v;
    uint32_t *cnt;          /* nsteps*p selected-block counts */
    uint32_t *cur;          /* p: where block (o, d) is */
    uint64_t since;         /* origins counted since the last flush */
    uint32_t *recv_n, *recv_a, *recv_b; /* p: messages received, first senders */
    uint32_t *tnodes;       /* p: receivers touched this step */
    uint32_t *lmsg, *lfirst, *lsecond; /* nlinks: messages per link, senders */
    uint64_t *lblk;         /* nlinks: declared blocks per link */
    uint32_t *tlinks;       /* nlinks: links touched this step */
    uint64_t undelivered;
    miss misses[XCHG_VERIFY_MAX_REPORTED];
    int nmiss;
} wstate;

/* Everything the threads share. */
typedef struct shared {
    int messages_only;      /* no block is followed (xchg_verify_opts) */
    const xchg_sched *s;
    const xchg_topo *t;
    uint32_t p;
    size_t nsteps;
    size_t nlinks;
    int has_links;
    plan *plans;
    uint32_t *coords[XCHG_MAX_DIMS]; /* coordinate tables, made on demand */
    struct {                /* logical coordinate tables of CLASS_DIST */
        int dim;
        uint32_t div, mod;
        uint32_t *tab;
    } lct[64];
    int nlct;
    stepres *res;
    uint64_t *total;        /* nsteps*p merged counts */
    uint64_t flush_every;   /* origins per thread between flushes */
    uint32_t chunk;         /* origins taken at a time */
    atomic_size_t next_step;
    atomic_uint_fast64_t next_origin;
    pthread_mutex_t lock;
} shared;

/* Append a failure message to the report when there is room. */
static void report_add(xchg_verify_report *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void report_add(xchg_verify_report *r, const char *fmt, ...)
{
    if (!r || r->reported >= XCHG_VERIFY_MAX_REPORTED)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->msgs[r->reported], sizeof r->msgs[0], fmt, ap);
    va_end(ap);
    r->reported++;
}

/* ------------------------------------------------------------------ */
/* Following blocks                                                    */
/* ------------------------------------------------------------------ */

/* Does the node at pos, sending to `to` at step s, select block (o, d)?
 * rk is a constant at every call site, so the switch folds away. */
static VERIFY_INLINE int select_block(const plan *pl, int rk, const xchg_sched *S, size_t s,
                                      uint32_t p, uint32_t pos, uint32_t to, uint32_t o,
                                      uint32_t d)
{
    switch (rk) {
    case RK_IS_TO:
        return d == to;
    case RK_MASK:
        return ((d ^ to) & pl->rmask) == 0;
    case RK_NE:
        return pl->cc[d] != pl->cc[pos];
    case RK_DIST: {
        uint32_t a = pl->cc[pos], b = pl->cc[d];
        uint32_t x = pl->dir > 0 ? b + pl->n - a : a + pl->n - b;
        if (x >= pl->n)
            x -= pl->n;
        return x >= pl->lo && x <= pl->hi;
    }
    case RK_SIDE: {
        uint32_t a = pl->cc[pos], b = pl->cc[d];
        return pl->dir > 0 ? b > a : b < a;
    }
    case RK_REL:
        return pl->relsel[d >= o ? d - o : d + p - o];
    case RK_LIN: {
        unsigned c = pl->cls ? pl->cls[pos] : 0;
        uint32_t w = d ^ pos;
        return ((unsigned)__builtin_parity(w & pl->lpm[c]) == pl->lpv[c]) &
               ((w & pl->lem[c]) == pl->lev[c]);
    }
    case RK_CD: {
        const cdplan *q = &pl->cd[pl->cls ? pl->cls[pos] : 0];
        uint32_t a = q->lc[pos], b = q->lc[d];
        uint32_t x = q->dir > 0 ? b + q->m - a : a + q->m - b;
        if (x >= q->m)
            x -= q->m;
        if (x < q->lo || x > q->hi)
            return 0;
        if (!q->ochk)
            return 1;
        uint32_t c = q->lc[o];
        uint32_t y = q->dir > 0 ? a + q->m - c : c + q->m - a;
        if (y >= q->m)
            y -= q->m;
        return y >= q->olo && y <= q->ohi;
    }
    default:
        return xchg_rule_eval(S, &S->steps[s].rule, s, pos, to, o, d);
    }
}

/* Move origin o's blocks through step s: each block whose holder sends and
 * selects it goes to the holder's target, and the holder's count grows. */
static VERIFY_INLINE void run_step(const plan *pl, int pk, int rk, const xchg_sched *S,
                                   size_t s, uint32_t p, uint32_t o, uint32_t *restrict cur,
                                   uint32_t *restrict cnt)
{
    for (uint32_t d = 0; d < p; d++) {
        uint32_t pos = cur[d], to, tg;
        if (pk == PK_XOR) {
            to = pos ^ pl->xmask;
            tg = to;
        } else {
            to = pl->part[pos];
            if (to == XCHG_NONE)
                continue;
            tg = pl->tgt[pos];
        }
        if (select_block(pl, rk, S, s, p, pos, to, o, d)) {
            cnt[pos]++;
            cur[d] = tg;
        }
    }
}

#define RUN_CASE(PK, RK)                                                             \
    case (PK) * RK_COUNT + (RK):                                                     \
        run_step(pl, PK, RK, S, s, p, o, cur, cnt);                                  \
        break

/* Follow every block of origin o through the whole schedule, counting
 * selections into w->cnt and noting blocks that end away from their dest. */
static void follow_origin(wstate *w, uint32_t o)
{
    const shared *v = w->v;
    const xchg_sched *S = v->s;
    uint32_t p = v->p;
    uint32_t *restrict cur = w->cur;
    for (uint32_t d = 0; d < p; d++)
        cur[d] = o;
    for (size_t s = 0; s < v->nsteps; s++) {
        const plan *pl = &v->plans[s];
        if (!pl->active)
            continue;
        uint32_t *restrict cnt = w->cnt + s * (size_t)p;
        switch (pl->pk * RK_COUNT + pl->rk) {
            RUN_CASE(PK_XOR, RK_IS_TO);
            RUN_CASE(PK_XOR, RK_MASK);
            RUN_CASE(PK_XOR, RK_NE);
            RUN_CASE(PK_XOR, RK_DIST);
            RUN_CASE(PK_XOR, RK_SIDE);
            RUN_CASE(PK_XOR, RK_REL);
            RUN_CASE(PK_XOR, RK_FN);
            RUN_CASE(PK_XOR, RK_LIN);
            RUN_CASE(PK_XOR, RK_CD);
            RUN_CASE(PK_TAB, RK_IS_TO);
            RUN_CASE(PK_TAB, RK_MASK);
            RUN_CASE(PK_TAB, RK_NE);
            RUN_CASE(PK_TAB, RK_DIST);
            RUN_CASE(PK_TAB, RK_SIDE);
            RUN_CASE(PK_TAB, RK_REL);
            RUN_CASE(PK_TAB, RK_FN);
            RUN_CASE(PK_TAB, RK_LIN);
            RUN_CASE(PK_TAB, RK_CD);
        default:
            break;
        }
    }
    for (uint32_t d = 0; d < p; d++) {
        if (cur[d] == d)
            continue;
        w->undelivered++;
        if (w->nmiss < XCHG_VERIFY_MAX_REPORTED)
            w->misses[w->nmiss++] = (miss){o, d, cur[d]};
    }
}

/* Add the thread's counts into the shared totals and zero them. */
static void flush_counts(wstate *w)
{
    shared *v = w->v;
    if (v->messages_only)
        return; /* no counts: nothing was followed */
    size_t n = v->nsteps * (size_t)v->p;
    pthread_mutex_lock(&v->lock);
    for (size_t i = 0; i < n; i++)
        v->total[i] += w->cnt[i];
    pthread_mutex_unlock(&v->lock);
    memset(w->cnt, 0, n * sizeof *w->cnt);
    w->since = 0;
}

/* ------------------------------------------------------------------ */
/* Per-step message checks                                             */
/* ------------------------------------------------------------------ */

/* Partner of node at step s from its plan. */
static uint32_t plan_partner(const plan *pl, uint32_t node)
{
    return pl->pk == PK_XOR ? node ^ pl->xmask : pl->part[node];
}

/*
 * Check the messages of step s: partners, one-port receive, routes, link
 * loads. Fills *out. When rep is non-NULL, failure messages are appended to
 * it (the serial second pass); otherwise only counted. Uses and restores w's
 * scratch arrays (all zero between calls).
 */
static void check_step(wstate *w, size_t s, xchg_verify_report *rep, stepres *out)
{
    const shared *v = w->v;
    const xchg_sched *S = v->s;
    const xchg_topo *t = v->t;
    const xchg_step *st = &S->steps[s];
    const plan *pl = &v->plans[s];
    uint32_t p = v->p;
    size_t ntn = 0, ntl = 0;
    stepres r;
    memset(&r, 0, sizeof r);

    for (uint32_t n = 0; n < p && pl->active; n++) {
        uint32_t to = plan_partner(pl, n);
        if (to == XCHG_NONE)
            continue;
        uint64_t b = xchg_step_blocks(st, n);
        if (b == 0)
            continue;
        if (to >= p || to == n) {
            r.port++;
            if (to == n)
                report_add(rep, "step %zu node %u sends %llu blocks to itself", s, n,
                           (unsigned long long)b);
            else
                report_add(rep, "step %zu node %u sends %llu blocks to %u, not a node (p = %u)",
                           s, n, (unsigned long long)b, to, p);
            continue;
        }
        if (w->recv_n[to]++ == 0) {
            w->tnodes[ntn++] = to;
            w->recv_a[to] = n;
        } else if (w->recv_n[to] == 2) {
            w->recv_b[to] = n;
        }
        if (!v->has_links) {
            if (r.hops < 1)
                r.hops = 1;
            if (b > r.link_max_blocks)
                r.link_max_blocks = b;
            continue;
        }
        xchg_link_walk lw;
        size_t id;
        xchg_link_walk_start(&lw, t, n, to, st->route_policy);
        while (xchg_link_walk_next(&lw, &id)) {
            if (w->lmsg[id]++ == 0) {
                w->tlinks[ntl++] = (uint32_t)id;
                w->lfirst[id] = n;
            } else if (w->lmsg[id] == 2) {
                w->lsecond[id] = n;
            }
            w->lblk[id] += b;
        }
        if (lw.left) {
            r.route++;
            report_add(rep, "step %zu route %u->%u leaves the network at node %u (dim %d, dir %+d)",
                       s, n, to, lw.at, lw.dim, lw.dir);
        } else if (lw.at != to) {
            r.route++;
            report_add(rep, "step %zu route %u->%u ends at node %u after %llu hops", s, n, to,
                       lw.at, (unsigned long long)lw.hops);
        }
        if (lw.hops > r.hops)
            r.hops = lw.hops;
    }

    for (size_t i = 0; i < ntn; i++) {
        uint32_t x = w->tnodes[i];
        if (w->recv_n[x] >= 2) {
            r.port++;
            report_add(rep, "step %zu node %u receives %u messages (from %u, %u%s)", s, x,
                       w->recv_n[x], w->recv_a[x], w->recv_b[x], w->recv_n[x] > 2 ? ", ..." : "");
        }
        w->recv_n[x] = 0;
    }
    for (size_t i = 0; i < ntl; i++) {
        size_t id = w->tlinks[i];
        uint32_t m = w->lmsg[id];
        if (m > r.max_link_msgs)
            r.max_link_msgs = m;
        if (w->lblk[id] > r.link_max_blocks)
            r.link_max_blocks = w->lblk[id];
        if (m >= 2) {
            r.conflicts++;
            if (S->contention_free) {
                uint32_t node, far;
                int dim, dir;
                xchg_link_ends(t, id, &node, &dim, &dir, &far);
                uint32_t a = w->lfirst[id], b2 = w->lsecond[id];
                report_add(rep,
                           "step %zu link %u->%u (dim %d) carries %u messages "
                           "(%u->%u, %u->%u%s) in a contention-free schedule",
                           s, node, far, dim, m, a,
                           plan_partner(pl, a), b2, plan_partner(pl, b2), m > 2 ? ", ..." : "");
            }
        }
        w->lmsg[id] = 0;
        w->lblk[id] = 0;
    }
    *out = r;
}

/* ------------------------------------------------------------------ */
/* Threads                                                             */
/* ------------------------------------------------------------------ */

/* A worker: message checks of whole steps first, then origins. */
static void *worker(void *arg)
{
    wstate *w = arg;
    shared *v = w->v;
    for (;;) {
        size_t s = atomic_fetch_add(&v->next_step, 1);
        if (s >= v->nsteps)
            break;
        check_step(w, s, NULL, &v->res[s]);
    }
    for (;;) {
        if (v->messages_only)
            break;
        uint64_t o0 = atomic_fetch_add(&v->next_origin, v->chunk);
        if (o0 >= v->p)
            break;
        uint64_t o1 = o0 + v->chunk < v->p ? o0 + v->chunk : v->p;
        for (uint64_t o = o0; o < o1; o++) {
            if (w->since == v->flush_every)
                flush_counts(w);
            follow_origin(w, (uint32_t)o);
            w->since++;
        }
    }
    flush_counts(w);
    return NULL;
}

/* Free a thread's arrays (w may be partly filled). */
static void wstate_free(wstate *w)
{
    free(w->cnt);
    free(w->cur);
    free(w->recv_n);
    free(w->recv_a);
    free(w->recv_b);
    free(w->tnodes);
    free(w->lmsg);
    free(w->lfirst);
    free(w->lsecond);
    free(w->lblk);
    free(w->tlinks);
}

/* Allocate a thread's arrays; 0 or XCHG_ENOMEM. */
static int wstate_init(wstate *w, shared *v)
{
    memset(w, 0, sizeof *w);
    w->v = v;
    size_t p = v->p, nl = v->nlinks ? v->nlinks : 1;
    w->cnt = calloc(v->messages_only ? 1 : v->nsteps * p + 1, sizeof *w->cnt);
    w->cur = malloc(p * sizeof *w->cur);
    w->recv_n = calloc(p, sizeof *w->recv_n);
    w->recv_a = malloc(p * sizeof *w->recv_a);
    w->recv_b = malloc(p * sizeof *w->recv_b);
    w->tnodes = malloc(p * sizeof *w->tnodes);
    w->lmsg = calloc(nl, sizeof *w->lmsg);
    w->lfirst = malloc(nl * sizeof *w->lfirst);
    w->lsecond = malloc(nl * sizeof *w->lsecond);
    w->lblk = calloc(nl, sizeof *w->lblk);
    w->tlinks = malloc(nl * sizeof *w->tlinks);
    if (!w->cnt || !w->cur || !w->recv_n || !w->recv_a || !w->recv_b || !w->tnodes ||
        !w->lmsg || !w->lfirst || !w->lsecond || !w->lblk || !w->tlinks)
        return XCHG_ENOMEM;
    return XCHG_OK;
}

/* ------------------------------------------------------------------ */
/* Preparing the steps                                                 */
/* ------------------------------------------------------------------ */

/* Coordinate table of dim (made once, shared); NULL when out of memory. */
static const uint32_t *coord_table(shared *v, int dim)
{
    if (!v->coords[dim]) {
        uint32_t *c = malloc((size_t)v->p * sizeof *c);
        if (!c)
            return NULL;
        for (uint32_t i = 0; i < v->p; i++)
            c[i] = xchg_coord(v->t, i, dim);
        v->coords[dim] = c;
    }
    return v->coords[dim];
}

/* Table of (coord(id, dim) / div) % mod over every node (made once per
 * (dim, div, mod), shared); NULL when out of memory or out of slots. */
static const uint32_t *logical_table(shared *v, int dim, uint32_t div, uint32_t mod)
{
    for (int i = 0; i < v->nlct; i++)
        if (v->lct[i].dim == dim && v->lct[i].div == div && v->lct[i].mod == mod)
            return v->lct[i].tab;
    if (v->nlct == (int)(sizeof v->lct / sizeof v->lct[0]))
        return NULL;
    const uint32_t *c = coord_table(v, dim);
    uint32_t *tab = c ? malloc((size_t)v->p * sizeof *tab) : NULL;
    if (!tab)
        return NULL;
    for (uint32_t i = 0; i < v->p; i++)
        tab[i] = c[i] / div % mod;
    v->lct[v->nlct].dim = dim;
    v->lct[v->nlct].div = div;
    v->lct[v->nlct].mod = mod;
    v->lct[v->nlct].tab = tab;
    v->nlct++;
    return tab;
}

/* Prepare step s for the inner loop. EINVAL on a malformed step (a rule or
 * shift naming a missing dimension, a zero radix, a missing table or
 * callback), ENOMEM. */
static int plan_step(shared *v, size_t s, plan *pl, xchg_err *err)
{
    const xchg_step *st = &v->s->steps[s];
    const xchg_rule *ru = &st->rule;
    const xchg_topo *t = v->t;
    uint32_t p = v->p;
    memset(pl, 0, sizeof *pl);

    switch (st->partner) {
    case XCHG_PARTNER_XOR:
        break;
    case XCHG_PARTNER_SHIFT:
        if (st->shift_dim < -1 || st->shift_dim >= t->ndims)
            return xchg_fail(err, XCHG_EINVAL,
                             "step %zu shifts along dimension %d; the topology has %d", s,
                             st->shift_dim, t->ndims);
        break;
    case XCHG_PARTNER_TABLE:
        if (!st->partner_table)
            return xchg_fail(err, XCHG_EINVAL, "step %zu has a partner table kind but no table",
                             s);
        break;
    default:
        return xchg_fail(err, XCHG_EINVAL, "step %zu has unknown partner kind %d", s,
                         (int)st->partner);
    }

    switch (ru->kind) {
    case XCHG_RULE_DEST_IS_TO:
        pl->rk = RK_IS_TO;
        break;
    case XCHG_RULE_DEST_MASK_TO:
        pl->rk = RK_MASK;
        pl->rmask = ru->mask;
        break;
    case XCHG_RULE_COORD_NE:
    case XCHG_RULE_COORD_DIST:
    case XCHG_RULE_COORD_SIDE:
        if (ru->dim < 0 || ru->dim >= t->ndims)
            return xchg_fail(err, XCHG_EINVAL,
                             "step %zu rule reads dimension %d; the topology has %d", s, ru->dim,
                             t->ndims);
        if (!(pl->cc = coord_table(v, ru->dim)))
            return xchg_fail(err, XCHG_ENOMEM, "out of memory preparing step %zu", s);
        pl->rk = ru->kind == XCHG_RULE_COORD_NE     ? RK_NE
                 : ru->kind == XCHG_RULE_COORD_DIST ? RK_DIST
                                                    : RK_SIDE;
        pl->n = t->size[ru->dim];
        pl->lo = ru->lo;
        pl->hi = ru->hi;
        pl->dir = ru->dir;
        break;
    case XCHG_RULE_REL_DIGIT:
        if (ru->radix == 0 || ru->weight == 0)
            return xchg_fail(err, XCHG_EINVAL, "step %zu rel-digit rule has radix %u weight %u",
                             s, ru->radix, ru->weight);
        pl->rk = RK_REL;
        if (!(pl->relsel = malloc(p)))
            return xchg_fail(err, XCHG_ENOMEM, "out of memory preparing step %zu", s);
        for (uint32_t rel = 0; rel < p; rel++)
            pl->relsel[rel] = (uint8_t)((rel / ru->weight) % ru->radix == ru->digit);
        break;
    case XCHG_RULE_FN:
        if (!ru->fn)
            return xchg_fail(err, XCHG_EINVAL, "step %zu has a callback rule without a callback",
                             s);
        pl->rk = RK_FN;
        break;
    case XCHG_RULE_REL_LINEAR:
        pl->rk = RK_LIN;
        pl->cls = st->class_table;
        for (int c = 0; c < XCHG_RULE_CLASSES; c++) {
            pl->lpm[c] = ru->lpmask[c];
            pl->lpv[c] = ru->lpval[c];
            pl->lem[c] = ru->lemask[c];
            pl->lev[c] = ru->leval[c];
        }
        if (pl->cls)
            for (uint32_t n = 0; n < p; n++)
                if (pl->cls[n] >= XCHG_RULE_CLASSES)
                    return xchg_fail(err, XCHG_EINVAL,
                                     "step %zu gives node %u class %u; a linear rule has %d", s,
                                     n, (unsigned)pl->cls[n], XCHG_RULE_CLASSES);
        break;
    case XCHG_RULE_CLASS_DIST:
        pl->rk = RK_CD;
        pl->cls = st->class_table;
        if (pl->cls)
            for (uint32_t n = 0; n < p; n++)
                if (pl->cls[n] >= XCHG_RULE_CDIST_CLASSES)
                    return xchg_fail(err, XCHG_EINVAL,
                                     "step %zu gives node %u class %u; a class-dist rule has %d",
                                     s, n, (unsigned)pl->cls[n], XCHG_RULE_CDIST_CLASSES);
        for (int c = 0; c < XCHG_RULE_CDIST_CLASSES; c++) {
            const xchg_cdist *q = &ru->cdist[c];
            if (q->dim < 0 || q->dim >= t->ndims || q->div == 0 || q->mod == 0)
                return xchg_fail(err, XCHG_EINVAL,
                                 "step %zu class-dist class %d reads dimension %d with div %u "
                                 "mod %u; the topology has %d dimensions",
                                 s, c, q->dim, q->div, q->mod, t->ndims);
            if (!(pl->cd[c].lc = logical_table(v, q->dim, q->div, q->mod)))
                return xchg_fail(err, XCHG_ENOMEM,
                                 "out of memory preparing step %zu (or more than %d distinct "
                                 "class-dist coordinate tables)",
                                 s, (int)(sizeof v->lct / sizeof v->lct[0]));
            pl->cd[c].m = q->mod;
            pl->cd[c].lo = q->lo;
            pl->cd[c].hi = q->hi;
            pl->cd[c].dir = q->dir;
            pl->cd[c].olo = q->olo;
            pl->cd[c].ohi = q->ohi;
            pl->cd[c].ochk = !(q->olo == 0 && q->ohi == UINT32_MAX);
        }
        break;
    default:
        return xchg_fail(err, XCHG_EINVAL, "step %zu has unknown rule kind %d", s,
                         (int)ru->kind);
    }

    /* XOR inline only when it always names a valid other node: mask nonzero
     * and below p, p a power of two. */
    if (st->partner == XCHG_PARTNER_XOR && st->xor_mask != 0 && st->xor_mask < p &&
        (p & (p - 1)) == 0) {
        pl->pk = PK_XOR;
        pl->xmask = st->xor_mask;
        pl->active = 1;
        return XCHG_OK;
    }
    pl->pk = PK_TAB;
    pl->part = malloc((size_t)p * sizeof *pl->part);
    pl->tgt = malloc((size_t)p * sizeof *pl->tgt);
    if (!pl->part || !pl->tgt)
        return xchg_fail(err, XCHG_ENOMEM, "out of memory preparing step %zu", s);
    for (uint32_t n = 0; n < p; n++) {
        uint32_t to = xchg_step_partner(t, st, n);
        pl->part[n] = to;
        pl->tgt[n] = (to < p && to != n) ? to : n;
        if (to != XCHG_NONE)
            pl->active = 1;
    }
    return XCHG_OK;
}

/* Free what plan_step allocated. */
static void plan_free(plan *pl)
{
    free(pl->part);
    free(pl->tgt);
    free(pl->relsel);
}

/* Order undelivered blocks by (origin, dest). */
static int miss_cmp(const void *a, const void *b)
{
    const miss *x = a, *y = b;
    if (x->o != y->o)
        return x->o < y->o ? -1 : 1;
    if (x->d != y->d)
        return x->d < y->d ? -1 : 1;
    return 0;
}

/* Bytes plan_step allocates for the steps: a partner and a target table of
 * p entries unless the partner is an inline XOR, and p selection bytes for
 * a REL_DIGIT rule (mirrors plan_step's choices). */
static uint64_t plan_bytes(const shared *v)
{
    uint64_t p = v->p, total = 0;
    int pow2 = (p & (p - 1)) == 0;
    for (size_t s = 0; s < v->nsteps; s++) {
        const xchg_step *st = &v->s->steps[s];
        int inline_xor = st->partner == XCHG_PARTNER_XOR && st->xor_mask != 0 &&
                         st->xor_mask < p && pow2;
        if (!inline_xor)
            total += 8 * p;
        if (st->rule.kind == XCHG_RULE_REL_DIGIT)
            total += p;
    }
    return total;
}

/* Bytes the run needs for `threads` workers (counts, scratch, plans). */
static uint64_t bytes_needed(const shared *v, uint64_t threads)
{
    uint64_t sp = (uint64_t)v->nsteps * v->p;
    uint64_t counts = v->messages_only ? 0 : sp; /* per-(step,node) counts */
    uint64_t per = counts * 4 + (uint64_t)v->p * 20 + (uint64_t)v->nlinks * 24;
    return threads * per + counts * 8 + plan_bytes(v) +
           (uint64_t)v->p * 4 * (uint64_t)v->t->ndims;
}

/* ------------------------------------------------------------------ */
/* Entry point                                                         */
/* ------------------------------------------------------------------ */

int xchg_verify(const xchg_sched *s, const xchg_verify_opts *opts, xchg_verify_report *report,
                xchg_err *err)
{
    if (!s || !report)
        return xchg_fail(err, XCHG_EINVAL, "xchg_verify needs a schedule and a report");
    const xchg_topo *t = &s->topo;
    uint32_t p = t->nodes;
    size_t nsteps = s->nsteps;
    if (p == 0)
        return xchg_fail(err, XCHG_EINVAL, "schedule's topology has no nodes");

    uint64_t max_work = opts && opts->max_work ? opts->max_work : VERIFY_DEFAULT_MAX_WORK;
    int messages_only = opts && opts->messages_only;
    uint64_t pp = (uint64_t)p * p;
    if (messages_only && nsteps > 0 && p > max_work / nsteps) {
        char spec[64];
        return xchg_fail(err, XCHG_ETOOBIG,
                         "checking the messages of %s: %u nodes over %zu steps is more than the "
                         "limit of %llu messages (max_work)",
                         xchg_topo_spec(t, spec, sizeof spec), p, nsteps,
                         (unsigned long long)max_work);
    }
    if (!messages_only && nsteps > 0 && pp > max_work / nsteps) {
        char spec[64];
        return xchg_fail(err, XCHG_ETOOBIG,
                         "verifying %s: %llu blocks over %zu steps is more than the limit of "
                         "%llu block-steps (max_work); raise the limit or use a smaller topology",
                         xchg_topo_spec(t, spec, sizeof spec), (unsigned long long)pp, nsteps,
                         (unsigned long long)max_work);
    }

    shared v;
    memset(&v, 0, sizeof v);
    v.s = s;
    v.t = t;
    v.p = p;
    v.nsteps = nsteps;
    v.has_links = xchg_topo_has_links(t);
    v.nlinks = xchg_link_count(t);
    v.messages_only = messages_only;

    int threads = opts && opts->threads > 0 ? opts->threads : xchg_ncpus();
    if (threads > VERIFY_MAX_THREADS)
        threads = VERIFY_MAX_THREADS;
    if ((uint32_t)threads > p)
        threads = (int)p;
    while (threads > 1 && bytes_needed(&v, (uint64_t)threads) > VERIFY_MAX_BYTES)
        threads--;
    if (bytes_needed(&v, 1) > VERIFY_MAX_BYTES) {
        char spec[64];
        return xchg_fail(err, XCHG_ETOOBIG,
                         "verifying %s over %zu steps needs %llu MiB of count arrays, more than "
                         "the %llu MiB the verifier allows",
                         xchg_topo_spec(t, spec, sizeof spec), nsteps,
                         (unsigned long long)(bytes_needed(&v, 1) >> 20),
                         (unsigned long long)(VERIFY_MAX_BYTES >> 20));
    }

    int rc = XCHG_OK;
    wstate *ws = NULL;
    pthread_t *tids = NULL;
    int started = 0;
    int lock_ok = 0;
    size_t nplanned = 0;
    v.plans = calloc(nsteps + 1, sizeof *v.plans);
    v.res = calloc(nsteps + 1, sizeof *v.res);
    v.total = calloc(messages_only ? 1 : nsteps * (size_t)p + 1, sizeof *v.total);
    ws = calloc((size_t)threads, sizeof *ws);
    tids = calloc((size_t)threads, sizeof *tids);
    if (!v.plans || !v.res || !v.total || !ws || !tids) {
        rc = xchg_fail(err, XCHG_ENOMEM, "out of memory starting the verifier");
        goto done;
    }
    for (; nplanned < nsteps; nplanned++)
        if ((rc = plan_step(&v, nplanned, &v.plans[nplanned], err)) != XCHG_OK) {
            nplanned++; /* its partial tables are freed below */
            goto done;
        }
    for (int i = 0; i < threads; i++)
        if (wstate_init(&ws[i], &v) != XCHG_OK) {
            for (int j = 0; j <= i; j++)
                wstate_free(&ws[j]);
            memset(ws, 0, (size_t)threads * sizeof *ws);
            rc = xchg_fail(err, XCHG_ENOMEM, "out of memory for %d verifier threads", threads);
            goto done;
        }
    if (pthread_mutex_init(&v.lock, NULL) != 0) {
        rc = xchg_fail(err, XCHG_ENOMEM, "cannot make a mutex for the verifier");
        goto done;
    }
    lock_ok = 1;
    v.flush_every = UINT32_MAX / p;
    {
        uint64_t per_origin = (uint64_t)p * (nsteps ? nsteps : 1);
        v.chunk = per_origin >= 65536 ? 1 : (uint32_t)(65536 / per_origin);
        if (v.chunk > p / (uint32_t)threads + 1)
            v.chunk = p / (uint32_t)threads + 1;
    }
    atomic_init(&v.next_step, 0);
    atomic_init(&v.next_origin, 0);

    /* The calling thread is worker 0; if a thread cannot start, the others
     * take its share (the work queue is shared). */
    for (int i = 1; i < threads; i++) {
        if (pthread_create(&tids[i], NULL, worker, &ws[i]) != 0)
            break;
        started = i;
    }
    worker(&ws[0]);
    for (int i = 1; i <= started; i++)
        pthread_join(tids[i], NULL);
    /* Threads that never started still hold zero counts; nothing to flush. */

    memset(report, 0, sizeof *report);
    report->blocks = messages_only ? 0 : pp;
    report->messages_only = messages_only;
    report->steps = nsteps;
    for (size_t st = 0; st < nsteps; st++) {
        const stepres *r = &v.res[st];
        const xchg_step *step = &s->steps[st];
        const plan *pl = &v.plans[st];
        report->port_violations += r->port;
        report->route_failures += r->route;
        report->link_conflicts += r->conflicts;
        if (r->max_link_msgs > report->max_link_messages)
            report->max_link_messages = r->max_link_msgs;
        report->link_volume_blocks += r->link_max_blocks;
        if (r->hops > report->max_hops)
            report->max_hops = r->hops;
        if ((r->port || r->route || (s->contention_free && r->conflicts)) &&
            report->reported < XCHG_VERIFY_MAX_REPORTED) {
            stepres again;
            check_step(&ws[0], st, report, &again);
        }
        if (messages_only) { /* trust the declared sizes: nothing was followed */
            if (step->max_blocks > 0)
                report->startups++;
            report->volume_blocks += step->max_blocks;
            continue;
        }
        const uint64_t *tot = v.total + st * (size_t)p;
        uint64_t big = 0;
        for (uint32_t n = 0; n < p; n++) {
            uint32_t to = plan_partner(pl, n);
            uint64_t declared = to == XCHG_NONE ? 0 : xchg_step_blocks(step, n);
            if (tot[n] > big)
                big = tot[n];
            if (tot[n] != declared) {
                report->size_mismatches++;
                report_add(report, "step %zu node %u declares %llu blocks but holds and selects %llu",
                           st, n, (unsigned long long)declared, (unsigned long long)tot[n]);
            }
        }
        if (big > 0)
            report->startups++;
        report->volume_blocks += big;
    }
    {
        miss all[XCHG_VERIFY_MAX_REPORTED * VERIFY_MAX_THREADS];
        int nall = 0;
        for (int i = 0; i < threads; i++) {
            report->undelivered += ws[i].undelivered;
            for (int k = 0; k < ws[i].nmiss; k++)
                all[nall++] = ws[i].misses[k];
        }
        qsort(all, (size_t)nall, sizeof all[0], miss_cmp);
        for (int k = 0; k < nall; k++)
            report_add(report, "block (%u,%u) ended at node %u", all[k].o, all[k].d, all[k].at);
    }
    report->failures = report->undelivered + report->size_mismatches + report->port_violations +
                       report->route_failures +
                       (s->contention_free ? report->link_conflicts : 0);
    report->ok = report->failures == 0;

done:
    if (lock_ok)
        pthread_mutex_destroy(&v.lock);
    if (ws)
        for (int i = 0; i < threads; i++)
            wstate_free(&ws[i]);
    free(ws);
    free(tids);
    if (v.plans)
        for (size_t i = 0; i < nplanned; i++)
            plan_free(&v.plans[i]);
    free(v.plans);
    free(v.res);
    free(v.total);
    for (int k = 0; k < XCHG_MAX_DIMS; k++)
        free(v.coords[k]);
    for (int k = 0; k < v.nlct; k++)
        free(v.lct[k].tab);
    return rc;
}
