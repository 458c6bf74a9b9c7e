/*
 * torus_suh_paper.c - Suh et al.'s T1 with the paper's own phase pattern:
 * `t1:paper` (Suh et al. section 3.1), for comparison with `t1` (torus_suh.c), which
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
 * Preconditions: torus:NxN, N = 2^d, d >= 4 (t1's declared needs; t1
 * builds the smaller sizes itself).
 * Cost: 3d-3 start-ups; volume has no closed form here: docs/torus-suh.md
 *   holds it against Table 1 (below it on the small tori, above it on the
 *   larger ones, where the table's send phase is short).
 * Memory: 3d-3 steps with a partner and a size table (8 bytes a node), a
 *   context with the target table (4(d+1) bytes a node, s->ctx_bytes);
 *   while building, also about 4 bytes a node and step of counters
 *   (xchg_suh_paper_estimate counts the peak). Work: N*p*(3d-3) block moves.
 * Calls: torus_suh.h's geometry and torus_suh_groups.c's group function,
 * never torus_suh.c (which calls this file's builder for t1:paper).
 */
#include <string.h>

#include "torus_suh.h"

/* Most steps of t1:paper: 3d-3 with d <= 12 (p <= 2^24). */
#define PAPER_MAX_STEPS 40

/* Steps of t1:paper on a 2^d torus: two per exchange phase 1..d
 * (paper_exchange_steps), one per send phase 1..d-3 (paper_send_steps). */
static int paper_nsteps(int d)
{
    return 2 * d + (d - 3);
}

/* What the callback reads; the partner tables are borrowed from the steps
 * (owned by the schedule), the rest is owned. */
typedef struct paper_ctx {
    int d;
    uint32_t n;
    uint32_t *target;                 /* p*(d+1): T for (dest, level) */
    const uint32_t *part[PAPER_MAX_STEPS];
    uint32_t fmx[PAPER_MAX_STEPS], fmy[PAPER_MAX_STEPS];
} paper_ctx;

/* Memory a paper_ctx holds on the torus of g: itself and its target table
 * (the partner tables it borrows are the steps'). */
static uint64_t paper_ctx_bytes(const suh_geo *g)
{
    return sizeof(paper_ctx) + (uint64_t)g->p * (uint64_t)(g->d + 1) * sizeof(uint32_t);
}

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
    int group_arg;      /* the senders' groups (torus_suh.h, SUH_GROUP_*) */
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

/* Everything t1:paper's builder holds while it works; paper_build_free
 * releases what has not been handed to the schedule. */
typedef struct paper_build {
    suh_geo g;
    paper_ctx *c;                    /* the rule's context (owned) */
    paper_step ps[PAPER_MAX_STEPS];  /* the steps, in order */
    int ns;                          /* steps planned so far */
    uint8_t *act;                    /* a(v): last phase node v is active in */
    uint32_t *srv;                   /* v's server (XCHG_NONE: active to the end) */
} paper_build;

static void paper_build_free(paper_build *b)
{
    paper_steps_free(b->ps, 0, b->ns);
    free(b->act);
    free(b->srv);
    paper_ctx_free(b->c);
}

/*
 * Who is active how long and who serves whom: a node of SG_q(2), q in
 * 2..d-2, is idle after phase q and served by its level-(q-1) x mirror; the
 * others stay active through phase d. 0 or ENOMEM.
 */
static int paper_roles(paper_build *b)
{
    const suh_geo *g = &b->g;
    b->act = malloc(g->p);
    b->srv = malloc((size_t)g->p * sizeof *b->srv);
    if (!b->act || !b->srv)
        return XCHG_ENOMEM;
    for (uint32_t v = 0; v < g->p; v++) {
        b->act[v] = (uint8_t)g->d;
        b->srv[v] = XCHG_NONE;
        for (int q = 2; q <= g->d - 2; q++)
            if (in_g2(g, v, q)) {
                b->act[v] = (uint8_t)q;
                b->srv[v] = v ^ xm(q - 1);
            }
    }
    return XCHG_OK;
}

/*
 * The rule's table T[t][k]: where a block for t that first shares an
 * aligned 2^k block with its origin is routed in the exchange phases, the
 * first node of t's server chain active through phase k. 0 or ENOMEM.
 */
static int paper_targets(paper_build *b)
{
    const int d = b->g.d;
    uint32_t *target = malloc((size_t)b->g.p * (size_t)(d + 1) * sizeof *target);
    if (!target)
        return XCHG_ENOMEM;
    for (uint32_t v = 0; v < b->g.p; v++)
        for (int k = 0; k <= d; k++) {
            uint32_t w = v;
            while (b->act[w] < k)
                w = b->srv[w];
            target[(size_t)v * (size_t)(d + 1) + (size_t)k] = w;
        }
    b->c->target = target;
    return XCHG_OK;
}

/*
 * Partner tables of the exchange phases 1..d, two steps each: phase 1
 * every node x_0 then y_0; phase p the nodes of SG_p(1) (level d-1 in phase
 * d) x then y, the others y then x, while active; with the halving masks the
 * rule reads. 0 or ENOMEM.
 */
static int paper_exchange_steps(paper_build *b)
{
    const suh_geo *g = &b->g;
    for (int ph = 1; ph <= g->d; ph++) {
        int level = ph < g->d ? ph : g->d - 1;
        for (int half = 0; half < 2; half++) {
            paper_step *st = &b->ps[b->ns];
            if (!(st->part = malloc((size_t)g->p * sizeof *st->part)))
                return XCHG_ENOMEM;
            /* movers: SG_L(1) (level-L group 0) and SG_L(2) (group
             * 2^(L-1)-1); phase 1 is every node, SG_1(1) */
            st->group_arg = SUH_GROUP_HALVE * SUH_GROUP_KIND + (ph == 1 ? 1 : level);
            b->c->fmx[b->ns] = halving_mask(g, ph, 0);
            b->c->fmy[b->ns] = halving_mask(g, ph, g->d);
            for (uint32_t v = 0; v < g->p; v++) {
                st->part[v] = XCHG_NONE;
                if (b->act[v] < ph)
                    continue;
                int xfirst = ph == 1 || in_g1(g, v, level);
                int movex = xfirst ^ half;
                st->part[v] = v ^ (movex ? xm(ph) : ym(g, ph));
            }
            b->c->part[b->ns++] = st->part;
        }
    }
    return XCHG_OK;
}

/*
 * Partner tables and linear rules of the send phase s = 1..d-3: every
 * SG_(d-1-s)(1) node hands its level-(d-2-s) x mirror the blocks for it and
 * for the nodes it serves. 0 or ENOMEM.
 */
static int paper_send_steps(paper_build *b)
{
    const suh_geo *g = &b->g;
    for (int sp = 1; sp <= g->d - 3; sp++) {
        int q = g->d - 1 - sp, lv = q - 1;
        paper_step *st = &b->ps[b->ns];
        if (!(st->part = malloc((size_t)g->p * sizeof *st->part)))
            return XCHG_ENOMEM;
        st->send = 1;
        st->group_arg = SUH_GROUP_SEND * SUH_GROUP_KIND + q; /* senders: SG_q(1) */
        st->emask = (g->p - 1) & ~xm(lv - 1);
        st->eval = 1u << (lv - 1);
        for (uint32_t v = 0; v < g->p; v++)
            st->part[v] = in_g1(g, v, q) ? v ^ xm(lv) : XCHG_NONE;
        b->c->part[b->ns++] = st->part;
    }
    return XCHG_OK;
}

/*
 * Message sizes of every step and node: follow the blocks of the origins
 * (x, 0), one per orbit of the XOR symmetry, then give every node the sum
 * over its orbit {z(h) = z} (see the header). 0 or ENOMEM.
 */
static int paper_sizes(paper_build *b)
{
    const suh_geo *g = &b->g;
    const uint32_t p = g->p;
    const int ns = b->ns;
    const paper_step *ps = b->ps;
    uint32_t *cnt = calloc((size_t)ns * p, sizeof *cnt);
    uint32_t *cur = malloc((size_t)p * sizeof *cur);
    uint64_t *orbit = calloc((size_t)ns * g->n, sizeof *orbit);
    int rc = XCHG_ENOMEM;
    if (!cnt || !cur || !orbit)
        goto done;
    for (uint32_t o = 0; o < g->n; o++) {
        for (uint32_t tt = 0; tt < p; tt++)
            cur[tt] = o;
        for (int st = 0; st < ns; st++)
            for (uint32_t tt = 0; tt < p; tt++) {
                uint32_t h = cur[tt], to = ps[st].part[h];
                if (to == XCHG_NONE || !paper_selects(b->c, ps, st, h, o, tt))
                    continue;
                cnt[(size_t)st * p + h]++;
                cur[tt] = to;
            }
    }
    for (int st = 0; st < ns; st++)
        for (uint32_t h = 0; h < p; h++)
            orbit[(size_t)st * g->n + suh_z(g, h)] += cnt[(size_t)st * p + h];
    for (int st = 0; st < ns; st++) {
        if (!(b->ps[st].blocks = malloc((size_t)p * sizeof *b->ps[st].blocks)))
            goto done;
        for (uint32_t h = 0; h < p; h++)
            b->ps[st].blocks[h] = (uint32_t)orbit[(size_t)st * g->n + suh_z(g, h)];
    }
    rc = XCHG_OK;
done:
    free(cnt);
    free(cur);
    free(orbit);
    return rc;
}

/*
 * Hand the planned steps and the rule's context to a new schedule on t.
 * Whatever happens, b keeps nothing the schedule took: on success *out is
 * the schedule; on failure everything handed over is freed with it and the
 * rest stays in b for paper_build_free. 0 or ENOMEM (with a message).
 */
static int paper_assemble(paper_build *b, const xchg_topo *t, int claims_free, xchg_sched **out,
                          xchg_err *err)
{
    xchg_sched *s = xchg_sched_new(t, "t1:paper", claims_free);
    if (!s)
        return xchg_fail(err, XCHG_ENOMEM, "t1:paper: out of memory while building the schedule");
    s->ctx = b->c;
    s->ctx_free = paper_ctx_free;
    s->ctx_bytes = paper_ctx_bytes(&b->g);
    s->group_fn = xchg_suh_t1_group;
    b->c = NULL; /* the schedule owns it now */
    int ns = b->ns;
    b->ns = 0; /* each step is the schedule's once added (xchg_alg_add frees it on failure) */
    for (int st = 0; st < ns; st++) {
        paper_step *ps = &b->ps[st];
        xchg_step step;
        memset(&step, 0, sizeof step);
        step.partner = XCHG_PARTNER_TABLE;
        step.partner_table = ps->part;
        step.blocks_table = ps->blocks;
        step.route_policy = XCHG_ROUTE_SHORTEST;
        step.group_arg = ps->group_arg;
        if (ps->send) {
            step.rule = xchg_rule_rel_linear();
            step.rule.lemask[0] = ps->emask;
            step.rule.leval[0] = ps->eval;
        } else {
            step.rule = xchg_rule_fn(paper_rule);
        }
        ps->part = NULL;
        ps->blocks = NULL;
        int rc = xchg_alg_add(s, &step, err);
        if (rc) {
            paper_steps_free(b->ps, st + 1, ns);
            return rc;
        }
    }
    *out = s;
    return XCHG_OK;
}

/*
 * Build t1:paper on the 2^d x 2^d torus t, d >= 4, in named steps: roles
 * (who is active how long, who serves whom), the rule's target table, the
 * exchange and send steps' partners, the message sizes, then the schedule,
 * which claims contention-freedom when claims_free is set (t1's claim,
 * which the caller reads from its registry entry). 0, ENOMEM, or EINTERNAL
 * for a d the caller should not have passed.
 */
int xchg_suh_paper_build(const xchg_topo *t, int claims_free, xchg_sched **out, xchg_err *err)
{
    paper_build b;
    memset(&b, 0, sizeof b);
    b.g = suh_geo_of(t);
    if (b.g.d < 4 || paper_nsteps(b.g.d) > PAPER_MAX_STEPS)
        return xchg_fail(err, XCHG_EINTERNAL, "t1:paper: called with d = %d (needs 4 <= d <= 12)",
                         b.g.d);
    int rc = XCHG_ENOMEM;
    if ((b.c = calloc(1, sizeof *b.c))) {
        b.c->d = b.g.d;
        b.c->n = b.g.n;
        rc = paper_roles(&b);
    }
    if (rc == XCHG_OK)
        rc = paper_targets(&b);
    if (rc == XCHG_OK)
        rc = paper_exchange_steps(&b);
    if (rc == XCHG_OK)
        rc = paper_send_steps(&b);
    if (rc == XCHG_OK)
        rc = paper_sizes(&b);
    if (rc != XCHG_OK) {
        paper_build_free(&b);
        return xchg_fail(err, rc, "t1:paper: out of memory while building the schedule");
    }
    rc = paper_assemble(&b, t, claims_free, out, err);
    paper_build_free(&b);
    return rc;
}

/*
 * What xchg_suh_paper_build takes (torus_suh.h). Held by the schedule: the
 * steps, each with a partner and a size table, and the context with its
 * target table. While it builds, the builder also holds, all at once at
 * its peak in paper_sizes (counted in bytes, since callers budget memory
 * by the peak): act and srv (5 bytes a node), the per-step counters cnt (4
 * bytes a node and step), cur (4 bytes a node) and the orbit sums (8 bytes
 * a step and orbit). Work: the roles, targets and tables, and following
 * every block of N origins through every step (the bulk: N*p*(3d-3)).
 */
void xchg_suh_paper_estimate(const xchg_topo *t, xchg_estimate *out)
{
    suh_geo g = suh_geo_of(t);
    uint64_t ns = (uint64_t)paper_nsteps(g.d), p = g.p;
    xchg_est_steps(out, ns);
    xchg_est_tables(out, ns, p, sizeof(uint32_t)); /* partner_table */
    xchg_est_tables(out, ns, p, sizeof(uint32_t)); /* blocks_table */
    /* the context; work: one per target entry */
    xchg_est_add(out, paper_ctx_bytes(&g), xchg_est_prod((uint64_t)g.d + 1, p));
    /* peak working memory of the builder */
    xchg_est_tables(out, 1, p, sizeof(uint8_t) + sizeof(uint32_t)); /* act, srv */
    xchg_est_tables(out, ns, p, sizeof(uint32_t));                  /* cnt */
    xchg_est_tables(out, 1, p, sizeof(uint32_t));                   /* cur */
    xchg_est_tables(out, ns, g.n, sizeof(uint64_t));                /* orbit */
    /* following the blocks of the N orbit origins through every step */
    xchg_est_add(out, 0, xchg_est_prod(xchg_est_prod(g.n, p), ns));
}
