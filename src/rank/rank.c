/*
 * rank.c - one node's program (xchg_rank_new): whom it sends to and
 * receives from at each step, which blocks, and where each block is kept.
 * An executor runs it on real buffers (src/mpi/); it needs no other node's
 * lists.
 *
 * Finding the node's blocks without following all p*p of them: when the
 * algorithm's paths are invariant under a group H of relabellings
 * (xchg_symmetry), every block is (h.c, h.d') for a class representative c,
 * an h in H and some d', and its path is h applied to the path of (c, d').
 * So the node n holds block (h.c, h.d') before step k exactly when
 * h.path(c, d')[k] = n, i.e. h is the element taking path(c, d')[k] to n.
 * Following the p paths of each representative once (p * steps each) finds
 * every block n sends or receives at every step, and nothing else is kept.
 * Without a symmetry the follower's per-node iterator follows every block.
 *
 * Where blocks live: see "One rank's program" in xchg_rank.h. A hash map from a
 * block to its scratch slot holds only the blocks passing through.
 *
 * Only the complete exchange has such programs: a schedule of another
 * operation (a broadcast's tokens carry one datum, a reduction's combine)
 * is refused, never run as an exchange.
 */
#include "xchg_rank.h"
#include "base/hashmap.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

/* One event: the node sends or receives block (o, d) at step, with peer. */
typedef struct event {
    uint32_t step, o, d, peer;
} event;

typedef struct event_vec {
    event *v;
    size_t n, cap;
} event_vec;

struct xchg_rank {
    uint32_t node, p;
    size_t nsteps;
    uint32_t *send_to, *recv_from;  /* per step */
    size_t *send_off, *recv_off;    /* per step + 1: offsets into the lists */
    xchg_block *send, *recv;
    xchg_loc *send_loc, *recv_loc;
    size_t scratch_blocks;
};

/* The array v of *cap elements of size elem, holding n, with room for one
 * more: v itself, or a larger copy (*cap updated); NULL when it cannot grow
 * (v is then unchanged and still the caller's). */
static void *room_for_one(void *v, size_t *cap, size_t n, size_t elem)
{
    if (n < *cap)
        return v;
    size_t more = *cap ? *cap * 2 : 256;
    void *grown = realloc(v, more * elem);
    if (grown)
        *cap = more;
    return grown;
}

static int push(event_vec *ev, uint32_t step, uint32_t o, uint32_t d, uint32_t peer)
{
    event *v = room_for_one(ev->v, &ev->cap, ev->n, sizeof *v);
    if (!v)
        return XCHG_ENOMEM;
    ev->v = v;
    ev->v[ev->n++] = (event){step, o, d, peer};
    return XCHG_OK;
}

static int event_cmp(const void *a, const void *b)
{
    const event *x = a, *y = b;
    if (x->step != y->step)
        return x->step < y->step ? -1 : 1;
    if (x->o != y->o)
        return x->o < y->o ? -1 : 1;
    return x->d < y->d ? -1 : x->d > y->d;
}

/* ---- the symmetry group acting on node ids ------------------------------ */

/* h.a: a relabelled by h. */
static uint32_t act(const xchg_topo *t, const xchg_symmetry *sym, uint32_t h, uint32_t a)
{
    if (sym->kind == XCHG_SYM_XOR)
        return a ^ h;
    if (sym->kind == XCHG_SYM_CYCLIC)
        return (uint32_t)(((uint64_t)a + h) % t->nodes);
    uint32_t r = 0;
    for (int k = 0; k < t->ndims; k++) {
        uint32_t n = t->size[k];
        r += ((xchg_topo_coord(t, a, k) + xchg_topo_coord(t, h, k)) % n) * t->stride[k];
    }
    return r;
}

/* The h with h.x = n, or XCHG_NONE when that h is not in the group. */
static uint32_t taking(const xchg_topo *t, const xchg_symmetry *sym, uint32_t x, uint32_t n)
{
    if (sym->kind == XCHG_SYM_XOR)
        return n ^ x;
    if (sym->kind == XCHG_SYM_CYCLIC)
        return (uint32_t)(((uint64_t)n + t->nodes - x) % t->nodes);
    uint32_t h = 0;
    for (int k = 0; k < t->ndims; k++) {
        uint32_t sz = t->size[k];
        uint32_t c = (xchg_topo_coord(t, n, k) + sz - xchg_topo_coord(t, x, k)) % sz;
        if (c % sym->period[k])
            return XCHG_NONE;
        h += c * t->stride[k];
    }
    return h;
}

/* The symmetry fits t: a kind the group code knows, XOR on 2^D nodes,
 * TRANSLATE periods >= 1 dividing the sizes. */
static int sym_fits(const xchg_topo *t, const xchg_symmetry *sym)
{
    switch (sym->kind) {
    case XCHG_SYM_NONE:
    case XCHG_SYM_CYCLIC:
        return 1;
    case XCHG_SYM_XOR:
        return (t->nodes & (t->nodes - 1)) == 0;
    case XCHG_SYM_TRANSLATE:
        for (int k = 0; k < t->ndims; k++)
            if (sym->period[k] == 0 || t->size[k] % sym->period[k])
                return 0;
        return 1;
    default:
        return 0;
    }
}

/* Class representatives: node ids with coordinate k below period[k]
 * (TRANSLATE), or node 0. Writes them to *reps (caller frees). */
static int representatives(const xchg_topo *t, const xchg_symmetry *sym, uint32_t **reps,
                           size_t *nreps)
{
    size_t n = 1;
    if (sym->kind == XCHG_SYM_TRANSLATE)
        for (int k = 0; k < t->ndims; k++)
            n *= sym->period[k];
    uint32_t *r = malloc(n * sizeof *r);
    if (!r)
        return XCHG_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        uint32_t id = 0;
        size_t rest = i;
        if (sym->kind == XCHG_SYM_TRANSLATE)
            for (int k = t->ndims - 1; k >= 0; k--) {
                id += (uint32_t)(rest % sym->period[k]) * t->stride[k];
                rest /= sym->period[k];
            }
        r[i] = id;
    }
    *reps = r;
    *nreps = n;
    return XCHG_OK;
}

/*
 * Every send and receive of node n, from the paths of the representatives:
 * all blocks of one representative c move through a step together
 * (xchg_follow_origin_step, the verifier's fast loop), and each block that
 * moves is a send of n when the element taking its holder to n exists, and
 * a receive of n when the one taking its new holder to n does.
 */
static int events_by_symmetry(const xchg_sched *s, const xchg_symmetry *sym, uint32_t n,
                              event_vec *sends, event_vec *recvs, xchg_err *err)
{
    const xchg_topo *t = xchg_sched_topo(s);
    size_t ns = xchg_sched_nsteps(s);
    uint32_t p = t->nodes;
    xchg_follower *f = NULL;
    uint32_t *reps = NULL, *pos = malloc(p * sizeof *pos), *prev = malloc(p * sizeof *prev);
    uint32_t *sent = calloc(p, sizeof *sent);
    size_t nreps = 0;
    int rc = pos && prev && sent ? XCHG_OK : XCHG_ENOMEM;
    if (!rc)
        rc = xchg_follower_new(s, &f, err);
    if (!rc)
        rc = representatives(t, sym, &reps, &nreps);
    for (size_t r = 0; !rc && r < nreps; r++) {
        uint32_t c = reps[r];
        for (uint32_t d = 0; d < p; d++)
            pos[d] = c;
        for (size_t k = 0; !rc && k < ns; k++) {
            memcpy(prev, pos, p * sizeof *pos);
            if (k % 4096 == 0) /* the counters are not used: keep them small */
                memset(sent, 0, p * sizeof *sent);
            rc = xchg_follow_origin_step(f, k, c, pos, sent);
            for (uint32_t d = 0; !rc && d < p; d++) {
                uint32_t from = prev[d], to = pos[d];
                if (from == to)
                    continue;
                uint32_t h = taking(t, sym, from, n);
                if (h != XCHG_NONE)
                    rc = push(sends, (uint32_t)k, act(t, sym, h, c), act(t, sym, h, d),
                              act(t, sym, h, to));
                h = rc ? XCHG_NONE : taking(t, sym, to, n);
                if (h != XCHG_NONE)
                    rc = push(recvs, (uint32_t)k, act(t, sym, h, c), act(t, sym, h, d),
                              act(t, sym, h, from));
            }
        }
    }
    if (rc == XCHG_ENOMEM)
        xchg_fail(err, rc, "out of memory while deriving node %u's lists", (unsigned)n);
    free(pos);
    free(prev);
    free(sent);
    free(reps);
    xchg_follower_free(f);
    return rc;
}

/* Every send and receive of node n, following every block (no symmetry). */
static int events_by_following(const xchg_sched *s, uint32_t n, event_vec *sends,
                               event_vec *recvs, xchg_err *err)
{
    xchg_follower *f = NULL;
    xchg_follow_node *it = NULL;
    int rc = xchg_follower_new(s, &f, err);
    if (!rc)
        rc = xchg_follow_node_new(f, n, &it, err);
    xchg_follow_node_step st;
    while (!rc && xchg_follow_node_next(it, &st)) {
        for (size_t i = 0; !rc && i < st.nsent; i++)
            rc = push(sends, (uint32_t)st.step, st.sent[i].origin, st.sent[i].dest,
                      st.partner);
        for (size_t i = 0; !rc && i < st.nreceived; i++)
            rc = push(recvs, (uint32_t)st.step, st.received[i].origin, st.received[i].dest,
                      st.received_from[i]);
    }
    if (rc == XCHG_ENOMEM)
        xchg_fail(err, rc, "out of memory while deriving node %u's lists", (unsigned)n);
    xchg_follow_node_free(it);
    xchg_follower_free(f);
    return rc;
}

/* ---- where blocks live ---------------------------------------------------- */

/* Growable list of free scratch slots. */
typedef struct slot_list {
    uint32_t *v;
    size_t n, cap;
} slot_list;

static int slot_push(slot_list *l, uint32_t slot)
{
    uint32_t *v = room_for_one(l->v, &l->cap, l->n, sizeof *v);
    if (!v)
        return XCHG_ENOMEM;
    l->v = v;
    l->v[l->n++] = slot;
    return XCHG_OK;
}

/*
 * Give every sent block the place it is read from and every received block
 * the place it is written to, step by step, and check that the node only
 * sends what it holds and ends with exactly its own blocks.
 */
static int assign_places(xchg_rank *r, xchg_err *err)
{
    uint32_t n = r->node, p = r->p;
    uint8_t *left_send = calloc(p, 1), *at_home = calloc(p, 1);
    xchg_hashmap held = {0}; /* block o * p + d -> its scratch slot */
    slot_list free_slots = {0}, freed_now = {0};
    int rc = left_send && at_home ? XCHG_OK : XCHG_ENOMEM;
    size_t high = 0;
    for (size_t k = 0; !rc && k < r->nsteps; k++) {
        for (size_t i = r->send_off[k]; !rc && i < r->send_off[k + 1]; i++) {
            xchg_block b = r->send[i];
            uint32_t slot;
            if (xchg_hashmap_take(&held, (uint64_t)b.origin * p + b.dest, &slot)) {
                r->send_loc[i] = XCHG_LOC(XCHG_LOC_SCRATCH, slot);
                rc = slot_push(&freed_now, slot);
            } else if (b.origin == n && !left_send[b.dest]) {
                r->send_loc[i] = XCHG_LOC(XCHG_LOC_SEND, b.dest);
                left_send[b.dest] = 1;
            } else if (b.dest == n && at_home[b.origin]) {
                r->send_loc[i] = XCHG_LOC(XCHG_LOC_RECV, b.origin);
                at_home[b.origin] = 0;
            } else {
                rc = xchg_fail(err, XCHG_EINTERNAL,
                               "node %u sends block (%u, %u) at step %zu but does not hold it",
                               (unsigned)n, (unsigned)b.origin, (unsigned)b.dest, k);
            }
        }
        for (size_t i = r->recv_off[k]; !rc && i < r->recv_off[k + 1]; i++) {
            xchg_block b = r->recv[i];
            if (b.dest == n) {
                if (at_home[b.origin])
                    rc = xchg_fail(err, XCHG_EINTERNAL,
                                   "node %u receives block (%u, %u) twice", (unsigned)n,
                                   (unsigned)b.origin, (unsigned)b.dest);
                r->recv_loc[i] = XCHG_LOC(XCHG_LOC_RECV, b.origin);
                at_home[b.origin] = 1;
                continue;
            }
            uint32_t slot = free_slots.n ? free_slots.v[--free_slots.n] : (uint32_t)high++;
            r->recv_loc[i] = XCHG_LOC(XCHG_LOC_SCRATCH, slot);
            rc = xchg_hashmap_insert(&held, (uint64_t)b.origin * p + b.dest, slot);
        }
        /* slots sent from at this step are free from the next step on */
        for (size_t i = 0; !rc && i < freed_now.n; i++)
            rc = slot_push(&free_slots, freed_now.v[i]);
        freed_now.n = 0;
    }
    for (uint32_t x = 0; !rc && x < p; x++) {
        if (x != n && !at_home[x])
            rc = xchg_fail(err, XCHG_EINTERNAL, "node %u never receives block (%u, %u)",
                           (unsigned)n, (unsigned)x, (unsigned)n);
        else if (x != n && !left_send[x])
            rc = xchg_fail(err, XCHG_EINTERNAL, "node %u never sends its block (%u, %u)",
                           (unsigned)n, (unsigned)n, (unsigned)x);
    }
    if (!rc && held.n)
        rc = xchg_fail(err, XCHG_EINTERNAL,
                       "node %u ends holding %zu blocks that are not its own", (unsigned)n,
                       held.n);
    if (rc == XCHG_ENOMEM)
        xchg_fail(err, rc, "out of memory while placing node %u's blocks", (unsigned)n);
    r->scratch_blocks = high;
    free(left_send);
    free(at_home);
    xchg_hashmap_free(&held);
    free(free_slots.v);
    free(freed_now.v);
    return rc;
}

/*
 * Turn the sorted events of one direction into per-step offsets, blocks and
 * the one peer of each step; EINTERNAL when a step has two peers.
 */
static int gather(xchg_rank *r, const event_vec *ev, int sending, xchg_err *err)
{
    size_t *off = calloc(r->nsteps + 1, sizeof *off);
    uint32_t *peer = malloc((r->nsteps ? r->nsteps : 1) * sizeof *peer);
    xchg_block *blocks = malloc((ev->n ? ev->n : 1) * sizeof *blocks);
    xchg_loc *loc = malloc((ev->n ? ev->n : 1) * sizeof *loc);
    if (sending) {
        r->send_off = off, r->send_to = peer, r->send = blocks, r->send_loc = loc;
    } else {
        r->recv_off = off, r->recv_from = peer, r->recv = blocks, r->recv_loc = loc;
    }
    if (!off || !peer || !blocks || !loc)
        return xchg_fail(err, XCHG_ENOMEM, "out of memory for node %u's lists",
                         (unsigned)r->node);
    for (size_t k = 0; k < r->nsteps; k++)
        peer[k] = XCHG_NONE;
    for (size_t i = 0; i < ev->n; i++) {
        const event *e = &ev->v[i];
        if (peer[e->step] != XCHG_NONE && peer[e->step] != e->peer)
            return xchg_fail(err, XCHG_EINTERNAL, "node %u %s %u and %u at step %u",
                             (unsigned)r->node, sending ? "sends to" : "receives from",
                             (unsigned)peer[e->step], (unsigned)e->peer, (unsigned)e->step);
        if (e->peer == r->node || e->peer >= r->p)
            return xchg_fail(err, XCHG_EINTERNAL, "node %u %s node %u at step %u",
                             (unsigned)r->node, sending ? "sends to" : "receives from",
                             (unsigned)e->peer, (unsigned)e->step);
        peer[e->step] = e->peer;
        blocks[i] = (xchg_block){e->o, e->d};
        off[e->step + 1]++;
    }
    for (size_t k = 0; k < r->nsteps; k++)
        off[k + 1] += off[k];
    return XCHG_OK;
}

int xchg_rank_new(const xchg_sched *s, const xchg_symmetry *sym, uint32_t node,
                  xchg_rank **out, xchg_err *err)
{
    if (!s || !out)
        return xchg_fail(err, XCHG_EINVAL, "xchg_rank_new: NULL argument");
    const xchg_topo *t = xchg_sched_topo(s);
    if (node >= t->nodes)
        return xchg_fail(err, XCHG_EINVAL, "xchg_rank_new: node %u is not one of the %u nodes",
                         (unsigned)node, (unsigned)t->nodes);
    xchg_op op;
    xchg_sched_op(s, &op);
    if (op.kind != XCHG_OP_ALLTOALL || xchg_sched_nphases(s) > 1)
        return xchg_fail(err, XCHG_EINVAL,
                         "xchg_rank_new: %s performs %s, not the complete exchange; per-rank "
                         "programs are derived for the complete exchange only "
                         "(docs/operations.md)",
                         xchg_sched_algorithm(s), xchg_op_name(op.kind));
    xchg_symmetry none = {0};
    if (!sym)
        sym = &none;
    if (!sym_fits(t, sym))
        return xchg_fail(err, XCHG_EINVAL,
                         "xchg_rank_new: the symmetry given does not fit the schedule's topology");
    xchg_rank *r = calloc(1, sizeof *r);
    event_vec sends = {0}, recvs = {0};
    if (!r)
        return xchg_fail(err, XCHG_ENOMEM, "out of memory for node %u's lists", (unsigned)node);
    r->node = node;
    r->p = t->nodes;
    r->nsteps = xchg_sched_nsteps(s);
    int rc = sym->kind == XCHG_SYM_NONE ? events_by_following(s, node, &sends, &recvs, err)
                                        : events_by_symmetry(s, sym, node, &sends, &recvs, err);
    if (!rc) {
        if (sends.n) /* qsort must not see a NULL array, even an empty one */
            qsort(sends.v, sends.n, sizeof *sends.v, event_cmp);
        if (recvs.n)
            qsort(recvs.v, recvs.n, sizeof *recvs.v, event_cmp);
        rc = gather(r, &sends, 1, err);
    }
    if (!rc)
        rc = gather(r, &recvs, 0, err);
    free(sends.v);
    free(recvs.v);
    if (!rc)
        rc = assign_places(r, err);
    if (rc) {
        xchg_rank_free(r);
        return rc;
    }
    *out = r;
    return XCHG_OK;
}

void xchg_rank_free(xchg_rank *r)
{
    if (!r)
        return;
    free(r->send_to);
    free(r->recv_from);
    free(r->send_off);
    free(r->recv_off);
    free(r->send);
    free(r->recv);
    free(r->send_loc);
    free(r->recv_loc);
    free(r);
}

uint32_t xchg_rank_node(const xchg_rank *r)
{
    return r ? r->node : XCHG_NONE;
}

size_t xchg_rank_nsteps(const xchg_rank *r)
{
    return r ? r->nsteps : 0;
}

void xchg_rank_step_get(const xchg_rank *r, size_t k, xchg_rank_step *out)
{
    memset(out, 0, sizeof *out);
    out->send_to = out->recv_from = XCHG_NONE;
    if (!r || k >= r->nsteps)
        return;
    size_t s0 = r->send_off[k], r0 = r->recv_off[k];
    out->nsend = r->send_off[k + 1] - s0;
    out->nrecv = r->recv_off[k + 1] - r0;
    out->send_to = out->nsend ? r->send_to[k] : XCHG_NONE;
    out->recv_from = out->nrecv ? r->recv_from[k] : XCHG_NONE;
    out->send = r->send + s0;
    out->send_loc = r->send_loc + s0;
    out->recv = r->recv + r0;
    out->recv_loc = r->recv_loc + r0;
}

size_t xchg_rank_scratch_blocks(const xchg_rank *r)
{
    return r ? r->scratch_blocks : 0;
}

size_t xchg_rank_bytes(const xchg_rank *r)
{
    if (!r)
        return 0;
    size_t blocks = r->send_off[r->nsteps] + r->recv_off[r->nsteps];
    return sizeof *r + r->nsteps * (2 * sizeof(uint32_t) + 2 * sizeof(size_t)) +
           blocks * (sizeof(xchg_block) + sizeof(xchg_loc));
}
