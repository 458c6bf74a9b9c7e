/*
 * virtual.c - hosting a schedule made for a larger virtual network on the
 * real one (see virtual.h for the mapping, the cost accounting and the API).
 *
 * Building goes virtual step by virtual step:
 *   1. real sizes: how many real blocks each virtual node's message carries
 *      (follow blocks through the virtual schedule, see real_counts);
 *   2. messages: each virtual message with real blocks becomes a real
 *      message host(u) -> host(w), or a local move when both are one node;
 *      messages between the same two real nodes are merged;
 *   3. packing: largest message first, each into the first sub-step where
 *      its sender and receiver are free and no link of its route is taken.
 * The real step's rule (a callback) asks: does the block sit, before this
 * virtual step, on a virtual node hosted here whose message went into this
 * sub-step, and does that virtual node's rule select it?
 */
#include <stdlib.h>
#include <string.h>

#include "sched/links.h"
#include "sched/sched_internal.h"
#include "alg/virtual.h"

#define NOSUB UINT16_MAX

/* Callback context of a hosted schedule (read-only once built). */
typedef struct vctx {
    xchg_sched *vs;               /* the virtual schedule (owned) */
    xchg_topo real, virt;
    xchg_virtual_locate_fn locate;
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

/*
 * Follow virtual block (vo, vd) through steps [0, nsteps) of vs as the
 * verifier does (a selected block moves to a valid partner). When cnt is not
 * NULL, add `sign` to cnt[t * p' + holder] for every step t that selects it.
 * Returns where the block ends.
 */
static uint32_t follow(const xchg_sched *vs, size_t nsteps, uint32_t vo, uint32_t vd,
                       int64_t *cnt, int sign)
{
    uint32_t u = vo, pv = vs->topo.nodes;
    for (size_t t = 0; t < nsteps; t++) {
        const xchg_step *st = &vs->steps[t];
        uint32_t w = xchg_step_partner(&vs->topo, st, u);
        if (w == XCHG_NONE)
            continue;
        if (!xchg_rule_eval(vs, &st->rule, t, u, w, vo, vd))
            continue;
        if (cnt)
            cnt[t * pv + u] += sign;
        if (w < pv && w != u)
            u = w;
    }
    return u;
}

uint32_t xchg_virtual_locate_sim(const xchg_sched *vs, size_t vstep, uint32_t vo, uint32_t vd)
{
    if (vstep > vs->nsteps)
        vstep = vs->nsteps;
    return follow(vs, vstep, vo, vd, NULL, 0);
}

/*
 * cnt[t*p' + u] = real blocks virtual node u sends at virtual step t. Either
 * follow every real block (+1), or start from the declared virtual sizes and
 * follow every block with a virtual-only end (-1), whichever follows fewer.
 * Returns 0, or XCHG_EINTERNAL when a count goes negative or past 2^32
 * (the virtual schedule's declared sizes are wrong).
 */
static int real_counts(const vctx *c, int64_t *cnt, xchg_err *err)
{
    const xchg_sched *vs = c->vs;
    uint32_t p = c->real.nodes, pv = c->virt.nodes;
    size_t T = vs->nsteps;
    uint64_t nreal = (uint64_t)p * p, nextra = (uint64_t)pv * pv - nreal;
    if (nreal <= nextra) {
        for (uint32_t o = 0; o < p; o++)
            for (uint32_t d = 0; d < p; d++)
                follow(vs, T, c->prim[o], c->prim[d], cnt, +1);
    } else {
        uint8_t *isprim = calloc(pv, 1);
        if (!isprim)
            return xchg_fail(err, XCHG_ENOMEM, "out of memory hosting virtual nodes");
        for (uint32_t n = 0; n < p; n++)
            isprim[c->prim[n]] = 1;
        for (size_t t = 0; t < T; t++)
            for (uint32_t u = 0; u < pv; u++) {
                const xchg_step *st = &vs->steps[t];
                uint32_t w = xchg_step_partner(&vs->topo, st, u);
                cnt[t * pv + u] = w == XCHG_NONE ? 0 : (int64_t)xchg_step_blocks(st, u);
            }
        for (uint32_t vo = 0; vo < pv; vo++)
            for (uint32_t vd = 0; vd < pv; vd++)
                if (!isprim[vo] || !isprim[vd])
                    follow(vs, T, vo, vd, cnt, -1);
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
    uint32_t u = c->locate(c->vs, t, vo, vd);
    if (u >= c->virt.nodes || c->host[u] != node ||
        c->sub[(size_t)t * c->virt.nodes + u] != c->rsub[step])
        return 0;
    const xchg_step *st = &c->vs->steps[t];
    uint32_t w = xchg_step_partner(&c->vs->topo, st, u);
    return w != XCHG_NONE && xchg_rule_eval(c->vs, &st->rule, t, u, w, vo, vd);
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

/* Largest number of virtual nodes one real node hosts. */
static uint64_t max_guests(const vctx *c)
{
    uint64_t g = 1;
    for (int k = 0; k < c->real.ndims; k++)
        g *= (c->virt.size[k] + c->real.size[k] - 1) / c->real.size[k];
    return g;
}

int xchg_virtual_embed(const xchg_topo *real, xchg_sched *vs, xchg_virtual_locate_fn locate,
                       const char *name, xchg_sched **out, xchg_err *err)
{
    int rc = xchg_virtual_check(real, &vs->topo, err);
    if (rc) {
        xchg_sched_free(vs);
        return rc;
    }
    uint32_t p = real->nodes, pv = vs->topo.nodes;
    size_t T = vs->nsteps;
    vctx *c = calloc(1, sizeof *c);
    xchg_sched *s = xchg_sched_new(real, name, 1);
    int64_t *cnt = NULL;
    rmsg *msgs = NULL;
    size_t *links = NULL;
    packing pk = {0, 0, NULL, 0};
    if (!c || !s) {
        xchg_sched_free(vs);
        free(c);
        xchg_sched_free(s);
        return xchg_fail(err, XCHG_ENOMEM, "out of memory hosting virtual nodes");
    }
    c->vs = vs;
    c->real = *real;
    c->virt = vs->topo;
    c->locate = locate ? locate : xchg_virtual_locate_sim;
    s->ctx = c;
    s->ctx_free = vctx_free;
    size_t nlinks = xchg_link_count(real);
    size_t maxhops = 0;
    for (int k = 0; k < real->ndims; k++)
        maxhops += real->size[k];
    c->host = malloc((size_t)pv * sizeof *c->host);
    c->prim = malloc((size_t)p * sizeof *c->prim);
    c->sub = malloc((T ? T : 1) * (size_t)pv * sizeof *c->sub);
    cnt = calloc((T ? T : 1) * (size_t)pv, sizeof *cnt);
    msgs = malloc((size_t)pv * sizeof *msgs);
    links = malloc((maxhops + 1) * sizeof *links);
    pk.width = 2 * (size_t)p + nlinks;
    rc = XCHG_ENOMEM;
    if (!c->host || !c->prim || !c->sub || !cnt || !msgs || !links)
        goto fail;
    for (uint32_t v = 0; v < pv; v++)
        c->host[v] = xchg_virtual_host(real, &vs->topo, v);
    for (uint32_t n = 0; n < p; n++)
        c->prim[n] = xchg_virtual_primary(real, &vs->topo, n);
    if ((rc = real_counts(c, cnt, err)))
        goto done;
    rc = XCHG_ENOMEM;
    uint64_t guests = max_guests(c);
    for (size_t t = 0; t < T; t++) {
        const xchg_step *vst = &vs->steps[t];
        uint16_t *sub = &c->sub[t * pv];
        /* 2. real messages of this virtual step, merged per (from, to) */
        size_t nm = 0;
        for (uint32_t u = 0; u < pv; u++) {
            sub[u] = NOSUB;
            int64_t b = cnt[t * pv + u];
            uint32_t w = xchg_step_partner(&vs->topo, vst, u);
            if (b == 0 || w == XCHG_NONE || w >= pv || c->host[w] == c->host[u])
                continue;
            msgs[nm].from = c->host[u];
            msgs[nm].to = c->host[w];
            msgs[nm].blocks = (uint64_t)b;
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
        /* 3. packing, largest first */
        qsort(msgs, nmerged, sizeof *msgs, cmp_size);
        for (size_t i = 0; i < nmerged; i++) {
            if (msgs[i].blocks > UINT32_MAX) {
                rc = xchg_fail(err, XCHG_ETOOBIG, "virtual nodes: a real message of more "
                                                  "than 2^32 blocks");
                goto done;
            }
            size_t nl = route_links(real, msgs[i].from, msgs[i].to, links, maxhops + 1);
            long k = pack_one(&pk, p, msgs[i].from, msgs[i].to, links, nl);
            if (k < 0 || k >= NOSUB) {
                rc = k < 0 ? XCHG_ENOMEM : XCHG_ETOOBIG;
                goto fail;
            }
            msgs[i].sub = (uint16_t)k;
        }
        /* which sub-step each virtual node's message went into */
        qsort(msgs, nmerged, sizeof *msgs, cmp_pair);
        for (uint32_t u = 0; u < pv; u++) {
            uint32_t w = xchg_step_partner(&vs->topo, vst, u);
            if (cnt[t * pv + u] == 0 || w == XCHG_NONE || w >= pv ||
                c->host[w] == c->host[u])
                continue;
            rmsg key = {c->host[u], c->host[w], 0, 0};
            rmsg *m = bsearch(&key, msgs, nmerged, sizeof *msgs, cmp_pair);
            if (!m) {
                rc = xchg_fail(err, XCHG_EINTERNAL, "virtual nodes: lost a message");
                goto done;
            }
            sub[u] = m->sub;
        }
        /* the real steps: one per sub-step (an idle one keeps copies) */
        size_t nsub = pk.nsub;
        if (nsub == 0 && vst->copy_blocks == 0) {
            packing_reset(&pk);
            continue;
        }
        for (size_t k = 0; k < (nsub ? nsub : 1); k++) {
            xchg_step st = xchg_step_shift(0, 0, xchg_rule_fn(hosted_rule), 0);
            st.partner = XCHG_PARTNER_TABLE;
            st.partner_table = malloc((size_t)p * sizeof *st.partner_table);
            st.blocks_table = calloc(p, sizeof *st.blocks_table);
            if (!st.partner_table || !st.blocks_table) {
                free(st.partner_table);
                free(st.blocks_table);
                rc = XCHG_ENOMEM;
                goto fail;
            }
            for (uint32_t n = 0; n < p; n++)
                st.partner_table[n] = XCHG_NONE;
            for (size_t i = 0; i < nmerged; i++)
                if (msgs[i].sub == k) {
                    st.partner_table[msgs[i].from] = msgs[i].to;
                    st.blocks_table[msgs[i].from] = (uint32_t)msgs[i].blocks;
                }
            if (k == 0)
                st.copy_blocks = vst->copy_blocks * guests;
            if (note_real(c, (uint32_t)t, (uint16_t)k)) {
                free(st.partner_table);
                free(st.blocks_table);
                rc = XCHG_ENOMEM;
                goto fail;
            }
            if (xchg_sched_add(s, &st)) { /* frees the tables */
                rc = XCHG_ENOMEM;
                goto fail;
            }
        }
        packing_reset(&pk);
    }
    rc = XCHG_OK;
    goto done;
fail:
    xchg_fail(err, rc, rc == XCHG_ENOMEM ? "out of memory hosting virtual nodes"
                                         : "virtual nodes: too many sub-steps in one step");
done:
    packing_reset(&pk);
    free(pk.busy);
    free(cnt);
    free(msgs);
    free(links);
    if (rc) {
        xchg_sched_free(s); /* frees c and vs */
        return rc;
    }
    *out = s;
    return XCHG_OK;
}
