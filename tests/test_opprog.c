/*
 * test_opprog.c - one rank's program for an operation (xchg_op_program_new,
 * src/rank/op_program.c), proved by a reference executor that runs all p
 * ranks' programs in memory on real bytes and compares what every rank ends
 * with to the operation's definition, computed directly.
 *
 * A block is W words: two 2x2 matrices. Two operators: addition of every
 * word (commutative) and the product of each 2x2 matrix mod a prime (not
 * commutative: x0 x1 differs from x1 x0). The program's combinations say
 * whether they keep rank order (xchg_op_program_order_ok); where they do,
 * the matrix product must be MPI's; where one does not, the flag must say so
 * and the product, run anyway, must come out wrong. Every algorithm of every
 * operation the registry has (not the exchange), with each of its variants,
 * on rings, arrays, meshes, tori, hypercubes and a switch, over several
 * roots and shifts; the split algorithms cut the data into p blocks. Which
 * algorithms keep rank order on which topologies is a table here
 * (order_table), asserted for every schedule run, so that a generator whose
 * order changes fails, and so that every new algorithm needs a row.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sched/sched_internal.h"
#include "xchg.h"

#define W 8 /* words in a block: two 2x2 matrices */
#define PRIME 1000003u

typedef void (*op_fn)(const uint32_t *a, const uint32_t *b, uint32_t *out);

/* out = a + b, word by word (mod 2^32). */
static void op_add(const uint32_t *a, const uint32_t *b, uint32_t *out)
{
    for (int i = 0; i < W; i++)
        out[i] = a[i] + b[i];
}

/* out = a * b for each 2x2 matrix, mod PRIME: associative, not commutative. */
static void op_mat(const uint32_t *a, const uint32_t *b, uint32_t *out)
{
    uint32_t t[W];
    for (int m = 0; m < W; m += 4)
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < 2; j++) {
                uint64_t v =
                    (uint64_t)a[m + 2 * i] * b[m + j] + (uint64_t)a[m + 2 * i + 1] * b[m + 2 + j];
                t[m + 2 * i + j] = (uint32_t)(v % PRIME);
            }
    memcpy(out, t, sizeof t);
}

/* Input word w of block i of rank r: a fixed pseudo-random value < PRIME. */
static uint32_t input_word(uint32_t r, uint32_t i, int w)
{
    uint64_t z = ((uint64_t)r * 1000003u + i) * 16 + (uint64_t)w + 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return (uint32_t)((z ^ (z >> 31)) % PRIME);
}

static void input_block(uint32_t r, uint32_t i, uint32_t *out)
{
    for (int w = 0; w < W; w++)
        out[w] = input_word(r, i, w);
}

/* The operations whose input is p blocks per rank (block d for dest d). */
static int input_per_dest(xchg_op_kind k)
{
    return k == XCHG_OP_REDUCE_SCATTER || k == XCHG_OP_SCATTER || k == XCHG_OP_ALLTOALL;
}

/* The operations whose output is a block per origin. */
static int output_per_origin(xchg_op_kind k)
{
    return k == XCHG_OP_ALLGATHER || k == XCHG_OP_GATHER || k == XCHG_OP_ALLTOALL;
}

/* The run of one schedule: every rank's program and slots. */
typedef struct run {
    const xchg_sched *s;
    uint32_t p;
    xchg_op op;      /* the schedule's operation */
    uint32_t pieces; /* 1, or p for the split algorithms */
    xchg_op_program **prog;
    uint32_t **slot; /* per rank: nslots * W words */
    int order_ok;    /* every rank's program keeps rank order */
} run;

static void run_free(run *r)
{
    for (uint32_t i = 0; r->prog && i < r->p; i++) {
        xchg_op_program_free(r->prog[i]);
        free(r->slot[i]);
    }
    free(r->prog);
    free(r->slot);
}

/* Build every rank's program; 0 on success (a failed check otherwise). */
static int run_init(run *r, const xchg_sched *s, const char *what)
{
    memset(r, 0, sizeof *r);
    r->s = s;
    r->p = xchg_sched_topo(s)->nodes;
    xchg_sched_op(s, &r->op);
    r->pieces = r->op.pieces > 1 ? r->op.pieces : 1;
    r->prog = calloc(r->p, sizeof *r->prog);
    r->slot = calloc(r->p, sizeof *r->slot);
    r->order_ok = 1;
    for (uint32_t i = 0; i < r->p; i++) {
        xchg_err err = {{0}};
        int rc = xchg_op_program_new(s, i, &r->prog[i], &err);
        CHECK(rc == XCHG_OK, "%s: rank %u's program: %d %s", what, i, rc, err.msg);
        if (rc != XCHG_OK)
            return -1;
        CHECK(xchg_op_program_nsteps(r->prog[i]) == xchg_sched_nsteps(s) &&
                  xchg_op_program_nphases(r->prog[i]) == xchg_sched_nphases(s),
              "%s: rank %u's program has %zu steps in %zu phases, the schedule %zu in %zu", what,
              i, xchg_op_program_nsteps(r->prog[i]), xchg_op_program_nphases(r->prog[i]),
              xchg_sched_nsteps(s), xchg_sched_nphases(s));
        CHECK(xchg_op_program_rank(r->prog[i]) == i,
              "%s: rank %u's program names rank %u (xchg_op_program_rank)", what, i,
              xchg_op_program_rank(r->prog[i]));
        r->slot[i] = calloc(xchg_op_program_nslots(r->prog[i]) * W + 1, sizeof **r->slot);
        r->order_ok &= xchg_op_program_order_ok(r->prog[i]) != 0;
    }
    return 0;
}

static uint32_t *slot_of(run *r, uint32_t rank, uint32_t slot)
{
    return r->slot[rank] + (size_t)slot * W;
}

/* Nonzero when two pieces cover the same tokens. */
static int same_tokens(const xchg_op_piece *a, const xchg_op_piece *b)
{
    if (a->ntokens != b->ntokens || a->norigins != b->norigins)
        return 0;
    for (size_t i = 0; i < a->ntokens; i++)
        if (a->tokens[i].origin != b->tokens[i].origin || a->tokens[i].dest != b->tokens[i].dest)
            return 0;
    return 1;
}

/* Fill the start pieces of phase k: from the input (phase 0: block d of
 * the rank's input for a token of dest d where the phase's operation takes
 * a block per dest, else its block 0) or from the rank's one result piece of
 * phase k-1 (what one phase leaves at node j is what the next starts with
 * at origin j). */
static void fill_start(run *r, size_t k, const char *what)
{
    xchg_op ph;
    size_t a, b;
    xchg_sched_phase(r->s, k, &ph, &a, &b);
    for (uint32_t i = 0; i < r->p; i++) {
        const xchg_op_piece *st, *res;
        size_t n, nres;
        xchg_op_program_start(r->prog[i], k, &st, &n);
        if (k == 0) {
            for (size_t j = 0; j < n; j++)
                input_block(i, input_per_dest(ph.kind) ? st[j].dest : 0, slot_of(r, i, st[j].slot));
            continue;
        }
        xchg_op_program_result(r->prog[i], k - 1, &res, &nres);
        CHECK(nres == 1 || n == 0, "%s: rank %u ends phase %zu with %zu pieces", what, i, k - 1,
              nres);
        for (size_t j = 0; j < n && nres == 1; j++)
            memcpy(slot_of(r, i, st[j].slot), slot_of(r, i, res[0].slot), W * sizeof(uint32_t));
    }
}

/* Run step st on every rank: each message's pieces copied from the sender's
 * slots to the receiver's (sender and receiver must agree on partner and
 * pieces), then each rank's combinations with operator fn. Returns the
 * number of disagreements. */
static int run_step(run *r, size_t st, op_fn fn, const char *what)
{
    int bad = 0;
    uint32_t *got = calloc(r->p, sizeof *got);
    for (uint32_t i = 0; i < r->p; i++) {
        xchg_op_step a, b;
        xchg_op_program_step(r->prog[i], st, &a);
        if (a.send_to == XCHG_NONE)
            continue;
        xchg_op_program_step(r->prog[a.send_to], st, &b);
        int agree = b.recv_from == i && b.nrecv == a.nsend;
        for (size_t j = 0; agree && j < a.nsend; j++)
            agree = same_tokens(&a.send[j], &b.recv[j]);
        CHECK(agree, "%s: step %zu: %u sends %zu pieces to %u, which receives %zu from %u", what,
              st, i, a.nsend, a.send_to, b.nrecv, b.recv_from);
        bad += !agree;
        for (size_t j = 0; agree && j < a.nsend; j++)
            memcpy(slot_of(r, a.send_to, b.recv[j].slot), slot_of(r, i, a.send[j].slot),
                   W * sizeof(uint32_t));
        got[a.send_to] = 1;
    }
    for (uint32_t i = 0; i < r->p; i++) {
        xchg_op_step a;
        xchg_op_program_step(r->prog[i], st, &a);
        if (a.recv_from != XCHG_NONE && !got[i]) {
            CHECK(0, "%s: step %zu: %u waits for %u, which sends it nothing", what, st, i,
                  a.recv_from);
            bad++;
        }
        for (size_t j = 0; j < a.ncombine; j++) {
            const xchg_op_combine *c = &a.combine[j];
            uint32_t *h = slot_of(r, i, c->held), *v = slot_of(r, i, c->recv);
            if (c->recv_first)
                fn(v, h, slot_of(r, i, c->out));
            else
                fn(h, v, slot_of(r, i, c->out));
        }
    }
    free(got);
    return bad;
}

/* What rank i must end with by the operation's definition: *nout blocks
 * into out (room for p * pieces blocks). */
static void expected(const run *r, op_fn fn, uint32_t i, uint32_t *out, size_t *nout)
{
    uint32_t p = r->p, P = r->pieces, q = r->op.shift, root = r->op.root;
    uint32_t blk[W];
    *nout = 0;
    switch (r->op.kind) {
    case XCHG_OP_BCAST:
        for (uint32_t j = 0; j < P; j++)
            input_block(root, j, out + (size_t)j * W);
        *nout = P;
        break;
    case XCHG_OP_REDUCE:
    case XCHG_OP_ALLREDUCE:
        if (r->op.kind == XCHG_OP_REDUCE && i != root)
            break;
        for (uint32_t j = 0; j < P; j++) {
            input_block(0, j, out + (size_t)j * W);
            for (uint32_t o = 1; o < p; o++) {
                input_block(o, j, blk);
                fn(out + (size_t)j * W, blk, out + (size_t)j * W);
            }
        }
        *nout = P;
        break;
    case XCHG_OP_REDUCE_SCATTER:
    case XCHG_OP_SCAN:
        input_block(0, r->op.kind == XCHG_OP_SCAN ? 0 : i, out);
        for (uint32_t o = 1; o < (r->op.kind == XCHG_OP_SCAN ? i + 1 : p); o++) {
            input_block(o, r->op.kind == XCHG_OP_SCAN ? 0 : i, blk);
            fn(out, blk, out);
        }
        *nout = 1;
        break;
    case XCHG_OP_ALLGATHER:
    case XCHG_OP_GATHER:
        if (r->op.kind == XCHG_OP_GATHER && i != root)
            break;
        for (uint32_t o = 0; o < p; o++)
            input_block(o, 0, out + (size_t)o * W);
        *nout = p;
        break;
    case XCHG_OP_SCATTER:
        input_block(root, i, out);
        *nout = 1;
        break;
    case XCHG_OP_SHIFT:
        input_block((uint32_t)(((uint64_t)i + p - q) % p), 0, out);
        *nout = 1;
        break;
    default:
        for (uint32_t o = 0; o < p; o++)
            input_block(o, i, out + (size_t)o * W);
        *nout = p;
        break;
    }
}

/*
 * Run schedule s on every rank with operator fn and compare each rank's
 * result (the last phase's result pieces, placed by origin where the
 * operation's output is a block per origin) with the definition. Returns
 * the number of ranks whose result differs (-1 when it could not run);
 * *order_ok gets whether every program keeps rank order. The caller
 * decides what it expects.
 */
static int run_schedule(const xchg_sched *s, op_fn fn, const char *what, int *order_ok)
{
    run r;
    if (run_init(&r, s, what) != 0) {
        run_free(&r);
        return -1;
    }
    *order_ok = r.order_ok;
    size_t nph = xchg_sched_nphases(s);
    int bad = 0;
    for (size_t k = 0; k < nph && !bad; k++) {
        xchg_op ph;
        size_t a, b;
        xchg_sched_phase(s, k, &ph, &a, &b);
        fill_start(&r, k, what);
        for (size_t st = a; st < b && !bad; st++)
            bad += run_step(&r, st, fn, what);
    }
    if (bad) {
        run_free(&r);
        return -1;
    }
    xchg_op last;
    size_t a, b;
    xchg_sched_phase(s, nph - 1, &last, &a, &b);
    size_t room = (size_t)r.p * r.pieces * W;
    uint32_t *want = calloc(room, sizeof *want), *have = calloc(room, sizeof *have);
    int wrong = 0;
    for (uint32_t i = 0; i < r.p; i++) {
        size_t nwant, n;
        const xchg_op_piece *res;
        expected(&r, fn, i, want, &nwant);
        xchg_op_program_result(r.prog[i], nph - 1, &res, &n);
        int placed = n == nwant;
        memset(have, 0, room * sizeof *have);
        for (size_t j = 0; placed && j < n; j++) {
            size_t at = output_per_origin(last.kind) ? res[j].origin : 0;
            placed = at < nwant;
            if (placed)
                memcpy(have + at * W, slot_of(&r, i, res[j].slot), W * sizeof(uint32_t));
        }
        if (!placed || memcmp(want, have, nwant * W * sizeof *want) != 0)
            wrong++;
    }
    free(want);
    free(have);
    run_free(&r);
    return wrong;
}

/* Counts over the whole walk. */
typedef struct tally {
    int schedules, order_kept, order_broken;
    char broken[2048]; /* the algorithms whose order breaks somewhere */
} tally;

/* Every rank's message has as many pieces as the schedule declares blocks
 * (the verifier's count, src/check/verify_op.c). */
static void check_sizes(const xchg_sched *s, const char *what)
{
    uint32_t p = xchg_sched_topo(s)->nodes;
    int bad = 0;
    for (uint32_t i = 0; i < p && !bad; i++) {
        xchg_op_program *g = NULL;
        if (xchg_op_program_new(s, i, &g, NULL) != XCHG_OK) {
            bad = 1;
            break;
        }
        for (size_t st = 0; st < xchg_sched_nsteps(s); st++) {
            xchg_op_step a;
            xchg_msg m;
            xchg_op_program_step(g, st, &a);
            xchg_sched_message(s, st, i, &m);
            if (a.nsend != m.blocks) {
                CHECK(0, "%s: step %zu rank %u sends %zu pieces, the schedule declares %llu", what,
                      st, i, a.nsend, (unsigned long long)m.blocks);
                bad = 1;
                break;
            }
        }
        xchg_op_program_free(g);
    }
    CHECK(!bad, "%s: pieces per message as declared", what);
}

/*
 * Where each algorithm keeps MPI's rank order (xchg_op_program_order_ok
 * on every rank), asserted for every schedule the walk runs, so that a
 * change of order in a generator fails here. The MPI executor runs an
 * algorithm for a non-commutative operator only where this holds.
 */
static int everywhere(const xchg_topo *t)
{
    (void)t;
    return 1;
}

/* A ring reduce-scatter on the ids as one line: the partial for dest d
 * goes round d+1, ..., p-1, 0, ..., d, so {d+1..p-1, 0..j-1} meets {j}
 * unless p <= 2. */
static int line_of_two(const xchg_topo *t)
{
    return t->nodes <= 2;
}

/* The mesh reduce-scatter: a ring reduce-scatter along every row, then
 * every column: no line may have more than two nodes. */
static int sides_of_two(const xchg_topo *t)
{
    return t->ndims == 2 && t->size[0] <= 2 && t->size[1] <= 2;
}

/* The split reductions, where their reduce_scatter part does (ops_split.c
 * takes the ring's on a ring or array and on a switch of p != 2^d, the
 * mesh's on a 2-D mesh or torus, the hypercube's elsewhere); their gather
 * and allgather combine nothing. */
static int reduce_scatter_part(const xchg_topo *t)
{
    int pow2 = (t->nodes & (t->nodes - 1)) == 0;
    if (t->kind == XCHG_TOPO_RING || t->kind == XCHG_TOPO_ARRAY ||
        (t->kind == XCHG_TOPO_COMPLETE && !pow2))
        return line_of_two(t);
    if ((t->kind == XCHG_TOPO_MESH || t->kind == XCHG_TOPO_TORUS) && t->ndims == 2)
        return sides_of_two(t);
    return 1;
}

static struct order_row {
    const char *name;
    int (*keeps)(const xchg_topo *t);
    int kept, broken; /* schedules run of each kind */
} order_table[] = {
    /* the hypercube's: every partial an aligned subcube, an interval of ids
     * (reduce-scatter-hc crosses the low bit first for this) */
    {"bcast-hc", everywhere, 0, 0},
    {"scatter-hc", everywhere, 0, 0},
    {"reduce-hc", everywhere, 0, 0},
    {"gather-hc", everywhere, 0, 0},
    {"allgather-hc", everywhere, 0, 0},
    {"reduce-scatter-hc", everywhere, 0, 0},
    {"allreduce-hc", everywhere, 0, 0},
    {"scan-hc", everywhere, 0, 0},
    {"shift-hc", everywhere, 0, 0},
    {"shift-hc-ecube", everywhere, 0, 0},
    /* the tree's: the hypercube's rooted patterns */
    {"bcast-tree", everywhere, 0, 0},
    {"reduce-tree", everywhere, 0, 0},
    /* the ring's: the halving joins adjacent segments; the neighbour
     * reduce-scatter wraps */
    {"bcast-ring", everywhere, 0, 0},
    {"reduce-ring", everywhere, 0, 0},
    {"scatter-ring", everywhere, 0, 0},
    {"gather-ring", everywhere, 0, 0},
    {"allgather-ring", everywhere, 0, 0},
    {"reduce-scatter-ring", line_of_two, 0, 0},
    {"shift-ring", everywhere, 0, 0},
    /* the mesh's: reduce-mesh sums rows first, intervals of row-major ids */
    {"bcast-mesh", everywhere, 0, 0},
    {"reduce-mesh", everywhere, 0, 0},
    {"scatter-mesh", everywhere, 0, 0},
    {"gather-mesh", everywhere, 0, 0},
    {"allgather-mesh", everywhere, 0, 0},
    {"reduce-scatter-mesh", sides_of_two, 0, 0},
    {"shift-mesh", everywhere, 0, 0},
    /* the split ones: as their reduce_scatter part */
    {"bcast-split", everywhere, 0, 0},
    {"reduce-split", reduce_scatter_part, 0, 0},
    {"allreduce-split", reduce_scatter_part, 0, 0},
};

#define ORDER_ROWS (sizeof order_table / sizeof *order_table)

/* The row of the algorithm named by spec (up to its ':'), or NULL. */
static struct order_row *order_row_of(const char *spec)
{
    size_t n = strcspn(spec, ":");
    for (size_t i = 0; i < ORDER_ROWS; i++)
        if (strlen(order_table[i].name) == n && strncmp(order_table[i].name, spec, n) == 0)
            return &order_table[i];
    return NULL;
}

/* One schedule: sizes, then both operators; its rank order as the table
 * says. */
static void check_case(const char *tspec, const char *spec, tally *t)
{
    xchg_topo topo = check_topo(tspec);
    xchg_sched *s = NULL;
    xchg_err err = {{0}};
    if (xchg_generate(&topo, spec, &s, &err) != XCHG_OK)
        return; /* does not apply here */
    char what[160];
    snprintf(what, sizeof what, "%s on %s", spec, tspec);
    t->schedules++;
    check_sizes(s, what);
    int ok_add = 1, ok_mat = 1;
    CHECK(run_schedule(s, op_add, what, &ok_add) == 0, "%s: addition gives the definition", what);
    int wrong = run_schedule(s, op_mat, what, &ok_mat);
    CHECK(ok_add == ok_mat, "%s: the order flag does not depend on the operator", what);
    struct order_row *row = order_row_of(spec);
    CHECK(row != NULL, "%s: the algorithm has no row in the rank-order table", what);
    if (row) {
        int want = row->keeps(&topo);
        CHECK(ok_mat == want, "%s: rank order %s, the table says %s", what,
              ok_mat ? "kept" : "broken", want ? "kept" : "broken");
        if (ok_mat)
            row->kept++;
        else
            row->broken++;
    }
    if (ok_mat) {
        t->order_kept++;
        CHECK(wrong == 0, "%s: rank order kept, the matrix product is MPI's (%d ranks wrong)", what,
              wrong);
    } else {
        t->order_broken++;
        char name[XCHG_SPEC_MAX + 2];
        snprintf(name, sizeof name, " %.*s", (int)strcspn(spec, ":"), spec);
        size_t len = strlen(t->broken), nl = strlen(name);
        const char *at = strstr(t->broken, name);
        int listed = at && (at[nl] == '\0' || at[nl] == ' ');
        if (!listed && len + nl < sizeof t->broken)
            memcpy(t->broken + len, name, nl + 1);
        CHECK(wrong > 0, "%s: rank order broken, the matrix product run anyway is wrong", what);
    }
    xchg_sched_free(s);
}

/* Every operation's algorithms with each variant, roots and shifts. */
static void walk(const char *tspec, tally *t)
{
    xchg_topo topo = check_topo(tspec);
    uint32_t p = topo.nodes;
    uint32_t vals[5] = {0, 1, p / 2, p - 1, 5};
    for (size_t i = 0; i < xchg_alg_count(); i++) {
        const xchg_alg *a = xchg_alg_at(i);
        if (a->op == XCHG_OP_ALLTOALL)
            continue;
        xchg_spec specs[XCHG_MAX_VARIANTS];
        int n = xchg_alg_variants(&topo, a, specs, XCHG_MAX_VARIANTS, NULL);
        int rooted = a->op == XCHG_OP_BCAST || a->op == XCHG_OP_REDUCE ||
                     a->op == XCHG_OP_SCATTER || a->op == XCHG_OP_GATHER;
        int shift = a->op == XCHG_OP_SHIFT;
        for (int v = 0; v < n; v++) {
            if (!rooted && !shift) {
                check_case(tspec, specs[v], t);
                continue;
            }
            for (int k = 0; k < 5; k++) {
                uint32_t x = shift ? (k == 0 ? 2 : vals[k]) : vals[k];
                int dup = x >= p || (shift && x == 0);
                for (int j = 0; j < k && !dup; j++)
                    dup = x == (shift ? (j == 0 ? 2 : vals[j]) : vals[j]);
                if (dup)
                    continue;
                char spec[XCHG_SPEC_MAX + 64];
                snprintf(spec, sizeof spec, "%.63s%s%s=%u", specs[v],
                         strchr(specs[v], ':') ? "," : ":", shift ? "q" : "root", x);
                check_case(tspec, spec, t);
            }
        }
    }
}

/* rank's program for spec on tspec (the caller frees it and *s), or NULL. */
static xchg_op_program *program_of(const char *tspec, const char *spec, uint32_t rank,
                                   xchg_sched **s)
{
    xchg_op_program *g = NULL;
    xchg_err err = {{0}};
    *s = check_generate(tspec, spec);
    int rc = *s ? xchg_op_program_new(*s, rank, &g, &err) : XCHG_EINVAL;
    CHECK(rc == XCHG_OK, "%s on %s: rank %u's program: %s", spec, tspec, rank, err.msg);
    return g;
}

/* Every rank's program of spec on tspec keeps rank order (or not), and the
 * matrix product comes out right (or wrong on `wrong_ranks` ranks). */
static void check_order(const char *tspec, const char *spec, int kept, int wrong_ranks)
{
    xchg_sched *s = check_generate(tspec, spec);
    if (!s)
        return;
    int ok = -1, wrong = run_schedule(s, op_mat, spec, &ok);
    CHECK(ok == kept && wrong == wrong_ranks,
          "%s on %s: order kept %d (want %d), %d ranks' matrix products wrong (want %d)", spec,
          tspec, ok, kept, wrong, wrong_ranks);
    CHECK(run_schedule(s, op_add, spec, &ok) == 0, "%s on %s: the sum is right all the same", spec,
          tspec);
    xchg_sched_free(s);
}

/* The worked cases: which combinations keep rank order, and the pieces'
 * shapes on the hypercube algorithms. */
static void test_worked(void)
{
    /* reduce-hc from root 0 and from root 5: each partial is a subcube
     * over the low bits crossed so far, an aligned interval of ids, so
     * every combination has an order: at root 5 the receiver puts the
     * received partial first at steps 0 and 2 ({4} op {5}, {0..3} op
     * {4..7}) and last at step 1 ({4,5} op {6,7}). The XOR relabelling
     * does not break rank order. */
    check_order("hypercube:3", "reduce-hc", 1, 0);
    check_order("hypercube:3", "reduce-hc:root=5", 1, 0);
    xchg_sched *s;
    xchg_op_program *g = program_of("hypercube:3", "reduce-hc:root=5", 5, &s);
    if (g) {
        int want_rf[3] = {1, 0, 1};
        uint32_t want_from[3] = {4, 7, 1}, want_lo[3] = {4, 6, 0}, want_hi[3] = {4, 7, 3};
        for (size_t k = 0; k < 3; k++) {
            xchg_op_step a;
            xchg_op_program_step(g, k, &a);
            CHECK(a.send_to == XCHG_NONE && a.recv_from == want_from[k] && a.nrecv == 1 &&
                      a.recv[0].dest == 5 && a.recv[0].lo == want_lo[k] &&
                      a.recv[0].hi == want_hi[k] && a.recv[0].contiguous && a.ncombine == 1 &&
                      a.combine[0].recv_first == want_rf[k] && a.combine[0].order_ok,
                  "reduce-hc:root=5, root's step %zu: from %u, [%u, %u], received first %d", k,
                  a.recv_from, a.nrecv ? a.recv[0].lo : 0, a.nrecv ? a.recv[0].hi : 0,
                  a.ncombine ? a.combine[0].recv_first : -1);
        }
        const xchg_op_piece *res;
        size_t n;
        xchg_op_program_result(g, 0, &res, &n);
        CHECK(n == 1 && res[0].norigins == 8 && res[0].ntokens == 8 && res[0].contiguous,
              "reduce-hc:root=5: the root ends with one piece of 8 origins");
    }
    xchg_op_program_free(g);
    xchg_sched_free(s);

    /* reduce-scatter-hc crosses the low bit first: before step i every
     * partial is an aligned interval of 2^i ids. Rank 0 on 8 nodes sends
     * {0, 1} for dests 2 and 6 at step 1 (a piece each) and receives
     * {2, 3} for dests 0 and 4, which it puts after what it holds; at
     * step 2 {0..3} meets {4..7}. The matrix product is MPI's. */
    check_order("hypercube:3", "reduce-scatter-hc", 1, 0);
    g = program_of("hypercube:3", "reduce-scatter-hc", 0, &s);
    if (g) {
        xchg_op_step a, c;
        xchg_op_program_step(g, 1, &a);
        xchg_op_program_step(g, 2, &c);
        CHECK(xchg_op_program_order_ok(g) && a.send_to == 2 && a.nsend == 2 &&
                  a.send[0].dest == 2 && a.send[1].dest == 6 && a.send[0].lo == 0 &&
                  a.send[0].hi == 1 && a.send[0].contiguous && a.nrecv == 2 &&
                  a.recv[0].dest == 0 && a.recv[1].dest == 4 && a.recv[0].lo == 2 &&
                  a.recv[0].hi == 3 && a.recv[0].contiguous && a.ncombine == 2 &&
                  a.combine[0].order_ok && !a.combine[0].recv_first && c.nsend == 1 &&
                  c.send[0].dest == 4 && c.send[0].lo == 0 && c.send[0].hi == 3 && c.nrecv == 1 &&
                  c.recv[0].lo == 4 && c.recv[0].hi == 7 && c.ncombine == 1 &&
                  c.combine[0].order_ok && !c.combine[0].recv_first,
              "reduce-scatter-hc, rank 0: sends {0,1} for dests 2, 6 at step 1, then {0..3} "
              "for dest 4, each combination in rank order");
    }
    xchg_op_program_free(g);
    xchg_sched_free(s);
    /* so does the ring's, going round past the highest rank */
    check_order("ring:5", "reduce-scatter-ring", 0, 3);
    /* reduce-mesh sums along the rows first (node ids are row-major, so a
     * row's partial is an interval), then along the root's column. On
     * 2 x 3 from root 4 (row 1, column 1): the root takes {3} (received
     * first), then {5}, then row 0's {0..2} (received first). Summing
     * columns first, the root 0 would hold {0, 3} and receive {1, 4}. */
    check_order("mesh:2x3", "reduce-mesh", 1, 0);
    check_order("mesh:2x3", "reduce-mesh:root=4", 1, 0);
    check_order("mesh:2x3", "reduce-ring", 1, 0);
    g = program_of("mesh:2x3", "reduce-mesh:root=4", 4, &s);
    if (g) {
        int want_rf[3] = {1, 0, 1};
        uint32_t want_from[3] = {3, 5, 1}, want_lo[3] = {3, 5, 0}, want_hi[3] = {3, 5, 2};
        for (size_t k = 0; k < 3; k++) {
            xchg_op_step a;
            xchg_op_program_step(g, k, &a);
            CHECK(a.send_to == XCHG_NONE && a.recv_from == want_from[k] && a.nrecv == 1 &&
                      a.recv[0].lo == want_lo[k] && a.recv[0].hi == want_hi[k] &&
                      a.recv[0].contiguous && a.ncombine == 1 &&
                      a.combine[0].recv_first == want_rf[k] && a.combine[0].order_ok,
                  "reduce-mesh:root=4 on 2 x 3, root's step %zu: from %u, [%u, %u]", k, a.recv_from,
                  a.nrecv ? a.recv[0].lo : 0, a.nrecv ? a.recv[0].hi : 0);
        }
    }
    xchg_op_program_free(g);
    xchg_sched_free(s);
    /* reduce-scatter-mesh goes along the rows first too, but each phase is
     * a ring reduce-scatter: on 2 x 3 the partials for column 1 go round
     * their row 2, 0, 1, and {1} meets {0, 2} at dests 1 and 4. With two
     * nodes a line (2 x 2) nothing wraps past another rank. */
    check_order("mesh:2x3", "reduce-scatter-mesh", 0, 2);
    check_order("mesh:2x2", "reduce-scatter-mesh", 1, 0);
    check_order("torus:2x2", "reduce-split:root=3", 1, 0);

    /* scan-hc, rank 4: its result {4} and its message {4, 5} part after
     * step 0, as PREFIX_SUMS_HCUBE keeps two buffers; at step 1 it sends
     * {4, 5} to 6 and hears nothing back (6 holds nothing for dests below
     * it); at step 2 {0..3} joins its result, received first. */
    g = program_of("hypercube:3", "scan-hc", 4, &s);
    if (g) {
        xchg_op_step a, b, c;
        xchg_op_program_step(g, 0, &a);
        xchg_op_program_step(g, 1, &b);
        xchg_op_program_step(g, 2, &c);
        CHECK(a.nsend == 1 && a.send[0].norigins == 1 && a.ncombine == 1 && b.send_to == 6 &&
                  b.nsend == 1 && b.send[0].lo == 4 && b.send[0].hi == 5 &&
                  b.recv_from == XCHG_NONE && c.send_to == XCHG_NONE && c.nrecv == 1 &&
                  c.recv[0].lo == 0 && c.recv[0].hi == 3 && c.ncombine == 1 &&
                  c.combine[0].recv_first && c.combine[0].held == a.send[0].slot,
              "scan-hc rank 4: result and message kept apart");
    }
    xchg_op_program_free(g);
    xchg_sched_free(s);

    /* allreduce-hc on 16 nodes: every message one piece of 2^k contiguous
     * origins covering 8 tokens (2^k origins times 16/2^(k+1) dests) */
    for (uint32_t r = 0; r < 16; r += 5) {
        g = program_of("hypercube:4", "allreduce-hc", r, &s);
        for (size_t k = 0; g && k < 4; k++) {
            xchg_op_step a;
            xchg_op_program_step(g, k, &a);
            CHECK(a.nsend == 1 && a.send[0].norigins == (size_t)1 << k && a.send[0].contiguous &&
                      a.send[0].ntokens == 8 && a.nrecv == 1 && a.ncombine == 1 &&
                      a.combine[0].order_ok,
                  "allreduce-hc rank %u step %zu: one piece of %zu origins", r, k,
                  a.nsend ? a.send[0].norigins : 0);
        }
        xchg_op_program_free(g);
        xchg_sched_free(s);
    }

    /* bcast-hc from root 5: a piece is the root's data */
    for (uint32_t r = 0; r < 8; r++) {
        g = program_of("hypercube:3", "bcast-hc:root=5", r, &s);
        int ok = g != NULL;
        for (size_t k = 0; g && k < 3; k++) {
            xchg_op_step a;
            xchg_op_program_step(g, k, &a);
            for (size_t j = 0; j < a.nsend; j++)
                ok &= a.send[j].origin == 5 && a.send[j].dest == XCHG_NONE;
            ok &= a.ncombine == 0;
        }
        const xchg_op_piece *res;
        size_t n;
        if (g)
            xchg_op_program_result(g, 0, &res, &n);
        CHECK(ok && n == 1 && res[0].origin == 5 && res[0].ntokens == 1 &&
                  res[0].tokens[0].dest == r,
              "bcast-hc:root=5 rank %u: pieces of origin 5", r);
        xchg_op_program_free(g);
        xchg_sched_free(s);
    }
}

/* Two-step reduction to node 0 on hypercube:2 whose second step sends
 * (2, 0) but keeps (3, 0): a partial result split. */
static int split_rule(const void *ctx, size_t step, uint32_t node, uint32_t origin, uint32_t dest)
{
    (void)ctx;
    (void)step;
    return ((dest ^ node) & 2) && origin != 3;
}

/* What the call refuses. */
static void test_errors(void)
{
    xchg_err err = {{0}};
    xchg_op_program *g = NULL;
    xchg_sched *s = check_generate("hypercube:2", "reduce-hc");
    CHECK(xchg_op_program_new(NULL, 0, &g, &err) == XCHG_EINVAL && !g, "NULL schedule");
    CHECK(xchg_op_program_new(s, 0, NULL, &err) == XCHG_EINVAL, "NULL result");
    CHECK(xchg_op_program_new(s, 4, &g, &err) == XCHG_EINVAL && !g && strstr(err.msg, "0 to 3"),
          "rank 4 of 4: %s", err.msg);
    xchg_op_program_free(NULL);
    xchg_sched_free(s);
    s = check_generate("hypercube:14", "bcast-hc");
    CHECK(s && xchg_op_program_new(s, 0, &g, &err) == XCHG_ETOOBIG && !g,
          "16384 nodes: too big: %s", err.msg);
    xchg_sched_free(s);

    xchg_topo t = check_topo("hypercube:2");
    s = xchg_sched_new(&t, "by-hand", 1);
    s->op = (xchg_op){XCHG_OP_REDUCE, 0, 0, 0};
    xchg_step st0 = xchg_step_xor(1, xchg_rule_dest_mask_to(1), 1);
    xchg_step st1 = xchg_step_xor(2, xchg_rule_fn(split_rule), 1);
    CHECK(xchg_sched_add(s, &st0) == 0 && xchg_sched_add(s, &st1) == 0, "by hand");
    CHECK(xchg_op_program_new(s, 2, &g, &err) == XCHG_EINTERNAL && !g &&
              strstr(err.msg, "cannot be split"),
          "a split partial: %s", err.msg);
    CHECK(xchg_op_program_new(s, 0, &g, &err) == XCHG_EINTERNAL && !g &&
              strstr(err.msg, "(3, 0) ends at node 2"),
          "an undelivered contribution: %s", err.msg);
    CHECK(xchg_op_program_new(s, 1, &g, &err) == XCHG_OK && g, "rank 1 only sends its own");
    xchg_op_program_free(g);
    xchg_sched_free(s);
}

int main(void)
{
    static const char *topos[] = {
        "hypercube:1", "hypercube:2", "hypercube:3", "hypercube:4", "ring:1",     "ring:2",
        "ring:3",      "ring:4",      "ring:5",      "ring:6",      "ring:7",     "ring:8",
        "ring:9",      "array:5",     "mesh:3x4",    "torus:4x4",   "complete:6", "array:8",
        "mesh:2x3",    "torus:3x3",   "hypercube:5", "mesh:2x2",    "complete:8", "torus:2x2x2",
        "tree:3"};
    test_worked();
    test_errors();
    tally t;
    memset(&t, 0, sizeof t);
    for (size_t i = 0; i < sizeof topos / sizeof *topos; i++)
        walk(topos[i], &t);
    printf("opprog: %d schedules run; rank order kept by %d, broken by %d, by:%s\n", t.schedules,
           t.order_kept, t.order_broken, t.broken);
    CHECK(t.schedules > 300, "the walk ran %d schedules", t.schedules);
    /* every operation's algorithm has a row, and every row ran, on both
     * sides of its condition where it has one */
    for (size_t i = 0; i < xchg_alg_count(); i++) {
        const xchg_alg *a = xchg_alg_at(i);
        CHECK(a->op == XCHG_OP_ALLTOALL || order_row_of(a->name),
              "%s: no row in the rank-order table", a->name);
    }
    for (size_t i = 0; i < ORDER_ROWS; i++) {
        const struct order_row *r = &order_table[i];
        CHECK(r->kept > 0, "%s: the walk ran it nowhere keeping rank order", r->name);
        CHECK(r->keeps == everywhere || r->broken > 0,
              "%s: the walk ran it nowhere breaking rank order", r->name);
    }
    return check_finish("test_opprog");
}
