/*
 * test_rank.c - one rank's program (xchg_rank_new, src/rank/rank.c) and the
 * registry's symmetry declarations it relies on.
 *
 * For every registry schedule on a spread of small topologies:
 *   - the declared symmetry holds: every block's path is the relabelled
 *     path of its class representative's block (xchg_alg_symmetry);
 *   - each node's program derived through the symmetry equals the one
 *     derived by following every block;
 *   - running every node's program on buffers of block ids (one process
 *     playing all nodes, messages delivered in the sender's order into the
 *     receiver's places) leaves each node with exactly its own blocks, in
 *     receive slot = origin: sender and receiver agree on every message's
 *     layout, and no place is overwritten while it still holds a block.
 */
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *topologies[] = {
    "ring:1", "ring:2", "ring:5", "ring:8", "ring:12", "array:7", "complete:6",
    "complete:16", "mesh:4x4", "torus:3x5", "torus:4x4", "torus:8x8", "torus:8x12",
    "hypercube:0", "hypercube:3", "hypercube:5", "torus:6x6x6",
    "torus:4x4x4x4", "tree:3", NULL};

/* h.a under the resolved symmetry (the same action rank.c uses). */
static uint32_t act(const xchg_topo *t, const xchg_symmetry *sym, uint32_t h, uint32_t a)
{
    if (sym->kind == XCHG_SYM_XOR)
        return a ^ h;
    if (sym->kind == XCHG_SYM_CYCLIC)
        return (a + h) % t->nodes;
    uint32_t r = 0;
    for (int k = 0; k < t->ndims; k++)
        r += ((xchg_topo_coord(t, a, k) + xchg_topo_coord(t, h, k)) % t->size[k]) *
             t->stride[k];
    return r;
}

/* Split o into representative c and group element h with h.c = o. */
static void split(const xchg_topo *t, const xchg_symmetry *sym, uint32_t o, uint32_t *c,
                  uint32_t *h)
{
    if (sym->kind != XCHG_SYM_TRANSLATE) {
        *c = 0;
        *h = o;
        return;
    }
    *c = *h = 0;
    for (int k = 0; k < t->ndims; k++) {
        uint32_t x = xchg_topo_coord(t, o, k);
        *c += (x % sym->period[k]) * t->stride[k];
        *h += (x - x % sym->period[k]) * t->stride[k];
    }
}

/* The inverse of h (so that inv.(h.a) = a). */
static uint32_t inverse(const xchg_topo *t, const xchg_symmetry *sym, uint32_t h)
{
    if (sym->kind == XCHG_SYM_XOR)
        return h;
    if (sym->kind == XCHG_SYM_CYCLIC)
        return (t->nodes - h) % t->nodes;
    uint32_t r = 0;
    for (int k = 0; k < t->ndims; k++)
        r += ((t->size[k] - xchg_topo_coord(t, h, k)) % t->size[k]) * t->stride[k];
    return r;
}

static void check_symmetry(const char *alg, const char *tspec, const xchg_topo *t,
                           xchg_sched *s, const xchg_symmetry *sym)
{
    if (sym->kind == XCHG_SYM_NONE)
        return;
    xchg_follower *f = NULL;
    size_t ns = xchg_sched_nsteps(s);
    uint32_t *pa = malloc((ns + 1) * sizeof *pa), *pb = malloc((ns + 1) * sizeof *pb);
    if (xchg_follower_new(s, &f, NULL) || !pa || !pb) {
        CHECK(0, "%s on %s: follower", alg, tspec);
        goto out;
    }
    uint64_t bad = 0;
    for (uint32_t o = 0; o < t->nodes; o++) {
        uint32_t c, h;
        split(t, sym, o, &c, &h);
        uint32_t hinv = inverse(t, sym, h);
        for (uint32_t d = 0; d < t->nodes; d++) {
            xchg_follow_block(f, o, d, pa);
            xchg_follow_block(f, c, act(t, sym, hinv, d), pb);
            for (size_t k = 0; k <= ns; k++)
                bad += pa[k] != act(t, sym, h, pb[k]);
        }
    }
    CHECK(bad == 0, "%s on %s: the declared symmetry (kind %d) holds (%llu path entries differ)",
          alg, tspec, (int)sym->kind, (unsigned long long)bad);
out:
    free(pa);
    free(pb);
    xchg_follower_free(f);
}

/* Two programs of one node are the same, step by step. */
static int same_program(const xchg_rank *a, const xchg_rank *b)
{
    if (xchg_rank_nsteps(a) != xchg_rank_nsteps(b) ||
        xchg_rank_scratch_blocks(a) != xchg_rank_scratch_blocks(b))
        return 0;
    for (size_t k = 0; k < xchg_rank_nsteps(a); k++) {
        xchg_rank_step x, y;
        xchg_rank_step_get(a, k, &x);
        xchg_rank_step_get(b, k, &y);
        if (x.send_to != y.send_to || x.recv_from != y.recv_from || x.nsend != y.nsend ||
            x.nrecv != y.nrecv ||
            memcmp(x.send, y.send, x.nsend * sizeof *x.send) ||
            memcmp(x.recv, y.recv, x.nrecv * sizeof *x.recv) ||
            memcmp(x.send_loc, y.send_loc, x.nsend * sizeof *x.send_loc) ||
            memcmp(x.recv_loc, y.recv_loc, x.nrecv * sizeof *x.recv_loc))
            return 0;
    }
    return 1;
}

/* Buffers of block ids (origin * p + dest + 1; 0 = empty) for one node. */
typedef struct node_bufs {
    uint64_t *send, *recv, *scratch;
} node_bufs;

static uint64_t *place(node_bufs *b, xchg_loc loc)
{
    uint32_t slot = XCHG_LOC_SLOT(loc);
    switch (XCHG_LOC_WHERE(loc)) {
    case XCHG_LOC_SEND: return &b->send[slot];
    case XCHG_LOC_RECV: return &b->recv[slot];
    default: return &b->scratch[slot];
    }
}

/* Run every node's program on id buffers; count what goes wrong. */
static uint64_t run_all(xchg_rank **ranks, uint32_t p)
{
    uint64_t bad = 0;
    node_bufs *b = calloc(p, sizeof *b);
    uint64_t **msg = calloc(p, sizeof *msg);
    for (uint32_t n = 0; n < p; n++) {
        b[n].send = calloc(p, sizeof(uint64_t));
        b[n].recv = calloc(p, sizeof(uint64_t));
        b[n].scratch = calloc(xchg_rank_scratch_blocks(ranks[n]) + 1, sizeof(uint64_t));
        for (uint32_t d = 0; d < p; d++)
            b[n].send[d] = (uint64_t)n * p + d + 1;
        b[n].recv[n] = b[n].send[n]; /* the block that never moves */
    }
    size_t ns = xchg_rank_nsteps(ranks[0]);
    for (size_t k = 0; k < ns; k++) {
        /* every node packs: reading empties the place */
        for (uint32_t n = 0; n < p; n++) {
            xchg_rank_step st;
            xchg_rank_step_get(ranks[n], k, &st);
            free(msg[n]);
            msg[n] = calloc(st.nsend + 1, sizeof(uint64_t));
            for (size_t i = 0; i < st.nsend; i++) {
                uint64_t *at = place(&b[n], st.send_loc[i]);
                msg[n][i] = *at;
                bad += *at != (uint64_t)st.send[i].origin * p + st.send[i].dest + 1;
                *at = 0;
            }
        }
        /* every node unpacks what its sender packed, in message order */
        for (uint32_t n = 0; n < p; n++) {
            xchg_rank_step st, from;
            xchg_rank_step_get(ranks[n], k, &st);
            if (!st.nrecv)
                continue;
            xchg_rank_step_get(ranks[st.recv_from], k, &from);
            bad += from.send_to != n || from.nsend != st.nrecv;
            for (size_t i = 0; i < st.nrecv && i < from.nsend; i++) {
                uint64_t *at = place(&b[n], st.recv_loc[i]);
                bad += *at != 0; /* a place still holding a block */
                *at = msg[st.recv_from][i];
                bad += *at != (uint64_t)st.recv[i].origin * p + st.recv[i].dest + 1;
            }
        }
    }
    for (uint32_t n = 0; n < p; n++) {
        for (uint32_t o = 0; o < p; o++)
            bad += b[n].recv[o] != (uint64_t)o * p + n + 1;
        free(b[n].send);
        free(b[n].recv);
        free(b[n].scratch);
        free(msg[n]);
    }
    free(b);
    free(msg);
    return bad;
}

static void check_schedule(const char *alg, const char *tspec, const xchg_topo *t,
                           xchg_sched *s, void *ctx)
{
    (void)ctx;
    const xchg_alg *a = NULL;
    xchg_opts opts;
    if (xchg_alg_parse(alg, &a, &opts, NULL)) {
        CHECK(0, "%s parses", alg);
        return;
    }
    /* A padded schedule (pt4:virtual, ...) has no symmetry: its programs
     * follow every block, as T1's do. ring:5 and torus:3x5 run them here;
     * torus:4x4x4x4, hosting 8^4 for pt4, ptk and mtk, would only repeat
     * that path, slowly. */
    if (opts.virtual_nodes && t->nodes > 64)
        return;
    xchg_symmetry sym;
    xchg_alg_symmetry(a, t, &opts, &sym);
    check_symmetry(alg, tspec, t, s, &sym);

    uint32_t p = t->nodes;
    xchg_rank **ranks = calloc(p, sizeof *ranks);
    int made = 1, same = 1;
    uint32_t misnamed = 0; /* programs that name another node than theirs */
    for (uint32_t n = 0; n < p; n++) {
        xchg_err err;
        xchg_rank *plain = NULL;
        if (xchg_rank_new(s, &sym, n, &ranks[n], &err)) {
            CHECK(0, "%s on %s: node %u's program: %s", alg, tspec, (unsigned)n, err.msg);
            made = 0;
            break;
        }
        misnamed += xchg_rank_node(ranks[n]) != n;
        /* following every block costs p*p*steps a node: on larger networks
         * compare a few nodes only */
        int sample = p <= 64 || n == 0 || n == 1 || n == p / 2 || n == p - 1;
        if (sym.kind != XCHG_SYM_NONE && sample) {
            if (xchg_rank_new(s, NULL, n, &plain, &err) == 0)
                same &= same_program(ranks[n], plain);
            else
                same = 0;
            xchg_rank_free(plain);
        }
    }
    if (made) {
        CHECK(misnamed == 0, "%s on %s: %u programs name another node (xchg_rank_node)", alg,
              tspec, (unsigned)misnamed);
        CHECK(same, "%s on %s: programs through the symmetry equal those following every block",
              alg, tspec);
        uint64_t bad = run_all(ranks, p);
        CHECK(bad == 0, "%s on %s: running every node's program delivers every block (%llu wrong)",
              alg, tspec, (unsigned long long)bad);
    }
    for (uint32_t n = 0; n < p; n++)
        xchg_rank_free(ranks[n]);
    free(ranks);
}

static void check_errors(void)
{
    xchg_sched *s = check_generate("hypercube:3", "hc-standard");
    if (!s)
        return;
    xchg_rank *r = NULL;
    xchg_err err;
    CHECK(xchg_rank_new(s, NULL, 8, &r, &err) == XCHG_EINVAL && !r, "node 8 of 8 is refused");
    xchg_symmetry sym = {.kind = XCHG_SYM_TRANSLATE};
    CHECK(xchg_rank_new(s, &sym, 0, &r, &err) == XCHG_EINVAL && !r,
          "a translation symmetry with period 0 is refused: %s", err.msg);
    CHECK(xchg_rank_new(NULL, NULL, 0, &r, &err) == XCHG_EINVAL, "NULL schedule is refused");
    xchg_sched_free(s);

    /* hc-standard's XOR symmetry on a ring of 6 does not fit */
    s = check_generate("ring:6", "ring");
    sym.kind = XCHG_SYM_XOR;
    CHECK(s && xchg_rank_new(s, &sym, 0, &r, &err) == XCHG_EINVAL,
          "an XOR symmetry on 6 nodes is refused");
    xchg_sched_free(s);

    /* resolved symmetries */
    xchg_topo t = check_topo("torus:12x12x12");
    const xchg_alg *a = NULL;
    xchg_opts o;
    xchg_alg_parse("mt3", &a, &o, NULL);
    xchg_alg_symmetry(a, &t, &o, &sym);
    CHECK(sym.kind == XCHG_SYM_TRANSLATE && sym.period[0] == 6 && sym.period[2] == 6,
          "mt3 on torus:12x12x12 repeats every 6 nodes along each dimension");
    xchg_alg_parse("mt3:virtual", &a, &o, NULL);
    xchg_alg_symmetry(a, &t, &o, &sym);
    CHECK(sym.kind == XCHG_SYM_NONE, "a schedule hosted on virtual nodes claims no symmetry");
    t = check_topo("ring:12");
    xchg_alg_parse("pairwise", &a, &o, NULL);
    xchg_alg_symmetry(a, &t, &o, &sym);
    CHECK(sym.kind == XCHG_SYM_CYCLIC, "pairwise on 12 nodes shifts: cyclic");
    t = check_topo("ring:16");
    xchg_alg_symmetry(a, &t, &o, &sym);
    CHECK(sym.kind == XCHG_SYM_XOR, "pairwise on 16 nodes pairs by XOR");
}

/* A growing string the exporter writes into. */
typedef struct text {
    char data[1 << 14];
    size_t len;
} text;

static int put_text(void *ctx, const char *data, size_t len)
{
    text *t = ctx;
    if (t->len + len >= sizeof t->data)
        return 1;
    memcpy(t->data + t->len, data, len);
    t->len += len;
    return 0;
}

/* Per-rank programs exist for the complete exchange only: every other
 * operation's algorithm, generated or read back from its export, is
 * refused with EINVAL naming the operation, never derived as an exchange. */
static void check_ops_refused(void)
{
    size_t refused = 0;
    for (size_t i = 0; i < xchg_alg_count(); i++) {
        const xchg_alg *a = xchg_alg_at(i);
        if (a->op == XCHG_OP_ALLTOALL)
            continue;
        /* where it applies: the mesh ones on a mesh, the ring ones that
         * need one dimension on a ring, the tree's on a tree, the rest on a
         * hypercube */
        const char *tspec = strstr(a->name, "-mesh")   ? "mesh:2x4"
                            : strstr(a->name, "-ring") ? "ring:8"
                            : strstr(a->name, "-tree") ? "tree:3"
                                                       : "hypercube:3";
        xchg_sched *s = check_generate(tspec, a->name);
        if (!s)
            continue;
        xchg_rank *r = NULL;
        xchg_err err = {{0}};
        char want[128];
        snprintf(want, sizeof want, "%s performs %s, not the complete exchange", a->name,
                 xchg_op_name(a->op));
        CHECK(xchg_rank_new(s, NULL, 1, &r, &err) == XCHG_EINVAL && !r &&
                  strstr(err.msg, want),
              "%s: refused: %s", a->name, err.msg);
        refused++;
        if (a->op == XCHG_OP_BCAST && !strcmp(a->name, "bcast-hc")) {
            text t = {.len = 0};
            xchg_sched *back = NULL;
            CHECK(xchg_export(s, "json", 0, put_text, &t, &err) == XCHG_OK &&
                      xchg_import(t.data, t.len, NULL, &back, &err) == XCHG_OK,
                  "bcast-hc: export and import: %s", err.msg);
            CHECK(back && xchg_rank_new(back, NULL, 0, &r, &err) == XCHG_EINVAL &&
                      strstr(err.msg, "bcast-hc performs bcast, not the complete exchange"),
                  "an imported bcast is refused: %s", err.msg);
            xchg_sched_free(back);
        }
        xchg_sched_free(s);
    }
    CHECK(refused >= 10, "only %zu operations' algorithms tried", refused);
}

int main(void)
{
    for (int i = 0; topologies[i]; i++)
        check_each_schedule(topologies[i], check_schedule, NULL);
    check_errors();
    check_ops_refused();
    return check_finish("test_rank");
}
