/*
 * test_follow.c - the block follower (src/sched/follow.*, the "Block
 * follower" section of xchg.h) against a slow reference written here with
 * the schedule's public calls only (xchg_sched_message, xchg_sched_selects):
 *   - xchg_follow_block gives, step by step, the reference path of every
 *     block, which ends at its destination;
 *   - xchg_follow_origin_step moves an origin's blocks as the paths say and
 *     counts what each node sends as the reference does, and summed over
 *     origins those counts are the declared sizes;
 *   - the node iterator's partner, held, sent and received lists are exactly
 *     what the paths say, for every node and step;
 * on registry schedules of every rule and partner kind (callback rules in
 * ar1:virtual, class tables in t1 and mt3, tables and shifts), on a
 * schedule whose partners are not valid nodes (sent blocks stay put), and
 * on malformed schedules, which must be refused with EINVAL and the
 * verifier's own message.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sched/follow.h"
#include "sched/sched_internal.h"

/* ------------------------------------------------------------------ */
/* The reference: the rule from xchg.h, with public calls only          */
/* ------------------------------------------------------------------ */

/* Node n's partner at step k (XCHG_NONE idle). */
static uint32_t ref_partner(const xchg_sched *s, size_t k, uint32_t n)
{
    xchg_msg m;
    xchg_sched_message(s, k, n, &m);
    return m.to;
}

/* Does the holder n send block (o, d) at step k? */
static int ref_sends(const xchg_sched *s, size_t k, uint32_t n, uint32_t o, uint32_t d)
{
    return ref_partner(s, k, n) != XCHG_NONE && xchg_sched_selects(s, k, n, o, d);
}

/* path[k] = holder of (o, d) before step k, k = 0..nsteps. */
static void ref_path(const xchg_sched *s, uint32_t o, uint32_t d, uint32_t *path)
{
    uint32_t p = xchg_sched_topo(s)->nodes, pos = o;
    size_t T = xchg_sched_nsteps(s);
    for (size_t k = 0; k < T; k++) {
        path[k] = pos;
        if (ref_sends(s, k, pos, o, d)) {
            uint32_t to = ref_partner(s, k, pos);
            if (to < p && to != pos)
                pos = to;
        }
    }
    path[T] = pos;
}

/* Every block's reference path: paths[(o*p + d)*(T+1) + k]. */
typedef struct refs {
    uint32_t p;
    size_t T;
    uint32_t *paths;
} refs;

static uint32_t *path_of(const refs *r, uint32_t o, uint32_t d)
{
    return r->paths + ((size_t)o * r->p + d) * (r->T + 1);
}

/* ------------------------------------------------------------------ */
/* The checks                                                           */
/* ------------------------------------------------------------------ */

/* xchg_follow_block and xchg_follow_block_at against the reference;
 * every block must end at its destination when `correct`. */
static void check_blocks(const xchg_follower *f, const refs *r,
                         int correct, const char *what)
{
    uint32_t p = r->p;
    size_t T = r->T;
    uint32_t *path = malloc((T + 1) * sizeof *path);
    uint64_t bad_path = 0, bad_end = 0, bad_raw = 0;
    for (uint32_t o = 0; o < p; o++)
        for (uint32_t d = 0; d < p; d++) {
            const uint32_t *want = path_of(r, o, d);
            CHECK(xchg_follow_block(f, o, d, path) == 0, "%s: follow_block", what);
            bad_path += memcmp(path, want, (T + 1) * sizeof *path) != 0;
            bad_end += correct && path[T] != d;
            bad_raw += xchg_follow_block_at(f, T, o, d) != want[T];
            bad_raw += xchg_follow_block_at(f, T / 2, o, d) != want[T / 2];
        }
    CHECK_EQ_U64(bad_path, 0, what);
    CHECK_EQ_U64(bad_end, 0, what);
    CHECK_EQ_U64(bad_raw, 0, what);
    free(path);
}

/* xchg_follow_origin_step against the paths and the reference's sends;
 * with `correct`, the counts summed over origins equal the declared sizes. */
static void check_origin_steps(const xchg_sched *s, const xchg_follower *f, const refs *r,
                               int correct, const char *what)
{
    uint32_t p = r->p;
    size_t T = r->T;
    uint32_t *pos = malloc(p * sizeof *pos);
    uint32_t *sent = calloc((T ? T : 1) * (size_t)p, sizeof *sent);
    uint32_t *want = calloc((T ? T : 1) * (size_t)p, sizeof *want);
    uint64_t bad_pos = 0;
    for (uint32_t o = 0; o < p; o++) {
        for (uint32_t d = 0; d < p; d++)
            pos[d] = o;
        for (size_t k = 0; k < T; k++) {
            for (uint32_t d = 0; d < p; d++) {
                uint32_t h = path_of(r, o, d)[k];
                want[k * p + h] += (uint32_t)ref_sends(s, k, h, o, d);
            }
            CHECK(xchg_follow_origin_step(f, k, o, pos, sent + k * p) == 0, "%s: origin step",
                  what);
            for (uint32_t d = 0; d < p; d++)
                bad_pos += pos[d] != path_of(r, o, d)[k + 1];
        }
    }
    CHECK_EQ_U64(bad_pos, 0, what);
    CHECK(memcmp(sent, want, T * (size_t)p * sizeof *sent) == 0, "%s: counts of sent blocks",
          what);
    uint64_t bad_size = 0;
    for (size_t k = 0; correct && k < T; k++)
        for (uint32_t n = 0; n < p; n++) {
            xchg_msg m;
            xchg_sched_message(s, k, n, &m);
            bad_size += sent[k * p + n] != m.blocks;
        }
    CHECK_EQ_U64(bad_size, 0, what);
    free(pos);
    free(sent);
    free(want);
}

/* Is list[0..n) strictly increasing by (origin, dest)? */
static int sorted(const xchg_block *list, size_t n)
{
    for (size_t i = 1; i < n; i++)
        if (list[i - 1].origin > list[i].origin ||
            (list[i - 1].origin == list[i].origin && list[i - 1].dest >= list[i].dest))
            return 0;
    return 1;
}

/* Per (step, node) counts of what the paths say: blocks held before the
 * step, sent, and received from another node. */
typedef struct tally {
    uint64_t *held, *sent, *recv; /* (T+1)*p each */
} tally;

static void tally_make(const xchg_sched *s, const refs *r, tally *y)
{
    uint32_t p = r->p;
    size_t T = r->T, n = (T + 1) * (size_t)p;
    y->held = calloc(n, sizeof *y->held);
    y->sent = calloc(n, sizeof *y->sent);
    y->recv = calloc(n, sizeof *y->recv);
    for (uint32_t o = 0; o < p; o++)
        for (uint32_t d = 0; d < p; d++) {
            const uint32_t *path = path_of(r, o, d);
            for (size_t k = 0; k <= T; k++) {
                y->held[k * p + path[k]]++;
                if (k < T && ref_sends(s, k, path[k], o, d))
                    y->sent[k * p + path[k]]++;
                if (k < T && path[k + 1] != path[k])
                    y->recv[k * p + path[k + 1]]++;
            }
        }
}

static void tally_free(tally *y)
{
    free(y->held);
    free(y->sent);
    free(y->recv);
}

/* The node iterator of every node against the paths: each list has the
 * size the tally says, is sorted, and every entry is what the paths say. */
static void check_nodes(const xchg_sched *s, const xchg_follower *f, const refs *r,
                        const char *what)
{
    uint32_t p = r->p;
    size_t T = r->T;
    tally y;
    tally_make(s, r, &y);
    uint64_t bad = 0, bad_size = 0, bad_order = 0;
    for (uint32_t n = 0; n < p; n++) {
        xchg_follow_node *it = NULL;
        xchg_err err = {{0}};
        int rc = xchg_follow_node_new(f, n, &it, &err);
        CHECK(rc == 0 && it, "%s: node %u iterator: %s", what, n, err.msg);
        if (rc)
            continue;
        xchg_follow_node_step st;
        for (size_t k = 0; k <= T; k++) {
            if (!xchg_follow_node_next(it, &st)) {
                bad++;
                break;
            }
            bad += st.step != k;
            bad += st.partner != (k < T ? ref_partner(s, k, n) : XCHG_NONE);
            bad_size += st.nheld != y.held[k * p + n];
            bad_size += st.nsent != (k < T ? y.sent[k * p + n] : 0);
            bad_size += st.nreceived != (k < T ? y.recv[k * p + n] : 0);
            bad_order += !sorted(st.held, st.nheld) + !sorted(st.sent, st.nsent) +
                         !sorted(st.received, st.nreceived);
            for (size_t i = 0; i < st.nheld; i++)
                bad += path_of(r, st.held[i].origin, st.held[i].dest)[k] != n;
            for (size_t i = 0; i < st.nsent; i++) {
                xchg_block b = st.sent[i];
                bad += path_of(r, b.origin, b.dest)[k] != n ||
                       !ref_sends(s, k, n, b.origin, b.dest);
            }
            for (size_t i = 0; i < st.nreceived; i++) {
                const uint32_t *path = path_of(r, st.received[i].origin, st.received[i].dest);
                bad += path[k] == n || path[k + 1] != n || st.received_from[i] != path[k];
            }
        }
        bad += xchg_follow_node_next(it, &st) != 0; /* done after step T */
        xchg_follow_node_free(it);
    }
    CHECK_EQ_U64(bad, 0, what);
    CHECK_EQ_U64(bad_size, 0, what);
    CHECK_EQ_U64(bad_order, 0, what);
    tally_free(&y);
}

/* All the checks on one schedule; `correct`: it delivers and its sizes
 * are right (then the verifier must pass it too). */
static void check_sched(const xchg_sched *s, int correct, const char *what)
{
    xchg_follower *f = NULL;
    xchg_err err = {{0}};
    int rc = xchg_follower_new(s, &f, &err);
    CHECK(rc == 0 && f, "%s: follower: %d %s", what, rc, err.msg);
    if (rc)
        return;
    refs r;
    r.p = xchg_sched_topo(s)->nodes;
    r.T = xchg_sched_nsteps(s);
    r.paths = malloc((size_t)r.p * r.p * (r.T + 1) * sizeof *r.paths);
    for (uint32_t o = 0; o < r.p; o++)
        for (uint32_t d = 0; d < r.p; d++)
            ref_path(s, o, d, path_of(&r, o, d));
    check_blocks(f, &r, correct, what);
    check_origin_steps(s, f, &r, correct, what);
    check_nodes(s, f, &r, what);
    if (correct) {
        xchg_verify_report rep;
        CHECK(xchg_verify(s, NULL, &rep, &err) == 0 && rep.ok && rep.blocks == (uint64_t)r.p * r.p,
              "%s: verified (%s)", what, rep.reported ? rep.msgs[0] : err.msg);
    }
    free(r.paths);
    xchg_follower_free(f);
}

/* Generate alg on tspec and run every check. */
static void check_registry(const char *alg, const char *tspec)
{
    xchg_sched *s = check_generate(tspec, alg);
    if (!s)
        return;
    char what[96];
    snprintf(what, sizeof what, "%s on %s", alg, tspec);
    check_sched(s, 1, what);
    xchg_sched_free(s);
}

/* ------------------------------------------------------------------ */
/* Hand-built schedules                                                 */
/* ------------------------------------------------------------------ */

static uint32_t *table_of(uint32_t p, uint32_t v)
{
    uint32_t *t = malloc(p * sizeof *t);
    for (uint32_t i = 0; i < p; i++)
        t[i] = v;
    return t;
}

/* hc-standard on hypercube:D by hand (XOR 2^j, destination bit j). */
static xchg_sched *hc_standard(int D)
{
    char spec[32];
    snprintf(spec, sizeof spec, "hypercube:%d", D);
    xchg_topo t = check_topo(spec);
    xchg_sched *s = xchg_sched_new(&t, "hc-standard(test)", 1);
    for (int j = D - 1; j >= 0; j--) {
        xchg_step st = xchg_step_xor(1u << j, xchg_rule_dest_mask_to(1u << j), t.nodes / 2);
        xchg_sched_add(s, &st);
    }
    return s;
}

/* Partners that are not valid other nodes: a node sending to itself, one
 * sending past the last node, an XOR leaving the ids of a ring:6, and a
 * node idle. Sent blocks stay put; the paths, counts and node lists must
 * still agree with the reference. */
static void test_invalid_partners(void)
{
    xchg_topo t = check_topo("ring:6");
    xchg_sched *s = xchg_sched_new(&t, "odd partners", 0);
    xchg_step a = xchg_step_shift(-1, 1, xchg_rule_coord_ne(0), 5);
    a.partner = XCHG_PARTNER_TABLE;
    a.partner_table = table_of(6, XCHG_NONE);
    a.partner_table[0] = 3;
    a.partner_table[1] = 1; /* itself */
    a.partner_table[2] = 9; /* not a node */
    a.partner_table[3] = 0;
    xchg_sched_add(s, &a);
    xchg_step b = xchg_step_xor(4, xchg_rule_rel_digit(2, 1, 1), 3); /* 2^4, 3^4 >= 6 */
    xchg_sched_add(s, &b);
    xchg_step c = xchg_step_xor(1, xchg_rule_dest_is_to(), 1);
    xchg_sched_add(s, &c);
    check_sched(s, 0, "invalid partners");

    /* node 1 sends to itself at step 0: its blocks are sent and stay */
    xchg_follower *f = NULL;
    CHECK(xchg_follower_new(s, &f, NULL) == 0, "follower of invalid partners");
    xchg_follow_node *it = NULL;
    CHECK(xchg_follow_node_new(f, 1, &it, NULL) == 0, "node 1");
    xchg_follow_node_step st;
    memset(&st, 0, sizeof st);
    int more = xchg_follow_node_next(it, &st);
    CHECK(more == 1 && st.partner == 1 && st.nsent == 5 && st.nheld == 6,
          "node 1 step 0: partner %u, %zu sent of %zu held", st.partner, st.nsent, st.nheld);
    more = xchg_follow_node_next(it, &st);
    CHECK(more == 1 && st.nheld == 6, "node 1 keeps its blocks: %zu", st.nheld);
    xchg_follow_node_free(it);
    xchg_follower_free(f);
    xchg_sched_free(s);
}

/* Expect xchg_follower_new to refuse s with EINVAL and a message holding
 * `want`, the same message as xchg_verify's; *out stays untouched. */
static void expect_refused(const xchg_sched *s, const char *want, const char *what)
{
    static xchg_follower sentinel;
    xchg_follower *f = &sentinel;
    xchg_err err = {{0}}, verr = {{0}};
    int rc = xchg_follower_new(s, &f, &err);
    CHECK(rc == XCHG_EINVAL && strstr(err.msg, want), "%s: %d %s", what, rc, err.msg);
    CHECK(f == &sentinel, "%s: out untouched", what);
    xchg_verify_report rep;
    rc = xchg_verify(s, NULL, &rep, &verr);
    CHECK(rc == XCHG_EINVAL && strcmp(err.msg, verr.msg) == 0, "%s: verifier says '%s'", what,
          verr.msg);
}

static int some_fn(const void *ctx, size_t step, uint32_t node, uint32_t origin, uint32_t dest)
{
    (void)ctx, (void)step, (void)node, (void)origin;
    return dest & 1;
}

static void test_malformed(void)
{
    struct {
        const char *want;
        const char *what;
    } cases[] = {
        {"step 1 rule reads dimension 5; the topology has 3", "rule on a missing dimension"},
        {"step 1 shifts along dimension 7; the topology has 3", "shift on a missing dimension"},
        {"step 1 has a partner table kind but no table", "table kind without a table"},
        {"step 1 has unknown partner kind 99", "unknown partner kind"},
        {"step 1 has unknown rule kind 99", "unknown rule kind"},
        {"step 1 rel-digit rule has radix 0 weight 1", "zero radix"},
        {"step 1 has a callback rule without a callback", "callback rule without a callback"},
        {"step 1 gives node 5 class 7; a linear rule has 4", "linear class out of range"},
        {"step 1 gives node 2 class 20; a class-dist rule has 16", "class-dist class out of range"},
        {"step 1 class-dist class 3 reads dimension 9 with div 1 mod 1", "class-dist dimension"},
        {"step 1 class-dist class 0 reads dimension 0 with div 0 mod 1", "class-dist zero div"},
        {"step 1 shifts along dimension 4; the topology has 3", "parity on a missing dimension"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        xchg_sched *s = hc_standard(3);
        xchg_step *st = &s->steps[1];
        switch (i) {
        case 0:
            st->rule = xchg_rule_coord_ne(5);
            break;
        case 1:
            st->partner = XCHG_PARTNER_SHIFT;
            st->shift_dim = 7;
            break;
        case 2:
            st->partner = XCHG_PARTNER_TABLE;
            break;
        case 3:
            st->partner = (xchg_partner_kind)99;
            break;
        case 4:
            st->rule.kind = (xchg_rule_kind)99;
            break;
        case 5:
            st->rule = xchg_rule_rel_digit(0, 1, 0);
            break;
        case 6:
            st->rule = xchg_rule_fn(NULL);
            break;
        case 7:
            st->rule = xchg_rule_rel_linear();
            st->class_table = calloc(8, 1);
            st->class_table[5] = 7;
            break;
        case 8:
            st->rule = xchg_rule_class_dist();
            st->class_table = calloc(8, 1);
            st->class_table[2] = 20;
            break;
        case 9:
            st->rule = xchg_rule_class_dist();
            st->rule.cdist[3].dim = 9;
            break;
        case 10:
            st->rule = xchg_rule_class_dist();
            st->rule.cdist[0].div = 0;
            break;
        case 11:
            st->partner = XCHG_PARTNER_PARITY;
            st->shift_dim = 4;
            break;
        }
        expect_refused(s, cases[i].want, cases[i].what);
        xchg_sched_free(s);
    }

    /* well-formed versions of the same kinds are accepted */
    xchg_sched *s = hc_standard(3);
    s->steps[0].rule = xchg_rule_fn(some_fn);
    s->steps[1].rule = xchg_rule_rel_linear();
    s->steps[1].class_table = calloc(8, 1);
    s->steps[1].class_table[5] = 3;
    s->steps[2].rule = xchg_rule_class_dist();
    s->steps[2].rule.cdist[0].mod = 2;
    s->steps[2].rule.cdist[0].lo = 1;
    s->steps[2].rule.cdist[0].hi = 1;
    check_sched(s, 0, "hand-built kinds");
    xchg_sched_free(s);
}

/* Bad arguments: EINVAL and nothing changed; every free takes NULL. */
static void test_arguments(void)
{
    xchg_sched *s = hc_standard(2);
    xchg_follower *f = NULL;
    xchg_err err = {{0}};
    CHECK(xchg_follower_new(NULL, &f, &err) == XCHG_EINVAL, "NULL schedule");
    CHECK(xchg_follower_new(s, NULL, &err) == XCHG_EINVAL, "NULL out");
    CHECK(xchg_follower_new(s, &f, NULL) == 0 && f, "no err holder needed");
    uint32_t path[3] = {7, 7, 7};
    CHECK(xchg_follow_block(f, 4, 0, path) == XCHG_EINVAL && path[0] == 7, "origin 4 of 4");
    CHECK(xchg_follow_block(f, 0, 4, path) == XCHG_EINVAL, "dest 4 of 4");
    CHECK(xchg_follow_block(NULL, 0, 0, path) == XCHG_EINVAL, "NULL follower");
    CHECK(xchg_follow_block(f, 0, 0, NULL) == XCHG_EINVAL, "NULL path");
    CHECK(xchg_follow_block(f, 2, 1, path) == 0 && path[0] == 2 && path[2] == 1,
          "block (2,1): %u %u %u", path[0], path[1], path[2]);
    uint32_t pos[4] = {0, 0, 0, 4}, sent[4] = {0, 0, 0, 0};
    CHECK(xchg_follow_origin_step(f, 0, 0, pos, sent) == XCHG_EINVAL && pos[3] == 4 &&
              sent[0] == 0,
          "a position that is not a node");
    pos[3] = 0;
    CHECK(xchg_follow_origin_step(f, 2, 0, pos, sent) == XCHG_EINVAL, "step 2 of 2");
    CHECK(xchg_follow_origin_step(f, 0, 4, pos, sent) == XCHG_EINVAL, "origin 4 of 4");
    CHECK(xchg_follow_origin_step(f, 0, 0, pos, NULL) == XCHG_EINVAL, "NULL counts");
    CHECK(xchg_follow_origin_step(f, 0, 0, pos, sent) == 0 && sent[0] == 2, "origin 0 step 0");
    xchg_follow_node *it = NULL;
    CHECK(xchg_follow_node_new(f, 4, &it, &err) == XCHG_EINVAL && !it, "node 4 of 4");
    CHECK(xchg_follow_node_new(NULL, 0, &it, &err) == XCHG_EINVAL, "NULL follower");
    CHECK(xchg_follow_node_new(f, 0, NULL, &err) == XCHG_EINVAL, "NULL out");
    xchg_follow_node_step st;
    CHECK(xchg_follow_node_next(NULL, &st) == 0, "next on NULL");
    xchg_follow_node_free(NULL);
    xchg_follower_free(NULL);
    xchg_follower_free(f);
    xchg_sched_free(s);

    /* no steps: the only record is the end, holding the node's own blocks */
    xchg_topo t = check_topo("ring:3");
    s = xchg_sched_new(&t, "empty", 1);
    CHECK(xchg_follower_new(s, &f, NULL) == 0, "empty schedule");
    CHECK(xchg_follow_block(f, 1, 2, path) == 0 && path[0] == 1, "path of 0 steps");
    CHECK(xchg_follow_node_new(f, 2, &it, NULL) == 0, "node of an empty schedule");
    memset(&st, 0, sizeof st);
    int more = xchg_follow_node_next(it, &st);
    CHECK(more == 1 && st.step == 0 && st.nheld == 3 && st.held[0].origin == 2 &&
              st.partner == XCHG_NONE && st.nsent == 0,
          "end record");
    CHECK(xchg_follow_node_next(it, &st) == 0, "then done");
    xchg_follow_node_free(it);
    xchg_follower_free(f);
    xchg_sched_free(s);
}

int main(void)
{
    check_registry("ring", "ring:7");
    check_registry("mesh2", "torus:4x4");
    check_registry("hc-standard", "hypercube:4");
    check_registry("bruck:3", "ring:10");
    check_registry("t1", "torus:16x16");
    check_registry("mt3", "torus:6x6x6");
    check_registry("ar1:virtual", "ring:7");
    check_registry("at2:virtual", "torus:5x7");
    check_registry("pairwise", "mesh:3x4");
    check_registry("hc-direct", "hypercube:3");
    test_invalid_partners();
    test_malformed();
    test_arguments();
    return check_finish("test_follow");
}
