/*
 * test_sched.c - the schedule representation: partner rules, block rules,
 * declared sizes, and the public reading calls.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sched/sched_internal.h"


static void test_partners(void)
{
    xchg_topo t = check_topo("torus:3x5");
    xchg_sched *s = xchg_sched_new(&t, "test", 0);
    CHECK(s != NULL, "new");
    xchg_step st = xchg_step_shift(1, -2, xchg_rule_dest_is_to(), 1);
    CHECK(xchg_sched_add(s, &st) == 0, "add shift");
    st = xchg_step_shift(0, 4, xchg_rule_dest_is_to(), 1);
    CHECK(xchg_sched_add(s, &st) == 0, "add shift dim 0");
    st = xchg_step_shift(-1, 14, xchg_rule_dest_is_to(), 1);
    CHECK(xchg_sched_add(s, &st) == 0, "add shift ids");
    st = xchg_step_xor(3, xchg_rule_dest_is_to(), 1);
    CHECK(xchg_sched_add(s, &st) == 0, "add xor");
    CHECK_EQ_U64(xchg_sched_nsteps(s), 4, "steps");

    xchg_msg m;
    xchg_sched_message(s, 0, 6, &m);
    CHECK_EQ_U64(m.to, 9, "shift -2 along columns wraps: (1,1) -> (1,4)");
    xchg_sched_message(s, 1, 6, &m);
    CHECK_EQ_U64(m.to, 11, "shift +4 along a dimension of 3 is +1: (1,1) -> (2,1)");
    xchg_sched_message(s, 2, 6, &m);
    CHECK_EQ_U64(m.to, 5, "shift 14 along ids mod 15");
    xchg_sched_message(s, 3, 6, &m);
    CHECK_EQ_U64(m.to, 5, "xor 3");
    xchg_sched_message(s, 9, 6, &m);
    CHECK_EQ_U64(m.to, XCHG_NONE, "a step past the end is idle");
    xchg_sched_free(s);
}

static void test_tables_and_sizes(void)
{
    xchg_topo t = check_topo("ring:4");
    xchg_sched *s = xchg_sched_new(&t, "tables", 1);
    uint32_t *partners = malloc(4 * sizeof *partners);
    uint32_t *sizes = malloc(4 * sizeof *sizes);
    partners[0] = 1;
    partners[1] = XCHG_NONE;
    partners[2] = 3;
    partners[3] = XCHG_NONE;
    sizes[0] = 2;
    sizes[1] = 9; /* idle: must not count toward the largest message */
    sizes[2] = 5;
    sizes[3] = 0;
    xchg_step st;
    memset(&st, 0, sizeof st);
    st.partner = XCHG_PARTNER_TABLE;
    st.partner_table = partners;
    st.blocks_table = sizes;
    st.rule = xchg_rule_coord_ne(0);
    st.copy_blocks = 4;
    CHECK(xchg_sched_add(s, &st) == 0, "add table step");
    CHECK_EQ_U64(xchg_sched_step_max_blocks(s, 0), 5, "largest message ignores idle nodes");
    CHECK_EQ_U64(xchg_sched_copy_blocks(s, 0), 4, "copies");
    xchg_msg m;
    xchg_sched_message(s, 0, 1, &m);
    CHECK(m.to == XCHG_NONE && m.blocks == 0, "idle node has an empty message");
    xchg_sched_message(s, 0, 2, &m);
    CHECK(m.to == 3 && m.blocks == 5, "table message");
    CHECK(xchg_sched_contention_free(s), "flag kept");
    CHECK(strcmp(xchg_sched_algorithm(s), "tables") == 0, "name kept");
    CHECK(!xchg_sched_selects(s, 0, 1, 1, 2), "an idle node selects nothing");
    xchg_sched_free(s);
    xchg_sched_free(NULL);
}

static void test_rules(void)
{
    xchg_topo t = check_topo("torus:4x4");
    xchg_sched *s = xchg_sched_new(&t, "rules", 0);
    xchg_step st = xchg_step_xor(1, xchg_rule_dest_mask_to(1), 8);
    xchg_sched_add(s, &st);                       /* 0: dest bit 0 == partner's */
    st = xchg_step_shift(1, 1, xchg_rule_coord_ne(1), 12);
    xchg_sched_add(s, &st);                       /* 1: column differs */
    st = xchg_step_shift(1, 1, xchg_rule_coord_dist(1, +1, 1, 2), 8);
    xchg_sched_add(s, &st);                       /* 2: +1 distance 1..2 */
    st = xchg_step_shift(1, -1, xchg_rule_coord_side(1, -1), 4);
    xchg_sched_add(s, &st);                       /* 3: column smaller */
    st = xchg_step_shift(-1, 2, xchg_rule_rel_digit(2, 2, 1), 8);
    xchg_sched_add(s, &st);                       /* 4: bit 1 of dest-origin */

    /* node 5 = (1,1) */
    CHECK(xchg_sched_selects(s, 0, 5, 5, 4), "mask: dest 4 matches partner 4 in bit 0");
    CHECK(!xchg_sched_selects(s, 0, 5, 5, 7), "mask: dest 7 does not");
    CHECK(xchg_sched_selects(s, 1, 5, 0, 14), "coord_ne: column 2 != 1");
    CHECK(!xchg_sched_selects(s, 1, 5, 0, 9), "coord_ne: column 1 == 1");
    CHECK(xchg_sched_selects(s, 2, 5, 0, 3), "coord_dist: column 3 is +2 from 1");
    CHECK(!xchg_sched_selects(s, 2, 5, 0, 0), "coord_dist: column 0 is +3 from 1");
    CHECK(xchg_sched_selects(s, 3, 5, 0, 8), "coord_side: column 0 < 1");
    CHECK(!xchg_sched_selects(s, 3, 5, 0, 7), "coord_side: column 3 > 1");
    CHECK(xchg_sched_selects(s, 4, 5, 3, 5), "rel_digit: 5-3 = 2 has bit 1");
    CHECK(!xchg_sched_selects(s, 4, 5, 3, 4), "rel_digit: 4-3 = 1 lacks bit 1");
    CHECK(xchg_sched_selects(s, 4, 5, 15 % 16, 1), "rel_digit wraps: 1-15 mod 16 = 2");
    xchg_sched_free(s);
}

/* Parity shifts: one distance for the nodes whose coordinate (id along
 * -1) is even, another for the odd ones, with wrap-around; the follower
 * compiles them like any partner. */
static void test_parity(void)
{
    xchg_topo t = check_topo("torus:3x5");
    xchg_sched *s = xchg_sched_new(&t, "parity", 0);
    xchg_step st = xchg_step_parity(1, 2, -1, xchg_rule_dest_is_to(), 1);
    CHECK(xchg_sched_add(s, &st) == 0, "add parity along columns");
    st = xchg_step_parity(0, 1, -2, xchg_rule_dest_is_to(), 1);
    CHECK(xchg_sched_add(s, &st) == 0, "add parity along rows");
    st = xchg_step_parity(-1, 1, -1, xchg_rule_dest_is_to(), 3);
    CHECK(xchg_sched_add(s, &st) == 0, "add parity along ids");
    xchg_msg m;
    xchg_sched_message(s, 0, 9, &m);
    CHECK_EQ_U64(m.to, 6, "column 4 is even: +2 wraps, (1,4) -> (1,1)");
    xchg_sched_message(s, 0, 13, &m);
    CHECK_EQ_U64(m.to, 12, "column 3 is odd: -1, (2,3) -> (2,2)");
    xchg_sched_message(s, 0, 5, &m);
    CHECK_EQ_U64(m.to, 7, "the coordinate's parity, not the id's: (1,0) -> (1,2)");
    xchg_sched_message(s, 1, 11, &m);
    CHECK_EQ_U64(m.to, 1, "row 2 is even: +1 wraps, (2,1) -> (0,1)");
    xchg_sched_message(s, 1, 8, &m);
    CHECK_EQ_U64(m.to, 13, "row 1 is odd: -2 wraps, (1,3) -> (2,3)");
    xchg_sched_message(s, 2, 14, &m);
    CHECK(m.to == 0 && m.blocks == 3, "id 14 is even: +1 mod 15");
    xchg_sched_message(s, 2, 7, &m);
    CHECK_EQ_U64(m.to, 6, "id 7 is odd: -1");
    CHECK_EQ_U64(xchg_sched_step_max_blocks(s, 2), 3, "every node sends");
    xchg_follower *f = NULL;
    uint32_t path[4];
    CHECK(xchg_follower_new(s, &f, NULL) == 0, "the follower compiles parity steps");
    CHECK(f && xchg_follow_block(f, 9, 6, path) == 0 && path[1] == 6 && path[3] == 6,
          "block (9,6) goes to 6 at step 0 and stays");
    xchg_follower_free(f);
    xchg_sched_free(s);
}

/* A callback rule: selects blocks whose destination is even. */
static int even_dest(const void *ctx, size_t step, uint32_t node, uint32_t origin, uint32_t dest)
{
    (void)step;
    (void)node;
    (void)origin;
    return *(const int *)ctx == 42 && dest % 2 == 0;
}

static void test_callback(void)
{
    xchg_topo t = check_topo("complete:6");
    xchg_sched *s = xchg_sched_new(&t, "cb", 1);
    int *ctx = malloc(sizeof *ctx);
    *ctx = 42;
    s->ctx = ctx;
    s->ctx_free = free;
    xchg_step st = xchg_step_shift(0, 1, xchg_rule_fn(even_dest), 3);
    CHECK(xchg_sched_add(s, &st) == 0, "add");
    CHECK(xchg_sched_selects(s, 0, 1, 1, 4), "callback selects");
    CHECK(!xchg_sched_selects(s, 0, 1, 1, 3), "callback refuses");
    xchg_sched_free(s); /* frees ctx: ASan checks */
}

int main(void)
{
    test_partners();
    test_tables_and_sizes();
    test_parity();
    test_rules();
    test_callback();
    return check_finish("test_sched");
}
