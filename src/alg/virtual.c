/*
 * virtual.c - hosting a schedule made for a larger virtual network on the
 * real one (see virtual.h for the mapping, the cost accounting and the API).
 *
 * Building goes virtual step by virtual step:
 *   1. real sizes: how many real blocks each virtual node's message carries
 *      (follow blocks through the virtual schedule with its compiled block
 *      follower, see real_counts);
 *   2. messages: each virtual message with real blocks becomes a real
 *      message host(u) -> host(w), or a local move when both are one node;
 *      messages between the same two real nodes are merged;
 *   3. packing: largest message first, each into the first sub-step where
 *      its sender and receiver are free and no link of its route is taken.
 * The real step's rule (a callback) asks: does the block sit, before this
 * virtual step, on a virtual node hosted here whose message went into this
 * sub-step, and does that virtual node send it? The follower answers both
 * (or the generator's own locate the first). The verifier calls that rule
 * from several threads at once, so the context, follower included, is
 * read-only once built.
 *
 * xchg_virtual_estimate (at the end) accounts for the same allocations
 * without building: the real steps at substeps_max sub-steps per virtual
 * step, the ctx as vctx_held counts it for a built schedule, the working
 * memory of embed, and the blocks real_counts follows.
 */
#include <stdlib.h>
#include <string.h>

#include "sched/follow.h"
#include "sched/links.h"
#include "sched/sched_internal.h"
#include "alg/virtual.h"

#define NOSUB UINT16_MAX

/* Callback context of a hosted schedule (read-only once built). */
typedef struct vctx {
    xchg_sched *vs;               /* the virtual schedule (owned) */
    xchg_follower *vf;            /* vs compiled (owned) */
    xchg_topo real, virt;
    xchg_virtual_locate_fn locate; /* NULL: ask vf */
    uint32_t *host;               /* p' entries: host of each virtual node */
    uint32_t *prim;               /* p entries: primary virtual node */
    uint16_t *sub;                /* vsteps*p': sub-step of u's message, NOSUB */
    size_t nreal, capreal;
    uint32_t *rv;                 /* real step -> virtual step */
    uint16_t *rsub;               /* real step -> sub-step index */
} vctx;

static void vctx_free(void *p)
{
    vctx *c = p;
    if (!c)
        return;
    xchg_follower_free(c->vf);
    xchg_sched_free(c->vs);
    free(c->host);
    free(c->prim);
    free(c->sub);
    free(c->rv);
    free(c->rsub);
    free(c);
}

/* Host coordinate of virtual coordinate cv (real size n, virtual nv). */
static uint32_t host_coord(uint32_t cv, uint32_t n, uint32_t nv)
{
    return (uint32_t)((uint64_t)cv * n / nv);
}

/* Primary virtual coordinate of real coordinate c. */
static uint32_t prim_coord(uint32_t c, uint32_t n, uint32_t nv)
{
    return (uint32_t)(((uint64_t)c * nv + n - 1) / n);
}

int xchg_virtual_check(const xchg_topo *real, const xchg_topo *virt, xchg_err *err)
{
    int ok_kind = real->kind == XCHG_TOPO_RING || real->kind == XCHG_TOPO_TORUS ||
                  real->kind == XCHG_TOPO_ARRAY || real->kind == XCHG_TOPO_MESH;
    if (!ok_kind || virt->kind != real->kind || virt->ndims != real->ndims)
        return xchg_fail(err, XCHG_ENOTAPPLIC,
                         "virtual nodes: the virtual network must be a ring, array, mesh or "
                         "torus of the real one's kind and number of dimensions");
    for (int k = 0; k < real->ndims; k++)
        if (virt->size[k] < real->size[k] || real->size[k] == 0)
            return xchg_fail(err, XCHG_ENOTAPPLIC,
                             "virtual nodes: virtual size %u is below the real size %u in "
                             "dimension %d",
                             (unsigned)virt->size[k], (unsigned)real->size[k], k);
    return XCHG_OK;
}

uint32_t xchg_virtual_host(const xchg_topo *real, const xchg_topo *virt, uint32_t v)
{
    uint32_t id = 0;
    for (int k = 0; k < real->ndims; k++) {
        uint32_t cv = (v / virt->stride[k]) % virt->size[k];
        id += host_coord(cv, real->size[k], virt->size[k]) * real->stride[k];
    }
    return id;
}

uint32_t xchg_virtual_primary(const xchg_topo *real, const xchg_topo *virt, uint32_t n)
{
    uint32_t id = 0;
    for (int k = 0; k < real->ndims; k++) {
        uint32_t c = (n / real->stride[k]) % real->size[k];
        id += prim_coord(c, real->size[k], virt->size[k]) * virt->stride[k];
    }
    return id;
}

/* Follow block (vo, vd) through every virtual step, adding `sign` to
 * cnt[t * p' + holder] at each step t whose holder sends it. */
static void count_block(const xchg_follower *vf, uint32_t vo, uint32_t vd, int64_t *cnt,
                        int sign)
{
    uint32_t u = vo;
    for (size_t t = 0; t < vf->nsteps; t++) {
        uint32_t holder = u;
        if (xchg_follow_block_step(vf, t, vo, vd, &u))
            cnt[t * vf->p + holder] += sign;
    }
}

/*
 * cnt[t*p' + u] = real blocks virtual node u sends at virtual step t. Either
 * follow every real block (+1), or start from the declared virtual sizes and
 * follow every block with a virtual-only end (-1), whichever follows fewer.
 * Returns 0, or XCHG_EINTERNAL when a count goes negative or past 2^32
 * (the virtual schedule's declared sizes are wrong), ENOMEM.
 */
static int real_counts(const vctx *c, int64_t *cnt, xchg_err *err)
{
    const xchg_sched *vs = c->vs;
    const xchg_follower *vf = c->vf;
    uint32_t p = c->real.nodes, pv = c->virt.nodes;
    size_t T = vs->nsteps;
    uint64_t nreal = (uint64_t)p * p, nextra = (uint64_t)pv * pv - nreal;
    if (nreal <= nextra) {
        for (uint32_t o = 0; o < p; o++)
            for (uint32_t d = 0; d < p; d++)
                count_block(vf, c->prim[o], c->prim[d], cnt, +1);
    } else {
        uint8_t *isprim = calloc(pv, 1);
        if (!isprim)
            return xchg_fail(err, XCHG_ENOMEM, "out of memory hosting virtual nodes");
        for (uint32_t n = 0; n < p; n++)
            isprim[c->prim[n]] = 1;
        for (size_t t = 0; t < T; t++)
            for (uint32_t u = 0; u < pv; u++) {
                uint32_t w = xchg_cstep_partner(&vf->steps[t], u);
                cnt[t * pv + u] = w == XCHG_NONE ? 0 : (int64_t)xchg_step_blocks(&vs->steps[t], u);
            }
        for (uint32_t vo = 0; vo < pv; vo++)
            for (uint32_t vd = 0; vd < pv; vd++)
                if (!isprim[vo] || !isprim[vd])
                    count_block(vf, vo, vd, cnt, -1);
        free(isprim);
    }
    for (size_t i = 0; i < T * pv; i++)
        if (cnt[i] < 0 || cnt[i] > (int64_t)UINT32_MAX)
            return xchg_fail(err, XCHG_EINTERNAL,
                             "virtual nodes: the virtual schedule's declared sizes disagree "
                             "with its rules (virtual step %zu, node %zu)",
                             i / pv, i % pv);
    return XCHG_OK;
}

/* The real step's rule: see the file comment. */
static int hosted_rule(const void *ctx, size_t step, uint32_t node, uint32_t origin,
                       uint32_t dest)
{
    const vctx *c = ctx;
    uint32_t t = c->rv[step];
    uint32_t vo = c->prim[origin], vd = c->prim[dest];
    uint32_t u = c->locate ? c->locate(c->vs, t, vo, vd) : xchg_follow_block_at(c->vf, t, vo, vd);
    if (u >= c->virt.nodes || c->host[u] != node ||
        c->sub[(size_t)t * c->virt.nodes + u] != c->rsub[step])
        return 0;
    return xchg_follow_sends(c->vf, t, u, vo, vd);
}

/* One real message of a virtual step. */
typedef struct rmsg {
    uint32_t from, to;
    uint64_t blocks;
    uint16_t sub;
} rmsg;

/* Order: by (from, to). */
static int cmp_pair(const void *a, const void *b)
{
    const rmsg *x = a, *y = b;
    if (x->from != y->from)
        return x->from < y->from ? -1 : 1;
    if (x->to != y->to)
        return x->to < y->to ? -1 : 1;
    return 0;
}

/* Order: largest first, then by (from, to) so the result is deterministic. */
static int cmp_size(const void *a, const void *b)
{
    const rmsg *x = a, *y = b;
    if (x->blocks != y->blocks)
        return x->blocks > y->blocks ? -1 : 1;
    return cmp_pair(a, b);
}

/* Directed links of the route from -> to (shortest, dimension-ordered),
 * numbered by src/sched/links.h; writes at most max ids, returns how many.
 * Routes between real nodes stay in the network, so a route that leaves it
 * (none does) just ends there. */
static size_t route_links(const xchg_topo *t, uint32_t from, uint32_t to, size_t *ids,
                          size_t max)
{
    xchg_link_walk lw;
    size_t n = 0, id;
    xchg_link_walk_start(&lw, t, from, to, XCHG_ROUTE_SHORTEST);
    while (n < max && xchg_link_walk_next(&lw, &id))
        ids[n++] = id;
    return n;
}

/* Sub-step occupancy while packing one virtual step. */
typedef struct packing {
    size_t nsub, cap;
    uint8_t **busy;   /* per sub-step: p senders, p receivers, nlinks links */
    size_t width;
} packing;

/* Index of a sub-step free for (from, to, links), adding one if needed;
 * -1 when out of memory. Marks it taken. */
static long pack_one(packing *pk, uint32_t p, uint32_t from, uint32_t to, const size_t *links,
                     size_t nl)
{
    for (size_t k = 0;; k++) {
        if (k == pk->nsub) {
            if (pk->nsub == pk->cap) {
                size_t cap = pk->cap ? 2 * pk->cap : 8;
                uint8_t **b = realloc(pk->busy, cap * sizeof *b);
                if (!b)
                    return -1;
                pk->busy = b;
                pk->cap = cap;
            }
            pk->busy[pk->nsub] = calloc(pk->width, 1);
            if (!pk->busy[pk->nsub])
                return -1;
            pk->nsub++;
        }
        uint8_t *b = pk->busy[k];
        if (b[from] || b[p + to])
            continue;
        size_t i;
        for (i = 0; i < nl; i++)
            if (b[2 * (size_t)p + links[i]])
                break;
        if (i < nl)
            continue;
        b[from] = b[p + to] = 1;
        for (i = 0; i < nl; i++)
            b[2 * (size_t)p + links[i]] = 1;
        return (long)k;
    }
}

static void packing_reset(packing *pk)
{
    for (size_t k = 0; k < pk->nsub; k++)
        free(pk->busy[k]);
    pk->nsub = 0;
}

/* Record that real step `real` is sub-step `sub` of virtual step t. */
static int note_real(vctx *c, uint32_t t, uint16_t sub)
{
    if (c->nreal == c->capreal) {
        size_t cap = c->capreal ? 2 * c->capreal : 32;
        uint32_t *rv = realloc(c->rv, cap * sizeof *rv);
        if (!rv)
            return XCHG_ENOMEM;
        c->rv = rv;
        uint16_t *rs = realloc(c->rsub, cap * sizeof *rs);
        if (!rs)
            return XCHG_ENOMEM;
        c->rsub = rs;
        c->capreal = cap;
    }
    c->rv[c->nreal] = t;
    c->rsub[c->nreal] = sub;
    c->nreal++;
    return XCHG_OK;
}

/* Most virtual coordinates one real coordinate hosts along dimension k:
 * ceil(n'/n). */
static uint64_t guests_along(const xchg_topo *real, const xchg_topo *virt, int k)
{
    return (virt->size[k] + (uint64_t)real->size[k] - 1) / real->size[k];
}

/* Largest number of virtual nodes one real node hosts: the product of
 * guests_along over the dimensions. */
static uint64_t max_guests(const xchg_topo *real, const xchg_topo *virt)
{
    uint64_t g = 1;
    for (int k = 0; k < real->ndims; k++)
        g *= guests_along(real, virt, k);
    return g;
}

/* Working memory of one hosting, freed by embed_free. */
typedef struct embed {
    const xchg_topo *real;
    vctx *c;                /* the hosted schedule's ctx (owned by s) */
    xchg_sched *s;          /* the hosted schedule being built */
    int64_t *cnt;           /* vsteps*p': real blocks per virtual message */
    rmsg *msgs;             /* p': real messages of one virtual step */
    size_t *links;          /* maxlinks: links of one route */
    size_t maxlinks;
    packing pk;
    uint64_t guests;        /* most virtual nodes on one real node */
} embed;

/* Make the hosted schedule e->s with its ctx (host and primary maps, the
 * compiled follower of vs) and the working memory. Takes vs over (it is
 * freed with e->s, or here when e->s could not be made). 0, ENOMEM, or
 * EINTERNAL when vs is malformed. */
static int embed_start(embed *e, const xchg_topo *real, xchg_sched *vs,
                       xchg_virtual_locate_fn locate, const char *name, xchg_err *err)
{
    uint32_t p = real->nodes, pv = vs->topo.nodes;
    size_t T = vs->nsteps;
    memset(e, 0, sizeof *e);
    e->real = real;
    e->c = calloc(1, sizeof *e->c);
    e->s = xchg_sched_new(real, name, 1);
    if (!e->c || !e->s) {
        xchg_sched_free(vs);
        free(e->c);
        e->c = NULL;
        return xchg_fail(err, XCHG_ENOMEM, "out of memory hosting virtual nodes");
    }
    vctx *c = e->c;
    c->vs = vs;
    c->real = *real;
    c->virt = vs->topo;
    c->locate = locate;
    e->s->ctx = c;
    e->s->ctx_free = vctx_free;
    xchg_err why = {{0}};
    int rc = xchg_follower_new(vs, &c->vf, &why);
    if (rc)
        return xchg_fail(err, rc == XCHG_EINVAL ? XCHG_EINTERNAL : rc, "virtual nodes: %s%s",
                         rc == XCHG_EINVAL ? "the virtual schedule is malformed: " : "",
                         why.msg);
    e->maxlinks = 1;
    for (int k = 0; k < real->ndims; k++)
        e->maxlinks += real->size[k];
    c->host = malloc((size_t)pv * sizeof *c->host);
    c->prim = malloc((size_t)p * sizeof *c->prim);
    c->sub = malloc((T ? T : 1) * (size_t)pv * sizeof *c->sub);
    e->cnt = calloc((T ? T : 1) * (size_t)pv, sizeof *e->cnt);
    e->msgs = malloc((size_t)pv * sizeof *e->msgs);
    e->links = malloc(e->maxlinks * sizeof *e->links);
    e->pk.width = 2 * (size_t)p + xchg_topo_link_count(real);
    if (!c->host || !c->prim || !c->sub || !e->cnt || !e->msgs || !e->links)
        return xchg_fail(err, XCHG_ENOMEM, "out of memory hosting virtual nodes");
    for (uint32_t v = 0; v < pv; v++)
        c->host[v] = xchg_virtual_host(real, &vs->topo, v);
    for (uint32_t n = 0; n < p; n++)
        c->prim[n] = xchg_virtual_primary(real, &vs->topo, n);
    e->guests = max_guests(real, &vs->topo);
    return XCHG_OK;
}

/* Free the working memory, and the hosted schedule (with its ctx and vs)
 * unless keep. */
static void embed_free(embed *e, int keep)
{
    packing_reset(&e->pk);
    free(e->pk.busy);
    free(e->cnt);
    free(e->msgs);
    free(e->links);
    if (!keep)
        xchg_sched_free(e->s);
}

/* The virtual node u's message at virtual step t as a real message: 1 with
 * its ends, or 0 when it carries no real block or stays on one host. */
static int real_message(const embed *e, size_t t, uint32_t u, uint32_t *from, uint32_t *to)
{
    const vctx *c = e->c;
    uint32_t pv = c->virt.nodes;
    uint32_t w = xchg_cstep_partner(&c->vf->steps[t], u);
    if (e->cnt[t * pv + u] == 0 || w == XCHG_NONE || w >= pv || c->host[w] == c->host[u])
        return 0;
    *from = c->host[u];
    *to = c->host[w];
    return 1;
}

/* 2. The real messages of virtual step t into e->msgs, merged per (from,
 * to) and in that order; returns how many. */
static size_t step_messages(embed *e, size_t t)
{
    uint32_t pv = e->c->virt.nodes;
    rmsg *msgs = e->msgs;
    size_t nm = 0;
    for (uint32_t u = 0; u < pv; u++) {
        uint32_t from, to;
        if (!real_message(e, t, u, &from, &to))
            continue;
        msgs[nm] = (rmsg){from, to, (uint64_t)e->cnt[t * pv + u], 0};
        nm++;
    }
    qsort(msgs, nm, sizeof *msgs, cmp_pair);
    size_t nmerged = 0;
    for (size_t i = 0; i < nm; i++) {
        if (nmerged && msgs[nmerged - 1].from == msgs[i].from &&
            msgs[nmerged - 1].to == msgs[i].to)
            msgs[nmerged - 1].blocks += msgs[i].blocks;
        else
            msgs[nmerged++] = msgs[i];
    }
    return nmerged;
}

/* 3. Pack the n messages, largest first, into sub-steps (e->pk), noting
 * each one's sub-step; they are left in (from, to) order. 0, ENOMEM, or
 * ETOOBIG for a message of 2^32 blocks or more, or too many sub-steps. */
static int pack_messages(embed *e, size_t n, xchg_err *err)
{
    rmsg *msgs = e->msgs;
    uint32_t p = e->real->nodes;
    qsort(msgs, n, sizeof *msgs, cmp_size);
    for (size_t i = 0; i < n; i++) {
        if (msgs[i].blocks > UINT32_MAX)
            return xchg_fail(err, XCHG_ETOOBIG,
                             "virtual nodes: a real message of more than 2^32 blocks");
        size_t nl = route_links(e->real, msgs[i].from, msgs[i].to, e->links, e->maxlinks);
        long k = pack_one(&e->pk, p, msgs[i].from, msgs[i].to, e->links, nl);
        if (k < 0)
            return xchg_fail(err, XCHG_ENOMEM, "out of memory hosting virtual nodes");
        if (k >= NOSUB)
            return xchg_fail(err, XCHG_ETOOBIG, "virtual nodes: too many sub-steps in one step");
        msgs[i].sub = (uint16_t)k;
    }
    qsort(msgs, n, sizeof *msgs, cmp_pair);
    return XCHG_OK;
}

/* Which sub-step each virtual node's message of step t went into (NOSUB:
 * none). 0, or EINTERNAL when a message is missing from the n packed. */
static int note_subs(embed *e, size_t t, size_t n, xchg_err *err)
{
    vctx *c = e->c;
    uint32_t pv = c->virt.nodes;
    uint16_t *sub = &c->sub[t * pv];
    for (uint32_t u = 0; u < pv; u++) {
        sub[u] = NOSUB;
        rmsg key = {0, 0, 0, 0};
        if (!real_message(e, t, u, &key.from, &key.to))
            continue;
        rmsg *m = bsearch(&key, e->msgs, n, sizeof *e->msgs, cmp_pair);
        if (!m)
            return xchg_fail(err, XCHG_EINTERNAL, "virtual nodes: lost a message");
        sub[u] = m->sub;
    }
    return XCHG_OK;
}

/* The real steps of virtual step t: one per sub-step (an idle one when
 * there are none but the step copies), each with a partner table, the
 * merged sizes and the hosted rule. 0 or ENOMEM. */
static int add_real_steps(embed *e, size_t t, size_t n, xchg_err *err)
{
    vctx *c = e->c;
    const xchg_step *vst = &c->vs->steps[t];
    uint32_t p = e->real->nodes;
    size_t nsub = e->pk.nsub;
    if (nsub == 0 && vst->copy_blocks == 0)
        return XCHG_OK;
    for (size_t k = 0; k < (nsub ? nsub : 1); k++) {
        xchg_step st = xchg_step_shift(0, 0, xchg_rule_fn(hosted_rule), 0);
        st.partner = XCHG_PARTNER_TABLE;
        st.partner_table = malloc((size_t)p * sizeof *st.partner_table);
        st.blocks_table = calloc(p, sizeof *st.blocks_table);
        if (!st.partner_table || !st.blocks_table || note_real(c, (uint32_t)t, (uint16_t)k)) {
            free(st.partner_table);
            free(st.blocks_table);
            return xchg_fail(err, XCHG_ENOMEM, "out of memory hosting virtual nodes");
        }
        for (uint32_t i = 0; i < p; i++)
            st.partner_table[i] = XCHG_NONE;
        for (size_t i = 0; i < n; i++)
            if (e->msgs[i].sub == k) {
                st.partner_table[e->msgs[i].from] = e->msgs[i].to;
                st.blocks_table[e->msgs[i].from] = (uint32_t)e->msgs[i].blocks;
            }
        if (k == 0)
            st.copy_blocks = vst->copy_blocks * e->guests;
        if (xchg_sched_add(e->s, &st)) /* frees the tables */
            return xchg_fail(err, XCHG_ENOMEM, "out of memory hosting virtual nodes");
    }
    return XCHG_OK;
}

/* What the hosted schedule's ctx holds once built, for its ctx_bytes: the
 * ctx, the guest schedule, its compiled follower, the host and primary
 * maps, the sub-step of every virtual message and the real-to-virtual step
 * maps at their capacity. */
static uint64_t vctx_held(const vctx *c)
{
    uint64_t pv = c->virt.nodes, p = c->real.nodes, T = c->vs->nsteps;
    return sizeof *c + xchg_sched_bytes(c->vs) + xchg_follower_held(c->vf) +
           pv * sizeof *c->host + p * sizeof *c->prim + (T ? T : 1) * pv * sizeof *c->sub +
           (uint64_t)c->capreal * (sizeof *c->rv + sizeof *c->rsub);
}

int xchg_virtual_embed(const xchg_topo *real, xchg_sched *vs, xchg_virtual_locate_fn locate,
                       const char *name, xchg_sched **out, xchg_err *err)
{
    int rc = xchg_virtual_check(real, &vs->topo, err);
    if (rc) {
        xchg_sched_free(vs);
        return rc;
    }
    embed e;
    rc = embed_start(&e, real, vs, locate, name, err);
    if (rc == XCHG_OK)
        rc = real_counts(e.c, e.cnt, err);
    for (size_t t = 0; rc == XCHG_OK && t < vs->nsteps; t++) {
        size_t n = step_messages(&e, t);
        rc = pack_messages(&e, n, err);
        if (rc == XCHG_OK)
            rc = note_subs(&e, t, n, err);
        if (rc == XCHG_OK)
            rc = add_real_steps(&e, t, n, err);
        packing_reset(&e.pk);
    }
    embed_free(&e, rc == XCHG_OK);
    if (rc)
        return rc;
    e.s->ctx_bytes = vctx_held(e.c);
    *out = e.s;
    return XCHG_OK;
}

/*
 * Sub-steps that the messages of one virtual step can need, at most, when
 * real hosts virt (the bound behind xchg_virtual_estimate's steps).
 *
 * pack_one is first fit: a message goes into sub-step k only when each of
 * sub-steps 0..k-1 already holds a message sharing its sender, its receiver
 * or a directed link of its route. So a step needs at most 1 + D sub-steps,
 * D the most other messages one message conflicts with. Let c_k =
 * ceil(n'_k / n_k), the most virtual coordinates one real coordinate hosts
 * along dimension k; a real node hosts at most g = prod_k c_k virtual nodes.
 *   Sender: every virtual node sends at most one message a step (the guest
 *   is one-port), and a host's messages to one other host are merged, so a
 *   real node sends at most gamma = min(g, p-1) messages: gamma-1 others.
 *   Receiver: every virtual node receives at most one: gamma-1 others.
 *   Links: at most 2(l-1), l = max_k prod_{j != k} c_j, when the guest
 *   (i) moves every message along one dimension, (ii) by as many hops as
 *   every other message of the step moving along that dimension in that
 *   direction, (iii) with no virtual link carrying two messages
 *   (contention-free), and (iv) the real route of a message is the image
 *   of its virtual one (the shortest way on the real ring is the way the
 *   virtual message goes). Then a message m moving along k uses the real
 *   links onto which the links of its own virtual interval map. The real
 *   line it runs on is the image of at most l virtual lines (the hosting
 *   maps coordinates one dimension at a time), and along the line a real
 *   link is the image of one virtual link of each (host_coord is monotone
 *   and steps by 0 or 1). On m's own virtual line and on any line carrying
 *   a message merged into m, every other interval is disjoint from m's by
 *   (iii); on each of the other l-1 lines the intervals are disjoint and
 *   as long as m's by (ii), so at most two of them overlap m's.
 * Every sub-step holds a message, so there are also at most as many
 * sub-steps as messages: min(p', p * gamma).
 *
 * The registry's guests meet (i)-(iii): their steps are AR1 steps on
 * logical rings (the even nodes of every ring of one dimension shift one
 * way by one distance, the odd nodes the other way), swaps across one
 * dimension, or cyclic shifts inside segments, and the verifier holds them
 * to contention-freedom. (iv) holds wherever every message covers less
 * than half the real dimension; it can fail only on the smallest networks
 * (a real dimension under twice a guest's longest hop, or of size 2, whose
 * two directions share one link), which the proof above does not cover:
 * there the bound rests on a search, not a proof: over small rings and
 * tori hosting ar1, at2, mt3/mtk and pt4/ptk no virtual step needed more
 * than the bound, and most about half of it (docs/virtual-nodes.md shows
 * the real step counts). tests/test_estimate.c holds every hosted
 * schedule's total to it.
 */
static uint64_t substeps_max(const xchg_topo *real, const xchg_topo *virt)
{
    uint64_t p = real->nodes, pv = virt->nodes, g = max_guests(real, virt);
    uint64_t gamma = g < p - 1 ? g : p - 1, cmin = UINT64_MAX;
    if (gamma == 0) /* one real node: no messages, at most an idle step */
        return 1;
    for (int k = 0; k < real->ndims; k++) {
        uint64_t c = guests_along(real, virt, k);
        cmin = c < cmin ? c : cmin;
    }
    uint64_t l = real->ndims ? g / cmin : 1;
    uint64_t b = 1 + 2 * (gamma - 1) + 2 * (l - 1);
    uint64_t msgs = xchg_est_prod(p, gamma) < pv ? xchg_est_prod(p, gamma) : pv;
    if (msgs < b)
        b = msgs;
    return b ? b : 1;
}

/* The capacity that doubling from `first` reaches to hold n entries (0
 * for none), as note_real and pack_one grow their arrays. */
static uint64_t doubled_capacity(uint64_t first, uint64_t n)
{
    uint64_t cap = n ? first : 0;
    while (cap < n && cap <= UINT64_MAX / 2)
        cap *= 2;
    return cap < n ? n : cap;
}

/* ceil(log2 n), 0 for n <= 1: the depth of a sort of n messages. */
static uint64_t log2_ceil(uint64_t n)
{
    uint64_t d = 0;
    while (d < 63 && ((uint64_t)1 << d) < n)
        d++;
    return d;
}

/* See virtual.h: what xchg_virtual_embed allocates and keeps, in the
 * order it does, with every virtual step at substeps_max sub-steps; the
 * guest's own estimate stands for the guest schedule. */
void xchg_virtual_estimate(const xchg_topo *real, const xchg_topo *virt,
                           const xchg_estimate *guest, xchg_estimate *out)
{
    uint64_t p = real->nodes, pv = virt->nodes, T = guest->steps, T1 = T ? T : 1;
    uint64_t B = substeps_max(real, virt);
    /* a virtual step becomes its sub-steps, or one idle step that copies */
    uint64_t R = xchg_est_prod(T, B);
    uint64_t nlinks = 1;
    for (int k = 0; k < real->ndims; k++)
        nlinks += real->size[k];

    /* the hosted schedule: R steps, each with a partner and a blocks table */
    xchg_est_steps(out, R);
    xchg_est_tables(out, R, p, sizeof(uint32_t));
    xchg_est_tables(out, R, p, sizeof(uint32_t));
    /* its ctx: the guest schedule and its compiled follower, the host and
     * primary maps, the sub-step of every virtual message (uint16_t), the
     * real-to-virtual step maps (uint32_t and uint16_t) */
    xchg_est_add(out, sizeof(vctx), 0);
    xchg_est_add(out, guest->bytes, guest->work);
    xchg_est_add(out, xchg_follower_held_max(virt, T), xchg_est_prod(T, pv));
    xchg_est_tables(out, 1, pv, sizeof(uint32_t));
    xchg_est_tables(out, 1, p, sizeof(uint32_t));
    xchg_est_tables(out, T1, pv, sizeof(uint16_t));
    xchg_est_add(out, xchg_est_prod(doubled_capacity(32, R), sizeof(uint32_t) + sizeof(uint16_t)),
                 0);
    /* working memory while it builds: the real size of every virtual
     * message (int64_t), one step's messages, one route's links, one
     * step's sub-step occupancy (2p ports and the links, a byte each), the
     * primaries' marks */
    xchg_est_tables(out, T1, pv, sizeof(int64_t));
    xchg_est_add(out, xchg_est_prod(pv, sizeof(rmsg)), 0);
    xchg_est_add(out, xchg_est_prod(nlinks, sizeof(size_t)), 0);
    uint64_t width = xchg_est_sum(2 * p, xchg_topo_link_count(real));
    xchg_est_add(out, xchg_est_prod(B, width), 0);
    xchg_est_add(out, xchg_est_prod(doubled_capacity(8, B), sizeof(uint8_t *)), 0);
    xchg_est_add(out, pv, pv);
    /* the real sizes: every block with both ends real, or every block with
     * a virtual-only end, whichever is fewer, followed through T steps */
    uint64_t nreal = p * p, nextra = pv * pv - nreal;
    xchg_est_add(out, 0, xchg_est_prod(nreal <= nextra ? nreal : nextra, T));
    /* per virtual step: the messages found, sorted twice and looked up */
    xchg_est_add(out, 0, xchg_est_prod(xchg_est_prod(T, pv), 3 + 3 * log2_ceil(pv)));
}
