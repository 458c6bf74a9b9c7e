/*
 * verify.c - the schedule verifier: follows every block (origin, dest)
 * through the schedule and checks that the schedule does what it claims.
 *
 * Checks (see xchg_verify in xchg_model.h):
 *   delivery    after the last step block (o, d) is at node d;
 *   sizes       at each (step, node) the number of blocks the node holds and
 *               its rule selects equals the declared size; this is how "a node
 *               sends only blocks it holds" is checked, since the declared size
 *               is what the cost model and the executor trust;
 *   one-port    per step no node receives two messages; a message's partner
 *               is a node (< p) other than the sender (a bad partner counts as
 *               a port violation); a message declaring 0 blocks is idle;
 *   routes      the route, walked hop by hop, stays in the network and
 *               ends at the partner;
 *   contention  no directed link carries two messages in a step; a failure
 *               only when the schedule claims to be contention-free,
 *               otherwise counted. A complete topology has no links.
 * Which blocks move where is the block follower's rule (src/sched/follow.h);
 * links are numbered and routes walked by src/sched/links.h. This file only
 * checks. Schedules of the other operations (bcast, reduce, ...) have
 * their tokens followed by verify_op.c after the message checks here.
 * Calls point one way: verify_op.c (which holds the public xchg_verify and
 * sends each schedule to its checks) calls this file, never the reverse;
 * this file may call the follower and the link numbering (sched/).
 * It also counts start-ups and volume from what is actually selected, the
 * busiest-link volume from declared sizes, and the longest route.
 *
 * With a count matrix (xchg_verify_opts.counts, docs/alltoallv.md) every
 * block also weighs its bytes: after each step of an origin the blocks that
 * left their holder add their sizes to the holder's message (per thread,
 * nsteps*p uint64, merged like the counts), and the report gets each
 * step's largest message in bytes and the messages that carry any; a
 * message of only 0-byte blocks counts as not sent. Delivery is checked as
 * always: a block of 0 bytes must arrive too.
 *
 * How it goes fast: the work is p*p*nsteps block-steps (3.8e9 for a standard
 * exchange on a 14-cube), so each worker thread takes origins one at a time,
 * keeps cur[d] = where block (o, d) is (p entries per thread, never p*p), and
 * runs the schedule step-major for that origin with the block follower's
 * compiled loop (src/sched/follow.h: one switch per (origin, step), then a
 * loop specialised for the step's partner and rule kinds). Per (step, node)
 * counts of selected blocks go into a per-thread uint32 array (nsteps*p)
 * and are merged at the end. The per-step message checks (ports, routes,
 * links) are spread over the same threads, one step at a time, and
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

#include "check/verify_internal.h"
#include "sched/follow.h"
#include "sched/links.h"

#define VERIFY_MAX_THREADS 256
/* Seconds between progress reports (the caller's hook throttles further). */
#define VERIFY_PROGRESS_EVERY 0.1

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
    uint64_t *byt;          /* with counts: nsteps*p bytes sent, else NULL */
    uint32_t *cur;          /* p: where block (o, d) is */
    uint32_t *prev;         /* with counts: p, where they were before the step */
    uint64_t since;         /* origins counted since the last flush */
    uint32_t *recv_n, *recv_a, *recv_b; /* p: messages received, first senders */
    uint32_t *tnodes;       /* p: receivers touched this step */
    uint32_t *lmsg, *lfirst, *lsecond; /* nlinks: messages per link, senders */
    uint64_t *lblk;         /* nlinks: declared blocks per link */
    uint32_t *tlinks;       /* nlinks: links touched this step */
    size_t ntn, ntl;        /* entries of tnodes, tlinks this step */
    uint64_t undelivered;
    miss misses[XCHG_VERIFY_MAX_REPORTED];
    int nmiss;
} wstate;

/* Everything the threads share, and the run's memory (freed by verify_free). */
typedef struct shared {
    int messages_only;      /* no block is followed (xchg_verify_opts) */
    const xchg_sched *s;
    const xchg_topo *t;
    uint32_t p;
    size_t nsteps;
    size_t nlinks;
    int has_links;
    xchg_follower *f;       /* the compiled steps (read-only in the threads) */
    stepres *res;
    uint64_t *total;        /* nsteps*p merged counts */
    const xchg_vcounts *counts; /* block sizes (xchg_verify_opts), or NULL */
    uint64_t *total_bytes;  /* with counts: nsteps*p merged bytes */
    uint64_t flush_every;   /* origins per thread between flushes */
    uint32_t chunk;         /* origins taken at a time */
    atomic_size_t next_step;
    atomic_uint_fast64_t next_origin;
    xchg_progress_fn progress; /* called by worker 0 only */
    void *progress_ctx;
    pthread_mutex_t lock;
    int lock_ok;            /* lock was made */
    int threads;
    wstate *ws;             /* threads entries */
    pthread_t *tids;
} shared;

void xchg_verify_note(xchg_verify_report *r, const char *fmt, ...)
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

/* Follow every block of origin o through the whole schedule, counting
 * selections into w->cnt and noting blocks that end away from their dest. */
static void follow_origin(wstate *w, uint32_t o)
{
    const shared *v = w->v;
    const xchg_follower *f = v->f;
    uint32_t p = v->p;
    uint32_t *restrict cur = w->cur;
    for (uint32_t d = 0; d < p; d++)
        cur[d] = o;
    if (v->counts) {
        /* weigh every block that leaves its holder: a second loop over the
         * origin's p blocks a step, only in this mode */
        const uint64_t *row = xchg_vcounts_row(v->counts, o);
        for (size_t s = 0; s < v->nsteps; s++) {
            memcpy(w->prev, cur, (size_t)p * sizeof *cur);
            xchg_follow_origin_run(f, s, o, cur, w->cnt + s * (size_t)p);
            uint64_t *b = w->byt + s * (size_t)p;
            for (uint32_t d = 0; d < p; d++)
                if (cur[d] != w->prev[d])
                    b[w->prev[d]] += row[d];
        }
    } else {
        for (size_t s = 0; s < v->nsteps; s++)
            xchg_follow_origin_run(f, s, o, cur, w->cnt + s * (size_t)p);
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
    if (v->counts)
        for (size_t i = 0; i < n; i++)
            v->total_bytes[i] += w->byt[i];
    pthread_mutex_unlock(&v->lock);
    memset(w->cnt, 0, n * sizeof *w->cnt);
    if (v->counts)
        memset(w->byt, 0, n * sizeof *w->byt);
    w->since = 0;
}

/* ------------------------------------------------------------------ */
/* Per-step message checks                                             */
/* ------------------------------------------------------------------ */

/* Is node n's message to `to` (b blocks) at step s to a valid other node?
 * If not, count a port violation and report it. */
static int valid_partner(const shared *v, size_t s, uint32_t n, uint32_t to, uint64_t b,
                         xchg_verify_report *rep, stepres *r)
{
    if (to < v->p && to != n)
        return 1;
    r->port++;
    if (to == n)
        xchg_verify_note(rep, "step %zu node %u sends %llu blocks to itself", s, n,
                   (unsigned long long)b);
    else
        xchg_verify_note(rep, "step %zu node %u sends %llu blocks to %u, not a node (p = %u)", s, n,
                   (unsigned long long)b, to, v->p);
    return 0;
}

/* Note that `to` receives a message from n (the first two senders kept). */
static void note_receiver(wstate *w, uint32_t n, uint32_t to)
{
    if (w->recv_n[to]++ == 0) {
        w->tnodes[w->ntn++] = to;
        w->recv_a[to] = n;
    } else if (w->recv_n[to] == 2) {
        w->recv_b[to] = n;
    }
}

/* Walk the route of n's message to `to` (b blocks) at step s: add it to
 * the load of every link it crosses, check it stays in the network and
 * ends at `to`, and keep the longest route in r->hops. */
static void walk_route(wstate *w, size_t s, uint32_t n, uint32_t to, uint64_t b,
                       xchg_verify_report *rep, stepres *r)
{
    const shared *v = w->v;
    if (!v->has_links) { /* a switch: one hop, no link to share */
        if (r->hops < 1)
            r->hops = 1;
        if (b > r->link_max_blocks)
            r->link_max_blocks = b;
        return;
    }
    xchg_seg segs[XCHG_MAX_DIMS];
    int nsegs = 0;
    xchg_topo_route(v->t, n, to, v->s->steps[s].route_policy, segs, &nsegs);
    uint32_t at = n;
    uint64_t hops = 0;
    for (int k = 0; k < nsegs; k++) {
        for (uint32_t h = 0; h < segs[k].hops; h++) {
            size_t id;
            uint32_t nx = xchg_link_hop(v->t, at, segs[k].dim, segs[k].dir, &id);
            if (nx == XCHG_NONE) {
                r->route++;
                xchg_verify_note(rep,
                           "step %zu route %u->%u leaves the network at node %u (dim %d, "
                           "dir %+d)",
                           s, n, to, at, segs[k].dim, segs[k].dir);
                goto done;
            }
            if (w->lmsg[id]++ == 0) {
                w->tlinks[w->ntl++] = (uint32_t)id;
                w->lfirst[id] = n;
            } else if (w->lmsg[id] == 2) {
                w->lsecond[id] = n;
            }
            w->lblk[id] += b;
            at = nx;
            hops++;
        }
    }
    if (at != to) {
        r->route++;
        xchg_verify_note(rep, "step %zu route %u->%u ends at node %u after %llu hops", s, n, to, at,
                   (unsigned long long)hops);
    }
done:
    if (hops > r->hops)
        r->hops = hops;
}

/* One-port receive: every node noted twice or more is a violation. Zeroes
 * the receive counts. */
static void close_receivers(wstate *w, size_t s, xchg_verify_report *rep, stepres *r)
{
    for (size_t i = 0; i < w->ntn; i++) {
        uint32_t x = w->tnodes[i];
        if (w->recv_n[x] >= 2) {
            r->port++;
            xchg_verify_note(rep, "step %zu node %u receives %u messages (from %u, %u%s)", s, x,
                       w->recv_n[x], w->recv_a[x], w->recv_b[x], w->recv_n[x] > 2 ? ", ..." : "");
        }
        w->recv_n[x] = 0;
    }
    w->ntn = 0;
}

/* Link loads of step s: the busiest link, and every link with two or more
 * messages (reported when the schedule claims contention-free). Zeroes the
 * link counts. */
static void close_links(wstate *w, size_t s, xchg_verify_report *rep, stepres *r)
{
    const shared *v = w->v;
    const xchg_cstep *cs = &v->f->steps[s];
    for (size_t i = 0; i < w->ntl; i++) {
        size_t id = w->tlinks[i];
        uint32_t m = w->lmsg[id];
        if (m > r->max_link_msgs)
            r->max_link_msgs = m;
        if (w->lblk[id] > r->link_max_blocks)
            r->link_max_blocks = w->lblk[id];
        if (m >= 2) {
            r->conflicts++;
            if (v->s->contention_free) {
                uint32_t node, far, a = w->lfirst[id], b = w->lsecond[id];
                int dim, dir;
                xchg_topo_link_ends(v->t, id, &node, &dim, &dir, &far);
                xchg_verify_note(rep,
                           "step %zu link %u->%u (%s %d%s) carries %u messages "
                           "(%u->%u, %u->%u%s) in a contention-free schedule",
                           s, node, far, v->t->kind == XCHG_TOPO_TREE ? "level" : "dim", dim,
                           v->t->kind != XCHG_TOPO_TREE ? "" : dir == 0 ? ", climbing" : ", down",
                           m, a, xchg_cstep_partner(cs, a), b, xchg_cstep_partner(cs, b),
                           m > 2 ? ", ..." : "");
            }
        }
        w->lmsg[id] = 0;
        w->lblk[id] = 0;
    }
    w->ntl = 0;
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
    const xchg_step *st = &v->s->steps[s];
    const xchg_cstep *cs = &v->f->steps[s];
    stepres r;
    memset(&r, 0, sizeof r);
    for (uint32_t n = 0; n < v->p && cs->active; n++) {
        uint32_t to = xchg_cstep_partner(cs, n);
        uint64_t b = to == XCHG_NONE ? 0 : xchg_step_blocks(st, n);
        if (b == 0 || !valid_partner(v, s, n, to, b, rep, &r))
            continue; /* idle, or counted as a port violation */
        note_receiver(w, n, to);
        walk_route(w, s, n, to, b, rep, &r);
    }
    close_receivers(w, s, rep, &r);
    close_links(w, s, rep, &r);
    *out = r;
}

/* ------------------------------------------------------------------ */
/* Threads                                                             */
/* ------------------------------------------------------------------ */

/* Worker 0 tells the caller how far the run is: the steps' message checks
 * and the origins followed, each weighed by its share of the work. */
static void report_progress(wstate *w, double *last)
{
    shared *v = w->v;
    if (!v->progress || w != &v->ws[0])
        return;
    double now = xchg_now();
    if (now - *last < VERIFY_PROGRESS_EVERY)
        return;
    *last = now;
    double steps = v->nsteps ? (double)atomic_load(&v->next_step) / (double)v->nsteps : 1;
    double origins = v->p ? (double)atomic_load(&v->next_origin) / (double)v->p : 1;
    if (steps > 1)
        steps = 1;
    if (origins > 1)
        origins = 1;
    /* following blocks is about p times the messages' work */
    v->progress(v->progress_ctx, v->messages_only ? steps : 0.1 * steps + 0.9 * origins);
}

/* A worker: message checks of whole steps first, then origins. */
static void *worker(void *arg)
{
    wstate *w = arg;
    shared *v = w->v;
    double last = xchg_now();
    for (;;) {
        size_t s = atomic_fetch_add(&v->next_step, 1);
        if (s >= v->nsteps)
            break;
        check_step(w, s, NULL, &v->res[s]);
        report_progress(w, &last);
    }
    for (;;) {
        if (v->messages_only)
            break;
        report_progress(w, &last);
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
    free(w->byt);
    free(w->cur);
    free(w->prev);
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
    if (v->counts) {
        w->byt = calloc(v->nsteps * p + 1, sizeof *w->byt);
        w->prev = malloc(p * sizeof *w->prev);
        if (!w->byt || !w->prev)
            return XCHG_ENOMEM;
    }
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
/* Entry point                                                         */
/* ------------------------------------------------------------------ */

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

/* Bytes the run needs for `threads` workers (counts, scratch, the compiled
 * steps). */
static uint64_t bytes_needed(const shared *v, uint64_t threads)
{
    uint64_t sp = (uint64_t)v->nsteps * v->p;
    uint64_t counts = v->messages_only ? 0 : sp; /* per-(step,node) counts */
    uint64_t bytes = v->counts ? sp : 0;         /* and their bytes */
    uint64_t per = counts * 4 + bytes * 8 + (uint64_t)v->p * (v->counts ? 24 : 20) +
                   (uint64_t)v->nlinks * 24;
    return threads * per + counts * 8 + bytes * 8 + xchg_follower_bytes(v->s);
}

/* Most links a route on t crosses: every dimension's full length (a route
 * may be made to go the long way round), 1 on a switch. */
static uint64_t most_hops(const xchg_topo *t)
{
    if (!xchg_topo_has_links(t))
        return 1;
    uint64_t h = 0;
    for (int k = 0; k < t->ndims; k++)
        h += t->size[k] - 1;
    return h ? h : 1;
}

/* a * b, saturating. */
static uint64_t mul_sat(uint64_t a, uint64_t b)
{
    return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

/* ETOOBIG when the work of checking `steps` steps on t (block-steps, or
 * link hops in messages-only mode) is beyond the limit. */
static int check_work(const xchg_topo *t, uint64_t steps, int messages_only,
                      uint64_t max_work, xchg_err *err)
{
    char spec[64];
    uint64_t p = t->nodes;
    if (messages_only && mul_sat(mul_sat(p, steps), most_hops(t)) > max_work)
        return xchg_fail(err, XCHG_ETOOBIG,
                         "checking the messages of %s: %llu nodes over %llu steps, up to %llu "
                         "hops each, is more than the limit of %llu link hops (max_work)",
                         xchg_topo_spec(t, spec, sizeof spec), (unsigned long long)p,
                         (unsigned long long)steps, (unsigned long long)most_hops(t),
                         (unsigned long long)max_work);
    if (!messages_only && mul_sat(p * p, steps) > max_work)
        return xchg_fail(err, XCHG_ETOOBIG,
                         "verifying %s: %llu blocks over %llu steps is more than the limit of "
                         "%llu block-steps (max_work)",
                         xchg_topo_spec(t, spec, sizeof spec), (unsigned long long)(p * p),
                         (unsigned long long)steps, (unsigned long long)max_work);
    return XCHG_OK;
}

int xchg_verify_check_work(const xchg_topo *t, uint64_t steps, const xchg_verify_opts *opts,
                           xchg_err *err)
{
    if (!t)
        return xchg_fail(err, XCHG_EINVAL, "xchg_verify_check_work needs a topology");
    uint64_t max_work = opts && opts->max_work ? opts->max_work : XCHG_VERIFY_DEFAULT_MAX_WORK;
    return check_work(t, steps, opts && opts->messages_only, max_work, err);
}

/* The memory limit of a run with opts. */
static uint64_t max_bytes_of(const xchg_verify_opts *opts)
{
    return opts && opts->max_bytes ? opts->max_bytes : XCHG_VERIFY_DEFAULT_MAX_BYTES;
}

uint64_t xchg_verify_bytes(const xchg_topo *t, uint64_t steps, const xchg_verify_opts *opts)
{
    if (!t)
        return 0;
    /* one thread's counts and scratch, the merged counts and the results:
     * bytes_needed without the compiled steps, which depend on the rules */
    uint64_t p = t->nodes, nl = xchg_topo_link_count(t);
    uint64_t counts = opts && opts->messages_only ? 0 : mul_sat(steps, p);
    return mul_sat(counts, 12) + p * 20 + nl * 24 + mul_sat(steps, sizeof(stepres));
}

/* Choose v->threads: as asked (0: every core), at most p and
 * VERIFY_MAX_THREADS, fewer while the memory is over VERIFY_MAX_BYTES.
 * ETOOBIG when even one thread needs too much. */
static int choose_threads(shared *v, const xchg_verify_opts *opts, xchg_err *err)
{
    int threads = opts && opts->threads > 0 ? opts->threads : xchg_ncpus();
    if (threads > VERIFY_MAX_THREADS)
        threads = VERIFY_MAX_THREADS;
    if ((uint32_t)threads > v->p)
        threads = (int)v->p;
    uint64_t cap = max_bytes_of(opts);
    while (threads > 1 && bytes_needed(v, (uint64_t)threads) > cap)
        threads--;
    if (bytes_needed(v, 1) > cap) {
        char spec[64];
        return xchg_fail(err, XCHG_ETOOBIG,
                         "verifying %s over %zu steps needs %llu MiB of count arrays and "
                         "compiled steps, more than the %llu MiB allowed",
                         xchg_topo_spec(v->t, spec, sizeof spec), v->nsteps,
                         (unsigned long long)(bytes_needed(v, 1) >> 20),
                         (unsigned long long)(cap >> 20));
    }
    v->threads = threads;
    return XCHG_OK;
}

/* Allocate the run: results, counts, thread states, the compiled steps
 * (EINVAL on a malformed step), the lock and the work queue. 0, EINVAL or
 * ENOMEM; whatever was made is freed by verify_free. */
static int verify_start(shared *v, xchg_err *err)
{
    int threads = v->threads;
    v->res = calloc(v->nsteps + 1, sizeof *v->res);
    v->total = calloc(v->messages_only ? 1 : v->nsteps * (size_t)v->p + 1, sizeof *v->total);
    if (v->counts)
        v->total_bytes = calloc(v->nsteps * (size_t)v->p + 1, sizeof *v->total_bytes);
    v->ws = calloc((size_t)threads, sizeof *v->ws);
    v->tids = calloc((size_t)threads, sizeof *v->tids);
    if (!v->res || !v->total || !v->ws || !v->tids || (v->counts && !v->total_bytes))
        return xchg_fail(err, XCHG_ENOMEM, "out of memory starting the verifier");
    int rc = xchg_follower_new(v->s, &v->f, err);
    if (rc)
        return rc;
    for (int i = 0; i < threads; i++)
        if (wstate_init(&v->ws[i], v) != XCHG_OK)
            return xchg_fail(err, XCHG_ENOMEM, "out of memory for %d verifier threads",
                             threads);
    if (pthread_mutex_init(&v->lock, NULL) != 0)
        return xchg_fail(err, XCHG_ENOMEM, "cannot make a mutex for the verifier");
    v->lock_ok = 1;
    v->flush_every = UINT32_MAX / v->p;
    uint64_t per_origin = (uint64_t)v->p * (v->nsteps ? v->nsteps : 1);
    v->chunk = per_origin >= 65536 ? 1 : (uint32_t)(65536 / per_origin);
    if (v->chunk > v->p / (uint32_t)threads + 1)
        v->chunk = v->p / (uint32_t)threads + 1;
    atomic_init(&v->next_step, 0);
    atomic_init(&v->next_origin, 0);
    return XCHG_OK;
}

/* Run the workers: the calling thread is worker 0; if a thread cannot
 * start, the others take its share (the work queue is shared). Threads that
 * never started hold zero counts, so nothing is lost. */
static void run_workers(shared *v)
{
    int started = 0;
    for (int i = 1; i < v->threads; i++) {
        if (pthread_create(&v->tids[i], NULL, worker, &v->ws[i]) != 0)
            break;
        started = i;
    }
    worker(&v->ws[0]);
    for (int i = 1; i <= started; i++)
        pthread_join(v->tids[i], NULL);
}

/* Sizes of step st: each node's count of held-and-selected blocks against
 * its declared size (mismatches into the report); returns the largest
 * count (the step's volume; 0: nobody sent). */
static uint64_t report_sizes(const shared *v, size_t st, xchg_verify_report *report)
{
    const xchg_step *step = &v->s->steps[st];
    const xchg_cstep *cs = &v->f->steps[st];
    const uint64_t *tot = v->total + st * (size_t)v->p;
    uint64_t big = 0;
    for (uint32_t n = 0; n < v->p; n++) {
        uint32_t to = xchg_cstep_partner(cs, n);
        uint64_t declared = to == XCHG_NONE ? 0 : xchg_step_blocks(step, n);
        if (tot[n] > big)
            big = tot[n];
        if (tot[n] != declared) {
            report->size_mismatches++;
            xchg_verify_note(report, "step %zu node %u declares %llu blocks but holds and selects %llu",
                       st, n, (unsigned long long)declared, (unsigned long long)tot[n]);
        }
    }
    return big;
}

/* The bytes of step st's messages (counts mode): the largest, and the
 * messages that carry any (a message of only 0-byte blocks is not sent). */
static void report_bytes(const shared *v, size_t st, xchg_verify_report *report)
{
    const uint64_t *b = v->total_bytes + st * (size_t)v->p;
    uint64_t big = 0;
    for (uint32_t n = 0; n < v->p; n++) {
        if (!b[n])
            continue;
        report->messages_bytes++;
        if (b[n] > big)
            big = b[n];
    }
    report->startups_bytes += big > 0;
    report->volume_bytes += big;
    if (big > report->max_message_bytes)
        report->max_message_bytes = big;
}

/* Fill the report step by step: the message checks' counts (re-running a
 * failing step serially for its messages), then sizes, start-ups and
 * volume (declared ones in messages-only mode). */
static void report_steps(shared *v, xchg_verify_report *report)
{
    for (size_t st = 0; st < v->nsteps; st++) {
        const stepres *r = &v->res[st];
        report->port_violations += r->port;
        report->route_failures += r->route;
        report->link_conflicts += r->conflicts;
        if (r->max_link_msgs > report->max_link_messages)
            report->max_link_messages = r->max_link_msgs;
        report->link_volume_blocks += r->link_max_blocks;
        if (r->hops > report->max_hops)
            report->max_hops = r->hops;
        if ((r->port || r->route || (v->s->contention_free && r->conflicts)) &&
            report->reported < XCHG_VERIFY_MAX_REPORTED) {
            stepres again;
            check_step(&v->ws[0], st, report, &again);
        }
        /* messages only: nothing was followed, so trust the declared sizes */
        uint64_t big = v->messages_only ? v->s->steps[st].max_blocks
                                        : report_sizes(v, st, report);
        if (big > 0)
            report->startups++;
        report->volume_blocks += big;
        if (v->counts)
            report_bytes(v, st, report);
    }
    report->counted_bytes = v->counts != NULL;
}

/* The undelivered blocks of every thread, in (origin, dest) order. */
static void report_misses(const shared *v, xchg_verify_report *report)
{
    miss all[XCHG_VERIFY_MAX_REPORTED * VERIFY_MAX_THREADS];
    int nall = 0;
    for (int i = 0; i < v->threads; i++) {
        report->undelivered += v->ws[i].undelivered;
        for (int k = 0; k < v->ws[i].nmiss; k++)
            all[nall++] = v->ws[i].misses[k];
    }
    qsort(all, (size_t)nall, sizeof all[0], miss_cmp);
    for (int k = 0; k < nall; k++)
        xchg_verify_note(report, "block (%u,%u) ended at node %u", all[k].o, all[k].d, all[k].at);
}

/* Free what verify_start made (any part of it). */
static void verify_free(shared *v)
{
    if (v->lock_ok)
        pthread_mutex_destroy(&v->lock);
    if (v->ws)
        for (int i = 0; i < v->threads; i++)
            wstate_free(&v->ws[i]);
    free(v->ws);
    free(v->tids);
    xchg_follower_free(v->f);
    free(v->res);
    free(v->total);
    free(v->total_bytes);
}

int xchg_verify_exchange(const xchg_sched *s, const xchg_verify_opts *opts,
                         xchg_verify_report *report, xchg_err *err)
{
    shared v;
    memset(&v, 0, sizeof v);
    v.s = s;
    v.t = &s->topo;
    v.p = s->topo.nodes;
    v.nsteps = s->nsteps;
    v.has_links = xchg_topo_has_links(v.t);
    v.nlinks = xchg_topo_link_count(v.t);
    v.messages_only = opts && opts->messages_only;
    v.counts = opts ? opts->counts : NULL;
    v.progress = opts ? opts->progress : NULL;
    v.progress_ctx = opts ? opts->progress_ctx : NULL;
    int rc = xchg_verify_check_work(v.t, v.nsteps, opts, err);
    if (rc == XCHG_OK)
        rc = choose_threads(&v, opts, err);
    if (rc == XCHG_OK)
        rc = verify_start(&v, err);
    if (rc == XCHG_OK) {
        run_workers(&v);
        memset(report, 0, sizeof *report);
        report->blocks = v.messages_only ? 0 : (uint64_t)v.p * v.p;
        report->messages_only = v.messages_only;
        report->steps = v.nsteps;
        report_steps(&v, report);
        report_misses(&v, report);
        report->failures = report->undelivered + report->size_mismatches +
                           report->port_violations + report->route_failures +
                           (s->contention_free ? report->link_conflicts : 0);
        report->ok = report->failures == 0;
    }
    verify_free(&v);
    return rc;
}
