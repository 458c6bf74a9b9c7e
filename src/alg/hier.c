/*
 * hier.c - the node-aware (hierarchical) exchange as one schedule on the
 * p = N*K ranks of N nodes of K ranks, so the one verifier follows every
 * block through it (docs/hierarchical.md): the spec's parser
 * (xchg_hier_parse) and the compositions (xchg_hier_generate).
 *
 * Rank (a, i) = a*K + i. With L leaders a node and G = K/L, leader l of
 * node a is (a, l*G) and its group the ranks (a, l*G .. l*G+G-1). Steps:
 *   gather   G-1 steps: at step j the group's j-th rank sends its p blocks
 *            to its leader (one message a step into each leader: one-port);
 *   lanes    X's steps on the node network: leader (a, lG) sends to
 *            (b, lG), b = X's partner of a, the blocks X sends of node block
 *            (node of origin, node of dest): G*K rank blocks per node block,
 *            so every declared size is X's times G*K;
 *   leaders  L-1 steps: leader l sends to leader (l+s) mod L of its node
 *            the blocks bound for that leader's group (N*G*G);
 *   scatter  G-1 steps: leader sends to the group's j-th rank its p blocks.
 * Copies (t_r, declared before the step that follows them): G*p at the
 * leader after the gather (G > 1), G*p before the leaders' exchange
 * (L > 1), G*p before the scatter (G > 1); X's own copies times G*K.
 * xchg_hier_line (src/model/hier.c) counts the same steps and sizes, and
 * tests/test_hier.c holds the two together.
 *
 * aggregate (locality-aware aggregation, the executor's src/mpi/aggregate.c;
 * no X): place l of every node owns the nodes b with b mod K = l, in slot
 * b / K of O = ceil(N/K) slots. owned(n, l) = the nodes place l owns but n.
 *   within   K-1 steps: at step s (n, i) sends to (n, l), l = (i+s) mod K,
 *            its blocks for every rank of the nodes l owns and its one
 *            block for (n, l): owned(n, l)*K + 1 blocks (O*K + 1 at most);
 *   between  the slot distances d = 0 .. O-1 with a message (d = 0 has none
 *            when K = 1 or N = 1): (n, l) sends to (b, n mod K), b the node
 *            of place l in slot (n/K + d) mod O when b < N and b != n, the
 *            K*K blocks from n's ranks to b's ranks. One-port: the nodes a
 *            rank sends to are in distinct slots, and (b, j) hears from the
 *            nodes n with n mod K = j, in distinct slots, so one a step;
 *   within   K-1 steps (none when N = 1): at step s (n, l) sends to (n, j),
 *            j = (l+s) mod K, the blocks for j that came from the nodes l
 *            owns: owned(n, l)*K (O*K at most).
 * Copies: the executor's four passes over a rank's p blocks, p before the
 * first exchange within the node, p before the first step between nodes,
 * p before the second exchange within the node, and p after the last step
 * (declared with it, as bruck's final rotation); none with p = 1 (no step).
 * xchg_aggregate_line (src/model/hier.c) counts the same steps and sizes.
 *
 * The schedules are on complete:p (a switch): their messages are checked
 * for one port at every rank, delivery and declared sizes, not for the
 * node network's routes; the model costs X (aggregate's direct messages)
 * on the node network itself.
 */
#include <stdlib.h>
#include <string.h>

#include "alg/alg_common.h"

/* The composition's context, read-only once built. */
typedef struct hctx {
    xchg_sched *inner;      /* X on the node network (owned) */
    uint32_t N, K, L, G;
    size_t inner_first, inner_steps; /* X's steps in the composition */
    size_t mid_first, scatter_first;
} hctx;

static void hctx_free(void *p)
{
    hctx *c = p;
    if (!c)
        return;
    xchg_sched_free(c->inner);
    free(c);
}

/* Leading word of spec up to ':' or the end equals w. */
static int word_is(const char *spec, const char *w)
{
    size_t n = strlen(w);
    return strncmp(spec, w, n) == 0 && (spec[n] == '\0' || spec[n] == ':');
}

int xchg_hier_parse(const char *spec, uint32_t ppn, xchg_hier *out, xchg_err *err)
{
    if (!spec || !out)
        return xchg_fail(err, XCHG_EINVAL, "xchg_hier_parse: NULL argument");
    xchg_hier h;
    memset(&h, 0, sizeof h);
    const char *rest;
    if (word_is(spec, "leader")) {
        snprintf(h.kind, sizeof h.kind, "leader");
        h.leaders = 1;
        rest = spec + 6;
    } else if (word_is(spec, "pairs")) {
        snprintf(h.kind, sizeof h.kind, "pairs");
        h.leaders = ppn;
        rest = spec + 5;
    } else if (word_is(spec, "aggregate")) {
        if (spec[9] == ':')
            return xchg_fail(err, XCHG_EINVAL,
                             "'%.60s': aggregate takes nothing after it (its messages go "
                             "directly between the nodes, with no algorithm X there); "
                             "accepted: aggregate",
                             spec);
        snprintf(h.kind, sizeof h.kind, "aggregate");
        h.leaders = ppn;
        h.aggregate = 1;
        *out = h;
        return 1;
    } else if (word_is(spec, "leaders")) {
        snprintf(h.kind, sizeof h.kind, "leaders");
        rest = spec + 7;
        if (*rest != ':' || !(rest[1] >= '0' && rest[1] <= '9'))
            return xchg_fail(err, XCHG_EINVAL,
                             "'%.60s': leaders needs its count, leaders:L[:X]; accepted: L "
                             "a divisor of the ranks a node (%u)",
                             spec, (unsigned)ppn);
        char *end = NULL;
        unsigned long v = strtoul(rest + 1, &end, 10);
        if ((*end != '\0' && *end != ':') || v == 0 || ppn == 0 || v > ppn || ppn % v != 0)
            return xchg_fail(err, XCHG_EINVAL,
                             "'%.60s': %.*s leaders a node does not divide the %u ranks a "
                             "node; accepted: leaders:L[:X] with L a divisor of %u",
                             spec, (int)(end - rest - 1), rest + 1, (unsigned)ppn,
                             (unsigned)ppn);
        h.leaders = (uint32_t)v;
        rest = end;
    } else {
        return 0;
    }
    if (*rest == '\0') {
        snprintf(h.inner, sizeof h.inner, "auto");
    } else if (rest[1] == '\0') {
        return xchg_fail(err, XCHG_EINVAL,
                         "'%.60s': nothing after ':'; accepted: %s:X with X an algorithm "
                         "between nodes ('xchg list'), or auto",
                         spec, h.kind);
    } else {
        if (strlen(rest + 1) >= sizeof h.inner)
            return xchg_fail(err, XCHG_EINVAL, "'%.60s...': the inner algorithm is too long",
                             spec);
        snprintf(h.inner, sizeof h.inner, "%s", rest + 1);
    }
    *out = h;
    return 1;
}

/* Group (0..L-1) of local rank i. */
static uint32_t group_of(const hctx *c, uint32_t rank)
{
    return (rank % c->K) / c->G;
}

/* The block rule of every step (see the file's comment). */
static int hier_rule(const void *ctx, size_t step, uint32_t node, uint32_t origin,
                     uint32_t dest)
{
    const hctx *c = ctx;
    if (step < c->inner_first) /* gather: everything the rank holds */
        return 1;
    if (step < c->inner_first + c->inner_steps)
        return xchg_sched_selects(c->inner, step - c->inner_first, node / c->K,
                                  origin / c->K, dest / c->K);
    if (step < c->scatter_first) {
        uint32_t s = (uint32_t)(step - c->mid_first) + 1;
        return dest / c->K == node / c->K && group_of(c, dest) == (group_of(c, node) + s) % c->L;
    }
    uint32_t j = (uint32_t)(step - c->scatter_first) + 1;
    return dest == node + j;
}

/* A step of the composition with a partner table of p entries, all idle,
 * and uniform size; NULL table on failure. */
static xchg_step table_step(uint32_t p, uint64_t blocks)
{
    xchg_step st;
    memset(&st, 0, sizeof st);
    st.partner = XCHG_PARTNER_TABLE;
    st.partner_table = malloc((size_t)p * sizeof *st.partner_table);
    for (uint32_t r = 0; st.partner_table && r < p; r++)
        st.partner_table[r] = XCHG_NONE;
    st.rule = xchg_rule_fn(hier_rule);
    st.blocks = blocks;
    st.route_policy = XCHG_ROUTE_SHORTEST;
    return st;
}

/* Add st to s with the copies pending before it. ENOMEM (s freed by the
 * caller) or 0. */
static int add(xchg_sched *s, xchg_step *st, uint64_t *pending)
{
    if (!st->partner_table)
        return XCHG_ENOMEM;
    st->copy_blocks += *pending;
    *pending = 0;
    return xchg_sched_add(s, st);
}

/* The gather (dir 0) or scatter (dir 1) steps in groups of G. */
static int group_steps(xchg_sched *s, const hctx *c, int scatter, uint64_t *pending)
{
    uint32_t p = c->N * c->K;
    for (uint32_t j = 1; j < c->G; j++) {
        xchg_step st = table_step(p, p);
        for (uint32_t a = 0; st.partner_table && a < c->N; a++)
            for (uint32_t l = 0; l < c->L; l++) {
                uint32_t lead = a * c->K + l * c->G;
                if (scatter)
                    st.partner_table[lead] = lead + j;
                else
                    st.partner_table[lead + j] = lead;
            }
        int rc = add(s, &st, pending);
        if (rc)
            return rc;
    }
    return XCHG_OK;
}

/* X's steps on every lane, sizes times G*K. */
static int lane_steps(xchg_sched *s, const hctx *c, uint64_t *pending, xchg_err *err)
{
    uint32_t p = c->N * c->K;
    uint64_t agg = (uint64_t)c->G * c->K;
    for (size_t k = 0; k < c->inner_steps; k++) {
        xchg_step st = table_step(p, 0);
        int uniform = 1;
        uint64_t first = 0;
        for (uint32_t a = 0; a < c->N; a++) {
            xchg_msg m;
            xchg_sched_message(c->inner, k, a, &m);
            if (m.to != XCHG_NONE && a == 0)
                first = m.blocks;
            uniform &= m.to == XCHG_NONE || m.blocks == first;
        }
        if (!uniform) {
            st.blocks_table = calloc(p, sizeof *st.blocks_table);
            if (!st.blocks_table) {
                free(st.partner_table);
                return XCHG_ENOMEM;
            }
        }
        for (uint32_t a = 0; st.partner_table && a < c->N; a++) {
            xchg_msg m;
            xchg_sched_message(c->inner, k, a, &m);
            if (m.to == XCHG_NONE || m.to >= c->N)
                continue;
            uint64_t b = m.blocks * agg;
            if (b > UINT32_MAX) {
                free(st.partner_table);
                free(st.blocks_table);
                return xchg_fail(err, XCHG_ETOOBIG,
                                 "a lane's message of %llu blocks is too large to compose; "
                                 "accepted: fewer ranks",
                                 (unsigned long long)b);
            }
            for (uint32_t l = 0; l < c->L; l++) {
                uint32_t lead = a * c->K + l * c->G;
                st.partner_table[lead] = m.to * c->K + l * c->G;
                if (st.blocks_table)
                    st.blocks_table[lead] = (uint32_t)b;
            }
            st.blocks = b; /* uniform case: every sender's size */
            st.route_policy = m.route_policy;
        }
        if (st.blocks_table)
            st.blocks = 0;
        st.copy_blocks = xchg_sched_copy_blocks(c->inner, k) * agg;
        int rc = add(s, &st, pending);
        if (rc)
            return rc;
    }
    return XCHG_OK;
}

/* The L-1 steps of the exchange among a node's leaders. */
static int leader_steps(xchg_sched *s, const hctx *c, uint64_t *pending)
{
    uint32_t p = c->N * c->K;
    for (uint32_t d = 1; d < c->L; d++) {
        xchg_step st = table_step(p, (uint64_t)c->N * c->G * c->G);
        for (uint32_t a = 0; st.partner_table && a < c->N; a++)
            for (uint32_t l = 0; l < c->L; l++)
                st.partner_table[a * c->K + l * c->G] = a * c->K + ((l + d) % c->L) * c->G;
        int rc = add(s, &st, pending);
        if (rc)
            return rc;
    }
    return XCHG_OK;
}

/* Build the steps of c into s. 0, ENOMEM or ETOOBIG. */
static int compose(xchg_sched *s, hctx *c, xchg_err *err)
{
    uint64_t pending = 0, gp = (uint64_t)c->G * c->N * c->K;
    int rc = group_steps(s, c, 0, &pending);
    if (rc)
        return rc;
    if (c->G > 1)
        pending += gp;
    if ((rc = lane_steps(s, c, &pending, err)))
        return rc;
    if (c->L > 1)
        pending += gp;
    if ((rc = leader_steps(s, c, &pending)))
        return rc;
    if (c->G > 1)
        pending += gp;
    return group_steps(s, c, 1, &pending);
}

/* aggregate's context (see the file's comment), read-only once built. */
typedef struct actx {
    uint32_t N, K, O;
    uint32_t d0;          /* the first slot distance with a message between nodes */
    size_t between_first; /* the first step between nodes (K-1) */
    size_t after_first;   /* the first step of the second exchange within nodes */
} actx;

/* How many nodes place l owns other than node n: the b < N with
 * b mod K = l, b != n. */
static uint32_t agg_owned(const actx *c, uint32_t n, uint32_t l)
{
    uint32_t count = l < c->N ? (c->N - 1 - l) / c->K + 1 : 0;
    return count - (n % c->K == l);
}

/* The node that place l of node n sends to at slot distance d: place l's
 * node in slot (n/K + d) mod O; XCHG_NONE when there is none (past the
 * last node) or it is n itself. */
static uint32_t agg_target(const actx *c, uint32_t n, uint32_t l, uint32_t d)
{
    uint64_t b = (uint64_t)((n / c->K + d) % c->O) * c->K + l;
    return b < c->N && b != n ? (uint32_t)b : XCHG_NONE;
}

/* The block rule of aggregate's steps before the second exchange within
 * the node (whose rule is "dest is to", not this one): in the first
 * exchange, the holder's blocks for the nodes its partner place owns and
 * its one block for the partner; between nodes, the blocks bound for the
 * partner's node. */
static int agg_rule(const void *ctx, size_t step, uint32_t node, uint32_t origin,
                    uint32_t dest)
{
    (void)origin;
    const actx *c = ctx;
    uint32_t n = node / c->K, i = node % c->K, dn = dest / c->K;
    if (step < c->between_first) {
        uint32_t l = (uint32_t)((i + step + 1) % c->K);
        return dest == n * c->K + l || (dn != n && dn % c->K == l);
    }
    uint32_t b = agg_target(c, n, i, c->d0 + (uint32_t)(step - c->between_first));
    return b != XCHG_NONE && dn == b;
}

/* An idle step on p ranks with rule r, sizes per sender when per_sender
 * (else `blocks` each); ENOMEM when a table could not be had (nothing
 * left allocated). */
static int agg_step(uint32_t p, xchg_rule r, int per_sender, uint64_t blocks, xchg_step *st)
{
    memset(st, 0, sizeof *st);
    st->partner = XCHG_PARTNER_TABLE;
    st->partner_table = malloc((size_t)p * sizeof *st->partner_table);
    if (per_sender)
        st->blocks_table = calloc(p, sizeof *st->blocks_table);
    if (!st->partner_table || (per_sender && !st->blocks_table)) {
        free(st->partner_table);
        free(st->blocks_table);
        return XCHG_ENOMEM;
    }
    for (uint32_t r0 = 0; r0 < p; r0++)
        st->partner_table[r0] = XCHG_NONE;
    st->rule = r;
    st->blocks = per_sender ? 0 : blocks;
    st->route_policy = XCHG_ROUTE_SHORTEST;
    return XCHG_OK;
}

/* Append st with the copies pending before it (xchg_sched_add frees its
 * tables on failure). 0 or ENOMEM. */
static int agg_add(xchg_sched *s, xchg_step *st, uint64_t *pending)
{
    st->copy_blocks = *pending;
    *pending = 0;
    return xchg_sched_add(s, st);
}

/* The K-1 steps of an exchange within every node: the first (second = 0:
 * owned(n, l)*K + 1 blocks to place l) or the second (owned(n, l)*K from
 * place l, to nobody when 0). 0 or ENOMEM. */
static int agg_within(xchg_sched *s, const actx *c, int second, uint64_t *pending)
{
    uint32_t p = c->N * c->K;
    for (uint32_t k = 1; k < c->K; k++) {
        xchg_step st;
        xchg_rule r = second ? xchg_rule_dest_is_to() : xchg_rule_fn(agg_rule);
        if (agg_step(p, r, 1, 0, &st))
            return XCHG_ENOMEM;
        for (uint32_t n = 0; n < c->N; n++)
            for (uint32_t i = 0; i < c->K; i++) {
                uint32_t to = (i + k) % c->K;
                uint32_t b = second ? agg_owned(c, n, i) * c->K
                                    : agg_owned(c, n, to) * c->K + 1;
                if (b == 0)
                    continue;
                st.partner_table[n * c->K + i] = n * c->K + to;
                st.blocks_table[n * c->K + i] = b;
            }
        int rc = agg_add(s, &st, pending);
        if (rc)
            return rc;
    }
    return XCHG_OK;
}

/* The steps between nodes, slot distance d0 .. O-1: K*K blocks each from
 * (n, l) to (b, n mod K). 0 or ENOMEM. */
static int agg_between(xchg_sched *s, const actx *c, uint64_t *pending)
{
    uint32_t p = c->N * c->K;
    for (uint32_t d = c->d0; d < c->O; d++) {
        xchg_step st;
        if (agg_step(p, xchg_rule_fn(agg_rule), 0, (uint64_t)c->K * c->K, &st))
            return XCHG_ENOMEM;
        for (uint32_t n = 0; n < c->N; n++)
            for (uint32_t l = 0; l < c->K; l++) {
                uint32_t b = agg_target(c, n, l, d);
                if (b != XCHG_NONE)
                    st.partner_table[n * c->K + l] = b * c->K + n % c->K;
            }
        int rc = agg_add(s, &st, pending);
        if (rc)
            return rc;
    }
    return XCHG_OK;
}

/* Build aggregate's steps into s (see the file's comment). 0 or ENOMEM. */
static int agg_compose(xchg_sched *s, const actx *c)
{
    uint64_t p = (uint64_t)c->N * c->K, pending = p; /* packing the first exchange */
    int rc = agg_within(s, c, 0, &pending);
    if (rc)
        return rc;
    pending += p; /* laying out the messages between nodes */
    if ((rc = agg_between(s, c, &pending)))
        return rc;
    pending += p; /* packing the second exchange */
    if (c->N > 1 && (rc = agg_within(s, c, 1, &pending)))
        return rc;
    pending += p; /* unpacking what came: after the last step */
    if (s->nsteps > 0)
        s->steps[s->nsteps - 1].copy_blocks += pending;
    return XCHG_OK;
}

/* aggregate's schedule on complete:N*K (N = nodes->nodes, K = ppn, their
 * product checked by the caller). 0, ENOMEM or EINVAL. */
static int agg_generate(const xchg_topo *nodes, uint32_t ppn, const char *spec,
                        xchg_sched **out, xchg_err *err)
{
    actx *c = calloc(1, sizeof *c);
    if (!c)
        return xchg_fail(err, XCHG_ENOMEM, "out of memory composing %s", spec);
    c->N = nodes->nodes;
    c->K = ppn;
    c->O = (c->N + c->K - 1) / c->K;
    c->d0 = c->K > 1 && c->N > 1 ? 0 : 1; /* d = 0 pairs distinct nodes of one slot */
    c->between_first = c->K - 1;
    c->after_first = c->between_first + (c->O - c->d0);
    xchg_topo rt;
    char rspec[40];
    snprintf(rspec, sizeof rspec, "complete:%llu", (unsigned long long)c->N * c->K);
    int rc = xchg_topo_parse(rspec, &rt, err);
    if (rc) {
        free(c);
        return rc;
    }
    xchg_sched *s = xchg_sched_new(&rt, spec, 1);
    if (!s) {
        free(c);
        return xchg_fail(err, XCHG_ENOMEM, "out of memory composing %s", spec);
    }
    s->ctx = c;
    s->ctx_free = free;
    s->ctx_bytes = sizeof *c;
    if ((rc = agg_compose(s, c))) {
        xchg_sched_free(s);
        return xchg_fail(err, rc, "out of memory composing %s", spec);
    }
    *out = s;
    return XCHG_OK;
}

int xchg_hier_generate(const xchg_topo *nodes, uint32_t ppn, const char *spec,
                       xchg_sched **out, xchg_err *err)
{
    if (!nodes || !spec || !out || ppn == 0)
        return xchg_fail(err, XCHG_EINVAL,
                         "xchg_hier_generate: needs a node topology, ppn >= 1, a spec and a "
                         "result");
    xchg_hier h;
    int rc = xchg_hier_parse(spec, ppn, &h, err);
    if (rc < 0)
        return rc;
    if (rc == 0)
        return xchg_fail(err, XCHG_EINVAL,
                         "'%.60s' is not a node-aware spec; accepted: leader:X, leaders:L:X, "
                         "pairs:X, aggregate",
                         spec);
    if (!h.aggregate && strcmp(h.inner, "auto") == 0)
        return xchg_fail(err, XCHG_EINVAL,
                         "'%.60s': the composition needs the algorithm between nodes named; "
                         "accepted: %s:X with X from 'xchg list' (auto is the planner's)",
                         spec, h.kind);
    uint64_t p = (uint64_t)nodes->nodes * ppn;
    if (p > XCHG_MAX_NODES)
        return xchg_fail(err, XCHG_EINVAL,
                         "%u nodes of %u ranks are %llu ranks; accepted: at most %u ranks",
                         (unsigned)nodes->nodes, (unsigned)ppn, (unsigned long long)p,
                         (unsigned)XCHG_MAX_NODES);
    if (h.aggregate)
        return agg_generate(nodes, ppn, spec, out, err);
    hctx *c = calloc(1, sizeof *c);
    if (!c)
        return xchg_fail(err, XCHG_ENOMEM, "out of memory composing %s", spec);
    if ((rc = xchg_generate(nodes, h.inner, &c->inner, err))) {
        free(c);
        return rc;
    }
    c->N = nodes->nodes;
    c->K = ppn;
    c->L = h.leaders;
    c->G = ppn / h.leaders;
    c->inner_first = c->G - 1;
    c->inner_steps = xchg_sched_nsteps(c->inner);
    c->mid_first = c->inner_first + c->inner_steps;
    c->scatter_first = c->mid_first + (c->L - 1);
    xchg_topo rt;
    char rspec[40];
    snprintf(rspec, sizeof rspec, "complete:%llu", (unsigned long long)p);
    if ((rc = xchg_topo_parse(rspec, &rt, err))) {
        hctx_free(c);
        return rc;
    }
    xchg_sched *s = xchg_sched_new(&rt, spec, 1);
    if (!s) {
        hctx_free(c);
        return xchg_fail(err, XCHG_ENOMEM, "out of memory composing %s", spec);
    }
    s->ctx = c;
    s->ctx_free = hctx_free;
    s->ctx_bytes = sizeof *c + xchg_sched_bytes(c->inner);
    rc = compose(s, c, err);
    if (rc) {
        xchg_sched_free(s);
        if (rc == XCHG_ENOMEM)
            return xchg_fail(err, rc, "out of memory composing %s", spec);
        return rc;
    }
    *out = s;
    return XCHG_OK;
}
