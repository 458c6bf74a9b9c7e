/*
 * test_topo.c - topology specs, coordinates, neighbours and routes, and the
 * one numbering of directed links (xchg_topo_link_id, its inline core in
 * sched/links.h), on trees and on every other kind.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "xchg.h"
#include "sched/links.h"

/* Parse spec, expecting success. */
static xchg_topo parse_ok(const char *spec)
{
    xchg_topo t;
    xchg_err err = {{0}};
    memset(&t, 0, sizeof t);
    int rc = xchg_topo_parse(spec, &t, &err);
    CHECK(rc == 0, "parse '%s' failed: %s", spec, err.msg);
    return t;
}

static void test_parse_good(void)
{
    char buf[128];
    xchg_topo t = parse_ok("torus:8x4");
    CHECK_EQ_U64(t.nodes, 32, "torus:8x4 nodes");
    CHECK_EQ_U64(t.ndims, 2, "torus:8x4 dims");
    CHECK_EQ_U64(t.stride[0], 4, "first coordinate is slowest");
    CHECK_EQ_U64(t.stride[1], 1, "last coordinate is fastest");
    CHECK(strcmp(xchg_topo_spec(&t, buf, sizeof buf), "torus:8x4") == 0, "spec %s", buf);

    t = parse_ok("mesh:2x3x4");
    CHECK_EQ_U64(t.nodes, 24, "mesh:2x3x4 nodes");
    CHECK_EQ_U64(t.stride[0], 12, "mesh stride 0");
    t = parse_ok("hypercube:14");
    CHECK_EQ_U64(t.nodes, 16384, "hypercube:14 nodes");
    CHECK_EQ_U64(t.stride[3], 8, "hypercube bit 3 stride");
    CHECK(strcmp(xchg_topo_spec(&t, buf, sizeof buf), "hypercube:14") == 0, "spec %s", buf);
    t = parse_ok("hypercube:0");
    CHECK_EQ_U64(t.nodes, 1, "hypercube:0 has one node");
    t = parse_ok("ring:1");
    CHECK_EQ_U64(t.nodes, 1, "ring:1");
    t = parse_ok("complete:17");
    CHECK(t.kind == XCHG_TOPO_COMPLETE && t.nodes == 17, "complete:17");
    t = parse_ok("array:5");
    CHECK(t.kind == XCHG_TOPO_ARRAY && t.nodes == 5, "array:5");
    t = parse_ok("torus:2x2x2x2x2");
    CHECK_EQ_U64(t.nodes, 32, "5-D torus nodes");
    t = parse_ok("tree:3");
    CHECK(t.kind == XCHG_TOPO_TREE && t.nodes == 8 && t.ndims == 3 && t.stride[2] == 4,
          "tree:3: 8 leaves, a dimension (level) per bit");
    CHECK(strcmp(xchg_topo_spec(&t, buf, sizeof buf), "tree:3") == 0, "spec %s", buf);
    CHECK(xchg_topo_has_links(&t), "a tree has links");
    t = parse_ok("tree:16");
    CHECK_EQ_U64(t.nodes, 65536, "tree:16, the deepest");
    t = parse_ok("tree:0");
    CHECK_EQ_U64(t.nodes, 1, "tree:0 is one leaf");
}

static void test_parse_bad(void)
{
    const char *bad[] = {"",          "torus",        "torus:",        "torus:8x",
                         "torus:x8",  "torus:8xx8",   "torus:1x8",     "torus:8x-2",
                         "torus:8x8x", "mesh:0",      "ring:0",        "ring:-3",
                         "ring:3.5",  "ring:abc",     "ring: 4",       "hypercube:25",
                         "hypercube:-1", "complete:0", "star:8",       "torus:8x8 ",
                         "ring:99999999999999999999", "torus:4096x4096x2", "Ring:8",
                         "tree:17",   "tree:-1",      "tree:",         "tree:2x2"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        xchg_topo t;
        memset(&t, 0x5a, sizeof t);
        xchg_topo before = t;
        xchg_err err = {{0}};
        int rc = xchg_topo_parse(bad[i], &t, &err);
        CHECK(rc == XCHG_EINVAL, "'%s' should be refused, rc %d", bad[i], rc);
        CHECK(strstr(err.msg, "accepted:") != NULL, "'%s' message names what is accepted: %s",
              bad[i], err.msg);
        CHECK(memcmp(&t, &before, sizeof t) == 0, "'%s' left the output unchanged", bad[i]);
    }
    CHECK(xchg_topo_parse(NULL, NULL, NULL) == XCHG_EINVAL, "NULL spec refused");
}

static void test_coords_neighbors(void)
{
    xchg_topo t = parse_ok("torus:3x5");
    /* id = x0*5 + x1 */
    CHECK_EQ_U64(xchg_topo_coord(&t, 13, 0), 2, "coord 0 of 13");
    CHECK_EQ_U64(xchg_topo_coord(&t, 13, 1), 3, "coord 1 of 13");
    CHECK_EQ_U64(xchg_topo_neighbor(&t, 14, 1, +1), 10, "torus wraps along dim 1");
    CHECK_EQ_U64(xchg_topo_neighbor(&t, 2, 0, -1), 12, "torus wraps along dim 0");
    xchg_topo m = parse_ok("mesh:3x5");
    CHECK_EQ_U64(xchg_topo_neighbor(&m, 14, 1, +1), XCHG_NONE, "mesh edge has no +1 link");
    CHECK_EQ_U64(xchg_topo_neighbor(&m, 13, 1, +1), 14, "mesh inner link");
    xchg_topo h = parse_ok("hypercube:4");
    CHECK_EQ_U64(xchg_topo_neighbor(&h, 5, 3, +1), 13, "hypercube bit 3");
    CHECK_EQ_U64(xchg_topo_coord(&h, 5, 2), 1, "hypercube coord is the bit");
    xchg_topo c = parse_ok("complete:6");
    CHECK_EQ_U64(xchg_topo_neighbor(&c, 1, 0, +1), XCHG_NONE, "complete has no links");
    CHECK(!xchg_topo_has_links(&c), "complete has no links");
    xchg_topo r2 = parse_ok("ring:2");
    CHECK_EQ_U64(xchg_topo_neighbor(&r2, 0, 0, -1), 1, "ring:2 neighbour");
}

/* Walk a route hop by hop; returns where it ends. */
static uint32_t walk(const xchg_topo *t, uint32_t from, const xchg_seg *segs, int n)
{
    uint32_t cur = from;
    for (int i = 0; i < n; i++)
        for (uint32_t h = 0; h < segs[i].hops; h++) {
            cur = xchg_topo_neighbor(t, cur, segs[i].dim, segs[i].dir);
            if (cur == XCHG_NONE)
                return XCHG_NONE;
        }
    return cur;
}

static void test_routes(void)
{
    xchg_seg segs[XCHG_MAX_DIMS];
    int n;
    xchg_topo t = parse_ok("torus:8x8");
    /* 0 -> 9 = (1,1): along dim 1 first (row first), then dim 0 */
    xchg_topo_route(&t, 0, 9, XCHG_ROUTE_SHORTEST, segs, &n);
    CHECK(n == 2 && segs[0].dim == 1 && segs[0].dir == 1 && segs[0].hops == 1 &&
              segs[1].dim == 0 && segs[1].hops == 1,
          "0->9 on torus:8x8 is row first");
    /* 0 -> 7 = (0,7): shortest is one hop -1 */
    xchg_topo_route(&t, 0, 7, XCHG_ROUTE_SHORTEST, segs, &n);
    CHECK(n == 1 && segs[0].dir == -1 && segs[0].hops == 1, "0->7 goes -1 one hop");
    xchg_topo_route(&t, 0, 7, XCHG_ROUTE_PLUS, segs, &n);
    CHECK(n == 1 && segs[0].dir == 1 && segs[0].hops == 7, "PLUS policy goes +1 seven hops");
    /* tie (distance 4 of 8) goes +1 */
    xchg_topo_route(&t, 0, 4, XCHG_ROUTE_SHORTEST, segs, &n);
    CHECK(n == 1 && segs[0].dir == 1 && segs[0].hops == 4, "tie goes +1");
    xchg_topo a = parse_ok("array:6");
    xchg_topo_route(&a, 5, 0, XCHG_ROUTE_PLUS, segs, &n);
    CHECK(n == 1 && segs[0].dir == -1 && segs[0].hops == 5, "array has only one way");
    xchg_topo h = parse_ok("hypercube:4");
    /* seed 002: 0010 -> 1001 goes 0010 -> 0011 -> 0001 -> 1001 */
    xchg_topo_route(&h, 2, 9, XCHG_ROUTE_SHORTEST, segs, &n);
    CHECK(n == 3 && segs[0].dim == 0 && segs[0].dir == 1 && segs[1].dim == 1 &&
              segs[1].dir == -1 && segs[2].dim == 3 && segs[2].dir == 1,
          "e-cube route of seed 002");
    xchg_topo c = parse_ok("complete:5");
    xchg_topo_route(&c, 1, 4, XCHG_ROUTE_SHORTEST, segs, &n);
    CHECK(n == 0, "complete routes are empty");

    /* every route on several topologies reaches its target */
    const char *specs[] = {"torus:3x5", "mesh:4x3x2", "ring:7", "array:7", "hypercube:5",
                           "torus:2x2x3"};
    for (size_t k = 0; k < sizeof specs / sizeof specs[0]; k++) {
        xchg_topo tt = parse_ok(specs[k]);
        int bad = 0;
        for (int policy = -1; policy <= 1; policy++)
            for (uint32_t i = 0; i < tt.nodes; i++)
                for (uint32_t j = 0; j < tt.nodes; j++) {
                    xchg_topo_route(&tt, i, j, policy, segs, &n);
                    if (walk(&tt, i, segs, n) != j)
                        bad++;
                }
        CHECK(bad == 0, "%s: %d routes miss their target", specs[k], bad);
    }
}

/*
 * A tree: routes climb to the lowest common ancestor and come down, one
 * hop a level; every directed edge has its own link id, whichever way the
 * route names it, and xchg_topo_link_ends gives the hop back.
 */
static void test_tree(void)
{
    xchg_seg segs[XCHG_MAX_DIMS];
    int n;
    xchg_topo t = parse_ok("tree:3");
    /* 2 -> 6: up levels 0, 1, 2 to the root, down to the 4-7 half, then 6-7, then 6 */
    xchg_topo_route(&t, 2, 6, XCHG_ROUTE_SHORTEST, segs, &n);
    CHECK(n == 6, "2->6 on tree:3 takes 6 hops, got %d", n);
    int want[6][2] = {{0, 0}, {1, 0}, {2, 0}, {2, 1}, {1, 1}, {0, -1}};
    for (int i = 0; i < n && i < 6; i++)
        CHECK(segs[i].dim == want[i][0] && segs[i].dir == want[i][1] && segs[i].hops == 1,
              "2->6 hop %d: level %d dir %d, want %d %d", i, segs[i].dim, segs[i].dir, want[i][0],
              want[i][1]);
    /* the switches it passes are named by their first leaf */
    CHECK_EQ_U64(xchg_topo_neighbor(&t, 2, 0, 0), 2, "leaf 2 climbs to the switch of 2-3");
    CHECK_EQ_U64(xchg_topo_neighbor(&t, 2, 1, 0), 0, "the switch of 2-3 climbs to 0-3's");
    CHECK_EQ_U64(xchg_topo_neighbor(&t, 0, 2, +1), 4, "the root comes down to 4-7's");
    CHECK_EQ_U64(xchg_topo_neighbor(&t, 6, 0, -1), 6, "the switch of 6-7 comes down to 6");
    CHECK_EQ_U64(xchg_topo_neighbor(&t, 3, 1, 0), XCHG_NONE, "3 names no level-1 subtree");
    CHECK_EQ_U64(xchg_topo_neighbor(&t, 2, 1, +1), XCHG_NONE, "2 names no level-2 switch");
    /* 4 -> 5: under one switch */
    xchg_topo_route(&t, 4, 5, XCHG_ROUTE_PLUS, segs, &n);
    CHECK(n == 2 && segs[0].dir == 0 && segs[1].dim == 0 && segs[1].dir == 1, "4->5 on tree:3");

    /* every route on tree:0..5 reaches its target over 2L links (L its
     * top level), and the routes use one link id for each of the tree's
     * 2 (2^D - 1) edges each way, an id whose ends xchg_topo_link_ends gives
     * back as the hop */
    for (int d = 0; d <= 5; d++) {
        char spec[16];
        snprintf(spec, sizeof spec, "tree:%d", d);
        xchg_topo tt = parse_ok(spec);
        size_t nl = xchg_topo_link_count(&tt);
        unsigned char *seen = calloc(nl ? nl : 1, 1);
        int bad = 0;
        for (uint32_t i = 0; i < tt.nodes; i++)
            for (uint32_t j = 0; j < tt.nodes; j++) {
                xchg_link_walk w;
                size_t id;
                uint64_t links = 0;
                xchg_link_walk_start(&w, &tt, i, j, XCHG_ROUTE_SHORTEST);
                while (xchg_link_walk_next(&w, &id)) {
                    uint32_t from, to;
                    int dim, dir;
                    xchg_topo_link_ends(&tt, id, &from, &dim, &dir, &to);
                    if (id >= nl || to == XCHG_NONE ||
                        xchg_link_id(&tt, from, dim, dir) != id ||
                        xchg_topo_neighbor(&tt, from, dim, dir) != to)
                        bad++;
                    else
                        seen[id] = 1;
                    links++;
                }
                int levels = 0;
                while ((i ^ j) >> levels)
                    levels++;
                if (w.left || w.at != j || links != 2u * (unsigned)levels)
                    bad++;
            }
        size_t used = 0;
        for (size_t k = 0; k < nl; k++)
            used += seen[k];
        CHECK(bad == 0, "%s: %d bad hops or routes", spec, bad);
        CHECK(used == 4 * ((size_t)tt.nodes - 1),
              "%s: routes use %zu link ids, want 2 (2^D - 1) edges both ways = %zu", spec, used,
              4 * ((size_t)tt.nodes - 1));
        free(seen);
    }
}

/*
 * The public link numbering on every kind: every hop of every route gets
 * the id the inline rule gives, below xchg_topo_link_count and laid out as
 * xchg.h says (node * ndims * 2 + dim * 2 + up); xchg_topo_link_ends gives
 * back a link from the hop's start to its end; one physical link has one
 * id (a hypercube's bit either way, a size-2 wrapped dimension's two
 * directions) and two different links never share one.
 */
static void test_link_numbering(void)
{
    const char *specs[] = {"ring:2",   "ring:5",      "array:4",  "torus:2x3", "torus:4x3",
                           "mesh:3x4", "hypercube:3", "tree:3",   "complete:4",
                           "torus:2x2x2"};
    for (size_t k = 0; k < sizeof specs / sizeof specs[0]; k++) {
        xchg_topo t = parse_ok(specs[k]);
        size_t nl = xchg_topo_link_count(&t);
        CHECK(nl == (xchg_topo_has_links(&t) ? (size_t)t.nodes * (size_t)t.ndims * 2 : 0),
              "link count of %s: %zu", specs[k], nl);
        /* far[id]: the far end the hops give that id, XCHG_NONE unseen */
        uint32_t *far = malloc((nl ? nl : 1) * sizeof *far);
        for (size_t i = 0; i < nl; i++)
            far[i] = XCHG_NONE;
        int bad = 0;
        for (uint32_t a = 0; a < t.nodes; a++)
            for (int dim = 0; dim < t.ndims; dim++)
                for (int dir = -1; dir <= 1; dir++) {
                    uint32_t b = xchg_topo_neighbor(&t, a, dim, dir);
                    if (b == XCHG_NONE || (dir == 0 && t.kind != XCHG_TOPO_TREE))
                        continue;
                    size_t id = xchg_topo_link_id(&t, a, dim, dir);
                    uint32_t from, to;
                    int d, r;
                    xchg_topo_link_ends(&t, id, &from, &d, &r, &to);
                    if (id >= nl || id != xchg_link_id(&t, a, dim, dir) ||
                        id / 2 % (size_t)t.ndims != (size_t)dim || from != a || to != b || d != dim ||
                        xchg_topo_link_id(&t, from, d, r) != id ||
                        (far[id] != XCHG_NONE && far[id] != b))
                        bad++;
                    else
                        far[id] = b;
                    if (t.kind == XCHG_TOPO_HYPERCUBE && r != ((a >> dim) & 1 ? -1 : 1))
                        bad++;
                }
        CHECK(bad == 0, "%s: %d hops whose link id or ends are wrong", specs[k], bad);
        free(far);
    }
    /* one id for the two ways round a size-2 wrapped dimension, as the
     * verifier counts them */
    xchg_topo t = parse_ok("torus:2x3");
    CHECK_EQ_U64(xchg_topo_link_id(&t, 1, 0, +1), xchg_topo_link_id(&t, 1, 0, -1),
                 "torus:2x3: node 1's +1 and -1 links along size 2 are one");
    CHECK(xchg_topo_link_id(&t, 1, 1, +1) != xchg_topo_link_id(&t, 1, 1, -1),
          "torus:2x3: node 1's +1 and -1 links along size 3 are two");
    t = parse_ok("hypercube:3");
    CHECK_EQ_U64(xchg_topo_link_id(&t, 5, 1, +1), xchg_topo_link_id(&t, 5, 1, -1),
                 "hypercube:3: the link across bit 1 has one id whichever way it is named");
}

int main(void)
{
    test_parse_good();
    test_parse_bad();
    test_coords_neighbors();
    test_routes();
    test_tree();
    test_link_numbering();
    return check_finish("test_topo");
}
