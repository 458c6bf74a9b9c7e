/*
 * sim.c - the event-driven network simulator (xchg_sim_run; docs/simulator.md).
 *
 * It reads a schedule through the public API only (xchg_sched_message,
 * xchg_topo_route, xchg_sched_copy_blocks) and runs it on the schedule's
 * topology with contention:
 *   - the network: the schedule's topology, or another of as many nodes;
 *     schedule node i runs on network node map[i] (default i), and
 *     routes, links and ports are the network's;
 *   - resources: every directed link, by the library's one numbering
 *     (xchg_topo_link_id: the ids the verifier counts contention on), and
 *     with one-port nodes each node's injection and ejection port;
 *   - a message becomes ready ts after its sender starts its step (and has
 *     done the step's local copies). With wormhole routing it then needs
 *     every resource of its route at once, holds them from head to tail,
 *     hops*th + blocks*m*tw, and frees them all when its tail arrives (the
 *     whole path held, as a blocked worm holds it). With virtual cut-through
 *     its head takes the resources one by one (injection port, each link,
 *     ejection port), th a link; a resource is held from when the head
 *     takes it until the tail has passed it (th + blocks*m*tw for a link,
 *     blocks*m*tw for a port), and a head that finds the next one taken
 *     waits there, the message buffered, while the links behind it are freed
 *     on time. With no contention both give hops*th + blocks*m*tw;
 *   - a message that finds a resource taken waits in that resource's queue,
 *     first come first served; when the resource is freed the queue's
 *     messages try again in order (wormhole: one blocked elsewhere moves to
 *     the queue of what blocks it).
 * With a count matrix (opts->counts) a message's bytes are its blocks'
 * sizes, computed once for every (step, node) before the run
 * (xchg_vcounts_messages): it takes bytes*tw, and one of 0 bytes is not
 * sent; copies are charged at the counts' copy_block a block.
 * Steps: in barrier mode one step at a time, every node starting it when
 * the last message of the previous one has arrived (plus the barrier time);
 * in async mode each node starts its next step once its own send and
 * receive are done. A node has at most one message of its own in flight, so
 * memory is the network plus p messages (and, in async mode, one byte per
 * node for each step some node is in).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "xchg_consumers.h"

#define NONE UINT32_MAX

/* A message is ready to go (wormhole) or its head reaches its next
 * resource (VCT); its tail has arrived; a resource is freed (VCT). */
enum { EV_READY = 0, EV_DONE = 1, EV_RELEASE = 2 };

/* One event. */
typedef struct event {
    double t;
    uint64_t seq;   /* ties go to the earlier event: runs are reproducible */
    uint32_t msg;   /* the sender's node id (one message per sender); for
                       EV_RELEASE the resource */
    int kind;
} event;

/* A message in flight, kept under its sender's id. */
typedef struct smsg {
    size_t step;
    uint32_t to;
    uint64_t blocks;
    double ready, start, dur;
    uint32_t *res;  /* resources of its route (owned) */
    uint32_t nres, hops;
    uint32_t next;  /* next in the wait queue it is in */
    uint32_t stage; /* VCT: the resource its head is at */
    double tail;    /* VCT: blocks*m*tw */
    double asked;   /* VCT: when its head reached the resource it waits for */
    double waited;  /* VCT: time its head has waited, over all resources */
} smsg;

/* Per node in async mode. */
typedef struct snode {
    size_t step;        /* the step it is in (nsteps: finished) */
    double copy_end;    /* when its copies of this step end */
    int send_pending, recv_pending;
} snode;

typedef struct sim {
    const xchg_sched *s;
    const xchg_topo *t;
    const xchg_machine *mach;
    xchg_sim_opts o;
    double m;
    double copy_m;           /* bytes charged per block copied: m, or the
                                counts' copy_block */
    const uint64_t *bytes;   /* with counts: steps*p message bytes, else NULL */
    uint32_t p;
    size_t nsteps;
    size_t nlinks, nres;     /* directed links; links + ports */
    uint32_t *holder;        /* per resource: the message holding it, NONE */
    double *free_at;         /* VCT, per resource: when its holder's tail has
                                passed it (it is free from then on) */
    uint8_t *release_due;    /* VCT, per resource: an EV_RELEASE is queued
                                for it (only while messages wait for it) */
    uint32_t *qhead, *qtail; /* per resource: its wait queue */
    double *busy;            /* per link */
    uint64_t *crossed;       /* per link */
    smsg *msgs;              /* per sender */
    event *heap;
    size_t nheap, capheap;
    uint64_t seq;
    double now, last_end;
    /* async mode */
    snode *nodes;
    uint8_t **seen;          /* per step, lazily: bit 0 a message is due to
                                the node, bit 1 it has arrived */
    uint32_t *left;          /* per step: nodes not yet past it */
    xchg_sim_report r;
    int oom;
} sim;

/* ------------------------------------------------------------------ */
/* The event heap                                                      */
/* ------------------------------------------------------------------ */

static int ev_less(const event *a, const event *b)
{
    return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

/* Push an event; sets sm->oom when out of memory. */
static void push(sim *sm, double t, uint32_t msg, int kind)
{
    if (sm->nheap == sm->capheap) {
        size_t cap = sm->capheap ? 2 * sm->capheap : 1024;
        event *h = realloc(sm->heap, cap * sizeof *h);
        if (!h) {
            sm->oom = 1;
            return;
        }
        sm->heap = h;
        sm->capheap = cap;
    }
    event e = {t, sm->seq++, msg, kind};
    size_t i = sm->nheap++;
    while (i > 0) {
        size_t up = (i - 1) / 2;
        if (!ev_less(&e, &sm->heap[up]))
            break;
        sm->heap[i] = sm->heap[up];
        i = up;
    }
    sm->heap[i] = e;
}

/* Pop the earliest event (the heap must not be empty). */
static event pop(sim *sm)
{
    event top = sm->heap[0], last = sm->heap[--sm->nheap];
    size_t i = 0, n = sm->nheap;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && ev_less(&sm->heap[c + 1], &sm->heap[c]))
            c++;
        if (!ev_less(&sm->heap[c], &last))
            break;
        sm->heap[i] = sm->heap[c];
        i = c;
    }
    if (n)
        sm->heap[i] = last;
    return top;
}

/* ------------------------------------------------------------------ */
/* Resources                                                           */
/* ------------------------------------------------------------------ */

/* The link a resource id below nlinks names (xchg_topo_link_ends: the
 * library's one numbering, which the resources of links are). */
static void link_of_res(const sim *sm, size_t r, xchg_sim_link *l)
{
    uint32_t to;
    xchg_topo_link_ends(sm->t, r, &l->node, &l->dim, &l->dir, &to);
}

/* The first resource of msg that someone else holds, or NONE. */
static uint32_t first_taken(const sim *sm, const smsg *g)
{
    for (uint32_t i = 0; i < g->nres; i++)
        if (sm->holder[g->res[i]] != NONE)
            return g->res[i];
    return NONE;
}

/* Append message id to resource r's wait queue. */
static void enqueue(sim *sm, uint32_t r, uint32_t id)
{
    sm->msgs[id].next = NONE;
    if (sm->qtail[r] == NONE)
        sm->qhead[r] = id;
    else
        sm->msgs[sm->qtail[r]].next = id;
    sm->qtail[r] = id;
}

/* Take every resource of message id and schedule its end. */
static void start(sim *sm, uint32_t id)
{
    smsg *g = &sm->msgs[id];
    for (uint32_t i = 0; i < g->nres; i++)
        sm->holder[g->res[i]] = id;
    g->start = sm->now;
    double w = g->start - g->ready;
    if (w > 0) {
        sm->r.wait += w;
        sm->r.waited++;
        if (w > sm->r.max_wait)
            sm->r.max_wait = w;
    }
    push(sm, g->start + g->dur, id, EV_DONE);
}

/* Message id is ready: go, or wait at the first resource taken. */
static void request(sim *sm, uint32_t id)
{
    uint32_t r = first_taken(sm, &sm->msgs[id]);
    if (r == NONE)
        start(sm, id);
    else
        enqueue(sm, r, id);
}

/* Resource r was freed: its queue's messages try again, in order, until
 * one of them takes r. */
static void wake(sim *sm, uint32_t r)
{
    while (sm->qhead[r] != NONE && sm->holder[r] == NONE) {
        uint32_t id = sm->qhead[r];
        sm->qhead[r] = sm->msgs[id].next;
        if (sm->qhead[r] == NONE)
            sm->qtail[r] = NONE;
        uint32_t other = first_taken(sm, &sm->msgs[id]);
        if (other == NONE)
            start(sm, id);
        else
            enqueue(sm, other, id);
    }
}

/* ------------------------------------------------------------------ */
/* Virtual cut-through                                                 */
/* ------------------------------------------------------------------ */

/* Nonzero when resource r is a link (not a port). */
static int is_link(const sim *sm, uint32_t r)
{
    return r < sm->nlinks;
}

/* Make sure an EV_RELEASE wakes resource r's queue when its holder's tail
 * has passed. A resource nobody waits for needs no event: a head that
 * finds it past free_at simply takes it. */
static void schedule_release(sim *sm, uint32_t r)
{
    if (sm->release_due[r])
        return;
    sm->release_due[r] = 1;
    push(sm, sm->free_at[r] > sm->now ? sm->free_at[r] : sm->now, r, EV_RELEASE);
}

/* Message id's head takes the resource it is at (free) now: hold it until
 * its tail has passed, and move the head on (or, at the last resource,
 * schedule the tail's arrival). */
static void vct_take(sim *sm, uint32_t id)
{
    smsg *g = &sm->msgs[id];
    uint32_t r = g->res[g->stage];
    double hop = is_link(sm, r) ? sm->o.th : 0;
    sm->holder[r] = id;
    if (g->stage == 0)
        g->start = sm->now;
    double w = sm->now - g->asked;
    if (w > 0) {
        sm->r.wait += w;
        g->waited += w;
    }
    if (is_link(sm, r)) {
        sm->busy[r] += hop + g->tail;
        sm->crossed[r]++;
    }
    sm->free_at[r] = sm->now + hop + g->tail;
    if (sm->qhead[r] != NONE) /* others wait: wake them when it is free */
        schedule_release(sm, r);
    g->asked = sm->now + hop;
    if (++g->stage == g->nres)
        push(sm, sm->now + hop + g->tail, id, EV_DONE);
    else
        push(sm, sm->now + hop, id, EV_READY);
}

/* Message id's head reaches its next resource: take it, or queue for it. */
static void vct_request(sim *sm, uint32_t id)
{
    smsg *g = &sm->msgs[id];
    if (g->nres == 0) { /* no links and no ports: only its bytes' time */
        g->start = sm->now;
        push(sm, sm->now + g->tail, id, EV_DONE);
        return;
    }
    uint32_t r = g->res[g->stage];
    if (sm->qhead[r] == NONE && (sm->holder[r] == NONE || sm->free_at[r] <= sm->now)) {
        vct_take(sm, id);
    } else {
        enqueue(sm, r, id);
        schedule_release(sm, r);
    }
}

/* Resource r's tail has passed: free it, and the first message queued for
 * it takes it. */
static void vct_release(sim *sm, uint32_t r)
{
    sm->release_due[r] = 0;
    sm->holder[r] = NONE;
    if (sm->qhead[r] == NONE)
        return;
    uint32_t id = sm->qhead[r];
    sm->qhead[r] = sm->msgs[id].next;
    if (sm->qhead[r] == NONE)
        sm->qtail[r] = NONE;
    vct_take(sm, id);
}

/* One event of the network, either routing. */
static void network_event(sim *sm, const event *e)
{
    if (e->kind == EV_RELEASE)
        vct_release(sm, e->msg);
    else if (sm->o.routing == XCHG_SIM_VCT)
        vct_request(sm, e->msg);
    else
        request(sm, e->msg);
}

/* ------------------------------------------------------------------ */
/* Messages                                                            */
/* ------------------------------------------------------------------ */

/* Make node's message of step k, ready at time `ready`; 0 when it sends
 * nothing there (idle or empty). Sets sm->oom when out of memory. */
static int make_message(sim *sm, size_t k, uint32_t node, double ready)
{
    xchg_msg msg;
    xchg_sched_message(sm->s, k, node, &msg);
    if (msg.to == XCHG_NONE || msg.to >= sm->p || msg.blocks == 0)
        return 0;
    uint64_t b = sm->bytes ? sm->bytes[k * sm->p + node] : 0;
    if (sm->bytes && b == 0)
        return 0; /* only 0-byte blocks: not sent */
    double body = sm->bytes ? (double)b * sm->mach->tw
                            : (double)msg.blocks * sm->m * sm->mach->tw;
    uint32_t src = sm->o.map ? sm->o.map[node] : node;
    uint32_t dst = sm->o.map ? sm->o.map[msg.to] : msg.to;
    xchg_seg segs[XCHG_MAX_DIMS];
    int nsegs = 0;
    xchg_topo_route(sm->t, src, dst, msg.route_policy, segs, &nsegs);
    uint64_t hops = 0;
    for (int i = 0; i < nsegs; i++)
        hops += segs[i].hops;
    smsg *g = &sm->msgs[node];
    g->res = malloc((size_t)(hops + 2) * sizeof *g->res);
    if (!g->res) {
        sm->oom = 1;
        return 0;
    }
    uint32_t n = 0, at = src;
    if (!sm->o.all_port)
        g->res[n++] = (uint32_t)(sm->nlinks + src);
    for (int i = 0; i < nsegs; i++)
        for (uint32_t h = 0; h < segs[i].hops; h++) {
            g->res[n++] = (uint32_t)xchg_topo_link_id(sm->t, at, segs[i].dim, segs[i].dir);
            at = xchg_topo_neighbor(sm->t, at, segs[i].dim, segs[i].dir);
        }
    if (!sm->o.all_port)
        g->res[n++] = (uint32_t)(sm->nlinks + sm->p + dst);
    g->nres = n;
    g->hops = (uint32_t)hops;
    g->step = k;
    g->to = msg.to;
    g->blocks = msg.blocks;
    g->ready = ready;
    g->dur = (double)hops * sm->o.th + body;
    g->tail = body;
    g->stage = 0;
    g->asked = ready;
    g->waited = 0;
    sm->r.messages++;
    sm->r.link_hops += hops;
    push(sm, ready, node, EV_READY);
    return 1;
}

/* Message id's tail has arrived: free its resources (wormhole; VCT frees
 * each on its own event), count its load. */
static void finish_message(sim *sm, uint32_t id)
{
    smsg *g = &sm->msgs[id];
    if (sm->o.routing == XCHG_SIM_VCT) {
        if (g->waited > 0) {
            sm->r.waited++;
            if (g->waited > sm->r.max_wait)
                sm->r.max_wait = g->waited;
        }
        if (sm->o.trace)
            sm->o.trace(sm->o.trace_ctx, g->step, id, g->to, g->blocks, g->ready, g->start,
                        sm->now);
        if (sm->now > sm->last_end)
            sm->last_end = sm->now;
        free(g->res);
        g->res = NULL;
        return;
    }
    for (uint32_t i = 0; i < g->nres; i++) {
        uint32_t r = g->res[i];
        sm->holder[r] = NONE;
        if (r < sm->nlinks) {
            sm->busy[r] += g->dur;
            sm->crossed[r]++;
        }
    }
    if (sm->o.trace)
        sm->o.trace(sm->o.trace_ctx, g->step, id, g->to, g->blocks, g->ready, g->start,
                    sm->now);
    if (sm->now > sm->last_end)
        sm->last_end = sm->now;
    for (uint32_t i = 0; i < g->nres; i++)
        wake(sm, g->res[i]);
    free(g->res);
    g->res = NULL;
}

/* ------------------------------------------------------------------ */
/* Barrier mode                                                        */
/* ------------------------------------------------------------------ */

static void run_barrier(sim *sm)
{
    double T = 0;
    for (size_t k = 0; k < sm->nsteps && !sm->oom; k++) {
        double go = T + (double)xchg_sched_copy_blocks(sm->s, k) * sm->copy_m * sm->mach->tr;
        int sent = 0;
        for (uint32_t n = 0; n < sm->p && !sm->oom; n++)
            sent |= make_message(sm, k, n, go + sm->mach->ts);
        sm->last_end = go;
        while (sm->nheap && !sm->oom) {
            event e = pop(sm);
            sm->now = e.t;
            sm->r.events++;
            if (e.kind == EV_DONE)
                finish_message(sm, e.msg);
            else
                network_event(sm, &e);
        }
        T = sm->last_end;
        if (sent && sm->o.with_barrier)
            T += sm->mach->barrier;
    }
    sm->r.time = T;
}

/* ------------------------------------------------------------------ */
/* Async mode                                                          */
/* ------------------------------------------------------------------ */

/* The per-node flags of step k, made when a node first enters it: bit 0
 * for every node some message of step k goes to. NULL when out of memory. */
static uint8_t *step_flags(sim *sm, size_t k)
{
    if (sm->seen[k])
        return sm->seen[k];
    uint8_t *f = calloc(sm->p, 1);
    if (!f) {
        sm->oom = 1;
        return NULL;
    }
    for (uint32_t n = 0; n < sm->p; n++) {
        xchg_msg msg;
        xchg_sched_message(sm->s, k, n, &msg);
        if (msg.to != XCHG_NONE && msg.to < sm->p && msg.blocks > 0 &&
            (!sm->bytes || sm->bytes[k * sm->p + n] > 0))
            f[msg.to] |= 1;
    }
    sm->seen[k] = f;
    sm->left[k] = sm->p;
    return f;
}

/* Node n is past step k: free the step's flags when it was the last. */
static void leave_step(sim *sm, size_t k)
{
    if (--sm->left[k] == 0) {
        free(sm->seen[k]);
        sm->seen[k] = NULL;
    }
}

/* Node n enters step k at time T and goes on through every step that
 * needs nothing from the network. */
static void enter(sim *sm, uint32_t n, size_t k, double T)
{
    snode *nd = &sm->nodes[n];
    for (; k < sm->nsteps && !sm->oom; k++) {
        uint8_t *f = step_flags(sm, k);
        if (!f)
            return;
        nd->step = k;
        nd->copy_end = T + (double)xchg_sched_copy_blocks(sm->s, k) * sm->copy_m * sm->mach->tr;
        nd->send_pending = make_message(sm, k, n, nd->copy_end + sm->mach->ts);
        nd->recv_pending = (f[n] & 1) && !(f[n] & 2);
        if (nd->send_pending || nd->recv_pending)
            return;
        T = nd->copy_end;
        leave_step(sm, k);
    }
    nd->step = sm->nsteps;
    if (T > sm->r.time)
        sm->r.time = T;
}

/* Node n's part of its step is done at time t (if all of it is). */
static void step_done(sim *sm, uint32_t n, double t)
{
    snode *nd = &sm->nodes[n];
    if (nd->send_pending || nd->recv_pending)
        return;
    size_t k = nd->step;
    double T = t > nd->copy_end ? t : nd->copy_end;
    leave_step(sm, k);
    enter(sm, n, k + 1, T);
}

static void run_async(sim *sm)
{
    for (uint32_t n = 0; n < sm->p && !sm->oom; n++)
        enter(sm, n, 0, 0);
    while (sm->nheap && !sm->oom) {
        event e = pop(sm);
        sm->now = e.t;
        sm->r.events++;
        if (e.kind != EV_DONE) {
            network_event(sm, &e);
            continue;
        }
        size_t k = sm->msgs[e.msg].step;
        uint32_t to = sm->msgs[e.msg].to;
        finish_message(sm, e.msg);
        sm->nodes[e.msg].send_pending = 0;
        snode *rv = &sm->nodes[to];
        if (rv->step == k && rv->recv_pending)
            rv->recv_pending = 0;
        else if (sm->seen[k])
            sm->seen[k][to] |= 2; /* arrived before its receiver got there */
        step_done(sm, e.msg, sm->now);
        if (to != e.msg)
            step_done(sm, to, sm->now);
    }
    if (sm->last_end > sm->r.time)
        sm->r.time = sm->last_end;
}

/* ------------------------------------------------------------------ */
/* Entry point                                                         */
/* ------------------------------------------------------------------ */

/* The busiest links, largest busy time first (ties: lower id). */
static void top_links(sim *sm)
{
    size_t n = 0;
    for (size_t r = 0; r < sm->nlinks; r++) {
        if (sm->crossed[r] == 0)
            continue;
        size_t i = n < XCHG_SIM_TOP_LINKS ? n++ : XCHG_SIM_TOP_LINKS;
        if (i == XCHG_SIM_TOP_LINKS) {
            if (!(sm->busy[r] > sm->r.busiest[i - 1].busy))
                continue;
            i--;
        }
        while (i > 0 && sm->busy[r] > sm->r.busiest[i - 1].busy) {
            sm->r.busiest[i] = sm->r.busiest[i - 1];
            i--;
        }
        xchg_sim_link *l = &sm->r.busiest[i];
        link_of_res(sm, r, l);
        l->busy = sm->busy[r];
        l->messages = sm->crossed[r];
    }
    sm->r.nlinks = n;
}

static void sim_free(sim *sm)
{
    if (sm->msgs)
        for (uint32_t n = 0; n < sm->p; n++)
            free(sm->msgs[n].res);
    if (sm->seen)
        for (size_t k = 0; k < sm->nsteps; k++)
            free(sm->seen[k]);
    free(sm->seen);
    free(sm->left);
    free(sm->nodes);
    free(sm->holder);
    free(sm->free_at);
    free(sm->release_due);
    free(sm->qhead);
    free(sm->qtail);
    free(sm->busy);
    free(sm->crossed);
    free(sm->msgs);
    free(sm->heap);
    free((uint64_t *)sm->bytes);
}

/* 0 when map (p entries, or NULL) is a permutation of 0..p-1; else EINVAL
 * naming the first entry that is out of range or repeated, or ENOMEM. */
static int check_map(uint32_t p, const uint32_t *map, xchg_err *err)
{
    if (!map)
        return XCHG_OK;
    uint8_t *used = calloc(p, 1);
    if (!used)
        return xchg_fail(err, XCHG_ENOMEM, "out of memory checking the node map");
    int rc = XCHG_OK;
    for (uint32_t i = 0; i < p && rc == XCHG_OK; i++) {
        if (map[i] >= p)
            rc = xchg_fail(err, XCHG_EINVAL,
                           "node map: node %u is placed on %u, past the network's %u nodes; "
                           "accepted: a permutation of 0..%u",
                           i, map[i], p, p - 1);
        else if (used[map[i]]++)
            rc = xchg_fail(err, XCHG_EINVAL,
                           "node map: network node %u is given twice (again for node %u); "
                           "accepted: a permutation of 0..%u",
                           map[i], i, p - 1);
    }
    free(used);
    return rc;
}

int xchg_sim_map(const xchg_topo *t, const char *name, uint32_t *map, xchg_err *err)
{
    if (!t || !name || !map)
        return xchg_fail(err, XCHG_EINVAL, "xchg_sim_map: NULL argument");
    int snake = strcmp(name, "snake") == 0;
    if (!snake && strcmp(name, "row-major") != 0)
        return xchg_fail(err, XCHG_EINVAL, "unknown node map '%s'; accepted: row-major, snake",
                         name);
    uint32_t last = t->ndims > 0 ? t->size[t->ndims - 1] : t->nodes;
    for (uint32_t i = 0; i < t->nodes; i++) {
        uint32_t line = last ? i / last : 0, c = last ? i % last : 0;
        /* every other line along the last dimension runs backwards */
        map[i] = snake && t->ndims > 1 && line % 2 ? line * last + (last - 1 - c) : i;
    }
    return XCHG_OK;
}

/* With counts: every message's bytes into a new *bytes (steps*p; the
 * caller frees it) and the counts' summary into *cs. 0, or EINVAL when the
 * counts do not fit s (xchg_vcounts_messages says why), ENOMEM. */
static int counts_bytes(const xchg_sched *s, const xchg_vcounts *c, const uint64_t **bytes,
                        xchg_vcounts_summary *cs, xchg_err *err)
{
    size_t n = xchg_sched_nsteps(s), p = xchg_sched_topo(s)->nodes;
    if (n && p > SIZE_MAX / sizeof(uint64_t) / n)
        return xchg_fail(err, XCHG_ENOMEM, "xchg_sim_run: %zu steps of %zu messages do not "
                                           "fit in memory", n, p);
    uint64_t *b = malloc((n ? n : 1) * p * sizeof *b);
    if (!b)
        return xchg_fail(err, XCHG_ENOMEM, "out of memory for the messages' bytes");
    int rc = xchg_vcounts_messages(s, c, b, n * p, err);
    if (rc == XCHG_OK && xchg_vcounts_summarize(c, cs) != XCHG_OK)
        rc = xchg_fail(err, XCHG_ENOMEM, "out of memory summing the counts");
    if (rc) {
        free(b);
        return rc;
    }
    *bytes = b;
    return XCHG_OK;
}

/* Nonzero when x is finite and >= 0. */
static int good(double x)
{
    return isfinite(x) && x >= 0;
}

int xchg_sim_run(const xchg_sched *s, const xchg_machine *mach, double m,
                 const xchg_sim_opts *opts, xchg_sim_report *report, xchg_err *err)
{
    if (!s || !mach || !report)
        return xchg_fail(err, XCHG_EINVAL, "xchg_sim_run: schedule, machine and report must "
                                           "not be NULL");
    xchg_sim_opts o;
    memset(&o, 0, sizeof o);
    if (opts)
        o = *opts;
    if (!good(m) || !good(mach->ts) || !good(mach->tw) || !good(mach->tr) ||
        !good(mach->barrier) || !good(o.th))
        return xchg_fail(err, XCHG_EINVAL,
                         "xchg_sim_run: block size, machine parameters and th must be finite "
                         "and >= 0");
    if (o.mode != XCHG_SIM_BARRIER && o.mode != XCHG_SIM_ASYNC)
        return xchg_fail(err, XCHG_EINVAL, "xchg_sim_run: unknown mode %d; accepted: "
                                           "XCHG_SIM_BARRIER, XCHG_SIM_ASYNC", o.mode);
    if (o.routing != XCHG_SIM_WORMHOLE && o.routing != XCHG_SIM_VCT)
        return xchg_fail(err, XCHG_EINVAL, "xchg_sim_run: unknown routing %d; accepted: "
                                           "XCHG_SIM_WORMHOLE, XCHG_SIM_VCT", o.routing);
    if (o.network && o.network->nodes != xchg_sched_topo(s)->nodes) {
        char a[64], b[64];
        return xchg_fail(err, XCHG_EINVAL,
                         "xchg_sim_run: the network %s has %u nodes and the schedule's "
                         "topology %s has %u; accepted: a network of as many nodes",
                         xchg_topo_spec(o.network, a, sizeof a), o.network->nodes,
                         xchg_topo_spec(xchg_sched_topo(s), b, sizeof b),
                         xchg_sched_topo(s)->nodes);
    }
    int rc = check_map(xchg_sched_topo(s)->nodes, o.map, err);
    if (rc)
        return rc;
    sim sm;
    memset(&sm, 0, sizeof sm);
    xchg_vcounts_summary cs;
    memset(&cs, 0, sizeof cs);
    if (o.counts && (rc = counts_bytes(s, o.counts, &sm.bytes, &cs, err)))
        return rc;
    sm.s = s;
    sm.t = o.network ? o.network : xchg_sched_topo(s);
    sm.mach = mach;
    sm.o = o;
    xchg_op op;
    xchg_sched_op(s, &op);
    sm.m = xchg_op_block_bytes(&op, m); /* m is the operation's; a block may be m/p */
    sm.copy_m = o.counts ? cs.copy_block : sm.m;
    sm.p = sm.t->nodes;
    sm.nsteps = xchg_sched_nsteps(s);
    sm.nlinks = xchg_topo_link_count(sm.t);
    sm.nres = sm.nlinks + 2 * (size_t)sm.p;
    sm.holder = malloc(sm.nres * sizeof *sm.holder);
    sm.qhead = malloc(sm.nres * sizeof *sm.qhead);
    sm.qtail = malloc(sm.nres * sizeof *sm.qtail);
    sm.busy = calloc(sm.nlinks + 1, sizeof *sm.busy); /* + 1: none on a switch */
    sm.crossed = calloc(sm.nlinks + 1, sizeof *sm.crossed);
    sm.msgs = calloc(sm.p, sizeof *sm.msgs);
    if (o.routing == XCHG_SIM_VCT) {
        sm.free_at = calloc(sm.nres, sizeof *sm.free_at);
        sm.release_due = calloc(sm.nres, 1);
    }
    if (o.mode == XCHG_SIM_ASYNC) {
        sm.nodes = calloc(sm.p, sizeof *sm.nodes);
        sm.seen = calloc(sm.nsteps + 1, sizeof *sm.seen);
        sm.left = calloc(sm.nsteps + 1, sizeof *sm.left);
    }
    if (!sm.holder || !sm.qhead || !sm.qtail || !sm.busy || !sm.crossed || !sm.msgs ||
        (o.routing == XCHG_SIM_VCT && (!sm.free_at || !sm.release_due)) ||
        (o.mode == XCHG_SIM_ASYNC && (!sm.nodes || !sm.seen || !sm.left))) {
        sim_free(&sm);
        return xchg_fail(err, XCHG_ENOMEM, "out of memory starting the simulator");
    }
    for (size_t r = 0; r < sm.nres; r++)
        sm.holder[r] = sm.qhead[r] = sm.qtail[r] = NONE;
    if (o.mode == XCHG_SIM_BARRIER)
        run_barrier(&sm);
    else
        run_async(&sm);
    if (sm.oom) {
        sim_free(&sm);
        return xchg_fail(err, XCHG_ENOMEM, "out of memory in the simulator");
    }
    top_links(&sm);
    xchg_cost c;
    xchg_vcost vc;
    if (o.counts) {
        if (xchg_cost_vcounts(s, mach, o.counts, o.with_barrier, &vc, NULL) == XCHG_OK)
            sm.r.predicted = vc.time;
    } else if (xchg_cost_compute(s, mach, m, o.with_barrier, &c, NULL) == XCHG_OK) {
        sm.r.predicted = c.time;
    }
    sim_free(&sm);
    *report = sm.r;
    return XCHG_OK;
}
