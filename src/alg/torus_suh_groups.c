/*
 * torus_suh_groups.c - the senders' groups of Suh et al.'s family
 * (xchg_sched_group) for t1, t2, t1.x (torus_suh.c) and t1:paper
 * (torus_suh_paper.c): the paper's names SG_L(1), SG_L(2) and G_L(k) of a
 * sender at a step, read from the step's group_arg, which both builders
 * set. It may call torus_suh.h's inline geometry only, and neither
 * builder: both builders call it.
 */
#include "torus_suh.h"

/*
 * A step's group_arg is SUH_GROUP_* times SUH_GROUP_KIND plus the level L
 * of its groups:
 *   concentration phase q (level q+1): G_(q+1)(1) and G_(q+1)(2), index 0
 *     and 1;
 *   halving at level L: the level-L group k of the sender (group_of), named
 *     as the paper numbers T2's groups: G_L(1) is k = 0 and G_L(2) is k =
 *     2^(L-1)-1, exactly the paper's sets (SG_L(1), SG_L(2)). The paper's
 *     other groups G_L(2j+1), G_L(2j+2) are the diagonals shifted by 2j,
 *     split by the parity of y; ours shift by XOR (docs/torus-suh.md), so
 *     they are not the same sets. They play the same part: the paired
 *     groups k, k XOR (2^(L-1)-1) whose even member is 2j take the names
 *     G_L(2j+1) (the one moving in x first, as the paper's G_p(2i-1) does)
 *     and G_L(2j+2). (For T1.1 at level 4 the active pair k = 3, 4 is
 *     exactly the paper's G_4(5) + G_4(6).) Index j-1.
 *   send phase at level L = lv+1: the senders, G_L(1), index 0.
 * T1's steps are named with the paper's SG (it only has groups 1 and 2);
 * T2's with G; T1.x, whose concentration and send phases are T1's, with SG
 * there and G in its halving phases.
 */
/* The paper's 1-based index of level-L group k (see above). */
static uint32_t suh_group_number(int level, uint32_t k)
{
    if (level < 2)
        return 1;
    uint32_t flip = (1u << (level - 1)) - 1;
    uint32_t other = k ^ flip;
    uint32_t even = k % 2 == 0 ? k : other;
    return even + (k <= other ? 1 : 2);
}

/* Group of a sender for schedules whose steps carry SUH_GROUP_* codes;
 * sg: name T1's groups SG, else halving groups G. */
static int suh_group(const xchg_sched *s, size_t step, uint32_t node, char *name, size_t len,
                     int sg)
{
    suh_geo g = suh_geo_of(&s->topo);
    int kind = s->steps[step].group_arg / SUH_GROUP_KIND;
    int level = s->steps[step].group_arg % SUH_GROUP_KIND;
    if (level < 1 || level > g.d)
        return -1;
    uint32_t j;
    const char *prefix = sg ? "SG" : "G";
    switch (kind) {
    case SUH_GROUP_CONC:
        if (level < 2 || !in_g1(&g, node, level - 1))
            return -1;
        j = in_g1(&g, node, level) ? 1 : 2;
        prefix = "SG";
        break;
    case SUH_GROUP_HALVE:
        j = suh_group_number(level, group_of(&g, node, level));
        break;
    case SUH_GROUP_SEND:
        if (!in_g1(&g, node, level))
            return -1;
        j = 1;
        prefix = "SG";
        break;
    default:
        return -1;
    }
    snprintf(name, len, "%s_%d(%u)", prefix, level, j);
    return (int)j - 1;
}

int xchg_suh_t1_group(const xchg_sched *s, size_t step, uint32_t node, char *name, size_t len)
{
    return suh_group(s, step, node, name, len, 1);
}

int xchg_suh_t2_group(const xchg_sched *s, size_t step, uint32_t node, char *name, size_t len)
{
    return suh_group(s, step, node, name, len, 0);
}

