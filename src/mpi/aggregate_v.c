/*
 * aggregate_v.c - the node-aware exchange of variable blocks
 * (MPI_Alltoallv, MPI_Alltoallw) by locality-aware aggregation: the
 * scheme of aggregate.c (docs/clusters.md) with each call's block sizes
 * (vgeom.c), forced with the spec "aggregate" or auto's choice on ranks of
 * several nodes (choose_v.c, auto_nodes.c; docs/alltoallv.md).
 *
 * With N nodes, node n holding K_n ranks (K at most: places padded to K),
 * place l of node n owns the nodes b with b mod K_n = l, in slot t = b /
 * K_n of O = ceil(N / K_n) slots (as aggregate.c). No rank knows the size
 * of a block it neither sends nor receives, so:
 *   0. Counts: each place s of node n tells each owner place d of its node
 *      the bytes it sends to, and receives from, every place of every node
 *      d owns: 2 x O x K 64-bit words to each place of its node, one
 *      fixed-size exchange on the node's communicator (xchg's own, through
 *      the one call path: auto's choice on one node, the shared segment
 *      where memory is shared once it has paid for itself).
 *      Every owner then knows every size it forwards and receives: no
 *      headers, no MPI_Probe.
 *   1. Within the node: to each place d go this rank's blocks for every
 *      rank of the nodes d owns (slot by slot, place by place) and its one
 *      block for d itself, which is final: xchg's alltoallv on the node's
 *      communicator (MPI_Count counts and MPI_Aint displacements of bytes,
 *      computed locally; the _c form, so no int truncation).
 *   2. Between nodes: each rank sends each node b it owns (but its own) one
 *      message holding every block from the places here to the places
 *      there, to the rank of b that owns n, and receives the same from it
 *      (MPI_Isend and MPI_Irecv on the communicator's duplicate, in pieces
 *      of at most 1 GiB); a node pair with nothing to move sends nothing,
 *      since both ends know the pair's total from step 0.
 *   3. Within the node: each owner sends each place j the blocks bound to
 *      j from every node it owns (xchg's alltoallv on the node again); j
 *      knows their sizes from its own receive counts.
 * Messages: between nodes at most N - 1 leave a node (one per node pair
 * with bytes), each rank starting ceil((N - 1) / K_n) or fewer; within the
 * node three exchanges (one of 16 O K bytes a pair, two of the call's
 * bytes), each skipping its empty pairs. Copies: four passes over a rank's
 * blocks (packing 1, laying 2's messages out, packing 3, unpacking 3) and
 * one of the blocks from its own node's places (home from step 1); a block
 * of a derived type is packed or unpacked once more (vgeom.c). A copy
 * that continues the one before it at both ends is joined to it, so
 * blocks in rank order move in one copy a run of ranks. Scratch: sized
 * per call from step 0's counts, in the plan's own buffer (grown on
 * demand, this rank's alone: no collective). In place is safe without
 * staging, since every block to send is packed (step 1) before any is
 * received.
 * A rank that cannot get its scratch returns MPI_ERR_NO_MEM; as with any
 * error inside a collective, the others' calls may then not complete.
 */
#include "mpi/call.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One call's figures, and where its tables and data lie in the plan's
 * buffer. */
typedef struct agg_v {
    /* the node map's figures for this rank */
    size_t K, N, n, l, Kn, O, W; /* W: words one place tells one owner */
    uint64_t *mine, *theirs;     /* step 0: [d][2][t][j] out, [s][2][t][j] in */
    size_t *run;                 /* step 1 recv region of place s: [s] */
    size_t *out2, *in2;          /* step 2 bytes to and from slot t: [t] */
    size_t *cur;                 /* a cursor a place: [Kn] */
    MPI_Count *sc, *rc;          /* a node exchange's counts: [Kn] each */
    MPI_Aint *sd, *rd;           /* ... and displacements */
    MPI_Request *reqs;
    MPI_Status *statuses;        /* as many: MPICH's MPI_STATUSES_IGNORE
                                    is a pointer GCC's checks refuse */
    unsigned char *x, *y;        /* the two data buffers */
} agg_v;

/* Bytes rank r of the communicator sends (to 1: receives from) this rank,
 * or 0 for a padded place (r < 0). */
static size_t len_of(const xchg_mpi_vgeom *g, int r, int recv)
{
    return r < 0 ? 0 : recv ? g->rlen[r] : g->slen[r];
}

/* Room for bytes at *at (a 64-byte boundary), advancing *at: the offset. */
static size_t take(size_t *at, size_t bytes)
{
    size_t o = *at == SIZE_MAX ? SIZE_MAX : (*at + 63) / 64 * 64;
    *at = xchg_mpi_add(o, bytes);
    return o;
}

/* The plan's buffer of at least n bytes (grown, kept), or NULL. */
static unsigned char *plan_buffer(xchg_mpi_plan *pl, size_t n)
{
    unsigned char *b = xchg_mpi_grow(pl->vbuf, &pl->vbuf_bytes, n);
    return b ? pl->vbuf = b : NULL;
}

/* Point a's tables into the plan's buffer (their sizes depend on the node
 * map alone) and say where the data starts (*data). 0, or -1 without
 * memory. */
static int tables(xchg_mpi_plan *pl, agg_v *a, size_t *data)
{
    size_t at = 0, words = xchg_mpi_mul(a->Kn, a->W);
    size_t o_mine = take(&at, xchg_mpi_mul(words, sizeof(uint64_t)));
    size_t o_theirs = take(&at, xchg_mpi_mul(words, sizeof(uint64_t)));
    size_t o_run = take(&at, a->Kn * sizeof(size_t));
    size_t o_out2 = take(&at, a->O * sizeof(size_t));
    size_t o_in2 = take(&at, a->O * sizeof(size_t));
    size_t o_cur = take(&at, a->Kn * sizeof(size_t));
    size_t o_sc = take(&at, a->Kn * sizeof(MPI_Count));
    size_t o_rc = take(&at, a->Kn * sizeof(MPI_Count));
    size_t o_sd = take(&at, a->Kn * sizeof(MPI_Aint));
    size_t o_rd = take(&at, a->Kn * sizeof(MPI_Aint));
    unsigned char *b = plan_buffer(pl, at);
    if (!b)
        return -1;
    a->mine = (uint64_t *)(void *)(b + o_mine);
    a->theirs = (uint64_t *)(void *)(b + o_theirs);
    a->run = (size_t *)(void *)(b + o_run);
    a->out2 = (size_t *)(void *)(b + o_out2);
    a->in2 = (size_t *)(void *)(b + o_in2);
    a->cur = (size_t *)(void *)(b + o_cur);
    a->sc = (MPI_Count *)(void *)(b + o_sc);
    a->rc = (MPI_Count *)(void *)(b + o_rc);
    a->sd = (MPI_Aint *)(void *)(b + o_sd);
    a->rd = (MPI_Aint *)(void *)(b + o_rd);
    *data = at;
    return 0;
}

/* A copying pass that joins a copy continuing the one before it at both
 * ends into one: blocks that lie in rank order in the user's buffers (as
 * they usually do) move in one copy a node's run of ranks, not one a
 * block, as aggregate.c's node_row. */
typedef struct joined {
    unsigned char *to;
    const unsigned char *from;
    size_t n;
    xchg_mpi_tally tally;
} joined;

/* Copy n bytes from `from` to `to` (n 0: nothing), joined to the last. */
static void join(joined *j, unsigned char *to, const unsigned char *from, size_t n)
{
    if (n == 0)
        return;
    if (j->n && j->to + j->n == to && j->from + j->n == from) {
        j->n += n;
        return;
    }
    if (j->n)
        xchg_mpi_copy(j->to, j->from, j->n, &j->tally);
    j->to = to, j->from = from, j->n = n;
}

/* The pass's last copy, and its charge. */
static void join_end(joined *j)
{
    if (j->n)
        xchg_mpi_copy(j->to, j->from, j->n, &j->tally);
    j->n = 0;
    xchg_mpi_charge_tally(&j->tally);
}

/* The node b of slot t owned by place d, or N when there is none (past
 * the last node, or this rank's own node). */
static size_t owned(const agg_v *a, size_t t, size_t d)
{
    size_t b = t * a->Kn + d;
    return b < a->N && b != a->n ? b : a->N;
}

/* Step 0's words: what this rank sends to (S) and receives from (R)
 * every place of the nodes each place d of its node owns. */
static void count_words(const xchg_mpi_node_map *m, const agg_v *a, const xchg_mpi_vgeom *g)
{
    memset(a->mine, 0, a->Kn * a->W * sizeof(uint64_t));
    for (size_t d = 0; d < a->Kn; d++)
        for (size_t t = 0; t < a->O; t++) {
            size_t b = owned(a, t, d);
            for (size_t j = 0; b < a->N && j < (size_t)m->size_of[b]; j++) {
                int r = m->rank_of[b * a->K + j];
                a->mine[d * a->W + t * a->K + j] = len_of(g, r, 0);
                a->mine[d * a->W + (a->O + t) * a->K + j] = len_of(g, r, 1);
            }
        }
}

/* S[s][t][j]: bytes place s here sends to place j of the node this rank
 * owns in slot t; R likewise, received. */
static size_t S_of(const agg_v *a, size_t s, size_t t, size_t j)
{
    return (size_t)a->theirs[s * a->W + t * a->K + j];
}
static size_t R_of(const agg_v *a, size_t s, size_t t, size_t j)
{
    return (size_t)a->theirs[s * a->W + (a->O + t) * a->K + j];
}

/* xchg's alltoallv of bytes on this node's communicator, through the one
 * call path, with pl's tuning and machine files; a's counts and
 * displacements. An MPI error code. */
static int node_v(const xchg_mpi_plan *pl, const agg_v *a, const unsigned char *s,
                  unsigned char *r)
{
    const xchg_mpi_inputs *in = pl->key.set->in;
    xchg_mpi_opts o = {.alg = "auto",
                       .topology = "auto",
                       .tuning_file = in->tuning_path,
                       .machine_file = in->machine_path};
    xchg_mpi_opargs op = {.kind = XCHG_MPI_OP_ALLTOALLV,
                          .sendbuf = s,
                          .recvbuf = r,
                          .stype = MPI_BYTE,
                          .rtype = MPI_BYTE,
                          .comm = pl->cs->nodes.node_comm,
                          .opts = &o,
                          .inner = 1,
                          .scounts = a->sc,
                          .sdispls = a->sd,
                          .rcounts = a->rc,
                          .rdispls = a->rd,
                          .wide = 1};
    int rc = xchg_mpi_call_checked(&op);
    xchg_mpi_remember(pl);
    return rc;
}

/* Counts to displacements for one side of a node exchange: the total. */
static size_t displs(const MPI_Count *c, MPI_Aint *d, size_t n)
{
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        d[i] = (MPI_Aint)at;
        at = xchg_mpi_add(at, (size_t)c[i]);
    }
    return at;
}

/* The step-1 send of this rank to place d: its blocks for the nodes d
 * owns ([t][j]), then its block for d itself (none for itself). */
static size_t send1(const xchg_mpi_node_map *m, const agg_v *a, const xchg_mpi_vgeom *g,
                    size_t d)
{
    size_t bytes = 0;
    for (size_t i = 0; i < a->O * a->K; i++)
        bytes = xchg_mpi_add(bytes, (size_t)a->mine[d * a->W + i]);
    return d == a->l ? bytes : xchg_mpi_add(bytes, len_of(g, m->rank_of[a->n * a->K + d], 0));
}

/* Step 1's packing into y at a's send displacements. */
static void pack_owned(const xchg_mpi_node_map *m, const agg_v *a, const xchg_mpi_vgeom *g)
{
    joined cp = {0};
    for (size_t d = 0; d < a->Kn; d++) {
        unsigned char *to = a->y + a->sd[d];
        for (size_t t = 0; t < a->O; t++) {
            size_t b = owned(a, t, d);
            for (size_t j = 0; b < a->N && j < (size_t)m->size_of[b]; j++) {
                int r = m->rank_of[b * a->K + j];
                join(&cp, to, g->sp[r], g->slen[r]);
                to += g->slen[r];
            }
        }
        int r = m->rank_of[a->n * a->K + d];
        if (d != a->l)
            join(&cp, to, g->sp[r], g->slen[r]);
    }
    join_end(&cp);
}

/* Step 2: lay the messages out by node from x (step 1's result) into y,
 * post them and their counterparts (received into x), and wait. An MPI
 * error code. */
static int between_nodes(xchg_mpi_plan *pl, const agg_v *a)
{
    const xchg_mpi_node_map *m = &pl->cs->nodes;
    joined cp = {0};
    for (size_t s = 0; s < a->Kn; s++)
        a->cur[s] = (size_t)a->rd[s];
    unsigned char *to = a->y;
    for (size_t t = 0; t < a->O; t++) /* [t][s][j] from x's [s][t][j] */
        for (size_t s = 0; s < a->Kn; s++) {
            size_t bytes = 0, b = owned(a, t, a->l);
            for (size_t j = 0; b < a->N && j < (size_t)m->size_of[b]; j++)
                bytes += S_of(a, s, t, j);
            join(&cp, to, a->x + a->cur[s], bytes);
            to += bytes;
            a->cur[s] += bytes;
        }
    join_end(&cp);
    size_t nreq = 0, sat = 0, rat = 0;
    int rc = MPI_SUCCESS;
    for (size_t t = 0; t < a->O && rc == MPI_SUCCESS; t++) {
        size_t b = owned(a, t, a->l);
        if (b == a->N)
            continue;
        int peer = m->rank_of[b * a->K + a->n % (size_t)m->size_of[b]];
        if (a->in2[t])
            rc = xchg_mpi_post(pl->cs->comm, 1, a->x + rat, a->in2[t], peer, a->reqs, &nreq);
        rat += a->in2[t];
    }
    for (size_t t = 0; t < a->O && rc == MPI_SUCCESS; t++) {
        size_t b = owned(a, t, a->l);
        if (b == a->N)
            continue;
        int peer = m->rank_of[b * a->K + a->n % (size_t)m->size_of[b]];
        if (a->out2[t])
            rc = xchg_mpi_post(pl->cs->comm, 0, a->y + sat, a->out2[t], peer, a->reqs, &nreq);
        sat += a->out2[t];
    }
    int wrc = nreq ? MPI_Waitall((int)nreq, a->reqs, a->statuses) : MPI_SUCCESS;
    return rc == MPI_SUCCESS ? wrc : rc;
}

/* Step 3's packing into y: to place j (at a's send displacements), for
 * each slot t the blocks from every place s of node b (x: step 2's
 * messages, each [s][j]). */
static void pack_arrived(const xchg_mpi_node_map *m, const agg_v *a)
{
    joined cp = {0};
    for (size_t j = 0; j < a->Kn; j++)
        a->cur[j] = (size_t)a->sd[j];
    size_t at = 0;
    for (size_t t = 0; t < a->O; t++) {
        size_t b = owned(a, t, a->l);
        for (size_t s = 0; b < a->N && s < (size_t)m->size_of[b]; s++)
            for (size_t j = 0; j < a->Kn; j++) {
                size_t bytes = R_of(a, j, t, s);
                join(&cp, a->y + a->cur[j], a->x + at, bytes);
                a->cur[j] += bytes;
                at += bytes;
            }
    }
    join_end(&cp);
}

/* Step 3's result in x (from owner d at a's receive displacements: [t][s])
 * home, to each block's place in the receive buffer (or staging). */
static void unpack_arrived(const xchg_mpi_node_map *m, const agg_v *a, const xchg_mpi_vgeom *g)
{
    joined cp = {0};
    for (size_t d = 0; d < a->Kn; d++) {
        const unsigned char *from = a->x + a->rd[d];
        for (size_t t = 0; t < a->O; t++) {
            size_t b = owned(a, t, d);
            for (size_t s = 0; b < a->N && s < (size_t)m->size_of[b]; s++) {
                int r = m->rank_of[b * a->K + s];
                join(&cp, g->rp[r], from, g->rlen[r]);
                from += g->rlen[r];
            }
        }
    }
    join_end(&cp);
}

/* Steps 0-3 (the top of the file) on g's blocks. An MPI error code. */
static int run(xchg_mpi_plan *pl, const xchg_mpi_vgeom *g)
{
    const xchg_mpi_node_map *m = &pl->cs->nodes;
    agg_v a = {.K = (size_t)m->most,
               .N = (size_t)m->nnodes,
               .n = (size_t)m->node,
               .l = (size_t)m->local,
               .Kn = (size_t)m->size_of[m->node]};
    a.O = (a.N + a.Kn - 1) / a.Kn;
    a.W = 2 * a.O * a.K;
    size_t data = 0;
    if (tables(pl, &a, &data))
        return MPI_ERR_NO_MEM;
    /* 0: the counts */
    count_words(m, &a, g);
    int rc = xchg_mpi_hier_exchange(pl, m->node_comm, "auto", "auto",
                                    (const unsigned char *)a.mine, (unsigned char *)a.theirs,
                                    a.W * sizeof(uint64_t));
    if (rc != MPI_SUCCESS)
        return rc;
    /* every size this call needs, and the scratch for it */
    size_t y1 = 0, x1 = 0, y2 = 0, x2 = 0, y3 = 0, x3 = 0, pieces = 0;
    for (size_t d = 0; d < a.Kn; d++) {
        size_t s1 = send1(m, &a, g, d), r1 = 0, s3 = 0, r3 = 0;
        for (size_t t = 0; t < a.O; t++) {
            size_t b = owned(&a, t, a.l), bd = owned(&a, t, d);
            for (size_t j = 0; b < a.N && j < (size_t)m->size_of[b]; j++) {
                r1 = xchg_mpi_add(r1, S_of(&a, d, t, j));
                s3 = xchg_mpi_add(s3, R_of(&a, d, t, j));
            }
            for (size_t j = 0; bd < a.N && j < (size_t)m->size_of[bd]; j++)
                r3 = xchg_mpi_add(r3, len_of(g, m->rank_of[bd * a.K + j], 1));
        }
        if (d != a.l)
            r1 = xchg_mpi_add(r1, len_of(g, m->rank_of[a.n * a.K + d], 1));
        a.run[d] = r1;
        y1 = xchg_mpi_add(y1, s1), x1 = xchg_mpi_add(x1, r1);
        y3 = xchg_mpi_add(y3, s3), x3 = xchg_mpi_add(x3, r3);
    }
    for (size_t t = 0; t < a.O; t++) {
        size_t b = owned(&a, t, a.l), o = 0, i = 0;
        for (size_t s = 0; s < a.Kn; s++)
            for (size_t j = 0; b < a.N && j < (size_t)m->size_of[b]; j++) {
                o = xchg_mpi_add(o, S_of(&a, s, t, j));
                i = xchg_mpi_add(i, R_of(&a, s, t, j));
            }
        a.out2[t] = o, a.in2[t] = i;
        y2 = xchg_mpi_add(y2, o), x2 = xchg_mpi_add(x2, i);
        pieces += (o ? xchg_mpi_pieces(o) : 0) + (i ? xchg_mpi_pieces(i) : 0);
    }
    size_t X = x1 > x2 ? x1 : x2, Y = y1 > y2 ? y1 : y2;
    X = X > x3 ? X : x3, Y = Y > y3 ? Y : y3;
    size_t at = data;
    size_t o_reqs = take(&at, xchg_mpi_mul(pieces, sizeof(MPI_Request)));
    size_t o_stat = take(&at, xchg_mpi_mul(pieces, sizeof(MPI_Status)));
    /* never empty: x and y must differ even where nothing moves (an
     * exchange from a buffer into itself is MPI_ERR_BUFFER) */
    size_t o_x = take(&at, X ? X : 1), o_y = take(&at, Y ? Y : 1);
    at = xchg_mpi_add(at, 64);
    if (at == SIZE_MAX || X == SIZE_MAX || Y == SIZE_MAX)
        return MPI_ERR_COUNT;
    /* the tables move with the buffer when it grows */
    unsigned char *old = pl->vbuf, *b = plan_buffer(pl, at);
    if (!b)
        return MPI_ERR_NO_MEM;
    if (b != old && tables(pl, &a, &data))
        return MPI_ERR_NO_MEM;
    a.reqs = (MPI_Request *)(void *)(b + o_reqs);
    a.statuses = (MPI_Status *)(void *)(b + o_stat);
    a.x = b + o_x, a.y = b + o_y;
    /* 1: within the node */
    for (size_t d = 0; d < a.Kn; d++) {
        a.sc[d] = (MPI_Count)send1(m, &a, g, d);
        a.rc[d] = (MPI_Count)a.run[d];
    }
    displs(a.sc, a.sd, a.Kn);
    displs(a.rc, a.rd, a.Kn);
    pack_owned(m, &a, g);
    if ((rc = node_v(pl, &a, a.y, a.x)) != MPI_SUCCESS)
        return rc;
    /* the blocks from this node's places, final now (before x is reused) */
    joined cp = {0};
    for (size_t s = 0; s < a.Kn; s++) {
        int r = m->rank_of[a.n * a.K + s];
        size_t bytes = s == a.l ? 0 : g->rlen[r];
        join(&cp, g->rp[r], a.x + a.rd[s] + a.run[s] - bytes, bytes);
    }
    join_end(&cp);
    /* 2: between nodes */
    if ((rc = between_nodes(pl, &a)) != MPI_SUCCESS)
        return rc;
    /* 3: within the node */
    for (size_t d = 0; d < a.Kn; d++) {
        size_t s3 = 0, r3 = 0;
        for (size_t t = 0; t < a.O; t++) {
            size_t b2 = owned(&a, t, a.l), bd = owned(&a, t, d);
            for (size_t j = 0; b2 < a.N && j < (size_t)m->size_of[b2]; j++)
                s3 += R_of(&a, d, t, j);
            for (size_t j = 0; bd < a.N && j < (size_t)m->size_of[bd]; j++)
                r3 += len_of(g, m->rank_of[bd * a.K + j], 1);
        }
        a.sc[d] = (MPI_Count)s3, a.rc[d] = (MPI_Count)r3;
    }
    displs(a.sc, a.sd, a.Kn);
    displs(a.rc, a.rd, a.Kn);
    pack_arrived(m, &a);
    if ((rc = node_v(pl, &a, a.y, a.x)) != MPI_SUCCESS)
        return rc;
    unpack_arrived(m, &a, g);
    return MPI_SUCCESS;
}

int xchg_mpi_aggregate_v_run(xchg_mpi_plan *pl, const xchg_mpi_bufs *b)
{
    xchg_mpi_vgeom g;
    int rc = xchg_mpi_vgeom_begin(pl->cs, b, 0, &g);
    if (rc == MPI_SUCCESS)
        rc = run(pl, &g);
    if (rc == MPI_SUCCESS)
        rc = xchg_mpi_vgeom_end(pl->cs, b, &g);
    return rc;
}

int xchg_mpi_aggregate_v_choose(xchg_mpi_plan *pl)
{
    const xchg_mpi_node_map *m;
    int rc = xchg_mpi_aggregate_begin(pl, &m);
    if (rc != MPI_SUCCESS || !m)
        return rc;
    size_t O = ((size_t)m->nnodes + (size_t)m->fewest - 1) / (size_t)m->fewest;
    snprintf(pl->info.why, sizeof pl->info.why,
             "asked for: %d nodes of %d%s ranks (%s), every rank sending up to %zu of its node's "
             "messages to other nodes directly, their sizes exchanged within the node first",
             m->nnodes, m->most, m->fewest != m->most ? " or fewer" : "", m->by, O);
    return MPI_SUCCESS;
}
