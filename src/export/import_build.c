/*
 * import_build.c - the importer's builder (xchg_import, import.c): what
 * import_json.c and import_text.c call as they read a schedule written in
 * the export format, xchg-schedule/1 JSON or text (docs/export-format.md,
 * "Import"), to turn it back into a schedule every consumer can run.
 * Calls point one way: import.c calls the two readers and this file, the
 * readers call this file, and this file calls none of them.
 *
 * The file lists every block of every message; a schedule stores rules. So
 * each step becomes a partner table (who sends to whom), the declared size
 * of each message (the blocks listed), and a callback rule that selects
 * exactly the listed blocks: per step, the senders in id order, each with
 * its sorted list of (origin, destination) keys, found by binary search.
 * The step's route policy is the one (shortest, +1 or -1 way round) under
 * which xchg_topo_route gives every listed route of the step.
 *
 * Reading checks what the schedule's consumers rely on and says where it
 * fails, by line and column and, in JSON, by field (steps[2][0].blocks[3]):
 * the syntax; the format, topology and node count; each message's nodes,
 * route and blocks; one message per sender a step; every listed block held
 * by its sender at the start of its step (the blocks are replayed, as the
 * exporter follows them, with one holder per block: 4*p*p bytes, refused
 * above opts->max_bytes) and listed once a step. Whether the blocks arrive
 * is the verifier's to say (xchg_verify): a file may hold a wrong schedule,
 * and that is a finding, not a syntax error. Nothing here recurses, so no
 * input can exhaust the stack.
 *
 * A file of another operation than the complete exchange names it
 * ("operation", with its root, q or pieces; docs/operations.md) and lists
 * only its tokens; a file of several phases names them too, and each
 * phase's tokens start again at their origins. The reader checks the
 * operation (xchg_op_check), refuses a listed block that is not a token of
 * its step's operation, replays phase by phase, and declares each message
 * as many blocks as the operation makes of the tokens it lists (one per
 * origin for a broadcast, per dest for a reduction, per distinct set of
 * origins for an all-reduce or a scan), which is what the verifier counts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/import_internal.h"

/* High bit of a holder: the block moved in the current step. */
#define MOVED 0x80000000u

/* Per step, kept in the schedule's context: senders in id order, each
 * with its blocks' keys sorted. */
typedef struct xchg_imp_step {
    uint32_t n;       /* senders */
    uint32_t *sender; /* n */
    uint64_t *first;  /* n + 1: the keys of sender k are
                         keys[first[k] .. first[k+1]) */
    uint64_t *keys;   /* origin * p + dest */
} xchg_imp_step;

/* The built schedule's context: the listed blocks of every step. */
struct xchg_imp_ctx {
    uint32_t p;
    size_t nsteps;
    xchg_imp_step *steps;
};

/* Record the first error, with the position and (JSON) field. */
int xchg_imp_fail_at(xchg_imp_reader *r, size_t line, size_t col, const char *fmt, const char *a,
                     const char *b)
{
    if (r->rc)
        return r->rc;
    char what[512];
    snprintf(what, sizeof what, fmt, a ? a : "", b ? b : "");
    if (r->path[0])
        r->rc = xchg_fail(r->err, XCHG_EINVAL, "line %zu, column %zu, %s: %s", line, col, r->path,
                          what);
    else
        r->rc = xchg_fail(r->err, XCHG_EINVAL, "line %zu, column %zu: %s", line, col, what);
    return r->rc;
}

int xchg_imp_fail(xchg_imp_reader *r, const char *fmt, const char *a, const char *b)
{
    return xchg_imp_fail_at(r, r->line, r->col, fmt, a, b);
}

int xchg_imp_oom(xchg_imp_reader *r)
{
    if (!r->rc)
        r->rc = xchg_fail(r->err, XCHG_ENOMEM, "out of memory importing a schedule");
    return r->rc;
}

/* Grow *arr (elements of size sz) to hold n+1. */
int xchg_imp_grow(xchg_imp_reader *r, void **arr, size_t *cap, size_t n, size_t sz)
{
    if (n < *cap)
        return 0;
    size_t nc = *cap ? 2 * *cap : 64;
    if (nc > SIZE_MAX / sz)
        return xchg_imp_oom(r);
    void *a = realloc(*arr, nc * sz);
    if (!a)
        return xchg_imp_oom(r);
    *arr = a;
    *cap = nc;
    return 0;
}

/* ------------------------------------------------------------------ */
/* The built schedule: its rule and context                            */
/* ------------------------------------------------------------------ */

static void ctx_free(void *v)
{
    xchg_imp_ctx *c = v;
    if (!c)
        return;
    for (size_t i = 0; i < c->nsteps; i++) {
        free(c->steps[i].sender);
        free(c->steps[i].first);
        free(c->steps[i].keys);
    }
    free(c->steps);
    free(c);
}

/* The rule: node sends (origin, dest) at step when the file lists it so. */
static int listed(const void *v, size_t step, uint32_t node, uint32_t origin, uint32_t dest)
{
    const xchg_imp_ctx *c = v;
    if (step >= c->nsteps)
        return 0;
    const xchg_imp_step *st = &c->steps[step];
    uint32_t lo = 0, hi = st->n;
    while (lo < hi) { /* the sender */
        uint32_t mid = lo + (hi - lo) / 2;
        if (st->sender[mid] < node)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == st->n || st->sender[lo] != node)
        return 0;
    uint64_t key = (uint64_t)origin * c->p + dest;
    uint64_t a = st->first[lo], b = st->first[lo + 1];
    while (a < b) { /* its block */
        uint64_t mid = a + (b - a) / 2;
        if (st->keys[mid] < key)
            a = mid + 1;
        else
            b = mid;
    }
    return a < st->first[lo + 1] && st->keys[a] == key;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The phase step k (0-based) belongs to: the last one starting at or
 * before it (0 when the file has no phases). */
static size_t phase_of(const xchg_imp_reader *r, size_t k)
{
    size_t j = 0;
    while (j + 1 < r->nphases && r->phases[j + 1].first <= k)
        j++;
    return j;
}

/* The operation step k performs. */
static const xchg_op *op_of(const xchg_imp_reader *r, size_t k)
{
    return r->nphases ? &r->phases[phase_of(r, k)].op : &r->op.op;
}

static int op_rooted(xchg_op_kind k)
{
    return k == XCHG_OP_BCAST || k == XCHG_OP_REDUCE || k == XCHG_OP_SCATTER ||
           k == XCHG_OP_GATHER;
}

int xchg_imp_check_op(xchg_imp_reader *r, const xchg_imp_op *o, const char *field)
{
    const char *name = xchg_op_name(o->op.kind);
    char why[320];
    why[0] = '\0';
    if (op_rooted(o->op.kind) && !(o->given & XCHG_IMP_ROOT))
        snprintf(why, sizeof why, "%s needs its root; accepted: root R, a node 0 to %u", name,
                 r->p - 1);
    else if (!op_rooted(o->op.kind) && (o->given & XCHG_IMP_ROOT))
        snprintf(why, sizeof why,
                 "%s has no root; accepted: root with bcast, reduce, scatter and gather only",
                 name);
    else if (o->op.kind == XCHG_OP_SHIFT && !(o->given & XCHG_IMP_Q))
        snprintf(why, sizeof why, "shift needs its q; accepted: q from 1 to %u (p - 1)",
                 r->p - 1);
    else if (o->op.kind != XCHG_OP_SHIFT && (o->given & XCHG_IMP_Q))
        snprintf(why, sizeof why, "%s has no q; accepted: q with shift only", name);
    else if ((o->given & XCHG_IMP_PIECES) && o->op.pieces == 0)
        snprintf(why, sizeof why, "pieces is 0; accepted: 1 or more (the blocks the "
                                  "operation's data is cut into)");
    xchg_err e = {{0}};
    if (!why[0] && xchg_op_check(&o->op, r->p, &e) != XCHG_OK)
        snprintf(why, sizeof why, "%.300s", e.msg);
    if (!why[0])
        return 0;
    if (field) {
        snprintf(r->path, sizeof r->path, "%s", field);
        return xchg_imp_fail_at(r, o->line, o->col, "%s%s", why, NULL);
    }
    return xchg_imp_fail_at(r, o->line, o->col, "%s: %s",
                            o == &r->op ? "the header's operation" : "the 'phase' line", why);
}

int xchg_imp_add_phase(xchg_imp_reader *r, const xchg_imp_op *o)
{
    if (r->nphases == XCHG_MAX_PHASES) {
        char a[16];
        snprintf(a, sizeof a, "%d", XCHG_MAX_PHASES);
        return xchg_imp_fail_at(r, o->line, o->col, "more than %s phases%s", a, "");
    }
    r->phases[r->nphases++] = *o;
    return 0;
}

/* What the tokens of op are, for messages: "bcast root 5: (5,d) only". */
static void token_text(const xchg_op *op, char *buf, size_t len)
{
    const char *name = xchg_op_name(op->kind);
    switch (op->kind) {
    case XCHG_OP_BCAST:
    case XCHG_OP_SCATTER:
        snprintf(buf, len, "%s root %u: (%u,d) only", name, op->root, op->root);
        break;
    case XCHG_OP_REDUCE:
    case XCHG_OP_GATHER:
        snprintf(buf, len, "%s root %u: (o,%u) only", name, op->root, op->root);
        break;
    case XCHG_OP_SCAN:
        snprintf(buf, len, "scan: (o,d) with o <= d only");
        break;
    case XCHG_OP_SHIFT:
        snprintf(buf, len, "shift q %u: (o,(o+%u) mod p) only", op->shift, op->shift);
        break;
    default:
        snprintf(buf, len, "%s: every (o,d)", name);
        break;
    }
}

/* One dest's set of origins in a message: tmp[at .. at+len), sorted. */
typedef struct xchg_imp_set {
    uint64_t hash;
    size_t at, len;
} xchg_imp_set;

static int cmp_set(const void *a, const void *b)
{
    const xchg_imp_set *x = a, *y = b;
    return (x->hash > y->hash) - (x->hash < y->hash);
}

/*
 * Blocks a message of an operation sized `sz` carries, from the n tokens
 * it lists (keys origin*p+dest, sorted): one per token, per distinct
 * origin, per distinct dest, or per distinct set of origins held for a
 * dest (docs/operations.md), as the verifier counts them. Sets are
 * compared by a hash of their sorted origins and, when hashes are equal,
 * origin by origin. Returns the count, or UINT64_MAX out of memory.
 */
static uint64_t msg_blocks(xchg_imp_reader *r, xchg_op_sizing sz, const uint64_t *keys,
                           size_t n)
{
    uint64_t p = r->p;
    if (sz == XCHG_SIZE_TOKENS || n == 0)
        return n;
    uint64_t count = 1;
    if (sz == XCHG_SIZE_ORIGINS) {
        for (size_t i = 1; i < n; i++)
            count += keys[i] / p != keys[i - 1] / p;
        return count;
    }
    if (n > r->tmp_cap) {
        free(r->tmp);
        r->tmp = malloc(n * sizeof *r->tmp);
        r->tmp_cap = r->tmp ? n : 0;
        if (!r->tmp)
            return UINT64_MAX;
    }
    for (size_t i = 0; i < n; i++) /* dest-major */
        r->tmp[i] = (keys[i] % p) * p + keys[i] / p;
    qsort(r->tmp, n, sizeof *r->tmp, cmp_u64);
    if (sz == XCHG_SIZE_DESTS) {
        for (size_t i = 1; i < n; i++)
            count += r->tmp[i] / p != r->tmp[i - 1] / p;
        return count;
    }
    size_t ng = 0;
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || r->tmp[i] / p != r->tmp[i - 1] / p) {
            if (ng == r->sets_cap) {
                size_t cap = r->sets_cap ? 2 * r->sets_cap : 64;
                xchg_imp_set *g = realloc(r->sets, cap * sizeof *g);
                if (!g)
                    return UINT64_MAX;
                r->sets = g;
                r->sets_cap = cap;
            }
            r->sets[ng++] = (xchg_imp_set){UINT64_C(0x9e3779b97f4a7c15), i, 0};
        }
        xchg_imp_set *g = &r->sets[ng - 1];
        g->hash = (g->hash ^ (r->tmp[i] % p)) * UINT64_C(0xbf58476d1ce4e5b9);
        g->hash ^= g->hash >> 29;
        g->len++;
    }
    qsort(r->sets, ng, sizeof *r->sets, cmp_set);
    count = 0;
    for (size_t i = 0; i < ng; i++) {
        int seen = 0; /* an equal set earlier in this run of equal hashes */
        for (size_t j = i; j-- > 0 && r->sets[j].hash == r->sets[i].hash && !seen;) {
            const xchg_imp_set *a = &r->sets[i], *b = &r->sets[j];
            if (a->len != b->len)
                continue;
            seen = 1;
            for (size_t k = 0; k < a->len && seen; k++)
                seen = r->tmp[a->at + k] % p == r->tmp[b->at + k] % p;
        }
        count += !seen;
    }
    return count;
}


static int cmp_msg(const void *a, const void *b)
{
    const xchg_imp_msg *x = a, *y = b;
    return (x->from > y->from) - (x->from < y->from);
}

/* Nonzero when msg's listed route is xchg_topo_route's under policy. */
static int route_is(const xchg_imp_reader *r, const xchg_imp_msg *m, int policy)
{
    xchg_seg segs[XCHG_MAX_DIMS];
    int n = 0;
    xchg_topo_route(&r->topo, m->from, m->to, policy, segs, &n);
    if (n != m->nsegs)
        return 0;
    for (int k = 0; k < n; k++) {
        int dir = segs[k].dir, want = m->segs[k].dir;
        /* on a hypercube both directions name the one neighbour */
        if (r->topo.kind == XCHG_TOPO_HYPERCUBE)
            dir = want;
        if (segs[k].dim != m->segs[k].dim || dir != want || segs[k].hops != m->segs[k].hops)
            return 0;
    }
    return 1;
}

/*
 * The step just read is complete: check and replay it, and add it to the
 * schedule. Returns 0 or the error.
 */
int xchg_imp_finish_step(xchg_imp_reader *r)
{
    uint32_t p = r->p;
    size_t step = r->sched->nsteps;
    const xchg_op *op = op_of(r, step);
    if (r->nphases && phase_of(r, step) != r->replay_phase) {
        /* a new phase: its tokens start at their origins */
        uint64_t nb = (uint64_t)p * p;
        for (uint64_t b = 0; b < nb; b++)
            r->holder[b] = (uint32_t)(b / p);
        r->replay_phase = phase_of(r, step);
    }
    /* one message per sender, in id order */
    if (r->nmsgs > 1)
        qsort(r->msgs, r->nmsgs, sizeof *r->msgs, cmp_msg);
    for (size_t i = 1; i < r->nmsgs; i++)
        if (r->msgs[i].from == r->msgs[i - 1].from) {
            char a[32];
            snprintf(a, sizeof a, "%u", r->msgs[i].from);
            return xchg_imp_fail_at(
                r, r->msgs[i].line, r->msgs[i].col,
                "node %s sends a second message in this step; accepted: at most "
                "one message per sender a step%s",
                a, "");
        }
    /* one route policy for the whole step */
    const int policies[3] = {XCHG_ROUTE_SHORTEST, XCHG_ROUTE_PLUS, XCHG_ROUTE_MINUS};
    int ok[3] = {1, 1, 1};
    for (size_t i = 0; i < r->nmsgs; i++) {
        int any = 0;
        for (int q = 0; q < 3; q++) {
            int fits = route_is(r, &r->msgs[i], policies[q]);
            any |= fits;
            ok[q] &= fits;
        }
        if (!any || !(ok[0] || ok[1] || ok[2]))
            return xchg_imp_fail_at(
                r, r->msgs[i].line, r->msgs[i].col,
                any ? "this route goes the other way round from the step's other "
                      "messages; accepted: one route policy a step (shortest, "
                      "always +1 or always -1 on wrapped dimensions)%s%s"
                    : "the route is not a dimension-ordered route from 'from' to "
                      "'to' (fastest-varying dimension first, as xchg_topo_route "
                      "gives it)%s%s",
                NULL, NULL);
    }
    int policy = ok[0] ? policies[0] : ok[1] ? policies[1] : policies[2];
    /* replay: each block held by its sender, listed once */
    for (size_t i = 0; i < r->nmsgs; i++) {
        const xchg_imp_msg *m = &r->msgs[i];
        for (size_t j = m->b0; j < m->b0 + m->nb; j++) {
            uint64_t key = r->keys[j];
            uint32_t h = r->holder[key];
            char a[64], b[32];
            snprintf(a, sizeof a, "(%llu,%llu)", (unsigned long long)(key / p),
                     (unsigned long long)(key % p));
            if (h & MOVED)
                return xchg_imp_fail_at(r, m->line, m->col,
                                        "block %s is listed twice in this step%s", a, "");
            if (h != m->from) {
                snprintf(b, sizeof b, "%u", h);
                return xchg_imp_fail_at(
                    r, m->line, m->col,
                    "block %s is sent by a node that does not hold it: it is at "
                    "node %s at the start of this step",
                    a, b);
            }
            r->holder[key] = m->to | MOVED;
        }
    }
    for (size_t j = 0; j < r->nkeys; j++)
        r->holder[r->keys[j]] &= ~MOVED;

    /* the step, as the schedule stores it */
    uint32_t *partner = malloc((size_t)p * sizeof *partner);
    uint32_t *blocks = calloc(p, sizeof *blocks);
    xchg_imp_step is = {0};
    is.n = (uint32_t)r->nmsgs;
    is.sender = malloc((r->nmsgs + 1) * sizeof *is.sender);
    is.first = malloc((r->nmsgs + 1) * sizeof *is.first);
    is.keys = malloc((r->nkeys + 1) * sizeof *is.keys);
    if (!partner || !blocks || !is.sender || !is.first || !is.keys) {
        free(partner);
        free(blocks);
        free(is.sender);
        free(is.first);
        free(is.keys);
        return xchg_imp_oom(r);
    }
    for (uint32_t n = 0; n < p; n++)
        partner[n] = XCHG_NONE;
    size_t at = 0;
    xchg_op_sizing sizing = xchg_op_sizing_of(op->kind);
    int nomem = 0;
    for (size_t i = 0; i < r->nmsgs; i++) {
        const xchg_imp_msg *m = &r->msgs[i];
        partner[m->from] = m->to;
        is.sender[i] = m->from;
        is.first[i] = at;
        memcpy(is.keys + at, r->keys + m->b0, m->nb * sizeof *is.keys);
        qsort(is.keys + at, m->nb, sizeof *is.keys, cmp_u64);
        uint64_t n = msg_blocks(r, sizing, is.keys + at, m->nb);
        nomem |= n == UINT64_MAX;
        blocks[m->from] = (uint32_t)n;
        at += m->nb;
    }
    is.first[r->nmsgs] = at;
    if (nomem || xchg_imp_grow(r, (void **)&r->ctx->steps, &r->steps_cap, r->ctx->nsteps,
                               sizeof(xchg_imp_step))) {
        if (nomem)
            xchg_imp_oom(r);
        free(partner);
        free(blocks);
        free(is.sender);
        free(is.first);
        free(is.keys);
        return r->rc;
    }
    r->ctx->steps[r->ctx->nsteps++] = is;
    r->sched->ctx_bytes += (uint64_t)(r->nmsgs + 1) * 12 + (uint64_t)r->nkeys * 8;
    xchg_step st;
    memset(&st, 0, sizeof st);
    st.partner = XCHG_PARTNER_TABLE;
    st.partner_table = partner;
    st.rule = xchg_rule_fn(listed);
    st.blocks_table = blocks;
    st.route_policy = policy;
    if (xchg_sched_add(r->sched, &st))
        return xchg_imp_oom(r);
    r->nmsgs = 0;
    r->nkeys = 0;
    return 0;
}

/* The document's head is known (topology, nodes): check them and set up
 * the replay and the schedule. */
int xchg_imp_begin_steps(xchg_imp_reader *r, size_t line, size_t col)
{
    if (!r->have_format)
        return xchg_imp_fail_at(r, line, col,
                                "the format is not given before the steps; accepted: "
                                "\"format\":\"" IMPORT_FORMAT "\" first%s%s",
                                NULL, NULL);
    if (!r->have_topo)
        return xchg_imp_fail_at(r, line, col, "the topology is not given before the steps%s%s",
                                NULL, NULL);
    if (r->have_nodes && r->p != r->topo.nodes) {
        char a[32], b[64];
        snprintf(a, sizeof a, "%u", r->p);
        snprintf(b, sizeof b, "%u", r->topo.nodes);
        return xchg_imp_fail_at(r, line, col, "nodes is %s but the topology has %s", a, b);
    }
    r->p = r->topo.nodes;
    if (r->have_op && xchg_imp_check_op(r, &r->op, r->json ? "operation" : NULL))
        return r->rc;
    if (r->nphases && !r->have_op)
        return xchg_imp_fail_at(r, r->phases[0].line, r->phases[0].col,
                                "phases in a file that names no operation; accepted: "
                                "phases with the \"operation\" they perform%s%s",
                                NULL, NULL);
    for (size_t k = 0; k < r->nphases; k++) {
        char field[32], a[32], b[32];
        snprintf(field, sizeof field, "phases[%zu]", k);
        if (xchg_imp_check_op(r, &r->phases[k], field))
            return r->rc;
        snprintf(a, sizeof a, "%zu", r->phases[k].first);
        if (r->json)
            snprintf(r->path, sizeof r->path, "%s", field);
        if (k == 0 && r->phases[k].first != 0)
            return xchg_imp_fail_at(r, r->phases[k].line, r->phases[k].col,
                                    "the first phase starts at step %s; accepted: 0%s", a, "");
        if (k > 0 && r->phases[k].first < r->phases[k - 1].first) {
            snprintf(b, sizeof b, "%zu", r->phases[k - 1].first);
            return xchg_imp_fail_at(r, r->phases[k].line, r->phases[k].col,
                                    "this phase starts at step %s, before the phase ahead of "
                                    "it (step %s); accepted: phases in step order",
                                    a, b);
        }
    }
    r->path[0] = '\0';
    uint64_t nb = (uint64_t)r->p * r->p;
    if (nb > r->max_bytes / 4) {
        char a[48], b[48];
        return xchg_imp_fail_at(
            r, line, col,
            "replaying its blocks takes %s (4 bytes for each of p*p blocks), over "
            "the memory limit of %s",
            xchg_bytes_text(nb * 4, a, sizeof a), xchg_bytes_text(r->max_bytes, b, sizeof b));
    }
    r->holder = malloc((size_t)nb * sizeof *r->holder);
    r->ctx = calloc(1, sizeof *r->ctx);
    r->sched = xchg_sched_new(&r->topo, r->have_alg ? r->alg : "imported", 0);
    if (!r->holder || !r->ctx || !r->sched)
        return xchg_imp_oom(r);
    r->ctx->p = r->p;
    r->sched->ctx = r->ctx;
    r->sched->ctx_free = ctx_free;
    r->sched->ctx_bytes = sizeof *r->ctx;
    /* from here the schedule owns ctx; r->ctx stays as a shortcut */
    for (uint64_t b = 0; b < nb; b++)
        r->holder[b] = (uint32_t)(b / r->p);
    return 0;
}

/* Add a listed block (origin, dest) to the current message. */
int xchg_imp_add_block(xchg_imp_reader *r, xchg_imp_msg *m, uint64_t o, uint64_t d, size_t line,
                       size_t col)
{
    if (o >= r->p || d >= r->p) {
        char a[64], b[32];
        snprintf(a, sizeof a, "(%llu,%llu)", (unsigned long long)o, (unsigned long long)d);
        snprintf(b, sizeof b, "%u", r->p - 1);
        return xchg_imp_fail_at(r, line, col,
                                "block %s names a node past the last one; accepted: "
                                "nodes 0 to %s",
                                a, b);
    }
    const xchg_op *op = op_of(r, r->sched->nsteps);
    if (!xchg_op_has_token(op, r->p, (uint32_t)o, (uint32_t)d)) {
        char a[64], b[128];
        snprintf(a, sizeof a, "(%llu,%llu)", (unsigned long long)o, (unsigned long long)d);
        token_text(op, b, sizeof b);
        return xchg_imp_fail_at(r, line, col,
                                "block %s is not a token of the step's operation; "
                                "accepted: %s",
                                a, b);
    }
    if (xchg_imp_grow(r, (void **)&r->keys, &r->keys_cap, r->nkeys, sizeof *r->keys))
        return r->rc;
    r->keys[r->nkeys++] = o * r->p + d;
    m->nb++;
    return 0;
}

/* Nonzero when name can name an algorithm in both formats: printable
 * ASCII, no spaces (the text header is split at them). */
int xchg_imp_good_name(const char *name)
{
    if (!*name)
        return 0;
    for (const char *c = name; *c; c++)
        if (*c < 33 || *c > 126)
            return 0;
    return 1;
}

/* Check a message's two nodes. */
int xchg_imp_check_nodes(xchg_imp_reader *r, const xchg_imp_msg *m)
{
    char a[32], b[32];
    snprintf(b, sizeof b, "%u", r->p - 1);
    if (m->from >= r->p || m->to >= r->p) {
        snprintf(a, sizeof a, "%u", m->from >= r->p ? m->from : m->to);
        return xchg_imp_fail_at(r, m->line, m->col,
                                "node %s is not in the topology; accepted: 0 to %s", a, b);
    }
    if (m->from == m->to) {
        snprintf(a, sizeof a, "%u", m->from);
        return xchg_imp_fail_at(r, m->line, m->col,
                                "node %s sends to itself; accepted: a message to "
                                "another node%s",
                                a, "");
    }
    return 0;
}

void xchg_imp_free(xchg_imp_reader *r)
{
    free(r->copies);
    free(r->msgs);
    free(r->keys);
    free(r->holder);
    free(r->tmp);
    free(r->sets);
    if (r->sched)
        xchg_sched_free(r->sched); /* frees ctx with it */
    else
        ctx_free(r->ctx);
}
