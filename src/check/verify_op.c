/*
 * verify_op.c - the verifier for the operations other than the complete
 * exchange (bcast, reduce, allgather, ...; docs/operations.md).
 *
 * The message checks (one-port receive, routes, link contention, link
 * volume) do not depend on the operation: xchg_verify runs them in
 * messages-only mode. Then every token of the operation (xchg_op_has_token)
 * is followed from its origin with the one block follower, exactly as a
 * complete exchange's block is, and must end at its dest; a token moves and
 * is never copied, so each contribution arrives once or is reported as
 * undelivered. At every (step, node) the blocks the message carries are
 * counted with the operation's sizing and must equal the declared size:
 *   tokens   one per token;
 *   origins  one per distinct origin (tokens followed origin by origin, a
 *            stamp per (step, node) says whether this origin was counted);
 *   dests    one per distinct dest (followed dest by dest, the same stamp);
 *   sets     one per distinct set of origins the message holds for a dest
 *            (followed dest by dest; a set is the XOR of 64-bit hashes of its
 *            origins, and sets other than a message's first are sorted and
 *            counted at the end; two sets colliding in 64 bits would be
 *            counted once, a chance near 2^-64 per pair).
 * A schedule of several phases (xchg_sched_phase: seed 003's improved
 * operations) has each phase's tokens followed through its own steps with
 * its own operation and sizing.
 * Start-ups and volume are then counted from what is carried, as for the
 * exchange. Work: tokens times steps; memory: a few words per (step, node).
 * Single-threaded: these operations have at most p*p tokens and few steps.
 *
 * The public xchg_verify is here: it sends a complete exchange, or any
 * schedule checked messages-only, to verify.c, and the other operations
 * through the token checks above, which call verify.c's message checks
 * first. Calls point one way: this file calls verify.c (its checks and
 * xchg_verify_note), never the reverse.
 */
#include <stdlib.h>
#include <string.h>

#include "check/verify_internal.h"
#include "sched/follow.h"

/* A message's set of origins other than its first, found for some dest. */
typedef struct set_pair {
    uint64_t msg; /* step * p + node */
    uint64_t hash;
} set_pair;

/* The run: counts and stamps per (step, node). */
typedef struct op_run {
    const xchg_sched *s;
    const xchg_follower *f;
    uint32_t p;
    size_t nsteps;
    size_t from, upto; /* the phase's steps [from, upto) */
    xchg_op op;        /* the phase's operation */
    xchg_op_sizing sizing;
    uint32_t *cnt;   /* blocks carried, per (step, node) */
    uint32_t *stamp; /* last origin or dest counted + 1 (origins, dests) */
    uint64_t *acc;   /* sets: hash of the origins for the current dest */
    uint64_t *first; /* sets: the message's first set (0: none yet) */
    uint64_t *touched;
    size_t ntouched;
    set_pair *pairs;
    size_t npairs, cap;
    int nomem;
    xchg_verify_report *rep;
} op_run;

/* A well-mixed nonzero 64-bit hash of an origin (splitmix64). */
static uint64_t origin_hash(uint32_t o)
{
    uint64_t z = (uint64_t)o + 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return z ? z : 1;
}

/* Follow token (o, d) through every step, counting what it adds to each
 * message it rides in (key: the origin or dest it is counted by); note it
 * when it ends away from d. */
static void follow_token(op_run *r, uint32_t o, uint32_t d, uint32_t key)
{
    uint32_t pos = o;
    uint64_t h = r->sizing == XCHG_SIZE_SETS ? origin_hash(o) : 0;
    for (size_t st = r->from; st < r->upto; st++) {
        uint32_t at = pos;
        if (!xchg_follow_block_step(r->f, st, o, d, &pos))
            continue;
        size_t m = st * (size_t)r->p + at;
        switch (r->sizing) {
        case XCHG_SIZE_TOKENS:
            r->cnt[m]++;
            break;
        case XCHG_SIZE_ORIGINS:
        case XCHG_SIZE_DESTS:
            if (r->stamp[m] != key + 1) {
                r->stamp[m] = key + 1;
                r->cnt[m]++;
            }
            break;
        case XCHG_SIZE_SETS:
            if (r->acc[m] == 0)
                r->touched[r->ntouched++] = m;
            r->acc[m] ^= h;
            if (r->acc[m] == 0) /* cannot stay 0 with distinct origins: keep it marked */
                r->acc[m] = 1;
            break;
        }
    }
    if (pos != d) {
        xchg_verify_report *rep = r->rep;
        rep->undelivered++;
        xchg_verify_note(rep, "%s token (%u, %u) ends step %zu at node %u, not at %u",
                         xchg_op_name(r->op.kind), o, d, r->upto, pos, d);
    }
}

/* Sets: the current dest's set of origins in every message it rode in is
 * a new set for that message unless it is the message's first. */
static void close_dest(op_run *r)
{
    for (size_t i = 0; i < r->ntouched; i++) {
        uint64_t m = r->touched[i], h = r->acc[m];
        r->acc[m] = 0;
        if (r->first[m] == 0) {
            r->first[m] = h;
            r->cnt[m]++;
        } else if (h != r->first[m]) {
            if (r->npairs == r->cap) {
                size_t cap = r->cap ? 2 * r->cap : 1024;
                set_pair *np = realloc(r->pairs, cap * sizeof *np);
                if (!np) {
                    r->nomem = 1;
                    continue;
                }
                r->pairs = np;
                r->cap = cap;
            }
            r->pairs[r->npairs++] = (set_pair){m, h};
        }
    }
    r->ntouched = 0;
}

static int pair_cmp(const void *a, const void *b)
{
    const set_pair *x = a, *y = b;
    if (x->msg != y->msg)
        return x->msg < y->msg ? -1 : 1;
    return x->hash < y->hash ? -1 : x->hash > y->hash;
}

/* Sets: count the distinct sets other than the first of every message. */
static void count_pairs(op_run *r)
{
    if (r->npairs) /* pairs is NULL until a message holds a second set */
        qsort(r->pairs, r->npairs, sizeof *r->pairs, pair_cmp);
    for (size_t i = 0; i < r->npairs; i++)
        if (i == 0 || r->pairs[i].msg != r->pairs[i - 1].msg ||
            r->pairs[i].hash != r->pairs[i - 1].hash)
            r->cnt[r->pairs[i].msg]++;
}

/* Follow every token, in the order the sizing needs. */
static void follow_tokens(op_run *r)
{
    uint32_t p = r->p;
    int dest_major = r->sizing == XCHG_SIZE_DESTS || r->sizing == XCHG_SIZE_SETS;
    for (uint32_t a = 0; a < p; a++) {
        for (uint32_t b = 0; b < p; b++) {
            uint32_t o = dest_major ? b : a, d = dest_major ? a : b;
            if (xchg_op_has_token(&r->op, p, o, d)) {
                r->rep->blocks++;
                follow_token(r, o, d, a);
            }
        }
        if (r->sizing == XCHG_SIZE_SETS)
            close_dest(r);
    }
    if (r->sizing == XCHG_SIZE_SETS)
        count_pairs(r);
}

/* Sizes, start-ups and volume from the counts. */
static void report_counts(op_run *r)
{
    xchg_verify_report *rep = r->rep;
    rep->startups = rep->volume_blocks = 0;
    for (size_t st = 0; st < r->nsteps; st++) {
        uint64_t big = 0;
        for (uint32_t n = 0; n < r->p; n++) {
            xchg_msg msg;
            xchg_sched_message(r->s, st, n, &msg);
            uint64_t got = r->cnt[st * (size_t)r->p + n];
            if (got > big)
                big = got;
            if (got != msg.blocks) {
                rep->size_mismatches++;
                xchg_verify_note(rep,
                                 "step %zu node %u declares %llu blocks but its %s message "
                                 "carries %llu",
                                 st, n, (unsigned long long)msg.blocks, xchg_op_name(r->s->op.kind),
                                 (unsigned long long)got);
            }
        }
        if (big > 0)
            rep->startups++;
        rep->volume_blocks += big;
    }
}

/* xchg_verify for a schedule whose operation is not the complete exchange:
 * the message checks in messages-only mode, then every token followed and
 * every message's size counted with the operation's sizing. Same returns
 * as xchg_verify. */
static int verify_op(const xchg_sched *s, const xchg_verify_opts *opts,
                     xchg_verify_report *report, xchg_err *err)
{
    xchg_verify_opts mo = opts ? *opts : (xchg_verify_opts){0};
    mo.messages_only = 1;
    int rc = xchg_op_check(&s->op, s->topo.nodes, err);
    if (rc == XCHG_OK)
        rc = xchg_verify_check_work(&s->topo, s->nsteps,
                                    &(xchg_verify_opts){.max_work = mo.max_work}, err);
    if (rc == XCHG_OK)
        rc = xchg_verify_exchange(s, &mo, report, err);
    if (rc != XCHG_OK)
        return rc;
    op_run r;
    memset(&r, 0, sizeof r);
    r.s = s;
    r.p = s->topo.nodes;
    r.nsteps = s->nsteps;
    r.op = s->op;
    r.rep = report;
    int sets = 0; /* some phase counts sets of origins */
    for (size_t k = 0; k < xchg_sched_nphases(s); k++) {
        xchg_op ph;
        size_t a, b;
        xchg_sched_phase(s, k, &ph, &a, &b);
        sets |= xchg_op_sizing_of(ph.kind) == XCHG_SIZE_SETS;
    }
    size_t sp = r.nsteps * (size_t)r.p;
    uint64_t need = (uint64_t)sp * (sets ? 28 : 8);
    uint64_t cap = opts && opts->max_bytes ? opts->max_bytes : XCHG_VERIFY_DEFAULT_MAX_BYTES;
    if (need > cap)
        return xchg_fail(err, XCHG_ETOOBIG,
                         "verifying the %s schedule needs %llu MiB of counts, more than the "
                         "%llu MiB allowed",
                         xchg_op_name(s->op.kind), (unsigned long long)(need >> 20),
                         (unsigned long long)(cap >> 20));
    xchg_follower *f = NULL;
    rc = xchg_follower_new(s, &f, err);
    if (rc != XCHG_OK)
        return rc;
    r.f = f;
    r.cnt = calloc(sp + 1, sizeof *r.cnt);
    r.stamp = calloc(sp + 1, sizeof *r.stamp);
    if (sets) {
        r.acc = calloc(sp + 1, sizeof *r.acc);
        r.first = calloc(sp + 1, sizeof *r.first);
        r.touched = calloc(sp + 1, sizeof *r.touched);
    }
    if (!r.cnt || !r.stamp || (sets && (!r.acc || !r.first || !r.touched)))
        r.nomem = 1;
    if (!r.nomem) {
        report->messages_only = 0;
        report->blocks = 0;
        for (size_t k = 0; k < xchg_sched_nphases(s) && !r.nomem; k++) {
            xchg_sched_phase(s, k, &r.op, &r.from, &r.upto);
            r.sizing = xchg_op_sizing_of(r.op.kind);
            r.npairs = 0;
            follow_tokens(&r);
        }
        report_counts(&r);
    }
    rc = r.nomem ? xchg_fail(err, XCHG_ENOMEM, "out of memory verifying the %s schedule",
                             xchg_op_name(s->op.kind))
                 : XCHG_OK;
    if (rc == XCHG_OK) {
        report->failures = report->undelivered + report->size_mismatches + report->port_violations +
                           report->route_failures +
                           (s->contention_free ? report->link_conflicts : 0);
        report->ok = report->failures == 0;
    }
    free(r.cnt);
    free(r.stamp);
    free(r.acc);
    free(r.first);
    free(r.touched);
    free(r.pairs);
    xchg_follower_free(f);
    return rc;
}

int xchg_verify(const xchg_sched *s, const xchg_verify_opts *opts, xchg_verify_report *report,
                xchg_err *err)
{
    if (!s || !report)
        return xchg_fail(err, XCHG_EINVAL, "xchg_verify needs a schedule and a report");
    if (s->topo.nodes == 0)
        return xchg_fail(err, XCHG_EINVAL, "schedule's topology has no nodes");
    const xchg_vcounts *c = opts ? opts->counts : NULL;
    if (c && (opts->messages_only || xchg_vcounts_nodes(c) != s->topo.nodes ||
              s->op.kind != XCHG_OP_ALLTOALL || xchg_sched_nphases(s) != 1))
        return xchg_fail(err, XCHG_EINVAL,
                         "xchg_verify: counts of %u nodes do not fit %s (%u nodes, %s%s); "
                         "accepted: counts of the schedule's node count, on a complete "
                         "exchange with blocks followed (not messages_only)",
                         (unsigned)xchg_vcounts_nodes(c), xchg_sched_algorithm(s),
                         (unsigned)s->topo.nodes, xchg_op_name(s->op.kind),
                         opts->messages_only ? ", messages only" : "");
    if (s->op.kind != XCHG_OP_ALLTOALL && !(opts && opts->messages_only))
        return verify_op(s, opts, report, err);
    return xchg_verify_exchange(s, opts, report, err);
}
