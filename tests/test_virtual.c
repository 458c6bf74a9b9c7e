/*
 * test_virtual.c - hosting virtual nodes (src/alg/virtual.c): the coordinate
 * maps, ar1:virtual on every ring size, at2:virtual on many tori (odd,
 * prime, mixed), hosting of other registry schedules through the generic
 * locate (as a k-D generator would use it), identity hosting, honest
 * accounting (one-port per real sub-step, so a host's guests' messages
 * cost real start-ups) and the refusals.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "alg/virtual.h"

/* Generate alg on tspec, verify, return counts via rep; 0 on failure. */
static int run(const char *tspec, const char *alg, xchg_verify_report *rep)
{
    xchg_sched *s = check_generate(tspec, alg);
    if (!s)
        return 0;
    char what[96];
    snprintf(what, sizeof what, "%s on %s", alg, tspec);
    check_verify_clean(s, what, rep);
    /* declared sizes (the cost model's input) = what was counted */
    xchg_machine m;
    memset(&m, 0, sizeof m);
    m.ts = m.tw = 1;
    xchg_cost c;
    CHECK(xchg_cost_compute(s, &m, 1.0, 0, &c, NULL) == 0, "cost");
    CHECK_EQ_U64(c.startups, rep->startups, what);
    CHECK_EQ_U64(c.volume_blocks, rep->volume_blocks, what);
    xchg_sched_free(s);
    return 1;
}

/* The maps: host(primary(c)) = c, hosts are monotone and onto. */
static void check_maps(const char *rspec, const char *vspec)
{
    xchg_topo r = check_topo(rspec), v = check_topo(vspec);
    xchg_err err = {{0}};
    CHECK(xchg_virtual_check(&r, &v, &err) == 0, "%s hosts %s: %s", rspec, vspec, err.msg);
    uint32_t *guests = calloc(r.nodes, sizeof *guests);
    if (!guests)
        return;
    int bad = 0;
    for (uint32_t n = 0; n < r.nodes; n++)
        bad += xchg_virtual_host(&r, &v, xchg_virtual_primary(&r, &v, n)) != n;
    for (uint32_t u = 0; u < v.nodes; u++) {
        uint32_t h = xchg_virtual_host(&r, &v, u);
        if (h >= r.nodes) {
            bad++;
            continue;
        }
        guests[h]++;
        /* a virtual neighbour is hosted on the same or a neighbouring node */
        for (int k = 0; k < v.ndims; k++) {
            uint32_t w = xchg_topo_neighbor(&v, u, k, +1);
            if (w == XCHG_NONE)
                continue;
            uint32_t hw = xchg_virtual_host(&r, &v, w);
            bad += hw != h && hw != xchg_topo_neighbor(&r, h, k, +1);
        }
    }
    uint64_t most = 0;
    for (uint32_t n = 0; n < r.nodes; n++) {
        bad += guests[n] == 0;
        if (guests[n] > most)
            most = guests[n];
    }
    /* at most ceil(n'/n) guests per dimension */
    uint64_t cap = 1;
    for (int k = 0; k < r.ndims; k++)
        cap *= (v.size[k] + r.size[k] - 1) / r.size[k];
    CHECK(bad == 0 && most <= cap, "maps %s on %s: %d bad, %llu guests on one node", vspec,
          rspec, bad, (unsigned long long)most);
    free(guests);
}

/* Host registry schedule `alg` made on vspec on the real rspec, through
 * the generic locate; verified. Returns the report's start-ups. */
static uint64_t host_generic(const char *rspec, const char *vspec, const char *alg,
                             xchg_verify_report *rep)
{
    xchg_topo r = check_topo(rspec), v = check_topo(vspec);
    xchg_sched *vs = NULL, *s = NULL;
    xchg_err err = {{0}};
    int rc = xchg_generate(&v, alg, &vs, &err);
    CHECK(rc == 0, "%s on %s: %s", alg, vspec, err.msg);
    if (rc)
        return 0;
    rc = xchg_virtual_embed(&r, vs, NULL, "hosted", &s, &err);
    CHECK(rc == 0 && s, "hosting %s of %s on %s: %d %s", alg, vspec, rspec, rc, err.msg);
    if (rc)
        return 0;
    char what[128];
    snprintf(what, sizeof what, "%s made on %s hosted on %s", alg, vspec, rspec);
    check_verify_clean(s, what, rep);
    CHECK_EQ_U64(rep->blocks, (uint64_t)r.nodes * r.nodes, what);
    xchg_sched_free(s);
    return rep->startups;
}

int main(void)
{
    xchg_verify_report a, b;

    check_maps("ring:5", "ring:6");
    check_maps("ring:1", "ring:2");
    check_maps("ring:7", "ring:16");
    check_maps("torus:5x7", "torus:8x8");
    check_maps("torus:3x3x3", "torus:4x4x4");
    check_maps("torus:9x9x9", "torus:12x12x12");
    check_maps("mesh:3x5", "mesh:4x8");

    /* ar1:virtual on every ring size; on even sizes it is ar1 itself */
    for (int p = 1; p <= 80; p++) {
        char t[32];
        snprintf(t, sizeof t, "ring:%d", p);
        if (!run(t, "ar1:virtual", &a))
            continue;
        if (p % 2 == 0 && run(t, "ar1", &b)) {
            CHECK_EQ_U64(a.startups, b.startups, "ar1:virtual = ar1 on even rings");
            CHECK_EQ_U64(a.volume_blocks, b.volume_blocks, "ar1:virtual = ar1 on even rings");
        }
        /* honest: an odd ring costs at least the next even ring's AR1 */
        if (p % 2 == 1 && p >= 5) {
            uint64_t q = (uint64_t)p + 1;
            CHECK(a.startups >= (q + 3) / 4 + 1, "ring:%d hosted start-ups %llu", p,
                  (unsigned long long)a.startups);
        }
    }
    run("ring:101", "ar1:virtual", &a);
    run("torus:7", "ar1:virtual", &a);

    /* at2:virtual: small tori of every shape, odd, prime, mixed */
    for (int r = 2; r <= 11; r++)
        for (int s = 2; s <= 11; s++) {
            char t[32];
            snprintf(t, sizeof t, "torus:%dx%d", r, s);
            run(t, "at2:virtual", &a);
        }
    const char *tori[] = {"5x7", "6x10", "13x17", "17x13", "9x31", "2x30", "31x31"};
    for (size_t i = 0; i < sizeof tori / sizeof tori[0]; i++) {
        char t[32];
        snprintf(t, sizeof t, "torus:%s", tori[i]);
        run(t, "at2:virtual", &a);
    }
    /* identity hosting changes nothing */
    run("torus:8x12", "at2:virtual", &a);
    run("torus:8x12", "at2", &b);
    CHECK_EQ_U64(a.startups, b.startups, "at2:virtual = at2 on 8x12");
    CHECK_EQ_U64(a.volume_blocks, b.volume_blocks, "at2:virtual = at2 on 8x12");

    /* generic hosting (NULL locate) of other schedules, as k-D code would */
    host_generic("ring:5", "ring:8", "ar1", &a);
    host_generic("ring:7", "ring:8", "ring-bidir", &a);
    host_generic("torus:3x5", "torus:4x8", "at2", &a);
    host_generic("torus:3x3x3", "torus:4x4x4", "pairwise", &a);
    host_generic("mesh:3x5", "mesh:4x8", "mesh2", &a);
    /* a 3-D torus hosting a 3-D torus schedule with several guests per node */
    host_generic("torus:2x3x2", "torus:4x4x4", "pairwise", &a);
    /* the generic locate agrees with at2's own on 5x7 */
    run("torus:5x7", "at2:virtual", &b);
    host_generic("torus:5x7", "torus:8x8", "at2", &a);
    CHECK_EQ_U64(a.startups, b.startups, "generic vs own locate: start-ups");
    CHECK_EQ_U64(a.volume_blocks, b.volume_blocks, "generic vs own locate: volume");
    /* and where at2 splits a final step by origin (8x12 hosted on 7x11) */
    run("torus:7x11", "at2:virtual", &b);
    host_generic("torus:7x11", "torus:8x12", "at2", &a);
    CHECK_EQ_U64(a.startups, b.startups, "generic vs own locate, split final: start-ups");
    CHECK_EQ_U64(a.volume_blocks, b.volume_blocks, "generic vs own locate, split final: volume");

    /* honest accounting: ring:5 on ring:6, one node hosts two virtual nodes
     * that both send in every AR1 step of 6 nodes except one where they
     * swap locally; each such step takes two real start-ups */
    run("ring:5", "ar1:virtual", &a);
    CHECK(a.startups > 3, "ring:5 hosted: %llu start-ups, more than AR1's 3 on 6 nodes",
          (unsigned long long)a.startups);

    /* refusals */
    xchg_topo r = check_topo("ring:5"), v = check_topo("torus:2x4"), v2 = check_topo("ring:4");
    xchg_err err = {{0}};
    CHECK(xchg_virtual_check(&r, &v, &err) == XCHG_ENOTAPPLIC, "ring on torus refused");
    CHECK(xchg_virtual_check(&r, &v2, &err) == XCHG_ENOTAPPLIC && strstr(err.msg, "below"),
          "smaller virtual refused: %s", err.msg);
    xchg_topo h = check_topo("hypercube:3");
    CHECK(xchg_virtual_check(&h, &h, &err) == XCHG_ENOTAPPLIC, "hypercube refused");
    /* embed takes the schedule over also when it refuses */
    xchg_sched *vs = NULL, *s = NULL;
    CHECK(xchg_generate(&v2, "ar1", &vs, &err) == 0, "ar1 on ring:4");
    CHECK(xchg_virtual_embed(&r, vs, NULL, "x", &s, &err) == XCHG_ENOTAPPLIC && !s,
          "ring:4 schedule on ring:5 refused");
    return check_finish("test_virtual");
}
