/*
 * hier.c - the node-aware model (docs/hierarchical.md): clusters of N
 * nodes of K ranks on a network of nodes, every time on the cost model's
 * one line.
 *
 *   xchg_hier_line  a node-aware variant (leader:X, leaders:L:X, pairs:X)
 *                   from X's line on the node network: the L lanes' steps
 *                   side by side, their start-ups one lane's and their
 *                   bytes all through each node's one port, the gather,
 *                   the leaders' exchange and the scatter within the node
 *                   at the machine's intra-node figures, the leaders'
 *                   copies;
 *   xchg_aggregate_line  aggregate (locality-aware aggregation, no X):
 *                   two exchanges within the node at the intra-node figures
 *                   around the direct messages of K*K blocks between every
 *                   two nodes, their start-ups one rank's, their bytes all
 *                   through each node's port and on the links of the node
 *                   network (measured along the routes), four copies of p;
 *   xchg_flat_line  a flat schedule on all p = N*K ranks, K of them hosted
 *                   on each network node: per step one rank's start-up
 *                   when a message leaves its node (the K ranks start
 *                   theirs side by side), the blocks a node's port sends
 *                   and receives, the link loads on the node network, the
 *                   messages within a node;
 *   xchg_ppn_candidates  the planner's candidates with ppn > 1: the flat
 *                   ones on complete:p, every variant over every
 *                   candidate X on the node network, and aggregate.
 *
 * Start-ups overlap, bytes do not: each rank runs on its own core, so the
 * software overhead and latency of the K ranks' (or L lanes') messages are
 * paid side by side, while their bytes share the node's one port (a NIC's
 * own cost a message, a few ns, is far below t_s). The executor's auto
 * prices them the same way (src/mpi/auto_nodes.c).
 *
 * The compositions the verifier follows are src/alg/hier.c; their steps
 * and declared sizes are the ones counted here (tests/test_hier.c).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "model/model_internal.h"


/* XCHG_EINVAL when N nodes of K ranks pass the ranks a schedule may have,
 * or mach's error; else 0. */
static int ranks_and_machine(uint64_t N, uint64_t K, const xchg_machine *mach, xchg_err *err)
{
    uint64_t p = N * K;
    if (p > XCHG_MAX_NODES)
        return xchg_fail(err, XCHG_EINVAL,
                         "%llu nodes of %llu ranks are %llu ranks; accepted: at most %u",
                         (unsigned long long)N, (unsigned long long)K, (unsigned long long)p,
                         (unsigned)XCHG_MAX_NODES);
    return xchg_model_check_machine(mach, err);
}

/*
 * The variant's line from inner's counts (the formulas are in
 * xchg_model.h, above the declaration). Never allocates.
 */
int xchg_hier_line(const xchg_line *inner, const xchg_topo *nodes, uint32_t ppn,
                   uint32_t leaders, const xchg_machine *mach, int with_barrier,
                   xchg_line *out, xchg_err *err)
{
    if (!inner || !nodes || !mach || !out)
        return xchg_fail(err, XCHG_EINVAL, "xchg_hier_line: NULL argument");
    if (ppn == 0 || leaders == 0 || ppn % leaders != 0)
        return xchg_fail(err, XCHG_EINVAL,
                         "xchg_hier_line: %u leaders a node and %u ranks a node; accepted: "
                         "ppn >= 1 and leaders a divisor of ppn",
                         (unsigned)leaders, (unsigned)ppn);
    uint64_t N = nodes->nodes, K = ppn, L = leaders, G = K / L, p = N * K;
    int rc = ranks_and_machine(N, K, mach, err);
    if (rc)
        return rc;
    xchg_line l = *inner;
    /* the L lanes start their messages side by side (one core each): one
     * lane's start-ups; their bytes all pass the node's port */
    l.startups = inner->startups;
    l.volume_blocks = K * K * inner->volume_blocks;
    l.link_volume_blocks = K * K * inner->link_volume_blocks;
    uint64_t gp = G * p;
    l.copy_blocks = G * K * inner->copy_blocks + (G > 1 ? 2 * gp : 0) + (L > 1 ? gp : 0);
    l.node_startups = 2 * (G - 1) + (L - 1);
    l.node_volume_blocks = 2 * (G - 1) * p + (L - 1) * N * G * G;
    l.steps = inner->steps + l.node_startups;
    l.pieces = 1;
    l.fixed = (double)l.startups * mach->ts + (double)l.node_startups * mach->ts_node;
    if (with_barrier)
        l.fixed += (double)inner->startups * mach->barrier;
    l.per_unit = (double)l.link_volume_blocks * mach->tw + (double)l.copy_blocks * mach->tr +
                 (double)l.node_volume_blocks * mach->tw_node;
    *out = l;
    return XCHG_OK;
}

/*
 * The most node pairs (n, b), n != b, whose shortest route on nodes crosses
 * one directed link, into *most, and the directed links crossed by two
 * pairs or more into *shared. On a ring, a torus or a hypercube the routes
 * are the same from every node (moved along, or XORed), so each link of a
 * kind (dimension and direction; dimension on a hypercube) carries what
 * the routes from node 0 put on that kind: N routes are walked. Elsewhere
 * (array, mesh, tree) every pair's route is, when N*N*route length is
 * within max_work. Returns 0; 1 when over max_work (nothing measured);
 * ENOMEM.
 */
static int agg_links(const xchg_topo *nodes, uint64_t max_work, uint64_t *most,
                     uint64_t *shared)
{
    uint32_t N = nodes->nodes;
    xchg_seg segs[2 * XCHG_MAX_DIMS];
    int nsegs = 0;
    *most = *shared = 0;
    if (nodes->kind == XCHG_TOPO_RING || nodes->kind == XCHG_TOPO_TORUS ||
        nodes->kind == XCHG_TOPO_HYPERCUBE) {
        int cube = nodes->kind == XCHG_TOPO_HYPERCUBE;
        uint64_t kind_load[XCHG_MAX_DIMS][2];
        memset(kind_load, 0, sizeof kind_load);
        for (uint32_t b = 1; b < N; b++) {
            xchg_topo_route(nodes, 0, b, XCHG_ROUTE_SHORTEST, segs, &nsegs);
            for (int i = 0; i < nsegs; i++)
                kind_load[segs[i].dim][cube || segs[i].dir > 0] += segs[i].hops;
        }
        for (int k = 0; k < nodes->ndims; k++)
            for (int d = 0; d < 2; d++) {
                uint64_t v = kind_load[k][d];
                *most = v > *most ? v : *most;
                /* a kind's links: N (every node's), both directions of a cube's */
                *shared += v > 1 ? N : 0;
            }
        return 0;
    }
    double hops = 1;
    for (int k = 0; k < nodes->ndims; k++)
        hops += nodes->kind == XCHG_TOPO_TREE ? 2 : nodes->size[k];
    if ((double)N * (double)N * hops > (double)max_work)
        return 1;
    size_t nlinks = xchg_topo_link_count(nodes);
    uint64_t *load = calloc(nlinks + 1, sizeof *load);
    if (!load)
        return XCHG_ENOMEM;
    for (uint32_t n = 0; n < N; n++)
        for (uint32_t b = 0; b < N; b++) {
            if (b == n)
                continue;
            xchg_topo_route(nodes, n, b, XCHG_ROUTE_SHORTEST, segs, &nsegs);
            uint32_t at = n;
            for (int i = 0; i < nsegs; i++)
                for (uint32_t h = 0; h < segs[i].hops; h++) {
                    size_t id = xchg_topo_link_id(nodes, at, segs[i].dim, segs[i].dir);
                    if (id < nlinks)
                        load[id]++;
                    at = xchg_topo_neighbor(nodes, at, segs[i].dim, segs[i].dir);
                }
        }
    for (size_t i = 0; i < nlinks; i++) {
        *most = load[i] > *most ? load[i] : *most;
        *shared += load[i] > 1;
    }
    free(load);
    return 0;
}

/*
 * aggregate's line (the formulas are in xchg_model.h, above the
 * declaration; the steps are src/alg/hier.c's).
 */
int xchg_aggregate_line(const xchg_topo *nodes, uint32_t ppn, const xchg_machine *mach,
                        const xchg_line_opts *opts, xchg_line *out, xchg_err *err)
{
    if (!nodes || !mach || !out || ppn == 0)
        return xchg_fail(err, XCHG_EINVAL,
                         "xchg_aggregate_line: needs a node network, ppn >= 1, a machine and "
                         "a result");
    uint64_t N = nodes->nodes, K = ppn, p = N * K;
    int rc = ranks_and_machine(N, K, mach, err);
    if (rc)
        return rc;
    xchg_line_opts o = opts ? *opts : (xchg_line_opts){0};
    uint64_t O = (N + K - 1) / K;
    xchg_line l;
    memset(&l, 0, sizeof l);
    l.pieces = 1;
    /* slot distance 0 pairs two nodes of one slot: none when K = 1 or N = 1 */
    l.startups = O - (K > 1 && N > 1 ? 0 : 1);
    l.volume_blocks = (N - 1) * K * K;
    l.link_volume_blocks = l.volume_blocks;
    l.link_source = XCHG_LINK_CLAIMED;
    if (xchg_topo_has_links(nodes) && N > 1) {
        uint64_t most, shared;
        rc = agg_links(nodes, o.max_work ? o.max_work : XCHG_VERIFY_DEFAULT_MAX_WORK, &most,
                       &shared);
        if (rc < 0)
            return xchg_fail(err, rc, "out of memory costing aggregate on %u nodes",
                             (unsigned)N);
        if (rc == 0) {
            l.link_source = XCHG_LINK_MEASURED;
            l.link_conflicts = shared;
            if (most * K * K > l.link_volume_blocks)
                l.link_volume_blocks = most * K * K;
        } else {
            l.link_source = XCHG_LINK_UNMEASURED;
        }
    }
    l.copy_blocks = p > 1 ? 4 * p : 0;
    l.node_startups = (K - 1) * (N > 1 ? 2 : 1);
    l.node_volume_blocks = N > 1 ? (K - 1) * (2 * O * K + 1) : K - 1;
    l.steps = l.startups + l.node_startups;
    l.fixed = (double)l.startups * mach->ts + (double)l.node_startups * mach->ts_node;
    if (o.with_barrier)
        l.fixed += (double)l.startups * mach->barrier;
    l.per_unit = (double)l.link_volume_blocks * mach->tw + (double)l.copy_blocks * mach->tr +
                 (double)l.node_volume_blocks * mach->tw_node;
    *out = l;
    return XCHG_OK;
}

/* Work of walking every message of s on the node network: p * steps * the
 * longest route (bounded by the sum of the dimensions' sizes). */
static double flat_work(const xchg_sched *s, const xchg_topo *nodes)
{
    double hops = 1;
    for (int k = 0; k < nodes->ndims; k++)
        hops += nodes->size[k];
    return (double)xchg_sched_topo(s)->nodes * (double)xchg_sched_nsteps(s) * hops;
}

/* Per-step counters of xchg_flat_line: messages each rank receives from
 * other nodes (a rank sends at most one a step), blocks each node's port
 * sends and receives, each directed link's load and messages. */
typedef struct flat_acc {
    uint32_t *rank_in, *link_msgs;
    uint64_t *out_blocks, *in_blocks, *link_load;
    size_t nlinks;
} flat_acc;

static void flat_acc_free(flat_acc *a)
{
    free(a->rank_in);
    free(a->link_msgs);
    free(a->out_blocks);
    free(a->in_blocks);
    free(a->link_load);
}

/* Load the links of the route a -> b on nodes with blocks. */
static void load_route(const xchg_topo *nodes, flat_acc *a, uint32_t from, uint32_t to,
                       uint64_t blocks)
{
    xchg_seg segs[XCHG_MAX_DIMS];
    int nsegs = 0;
    xchg_topo_route(nodes, from, to, XCHG_ROUTE_SHORTEST, segs, &nsegs);
    uint32_t at = from;
    for (int i = 0; i < nsegs; i++)
        for (uint32_t h = 0; h < segs[i].hops; h++) {
            size_t id = xchg_topo_link_id(nodes, at, segs[i].dim, segs[i].dir);
            if (id < a->nlinks) {
                a->link_load[id] += blocks;
                a->link_msgs[id]++;
            }
            at = xchg_topo_neighbor(nodes, at, segs[i].dim, segs[i].dir);
        }
}

/*
 * One step k of s into l's counts (see xchg_flat_line): resets a, walks
 * every rank's message, takes the maxima.
 */
static void flat_step(const xchg_sched *s, size_t k, const xchg_topo *nodes, uint32_t ppn,
                      flat_acc *a, xchg_line *l, uint64_t *busy_steps)
{
    uint32_t N = nodes->nodes, p = N * ppn;
    memset(a->rank_in, 0, (size_t)p * sizeof *a->rank_in);
    memset(a->out_blocks, 0, N * sizeof *a->out_blocks);
    memset(a->in_blocks, 0, N * sizeof *a->in_blocks);
    memset(a->link_load, 0, a->nlinks * sizeof *a->link_load);
    memset(a->link_msgs, 0, a->nlinks * sizeof *a->link_msgs);
    /* S: the most messages between nodes one rank sends (at most one) or
     * receives in the step; the K ranks of a node start theirs side by
     * side, so S, not the node's count, is the step's start-ups */
    uint64_t intra = 0, S = 0;
    for (uint32_t r = 0; r < p; r++) {
        xchg_msg m;
        xchg_sched_message(s, k, r, &m);
        if (m.to == XCHG_NONE || m.to >= p || m.to == r || m.blocks == 0)
            continue;
        uint32_t from = r / ppn, to = m.to / ppn;
        if (from == to) {
            if (m.blocks > intra)
                intra = m.blocks;
            continue;
        }
        if (++a->rank_in[m.to] > S)
            S = a->rank_in[m.to];
        a->out_blocks[from] += m.blocks;
        a->in_blocks[to] += m.blocks;
        load_route(nodes, a, from, to, m.blocks);
    }
    uint64_t Vp = 0, Vl = 0;
    for (uint32_t n = 0; n < N; n++) {
        uint64_t v = a->out_blocks[n] > a->in_blocks[n] ? a->out_blocks[n] : a->in_blocks[n];
        Vp = v > Vp ? v : Vp;
    }
    for (size_t i = 0; i < a->nlinks; i++) {
        Vl = a->link_load[i] > Vl ? a->link_load[i] : Vl;
        l->link_conflicts += a->link_msgs[i] > 1;
    }
    l->startups += S;
    l->volume_blocks += Vp;
    l->link_volume_blocks += Vp > Vl ? Vp : Vl;
    l->node_startups += intra > 0;
    l->node_volume_blocks += intra;
    l->copy_blocks += xchg_sched_copy_blocks(s, k);
    *busy_steps += S > 0 || intra > 0;
}

int xchg_flat_line(const xchg_sched *s, const xchg_topo *nodes, uint32_t ppn,
                   const xchg_machine *mach, const xchg_line_opts *opts, xchg_line *out,
                   xchg_err *err)
{
    if (!s || !nodes || !mach || !out || ppn == 0)
        return xchg_fail(err, XCHG_EINVAL,
                         "xchg_flat_line: needs a schedule, a node network, ppn >= 1, a "
                         "machine and a result");
    uint64_t p = (uint64_t)nodes->nodes * ppn;
    if (xchg_sched_topo(s)->nodes != p)
        return xchg_fail(err, XCHG_EINVAL,
                         "xchg_flat_line: the schedule has %u ranks, not %llu = %u nodes of "
                         "%u; accepted: a schedule on nodes*ppn ranks",
                         (unsigned)xchg_sched_topo(s)->nodes, (unsigned long long)p,
                         (unsigned)nodes->nodes, (unsigned)ppn);
    int rc = xchg_model_check_machine(mach, err);
    if (rc)
        return rc;
    xchg_line_opts o = opts ? *opts : (xchg_line_opts){0};
    xchg_line l;
    memset(&l, 0, sizeof l);
    l.steps = xchg_sched_nsteps(s);
    l.pieces = 1;
    uint64_t limit = o.max_work ? o.max_work : XCHG_VERIFY_DEFAULT_MAX_WORK;
    if (flat_work(s, nodes) > (double)limit) {
        /* too much to walk: the declared counts, a lower bound, may not win */
        for (size_t k = 0; k < l.steps; k++) {
            uint64_t mb = xchg_sched_step_max_blocks(s, k);
            l.startups += mb > 0;
            l.volume_blocks += mb;
            l.copy_blocks += xchg_sched_copy_blocks(s, k);
        }
        l.link_volume_blocks = l.volume_blocks;
        l.link_source = XCHG_LINK_UNMEASURED;
        l.fixed = (double)l.startups * mach->ts;
        l.per_unit = (double)l.volume_blocks * mach->tw + (double)l.copy_blocks * mach->tr;
        *out = l;
        return XCHG_OK;
    }
    flat_acc a;
    memset(&a, 0, sizeof a);
    uint32_t N = nodes->nodes;
    a.nlinks = xchg_topo_link_count(nodes);
    a.rank_in = calloc(p, sizeof *a.rank_in);
    a.out_blocks = calloc(N, sizeof *a.out_blocks);
    a.in_blocks = calloc(N, sizeof *a.in_blocks);
    a.link_load = calloc(a.nlinks + 1, sizeof *a.link_load);
    a.link_msgs = calloc(a.nlinks + 1, sizeof *a.link_msgs);
    if (!a.rank_in || !a.out_blocks || !a.in_blocks || !a.link_load || !a.link_msgs) {
        flat_acc_free(&a);
        return xchg_fail(err, XCHG_ENOMEM, "out of memory costing %s hosted %u a node",
                         xchg_sched_algorithm(s), (unsigned)ppn);
    }
    uint64_t busy = 0;
    for (size_t k = 0; k < l.steps; k++)
        flat_step(s, k, nodes, ppn, &a, &l, &busy);
    flat_acc_free(&a);
    l.link_source = XCHG_LINK_MEASURED;
    l.fixed = (double)l.startups * mach->ts + (double)l.node_startups * mach->ts_node;
    if (o.with_barrier)
        l.fixed += (double)busy * mach->barrier;
    l.per_unit = (double)l.link_volume_blocks * mach->tw + (double)l.copy_blocks * mach->tr +
                 (double)l.node_volume_blocks * mach->tw_node;
    *out = l;
    return XCHG_OK;
}

/* A growing list of candidates. */
typedef struct clist {
    xchg_plan_entry *v;
    size_t n, cap;
} clist;

/* A new zeroed entry at the end of c; NULL when out of memory. */
static xchg_plan_entry *push(clist *c)
{
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 32;
        xchg_plan_entry *v = realloc(c->v, cap * sizeof *v);
        if (!v)
            return NULL;
        c->v = v;
        c->cap = cap;
    }
    memset(&c->v[c->n], 0, sizeof c->v[c->n]);
    return &c->v[c->n++];
}

/* Verify s block by block within opts' work limit into e->check (and
 * failures, why); 0 or ENOMEM. */
static int verify_into(const xchg_sched *s, const xchg_plan_opts *o, xchg_plan_entry *e)
{
    xchg_verify_opts vo = {.threads = o->threads, .max_work = o->max_work};
    xchg_verify_report rep;
    xchg_err verr = {{0}};
    int rc = xchg_verify(s, &vo, &rep, &verr);
    if (rc == XCHG_ENOMEM)
        return rc;
    if (rc == XCHG_ETOOBIG) {
        e->check = XCHG_CHECK_TOOBIG;
    } else if (rc) {
        e->check = XCHG_CHECK_ERROR;
        snprintf(e->why, sizeof e->why, "verify failed to run: %.170s", verr.msg);
    } else if (!rep.ok) {
        e->check = XCHG_CHECK_FAILED;
        e->failures = rep.failures;
        snprintf(e->why, sizeof e->why, "failed verification: %.170s",
                 rep.reported ? rep.msgs[0] : "");
    } else {
        e->check = XCHG_CHECK_BLOCKS;
    }
    return XCHG_OK;
}

/* One flat candidate: spec on the ranks' complete:p, costed hosted ppn a
 * node on nodes. 0, or ENOMEM. */
static int flat_candidate(const xchg_topo *nodes, const xchg_topo *ranks, uint32_t ppn,
                          const xchg_machine *mach, const char *spec, const xchg_plan_opts *o,
                          xchg_plan_entry *e, xchg_err *err)
{
    snprintf(e->alg, sizeof e->alg, "%.*s", (int)sizeof e->alg - 1, spec);
    xchg_estimate est;
    uint64_t max_bytes = o->max_bytes ? o->max_bytes : XCHG_DEFAULT_MAX_BYTES;
    uint64_t max_work = o->max_build_work ? o->max_build_work : XCHG_VERIFY_DEFAULT_MAX_WORK;
    xchg_err gerr = {{0}};
    if (xchg_estimate_spec(ranks, spec, &est, &gerr) == XCHG_OK &&
        (est.bytes > max_bytes || est.work > max_work)) {
        e->check = XCHG_CHECK_SKIPPED;
        snprintf(e->why, sizeof e->why,
                 "skipped: its schedule on %u ranks is over the memory or work limit",
                 (unsigned)ranks->nodes);
        return XCHG_OK;
    }
    xchg_sched *s = NULL;
    int rc = xchg_generate(ranks, spec, &s, &gerr);
    if (rc == XCHG_ENOMEM)
        return xchg_fail(err, rc, "planner: out of memory generating %s", spec);
    if (rc) {
        e->check = XCHG_CHECK_ERROR;
        snprintf(e->why, sizeof e->why, "generation failed: %.170s", gerr.msg);
        return XCHG_OK;
    }
    e->contention_free = xchg_sched_contention_free(s) && !xchg_topo_has_links(nodes);
    if (o->verify && (rc = verify_into(s, o, e))) {
        xchg_sched_free(s);
        return xchg_fail(err, rc, "planner: out of memory verifying %s", spec);
    }
    xchg_line_opts lo = {.with_barrier = o->with_barrier, .max_work = o->max_work};
    xchg_err cerr = {{0}};
    rc = xchg_flat_line(s, nodes, ppn, mach, &lo, &e->line, &cerr);
    xchg_sched_free(s);
    if (rc == XCHG_ENOMEM)
        return xchg_fail(err, rc, "planner: out of memory costing %s", spec);
    if (rc) {
        e->check = XCHG_CHECK_ERROR;
        snprintf(e->why, sizeof e->why, "cost failed: %.180s", cerr.msg);
        return XCHG_OK;
    }
    if (e->line.link_source == XCHG_LINK_UNMEASURED) {
        if (e->check == XCHG_CHECK_NONE)
            e->check = XCHG_CHECK_TOOBIG;
        snprintf(e->why, sizeof e->why,
                 "its messages on the node network are over the work limit (--max-work)");
    }
    e->eligible = e->check != XCHG_CHECK_FAILED && e->check != XCHG_CHECK_ERROR &&
                  e->line.link_source != XCHG_LINK_UNMEASURED;
    return XCHG_OK;
}

/* The spec of variant L over inner on nodes of K ranks into buf; 0 when
 * it does not fit. */
static int hier_spec(uint32_t L, uint32_t K, const char *inner, char *buf, size_t len)
{
    int n;
    if (L == 1)
        n = snprintf(buf, len, "leader:%s", inner);
    else if (L == K)
        n = snprintf(buf, len, "pairs:%s", inner);
    else
        n = snprintf(buf, len, "leaders:%u:%s", (unsigned)L, inner);
    return n > 0 && (size_t)n < len;
}

/* One node-aware candidate: variant L over the node network's candidate x.
 * 0, or ENOMEM. */
static int hier_candidate(const xchg_topo *nodes, uint32_t ppn, uint32_t L,
                          const xchg_machine *mach, const xchg_plan_entry *x,
                          const xchg_plan_opts *o, xchg_plan_entry *e, xchg_err *err)
{
    hier_spec(L, ppn, x->alg, e->alg, sizeof e->alg);
    e->contention_free = x->contention_free;
    e->check = x->check;
    e->failures = x->failures;
    snprintf(e->why, sizeof e->why, "%s", x->why);
    if (x->check == XCHG_CHECK_ERROR || x->check == XCHG_CHECK_SKIPPED)
        return XCHG_OK;
    xchg_err cerr = {{0}};
    int rc = xchg_hier_line(&x->line, nodes, ppn, L, mach, o->with_barrier, &e->line, &cerr);
    if (rc) {
        e->check = XCHG_CHECK_ERROR;
        snprintf(e->why, sizeof e->why, "cost failed: %.180s", cerr.msg);
        return XCHG_OK;
    }
    if (o->verify && x->check != XCHG_CHECK_FAILED) {
        /* the composition itself, block by block, where it is small enough */
        xchg_sched *s = NULL;
        xchg_err gerr = {{0}};
        rc = xchg_hier_generate(nodes, ppn, e->alg, &s, &gerr);
        if (rc == XCHG_ENOMEM)
            return xchg_fail(err, rc, "planner: out of memory composing %s", e->alg);
        if (rc == XCHG_OK) {
            xchg_plan_entry v = *e;
            rc = verify_into(s, o, &v);
            xchg_sched_free(s);
            if (rc)
                return xchg_fail(err, rc, "planner: out of memory verifying %s", e->alg);
            if (v.check == XCHG_CHECK_FAILED || v.check == XCHG_CHECK_ERROR) {
                e->check = v.check;
                e->failures = v.failures;
                snprintf(e->why, sizeof e->why, "the composition %.180s", v.why);
            }
            /* passed or too large: X's own check on the node network stands */
        }
    }
    e->eligible = x->eligible && e->check != XCHG_CHECK_FAILED && e->check != XCHG_CHECK_ERROR;
    return XCHG_OK;
}

/* The aggregate candidate on nodes of ppn ranks: its line, and with
 * o->verify its composition followed block by block where the schedule
 * fits o's memory limit. 0, or ENOMEM. */
static int aggregate_candidate(const xchg_topo *nodes, uint32_t ppn, const xchg_machine *mach,
                               const xchg_plan_opts *o, xchg_plan_entry *e, xchg_err *err)
{
    snprintf(e->alg, sizeof e->alg, "aggregate");
    e->contention_free = !xchg_topo_has_links(nodes);
    xchg_line_opts lo = {.with_barrier = o->with_barrier, .max_work = o->max_work};
    xchg_err cerr = {{0}};
    int rc = xchg_aggregate_line(nodes, ppn, mach, &lo, &e->line, &cerr);
    if (rc == XCHG_ENOMEM)
        return xchg_fail(err, rc, "planner: out of memory costing aggregate");
    if (rc) {
        e->check = XCHG_CHECK_ERROR;
        snprintf(e->why, sizeof e->why, "cost failed: %.180s", cerr.msg);
        return XCHG_OK;
    }
    if (o->verify) {
        /* the composition's tables: two words a rank a step */
        uint64_t max_bytes = o->max_bytes ? o->max_bytes : XCHG_DEFAULT_MAX_BYTES;
        double bytes = (double)e->line.steps * (double)nodes->nodes * ppn * 8.0;
        xchg_sched *s = NULL;
        xchg_err gerr = {{0}};
        if (bytes > (double)max_bytes) {
            e->check = XCHG_CHECK_TOOBIG;
        } else if ((rc = xchg_hier_generate(nodes, ppn, "aggregate", &s, &gerr)) == XCHG_OK) {
            rc = verify_into(s, o, e);
            xchg_sched_free(s);
            if (rc)
                return xchg_fail(err, rc, "planner: out of memory verifying aggregate");
            if (e->check == XCHG_CHECK_FAILED || e->check == XCHG_CHECK_ERROR) {
                char why[sizeof e->why];
                snprintf(why, sizeof why, "%s", e->why);
                snprintf(e->why, sizeof e->why, "the composition %.180s", why);
            }
        } else if (rc == XCHG_ENOMEM) {
            return xchg_fail(err, rc, "planner: out of memory composing aggregate");
        } else {
            e->check = XCHG_CHECK_ERROR;
            snprintf(e->why, sizeof e->why, "composition failed: %.170s", gerr.msg);
        }
    }
    if (e->line.link_source == XCHG_LINK_UNMEASURED && !e->why[0])
        snprintf(e->why, sizeof e->why,
                 "its messages on the node network are over the work limit (--max-work)");
    e->eligible = e->check != XCHG_CHECK_FAILED && e->check != XCHG_CHECK_ERROR &&
                  e->line.link_source != XCHG_LINK_UNMEASURED;
    return XCHG_OK;
}

int xchg_ppn_candidates(const xchg_topo *nodes, const xchg_machine *mach,
                        const xchg_plan_opts *o, const xchg_plan_entry *inner, size_t ninner,
                        xchg_plan_entry **out, size_t *nout, xchg_err *err)
{
    uint32_t K = o->ppn;
    uint64_t p = (uint64_t)nodes->nodes * K;
    if (p > XCHG_MAX_NODES)
        return xchg_fail(err, XCHG_EINVAL,
                         "%u nodes of %u ranks are %llu ranks; accepted: at most %u ranks",
                         (unsigned)nodes->nodes, (unsigned)K, (unsigned long long)p,
                         (unsigned)XCHG_MAX_NODES);
    xchg_topo ranks;
    char rspec[40];
    snprintf(rspec, sizeof rspec, "complete:%llu", (unsigned long long)p);
    int rc = xchg_topo_parse(rspec, &ranks, err);
    if (rc)
        return rc;
    clist c = {0};
    /* flat: every algorithm on the ranks' switch, hosted K a node */
    for (size_t i = 0; i < xchg_alg_count() && !rc; i++) {
        const xchg_alg *a = xchg_alg_at(i);
        if (!a || a->op != XCHG_OP_ALLTOALL || !xchg_alg_in_list(o->only, a->name))
            continue;
        xchg_spec specs[XCHG_MAX_VARIANTS];
        int n = xchg_alg_variants(&ranks, a, specs, XCHG_MAX_VARIANTS, NULL);
        for (int k = 0; k < n && !rc; k++) {
            xchg_plan_entry *e = push(&c);
            rc = e ? flat_candidate(nodes, &ranks, K, mach, specs[k], o, e, err)
                   : xchg_fail(err, XCHG_ENOMEM, "planner: out of memory");
        }
    }
    /* node-aware: every L dividing K, over every candidate on the nodes */
    for (uint32_t L = 1; L <= K && !rc; L++) {
        if (K % L)
            continue;
        for (size_t i = 0; i < ninner && !rc; i++) {
            char spec[XCHG_SPEC_MAX];
            if (!hier_spec(L, K, inner[i].alg, spec, sizeof spec))
                continue; /* a name too long to carry */
            xchg_plan_entry *e = push(&c);
            rc = e ? hier_candidate(nodes, K, L, mach, &inner[i], o, e, err)
                   : xchg_fail(err, XCHG_ENOMEM, "planner: out of memory");
        }
    }
    /* aggregate: no X, its messages straight between the nodes */
    if (!rc) {
        xchg_plan_entry *e = push(&c);
        rc = e ? aggregate_candidate(nodes, K, mach, o, e, err)
               : xchg_fail(err, XCHG_ENOMEM, "planner: out of memory");
    }
    if (rc) {
        free(c.v);
        return rc;
    }
    *out = c.v;
    *nout = c.n;
    return XCHG_OK;
}
