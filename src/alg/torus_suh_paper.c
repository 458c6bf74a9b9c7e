/*
 * torus_suh_paper.c - seed 000's T1 with the paper's own phase pattern:
 * `t1:paper` (section 3.1), for comparison with `t1` (torus_suh.c), which
 * reaches the same step count and Table 1's volume for d <= 5 by
 * concentrating data instead.
 *
 * Pattern (d >= 4; for d < 4 t1:paper is t1, which is T2):
 *   phase 1: every node, x_0 then y_0 (level-1 mirrors);
 *   phase p = 2..d: the nodes of SG_p(1) (G_L(1), L = p, or L = d-1 in
 *     phase d) move at level p in x then y, those of SG_p(2) in y then x;
 *     a node takes part in phase p while it is in SG_(p-1)(1) (phase d:
 *     SG_(d-2)(1)), so a node of SG_q(2) is idle after phase q;
 *   send phase s = 1..d-3: every SG_(d-1-s)(1) node sends to its level
 *     (d-2-s) x mirror, an SG_(d-1-s)(2) node (its "server" relation).
 * Idle nodes keep blocks: node t, idle after phase q = a(t), gets the blocks
 * from its own 2^q block through the exchanges, the rest from its server in
 * the send phase. So block (o, t), where o and t first share an aligned
 * 2^k block, is routed in the exchange phases to the first node of t's
 * server chain t, srv(t), srv(srv(t)), ... that is active through phase k,
 * and handed down the chain in the send phase. At each exchange step a node
 * sends the blocks whose target T, relative to it, has the level-p halving
 * functional set (bit p-1 XOR bit p in the moving coordinate; bit d-1 at
 * p = d). The block rule is a callback (XCHG_RULE_FN) reading a table
 * T[t][k]; the send steps use the linear rule of t1's send phase.
 * Message sizes differ from node to node; the generator counts them by
 * following the blocks of one origin per orbit of the XOR symmetry
 * (x, y) -> (x^v, y^v), which maps the schedule onto itself (N origins
 * instead of p; the verifier then follows all p).
 * Preconditions: torus:NxN, N = 2^d, d >= 4 (via t1's applies).
 * Cost: 3d-3 start-ups; volume has no closed form here. Measured:
 *   see docs/torus-suh.md (below Table 1 at d = 4, 5; above it from d = 6,
 *   where the table's send phase is short).
 */
#include <string.h>

#include "torus_suh.h"

/* Most steps of t1:paper: 3d-3 with d <= 12 (p <= 2^24). */
#define PAPER_MAX_STEPS 40

/* What the callback reads; the partner tables are borrowed from the steps
 * (owned by the schedule), the rest is owned. */
typedef struct paper_ctx {
    int d;
    uint32_t n;
    uint32_t *target;                 /* p*(d+1): T for (dest, level) */
    const uint32_t *part[PAPER_MAX_STEPS];
    uint32_t fmx[PAPER_MAX_STEPS], fmy[PAPER_MAX_STEPS];
} paper_ctx;

static void paper_ctx_free(void *p)
{
    paper_ctx *c = p;
    if (c)
        free(c->target);
    free(c);
}

/* Level at which o and t first share an aligned 2^k x 2^k block. */
static inline uint32_t paper_level(const paper_ctx *c, uint32_t o, uint32_t t)
{
    uint32_t w = o ^ t;
    uint32_t v = (w | (w >> c->d)) & (c->n - 1);
    return v ? 32u - (uint32_t)__builtin_clz(v) : 0;
}

/* Exchange-step rule: send (o, t) when its target, relative to node, has
 * the halving functional of the node's move set. */
static int paper_rule(const void *vctx, size_t step, uint32_t node, uint32_t origin,
                      uint32_t dest)
{
    const paper_ctx *c = vctx;
    uint32_t to = c->part[step][node];
    uint32_t tg = c->target[(size_t)dest * (size_t)(c->d + 1) + paper_level(c, origin, dest)];
    uint32_t fm = ((to ^ node) & (c->n - 1)) ? c->fmx[step] : c->fmy[step];
    return __builtin_parity((tg ^ node) & fm);
}

/* The plan of one step before it goes into the schedule. */
typedef struct paper_step {
    uint32_t *part;     /* owned until handed to the schedule */
    uint32_t *blocks;   /* owned until handed to the schedule */
    int send;           /* send-phase step: linear rule */
    uint32_t emask, eval;
} paper_step;

/* Free the tables of steps [i, n) not yet handed over. */
static void paper_steps_free(paper_step *ps, int i, int n)
{
    for (; i < n; i++) {
        free(ps[i].part);
        free(ps[i].blocks);
    }
}

/* Does the node at h, sending at step s, select (o, t)? */
static inline int paper_selects(const paper_ctx *c, const paper_step *ps, int s, uint32_t h,
                                uint32_t o, uint32_t t)
{
    if (ps[s].send)
        return ((t ^ h) & ps[s].emask) == ps[s].eval;
    return paper_rule(c, (size_t)s, h, o, t);
}

int xchg_suh_paper_build(const xchg_topo *t, xchg_sched **out, xchg_err *err)
{
    suh_geo g = suh_geo_of(t);
    const int d = g.d;
    const uint32_t p = g.p;
    paper_step ps[PAPER_MAX_STEPS];
    int ns = 0;
    memset(ps, 0, sizeof ps);
    paper_ctx *c = calloc(1, sizeof *c);
    uint8_t *act = malloc(p);            /* last active phase a(v) */
    uint32_t *srv = malloc((size_t)p * sizeof *srv);
    uint32_t *cnt = NULL, *cur = NULL;
    uint64_t *orbit = NULL;
    xchg_sched *s = NULL;
    int rc = XCHG_ENOMEM;
    if (d < 4 || 3 * d - 3 > PAPER_MAX_STEPS) {
        rc = XCHG_EINTERNAL;
        free(c);
        free(act);
        free(srv);
        return xchg_fail(err, rc, "t1:paper: called with d = %d (needs 4 <= d <= 12)", d);
    }
    if (!c || !act || !srv)
        goto fail;
    c->d = d;
    c->n = g.n;
    for (uint32_t v = 0; v < p; v++) {
        act[v] = (uint8_t)d;
        srv[v] = XCHG_NONE;
        for (int q = 2; q <= d - 2; q++)
            if (in_g2(&g, v, q)) {
                act[v] = (uint8_t)q;
                srv[v] = v ^ xm(q - 1);
            }
    }
    c->target = malloc((size_t)p * (size_t)(d + 1) * sizeof *c->target);
    if (!c->target)
        goto fail;
    for (uint32_t v = 0; v < p; v++)
        for (int k = 0; k <= d; k++) {
            uint32_t w = v;
            while (act[w] < k)
                w = srv[w];
            c->target[(size_t)v * (size_t)(d + 1) + (size_t)k] = w;
        }

    /* Partner tables: phase 1, phases 2..d, send phase. */
    for (int ph = 1; ph <= d; ph++) {
        int level = ph < d ? ph : d - 1;
        for (int half = 0; half < 2; half++, ns++) {
            if (!(ps[ns].part = malloc((size_t)p * sizeof *ps[ns].part)))
                goto fail;
            c->fmx[ns] = halving_mask(&g, ph, 0);
            c->fmy[ns] = halving_mask(&g, ph, d);
            for (uint32_t v = 0; v < p; v++) {
                ps[ns].part[v] = XCHG_NONE;
                if (act[v] < ph)
                    continue;
                int xfirst = ph == 1 || in_g1(&g, v, level);
                int movex = xfirst ^ half;
                ps[ns].part[v] = v ^ (movex ? xm(ph) : ym(&g, ph));
            }
            c->part[ns] = ps[ns].part;
        }
    }
    for (int sp = 1; sp <= d - 3; sp++, ns++) {
        int q = d - 1 - sp, lv = q - 1;
        if (!(ps[ns].part = malloc((size_t)p * sizeof *ps[ns].part)))
            goto fail;
        ps[ns].send = 1;
        ps[ns].emask = (p - 1) & ~xm(lv - 1);
        ps[ns].eval = 1u << (lv - 1);
        for (uint32_t v = 0; v < p; v++)
            ps[ns].part[v] = in_g1(&g, v, q) ? v ^ xm(lv) : XCHG_NONE;
        c->part[ns] = ps[ns].part;
    }

    /* Message sizes: follow the origins (x, 0), then sum over each orbit
     * {z(h) = z}; see the header. */
    cnt = calloc((size_t)ns * p, sizeof *cnt);
    cur = malloc((size_t)p * sizeof *cur);
    orbit = calloc((size_t)ns * g.n, sizeof *orbit);
    if (!cnt || !cur || !orbit)
        goto fail;
    for (uint32_t o = 0; o < g.n; o++) {
        for (uint32_t tt = 0; tt < p; tt++)
            cur[tt] = o;
        for (int st = 0; st < ns; st++)
            for (uint32_t tt = 0; tt < p; tt++) {
                uint32_t h = cur[tt], to = ps[st].part[h];
                if (to == XCHG_NONE || !paper_selects(c, ps, st, h, o, tt))
                    continue;
                cnt[(size_t)st * p + h]++;
                cur[tt] = to;
            }
    }
    for (int st = 0; st < ns; st++)
        for (uint32_t h = 0; h < p; h++)
            orbit[(size_t)st * g.n + suh_z(&g, h)] += cnt[(size_t)st * p + h];
    for (int st = 0; st < ns; st++) {
        if (!(ps[st].blocks = malloc((size_t)p * sizeof *ps[st].blocks)))
            goto fail;
        for (uint32_t h = 0; h < p; h++)
            ps[st].blocks[h] = (uint32_t)orbit[(size_t)st * g.n + suh_z(&g, h)];
    }
    free(cnt);
    free(cur);
    free(orbit);
    cnt = cur = NULL;
    orbit = NULL;
    free(act);
    free(srv);
    act = NULL;
    srv = NULL;

    if (!(s = xchg_sched_new(t, "t1:paper", xchg_alg_claims_free(&xchg_alg_t1, t))))
        goto fail;
    s->ctx = c;
    s->ctx_free = paper_ctx_free;
    c = NULL; /* the schedule owns it now */
    for (int st = 0; st < ns; st++) {
        xchg_step step;
        memset(&step, 0, sizeof step);
        step.partner = XCHG_PARTNER_TABLE;
        step.partner_table = ps[st].part;
        step.blocks_table = ps[st].blocks;
        step.route_policy = XCHG_ROUTE_SHORTEST;
        if (ps[st].send) {
            step.rule = xchg_rule_rel_linear();
            step.rule.lemask[0] = ps[st].emask;
            step.rule.leval[0] = ps[st].eval;
        } else {
            step.rule = xchg_rule_fn(paper_rule);
        }
        ps[st].part = NULL;
        ps[st].blocks = NULL;
        if ((rc = xchg_alg_add(s, &step, err))) {
            paper_steps_free(ps, st + 1, ns);
            return rc;
        }
    }
    *out = s;
    return XCHG_OK;

fail:
    paper_steps_free(ps, 0, ns);
    free(cnt);
    free(cur);
    free(orbit);
    free(act);
    free(srv);
    paper_ctx_free(c);
    xchg_sched_free(s);
    return xchg_fail(err, rc, "t1:paper: out of memory while building the schedule");
}
