/*
 * op_program.c - one rank's program for an operation other than the
 * complete exchange (xchg_op_program_new; docs/operations.md): at each step
 * whom it sends to and receives from, the pieces of each message (one block
 * each, keyed by the phase's sizing), where the rank keeps each piece's
 * data (slots), and which partial results it combines after a receive, in
 * which order, and whether that order is MPI's rank order.
 *
 * How: for each phase, every origin's blocks are moved through the phase's
 * steps with the public follower (xchg_follow_origin_step), and the tokens
 * the rank sends, receives and ends with are kept as events. That is
 * p*p*steps work for every rank, no symmetry used (xchg_rank_new's
 * classes would cut it to about p*steps); above XCHG_OP_PROGRAM_MAX_WORK the
 * call refuses with XCHG_ETOOBIG. The events are then replayed step by step
 * on the rank's own state: for each sizing key (an origin, a dest, a token)
 * the slot holding its data, and for each slot the sorted set of origins
 * whose data it combines.
 *
 * A reduction keeps one partial per dest (DESTS) or one per set of origins
 * (SETS, shared by every dest holding that set), and combines a received
 * piece at once with what it holds for the same dest. A message must
 * therefore carry all the rank holds for a dest, never part of it: a
 * partial cannot be split, and the program refuses such a schedule.
 */
#include "base/hashmap.h"
#include "base/util.h"
#include "xchg_rank.h"

#include <stdlib.h>
#include <string.h>

enum { EV_SEND = 0, EV_RECV = 1, EV_END = 2 };

/* The rank sends, receives or ends a phase with token (o, d); peer: the
 * other node of the message. */
typedef struct event {
    uint32_t step, kind, o, d, peer;
} event;

/* A piece while the program is built: offsets, not pointers, since the
 * pools grow. */
typedef struct piece_rec {
    uint32_t origin, dest, slot;
    size_t tok_off, ntok;
} piece_rec;

/* A slot: the sorted set of origins its data combines. */
typedef struct slot_rec {
    size_t set_off, nset;
} slot_rec;

/* A range of pieces or combinations. */
typedef struct range {
    size_t a, b;
} range;

struct xchg_op_program {
    uint32_t rank, p;
    size_t nsteps, nphases;
    size_t *phase_of; /* per step */
    uint32_t *send_to, *recv_from;
    range *send, *recv, *comb; /* per step */
    range *start, *result;     /* per phase */
    xchg_op_piece *pieces;     /* public view, pointers into the pools */
    size_t npieces;
    xchg_op_combine *combs;
    size_t ncombs;
    xchg_block *toks;
    size_t ntoks;
    uint32_t *sets;
    size_t nsets_pool;
    size_t nslots;
    int order_bad;
};

/* Everything the build grows, freed or handed to the program at the end. */
typedef struct build {
    xchg_op_program *g;
    const xchg_sched *s;
    uint32_t p, rank;
    xchg_op op;
    xchg_op_sizing sizing;
    event *ev;
    size_t nev, capev;
    piece_rec *pc;
    size_t npc, cappc;
    size_t captok, capcomb, capsets;
    slot_rec *slots;
    size_t capslots;
    uint32_t *arr;  /* ORIGINS: origin -> slot; DESTS, SETS: dest -> slot */
    xchg_hashmap tok; /* TOKENS: token o * p + d -> slot */
    uint32_t *tmp; /* p entries: a set being built */
    xchg_err *err;
} build;

/* Grow *v (elements of size elem, *cap of them) to hold n + more; 0 or
 * XCHG_ENOMEM (v unchanged). */
static int grow(void **v, size_t *cap, size_t n, size_t more, size_t elem)
{
    if (n + more <= *cap)
        return XCHG_OK;
    size_t c = *cap ? *cap : 64;
    while (c < n + more)
        c *= 2;
    void *g = realloc(*v, c * elem);
    if (!g)
        return XCHG_ENOMEM;
    *v = g;
    *cap = c;
    return XCHG_OK;
}

static int push_event(build *b, uint32_t step, uint32_t kind, uint32_t o, uint32_t d, uint32_t peer)
{
    if (grow((void **)&b->ev, &b->capev, b->nev, 1, sizeof *b->ev))
        return XCHG_ENOMEM;
    b->ev[b->nev++] = (event){step, kind, o, d, peer};
    return XCHG_OK;
}

static int event_cmp(const void *x, const void *y)
{
    const event *a = x, *c = y;
    if (a->step != c->step)
        return a->step < c->step ? -1 : 1;
    if (a->kind != c->kind)
        return a->kind < c->kind ? -1 : 1;
    if (a->o != c->o)
        return a->o < c->o ? -1 : 1;
    return a->d < c->d ? -1 : a->d > c->d;
}

/* Events of one step and kind by (dest, origin): the DESTS and SETS order. */
static int event_cmp_dest(const void *x, const void *y)
{
    const event *a = x, *c = y;
    if (a->d != c->d)
        return a->d < c->d ? -1 : 1;
    return a->o < c->o ? -1 : a->o > c->o;
}

/* A new slot combining the sorted origins set[0..n); its index in *slot. */
static int new_slot(build *b, const uint32_t *set, size_t n, uint32_t *slot)
{
    xchg_op_program *g = b->g;
    if (grow((void **)&b->slots, &b->capslots, g->nslots, 1, sizeof *b->slots) ||
        grow((void **)&g->sets, &b->capsets, g->nsets_pool, n, sizeof *g->sets))
        return XCHG_ENOMEM;
    memcpy(g->sets + g->nsets_pool, set, n * sizeof *set);
    b->slots[g->nslots] = (slot_rec){g->nsets_pool, n};
    g->nsets_pool += n;
    *slot = (uint32_t)g->nslots++;
    return XCHG_OK;
}

static const uint32_t *slot_set(const build *b, uint32_t slot, size_t *n)
{
    *n = b->slots[slot].nset;
    return b->g->sets + b->slots[slot].set_off;
}

/* Append a piece over tokens tk[0..n) (copied) read from or written to slot. */
static int add_piece(build *b, uint32_t origin, uint32_t dest, uint32_t slot, const xchg_block *tk,
                     size_t n)
{
    xchg_op_program *g = b->g;
    if (grow((void **)&b->pc, &b->cappc, b->npc, 1, sizeof *b->pc) ||
        grow((void **)&g->toks, &b->captok, g->ntoks, n, sizeof *g->toks))
        return XCHG_ENOMEM;
    memcpy(g->toks + g->ntoks, tk, n * sizeof *tk);
    b->pc[b->npc++] = (piece_rec){origin, dest, slot, g->ntoks, n};
    g->ntoks += n;
    return XCHG_OK;
}

/* The token map (TOKENS): slot of token key, or XCHG_NONE. */
static uint32_t map_get(const build *b, uint64_t key)
{
    uint32_t slot = XCHG_NONE;
    xchg_hashmap_find(&b->tok, key, &slot);
    return slot;
}

/* The rank's pieces when the phase starts: its own tokens (rank, d), one
 * piece each (TOKENS, DESTS: its data for d) or one piece over all of them
 * (ORIGINS, SETS: its data, the same for every d), each in a new slot. */
static int start_pieces(build *b)
{
    uint32_t r = b->rank, slot = XCHG_NONE;
    int each = b->sizing == XCHG_SIZE_TOKENS || b->sizing == XCHG_SIZE_DESTS, rc = XCHG_OK;
    size_t n = 0;
    xchg_block *tk = malloc(b->p * sizeof *tk);
    if (!tk)
        return XCHG_ENOMEM;
    for (uint32_t d = 0; d < b->p; d++)
        if (xchg_op_has_token(&b->op, b->p, r, d))
            tk[n++] = (xchg_block){r, d};
    for (size_t i = 0; i < n && rc == XCHG_OK; i++) {
        uint32_t d = tk[i].dest;
        if (each || i == 0) {
            rc = new_slot(b, &r, 1, &slot);
            if (rc == XCHG_OK)
                rc = add_piece(
                    b, b->sizing == XCHG_SIZE_DESTS || b->sizing == XCHG_SIZE_SETS ? XCHG_NONE : r,
                    each ? d : XCHG_NONE, slot, each ? &tk[i] : tk, each ? 1 : n);
        }
        if (rc != XCHG_OK)
            break;
        if (b->sizing == XCHG_SIZE_TOKENS)
            rc = xchg_hashmap_insert(&b->tok, (uint64_t)r * b->p + d, slot);
        else
            b->arr[b->sizing == XCHG_SIZE_ORIGINS ? r : d] = slot;
    }
    free(tk);
    return rc;
}

/* Nonzero when the dests at ev[a..a+na) and ev[c..c+nc) (sorted by origin)
 * hold the same origins. */
static int same_origins(const event *ev, size_t a, size_t na, size_t c, size_t nc)
{
    if (na != nc)
        return 0;
    for (size_t i = 0; i < na; i++)
        if (ev[a + i].o != ev[c + i].o)
            return 0;
    return 1;
}

/* A combination of held slot h with received slot r into a new slot (one
 * per (h, r) in this step: dests sharing both share the result); *out gets
 * it. The order that keeps rank order is chosen; none may exist. */
static int combine(build *b, size_t comb_from, uint32_t h, uint32_t r, uint32_t *out)
{
    xchg_op_program *g = b->g;
    for (size_t i = comb_from; i < g->ncombs; i++)
        if (g->combs[i].held == h && g->combs[i].recv == r) {
            *out = g->combs[i].out;
            return XCHG_OK;
        }
    size_t na, nb, n = 0, i = 0, j = 0;
    const uint32_t *A = slot_set(b, h, &na), *B = slot_set(b, r, &nb);
    if (na + nb > b->p)
        return xchg_fail(b->err, XCHG_EINTERNAL, "rank %u combines %zu origins, more than %u",
                         b->rank, na + nb, b->p);
    while (i < na || j < nb)
        b->tmp[n++] = j == nb || (i < na && A[i] < B[j]) ? A[i++] : B[j++];
    xchg_op_combine c = {h, r, 0, 0, 1};
    if (na && nb && B[nb - 1] < A[0])
        c.recv_first = 1;
    else if (na && nb && !(A[na - 1] < B[0])) {
        c.order_ok = 0;
        g->order_bad = 1;
    }
    if (grow((void **)&g->combs, &b->capcomb, g->ncombs, 1, sizeof *g->combs))
        return XCHG_ENOMEM;
    int rc = new_slot(b, b->tmp, n, &c.out); /* A and B may move: used above only */
    if (rc)
        return rc;
    g->combs[g->ncombs++] = c;
    *out = c.out;
    return XCHG_OK;
}

/* Nonzero when slot's set is the origins of ev[a..a+n) (sorted by origin). */
static int slot_is_events(const build *b, uint32_t slot, const event *ev, size_t a, size_t n)
{
    size_t m;
    const uint32_t *set = slot_set(b, slot, &m);
    if (m != n)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (set[i] != ev[a + i].o)
            return 0;
    return 1;
}

/*
 * DESTS and SETS: the pieces of one message, sent (recv 0) or received
 * (recv 1), from its events ev[0..n) sorted by (dest, origin). A dest's
 * origins make its set; SETS puts the dests of one set into one piece, in
 * the order of their lowest dest, DESTS gives each dest its own. A sender
 * must send all it holds for a dest; a receiver combines each piece with
 * what it holds for the piece's dests.
 */
static int reduction_message(build *b, event *ev, size_t n, int recv)
{
    int sets = b->sizing == XCHG_SIZE_SETS, rc = XCHG_OK;
    size_t comb_from = b->g->ncombs;
    /* per dest: first event and count; its group */
    size_t *first = malloc((n + 1) * sizeof *first), *cnt = malloc((n + 1) * sizeof *cnt);
    size_t *grp = malloc((n + 1) * sizeof *grp), *rep = malloc((n + 1) * sizeof *rep);
    xchg_block *tk = malloc((n + 1) * sizeof *tk);
    if (!first || !cnt || !grp || !rep || !tk)
        rc = XCHG_ENOMEM;
    size_t nd = 0, ng = 0;
    for (size_t i = 0; i < n && rc == XCHG_OK; i++) {
        if (i > 0 && ev[i].d == ev[i - 1].d) {
            cnt[nd - 1]++;
            continue;
        }
        first[nd] = i;
        cnt[nd++] = 1;
    }
    for (size_t k = 0; k < nd && rc == XCHG_OK; k++) {
        uint32_t d = ev[first[k]].d;
        if (!recv &&
            (b->arr[d] == XCHG_NONE || !slot_is_events(b, b->arr[d], ev, first[k], cnt[k])))
            rc = xchg_fail(b->err, XCHG_EINTERNAL,
                           "rank %u at step %u sends part of what it holds for dest %u "
                           "(a partial result cannot be split)",
                           b->rank, ev[0].step, d);
        size_t gi = ng;
        for (size_t q = 0; sets && q < ng && gi == ng; q++)
            if (same_origins(ev, first[rep[q]], cnt[rep[q]], first[k], cnt[k]))
                gi = q;
        if (gi == ng)
            rep[ng++] = k;
        grp[k] = gi;
    }
    for (size_t q = 0; q < ng && rc == XCHG_OK; q++) {
        size_t nt = 0, r0 = rep[q];
        for (size_t i = 0; i < cnt[r0]; i++)
            for (size_t k = r0; k < nd; k++)
                if (grp[k] == q)
                    tk[nt++] = (xchg_block){ev[first[r0] + i].o, ev[first[k]].d};
        uint32_t d0 = ev[first[r0]].d, slot = b->arr[d0];
        if (recv) {
            for (size_t i = 0; i < cnt[r0]; i++)
                b->tmp[i] = ev[first[r0] + i].o;
            rc = new_slot(b, b->tmp, cnt[r0], &slot);
        }
        if (rc == XCHG_OK)
            rc = add_piece(b, XCHG_NONE, sets ? XCHG_NONE : d0, slot, tk, nt);
        for (size_t k = r0; k < nd && rc == XCHG_OK; k++) {
            if (grp[k] != q)
                continue;
            uint32_t d = ev[first[k]].d;
            if (!recv)
                b->arr[d] = XCHG_NONE;
            else if (b->arr[d] == XCHG_NONE)
                b->arr[d] = slot;
            else
                rc = combine(b, comb_from, b->arr[d], slot, &b->arr[d]);
        }
    }
    free(first);
    free(cnt);
    free(grp);
    free(rep);
    free(tk);
    return rc;
}

/* TOKENS and ORIGINS: the pieces of one message from its events ev[0..n),
 * sorted by (origin, dest): a piece per token, or per origin. A received
 * piece gets a new slot. */
static int plain_message(build *b, const event *ev, size_t n, int recv)
{
    int tokens = b->sizing == XCHG_SIZE_TOKENS, rc = XCHG_OK;
    xchg_block *tk = malloc((n + 1) * sizeof *tk);
    if (!tk)
        return XCHG_ENOMEM;
    for (size_t i = 0; i < n && rc == XCHG_OK;) {
        size_t j = i + 1;
        while (!tokens && j < n && ev[j].o == ev[i].o)
            j++;
        for (size_t k = i; k < j; k++)
            tk[k - i] = (xchg_block){ev[k].o, ev[k].d};
        uint64_t key = tokens ? (uint64_t)ev[i].o * b->p + ev[i].d : ev[i].o;
        uint32_t slot = tokens ? map_get(b, key) : b->arr[ev[i].o], o = ev[i].o;
        if (recv) {
            rc = new_slot(b, &o, 1, &slot);
            if (rc == XCHG_OK && tokens)
                rc = xchg_hashmap_insert(&b->tok, key, slot);
            else if (rc == XCHG_OK)
                b->arr[o] = slot;
        } else if (slot == XCHG_NONE) {
            rc = xchg_fail(b->err, XCHG_EINTERNAL,
                           "rank %u at step %u sends data of origin %u "
                           "it does not have",
                           b->rank, ev[i].step, o);
        }
        if (rc == XCHG_OK)
            rc = add_piece(b, o, tokens ? ev[i].d : XCHG_NONE, slot, tk, j - i);
        i = j;
    }
    free(tk);
    return rc;
}

/* One message of the rank: events ev[0..n) of one step and kind, sorted by
 * (origin, dest); its pieces go to the program. */
static int message(build *b, event *ev, size_t n, int recv)
{
    if (b->sizing == XCHG_SIZE_TOKENS || b->sizing == XCHG_SIZE_ORIGINS)
        return plain_message(b, ev, n, recv);
    qsort(ev, n, sizeof *ev, event_cmp_dest);
    return reduction_message(b, ev, n, recv);
}

/* The rank's result for the phase: the tokens it ends with, ev[0..n)
 * sorted by (origin, dest), all of dest rank. */
static int result_pieces(build *b, event *ev, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (ev[i].d != b->rank)
            return xchg_fail(b->err, XCHG_EINTERNAL, "%s token (%u, %u) ends at node %u",
                             xchg_op_name(b->op.kind), ev[i].o, ev[i].d, b->rank);
    if (b->sizing == XCHG_SIZE_TOKENS || b->sizing == XCHG_SIZE_ORIGINS || n == 0)
        return plain_message(b, ev, n, 0);
    uint32_t slot = b->arr[b->rank];
    if (slot == XCHG_NONE || !slot_is_events(b, slot, ev, 0, n))
        return xchg_fail(b->err, XCHG_EINTERNAL,
                         "rank %u ends with %zu contributions for itself "
                         "in more than one partial",
                         b->rank, n);
    xchg_block *tk = malloc(n * sizeof *tk);
    if (!tk)
        return XCHG_ENOMEM;
    for (size_t i = 0; i < n; i++)
        tk[i] = (xchg_block){ev[i].o, ev[i].d};
    int rc =
        add_piece(b, XCHG_NONE, b->sizing == XCHG_SIZE_DESTS ? b->rank : XCHG_NONE, slot, tk, n);
    free(tk);
    return rc;
}

/* Follow every token of the phase (steps [first, end)) and keep the
 * rank's events. pos, prev, cnt: p entries of scratch. */
static int follow_phase(build *b, const xchg_follower *f, size_t first, size_t end, uint32_t *pos,
                        uint32_t *prev, uint32_t *cnt)
{
    uint32_t p = b->p, r = b->rank;
    int rc = XCHG_OK;
    b->nev = 0;
    for (uint32_t o = 0; o < p && rc == XCHG_OK; o++) {
        int any = 0;
        for (uint32_t d = 0; d < p && !any; d++)
            any = xchg_op_has_token(&b->op, p, o, d);
        if (!any)
            continue;
        for (uint32_t d = 0; d < p; d++)
            pos[d] = o;
        for (size_t st = first; st < end && rc == XCHG_OK; st++) {
            memcpy(prev, pos, p * sizeof *pos);
            memset(cnt, 0, p * sizeof *cnt);
            rc = xchg_follow_origin_step(f, st, o, pos, cnt);
            for (uint32_t d = 0; d < p && rc == XCHG_OK; d++) {
                if (prev[d] == pos[d] || !xchg_op_has_token(&b->op, p, o, d))
                    continue;
                if (prev[d] == r)
                    rc = push_event(b, (uint32_t)st, EV_SEND, o, d, pos[d]);
                else if (pos[d] == r)
                    rc = push_event(b, (uint32_t)st, EV_RECV, o, d, prev[d]);
            }
        }
        for (uint32_t d = 0; d < p && rc == XCHG_OK; d++) {
            if (!xchg_op_has_token(&b->op, p, o, d))
                continue;
            if (pos[d] == r)
                rc = push_event(b, (uint32_t)end, EV_END, o, d, r);
            else if (d == r)
                rc = xchg_fail(b->err, XCHG_EINTERNAL, "%s token (%u, %u) ends at node %u",
                               xchg_op_name(b->op.kind), o, d, pos[d]);
        }
    }
    if (rc == XCHG_OK && b->nev)
        qsort(b->ev, b->nev, sizeof *b->ev, event_cmp);
    return rc;
}

/* Phase k: its start pieces, its steps, its result. */
static int run_phase(build *b, const xchg_follower *f, size_t k, uint32_t *scratch)
{
    xchg_op_program *g = b->g;
    size_t first = 0, end = 0;
    xchg_sched_phase(b->s, k, &b->op, &first, &end);
    int rc = xchg_op_check(&b->op, b->p, b->err);
    if (rc)
        return rc;
    b->sizing = xchg_op_sizing_of(b->op.kind);
    for (uint32_t i = 0; i < b->p; i++)
        b->arr[i] = XCHG_NONE;
    xchg_hashmap_free(&b->tok); /* a phase's tokens are its own */
    g->start[k].a = b->npc;
    rc = start_pieces(b);
    g->start[k].b = b->npc;
    if (rc == XCHG_OK)
        rc = follow_phase(b, f, first, end, scratch, scratch + b->p, scratch + 2 * (size_t)b->p);
    size_t e = 0;
    for (size_t st = first; st < end && rc == XCHG_OK; st++) {
        g->phase_of[st] = k;
        g->send_to[st] = g->recv_from[st] = XCHG_NONE;
        for (int kind = EV_SEND; kind <= EV_RECV && rc == XCHG_OK; kind++) {
            size_t a = e;
            while (e < b->nev && b->ev[e].step == st && b->ev[e].kind == (uint32_t)kind)
                e++;
            range *rg = kind == EV_SEND ? &g->send[st] : &g->recv[st];
            if (kind == EV_RECV)
                g->comb[st].a = g->ncombs;
            rg->a = b->npc;
            for (size_t i = a; i < e && rc == XCHG_OK; i++)
                if (b->ev[i].peer != b->ev[a].peer)
                    rc = xchg_fail(b->err, XCHG_EINTERNAL, "rank %u at step %zu %s nodes %u and %u",
                                   b->rank, st, kind == EV_SEND ? "sends to" : "receives from",
                                   b->ev[a].peer, b->ev[i].peer);
            if (rc == XCHG_OK && e > a) {
                if (kind == EV_SEND)
                    g->send_to[st] = b->ev[a].peer;
                else
                    g->recv_from[st] = b->ev[a].peer;
                rc = message(b, b->ev + a, e - a, kind == EV_RECV);
            }
            rg->b = b->npc;
            if (kind == EV_RECV)
                g->comb[st].b = g->ncombs;
        }
    }
    g->result[k].a = b->npc;
    if (rc == XCHG_OK)
        rc = result_pieces(b, b->ev + e, b->nev - e);
    g->result[k].b = b->npc;
    return rc;
}

/* The public view of the pieces, once the pools have stopped moving. */
static int publish(build *b)
{
    xchg_op_program *g = b->g;
    g->npieces = b->npc;
    g->pieces = calloc(b->npc + 1, sizeof *g->pieces);
    if (!g->pieces)
        return XCHG_ENOMEM;
    for (size_t i = 0; i < b->npc; i++) {
        const piece_rec *r = &b->pc[i];
        xchg_op_piece *q = &g->pieces[i];
        size_t n;
        const uint32_t *set = slot_set(b, r->slot, &n);
        q->origin = r->origin;
        q->dest = r->dest;
        q->slot = r->slot;
        q->origins = set;
        q->norigins = n;
        q->lo = n ? set[0] : XCHG_NONE;
        q->hi = n ? set[n - 1] : XCHG_NONE;
        q->contiguous = n > 0 && q->hi - q->lo + 1 == n;
        q->tokens = g->toks + r->tok_off;
        q->ntokens = r->ntok;
    }
    return XCHG_OK;
}

int xchg_op_program_new(const xchg_sched *s, uint32_t rank, xchg_op_program **out, xchg_err *err)
{
    if (!s || !out)
        return xchg_fail(err, XCHG_EINVAL, "xchg_op_program_new: NULL schedule or result");
    uint32_t p = xchg_sched_topo(s)->nodes;
    size_t nsteps = xchg_sched_nsteps(s), nph = xchg_sched_nphases(s);
    if (rank >= p)
        return xchg_fail(err, XCHG_EINVAL, "rank %u is not a node; accepted: 0 to %u", rank, p - 1);
    if ((double)p * p * (double)(nsteps ? nsteps : 1) > (double)XCHG_OP_PROGRAM_MAX_WORK)
        return xchg_fail(err, XCHG_ETOOBIG,
                         "a rank's program follows p*p*steps = %u*%u*%zu tokens, more than the "
                         "%llu allowed",
                         p, p, nsteps, (unsigned long long)XCHG_OP_PROGRAM_MAX_WORK);
    xchg_follower *f = NULL;
    int rc = xchg_follower_new(s, &f, err);
    if (rc)
        return rc;
    build b;
    memset(&b, 0, sizeof b);
    b.s = s;
    b.p = p;
    b.rank = rank;
    b.err = err;
    xchg_op_program *g = calloc(1, sizeof *g);
    uint32_t *scratch = malloc(3 * (size_t)p * sizeof *scratch);
    b.arr = malloc(p * sizeof *b.arr);
    b.tmp = malloc(p * sizeof *b.tmp);
    size_t ns = nsteps + 1;
    if (g) {
        g->rank = rank;
        g->p = p;
        g->nsteps = nsteps;
        g->nphases = nph;
        g->phase_of = calloc(ns, sizeof *g->phase_of);
        g->send_to = calloc(ns, sizeof *g->send_to);
        g->recv_from = calloc(ns, sizeof *g->recv_from);
        g->send = calloc(ns, sizeof *g->send);
        g->recv = calloc(ns, sizeof *g->recv);
        g->comb = calloc(ns, sizeof *g->comb);
        g->start = calloc(nph, sizeof *g->start);
        g->result = calloc(nph, sizeof *g->result);
    }
    b.g = g;
    if (!g || !scratch || !b.arr || !b.tmp || !g->phase_of || !g->send_to || !g->recv_from ||
        !g->send || !g->recv || !g->comb || !g->start || !g->result)
        rc = XCHG_ENOMEM;
    for (size_t k = 0; k < nph && rc == XCHG_OK; k++)
        rc = run_phase(&b, f, k, scratch);
    if (rc == XCHG_OK)
        rc = publish(&b);
    if (rc == XCHG_ENOMEM)
        xchg_fail(err, rc, "out of memory building rank %u's program", rank);
    free(scratch);
    free(b.arr);
    free(b.tmp);
    free(b.ev);
    free(b.pc);
    free(b.slots);
    xchg_hashmap_free(&b.tok);
    xchg_follower_free(f);
    if (rc != XCHG_OK) {
        xchg_op_program_free(g);
        return rc;
    }
    *out = g;
    return XCHG_OK;
}

void xchg_op_program_free(xchg_op_program *g)
{
    if (!g)
        return;
    free(g->phase_of);
    free(g->send_to);
    free(g->recv_from);
    free(g->send);
    free(g->recv);
    free(g->comb);
    free(g->start);
    free(g->result);
    free(g->pieces);
    free(g->combs);
    free(g->toks);
    free(g->sets);
    free(g);
}

uint32_t xchg_op_program_rank(const xchg_op_program *g)
{
    return g->rank;
}

size_t xchg_op_program_nsteps(const xchg_op_program *g)
{
    return g->nsteps;
}

size_t xchg_op_program_nphases(const xchg_op_program *g)
{
    return g->nphases;
}

void xchg_op_program_step(const xchg_op_program *g, size_t k, xchg_op_step *out)
{
    if (k >= g->nsteps)
        return;
    out->phase = g->phase_of[k];
    out->send_to = g->send_to[k];
    out->recv_from = g->recv_from[k];
    out->nsend = g->send[k].b - g->send[k].a;
    out->nrecv = g->recv[k].b - g->recv[k].a;
    out->ncombine = g->comb[k].b - g->comb[k].a;
    out->send = g->pieces + g->send[k].a;
    out->recv = g->pieces + g->recv[k].a;
    out->combine = g->combs + g->comb[k].a;
}

void xchg_op_program_start(const xchg_op_program *g, size_t k, const xchg_op_piece **pieces,
                           size_t *n)
{
    *n = k < g->nphases ? g->start[k].b - g->start[k].a : 0;
    *pieces = k < g->nphases ? g->pieces + g->start[k].a : g->pieces;
}

void xchg_op_program_result(const xchg_op_program *g, size_t k, const xchg_op_piece **pieces,
                            size_t *n)
{
    *n = k < g->nphases ? g->result[k].b - g->result[k].a : 0;
    *pieces = k < g->nphases ? g->pieces + g->result[k].a : g->pieces;
}

size_t xchg_op_program_nslots(const xchg_op_program *g)
{
    return g->nslots;
}

int xchg_op_program_order_ok(const xchg_op_program *g)
{
    return !g->order_bad;
}
