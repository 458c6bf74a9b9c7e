/*
 * follow_node.c - one node's view of a schedule, step by step: whom it
 * sends to, the blocks it holds before each step, the ones it sends and
 * the ones it receives, and from whom (xchg_follow_node_* in xchg_core.h).
 *
 * How: a block's path depends on the whole schedule, so the iterator is made
 * by following all p*p blocks, origin by origin, with the compiled loop of
 * follow.h (p positions of memory), and noting every block that leaves or
 * reaches the node: an event (step, origin, dest, sender). The events are
 * sorted by (step, origin, dest) and cut into one list per step. The blocks
 * held are not stored per step: the iterator starts from the node's own p
 * blocks and, at each step, removes those that left and merges in those
 * that arrived. Memory: p + steps, plus the events, plus two hold lists as
 * long as the most the node ever holds; never p*p unless the node does see
 * that many (block, step) events.
 */
#include <stdlib.h>
#include <string.h>

#include "sched/follow.h"

/* A block leaving (from unused) or reaching the node at a step. */
typedef struct nevent {
    uint32_t step, origin, dest, from;
} nevent;

/* A growing list of events. */
typedef struct nevents {
    nevent *v;
    size_t n, cap;
} nevents;

struct xchg_follow_node {
    uint32_t node, p;
    size_t nsteps;
    size_t k;                 /* the record next_ writes next */
    uint32_t *partner;        /* nsteps: the node's partner per step */
    xchg_block *sent;         /* sends of every step, by step */
    size_t *soff;             /* nsteps+1: step k's sends are [soff[k], soff[k+1]) */
    xchg_block *recv;         /* receives of every step, by step */
    uint32_t *recv_from;      /* sender of each receive */
    size_t *roff;             /* nsteps+1, as soff */
    xchg_block *held[2];      /* the hold list before step k, and scratch */
    int cur;                  /* which of held[] is current */
    size_t nheld;
};

/* Append an event; 0 or XCHG_ENOMEM. */
static int nevents_push(nevents *e, uint32_t step, uint32_t o, uint32_t d, uint32_t from)
{
    if (e->n == e->cap) {
        size_t cap = e->cap ? 2 * e->cap : 256;
        nevent *v = realloc(e->v, cap * sizeof *v);
        if (!v)
            return XCHG_ENOMEM;
        e->v = v;
        e->cap = cap;
    }
    e->v[e->n++] = (nevent){step, o, d, from};
    return XCHG_OK;
}

/* Order events by (step, origin, dest). */
static int nevent_cmp(const void *a, const void *b)
{
    const nevent *x = a, *y = b;
    if (x->step != y->step)
        return x->step < y->step ? -1 : 1;
    if (x->origin != y->origin)
        return x->origin < y->origin ? -1 : 1;
    if (x->dest != y->dest)
        return x->dest < y->dest ? -1 : 1;
    return 0;
}

/* Does the node's sent block stay with it at step k (its partner is not a
 * valid other node)? */
static int stays(const xchg_follow_node *it, size_t k)
{
    return xchg_follow_target(it->node, it->partner[k], it->p) == it->node;
}

/*
 * Follow every block, origin by origin, and note in sends and recvs each
 * one that leaves or reaches the node (a send that stays with the node is
 * noted too). prev, cur and cnt are p-entry scratch arrays. 0 or ENOMEM.
 */
static int collect_events(const xchg_follower *f, xchg_follow_node *it, uint32_t *prev,
                          uint32_t *cur, uint32_t *cnt, nevents *sends, nevents *recvs)
{
    uint32_t p = f->p, node = it->node;
    for (uint32_t o = 0; o < p; o++) {
        for (uint32_t d = 0; d < p; d++)
            cur[d] = o;
        for (size_t k = 0; k < f->nsteps; k++) {
            if (!f->steps[k].active)
                continue;
            memcpy(prev, cur, (size_t)p * sizeof *cur);
            uint32_t before = cnt[node];
            xchg_follow_origin_run(f, k, o, cur, cnt);
            /* sent blocks that stay put show no move: ask the rule */
            int sent_stay = cnt[node] != before && stays(it, k);
            for (uint32_t d = 0; d < p; d++) {
                uint32_t a = prev[d], b = cur[d];
                int rc = XCHG_OK;
                if (a == b) {
                    if (sent_stay && a == node && xchg_follow_sends(f, k, node, o, d))
                        rc = nevents_push(sends, (uint32_t)k, o, d, node);
                } else if (a == node) {
                    rc = nevents_push(sends, (uint32_t)k, o, d, node);
                } else if (b == node) {
                    rc = nevents_push(recvs, (uint32_t)k, o, d, a);
                }
                if (rc)
                    return rc;
            }
        }
    }
    return XCHG_OK;
}

/* Sort events and cut them into per-step lists: blk[i] (and from[i] when
 * from is not NULL), step k's being [off[k], off[k+1]). */
static void cut_by_step(nevents *e, size_t nsteps, xchg_block *blk, uint32_t *from, size_t *off)
{
    if (e->n) /* e->v is NULL when nothing was noted */
        qsort(e->v, e->n, sizeof *e->v, nevent_cmp);
    size_t i = 0;
    for (size_t k = 0; k <= nsteps; k++) {
        off[k] = i;
        while (i < e->n && e->v[i].step == k) {
            blk[i] = (xchg_block){e->v[i].origin, e->v[i].dest};
            if (from)
                from[i] = e->v[i].from;
            i++;
        }
    }
}

/* Most blocks the node holds before any step or at the end. */
static size_t most_held(const xchg_follow_node *it)
{
    size_t h = it->p, most = h;
    for (size_t k = 0; k < it->nsteps; k++) {
        if (!stays(it, k))
            h -= it->soff[k + 1] - it->soff[k];
        h += it->roff[k + 1] - it->roff[k];
        if (h > most)
            most = h;
    }
    return most;
}

void xchg_follow_node_free(xchg_follow_node *it)
{
    if (!it)
        return;
    free(it->partner);
    free(it->sent);
    free(it->soff);
    free(it->recv);
    free(it->recv_from);
    free(it->roff);
    free(it->held[0]);
    free(it->held[1]);
    free(it);
}

/* Make the per-step lists and the hold lists of it from the events; 0 or
 * ENOMEM. */
static int build_lists(xchg_follow_node *it, nevents *sends, nevents *recvs)
{
    size_t T = it->nsteps;
    it->sent = malloc((sends->n + 1) * sizeof *it->sent);
    it->soff = malloc((T + 1) * sizeof *it->soff);
    it->recv = malloc((recvs->n + 1) * sizeof *it->recv);
    it->recv_from = malloc((recvs->n + 1) * sizeof *it->recv_from);
    it->roff = malloc((T + 1) * sizeof *it->roff);
    if (!it->sent || !it->soff || !it->recv || !it->recv_from || !it->roff)
        return XCHG_ENOMEM;
    cut_by_step(sends, T, it->sent, NULL, it->soff);
    cut_by_step(recvs, T, it->recv, it->recv_from, it->roff);
    size_t most = most_held(it);
    it->held[0] = malloc(most * sizeof *it->held[0]);
    it->held[1] = malloc(most * sizeof *it->held[1]);
    if (!it->held[0] || !it->held[1])
        return XCHG_ENOMEM;
    for (uint32_t d = 0; d < it->p; d++)
        it->held[0][d] = (xchg_block){it->node, d};
    it->nheld = it->p;
    return XCHG_OK;
}

int xchg_follow_node_new(const xchg_follower *f, uint32_t node, xchg_follow_node **out,
                         xchg_err *err)
{
    if (!f || !out || node >= f->p)
        return xchg_fail(err, XCHG_EINVAL, "xchg_follow_node_new needs a follower, an out "
                                           "pointer and a node below p");
    if (f->nsteps >= UINT32_MAX)
        return xchg_fail(err, XCHG_ETOOBIG, "xchg_follow_node_new: %zu steps is too many",
                         f->nsteps);
    uint32_t p = f->p;
    xchg_follow_node *it = calloc(1, sizeof *it);
    uint32_t *prev = malloc((size_t)p * sizeof *prev);
    uint32_t *cur = malloc((size_t)p * sizeof *cur);
    uint32_t *cnt = calloc(p, sizeof *cnt);
    nevents sends = {NULL, 0, 0}, recvs = {NULL, 0, 0};
    int rc = XCHG_ENOMEM;
    if (!it || !prev || !cur || !cnt)
        goto done;
    it->node = node;
    it->p = p;
    it->nsteps = f->nsteps;
    it->partner = malloc((f->nsteps + 1) * sizeof *it->partner);
    if (!it->partner)
        goto done;
    for (size_t k = 0; k < f->nsteps; k++)
        it->partner[k] = xchg_cstep_partner(&f->steps[k], node);
    if ((rc = collect_events(f, it, prev, cur, cnt, &sends, &recvs)) == XCHG_OK)
        rc = build_lists(it, &sends, &recvs);
done:
    free(prev);
    free(cur);
    free(cnt);
    free(sends.v);
    free(recvs.v);
    if (rc) {
        xchg_follow_node_free(it);
        return xchg_fail(err, rc, "out of memory following the blocks of node %u", node);
    }
    *out = it;
    return XCHG_OK;
}

/* Order of two blocks by (origin, dest): negative, 0 or positive. */
static int block_cmp(xchg_block a, xchg_block b)
{
    if (a.origin != b.origin)
        return a.origin < b.origin ? -1 : 1;
    return a.dest < b.dest ? -1 : a.dest > b.dest;
}

/* The hold list after step k: the current one less the sent blocks that
 * left, merged with the received ones (all three lists are sorted, and the
 * sent blocks are a subset of the held ones), into the other buffer. */
static void advance_held(xchg_follow_node *it, size_t k)
{
    const xchg_block *h = it->held[it->cur];
    xchg_block *out = it->held[!it->cur];
    const xchg_block *s = it->sent + it->soff[k];
    size_t ns = stays(it, k) ? 0 : it->soff[k + 1] - it->soff[k];
    const xchg_block *r = it->recv + it->roff[k];
    size_t nr = it->roff[k + 1] - it->roff[k];
    size_t i = 0, j = 0, m = 0, n = 0;
    while (i < it->nheld || m < nr) {
        if (i < it->nheld && j < ns && block_cmp(h[i], s[j]) == 0) {
            i++, j++; /* left the node */
        } else if (m >= nr || (i < it->nheld && block_cmp(h[i], r[m]) < 0)) {
            out[n++] = h[i++];
        } else {
            out[n++] = r[m++];
        }
    }
    it->cur = !it->cur;
    it->nheld = n;
}

int xchg_follow_node_next(xchg_follow_node *it, xchg_follow_node_step *out)
{
    if (!it || !out || it->k > it->nsteps)
        return 0;
    size_t k = it->k;
    memset(out, 0, sizeof *out);
    out->step = k;
    out->partner = XCHG_NONE;
    out->held = it->held[it->cur];
    out->nheld = it->nheld;
    if (k < it->nsteps) {
        out->partner = it->partner[k];
        out->sent = it->sent + it->soff[k];
        out->nsent = it->soff[k + 1] - it->soff[k];
        out->received = it->recv + it->roff[k];
        out->received_from = it->recv_from + it->roff[k];
        out->nreceived = it->roff[k + 1] - it->roff[k];
        advance_held(it, k);
    }
    it->k++;
    return 1;
}
