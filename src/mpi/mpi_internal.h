/*
 * mpi_internal.h - what every file of the executor shares: the visibility
 * and attribute macros, the limits of a message and of the shared segment,
 * how a buffer's blocks sit in memory (layout.c), posting a message in
 * pieces (layout.c), the options in effect and raising an error (call.c),
 * and copies counted for SimGrid (charge.c).
 *
 * The executor's other internal headers each belong to one part of it:
 *   comm.h     the state kept on a communicator (comm.c, settings.c,
 *              store.c, nodes.c, topo_map.c, auto_files.c, plan_cache.c)
 *   program.h  one rank's program of an algorithm, built once per
 *              communicator (program.c, program_exchange.c, program_op.c)
 *   plan.h     a plan for one call's key, and its run (plan.c, choose.c,
 *              candidates.c, auto.c, exec.c, shm.c, op_exec.c)
 *   call.h     the one call path of every entry point (call.c, describe.c,
 *              pass.c, memo.c, last_info.c, entry.c)
 * docs/architecture.md draws how they fit.
 */
#ifndef XCHG_MPI_INTERNAL_H
#define XCHG_MPI_INTERNAL_H

#include "xchg_core.h"
#include "xchg_model.h"
#include "xchg_mpi.h"
#include "xchg_rank.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The executor's internal functions are hidden from the shared library, as
 * the core's are: calls between its files go straight to the function, not
 * through the PLT, and a program cannot bind to them by accident. */
#if defined(__GNUC__)
#define XCHG_MPI_INTERNAL __attribute__((visibility("hidden")))
#define XCHG_MPI_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
/* The short way to the MPI library (memo.c) and the entry points it runs
 * through sit side by side in the library's code, so a call that takes it
 * reads few pages of code (docs/mpi-ops.md says why pages count when many
 * ranks share a core). */
#define XCHG_MPI_HOT __attribute__((hot))
#define XCHG_MPI_NOINLINE __attribute__((noinline))
#define XCHG_MPI_INLINE inline __attribute__((always_inline))
#else
#define XCHG_MPI_INTERNAL
#define XCHG_MPI_PRINTF(fmt, args)
#define XCHG_MPI_HOT
#define XCHG_MPI_NOINLINE
#define XCHG_MPI_INLINE inline
#endif

/* The executor's operations beyond the core's (xchg_op_kind): MPI's
 * exchanges of variable blocks. They run the complete exchange's
 * schedules with blocks of each call's sizes (docs/alltoallv.md), so the
 * core knows nothing of them: they index only the executor's tables. */
#define XCHG_MPI_OP_ALLTOALLV ((xchg_op_kind)XCHG_OP_COUNT)
#define XCHG_MPI_OP_ALLTOALLW ((xchg_op_kind)(XCHG_OP_COUNT + 1))
#define XCHG_MPI_KINDS (XCHG_OP_COUNT + 2)
/* a tuning file's rows of "alltoallv" carry MPI_Alltoallv's number */
_Static_assert(XCHG_MPI_OP_ALLTOALLV == XCHG_TUNING_ALLTOALLV,
               "the tuning file's alltoallv is the executor's MPI_Alltoallv");

/* Whether kind is MPI_Alltoallv or MPI_Alltoallw. */
static inline int xchg_mpi_is_v(xchg_op_kind kind)
{
    return kind == XCHG_MPI_OP_ALLTOALLV || kind == XCHG_MPI_OP_ALLTOALLW;
}

/* The registry's operation whose algorithms a call of kind runs: the
 * complete exchange's for the variable-block exchanges. */
static inline xchg_op_kind xchg_mpi_registry_kind(xchg_op_kind kind)
{
    return xchg_mpi_is_v(kind) ? XCHG_OP_ALLTOALL : kind;
}

/* Steps of an independent exchange posted together (exec.c). */
#define XCHG_MPI_WINDOW 64

/* Largest piece of one message (bytes): counts are int in MPI calls. */
#define XCHG_MPI_PIECE ((size_t)1 << 30)

/* Largest pair of grids the shared-memory exchange maps (2 p^2 slots; the
 * segment adds a 128-byte header): larger blocks go in several rounds. */
#define XCHG_MPI_SHM_MAX ((size_t)32 << 20)

/* a * b, or SIZE_MAX when it overflows. */
static inline size_t xchg_mpi_mul(size_t a, size_t b)
{
    size_t r;
    return __builtin_mul_overflow(a, b, &r) ? SIZE_MAX : r;
}

/* a + b, or SIZE_MAX when it overflows (or either is SIZE_MAX). */
static inline size_t xchg_mpi_add(size_t a, size_t b)
{
    size_t r;
    return a == SIZE_MAX || b == SIZE_MAX || __builtin_add_overflow(a, b, &r) ? SIZE_MAX : r;
}

/* How a buffer's blocks sit in memory for the datatype of a call. */
typedef struct xchg_mpi_layout {
    int contiguous;     /* block j is its bytes of plain data at j * stride */
    MPI_Count count;    /* elements of the datatype per block */
    MPI_Datatype type;
    MPI_Aint stride;    /* bytes from one block to the next (count * extent) */
    size_t elem_bytes;  /* bytes of one element's type signature */
} xchg_mpi_layout;

/* Where the blocks of a buffer sit for count elements of type (*out), and
 * the bytes of one block's type signature (*block_bytes). An MPI error
 * code: MPI_ERR_COUNT when count x extent overflows. */
XCHG_MPI_INTERNAL int xchg_mpi_layout_of(MPI_Count count, MPI_Datatype type,
                                         xchg_mpi_layout *out, size_t *block_bytes);

/* Pack (unpack) blocks 0..nblocks-1 (B bytes of type signature each) of a
 * user buffer of layout lay to (from) staging + j * stride, with MPI_Pack
 * (MPI_Unpack) on comm, in calls whose int counts fit (a block of 2^31
 * bytes or more goes in several). An MPI error code; MPI_ERR_COUNT when
 * one element of the type alone passes 2^31 bytes. */
XCHG_MPI_INTERNAL int xchg_mpi_pack_blocks(MPI_Comm comm, const xchg_mpi_layout *lay,
                                           unsigned char *user, unsigned char *staging,
                                           size_t stride, size_t nblocks, size_t B, int unpack);

/* Post a message of bytes at buf to (recv 0) or from (recv 1) peer on comm
 * as pieces of at most XCHG_MPI_PIECE bytes (tags 0, 1, ...; both sides cut
 * it the same way) into reqs[*nreq...], advancing *nreq. An MPI error code. */
XCHG_MPI_INTERNAL int xchg_mpi_post(MPI_Comm comm, int recv, unsigned char *buf, size_t bytes,
                                    int peer, MPI_Request *reqs, size_t *nreq);

/* Pieces a message of bytes is posted in (xchg_mpi_post): at least 1. */
static inline size_t xchg_mpi_pieces(size_t bytes)
{
    return bytes / XCHG_MPI_PIECE + 1;
}

/* The options a call runs with: opts, or (NULL) the defaults with the
 * environment over them, read once per process; a bad variable is said
 * once by rank 0 and sends every call to the MPI library (alg "mpi"). */
XCHG_MPI_INTERNAL const xchg_mpi_opts *xchg_mpi_opts_effective(const xchg_mpi_opts *opts,
                                                               xchg_mpi_opts *buf);

/* Raise rc on comm's error handler (MPI_COMM_WORLD's for MPI_COMM_NULL)
 * unless it is MPI_SUCCESS, and return it. */
XCHG_MPI_INTERNAL int xchg_mpi_raise(MPI_Comm comm, int rc);

/* opts.c: 1 when spec's first len characters name a node-aware exchange
 * (hier.c): "leader[:INNER]" (*leaders 1), "leaders:L[:INNER]" (*leaders
 * L, or -1 when L is not a count from 1), "pairs[:INNER]" (*leaders 0:
 * every rank), with INNER, what runs between nodes ("auto" when not
 * named), into inner; or "aggregate" (*leaders XCHG_MPI_AGGREGATE:
 * aggregate.c, which takes no INNER); else 0. */
#define XCHG_MPI_AGGREGATE (-2)
XCHG_MPI_INTERNAL int xchg_mpi_hier_parse(const char *spec, size_t len, int *leaders,
                                          char *inner, size_t inner_len);

/* charge.c: XCHG_SMPI_COPY_COST's value v ("C,T": ns a copy, ns a byte)
 * as seconds, into *per_copy_s and *per_byte_s. XCHG_OK, or XCHG_EINVAL
 * with a message in err (when not NULL) and the outputs unchanged. */
XCHG_MPI_INTERNAL int xchg_mpi_copy_cost_parse(const char *v, double *per_copy_s,
                                               double *per_byte_s, xchg_err *err);

/* charge.c: under SimGrid's SMPI, charge this rank the simulated time of a
 * copying pass of `copies` copies moving `bytes` bytes at the figures of
 * XCHG_SMPI_COPY_COST (unset: nothing). Elsewhere, nothing. */
#ifdef SMPI_H
XCHG_MPI_INTERNAL void xchg_mpi_charge(size_t copies, size_t bytes);
#else
static inline void xchg_mpi_charge(size_t copies, size_t bytes)
{
    (void)copies;
    (void)bytes;
}
#endif

/* What a copying pass copied, for xchg_mpi_charge: xchg_mpi_copy counts
 * as it copies (outside SMPI the count is never read, and compiled away). */
typedef struct xchg_mpi_tally {
    size_t copies, bytes;
} xchg_mpi_tally;

/* memcpy(to, from, n), counted in *t. */
static inline void xchg_mpi_copy(void *to, const void *from, size_t n, xchg_mpi_tally *t)
{
    memcpy(to, from, n);
    t->copies++;
    t->bytes += n;
}

/* Charge a pass's tally (xchg_mpi_charge). */
static inline void xchg_mpi_charge_tally(const xchg_mpi_tally *t)
{
    xchg_mpi_charge(t->copies, t->bytes);
}

#endif /* XCHG_MPI_INTERNAL_H */
