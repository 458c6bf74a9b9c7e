/*
 * plan.h - a plan: what the executor runs for one key (an operation, its
 * root or shift, the data's size, the options), and the runs.
 *
 *   plan.c        making a plan (one skeleton for every operation, one
 *                 cleanup path), its buffers carved from the store, its
 *                 info, freeing it
 *   reason.c      the reason a plan gives (its info's alg and why)
 *   choose.c      what it runs: the algorithm asked for, or auto's choice
 *                 (a tuning file's row, else the cost model over the
 *                 candidates), or the MPI library's call, with the reason
 *   exec.c        the exchange's run of a program
 *   shm.c         the exchange's run through the shared segment
 *   hier.c        the node-aware exchange (one leader a node, several,
 *                 or every rank paired): when it applies, and its run
 *   aggregate.c   the node-aware exchange by aggregation
 *   auto_nodes.c  auto's choice between it and the flat schedule
 *   choose_v.c    what a variable-block exchange runs: exec_v.c,
 *                 shm_v.c, exec_sf_v.c, aggregate_v.c (by aggregation)
 *   op_exec.c     another operation's run of a program
 *
 * A plan for a new count is local arithmetic: its program is the
 * communicator's (program.c) and its buffers the store's (store.c); only
 * a program built for the first time or a store that must grow asks the
 * ranks to agree (comm.h says why every rank reaches those points
 * together).
 */
#ifndef XCHG_MPI_PLAN_H
#define XCHG_MPI_PLAN_H

#include "mpi/program.h"

/* What a plan is for: the plan cache's key. Every field but set is fixed
 * by the call's arguments, which MPI's rules make equal on every rank. */
struct xchg_mpi_key {
    xchg_mpi_settings *set; /* the options (a reference the plan holds) */
    xchg_op_kind kind;
    uint32_t root;     /* rooted operations */
    uint32_t shift;    /* shift: q mod p, 0 < q < p */
    size_t nelems;     /* elements of one block (the exchange: bytes) */
    size_t esize;      /* bytes of an element's type signature */
    int reduction;     /* the call combines with an MPI_Op */
    int commutative;   /* ... which is commutative */
    int dense;         /* reductions: the type is plain bytes (size = extent, lb 0) */
    int in_place;      /* the exchange: MPI_IN_PLACE */
};

/* Nonzero when a and b are the same key. */
static inline int xchg_mpi_key_same(const xchg_mpi_key *a, const xchg_mpi_key *b)
{
    return a->set == b->set && a->kind == b->kind && a->root == b->root &&
           a->shift == b->shift && a->nelems == b->nelems && a->esize == b->esize &&
           a->reduction == b->reduction && a->commutative == b->commutative &&
           a->dense == b->dense && a->in_place == b->in_place;
}

/* A call's buffers. in: this rank's input (NULL: none, as a bcast's
 * non-root) of in_blocks blocks laid out as in_lay; out likewise (NULL:
 * the rank keeps no result, as a reduce's non-root). The exchange: in is
 * the send buffer (the receive buffer in place), out the receive buffer,
 * p blocks each. type and op: reductions. */
struct xchg_mpi_opargs;

typedef struct xchg_mpi_bufs {
    const unsigned char *in;
    const xchg_mpi_layout *in_lay;
    size_t in_blocks;
    unsigned char *out;
    const xchg_mpi_layout *out_lay;
    size_t out_blocks;
    MPI_Datatype type;
    MPI_Op op;
    /* MPI_Alltoallv and MPI_Alltoallw: the call's arguments, where each
     * block lies (vgeom.c: the layouts above are unused) */
    const struct xchg_mpi_opargs *v;
} xchg_mpi_bufs;

/* Where one call of a variable-block exchange keeps its blocks, as bytes
 * (vgeom.c): block j to send to rank j and to receive from it, each a
 * pointer and a length. Blocks of a type that is not plain bytes are
 * packed into this rank's staging (sends) or received there and unpacked
 * at the end (receives); in place, the blocks to send are the receive
 * buffer's. Tables in the communicator's vtables, local (with room for
 * the requests and statuses of 2 XCHG_MPI_WINDOW messages a window and
 * more: exec_v.c, exec_sf_v.c). */
typedef struct xchg_mpi_vgeom {
    unsigned char **sp, **rp;
    size_t *slen, *rlen;
    unsigned char *rstaged; /* 1 where block j was received in staging */
    size_t smax;            /* the largest block this rank sends another */
    size_t nsend, nrecv;    /* blocks of bytes to and from other ranks */
    size_t max_pieces;      /* the most pieces any of them is posted in */
    MPI_Request *reqs;      /* room for 2 XCHG_MPI_WINDOW + 2 max_pieces */
    MPI_Status *statuses;   /* as many */
} xchg_mpi_vgeom;

/* Where a plan's buffers lie in its store's arena: byte offsets (the arena
 * may move when it grows; a run finds them from its start). */
typedef struct xchg_mpi_carve {
    size_t scratch, send_pack, recv_pack, stage, reqs, statuses, at;
    size_t nreqs;  /* requests (and statuses) there */
    size_t bytes;  /* the whole of it */
} xchg_mpi_carve;

/* The ways a call of variable blocks takes by a tuning file's row
 * (tuned_v.c). */
enum { XCHG_MPI_VWAY_SHM, XCHG_MPI_VWAY_PROG, XCHG_MPI_VWAY_MPI };

/* A tuning file's row of alltoallv as a plan holds it: a call whose
 * largest block is from..to bytes (or nearest) takes way, prog for a
 * schedule (the communicator's; pairwise: the plan's own). */
typedef struct xchg_mpi_vrow {
    uint64_t from, to;
    int way;
    const struct xchg_mpi_program *prog;
    char alg[XCHG_SPEC_MAX];
} xchg_mpi_vrow;

struct xchg_mpi_plan {
    xchg_mpi_comm *cs;
    xchg_mpi_key key;
    size_t block_bytes;              /* bytes of one block's data */
    int persistent;                  /* made by xchg_mpi_plan_create: its own
                                        store and a reference to cs */
    xchg_mpi_store *store;           /* &cs->store, or &own */
    xchg_mpi_store own;
    int fallback;                    /* runs call the MPI library */
    int bad_value;                   /* an option could not be honoured: say so */
    const xchg_mpi_program *prog;    /* what runs (NULL: the fallback, or shm) */
    int shm;                         /* the exchange through the shared segment */
    size_t shm_chunk;                /* ... moving this many bytes a block a round */
    /* auto's shm before the communicator has its segment: runs go through
     * prog, each adding shm_saving (us) to the communicator's credit,
     * until the credit pays shm_price, the segment's making (call.c) */
    int shm_later;
    double shm_saving, shm_price;
    /* the node-aware exchange (hier.c): its groups, what runs between
     * nodes (a spec, or "auto") and on which network of nodes; NULL: not */
    const xchg_mpi_lanes *hier;
    char hier_inner[XCHG_SPEC_MAX];
    char hier_topology[64];
    int aggregate;                   /* the node-aware exchange by
                                        aggregation (aggregate.c) */
    unsigned info_version;           /* moves when info changes after making */
    xchg_mpi_carve carve;
    /* another operation's data: segments of elements (program.h) */
    size_t slot_bytes;               /* the largest segment */
    /* a persistent plan's layouts (a cached one runs with each call's) */
    xchg_mpi_layout send_layout, recv_layout;
    xchg_mpi_plan_info info;
    /* auto's predictions, kept for persistent plans (xchg_mpi_plan_predictions) */
    int npred;
    xchg_spec *pred_spec;
    double *pred_us;
    unsigned used;                   /* the cache's clock when last found */
    /* a variable-block exchange by shm: its blocks go through the
     * segment while the largest of the call's blocks is at most this
     * many bytes (auto's crossover with the direct exchange; SIZE_MAX
     * when asked for), else the direct schedule prog runs the call */
    size_t shm_v_limit;
    /* ... and while the busiest rank exchanges nonzero blocks with at
     * least this many peers (auto's: a sparser call goes direct, whose
     * messages are only its nonzero blocks; 0 when asked for or by a
     * tuning file's rows: the pattern does not decide) */
    size_t shm_v_nnz_min;
    /* ... and after a call whose largest block passed it, the next
     * v_skip calls run the direct schedule without asking (v_backoff
     * calls, doubling while calls keep passing it, up to 64): every rank
     * saw the same largest block, so every rank skips alike */
    unsigned v_skip, v_backoff;
    /* auto following a tuning file's rows of alltoallv on one node
     * (tuned_v.c): each call's way is the row of its largest block (the
     * plan's own array, sorted; NULL: shm_v_limit alone decides); the
     * calls skipped take v_skip_row's way (NULL: the direct prog) */
    xchg_mpi_vrow *v_rows;
    size_t v_nrows;
    const xchg_mpi_vrow *v_skip_row;
    /* a variable-block exchange by aggregation (aggregate_v.c): this
     * rank's scratch, sized by each call's counts and grown on demand
     * (its own: no rank waits for another to grow it) */
    unsigned char *vbuf;
    size_t vbuf_bytes;
};

/*
 * Make a plan for key on cs: choose, find or build the program, carve its
 * buffers. Local, except at the points comm.h names (collective then, on
 * every rank at once). persistent: the plan gets a store of its own, sized
 * exactly (the caller keeps cs alive for it: call.c). An MPI error code,
 * not raised; *out NULL on error. A plan that cannot run xchg is a
 * fallback with its reason, not an error.
 */
XCHG_MPI_INTERNAL int xchg_mpi_plan_make(xchg_mpi_comm *cs, const xchg_mpi_key *key,
                                         int persistent, xchg_mpi_plan **out);

/* Free a plan and what it holds of its own (not its communicator; NULL is
 * fine). */
XCHG_MPI_INTERNAL void xchg_mpi_plan_release(xchg_mpi_plan *pl);

/* reason.c: make pl a fallback: runs call the MPI library; the reason is
 * fmt's. */
XCHG_MPI_INTERNAL void xchg_mpi_fall_back(xchg_mpi_plan *pl, const char *fmt, ...)
    XCHG_MPI_PRINTF(2, 3);

/* reason.c: append "; " and fmt's text to pl's reason. */
XCHG_MPI_INTERNAL void xchg_mpi_why_add(xchg_mpi_plan *pl, const char *fmt, ...)
    XCHG_MPI_PRINTF(2, 3);

/* choose.c: what pl runs (pl->prog, or pl->shm with pl->prog the schedule
 * to run if the segment cannot be made, or the fallback), with
 * info.alg, info.topology and info.why. Collective only where a program
 * is built. An MPI error code. */
XCHG_MPI_INTERNAL int xchg_mpi_choose(xchg_mpi_plan *pl);

/* choose.c: the program of spec on t for pl's key (the exchange's for
 * the variable-block kinds) into pl->prog: 0, or -1 after falling back
 * with the reason; or an MPI error code > 0. */
XCHG_MPI_INTERNAL int xchg_mpi_take_program(xchg_mpi_plan *pl, const xchg_topo *t,
                                            const char *spec);

/* choose.c: what making (or growing) the communicator's shared segment
 * for pl's blocks would cost, predicted (us). */
XCHG_MPI_INTERNAL double xchg_mpi_shm_price(const xchg_mpi_plan *pl);

/* reason.c: why a tuning file's row decided, into out: "auto: tuned
 * (FILE): WHAT measured fastest for P ranks on TOPO near M-byte blocks". */
XCHG_MPI_INTERNAL void xchg_mpi_tuned_why(const xchg_mpi_plan *pl, const char *what, char *out,
                                          size_t len);

/* The bytes of every block one round of the shared-memory exchange moves
 * for p ranks (the block, or less when the grids would pass
 * XCHG_MPI_SHM_MAX; 0 when p is too large for even one byte a slot). */
XCHG_MPI_INTERNAL size_t xchg_mpi_shm_chunk(int p, size_t block_bytes);

/* 1 when the shared-memory exchange can run pl (every rank on one node,
 * Linux, p small enough), else 0 with the reason in why. */
XCHG_MPI_INTERNAL int xchg_mpi_shm_usable(const xchg_mpi_plan *pl, char *why, size_t len);

/* hier.c: make pl the node-aware exchange with leaders a node (0: every
 * rank, pairs), running inner between nodes (collective: the
 * communicator's node map and groups are made at the first plan that asks
 * for them), or its fallback with the reason. An MPI error code. */
XCHG_MPI_INTERNAL int xchg_mpi_hier_choose(xchg_mpi_plan *pl, int leaders, const char *inner);
/* hier.c: the network of nodes from the options' topology (or the ranks'
 * mapped one, from a Cartesian communicator) into spec (complete:N when
 * none fits); 0 with the reason in why when the topology named fits
 * neither the nodes nor the ranks. */
XCHG_MPI_INTERNAL int xchg_mpi_hier_topology(const xchg_mpi_settings *s,
                                             const xchg_mpi_node_map *m, int p, char *spec,
                                             size_t len, char *why, size_t why_len);
/* auto_nodes.c: on ranks of several equal nodes, make pl the node-aware
 * exchange predicted faster than the flat schedule flat_spec (its line
 * flat_line) and set *taken, or leave pl as it is (collective: the node
 * map is made at the first plan that asks). An MPI error code. */
XCHG_MPI_INTERNAL int xchg_mpi_nodes_choose(xchg_mpi_plan *pl, const xchg_line *flat_line,
                                            const char *flat_spec, int *taken);
/* hier.c: xchg's exchange of n bytes a rank from s into r on comm, one of
 * the node-aware exchange's own (node_map.c: auto stays flat there),
 * through the one call path, with alg and topology and pl's tuning and
 * machine files. An MPI error code. */
XCHG_MPI_INTERNAL int xchg_mpi_hier_exchange(const xchg_mpi_plan *pl, MPI_Comm comm,
                                             const char *alg, const char *topology,
                                             const unsigned char *s, unsigned char *r,
                                             size_t n);
/* hier.c: the bytes of each of the node-aware exchange's two buffers. */
XCHG_MPI_INTERNAL size_t xchg_mpi_hier_buffer(const xchg_mpi_plan *pl);
/* aggregate.c: make pl the node-aware exchange by locality-aware
 * aggregation (collective: the node map is made at the first plan that
 * asks), or its fallback with the reason. An MPI error code. */
XCHG_MPI_INTERNAL int xchg_mpi_aggregate_choose(xchg_mpi_plan *pl);
/* aggregate.c: what both aggregations (aggregate.c, aggregate_v.c) choose
 * first: the node map (collective, made at the first plan that asks) into
 * *m, and pl made the aggregation on complete:N (N nodes); or *m NULL
 * when pl fell back (the ranks' nodes cannot be told apart: the reason is
 * said, and pl->bad_value set, as it was asked for). An MPI error code. */
XCHG_MPI_INTERNAL int xchg_mpi_aggregate_begin(xchg_mpi_plan *pl, const xchg_mpi_node_map **m);
/* aggregate.c: the bytes of each of its two buffers, and its requests. */
XCHG_MPI_INTERNAL size_t xchg_mpi_aggregate_buffer(const xchg_mpi_plan *pl);
XCHG_MPI_INTERNAL size_t xchg_mpi_aggregate_requests(const xchg_mpi_plan *pl);
/* aggregate.c: run it on a rank's p contiguous blocks in (out may be in:
 * in is read before out is written). An MPI error code. */
XCHG_MPI_INTERNAL int xchg_mpi_aggregate_run(xchg_mpi_plan *pl, const unsigned char *in,
                                             unsigned char *out);

/* aggregate_v.c: make pl the node-aware exchange of variable blocks by
 * aggregation (collective: the node map is made at the first plan that
 * asks), or its fallback with the reason. An MPI error code. */
XCHG_MPI_INTERNAL int xchg_mpi_aggregate_v_choose(xchg_mpi_plan *pl);
/* aggregate_v.c: run it on b's call (b->v). An MPI error code. */
XCHG_MPI_INTERNAL int xchg_mpi_aggregate_v_run(xchg_mpi_plan *pl, const xchg_mpi_bufs *b);
/* auto_nodes.c: on ranks of several nodes, make pl (a variable-block
 * plan running the direct schedule pairwise, pw its line) the exchange
 * by aggregation where the model, pricing both at blocks of m bytes,
 * predicts it faster, and set *taken; else leave pl as it is
 * (collective: the node map is made at the first plan that asks). An MPI
 * error code. */
XCHG_MPI_INTERNAL int xchg_mpi_nodes_choose_v(xchg_mpi_plan *pl, const xchg_line *pw, size_t m,
                                              int *taken);

/* Where a plan's carved buffer lies now. */
static inline unsigned char *xchg_mpi_at(const xchg_mpi_plan *pl, size_t off)
{
    return pl->store->arena + off;
}

/* The runs (not fallbacks): an MPI error code, not raised. */
XCHG_MPI_INTERNAL int xchg_mpi_exec(xchg_mpi_plan *pl, const xchg_mpi_bufs *b);
XCHG_MPI_INTERNAL int xchg_mpi_shm_run(xchg_mpi_plan *pl, const xchg_mpi_bufs *b);
XCHG_MPI_INTERNAL int xchg_mpi_op_exec(xchg_mpi_plan *pl, const xchg_mpi_bufs *b);
XCHG_MPI_INTERNAL int xchg_mpi_hier_run(xchg_mpi_plan *pl, const xchg_mpi_bufs *b);

/* vgeom.c: the geometry of b's call (b->v) on cs: pointers, lengths,
 * the sends packed or copied to staging where their type is not plain
 * bytes (or stage_sends: all of them, as in place a direct run needs);
 * an MPI error code (then nothing to undo). */
XCHG_MPI_INTERNAL int xchg_mpi_vgeom_begin(xchg_mpi_comm *cs, const xchg_mpi_bufs *b,
                                           int stage_sends, xchg_mpi_vgeom *g);
/* vgeom.c: after the run, unpack the blocks received in staging and copy
 * this rank's own block. An MPI error code. */
XCHG_MPI_INTERNAL int xchg_mpi_vgeom_end(xchg_mpi_comm *cs, const xchg_mpi_bufs *b,
                                         const xchg_mpi_vgeom *g);
/* The variable-block exchange's runs: the direct schedule pl->prog
 * (exec_v.c), the shared segment (shm_v.c). An MPI error code. */
XCHG_MPI_INTERNAL int xchg_mpi_exec_v(xchg_mpi_plan *pl, const xchg_mpi_bufs *b);
XCHG_MPI_INTERNAL int xchg_mpi_exec_v_geom(xchg_mpi_plan *pl, const xchg_mpi_bufs *b,
                                           const xchg_mpi_vgeom *g);
XCHG_MPI_INTERNAL int xchg_mpi_shm_v_run(xchg_mpi_plan *pl, const xchg_mpi_bufs *b);
/* exec_sf_v.c: a store-and-forward program on variable blocks, the sizes
 * carried in each message. An MPI error code. */
XCHG_MPI_INTERNAL int xchg_mpi_exec_sf_v(xchg_mpi_plan *pl, const xchg_mpi_bufs *b);
/* shm.c: a one-round shm plan's round in halves (persistent requests,
 * request.c): post this rank's p blocks from S into the next grid and
 * arrive at the barrier (*gen: the generation it arrived in), returning
 * the grid; ready: whether the barrier has opened since (wait: sleep
 * until it has); collect this rank's row into R. Linux. */
XCHG_MPI_INTERNAL unsigned char *xchg_mpi_shm_post(xchg_mpi_plan *pl, const unsigned char *S,
                                                   uint32_t *gen);
XCHG_MPI_INTERNAL int xchg_mpi_shm_ready(const xchg_mpi_plan *pl, uint32_t gen, int wait);
XCHG_MPI_INTERNAL void xchg_mpi_shm_collect(const xchg_mpi_plan *pl, const unsigned char *grid,
                                            unsigned char *R);
/* shm.c: wait until all p ranks have reached the barrier of the shared
 * segment (Linux). */
XCHG_MPI_INTERNAL void xchg_mpi_shm_barrier(unsigned char *segment, int p);
/* choose_v.c: what a variable-block exchange's plan runs. */
XCHG_MPI_INTERNAL int xchg_mpi_choose_v(xchg_mpi_plan *pl);
/* tuned_v.c: auto's plan pl (its prog pairwise on complete:P) by the
 * tuning file's rows of alltoallv for its ranks on t: *taken when they
 * decide it (the segment made, of slots of slot bytes, with the rows for
 * each call; or one way for every call); else pl unchanged and the
 * reason into note ("" when there is no tuning file). Collective where a
 * program is built or the segment made. An MPI error code. */
XCHG_MPI_INTERNAL int xchg_mpi_tuned_v(xchg_mpi_plan *pl, const xchg_topo *t, size_t slot,
                                       int *taken, char *note, size_t len);
/* tuned_v.c: the row of a call whose largest block is largest (NULL when
 * pl has no rows). */
XCHG_MPI_INTERNAL const xchg_mpi_vrow *xchg_mpi_tuned_v_row(const xchg_mpi_plan *pl,
                                                            uint64_t largest);
/* tuned_v.c: run b's call by row's way (not shm), remembered for
 * xchg_mpi_last_info (largest: the call's, UINT64_MAX when it was not
 * asked). An MPI error code. */
XCHG_MPI_INTERNAL int xchg_mpi_tuned_v_run(xchg_mpi_plan *pl, const xchg_mpi_bufs *b,
                                           const xchg_mpi_vrow *row, uint64_t largest);
/* tuned_v.c: remember that b's call takes row's way (xchg_mpi_tuned_v_run
 * does it; the caller runs the plan's own direct prog). */
XCHG_MPI_INTERNAL void xchg_mpi_tuned_v_note(const xchg_mpi_plan *pl, const xchg_mpi_vrow *row,
                                             uint64_t largest);

/* Segment j's offset and length (bytes) in an operation's data. */
XCHG_MPI_INTERNAL size_t xchg_mpi_seg_off(const xchg_mpi_plan *pl, uint32_t j);
XCHG_MPI_INTERNAL size_t xchg_mpi_seg_len(const xchg_mpi_plan *pl, uint32_t j);

#endif /* XCHG_MPI_PLAN_H */
