/*
 * test_draw.c - the step diagrams (xchg_draw_step, xchg_draw_all_steps),
 * held to what the schedule says, computed here from the public API:
 *   - every registry algorithm on one topology of each kind: one
 *     <path class="msg"> per node that sends in the step (xchg_sched_message),
 *     and a document that starts with <svg, ends with </svg> and has a
 *     width and a height;
 *   - conflicts: as many <path class="conflict"> as directed links that two
 *     or more messages cross (walked here with xchg_topo_route), so pairwise
 *     on torus:4x4 has some and t1 on torus:8x8 none;
 *   - a network beyond 32x32 shows its top-left 16x16 submesh: the arrows
 *     drawn are the messages whose routes stay in it, and the caption says
 *     how many are not;
 *   - the contact sheet holds every step's arrows;
 *   - bad steps, NULL arguments, a failing write callback and a sheet of
 *     too many steps are refused.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

/* Nonzero when node a sends to another node at step. */
static int sends(const xchg_sched *s, size_t step, uint32_t a, xchg_msg *m)
{
    xchg_sched_message(s, step, a, m);
    return m->to != XCHG_NONE && m->to != a;
}

/* Nodes that send at step. */
static size_t senders(const xchg_sched *s, size_t step)
{
    size_t n = 0;
    xchg_msg m;
    for (uint32_t a = 0; a < xchg_sched_topo(s)->nodes; a++)
        n += (size_t)sends(s, step, a, &m);
    return n;
}

/* Directed links (node, dim, dir) that two or more messages of the step
 * cross, every node shown. */
static size_t conflict_links(const xchg_sched *s, size_t step)
{
    const xchg_topo *t = xchg_sched_topo(s);
    if (!xchg_topo_has_links(t))
        return 0;
    size_t nl = (size_t)t->nodes * (size_t)t->ndims * 2;
    unsigned *load = calloc(nl, sizeof *load);
    if (!load)
        return 0;
    xchg_msg m;
    for (uint32_t a = 0; a < t->nodes; a++) {
        if (!sends(s, step, a, &m))
            continue;
        xchg_seg segs[XCHG_MAX_DIMS];
        int nsegs = 0;
        xchg_topo_route(t, a, m.to, m.route_policy, segs, &nsegs);
        uint32_t cur = a;
        for (int g = 0; g < nsegs; g++)
            for (uint32_t h = 0; h < segs[g].hops; h++) {
                load[((size_t)cur * (size_t)t->ndims + (size_t)segs[g].dim) * 2 +
                     (segs[g].dir > 0)]++;
                cur = xchg_topo_neighbor(t, cur, segs[g].dim, segs[g].dir);
            }
    }
    size_t n = 0;
    for (size_t i = 0; i < nl; i++)
        n += load[i] >= 2;
    free(load);
    return n;
}

/* The document is an SVG element with a positive width and height. */
static void check_well_formed(const check_doc *d, const char *what)
{
    CHECK(d->buf && strncmp(d->buf, "<svg", 4) == 0, "%s: starts with <svg", what);
    size_t n = d->len;
    while (n && (d->buf[n - 1] == '\n' || d->buf[n - 1] == ' '))
        n--;
    CHECK(n >= 6 && strncmp(d->buf + n - 6, "</svg>", 6) == 0, "%s: ends with </svg>", what);
    const char *w = d->buf ? strstr(d->buf, " width=\"") : NULL;
    const char *h = d->buf ? strstr(d->buf, " height=\"") : NULL;
    CHECK(w && atof(w + 8) > 0, "%s: has a width", what);
    CHECK(h && atof(h + 9) > 0, "%s: has a height", what);
    CHECK(check_doc_count(d, "<path") >= check_doc_count(d, "class=\"msg\""), "%s: arrows are paths", what);
}

/* Draw step of s into d (emptied first); returns the status. */
static int draw(const xchg_sched *s, size_t step, check_doc *d)
{
    d->len = 0;
    if (d->buf)
        d->buf[0] = '\0';
    xchg_err err = {{0}};
    int rc = xchg_draw_step(s, step, NULL, check_doc_write, d, &err);
    CHECK(rc == 0, "draw %s step %zu: %s", xchg_sched_algorithm(s), step, err.msg);
    return rc;
}

/* Every step of s: one arrow per sender, conflicts as the routes say. */
static void check_steps(const char *alg, const char *topo, const xchg_sched *s, size_t most)
{
    check_doc d = {0};
    size_t n = xchg_sched_nsteps(s);
    for (size_t k = 0; k < n && k < most; k++) {
        if (draw(s, k, &d))
            break;
        char what[160];
        snprintf(what, sizeof what, "%s on %s step %zu", alg, topo, k);
        check_well_formed(&d, what);
        CHECK_EQ_U64(check_doc_count(&d, "class=\"msg\""), senders(s, k), what);
        CHECK_EQ_U64(check_doc_count(&d, "class=\"conflict\""), conflict_links(s, k), what);
    }
    free(d.buf);
}

static void each_alg(const char *alg, const char *topo, const xchg_topo *t, xchg_sched *s,
                     void *ctx)
{
    (void)t;
    (void)ctx;
    check_steps(alg, topo, s, 3);
}

/* pairwise on torus:4x4 crosses links twice; t1 on torus:8x8 never. */
static void test_conflicts(void)
{
    xchg_sched *s = check_generate("torus:4x4", "pairwise");
    size_t total = 0;
    check_doc d = {0};
    for (size_t k = 0; s && k < xchg_sched_nsteps(s); k++)
        if (draw(s, k, &d) == 0)
            total += check_doc_count(&d, "class=\"conflict\"");
    CHECK(total > 0, "pairwise on torus:4x4 has conflict links (%zu)", total);
    if (s)
        check_steps("pairwise", "torus:4x4", s, SIZE_MAX);
    xchg_sched_free(s);
    s = check_generate("torus:8x8", "t1");
    for (size_t k = 0; s && k < xchg_sched_nsteps(s); k++)
        if (draw(s, k, &d) == 0) {
            CHECK_EQ_U64(check_doc_count(&d, "class=\"conflict\""), 0, "t1 on torus:8x8: conflict links");
            CHECK_EQ_U64(check_doc_count(&d, "class=\"msg\""), senders(s, k), "t1 on torus:8x8: arrows");
        }
    xchg_sched_free(s);
    free(d.buf);
}

/* torus:64x64 shows the 16x16 box at node 0: the arrows are the messages
 * whose routes stay in it. */
static void test_submesh(void)
{
    xchg_sched *s = check_generate("torus:64x64", "mesh2");
    if (!s)
        return;
    const xchg_topo *t = xchg_sched_topo(s);
    check_doc d = {0};
    size_t step = 0;
    if (draw(s, step, &d) == 0) {
        size_t inside = 0, all = 0;
        xchg_msg m;
        for (uint32_t a = 0; a < t->nodes; a++) {
            if (!sends(s, step, a, &m))
                continue;
            all++;
            xchg_seg segs[XCHG_MAX_DIMS];
            int nsegs = 0;
            xchg_topo_route(t, a, m.to, m.route_policy, segs, &nsegs);
            uint32_t cur = a;
            int in = 1;
            for (int g = 0; g <= nsegs; g++) {
                for (uint32_t h = 0; h <= (g < nsegs ? segs[g].hops : 0); h++) {
                    if (xchg_topo_coord(t, cur, 0) >= 16 || xchg_topo_coord(t, cur, 1) >= 16)
                        in = 0;
                    if (g < nsegs && h < segs[g].hops)
                        cur = xchg_topo_neighbor(t, cur, segs[g].dim, segs[g].dir);
                }
            }
            inside += (size_t)in;
        }
        CHECK(inside > 0 && inside < all, "some messages stay in the box (%zu of %zu)", inside,
              all);
        CHECK_EQ_U64(check_doc_count(&d, "class=\"msg\""), inside, "torus:64x64 arrows in the box");
        CHECK_EQ_U64(check_doc_count(&d, "class=\"node\""), 256, "torus:64x64 nodes drawn");
        char note[96];
        snprintf(note, sizeof note, "%zu of %zu messages leave it", all - inside, all);
        CHECK(strstr(d.buf, note) != NULL, "caption says '%s'", note);
        check_well_formed(&d, "torus:64x64");
    }
    free(d.buf);
    xchg_sched_free(s);
}

/* The contact sheet: every step's arrows, one document. */
static void test_sheet(void)
{
    const char *cases[][2] = {
        {"torus:4x4", "t2"}, {"hypercube:3", "hc-standard"}, {"ring:6", "ring"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        xchg_sched *s = check_generate(cases[i][0], cases[i][1]);
        if (!s)
            continue;
        check_doc d = {0};
        xchg_err err = {{0}};
        int rc = xchg_draw_all_steps(s, NULL, check_doc_write, &d, &err);
        CHECK(rc == 0, "sheet of %s on %s: %s", cases[i][1], cases[i][0], err.msg);
        size_t want = 0;
        for (size_t k = 0; k < xchg_sched_nsteps(s); k++)
            want += senders(s, k);
        CHECK_EQ_U64(check_doc_count(&d, "class=\"msg\""), want, "sheet arrows");
        CHECK_EQ_U64(check_doc_count(&d, "class=\"panel\""), xchg_sched_nsteps(s), "sheet panels");
        check_well_formed(&d, "sheet");
        free(d.buf);
        xchg_sched_free(s);
    }
}

/* What the calls refuse. */
static void test_errors(void)
{
    xchg_sched *s = check_generate("ring:5", "ring");
    if (!s)
        return;
    check_doc d = {0};
    xchg_err err = {{0}};
    size_t n = xchg_sched_nsteps(s);
    CHECK(xchg_draw_step(s, n, NULL, check_doc_write, &d, &err) == XCHG_EINVAL,
          "a step past the end is refused");
    char range[32];
    snprintf(range, sizeof range, "0..%zu", n - 1);
    CHECK(strstr(err.msg, range) != NULL, "the message names the range: %s", err.msg);
    CHECK(d.len == 0, "nothing written for a bad step");
    CHECK(xchg_draw_step(NULL, 0, NULL, check_doc_write, &d, NULL) == XCHG_EINVAL, "NULL schedule");
    CHECK(xchg_draw_step(s, 0, NULL, NULL, &d, NULL) == XCHG_EINVAL, "NULL write");
    CHECK(xchg_draw_all_steps(NULL, NULL, check_doc_write, &d, NULL) == XCHG_EINVAL, "NULL sheet");
    check_doc bad = {0};
    bad.fail_after = 2;
    CHECK(xchg_draw_step(s, 0, NULL, check_doc_write, &bad, &err) == XCHG_EINVAL &&
              strstr(err.msg, "write callback failed"),
          "a failing write callback is reported: %s", err.msg);
    free(bad.buf);
    xchg_sched_free(s);
    s = check_generate("hypercube:9", "hc-direct");
    if (s) {
        CHECK(xchg_sched_nsteps(s) > XCHG_DRAW_MAX_PANELS, "hc-direct on hypercube:9 is long");
        CHECK(xchg_draw_all_steps(s, NULL, check_doc_write, &d, &err) == XCHG_ETOOBIG,
              "a sheet of %zu steps is refused", xchg_sched_nsteps(s));
    }
    xchg_sched_free(s);
    free(d.buf);
}

/* Labels: sizes next to the arrows unless asked not to. */
static void test_labels(void)
{
    xchg_sched *s = check_generate("torus:4x4", "t2");
    if (!s)
        return;
    check_doc d = {0};
    xchg_draw_opts o = {0};
    CHECK(xchg_draw_step(s, 0, &o, check_doc_write, &d, NULL) == 0, "t2 step 0");
    CHECK_EQ_U64(check_doc_count(&d, "class=\"size\""), senders(s, 0), "one size label per arrow");
    d.len = 0;
    o.no_labels = 1;
    CHECK(xchg_draw_step(s, 0, &o, check_doc_write, &d, NULL) == 0, "t2 step 0 without labels");
    d.buf[d.len] = '\0';
    CHECK_EQ_U64(check_doc_count(&d, "class=\"size\""), 0, "no size labels when asked");
    free(d.buf);
    xchg_sched_free(s);
}

int main(void)
{
    const char *topos[] = {"ring:8",      "array:6",     "mesh:4x6",   "torus:4x4",
                           "torus:3x4x2", "hypercube:4", "complete:6", "torus:5"};
    for (size_t i = 0; i < sizeof topos / sizeof topos[0]; i++)
        CHECK(check_each_schedule(topos[i], each_alg, NULL) > 0, "some algorithm on %s", topos[i]);
    test_conflicts();
    test_submesh();
    test_sheet();
    test_errors();
    test_labels();
    return check_finish("test_draw");
}
