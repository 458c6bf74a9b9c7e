/*
 * shm_v.c - the exchange of variable blocks (MPI_Alltoallv, _w) through
 * one node's shared segment: shm.c's two grids of p x p slots, each slot
 * now holding an 8-byte word and then up to c bytes of one block
 * (c: the bytes of each slot every rank has backed, less the word; when a
 * call's largest block needs more, every rank backs more of each slot at
 * once, up to the slot's size, after round 0).
 *
 * Round 0: each rank writes, into every slot of its column, the largest
 * block it sends to another rank and how many peers it exchanges nonzero
 * blocks with (the word), and the first c bytes of the block (only the
 * word when its own largest block already passes the limit below: the
 * call goes direct); then one barrier. Every rank now reads the words of
 * its row: the largest block of the whole call and the most nonzero peers
 * of any rank, the same numbers on every rank, with no message. From them
 * every rank takes the same way:
 *   - a largest block of at most the plan's shm_v_limit (auto's crossover
 *     with the direct exchange: the cost model's at that block size) and
 *     at least shm_v_nnz_min nonzero peers (below, the direct exchange's
 *     few messages are predicted cheaper than the segment's barrier): on
 *     through the segment, copying its row home and moving c more bytes
 *     of every block a round until the largest is home (one round for
 *     small blocks);
 *   - else the direct schedule (exec_v.c) for the whole call; round 0's
 *     copies are left unread.
 * With a tuning file's rows of alltoallv (tuned_v.c) the row of the
 * largest block decides instead: shm, the direct schedule, a
 * store-and-forward schedule, or the MPI library's call (every rank calls
 * it); shm_v_limit is then the largest block a rank's own may reach and
 * the call still take shm (its speculation below).
 * After a call that went direct (or by a row another way than shm), the
 * next calls go the same way without round 0
 * (1, then 2, 4, ... up to 64 of them while calls keep going direct; then
 * round 0 asks again): the ranks saw the same numbers, so they skip
 * alike, and a program of large blocks pays the barrier once in 64 calls.
 * A rank that failed before round 0 (staging could not be had) writes a
 * word no block can have: every rank then returns MPI_ERR_OTHER, and no
 * rank waits forever. In place needs no staging here: a round overwrites
 * only pieces it has sent (shm.c says why the two grids and one barrier a
 * round are enough).
 */
#include "mpi/call.h"

#include <stdio.h>

/* The word of a rank that failed before round 0. */
#define FAILED UINT64_MAX
/* A word's fields: the rank's largest block sent (low 48 bits, capped:
 * a larger block is past any slot) and its nonzero peers (the more of
 * those it sends to and receives from, capped below FAILED's). */
#define WORD_BYTES ((UINT64_C(1) << 48) - 1)
#define WORD_PEERS_MAX ((uint64_t)0xFFFE)

/* Say (xchg_mpi_last_info) that this call went direct: after round 0
 * with its largest block and busiest rank's nonzero peers, or (largest
 * UINT64_MAX) unasked, as the last call. */
static void note_direct(const xchg_mpi_plan *pl, uint64_t largest, uint64_t peers)
{
    static const char unasked[] = "auto: direct, as the last call, without asking";
    static const char asked = 0; /* the key of the reason after round 0 */
    /* auto's direct program (choose_v.c); the reason named by its numbers
     * (largest < 2^48 and peers < 2^16 here, word_of) */
    if (largest == UINT64_MAX)
        xchg_mpi_remember_way(pl, unasked, 0, "pairwise", 0, "%s", unasked);
    else
        xchg_mpi_remember_way(pl, &asked, largest | peers << 48, "pairwise", 0,
                              "auto: direct: the call's largest block is %llu B (shm up to %zu) "
                              "and its busiest rank has %llu nonzero peers (shm from %zu)",
                              (unsigned long long)largest, pl->shm_v_limit,
                              (unsigned long long)peers, pl->shm_v_nnz_min);
}

/* This rank's word of round 0 for the call g describes. */
static uint64_t word_of(const xchg_mpi_vgeom *g)
{
    uint64_t bytes = g->smax < WORD_BYTES ? (uint64_t)g->smax : WORD_BYTES;
    size_t peers = g->nsend > g->nrecv ? g->nsend : g->nrecv;
    uint64_t k = peers < WORD_PEERS_MAX ? (uint64_t)peers : WORD_PEERS_MAX;
    return k << 48 | bytes;
}

/* The next round's grid. */
static unsigned char *next_grid(xchg_mpi_store *st, size_t P)
{
    return st->shm + XCHG_MPI_SHM_HEADER + (st->shm_round++ & 1) * P * P * st->shm_slot;
}

/* Write piece [off, off + c) of every block this rank sends (g NULL: a
 * failed rank's words only) into its column of grid, each after word. */
static void put_pieces(unsigned char *grid, size_t P, size_t me, size_t stride, size_t c,
                       const xchg_mpi_vgeom *g, size_t off, uint64_t word, xchg_mpi_tally *t)
{
    for (size_t d = 0; d < P; d++) {
        if (d == me)
            continue;
        unsigned char *slot = grid + (d * P + me) * stride;
        if (off == 0)
            memcpy(slot, &word, sizeof word);
        if (g && g->slen[d] > off) {
            size_t n = g->slen[d] - off < c ? g->slen[d] - off : c;
            xchg_mpi_copy(slot + 8, g->sp[d] + off, n, t);
        }
    }
}

/* Copy piece [off, off + c) of every block this rank receives home from
 * its row of grid. */
static void get_pieces(const unsigned char *grid, size_t P, size_t me, size_t stride, size_t c,
                       const xchg_mpi_vgeom *g, size_t off, xchg_mpi_tally *t)
{
    for (size_t o = 0; o < P; o++) {
        if (o == me || g->rlen[o] <= off)
            continue;
        size_t n = g->rlen[o] - off < c ? g->rlen[o] - off : c;
        xchg_mpi_copy(g->rp[o] + off, grid + (me * P + o) * stride + 8, n, t);
    }
}

int xchg_mpi_shm_v_run(xchg_mpi_plan *pl, const xchg_mpi_bufs *b)
{
#ifndef __linux__
    (void)pl, (void)b;
    return MPI_ERR_INTERN;
#else
    xchg_mpi_comm *cs = pl->cs;
    xchg_mpi_store *st = pl->store;
    size_t P = (size_t)cs->p, me = (size_t)cs->rank, stride = st->shm_slot;
    size_t c = (st->shm_filled < stride ? st->shm_filled : stride) - 8;
    xchg_mpi_vgeom g;
    int in_place = b->v->sendbuf == MPI_IN_PLACE;
    if (pl->v_skip > 0) { /* recent calls went another way: this one does, unasked */
        pl->v_skip--;
        if (pl->v_skip_row)
            return xchg_mpi_tuned_v_run(pl, b, pl->v_skip_row, UINT64_MAX);
        note_direct(pl, UINT64_MAX, 0);
        return xchg_mpi_exec_v(pl, b);
    }
    int rc = xchg_mpi_vgeom_begin(cs, b, 0, &g);
    xchg_mpi_tally t = {0, 0};
    /* round 0 */
    unsigned char *grid = next_grid(st, P);
    /* a rank whose own largest block passes the limit knows the call
     * goes direct: its words alone, no data */
    int speculate = rc == MPI_SUCCESS && g.smax <= pl->shm_v_limit;
    put_pieces(grid, P, me, stride, c, speculate ? &g : NULL, 0,
               rc == MPI_SUCCESS ? word_of(&g) : FAILED, &t);
    xchg_mpi_shm_barrier(st->shm, cs->p);
    uint64_t largest = 0, peers = 0;
    int failed = rc != MPI_SUCCESS;
    for (size_t o = 0; o < P && !failed; o++) {
        uint64_t w;
        if (o == me)
            w = word_of(&g);
        else
            memcpy(&w, grid + (me * P + o) * stride, sizeof w);
        failed = w == FAILED;
        if ((w & WORD_BYTES) > largest)
            largest = w & WORD_BYTES;
        if (w >> 48 > peers)
            peers = w >> 48;
    }
    if (failed)
        return rc != MPI_SUCCESS ? rc : MPI_ERR_OTHER;
    /* a tuning file's row (tuned_v.c), else the model's crossover and
     * sparseness */
    const xchg_mpi_vrow *row = xchg_mpi_tuned_v_row(pl, largest);
    int direct = largest > pl->shm_v_limit || peers < pl->shm_v_nnz_min;
    int way = row ? row->way : direct ? XCHG_MPI_VWAY_PROG : XCHG_MPI_VWAY_SHM;
    if (way != XCHG_MPI_VWAY_SHM) { /* every rank: the same other way */
        pl->v_backoff = pl->v_backoff ? (pl->v_backoff < 32 ? 2 * pl->v_backoff : 64) : 1;
        pl->v_skip = pl->v_backoff;
        /* the direct prog below; another schedule or the library by its row */
        pl->v_skip_row = row;
        if (row && !(way == XCHG_MPI_VWAY_PROG && row->prog == pl->prog))
            return xchg_mpi_tuned_v_run(pl, b, row, largest);
        if (row)
            xchg_mpi_tuned_v_note(pl, row, largest);
        else
            note_direct(pl, largest, peers);
        if (in_place)
            rc = xchg_mpi_vgeom_begin(cs, b, 1, &g); /* its sends staged */
        if (rc == MPI_SUCCESS)
            rc = xchg_mpi_exec_v_geom(pl, b, &g);
        return rc == MPI_SUCCESS ? xchg_mpi_vgeom_end(cs, b, &g) : rc;
    }
    pl->v_backoff = 0;
    get_pieces(grid, P, me, stride, c, &g, 0, &t);
    if (largest > c && st->shm_filled < stride) {
        /* back more of each slot, so the rest goes in fewer rounds: every
         * rank knows largest, so every rank asks at once */
        char why[256];
        int ok = 0;
        size_t want = largest + 8 < stride ? (size_t)largest + 8 : stride;
        rc = xchg_mpi_store_shm(cs, st, want, pl->persistent, &ok, why, sizeof why);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    size_t off = c;
    c = (st->shm_filled < stride ? st->shm_filled : stride) - 8;
    for (; off < largest; off += c) {
        grid = next_grid(st, P);
        put_pieces(grid, P, me, stride, c, &g, off, 0, &t);
        xchg_mpi_shm_barrier(st->shm, cs->p);
        get_pieces(grid, P, me, stride, c, &g, off, &t);
    }
    xchg_mpi_charge_tally(&t);
    return xchg_mpi_vgeom_end(cs, b, &g);
#endif
}
