/*
 * torus_liu.h - building blocks of the Liu-Gu algorithms (Liu et al.) shared
 * by torus_liu.c (ar1, at2) and torus_liu_kd.c (pt4/ptk, mt3/mtk).
 *
 * AR1 on a LOGICAL ring of q nodes (q even, q >= 2): logical node i is
 * "even" or "odd" by i % 2. A "group" is whatever one logical node must
 * deliver to one other logical node (one block on a plain ring; 2r blocks
 * on an AT2 row ring, ...). Every function below speaks in logical indices
 * and groups, so the caller embeds the ring anywhere (every other node of a
 * torus row, every k-th node of an axis, ...).
 *
 * AR1 steps, numbered k = 0 .. xchg_liu_ar1_nsteps(q)-1, with K = (q-2)/4:
 *   k = 0        pairs (2i-1, 2i): even node i sends to i-1 the groups whose
 *                +distance (j-i) mod q is in [q/2, q-1] (its "left half");
 *                odd node i sends to i+1 the groups at +distance [1, q/2];
 *   k = 1..K     ring steps: even nodes send +2 every group still 2 or more
 *                ahead (+distance in [2, q/2-1]); odd nodes send -2 every
 *                group 2 or more behind (-distance (i-j) mod q in
 *                [2, q/2-1]); even nodes use only + links, odd only - links;
 *   k = K+1      final, pairs (2i, 2i+1): even node sends +1 the groups at
 *                +distance 1, odd node sends -1 the groups at -distance 1.
 *   (q = 2: only step 0; the final would be empty.)
 * Every node sends the same number of groups in a step:
 *   step 0: q/2; ring step k: q-4k; final: q/2 when q/2 is even, else q/2-1;
 * total start-ups ceil(q/4)+1 (1 for q = 2), groups floor(q^2/8)+q/2.
 */
#ifndef XCHG_TORUS_LIU_H
#define XCHG_TORUS_LIU_H

#include "alg_common.h"

/* Number of AR1 steps on a logical ring of q nodes (q even >= 2):
 * 1 for q = 2, else (q-2)/4 + 2. 0 for q < 2 or odd q (not applicable). */
XCHG_INTERNAL uint32_t xchg_liu_ar1_nsteps(uint32_t q);

/* Logical partner offset of logical node i at AR1 step k: -1/+1 at step 0
 * (odd +1, even -1), +2/-2 on ring steps (even +2, odd -2), +1/-1 at the
 * final (even +1, odd -1). The partner is (i + offset) mod q. 0 when k is
 * past the last step. */
XCHG_INTERNAL int xchg_liu_ar1_offset(uint32_t q, uint32_t k, uint32_t i);

/* Nonzero when logical node i, at AR1 step k, sends the group bound for
 * logical node j (it must hold it; see xchg_liu_ar1_locate). */
XCHG_INTERNAL int xchg_liu_ar1_sends(uint32_t q, uint32_t k, uint32_t i, uint32_t j);

/* Groups every node sends at AR1 step k (0 past the last step). */
XCHG_INTERNAL uint64_t xchg_liu_ar1_groups(uint32_t q, uint32_t k);

/* Start-ups and groups of the whole AR1 on q nodes (the sums of the above). */
XCHG_INTERNAL void xchg_liu_ar1_counts(uint32_t q, uint64_t *startups, uint64_t *groups);

/* Logical node that holds the group from logical origin i0 bound for
 * logical node j just before AR1 step k (k = nsteps: at the end, i.e. j). */
XCHG_INTERNAL uint32_t xchg_liu_ar1_locate(uint32_t q, uint32_t k, uint32_t i0, uint32_t j);

/*
 * Two AR1 rings side by side in one phase (disjoint nodes, one step of
 * each per slot): ring A has qa logical nodes and groups of ga blocks, ring
 * B qb and gb. The longer ring (more steps; A on a tie) runs its steps in
 * slots 0, 1, ...; the shorter one runs its step 0 and ring steps in slots
 * 0, 1, ... too, and its final in the free slot where the longer ring's
 * message is largest (latest on a tie), so the slot maximum grows least.
 * Writes the number of slots to *slots and, for ring A and ring B, the slot
 * of its final step (== its nsteps-1 for the longer ring).
 */
XCHG_INTERNAL void xchg_liu_ar1_pair(uint32_t qa, uint64_t ga, uint32_t qb, uint64_t gb,
                                     uint32_t *slots, uint32_t *final_a, uint32_t *final_b);

/* AR1 step that a ring of q nodes, whose final step sits in slot final_slot,
 * runs in slot `slot`; -1 when it is idle there. */
XCHG_INTERNAL int xchg_liu_ar1_step_at(uint32_t q, uint32_t final_slot, uint32_t slot);

/* Volume in blocks of a phase with two rings side by side as placed by
 * xchg_liu_ar1_pair: the sum over slots of the larger message. */
XCHG_INTERNAL uint64_t xchg_liu_ar1_pair_volume(uint32_t qa, uint64_t ga, uint32_t qb,
                                                uint64_t gb);

/*
 * Where groups held at the final step come from: how far behind logical
 * node i, in its direction of travel, logical origin i0 is: (i - i0) mod q
 * for an even i (groups going +), (i0 - i) mod q for an odd i. Before its
 * final step node i holds, for its partner, exactly the groups from origins
 * 0 .. g-1 behind it, g = xchg_liu_ar1_groups(q, final step).
 */
XCHG_INTERNAL uint32_t xchg_liu_ar1_behind(uint32_t q, uint32_t i, uint32_t i0);

/* Two AR1 rings side by side as xchg_liu_ar1_lay_out places them. */
typedef struct xchg_liu_ar1_layout {
    uint32_t slots;        /* steps of the phase (the longer ring's steps) */
    uint32_t final_a;      /* slot of ring A's final step (its first part
                              when split) */
    uint32_t final_b;      /* the same for ring B */
    int split;             /* 0: no split; 1: ring A's final is split; 2: B's */
    uint32_t split_slot;   /* slot of the split final's second part */
    uint32_t split_h;      /* first part: the groups from origins 0..h-1
                              behind (xchg_liu_ar1_behind); second: the rest */
    uint64_t volume;       /* sum over slots of the larger message, blocks */
} xchg_liu_ar1_layout;

/*
 * Like xchg_liu_ar1_pair, and then, when strictly cheaper, the shorter
 * ring's final step split over two free slots by origin: the groups from
 * origins 0..h-1 behind in one slot, the rest in another (the pair, slots
 * and h that make the sum of slot maxima least; first found on a tie).
 * With no split the placement is xchg_liu_ar1_pair's.
 */
XCHG_INTERNAL void xchg_liu_ar1_lay_out(uint32_t qa, uint64_t ga, uint32_t qb, uint64_t gb,
                                        xchg_liu_ar1_layout *out);

#endif /* XCHG_TORUS_LIU_H */
