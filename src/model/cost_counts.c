/*
 * cost_counts.c - what a schedule costs when its blocks differ in size
 * (count matrices, counts.c; docs/alltoallv.md): the bytes of every
 * message (xchg_vcounts_messages) and the cost from them
 * (xchg_cost_vcounts), with lower bounds on any schedule of those counts.
 *
 * Model (cost.c's, block sizes made explicit): the schedule is unchanged,
 * so the same blocks ride the same messages; a message weighs the sum of
 * its blocks' sizes. A step costs one start-up t_s when some message has
 * bytes, plus its largest message's bytes times t_w; a message of only
 * 0-byte blocks is not sent (MPI_Alltoallv skips a count of 0), so a step
 * where every message is empty costs nothing. Copies are the schedule's
 * declared ones, each block charged at the heaviest node's mean block
 * (xchg_vcounts_summary.copy_block): which blocks a rearrangement copies
 * is not in the declaration, and the node with the most bytes is the one
 * the step waits for. With every block m bytes each figure is the plain
 * model's times m, and the time is xchg_cost_compute's.
 *
 * Lower bounds, each named with its model (one port a node):
 *   start-ups  ceil(log2(k+1)), k the most nonzero blocks off the diagonal
 *              one node sends or receives: with forwarding, the nodes
 *              holding a node's outgoing data at most double a step (and
 *              the holders of its incoming data at most halve); ceil(log2 p)
 *              when every block has bytes;
 *   direct     k start-ups for a direct schedule (every block goes from its
 *              origin straight to its destination: one message per nonzero
 *              block), which pairwise meets;
 *   injection  the most bytes one node sends or receives off the diagonal:
 *              they cross its one port.
 * No bisection bound is claimed with counts (the plain model's needs every
 * pair equal).
 *
 * The model layer sees the schedule through the public API only: blocks
 * are followed with the public follower (xchg_follow_origin_step), routes
 * walked with xchg_topo_route and the one link numbering.
 */
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "model/model_internal.h"

/* a + b, saturating at UINT64_MAX. */
static uint64_t add_sat(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* ceil(log2 n) for n >= 1; 0 for n <= 1. */
static uint64_t ceil_log2(uint64_t n)
{
    uint64_t d = 0;
    while (d < 64 && (UINT64_C(1) << d) < n)
        d++;
    return d;
}

/* 0 when c fits s: both given, as many nodes, and s a complete exchange of
 * one phase; else EINVAL saying which. */
static int check_fit(const xchg_sched *s, const xchg_vcounts *c, const char *who,
                     xchg_err *err)
{
    if (!s || !c)
        return xchg_fail(err, XCHG_EINVAL, "%s: schedule and counts must not be NULL", who);
    uint32_t p = xchg_sched_topo(s)->nodes;
    if (xchg_vcounts_nodes(c) != p)
        return xchg_fail(err, XCHG_EINVAL,
                         "%s: the counts are for %u nodes but %s runs on %u; accepted: a count "
                         "matrix of %u x %u blocks",
                         who, (unsigned)xchg_vcounts_nodes(c), xchg_sched_algorithm(s),
                         (unsigned)p, (unsigned)p, (unsigned)p);
    xchg_op op;
    xchg_sched_op(s, &op);
    if (op.kind != XCHG_OP_ALLTOALL || xchg_sched_nphases(s) != 1)
        return xchg_fail(err, XCHG_EINVAL,
                         "%s: %s performs %s; accepted: a schedule of the complete exchange "
                         "(alltoall), whose blocks the counts size",
                         who, xchg_sched_algorithm(s), xchg_op_name(op.kind));
    return XCHG_OK;
}

/*
 * Follow every block, origin by origin, with the public follower: before
 * each step keep where the origin's blocks are (prev), move them through
 * the step, and charge every block that left its holder to that holder's
 * message. Scratch: three arrays of p; bytes is written only once the
 * scratch and the follower are made.
 */
int xchg_vcounts_messages(const xchg_sched *s, const xchg_vcounts *c, uint64_t *bytes,
                          size_t len, xchg_err *err)
{
    int rc = check_fit(s, c, "xchg_vcounts_messages", err);
    if (rc)
        return rc;
    uint32_t p = xchg_sched_topo(s)->nodes;
    size_t n = xchg_sched_nsteps(s);
    if (!bytes || (n && len / n < p))
        return xchg_fail(err, XCHG_EINVAL,
                         "xchg_vcounts_messages: room for %zu messages, %zu wanted (steps x "
                         "nodes)",
                         bytes ? len : 0, n * (size_t)p);
    xchg_follower *f = NULL;
    if ((rc = xchg_follower_new(s, &f, err)))
        return rc;
    uint32_t *pos = malloc((size_t)p * sizeof *pos), *prev = malloc((size_t)p * sizeof *prev);
    uint32_t *sent = calloc(p, sizeof *sent);
    if (!pos || !prev || !sent) {
        rc = xchg_fail(err, XCHG_ENOMEM, "out of memory following the blocks of %s",
                       xchg_sched_algorithm(s));
        goto out;
    }
    memset(bytes, 0, n * (size_t)p * sizeof *bytes);
    for (uint32_t o = 0; o < p; o++) {
        const uint64_t *row = xchg_vcounts_row(c, o);
        for (uint32_t d = 0; d < p; d++)
            pos[d] = o;
        for (size_t k = 0; k < n; k++) {
            memcpy(prev, pos, (size_t)p * sizeof *pos);
            /* sent counts blocks, which this caller does not need; it only
             * grows (unsigned, so it may wrap harmlessly) */
            if ((rc = xchg_follow_origin_step(f, k, o, pos, sent))) {
                rc = xchg_fail(err, XCHG_EINTERNAL,
                               "following the blocks of %s: step %zu refused its positions",
                               xchg_sched_algorithm(s), k);
                goto out;
            }
            uint64_t *msg = bytes + k * (size_t)p;
            for (uint32_t d = 0; d < p; d++)
                if (pos[d] != prev[d] && row[d])
                    msg[prev[d]] = add_sat(msg[prev[d]], row[d]);
        }
    }
out:
    free(pos);
    free(prev);
    free(sent);
    xchg_follower_free(f);
    return rc;
}

/* The link loads of one step while they are added up: bytes per directed
 * link and the links touched (to find the busiest and clear them). */
typedef struct loads {
    uint64_t *load;   /* per link id */
    uint32_t *touched;
    size_t ntouched;
} loads;

/* Add b bytes to every link of node n's message at step k of s (its route
 * under the step's policy). A route that leaves the network (a broken
 * schedule, which xchg_verify reports) is charged up to where it leaves. */
static void add_route(const xchg_sched *s, size_t k, uint32_t n, uint64_t b, loads *L)
{
    const xchg_topo *t = xchg_sched_topo(s);
    xchg_msg msg;
    xchg_sched_message(s, k, n, &msg);
    xchg_seg segs[XCHG_MAX_DIMS];
    int nsegs = 0;
    xchg_topo_route(t, n, msg.to, msg.route_policy, segs, &nsegs);
    uint32_t at = n;
    for (int i = 0; i < nsegs; i++)
        for (uint32_t h = 0; h < segs[i].hops; h++) {
            uint32_t nx = xchg_topo_neighbor(t, at, segs[i].dim, segs[i].dir);
            if (nx == XCHG_NONE)
                return;
            size_t id = xchg_topo_link_id(t, at, segs[i].dim, segs[i].dir);
            if (L->load[id] == 0)
                L->touched[L->ntouched++] = (uint32_t)id;
            L->load[id] = add_sat(L->load[id], b);
            at = nx;
        }
}

/* The busiest link of the step just added up, and clear the loads. */
static uint64_t close_step(loads *L)
{
    uint64_t top = 0;
    for (size_t i = 0; i < L->ntouched; i++) {
        uint32_t id = L->touched[i];
        if (L->load[id] > top)
            top = L->load[id];
        L->load[id] = 0;
    }
    L->ntouched = 0;
    return top;
}

/* The lower bounds of a matrix with summary sm into v (see the file
 * comment). */
static void lower_bounds(const xchg_vcounts_summary *sm, const xchg_machine *mach,
                         xchg_vcost *v)
{
    uint64_t k = sm->max_send_blocks > sm->max_recv_blocks ? sm->max_send_blocks
                                                           : sm->max_recv_blocks;
    v->lb_startups = ceil_log2(k + 1);
    v->lb_direct_startups = k;
    v->lb_injection_bytes = sm->max_send > sm->max_recv ? sm->max_send : sm->max_recv;
    v->lb_time = (double)v->lb_startups * mach->ts + (double)v->lb_injection_bytes * mach->tw;
}

/*
 * The messages' bytes (xchg_vcounts_messages), then step by step: the
 * largest message (volume), start-ups, messages per node, and, when the
 * schedule does not claim to be contention-free on a network with links,
 * the busiest link's bytes from the routes. Time as cost.c's line, with
 * bytes in place of blocks times m. Memory: steps*p message sizes, p
 * counters, and the link loads when measured.
 */
int xchg_cost_vcounts(const xchg_sched *s, const xchg_machine *mach, const xchg_vcounts *c,
                      int with_barrier, xchg_vcost *out, xchg_err *err)
{
    if (!s || !mach || !c || !out)
        return xchg_fail(err, XCHG_EINVAL, "xchg_cost_vcounts: schedule, machine, counts and "
                                           "result must not be NULL");
    int rc = xchg_model_check_machine(mach, err);
    if (rc || (rc = check_fit(s, c, "xchg_cost_vcounts", err)))
        return rc;
    const xchg_topo *t = xchg_sched_topo(s);
    uint32_t p = t->nodes;
    size_t n = xchg_sched_nsteps(s);
    int measure = !xchg_sched_contention_free(s) && xchg_topo_has_links(t);
    size_t nlinks = measure ? xchg_topo_link_count(t) : 0;
    xchg_vcounts_summary sm;
    uint64_t *bytes = NULL, *per_node = calloc(p, sizeof *per_node);
    loads L = {NULL, NULL, 0};
    if (n && (size_t)p > SIZE_MAX / sizeof *bytes / n) {
        free(per_node);
        return xchg_fail(err, XCHG_ENOMEM, "xchg_cost_vcounts: %zu steps of %u messages do "
                                           "not fit in memory", n, (unsigned)p);
    }
    bytes = malloc((n ? n : 1) * (size_t)p * sizeof *bytes);
    if (measure) {
        L.load = calloc(nlinks, sizeof *L.load);
        L.touched = malloc(nlinks * sizeof *L.touched);
    }
    if (!bytes || !per_node || (measure && (!L.load || !L.touched)) ||
        xchg_vcounts_summarize(c, &sm) != XCHG_OK) {
        rc = xchg_fail(err, XCHG_ENOMEM, "out of memory costing %s on counts",
                       xchg_sched_algorithm(s));
        goto out;
    }
    if ((rc = xchg_vcounts_messages(s, c, bytes, n * (size_t)p, err)))
        goto out;
    xchg_vcost v;
    memset(&v, 0, sizeof v);
    v.steps = n;
    for (size_t k = 0; k < n; k++) {
        const uint64_t *msg = bytes + k * (size_t)p;
        uint64_t big = 0;
        for (uint32_t i = 0; i < p; i++) {
            if (!msg[i])
                continue; /* idle, or only 0-byte blocks: not sent */
            v.messages++;
            per_node[i]++;
            if (msg[i] > big)
                big = msg[i];
            if (measure)
                add_route(s, k, i, msg[i], &L);
        }
        v.startups += big > 0;
        v.volume_bytes = add_sat(v.volume_bytes, big);
        if (big > v.max_message_bytes)
            v.max_message_bytes = big;
        v.link_volume_bytes = add_sat(v.link_volume_bytes, measure ? close_step(&L) : big);
        v.copy_blocks += xchg_sched_copy_blocks(s, k);
    }
    for (uint32_t i = 0; i < p; i++)
        if (per_node[i] > v.max_node_messages)
            v.max_node_messages = per_node[i];
    v.link_source = measure ? XCHG_LINK_MEASURED : XCHG_LINK_CLAIMED;
    v.copy_bytes = (double)v.copy_blocks * sm.copy_block;
    double fixed = (double)v.startups * mach->ts;
    if (with_barrier)
        fixed += (double)v.startups * mach->barrier;
    /* the same shape as xchg_cost_compute's fixed + (vol*tw + copy*tr)*m,
     * so uniform counts give its time */
    v.time = fixed + ((double)v.volume_bytes * mach->tw + v.copy_bytes * mach->tr);
    v.link_time = fixed + ((double)v.link_volume_bytes * mach->tw + v.copy_bytes * mach->tr);
    lower_bounds(&sm, mach, &v);
    *out = v;
out:
    free(bytes);
    free(per_node);
    free(L.load);
    free(L.touched);
    return rc;
}
