/*
 * torus_liu_kd.h - what torus_liu_kd.c (mt3, mtk, pt4, ptk; Liu et al.
 * section 5) offers besides its registry entries: the paper's closed-form
 * counts, so tests and docs can hold the verified schedules against them.
 */
#ifndef XCHG_TORUS_LIU_KD_H
#define XCHG_TORUS_LIU_KD_H

#include "alg_common.h"

/* Which closed form xchg_liu_kd_paper evaluates. */
enum {
    XCHG_LIU_KD_MT = 0,        /* MT_kD (MT_3D for k = 3), section 5.2/5.3 */
    XCHG_LIU_KD_PT_PRINTED = 1, /* T_kD as printed (T_4D for k = 4), 5.1 */
    XCHG_LIU_KD_PT_DERIVED = 2  /* T_kD with the volume the recursion gives */
};

/*
 * Liu et al.'s formula `which` on t, in start-ups and blocks (largest size N1,
 * p nodes): MT_kD = (k ceil(N1/4k) + k^2) t_s + (k^2 floor(N1^2/8k^2) p/N1
 * + (floor(k^2/4) + k/2) p) m t_w; T_kD = k (ceil(N1/4k) + log2 k + 1) t_s
 * + the same volume as printed, or with (k/2)(log2 k + 1) p for the second
 * term (derived). Returns 0, or XCHG_ENOTAPPLIC when t is not a torus the
 * formula is for (sizes multiples of 2k; k a power of two for T_kD).
 */
XCHG_INTERNAL int xchg_liu_kd_paper(const xchg_topo *t, int which, xchg_counts *out);

#endif /* XCHG_TORUS_LIU_KD_H */
