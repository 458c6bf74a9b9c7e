/*
 * xchg_rank.h - one rank's programs, as an executor runs them on real
 * buffers: what one node does at each step of a complete exchange
 * (xchg_rank_*) or of another operation (xchg_op_program_*), derived from
 * the schedule's rules without the other nodes' programs.
 *
 * Includes xchg_core.h and nothing else of xchg: a rank's program needs
 * schedules, the block follower and the registry's symmetries, not the
 * model or the consumers. The library's rank layer sees it
 * (docs/architecture.md, "The public headers").
 */
#ifndef XCHG_RANK_H
#define XCHG_RANK_H

#include "xchg_core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* One rank's program                                                  */
/* ------------------------------------------------------------------ */

/*
 * What one node does in a schedule, as an executor runs it on real buffers:
 * at each step whom it sends to and receives from, which blocks each
 * message carries (in (origin, dest) order on both sides, so sender and
 * receiver agree on the layout) and where each block is kept. Blocks live in
 * three places: the caller's send buffer (slot d holds block (node, d) until
 * it leaves), the caller's receive buffer (slot o receives block (o, node))
 * and scratch (blocks passing through, in slots reused once freed; a slot
 * freed at a step is reused from the next step on, so a step never receives
 * into a slot it is still sending from). Block (node, node) never moves: the
 * executor copies it from send slot node to receive slot node.
 */
enum {
    XCHG_LOC_SEND = 0,      /* the caller's send buffer, slot = dest      */
    XCHG_LOC_RECV = 1,      /* the caller's receive buffer, slot = origin */
    XCHG_LOC_SCRATCH = 2    /* scratch, slot = an index                   */
};
/* A place: where (XCHG_LOC_*) in the top two bits, the slot below. */
typedef uint32_t xchg_loc;
#define XCHG_LOC(where, slot) (((uint32_t)(where) << 30) | (uint32_t)(slot))
#define XCHG_LOC_WHERE(loc) ((int)((loc) >> 30))
#define XCHG_LOC_SLOT(loc) ((loc) & 0x3fffffffu)

/* One step of one node. */
typedef struct xchg_rank_step {
    uint32_t send_to;          /* XCHG_NONE: the node sends nothing */
    uint32_t recv_from;        /* XCHG_NONE: it receives nothing */
    size_t nsend, nrecv;       /* blocks in each message */
    const xchg_block *send;    /* the blocks sent, in message order */
    const xchg_loc *send_loc;  /* where each is read from */
    const xchg_block *recv;    /* the blocks received, in message order */
    const xchg_loc *recv_loc;  /* where each is written to */
} xchg_rank_step;

typedef struct xchg_rank xchg_rank;

/*
 * Derive node's program from schedule s. With a symmetry (xchg_alg_symmetry
 * of the algorithm that made s; NULL or kind NONE: none) the node's blocks
 * come from the paths of one origin per class: O(classes * p * steps) time,
 * classes = 1 for XOR and CYCLIC and the product of the periods for
 * TRANSLATE. Without one it follows every block (xchg_follow_node_new,
 * O(p*p*steps)). Memory: about 16 bytes per block the node sends or
 * receives, plus O(p + steps). Returns 0; XCHG_EINVAL on a NULL argument, a
 * node out of range, a symmetry that does not fit s's topology, or a
 * schedule of another operation than the complete exchange ("X performs
 * bcast, not the complete exchange");
 * XCHG_EINTERNAL when the schedule breaks the rules (a node sending to or
 * receiving from two nodes in one step, sending a block it does not hold,
 * ending with a block that is not its own); XCHG_ENOMEM.
 */
int xchg_rank_new(const xchg_sched *s, const xchg_symmetry *sym, uint32_t node,
                  xchg_rank **out, xchg_err *err);
void xchg_rank_free(xchg_rank *r);
/* The node, the number of steps (the schedule's), and step k (k < nsteps;
 * the lists belong to r). */
uint32_t xchg_rank_node(const xchg_rank *r);
size_t xchg_rank_nsteps(const xchg_rank *r);
void xchg_rank_step_get(const xchg_rank *r, size_t k, xchg_rank_step *out);
/* Scratch slots the program uses at most (blocks). */
size_t xchg_rank_scratch_blocks(const xchg_rank *r);
/* Bytes the program holds. */
size_t xchg_rank_bytes(const xchg_rank *r);

/* ------------------------------------------------------------------ */
/* One rank's program for an operation                                 */
/* ------------------------------------------------------------------ */

/*
 * What one rank does in a schedule of an operation other than the complete
 * exchange (docs/operations.md), as an executor runs it on real buffers.
 * A message is made of pieces, one block each, keyed by the operation's
 * sizing: a token (TOKENS), an origin (ORIGINS: that origin's data), a dest
 * (DESTS: the rank's partial result for that dest) or a set of origins
 * (SETS: their combination, the same for every dest that holds the set).
 * Each piece lists the tokens it covers. The rank keeps its data in slots
 * (m / pieces bytes each, numbered 0..nslots-1, never reused): a start
 * piece is filled from the input, a sent piece is read from its slot, a
 * received piece is written to its slot, and a reduction then combines it
 * with what the rank holds for the same dests (xchg_op_combine). Sender
 * and receiver list a message's pieces in the same order.
 */
typedef struct xchg_op_piece {
    uint32_t origin;          /* ORIGINS, TOKENS: its origin; else XCHG_NONE */
    uint32_t dest;            /* DESTS, TOKENS: its dest; else XCHG_NONE */
    uint32_t lo, hi;          /* the lowest and highest origin of its data */
    int contiguous;           /* its origins are every node of [lo, hi] */
    size_t norigins;          /* the origins whose data it holds, sorted */
    const uint32_t *origins;
    size_t ntokens;           /* the tokens it covers, (origin, dest) order */
    const xchg_block *tokens;
    uint32_t slot;            /* where the rank reads or writes its data */
} xchg_op_piece;

/* A combination after a receive: out = recv op held when recv_first, else
 * held op recv. order_ok: every origin of the left operand is below every
 * origin of the right (rank order, as MPI requires of an operator that is
 * not commutative); when neither order keeps it, order_ok is 0 and the
 * program computes held op recv. */
typedef struct xchg_op_combine {
    uint32_t held, recv, out; /* slots */
    int recv_first;
    int order_ok;
} xchg_op_combine;

/* One step of one rank. */
typedef struct xchg_op_step {
    size_t phase;                   /* the phase the step belongs to */
    uint32_t send_to, recv_from;    /* XCHG_NONE: nothing sent, received */
    size_t nsend, nrecv, ncombine;
    const xchg_op_piece *send;      /* the pieces sent, in message order */
    const xchg_op_piece *recv;      /* the pieces received, in message order */
    const xchg_op_combine *combine; /* applied in order after the receive */
} xchg_op_step;

typedef struct xchg_op_program xchg_op_program;

/* Most token-steps (p * p * steps) xchg_op_program_new follows. */
#define XCHG_OP_PROGRAM_MAX_WORK (1ull << 28)

/*
 * Derive rank's program for schedule s of an operation, every phase of it:
 * all tokens are followed with the block follower (p*p*steps work, no
 * symmetry used), and the rank's sends and receives are grouped into
 * pieces by each phase's sizing. Returns 0; XCHG_EINVAL on a NULL argument,
 * a rank out of range or an operation whose parameters do not fit;
 * XCHG_ETOOBIG above XCHG_OP_PROGRAM_MAX_WORK; XCHG_EINTERNAL when the
 * schedule breaks the rules (two senders to the rank in one step, a message
 * carrying part of a partial result for a dest, a token ending away from
 * its dest); XCHG_ENOMEM. *out unchanged on failure; free it with
 * xchg_op_program_free.
 */
int xchg_op_program_new(const xchg_sched *s, uint32_t rank, xchg_op_program **out,
                        xchg_err *err);
void xchg_op_program_free(xchg_op_program *prog);
uint32_t xchg_op_program_rank(const xchg_op_program *prog);
size_t xchg_op_program_nsteps(const xchg_op_program *prog);
size_t xchg_op_program_nphases(const xchg_op_program *prog);
/* Step k (k < nsteps; the lists belong to prog). */
void xchg_op_program_step(const xchg_op_program *prog, size_t k, xchg_op_step *out);
/* The pieces the rank holds when phase k starts (its own tokens: filled
 * from its input in phase 0, from its result of phase k-1 after) and when
 * it ends (its result: the tokens whose dest is the rank). Nothing (*n = 0)
 * for k out of range. The lists belong to prog. */
void xchg_op_program_start(const xchg_op_program *prog, size_t k, const xchg_op_piece **pieces,
                           size_t *n);
void xchg_op_program_result(const xchg_op_program *prog, size_t k, const xchg_op_piece **pieces,
                            size_t *n);
/* Slots the program uses. */
size_t xchg_op_program_nslots(const xchg_op_program *prog);
/* Nonzero when every combination keeps rank order (order_ok), so an
 * operator that is not commutative gives MPI's result. */
int xchg_op_program_order_ok(const xchg_op_program *prog);

#ifdef __cplusplus
}
#endif

#endif /* XCHG_RANK_H */
