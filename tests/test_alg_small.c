/*
 * test_alg_small.c - hand-checked small cases of the algorithm families
 * (who sends what to whom at which step, sizes, copies), the registry's
 * spec parsing and precondition messages, the declared needs and claims
 * as the registry reads them, and a tiny independent block follower that
 * runs every registry entry on small networks without the verifier.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "xchg.h"

/* Expect xchg_generate to fail with code and a message containing needle. */
static void gen_fails(const char *tspec, const char *alg, int code, const char *needle)
{
    xchg_topo t = check_topo(tspec);
    xchg_sched *s = (xchg_sched *)&t; /* must stay untouched */
    xchg_err err = {{0}};
    int rc = xchg_generate(&t, alg, &s, &err);
    CHECK(rc == code, "%s on %s: got %d want %d (%s)", alg, tspec, rc, code, err.msg);
    CHECK(s == (xchg_sched *)&t, "%s on %s: *out changed on failure", alg, tspec);
    CHECK(strstr(err.msg, needle) != NULL, "%s on %s: message '%s' lacks '%s'", alg, tspec,
          err.msg, needle);
}

static uint32_t partner(const xchg_sched *s, size_t step, uint32_t node)
{
    xchg_msg m;
    xchg_sched_message(s, step, node, &m);
    return m.to;
}

static uint64_t msg_blocks(const xchg_sched *s, size_t step, uint32_t node)
{
    xchg_msg m;
    xchg_sched_message(s, step, node, &m);
    return m.blocks;
}

static void test_ring(void)
{
    xchg_sched *s = check_generate("ring:4", "ring");
    if (!s)
        return;
    CHECK_EQ_U64(xchg_sched_nsteps(s), 3, "ring:4 steps");
    CHECK(strcmp(xchg_sched_algorithm(s), "ring") == 0, "name %s", xchg_sched_algorithm(s));
    CHECK(xchg_sched_contention_free(s), "ring on ring claims contention-free");
    xchg_msg m;
    xchg_sched_message(s, 0, 0, &m);
    CHECK(m.from == 0 && m.to == 1, "ring step 1: node 0 -> %u", m.to);
    CHECK_EQ_U64(m.blocks, 3, "ring step 1 size");
    CHECK(m.route_policy == XCHG_ROUTE_PLUS, "ring routes +1");
    CHECK(partner(s, 0, 3) == 0, "ring: node 3 -> 0 wraps");
    for (uint32_t d = 1; d < 4; d++)
        CHECK(xchg_sched_selects(s, 0, 0, 0, d), "ring step 1 node 0 selects (0,%u)", d);
    CHECK(!xchg_sched_selects(s, 0, 0, 0, 0), "ring step 1 node 0 keeps (0,0)");
    /* at step 2 node 1 forwards (0,2),(0,3) but keeps (0,1) */
    CHECK(xchg_sched_selects(s, 1, 1, 0, 2) && xchg_sched_selects(s, 1, 1, 0, 3) &&
              !xchg_sched_selects(s, 1, 1, 0, 1),
          "ring step 2 node 1 forwards the blocks not for it");
    CHECK_EQ_U64(xchg_sched_step_max_blocks(s, 1), 2, "ring step 2 size");
    CHECK_EQ_U64(xchg_sched_step_max_blocks(s, 2), 1, "ring step 3 size");
    CHECK_EQ_U64(xchg_sched_copy_blocks(s, 0), 0, "ring copies nothing");
    xchg_sched_free(s);

    /* ring-bidir on 5 nodes: h1 = h2 = 2; sizes 2,1 then 2,1 */
    s = check_generate("ring:5", "ring-bidir");
    if (!s)
        return;
    CHECK_EQ_U64(xchg_sched_nsteps(s), 4, "ring-bidir:5 steps");
    const uint64_t sz[4] = {2, 1, 2, 1};
    for (size_t k = 0; k < 4; k++)
        CHECK_EQ_U64(xchg_sched_step_max_blocks(s, k), sz[k], "ring-bidir:5 size");
    CHECK(partner(s, 0, 0) == 1 && partner(s, 2, 0) == 4, "ring-bidir directions");
    CHECK(xchg_sched_selects(s, 0, 0, 0, 1) && xchg_sched_selects(s, 0, 0, 0, 2) &&
              !xchg_sched_selects(s, 0, 0, 0, 3) && !xchg_sched_selects(s, 0, 0, 0, 4),
          "ring-bidir step 1: node 0 sends (0,1),(0,2) clockwise only");
    CHECK(xchg_sched_selects(s, 2, 0, 0, 3) && xchg_sched_selects(s, 2, 0, 0, 4),
          "ring-bidir step 3: node 0 sends (0,3),(0,4) counter-clockwise");
    xchg_msg m2;
    xchg_sched_message(s, 2, 0, &m2);
    CHECK(m2.route_policy == XCHG_ROUTE_MINUS, "ring-bidir phase 2 routes -1");
    xchg_sched_free(s);

    /* even p: h1 = 2, h2 = 1 */
    s = check_generate("array:4", "ring-bidir");
    if (s) {
        CHECK_EQ_U64(xchg_sched_nsteps(s), 3, "ring-bidir:4 steps");
        CHECK_EQ_U64(xchg_sched_step_max_blocks(s, 2), 1, "ring-bidir:4 last size");
        CHECK(xchg_sched_contention_free(s), "ring-bidir on array claims contention-free");
        xchg_sched_free(s);
    }
    s = check_generate("ring:1", "ring");
    if (s) {
        CHECK_EQ_U64(xchg_sched_nsteps(s), 0, "ring:1 has no steps");
        xchg_sched_free(s);
    }
    gen_fails("mesh:3x3", "ring", XCHG_ENOTAPPLIC, "one-dimensional");
}

static void test_mesh2(void)
{
    xchg_sched *s = check_generate("mesh:2x3", "mesh2");
    if (!s)
        return;
    /* A = 2 rows, B = 3 columns: 2 row steps of 4, 2 blocks; 1 column step of 3 */
    CHECK_EQ_U64(xchg_sched_nsteps(s), 3, "mesh2 2x3 steps");
    CHECK_EQ_U64(xchg_sched_step_max_blocks(s, 0), 4, "mesh2 step 1 size");
    CHECK_EQ_U64(xchg_sched_step_max_blocks(s, 1), 2, "mesh2 step 2 size");
    CHECK_EQ_U64(xchg_sched_step_max_blocks(s, 2), 3, "mesh2 step 3 size");
    CHECK(partner(s, 0, 0) == 1 && partner(s, 0, 2) == 0 && partner(s, 2, 0) == 3 &&
              partner(s, 2, 4) == 1,
          "mesh2 partners: rows first, then columns");
    /* node 0 at step 1 sends the blocks for columns 1, 2: dests 1,2,4,5 */
    CHECK(xchg_sched_selects(s, 0, 0, 0, 4) && !xchg_sched_selects(s, 0, 0, 0, 3),
          "mesh2 step 1 selects by destination column");
    CHECK_EQ_U64(xchg_sched_copy_blocks(s, 0), 0, "no copy before phase 1");
    CHECK_EQ_U64(xchg_sched_copy_blocks(s, 2), 6, "copy p before phase 2");
    xchg_sched_free(s);
    gen_fails("ring:9", "mesh2", XCHG_ENOTAPPLIC, "mesh");
    gen_fails("torus:2x2x2", "mesh2", XCHG_ENOTAPPLIC, "two-dimensional");
}

static void test_hypercube(void)
{
    xchg_sched *s = check_generate("hypercube:3", "hc-standard");
    if (s) {
        CHECK_EQ_U64(xchg_sched_nsteps(s), 3, "hc-standard:3 steps");
        for (uint32_t i = 0; i < 8; i++) {
            CHECK(partner(s, 0, i) == (i ^ 4u), "step 0 partner of %u is %u", i, i ^ 4u);
            CHECK(partner(s, 2, i) == (i ^ 1u), "step 2 partner of %u", i);
        }
        for (size_t k = 0; k < 3; k++) {
            CHECK_EQ_U64(xchg_sched_step_max_blocks(s, k), 4, "hc-standard p/2");
            CHECK_EQ_U64(xchg_sched_copy_blocks(s, k), 8, "hc-standard copies p each step");
        }
        /* node 0 sends (0,4..7) first, keeps (0,0..3) */
        for (uint32_t d = 0; d < 8; d++)
            CHECK(xchg_sched_selects(s, 0, 0, 0, d) == (d >= 4), "hc-standard select d=%u", d);
        CHECK(xchg_sched_contention_free(s), "hc-standard on hypercube claims free");
        xchg_sched_free(s);
    }
    s = check_generate("ring:8", "hc-standard");
    if (s) {
        CHECK(!xchg_sched_contention_free(s), "hc-standard on ring:8 must not claim free");
        xchg_sched_free(s);
    }
    s = check_generate("hypercube:3", "hc-direct");
    if (s) {
        CHECK_EQ_U64(xchg_sched_nsteps(s), 7, "hc-direct steps");
        CHECK(partner(s, 4, 3) == (3u ^ 5u), "hc-direct step 5 partner");
        CHECK(xchg_sched_selects(s, 4, 3, 3, 6) && !xchg_sched_selects(s, 4, 3, 3, 7),
              "hc-direct sends exactly the block for its partner");
        xchg_sched_free(s);
    }
    s = check_generate("hypercube:3", "multiphase:1,2");
    if (s) {
        CHECK(strcmp(xchg_sched_algorithm(s), "multiphase:1,2") == 0, "name %s",
              xchg_sched_algorithm(s));
        CHECK_EQ_U64(xchg_sched_nsteps(s), 4, "multiphase:1,2 steps 1+3");
        CHECK(partner(s, 0, 0) == 1 && partner(s, 1, 0) == 2 && partner(s, 2, 0) == 4 &&
                  partner(s, 3, 0) == 6,
              "multiphase: low bit first, then bits 1-2");
        CHECK_EQ_U64(xchg_sched_step_max_blocks(s, 0), 4, "phase 1 p/2");
        CHECK_EQ_U64(xchg_sched_step_max_blocks(s, 1), 2, "phase 2 p/4");
        CHECK_EQ_U64(xchg_sched_copy_blocks(s, 0), 0, "no copy before phase 1");
        CHECK_EQ_U64(xchg_sched_copy_blocks(s, 1), 8, "copy p before phase 2");
        CHECK_EQ_U64(xchg_sched_copy_blocks(s, 2), 0, "copy only once per phase");
        xchg_sched_free(s);
    }
    gen_fails("torus:3x5", "hc-standard", XCHG_ENOTAPPLIC, "15 nodes");
    gen_fails("ring:6", "hc-direct", XCHG_ENOTAPPLIC, "power-of-two");
    gen_fails("hypercube:5", "multiphase:2,2", XCHG_ENOTAPPLIC, "sum to 4");
    gen_fails("hypercube:5", "multiphase", XCHG_EINVAL, "multiphase:2,3");
    gen_fails("hypercube:5", "multiphase:", XCHG_EINVAL, "empty");
    gen_fails("hypercube:5", "multiphase:2,,3", XCHG_EINVAL, "bad partition");
    gen_fails("hypercube:5", "multiphase:2,3,", XCHG_EINVAL, "bad partition");
    gen_fails("hypercube:5", "multiphase:0,5", XCHG_EINVAL, "bad part '0'");
    gen_fails("hypercube:5", "multiphase:2,x", XCHG_EINVAL, "bad part 'x'");
    gen_fails("hypercube:5", "multiphase:-2,7", XCHG_EINVAL, "bad part");
    gen_fails("ring:12", "multiphase:2,2", XCHG_ENOTAPPLIC, "12 nodes");
    gen_fails("hypercube:0", "multiphase:1", XCHG_ENOTAPPLIC, "sum");

    /* variants: equipartitions of d with 2..d-1 parts */
    const xchg_alg *mp = xchg_alg_find("multiphase");
    CHECK(mp && mp->variants, "multiphase has variants");
    if (mp && mp->variants) {
        char v[8][64];
        xchg_topo t = check_topo("hypercube:5");
        int n = mp->variants(&t, v, 8);
        CHECK_EQ_U64(n, 3, "hypercube:5 equipartitions with 2..4 parts");
        if (n == 3)
            CHECK(strcmp(v[0], "multiphase:2,3") == 0 && strcmp(v[1], "multiphase:1,2,2") == 0 &&
                      strcmp(v[2], "multiphase:1,1,1,2") == 0,
                  "variants %s %s %s", v[0], v[1], v[2]);
        t = check_topo("hypercube:2");
        CHECK_EQ_U64(mp->variants(&t, v, 8), 0, "hypercube:2 has no proper equipartition");
        t = check_topo("ring:6");
        CHECK_EQ_U64(mp->variants(&t, v, 8), 0, "no variants without 2^D nodes");
        t = check_topo("hypercube:8");
        CHECK_EQ_U64(mp->variants(&t, v, 2), 6, "count reported beyond max");
    }
}

static void test_bruck(void)
{
    xchg_sched *s = check_generate("ring:5", "bruck");
    if (s) {
        CHECK(strcmp(xchg_sched_algorithm(s), "bruck:2") == 0, "bruck default radix 2: %s",
              xchg_sched_algorithm(s));
        /* weights 1, 2, 4: j in [0,5) with bit set: {1,3}, {2,3}, {4} */
        CHECK_EQ_U64(xchg_sched_nsteps(s), 3, "bruck:2 on 5 steps");
        const uint64_t sz[3] = {2, 2, 1};
        const uint32_t to[3] = {1, 2, 4};
        for (size_t k = 0; k < 3; k++) {
            CHECK_EQ_U64(xchg_sched_step_max_blocks(s, k), sz[k], "bruck:2 on 5 size");
            CHECK(partner(s, k, 0) == to[k], "bruck step %zu: node 0 -> %u", k, to[k]);
            CHECK(partner(s, k, 4) == (4 + to[k]) % 5, "bruck step %zu wraps", k);
        }
        CHECK(xchg_sched_selects(s, 0, 0, 0, 1) && xchg_sched_selects(s, 0, 0, 0, 3) &&
                  !xchg_sched_selects(s, 0, 0, 0, 2) && !xchg_sched_selects(s, 0, 0, 0, 0),
              "bruck step 1 node 0 sends relative destinations 1, 3");
        /* node 3 holds (2, 3+...): relative destination of (2,0) is 3 */
        CHECK(xchg_sched_selects(s, 1, 3, 2, 0), "bruck selects by dest - origin mod p");
        /* each step packs and unpacks its message: 2 * size */
        CHECK_EQ_U64(xchg_sched_copy_blocks(s, 0), 5 + 4, "initial rotation + pack/unpack 2");
        CHECK_EQ_U64(xchg_sched_copy_blocks(s, 1), 4, "pack/unpack 2 in the middle");
        CHECK_EQ_U64(xchg_sched_copy_blocks(s, 2), 2 + 5, "pack/unpack 1 + final rotation");
        CHECK(!xchg_sched_contention_free(s), "bruck on a ring does not claim free");
        xchg_sched_free(s);
    }
    s = check_generate("complete:5", "bruck:3");
    if (s) {
        /* (w=1,z=1): {1,4}; (1,2): {2}; (3,1): {3,4}; (3,2): 6 >= 5, no step */
        CHECK_EQ_U64(xchg_sched_nsteps(s), 3, "bruck:3 on 5 steps");
        const uint64_t sz[3] = {2, 1, 2};
        const uint32_t to[3] = {1, 2, 3};
        for (size_t k = 0; k < 3; k++) {
            CHECK_EQ_U64(xchg_sched_step_max_blocks(s, k), sz[k], "bruck:3 on 5 size");
            CHECK(partner(s, k, 0) == to[k], "bruck:3 partner");
        }
        CHECK(xchg_sched_contention_free(s), "bruck on complete claims free");
        xchg_sched_free(s);
    }
    s = check_generate("complete:2", "bruck");
    if (s) {
        CHECK_EQ_U64(xchg_sched_nsteps(s), 1, "bruck on 2");
        CHECK_EQ_U64(xchg_sched_copy_blocks(s, 0), 2 + 2 + 2, "both rotations and pack/unpack 1");
        xchg_sched_free(s);
    }
    gen_fails("ring:5", "bruck:1", XCHG_EINVAL, "radix");
    gen_fails("ring:5", "bruck:x", XCHG_EINVAL, "radix");
    gen_fails("ring:5", "bruck:", XCHG_EINVAL, "empty");

    const xchg_alg *b = xchg_alg_find("bruck");
    if (b && b->variants) {
        char v[8][64];
        xchg_topo t = check_topo("ring:30"); /* 2, 4, 8, ceil(sqrt 30) = 6 */
        int n = b->variants(&t, v, 8);
        CHECK_EQ_U64(n, 4, "bruck variants on 30");
        if (n == 4)
            CHECK(strcmp(v[3], "bruck:6") == 0, "fourth variant %s", v[3]);
        t = check_topo("ring:16"); /* sqrt = 4, a duplicate */
        CHECK_EQ_U64(b->variants(&t, v, 8), 3, "bruck variants on 16");
        t = check_topo("ring:3"); /* only 2 */
        CHECK_EQ_U64(b->variants(&t, v, 8), 1, "bruck variants on 3");
    }
}

static void test_pairwise(void)
{
    xchg_sched *s = check_generate("ring:6", "pairwise");
    if (s) {
        CHECK_EQ_U64(xchg_sched_nsteps(s), 5, "pairwise on 6");
        CHECK(partner(s, 1, 5) == 1, "pairwise shift: 5 + 2 mod 6");
        CHECK_EQ_U64(msg_blocks(s, 3, 2), 1, "one block a message");
        xchg_sched_free(s);
    }
    s = check_generate("hypercube:3", "pairwise");
    if (s) {
        CHECK(partner(s, 2, 5) == (5u ^ 3u), "pairwise XOR on 2^D nodes");
        CHECK(xchg_sched_contention_free(s), "pairwise XOR on hypercube claims free");
        xchg_sched_free(s);
    }
}

static void test_registry(void)
{
    CHECK(xchg_alg_count() >= 8, "registry has the families");
    CHECK(xchg_alg_at(xchg_alg_count()) == NULL, "past the end is NULL");
    for (size_t i = 0; i < xchg_alg_count(); i++) {
        const xchg_alg *a = xchg_alg_at(i);
        CHECK(a && a->name && a->summary && a->source && a->topologies && a->options &&
                  a->generate && a->formula && a->free_on != 0 &&
                  (a->free_on & ~XCHG_KINDS_ALL) == 0 && (a->needs.kinds & ~XCHG_KINDS_ALL) == 0,
              "entry %zu complete (text, generator, formula, declared claims)", i);
        if (a)
            CHECK(xchg_alg_find(a->name) == a, "find %s", a->name);
        for (size_t j = 0; j < i; j++)
            CHECK(strcmp(xchg_alg_at(j)->name, a->name) != 0, "duplicate name %s", a->name);
    }
    CHECK(xchg_alg_find("nope") == NULL, "unknown name");
    const xchg_alg *a = (const xchg_alg *)1;
    xchg_opts o;
    memset(&o, 0x33, sizeof o);
    xchg_err err = {{0}};
    int rc = xchg_alg_parse("nope:3", &a, &o, &err);
    CHECK(rc == XCHG_EINVAL && strstr(err.msg, "nope") && strstr(err.msg, "hc-standard") &&
              strstr(err.msg, "bruck"),
          "unknown name lists the known ones: %s", err.msg);
    CHECK(a == (const xchg_alg *)1 && o.radix == 0x33333333u, "outputs untouched on failure");
    rc = xchg_alg_parse("ring:3", &a, &o, &err);
    CHECK(rc == XCHG_EINVAL && strstr(err.msg, "takes no options"), "ring:3: %s", err.msg);
    rc = xchg_alg_parse("bruck:4", &a, &o, &err);
    CHECK(rc == 0 && a == xchg_alg_find("bruck") && o.radix == 4 && strcmp(o.args, "4") == 0,
          "bruck:4 parsed, args kept");
    rc = xchg_alg_parse("multiphase:3,2,1", &a, &o, &err);
    CHECK(rc == 0 && o.nparts == 3 && o.parts[0] == 3 && o.parts[2] == 1, "multiphase parts");
    rc = xchg_alg_parse("", &a, &o, &err);
    CHECK(rc == XCHG_EINVAL, "empty spec refused");
    rc = xchg_alg_parse(":2", &a, &o, &err);
    CHECK(rc == XCHG_EINVAL, "missing name refused");
}

/* Refusal of needs on tspec (opts NULL): code and every needle (NULL-ended). */
static void needs_says(const xchg_needs *n, const char *tspec, const xchg_opts *o, int code,
                       const char *const *needles)
{
    xchg_topo t = check_topo(tspec);
    xchg_err err = {{0}};
    int rc = xchg_needs_check(n, "demo", &t, o, &err);
    CHECK(rc == code, "demo needs on %s: got %d want %d (%s)", tspec, rc, code, err.msg);
    for (int i = 0; needles && needles[i]; i++)
        CHECK(strstr(err.msg, needles[i]) != NULL, "demo needs on %s: '%s' lacks '%s'", tspec,
              err.msg, needles[i]);
}

/* The declarations as data: the generic check's wording, the claims and
 * in-place helpers, the shared generate path. */
static void test_declarations(void)
{
    xchg_needs grid = {.kinds = XCHG_KIND(XCHG_TOPO_MESH) | XCHG_KIND(XCHG_TOPO_TORUS),
                       .dims = 2,
                       .size_multiple = 3,
                       .virtual_any_size = 1,
                       .why = "a reason"};
    needs_says(&grid, "torus:6x4", NULL, XCHG_ENOTAPPLIC,
               (const char *const[]){"demo needs a two-dimensional mesh or torus with both "
                                     "sizes multiples of 3 (mesh:AxB, torus:AxB; a reason)",
                                     "; torus:6x4 has size 4 in dimension 1",
                                     "(use demo:virtual for any size)", NULL});
    needs_says(&grid, "ring:6", NULL, XCHG_ENOTAPPLIC,
               (const char *const[]){"ring:6 is not one", NULL});
    needs_says(&grid, "torus:2x2x3", NULL, XCHG_ENOTAPPLIC,
               (const char *const[]){"torus:2x2x3 has 3 dimensions", NULL});
    needs_says(&grid, "mesh:6x9", NULL, XCHG_OK, NULL);
    xchg_opts virt;
    memset(&virt, 0, sizeof virt);
    virt.virtual_nodes = 1;
    needs_says(&grid, "torus:6x4", &virt, XCHG_OK, NULL);

    xchg_needs square = {.kinds = XCHG_KIND(XCHG_TOPO_TORUS), .dims = 2, .square_pow2 = 3};
    needs_says(&square, "torus:4x4", NULL, XCHG_ENOTAPPLIC,
               (const char *const[]){"both sizes 2^d, d >= 3 (torus:8x8, torus:16x16, ...)",
                                     "torus:4x4 has d = 2", NULL});
    needs_says(&square, "torus:8x4", NULL, XCHG_ENOTAPPLIC,
               (const char *const[]){"torus:8x4 has sizes 8 and 4", NULL});
    needs_says(&square, "torus:12x12", NULL, XCHG_ENOTAPPLIC,
               (const char *const[]){"side 12, not a power of two", NULL});
    needs_says(&square, "torus:8x8", NULL, XCHG_OK, NULL);

    xchg_needs kd = {.dims_pow2 = 1, .size_multiple_2k = 1};
    needs_says(&kd, "torus:6x6x6", NULL, XCHG_ENOTAPPLIC,
               (const char *const[]){"power-of-two number of dimensions", "has 3 dimensions",
                                     NULL});
    needs_says(&kd, "torus:4x6", NULL, XCHG_ENOTAPPLIC,
               (const char *const[]){"every size a multiple of 2k = 4",
                                     "torus:4x6 has size 6 in dimension 1", NULL});
    needs_says(&kd, "mesh:4x8", NULL, XCHG_OK, NULL);
    xchg_needs pow2 = {.nodes_pow2 = 1};
    needs_says(&pow2, "complete:6", NULL, XCHG_ENOTAPPLIC,
               (const char *const[]){"demo needs a power-of-two node count; complete:6 has 6 "
                                     "nodes", NULL});
    xchg_needs none = {0};
    needs_says(&none, "hypercube:0", NULL, XCHG_OK, NULL);
    xchg_topo t = check_topo("ring:4");
    CHECK(xchg_needs_check(NULL, "demo", &t, NULL, NULL) == XCHG_EINVAL, "NULL needs");

    const xchg_alg *bruck = xchg_alg_find("bruck"), *ring = xchg_alg_find("ring");
    const xchg_alg *ar1 = xchg_alg_find("ar1"), *t1 = xchg_alg_find("t1");
    if (!bruck || !ring || !ar1 || !t1) {
        CHECK(0, "registry entries missing");
        return;
    }
    xchg_topo sw = check_topo("complete:5"), r5 = check_topo("ring:5");
    CHECK(xchg_alg_claims_free(bruck, &sw) && !xchg_alg_claims_free(bruck, &r5),
          "bruck claims contention-freedom on a switch only");
    CHECK(xchg_alg_claims_free(ring, &r5), "ring claims it wherever it applies");
    xchg_opts plain;
    memset(&plain, 0, sizeof plain);
    CHECK(xchg_alg_in_place(ar1, &plain) && xchg_alg_in_place(ar1, NULL) &&
              !xchg_alg_in_place(ar1, &virt),
          "ar1 runs in place, not when hosted on virtual nodes");
    CHECK(!xchg_alg_in_place(t1, &plain), "t1 concentrates data: not in place");

    CHECK(xchg_alg_applies(ring, &t, NULL, NULL) == XCHG_OK, "applies with no options");
    xchg_topo m33 = check_topo("mesh:3x3");
    xchg_sched *s = (xchg_sched *)&m33;
    xchg_err err = {{0}};
    CHECK(xchg_alg_generate(ring, &m33, &plain, &s, &err) == XCHG_ENOTAPPLIC &&
              s == (xchg_sched *)&m33 && strstr(err.msg, "one-dimensional"),
          "the shared path checks the needs before the generator: %s", err.msg);
    CHECK(xchg_alg_generate(NULL, &t, &plain, &s, &err) == XCHG_EINVAL, "NULL alg");
    CHECK(xchg_alg_generate(ring, &t, &plain, &s, &err) == XCHG_OK && s != (xchg_sched *)&m33,
          "ring on ring:4 through the shared path");
    if (s != (xchg_sched *)&m33)
        xchg_sched_free(s);
}

/*
 * Follow every block of s by hand (p small): check the declared size of
 * every message against what the node holds and selects, and that every
 * block ends at its destination. Independent of src/check/verify.c.
 */
static void follow(const xchg_sched *s, const char *what)
{
    uint32_t p = xchg_sched_topo(s)->nodes;
    uint32_t *at = malloc((size_t)p * p * sizeof *at), *next = malloc((size_t)p * p * sizeof *next);
    uint64_t *count = malloc((size_t)p * sizeof *count);
    if (!at || !next || !count) {
        CHECK(0, "out of memory");
        free(at), free(next), free(count);
        return;
    }
    for (uint32_t o = 0; o < p; o++)
        for (uint32_t d = 0; d < p; d++)
            at[(size_t)o * p + d] = o;
    int bad = 0;
    for (size_t k = 0; k < xchg_sched_nsteps(s) && !bad; k++) {
        memset(count, 0, (size_t)p * sizeof *count);
        for (size_t b = 0; b < (size_t)p * p; b++) {
            uint32_t o = (uint32_t)(b / p), d = (uint32_t)(b % p), n = at[b];
            next[b] = n;
            xchg_msg m;
            xchg_sched_message(s, k, n, &m);
            if (m.to != XCHG_NONE && xchg_sched_selects(s, k, n, o, d)) {
                next[b] = m.to;
                count[n]++;
            }
        }
        for (uint32_t n = 0; n < p; n++) {
            xchg_msg m;
            xchg_sched_message(s, k, n, &m);
            uint64_t want = m.to == XCHG_NONE ? 0 : m.blocks;
            if (count[n] != want) {
                CHECK(0, "%s step %zu node %u: sends %llu blocks, declares %llu", what, k, n,
                      (unsigned long long)count[n], (unsigned long long)want);
                bad = 1;
                break;
            }
        }
        memcpy(at, next, (size_t)p * p * sizeof *at);
    }
    for (size_t b = 0; b < (size_t)p * p && !bad; b++)
        if (at[b] != b % p) {
            CHECK(0, "%s: block (%zu,%zu) ends at %u", what, b / p, b % p, at[b]);
            bad = 1;
        }
    CHECK(!bad, "%s delivers every block with honest sizes", what);
    free(at), free(next), free(count);
}

static void test_follow_all(void)
{
    const char *topos[] = {"ring:1", "ring:2",  "ring:7",   "array:6",     "complete:9",
                           "ring:8", "mesh:3x4", "torus:4x4", "hypercube:0", "hypercube:4"};
    for (size_t ti = 0; ti < sizeof topos / sizeof topos[0]; ti++) {
        xchg_topo t = check_topo(topos[ti]);
        for (size_t i = 0; i < xchg_alg_count(); i++) {
            const xchg_alg *a = xchg_alg_at(i);
            if (a->op != XCHG_OP_ALLTOALL)
                continue; /* tests/test_ops.c: tokens, not blocks */
            char specs[16][64];
            int n = 1;
            if (a->variants) {
                n = a->variants(&t, specs, 16);
                if (n > 16)
                    n = 16;
            } else {
                snprintf(specs[0], 64, "%s", a->name);
            }
            for (int v = 0; v < n; v++) {
                const xchg_alg *pa;
                xchg_opts o;
                if (xchg_alg_parse(specs[v], &pa, &o, NULL) != 0 ||
                    xchg_alg_applies(pa, &t, &o, NULL))
                    continue;
                xchg_sched *s = NULL;
                xchg_err err = {{0}};
                if (pa->generate(&t, &o, &s, &err) != 0) {
                    CHECK(0, "%s on %s: %s", specs[v], topos[ti], err.msg);
                    continue;
                }
                char what[160];
                snprintf(what, sizeof what, "%.63s on %.63s", specs[v], topos[ti]);
                follow(s, what);
                xchg_sched_free(s);
            }
        }
    }
}

int main(void)
{
    test_ring();
    test_mesh2();
    test_hypercube();
    test_bruck();
    test_pairwise();
    test_registry();
    test_declarations();
    test_follow_all();
    return check_finish("test_alg_small");
}
