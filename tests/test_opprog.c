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
 * roots and shifts; the split algorithms cut the data into p blocks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "xchg.h"

#define W 8           /* words in a block: two 2x2 matrices */
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
                uint64_t v = (uint64_t)a[m + 2 * i] * b[m + j] +
                             (uint64_t)a[m + 2 * i + 1] * b[m + 2 + j];
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
    xchg_op op;          /* the schedule's operation */
    uint32_t pieces;     /* 1, or p for the split algorithms */
    xchg_op_program **prog;
    uint32_t **slot;     /* per rank: nslots * W words */
    int order_ok;        /* every rank's program keeps rank order */
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
                input_block(i, input_per_dest(ph.kind) ? st[j].dest : 0,
                            slot_of(r, i, st[j].slot));
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
    size_t nph = xchg_sched_nphases(s), nsteps = xchg_sched_nsteps(s);
    int bad = 0;
    for (size_t k = 0; k < nph && !bad; k++) {
        xchg_op ph;
        size_t a, b;
        xchg_sched_phase(s, k, &ph, &a, &b);
        fill_start(&r, k, what);
        for (size_t st = a; st < b && !bad; st++)
            bad += run_step(&r, st, fn, what);
    }
    (void)nsteps;
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
    char broken[2048]; /* the first specs whose order breaks */
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
                CHECK(0, "%s: step %zu rank %u sends %zu pieces, the schedule declares %llu",
                      what, st, i, a.nsend, (unsigned long long)m.blocks);
                bad = 1;
                break;
            }
        }
        xchg_op_program_free(g);
    }
    CHECK(!bad, "%s: pieces per message as declared", what);
}

/* One schedule: sizes, then both operators. */
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
    if (ok_mat) {
        t->order_kept++;
        CHECK(wrong == 0, "%s: rank order kept, the matrix product is MPI's (%d ranks wrong)",
              what, wrong);
    } else {
        t->order_broken++;
        size_t len = strlen(t->broken);
        if (len + strlen(what) + 3 < sizeof t->broken)
            snprintf(t->broken + len, sizeof t->broken - len, "%s%s", len ? "; " : "", what);
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
                char spec[XCHG_SPEC_MAX + 32];
                snprintf(spec, sizeof spec, "%s%s%s=%u", specs[v], strchr(specs[v], ':') ? "," : ":",
                         shift ? "q" : "root", x);
                check_case(tspec, spec, t);
            }
        }
    }
}

int main(void)
{
    static const char *topos[] = {"hypercube:1", "hypercube:2", "hypercube:3", "hypercube:4",
                                  "ring:1",      "ring:2",      "ring:3",      "ring:4",
                                  "ring:5",      "ring:6",      "ring:7",      "ring:8",
                                  "ring:9",      "array:5",     "mesh:3x4",    "torus:4x4",
                                  "complete:6"};
    tally t;
    memset(&t, 0, sizeof t);
    for (size_t i = 0; i < sizeof topos / sizeof *topos; i++)
        walk(topos[i], &t);
    printf("opprog: %d schedules run; rank order kept by %d, broken by %d: %s\n", t.schedules,
           t.order_kept, t.order_broken, t.broken);
    CHECK(t.schedules > 300, "the walk ran %d schedules", t.schedules);
    return check_finish("test_opprog");
}
