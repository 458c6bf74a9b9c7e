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
 *   - sender groups (xchg_sched_group): as many <circle class="group"
 *     data-group="K"> as senders the schedule puts in group K, a legend
 *     entry per group name, on single steps and contact sheets; and the
 *     groups themselves held to the papers' set definitions, computed here:
 *     Suh et al.'s SG_p(1), SG_p(2) (main diagonals of every 2^p block, and
 *     of its quadrants), T2's pairing (G_p(2i-1) and G_p(2i) move along
 *     different dimensions in a step), Liu et al.'s even and odd nodes
 *     ((x+y) mod 2; the coordinate sum for PT4/PTk) and MT3's G_i (sum mod
 *     3), the bits of each phase of multiphase and hc-standard, and for
 *     the other operations the dimension a hypercube sender crosses and
 *     whether a mesh sender's message stays in its row or its column;
 *     idle nodes and algorithms without groups have none;
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
 * cross, every node shown. A tree's edge is keyed by the subtree below it
 * and the way it is crossed: climbing, the node it leaves; coming down,
 * the node it enters. */
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
                uint32_t next = xchg_topo_neighbor(t, cur, segs[g].dim, segs[g].dir);
                uint32_t key = cur;
                int way = segs[g].dir > 0;
                if (t->kind == XCHG_TOPO_TREE) {
                    way = segs[g].dir == 0;
                    key = way ? cur : next;
                }
                load[((size_t)key * (size_t)t->ndims + (size_t)segs[g].dim) * 2 + (size_t)way]++;
                cur = next;
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

/*
 * A tree: the leaves in a row with a switch above each subtree (7 on
 * tree:3), an arrow per message and no conflict in bcast-tree; the
 * all-to-all broadcast's pattern crowds the edges below each switch it
 * climbs to (0, 8 and 12 links, test_ops.c counts them); a big tree shows
 * the first 16 leaves and their 15 switches, and says so.
 */
static void test_tree(void)
{
    check_doc d = {0};
    xchg_sched *s = check_generate("tree:3", "bcast-tree:root=2");
    for (size_t k = 0; s && k < xchg_sched_nsteps(s); k++)
        if (draw(s, k, &d) == 0) {
            check_well_formed(&d, "bcast-tree on tree:3");
            CHECK_EQ_U64(check_doc_count(&d, "<rect class=\"switch\""), 7, "tree:3 switches");
            CHECK_EQ_U64(check_doc_count(&d, "class=\"node\""), 8, "tree:3 leaves");
            CHECK_EQ_U64(check_doc_count(&d, "class=\"msg\""), 1u << k, "bcast-tree arrows");
            CHECK_EQ_U64(check_doc_count(&d, "class=\"conflict\""), 0, "bcast-tree conflicts");
        }
    xchg_sched_free(s);
    s = check_generate("tree:3", "allgather-hc");
    const size_t want[] = {0, 8, 12};
    for (size_t k = 0; s && k < 3; k++)
        if (draw(s, k, &d) == 0) {
            CHECK_EQ_U64(check_doc_count(&d, "class=\"conflict\""), want[k],
                         "allgather-hc on tree:3: conflict links");
            CHECK(strstr(d.buf, "a message, over a level-") != NULL, "the legend names the level");
        }
    if (s)
        check_steps("allgather-hc", "tree:3", s, SIZE_MAX);
    xchg_sched_free(s);
    s = check_generate("tree:8", "bcast-tree");
    if (s && draw(s, 7, &d) == 0) {
        CHECK(strstr(d.buf, "the subtree of leaves 0..15 of 256") != NULL, "tree:8 note");
        CHECK_EQ_U64(check_doc_count(&d, "<rect class=\"switch\""), 15, "tree:8 switches shown");
        CHECK_EQ_U64(check_doc_count(&d, "class=\"msg\""), 8, "tree:8 last step: arrows inside");
    }
    xchg_sched_free(s);
    free(d.buf);
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

/* ---- sender groups ------------------------------------------------ */

/* Most distinct group indices a test step holds. */
#define TEST_GROUPS 64

/* One step drawn: as many group circles per index as senders the schedule
 * puts in that group, each name in the legend; returns the senders in a
 * group. */
static size_t check_group_step(const xchg_sched *s, size_t step, check_doc *d, const char *what)
{
    size_t count[TEST_GROUPS] = {0}, total = 0;
    char name[64];
    const xchg_topo *t = xchg_sched_topo(s);
    for (uint32_t a = 0; a < t->nodes; a++) {
        xchg_msg m;
        int g = xchg_sched_group(s, step, a, name, sizeof name);
        if (!sends(s, step, a, &m)) {
            CHECK(g == -1 && name[0] == '\0', "%s: idle node %u has no group (%d)", what, a, g);
            continue;
        }
        if (g < 0)
            continue;
        CHECK(g < TEST_GROUPS && name[0], "%s: node %u group %d named '%s'", what, a, g, name);
        if (g >= TEST_GROUPS)
            continue;
        count[g]++;
        total++;
        char needle[96];
        snprintf(needle, sizeof needle, ">%s</text>", name);
        CHECK(check_doc_count(d, needle) >= 1, "%s: legend names %s", what, name);
    }
    for (int g = 0; g < TEST_GROUPS; g++) {
        char needle[64];
        snprintf(needle, sizeof needle, "class=\"group\" data-group=\"%d\"", g);
        char w[200];
        snprintf(w, sizeof w, "%s: circles of group %d", what, g);
        CHECK_EQ_U64(check_doc_count(d, needle), count[g], w);
    }
    char w[200];
    snprintf(w, sizeof w, "%s: group circles", what);
    CHECK_EQ_U64(check_doc_count(d, "class=\"group\""), total, w);
    return total;
}

/* Every step of alg on topo drawn alone, and the contact sheet: the group
 * circles are the schedule's groups. want_groups: the algorithm names
 * groups (some sender of some step is in one), else none. */
static void test_group_drawing(const char *topo, const char *alg, int want_groups)
{
    xchg_sched *s = check_generate(topo, alg);
    if (!s)
        return;
    check_doc d = {0};
    size_t grouped = 0, sheet_want = 0;
    for (size_t k = 0; k < xchg_sched_nsteps(s); k++) {
        if (draw(s, k, &d))
            break;
        char what[160];
        snprintf(what, sizeof what, "%s on %s step %zu", alg, topo, k);
        size_t n = check_group_step(s, k, &d, what);
        grouped += n;
        sheet_want += n;
    }
    CHECK(want_groups ? grouped > 0 : grouped == 0, "%s on %s: %zu senders in groups", alg, topo,
          grouped);
    d.len = 0;
    xchg_err err = {{0}};
    CHECK(xchg_draw_all_steps(s, NULL, check_doc_write, &d, &err) == 0, "%s on %s sheet: %s", alg,
          topo, err.msg);
    char what[160];
    snprintf(what, sizeof what, "%s on %s sheet: group circles", alg, topo);
    CHECK_EQ_U64(check_doc_count(&d, "class=\"group\""), sheet_want, what);
    free(d.buf);
    xchg_sched_free(s);
}

/* Parse "SG_L(J)" or "G_L(J)": the prefix's length (2 or 1), L and J; 0
 * when the name is not of that form. */
static int parse_suh_name(const char *name, int *level, int *j)
{
    int n = 0;
    if (sscanf(name, "SG_%d(%d)%n", level, j, &n) == 2 && name[n] == '\0')
        return 2;
    if (sscanf(name, "G_%d(%d)%n", level, j, &n) == 2 && name[n] == '\0')
        return 1;
    return 0;
}

/* The paper's SG_L(1) and SG_L(2) (Suh et al. section 3.1), from x and y
 * mod 2^L as written there: the main diagonals of every 2^L block, and
 * those of its quadrants that are not on the first ones. */
static int paper_sg(int level, uint32_t x, uint32_t y, int which)
{
    int64_t m = (int64_t)1 << level, h = m / 2;
    int64_t diff = (((int64_t)y - (int64_t)x) % m + m) % m, sum = ((int64_t)x + y) % m;
    if (which == 1)
        return diff == 0 || sum == m - 1;
    return diff == h % m || sum == ((h - 1) % m + m) % m;
}

/*
 * alg on torus:NxN: every sender of every step has a group named SG_L(J)
 * (sg: t1, t1:paper) or G_L(J) / SG_L(J) (t2, t1.x), index J-1; J = 1 and
 * J = 2 are the paper's sets SG_L(1), SG_L(2); J > 2 (T2's G_L(J), J <=
 * 2^(L-1)) lies in neither; a sender's partner is in its group, except in
 * the concentration steps of T1 and T1.x, where SG_L(1) and SG_L(2) face
 * each other; and
 * in the other steps the odd-numbered groups all move
 * along one dimension and the even-numbered ones along the other (the
 * paper's step 2i-1: G_p(2i-1) in x, G_p(2i) in y), which also holds for
 * SG_p(1) and SG_p(2).
 */
static void test_suh_groups(const char *topo, const char *alg, int sg)
{
    xchg_sched *s = check_generate(topo, alg);
    if (!s)
        return;
    const xchg_topo *t = xchg_sched_topo(s);
    uint32_t n = t->size[1];
    size_t bad = 0, named = 0, mixed_dims = 0, middle = 0;
    char name[64];
    for (size_t k = 0; k < xchg_sched_nsteps(s); k++) {
        int dim_of[2] = {-1, -1}; /* dimension moved by odd / even J */
        int across = 0;           /* some sender's partner is in another group */
        size_t mixed_before = mixed_dims;
        for (uint32_t a = 0; a < t->nodes; a++) {
            xchg_msg m;
            if (!sends(s, k, a, &m))
                continue;
            int g = xchg_sched_group(s, k, a, name, sizeof name);
            int level = 0, j = 0, form = parse_suh_name(name, &level, &j);
            uint32_t x = a % n, y = a / n;
            int ok = g >= 0 && form && level >= 1 && (1u << level) <= n && g == j - 1 && j >= 1 &&
                     j <= (level < 2 ? 1 : 1 << (level - 1)) && (form == 1 ? !sg : 1);
            if (ok && j <= 2)
                ok = paper_sg(level, x, y, j) && (j == 1 || !paper_sg(level, x, y, 1));
            if (ok && j > 2) {
                ok = !paper_sg(level, x, y, 1) && !paper_sg(level, x, y, 2);
                middle++;
            }
            if (!ok && bad++ < 5)
                CHECK(0, "%s on %s step %zu node (x %u, y %u): group %d '%s'", alg, topo, k, x, y,
                      g, name);
            named++;
            /* a concentration step of T1 pairs SG_L(1) with SG_L(2) (or
             * hands SG_L(2)'s blocks to SG_L(1)); halving steps exchange
             * inside a group */
            char pname[64];
            int pg = xchg_sched_group(s, k, m.to, pname, sizeof pname);
            if (pg >= 0 && strcmp(pname, name) != 0) {
                int pl = 0, pj = 0, pform = parse_suh_name(pname, &pl, &pj);
                if (!(form == 2 && pform == 2 && pl == level && j + pj == 3) && bad++ < 5)
                    CHECK(0, "%s on %s step %zu: %s sends to %s", alg, topo, k, name, pname);
                across = 1;
            }
            int dim = (m.to / n != y) ? 0 : 1;
            int *want = &dim_of[j % 2];
            if (*want < 0)
                *want = dim;
            else if (*want != dim)
                mixed_dims++;
        }
        if (dim_of[0] >= 0 && dim_of[1] >= 0 && dim_of[0] == dim_of[1])
            mixed_dims++;
        if (across) /* the pairing rule is the halving steps' */
            mixed_dims = mixed_before;
    }
    CHECK(bad == 0, "%s on %s: %zu senders outside their named group", alg, topo, bad);
    CHECK(named > 0, "%s on %s: senders have groups", alg, topo);
    CHECK(mixed_dims == 0, "%s on %s: %zu steps where one parity of J moves two ways", alg, topo,
          mixed_dims);
    CHECK(sg ? middle == 0 : 1, "%s on %s: T1 names only SG_p(1) and SG_p(2)", alg, topo);
    xchg_sched_free(s);
}

/* T2 on torus:NxN with N >= 16 reaches its middle groups G_L(3), ...;
 * every level-L group index 0 .. 2^(L-1)-1 of the last level appears. */
static void test_t2_middle(const char *topo, int last_level)
{
    xchg_sched *s = check_generate(topo, "t2");
    if (!s)
        return;
    const xchg_topo *t = xchg_sched_topo(s);
    unsigned char seen[TEST_GROUPS] = {0};
    char name[64];
    for (size_t k = 0; k < xchg_sched_nsteps(s); k++)
        for (uint32_t a = 0; a < t->nodes; a++) {
            int g = xchg_sched_group(s, k, a, name, sizeof name);
            int level = 0, j = 0;
            if (g >= 0 && g < TEST_GROUPS && parse_suh_name(name, &level, &j) &&
                level == last_level)
                seen[g] = 1;
        }
    size_t count = 0;
    for (int g = 0; g < TEST_GROUPS; g++)
        count += seen[g];
    char what[96];
    snprintf(what, sizeof what, "t2 on %s: level-%d groups named", topo, last_level);
    CHECK_EQ_U64(count, 1u << (last_level - 1), what);
    xchg_sched_free(s);
}

/* Liu et al.'s groups by coordinate sum: mod 2 the even and odd nodes
 * (AR1, AT2, PT4/PTk), mod k G_0 .. G_(k-1) (MT3/MTk), index the residue.
 * every_step: every sender of every step has its group (AR1, AT2), else
 * only the steps of phase 1 have groups (others none), and some do. */
static void test_sum_groups(const char *topo, const char *alg, uint32_t mod, int every_step)
{
    xchg_sched *s = check_generate(topo, alg);
    if (!s)
        return;
    const xchg_topo *t = xchg_sched_topo(s);
    size_t bad = 0, named = 0, senders_all = 0;
    char name[64], want[32];
    for (size_t k = 0; k < xchg_sched_nsteps(s); k++)
        for (uint32_t a = 0; a < t->nodes; a++) {
            xchg_msg m;
            if (!sends(s, k, a, &m))
                continue;
            senders_all++;
            uint32_t sum = 0;
            for (int dd = 0; dd < t->ndims; dd++)
                sum += xchg_topo_coord(t, a, dd);
            int g = xchg_sched_group(s, k, a, name, sizeof name);
            if (g < 0 && !every_step)
                continue;
            if (mod == 2)
                snprintf(want, sizeof want, "%s nodes", sum % 2 ? "odd" : "even");
            else
                snprintf(want, sizeof want, "G_%u", sum % mod);
            if (g != (int)(sum % mod) || strcmp(name, want) != 0)
                bad++;
            named++;
        }
    CHECK(named > 0 && bad == 0, "%s on %s: %zu of %zu senders not in their group", alg, topo, bad,
          named);
    CHECK(every_step ? named == senders_all : named < senders_all,
          "%s on %s: %zu of %zu senders named", alg, topo, named, senders_all);
    xchg_sched_free(s);
}

/* multiphase:PARTS (or hc-standard, parts of one bit, highest first) on a
 * hypercube: every sender of a step is in "phase J (bits A-B)" or "phase J
 * (bit A)", index J-1, where phase J spans the bits its partner differs in
 * and the phases' bits come from the parts, lowest first (hc-standard:
 * bit D-J). */
static void test_phase_groups(const char *topo, const char *alg, const int *parts, int nparts)
{
    xchg_sched *s = check_generate(topo, alg);
    if (!s)
        return;
    const xchg_topo *t = xchg_sched_topo(s);
    int D = t->ndims;
    size_t bad = 0, named = 0;
    char name[64], want[64];
    for (size_t k = 0; k < xchg_sched_nsteps(s); k++)
        for (uint32_t a = 0; a < t->nodes; a++) {
            xchg_msg m;
            if (!sends(s, k, a, &m))
                continue;
            int g = xchg_sched_group(s, k, a, name, sizeof name);
            uint32_t diff = a ^ m.to;
            int j = -1, lo = 0, hi = 0;
            for (int q = 0, off = 0; q < nparts; q++) {
                int b0 = parts ? off : D - 1 - q, w = parts ? parts[q] : 1;
                uint32_t mask = ((1u << w) - 1) << b0;
                if ((diff & ~mask) == 0 && j < 0) {
                    j = q;
                    lo = b0;
                    hi = b0 + w - 1;
                }
                off += w;
            }
            if (lo == hi)
                snprintf(want, sizeof want, "phase %d (bit %d)", j + 1, lo);
            else
                snprintf(want, sizeof want, "phase %d (bits %d-%d)", j + 1, lo, hi);
            if (j < 0 || g != j || strcmp(name, want) != 0) {
                if (bad++ < 3)
                    CHECK(0, "%s on %s step %zu node %u: '%s' (%d), want '%s'", alg, topo, k, a,
                          name, g, want);
            }
            named++;
        }
    CHECK(named > 0 && bad == 0, "%s on %s: %zu of %zu senders in the wrong phase", alg, topo, bad,
          named);
    xchg_sched_free(s);
}

/* No groups: an algorithm that names none, one hosted on virtual nodes,
 * idle nodes, bad arguments. */
static void test_no_groups(void)
{
    char name[16] = "x";
    xchg_sched *s = check_generate("torus:4x4", "pairwise");
    if (s) {
        CHECK(xchg_sched_group(s, 0, 1, name, sizeof name) == -1 && name[0] == '\0',
              "pairwise names no group");
        xchg_sched_free(s);
    }
    s = check_generate("torus:8x8", "t2");
    if (s) {
        CHECK(xchg_sched_group(s, 0, 0, name, sizeof name) == 0, "t2 step 0: node 0 in G_1(1)");
        CHECK(strcmp(name, "G_1(1)") == 0, "t2 step 0: '%s'", name);
        CHECK(xchg_sched_group(s, 0, 0, NULL, 0) == -1, "NULL name");
        CHECK(xchg_sched_group(s, 0, 0, name, 1) == -1 && name[0] == '\0', "len 1");
        CHECK(xchg_sched_group(s, 99, 0, name, sizeof name) == -1, "step out of range");
        CHECK(xchg_sched_group(s, 0, 64, name, sizeof name) == -1, "node out of range");
        CHECK(xchg_sched_group(NULL, 0, 0, name, sizeof name) == -1, "NULL schedule");
        char small[4];
        CHECK(xchg_sched_group(s, 0, 0, small, sizeof small) == 0 && strcmp(small, "G_1") == 0,
              "a short buffer gets the name cut: '%s'", small);
        xchg_sched_free(s);
    }
    /* t1 on 16x16: the senders' SG_2(2) nodes of step 2 go idle after it */
    s = check_generate("torus:16x16", "t1");
    if (s) {
        size_t idle = 0;
        for (uint32_t a = 0; a < 256; a++) {
            xchg_msg m;
            if (!sends(s, 2, a, &m))
                idle += xchg_sched_group(s, 2, a, name, sizeof name) == -1;
        }
        CHECK_EQ_U64(idle, 128, "t1 on torus:16x16 step 3: idle nodes without a group");
        xchg_sched_free(s);
    }
}

/*
 * The other operations' sender groups (ops_hypercube.c, ops_mesh.c): a
 * hypercube algorithm's sender is in "dimension I", I the one bit it
 * crosses; a mesh algorithm's in "row phase" when its message stays in its
 * row, "column phase" when it stays in its column (or, in shift-mesh, the
 * "compensation step"), one group a step; the ring's and the shifts on a
 * hypercube name none; the split ones keep their parts'. Each sender is
 * held to its own message, then every step is drawn (test_group_drawing).
 */
enum { OPS_HC, OPS_MESH, OPS_NONE };

static void test_ops_groups(void)
{
    static const struct {
        const char *topo, *alg;
        int kind;
    } cases[] = {
        {"hypercube:3", "bcast-hc:root=5", OPS_HC},
        {"hypercube:3", "gather-hc:root=6", OPS_HC},
        {"hypercube:4", "reduce-scatter-hc", OPS_HC},
        {"hypercube:3", "scan-hc", OPS_HC},
        {"complete:8", "allgather-hc", OPS_HC},
        {"hypercube:3", "allreduce-split", OPS_HC},
        {"mesh:3x4", "bcast-mesh:root=5", OPS_MESH},
        {"mesh:3x4", "reduce-mesh:root=6", OPS_MESH},
        {"mesh:3x4", "scatter-mesh:root=7", OPS_MESH},
        {"mesh:3x3", "allgather-mesh", OPS_MESH},
        {"torus:3x3", "reduce-scatter-mesh", OPS_MESH},
        {"torus:4x4", "shift-mesh:q=5", OPS_MESH},
        {"mesh:2x3", "reduce-split:root=4", OPS_MESH},
        {"ring:8", "reduce-scatter-ring", OPS_NONE},
        {"ring:6", "bcast-ring:root=2", OPS_NONE},
        {"ring:8", "allreduce-split", OPS_NONE},
        {"hypercube:3", "shift-hc:q=3", OPS_NONE},
        {"hypercube:3", "shift-hc-ecube:q=3", OPS_NONE},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        xchg_sched *s = check_generate(cases[c].topo, cases[c].alg);
        if (!s)
            continue;
        const xchg_topo *t = xchg_sched_topo(s);
        uint32_t C = t->ndims == 2 ? t->size[1] : t->nodes;
        size_t bad = 0, named = 0;
        char name[64], want[64];
        for (size_t k = 0; k < xchg_sched_nsteps(s); k++) {
            int step_group = -2;
            for (uint32_t a = 0; a < t->nodes; a++) {
                xchg_msg m;
                if (!sends(s, k, a, &m))
                    continue;
                int g = xchg_sched_group(s, k, a, name, sizeof name), wg = -1;
                want[0] = '\0';
                if (cases[c].kind == OPS_HC) {
                    uint32_t diff = a ^ m.to;
                    wg = diff && !(diff & (diff - 1)) ? __builtin_ctz(diff) : -9;
                    snprintf(want, sizeof want, "dimension %d", wg);
                } else if (cases[c].kind == OPS_MESH && a / C == m.to / C) {
                    wg = 0;
                    snprintf(want, sizeof want, "row phase");
                } else if (cases[c].kind == OPS_MESH && a % C == m.to % C) {
                    int comp = g == 2 && strncmp(cases[c].alg, "shift-mesh", 10) == 0;
                    wg = comp ? 2 : 1;
                    snprintf(want, sizeof want, comp ? "compensation step" : "column phase");
                }
                if (cases[c].kind == OPS_MESH && step_group != -2 && g != step_group)
                    wg = -9; /* one group a step */
                step_group = g;
                if (g != wg || strcmp(name, want) != 0) {
                    if (bad++ < 3)
                        CHECK(0, "%s on %s step %zu node %u -> %u: '%s' (%d), want '%s' (%d)",
                              cases[c].alg, cases[c].topo, k, a, m.to, name, g, want, wg);
                }
                named += g >= 0;
            }
        }
        CHECK(bad == 0 && (cases[c].kind == OPS_NONE) == (named == 0),
              "%s on %s: %zu senders in the wrong group, %zu in one", cases[c].alg, cases[c].topo,
              bad, named);
        xchg_sched_free(s);
        test_group_drawing(cases[c].topo, cases[c].alg, cases[c].kind != OPS_NONE);
    }
    /* the mesh shift's three kinds of step, in order: row, compensation,
     * column (q = 5 on 4 x 4: one step each) */
    xchg_sched *s = check_generate("torus:4x4", "shift-mesh:q=5");
    if (s) {
        char name[64];
        int g0 = xchg_sched_group(s, 0, 1, name, sizeof name);
        int g1 = xchg_sched_group(s, 1, 4, name, sizeof name);
        int ok1 = strcmp(name, "compensation step") == 0;
        int g2 = xchg_sched_group(s, 2, 5, name, sizeof name);
        CHECK(xchg_sched_nsteps(s) == 3 && g0 == 0 && g1 == 2 && ok1 && g2 == 1 &&
                  strcmp(name, "column phase") == 0,
              "shift-mesh:q=5 on 4x4: groups %d, %d, %d", g0, g1, g2);
        xchg_sched_free(s);
    }
}

int main(void)
{
    const char *topos[] = {"ring:8",      "array:6",     "mesh:4x6",   "torus:4x4",
                           "torus:3x4x2", "hypercube:4", "complete:6", "torus:5",
                           "tree:3"};
    for (size_t i = 0; i < sizeof topos / sizeof topos[0]; i++)
        CHECK(check_each_schedule(topos[i], each_alg, NULL) > 0, "some algorithm on %s", topos[i]);
    test_conflicts();
    test_submesh();
    test_tree();
    test_sheet();
    test_errors();
    test_labels();
    const char *suh_topos[] = {"torus:8x8", "torus:16x16"};
    for (size_t i = 0; i < 2; i++) {
        test_group_drawing(suh_topos[i], "t1", 1);
        test_group_drawing(suh_topos[i], "t2", 1);
        test_group_drawing(suh_topos[i], "t1:paper", 1);
        test_suh_groups(suh_topos[i], "t1", 1);
        test_suh_groups(suh_topos[i], "t2", 0);
        test_suh_groups(suh_topos[i], "t1:paper", 1);
    }
    test_suh_groups("torus:32x32", "t1", 1);
    test_suh_groups("torus:32x32", "t1:paper", 1);
    test_suh_groups("torus:32x32", "t2", 0);
    test_suh_groups("torus:32x32", "t1.1", 0);
    test_t2_middle("torus:16x16", 3);
    test_t2_middle("torus:32x32", 4);
    test_group_drawing("torus:4x8", "at2", 1);
    test_group_drawing("torus:8x8", "at2", 1);
    test_group_drawing("torus:4x6", "at2:virtual", 0);
    test_group_drawing("ring:12", "ar1", 1);
    test_group_drawing("hypercube:5", "multiphase:2,3", 1);
    test_group_drawing("hypercube:4", "hc-standard", 1);
    test_group_drawing("hypercube:4", "hc-direct", 0);
    test_group_drawing("torus:4x4", "pairwise", 0);
    test_sum_groups("torus:4x8", "at2", 2, 1);
    test_sum_groups("torus:8x8", "at2", 2, 1);
    test_sum_groups("torus:8x12", "at2", 2, 1);
    test_sum_groups("ring:12", "ar1", 2, 1);
    test_sum_groups("ring:10", "ar1", 2, 1);
    test_sum_groups("torus:8x8x8x8", "pt4", 2, 0);
    test_sum_groups("torus:4x4", "ptk", 2, 0);
    test_sum_groups("torus:6x6x6", "mt3", 3, 0);
    test_sum_groups("torus:8x8x8x8", "mtk", 4, 0);
    test_group_drawing("torus:6x6x6", "mt3", 1);
    test_group_drawing("torus:4x4", "ptk", 1);
    const int mp23[] = {2, 3}, mp131[] = {1, 3, 1};
    test_phase_groups("hypercube:5", "multiphase:2,3", mp23, 2);
    test_phase_groups("hypercube:5", "multiphase:1,3,1", mp131, 3);
    test_phase_groups("hypercube:4", "hc-standard", NULL, 4);
    test_no_groups();
    test_ops_groups();
    return check_finish("test_draw");
}
