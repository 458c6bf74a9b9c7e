/*
 * xchg.h - public API of xchg: complete exchange (all-to-all personalized
 * communication) on direct networks.
 *
 * Data flow (docs/architecture.md): a topology spec is parsed into an
 * xchg_topo; an algorithm from the registry (xchg_alg) turns a topology and
 * options into an xchg_sched; every consumer reads that schedule through
 * this header: the block follower (where blocks are at each step), the
 * verifier, the time line (xchg_cost_line), the planner (winners and
 * crossovers over block sizes) and the exporter.
 *
 * Conventions (see ../shared/DESIGN.md):
 *   - every public symbol has the xchg_ prefix;
 *   - fallible functions return 0 or a negative XCHG_E* code, give results
 *     through pointers, and leave their inputs unchanged on failure;
 *   - an optional xchg_err receives a one-line message saying what was wrong
 *     and what is accepted; the library never prints and never exits;
 *   - every *_free accepts NULL.
 */
#ifndef XCHG_H
#define XCHG_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define XCHG_VERSION "0.1.0"

/* Status codes. */
enum {
    XCHG_OK = 0,
    XCHG_EINVAL = -1,      /* bad input: spec, option, size */
    XCHG_ENOMEM = -2,      /* allocation failed */
    XCHG_ETOOBIG = -3,     /* valid input, but beyond what the call can do */
    XCHG_ENOTAPPLIC = -4,  /* algorithm does not apply to this topology */
    XCHG_EINTERNAL = -5    /* a bug: an invariant of the library failed */
};

/* Error message holder; pass NULL where the message is not wanted. */
typedef struct xchg_err {
    char msg[512];
} xchg_err;

/* Largest number of dimensions of any topology (a hypercube's bits count). */
#define XCHG_MAX_DIMS 32
/* Largest number of nodes a topology may have (node ids are uint32_t and
 * block ids origin*p+dest must fit a uint64_t). */
#define XCHG_MAX_NODES (1u << 24)
/* Marks "no node": an idle sender, a missing neighbour. */
#define XCHG_NONE UINT32_MAX

/* ------------------------------------------------------------------ */
/* Topologies                                                          */
/* ------------------------------------------------------------------ */

typedef enum xchg_topo_kind {
    XCHG_TOPO_RING,      /* ring:P      P >= 1, wrap-around                */
    XCHG_TOPO_ARRAY,     /* array:P     P >= 1, linear array, no wrap      */
    XCHG_TOPO_MESH,      /* mesh:AxB..  every size >= 2, no wrap           */
    XCHG_TOPO_TORUS,     /* torus:AxB.. every size >= 2, wrap-around       */
    XCHG_TOPO_HYPERCUBE, /* hypercube:D 2^D nodes, D >= 0                  */
    XCHG_TOPO_COMPLETE,  /* complete:P  P >= 1, switch, no link contention */
    XCHG_TOPO_TREE       /* tree:D      2^D leaves, 0 <= D <= 16, switches inside */
} xchg_topo_kind;

/* Number of kinds: loops over them run from 0 (XCHG_TOPO_RING) below it. */
#define XCHG_TOPO_KINDS 7

/*
 * A topology is a plain value: copy it freely. Dimensions: ring, array and
 * complete have one, of size P; mesh and torus have one per size in the
 * spec; a hypercube has D, dimension b being bit b of the node id (size 2).
 * Node ids are row-major over coordinates, first coordinate slowest; a
 * hypercube node's id is its binary label.
 *
 * A tree (tree:D) is a balanced binary tree with the 2^D processors at its
 * leaves and routing switches inside (Grama et al., "Broadcast and
 * Reduction on a Balanced Binary Tree"). Its nodes are the leaves, labelled
 * like a hypercube's (dimension l is bit l, size 2); dimension l is also
 * level l of the tree's edges: the edge above a subtree of 2^l leaves. A
 * switch has no id of its own: the switch at level l (the root of a
 * subtree of 2^l leaves, l >= 1) is named by its first leaf, whose bits
 * below l are 0. Messages climb to the lowest common ancestor and come down.
 */
typedef struct xchg_topo {
    xchg_topo_kind kind;
    int ndims;
    uint32_t size[XCHG_MAX_DIMS];   /* nodes along each dimension */
    uint32_t stride[XCHG_MAX_DIMS]; /* id step of +1 along each dimension */
    uint32_t nodes;                 /* product of the sizes */
} xchg_topo;

/*
 * Parse a topology spec: ring:P, array:P, mesh:A[xB...], torus:A[xB...],
 * hypercube:D, complete:P, tree:D. Returns XCHG_EINVAL with a message naming the
 * accepted forms on bad input.
 */
int xchg_topo_parse(const char *spec, xchg_topo *out, xchg_err *err);

/* Write the canonical spec ("torus:8x8") into buf; returns buf. */
const char *xchg_topo_spec(const xchg_topo *t, char *buf, size_t len);

/* Name of a kind: "ring", "array", "mesh", "torus", "hypercube", "complete",
 * "tree". */
const char *xchg_topo_kind_name(xchg_topo_kind kind);

/* Coordinate of node id along dimension dim. */
uint32_t xchg_topo_coord(const xchg_topo *t, uint32_t id, int dim);

/* Node one hop from id along dim in direction dir (+1 or -1), or XCHG_NONE
 * where there is no such link (mesh and array edges, complete). On a
 * hypercube the direction is implied by the bit: both +1 and -1 give the
 * neighbour across bit dim. On a tree dim is the level of the edge and id
 * names a leaf or switch as the topology says: dir 0 climbs from the
 * subtree of 2^dim leaves named id to its parent (id with bit dim cleared),
 * +1 and -1 come down from the switch named id into its child whose bit dim
 * is 1 or 0 (XCHG_NONE when id has a set bit at or below the level it
 * must be at). */
uint32_t xchg_topo_neighbor(const xchg_topo *t, uint32_t id, int dim, int dir);

/* True when the topology has links between neighbours (not complete). */
int xchg_topo_has_links(const xchg_topo *t);

/* One straight piece of a route: hops links along dim in direction dir. */
typedef struct xchg_seg {
    int dim;
    int dir;       /* +1 or -1; on a hypercube +1 when the bit goes 0 -> 1;
                      on a tree 0 climbs, +1/-1 come down (xchg_topo_neighbor) */
    uint32_t hops;
} xchg_seg;

/* Route policy of a message. */
enum {
    XCHG_ROUTE_SHORTEST = 0, /* dimension-ordered, shortest way round (ties +1) */
    XCHG_ROUTE_PLUS = 1,     /* dimension-ordered, always +1 on wrapped dims   */
    XCHG_ROUTE_MINUS = -1    /* dimension-ordered, always -1 on wrapped dims   */
};

/*
 * Route from `from` to `to`: dimension-ordered, the fastest-varying
 * dimension first (the last coordinate of a mesh or torus, which makes it
 * "row first, then column" on a 2-D mesh; the lowest bit first on a
 * hypercube, i.e. e-cube). On wrapped dimensions `policy` picks the way
 * round; meshes and arrays have only one way. On a tree the route climbs
 * levels 0, 1, .. L-1 from `from` to the lowest common ancestor and comes
 * down levels L-1, .. 0 to `to`, one segment of one hop per level (L the
 * highest bit where from and to differ, plus one; at most 2*16 segments).
 * Writes at most XCHG_MAX_DIMS segments to segs and their number to *nsegs
 * (0 for from == to and for a complete topology).
 */
void xchg_topo_route(const xchg_topo *t, uint32_t from, uint32_t to, int policy,
                     xchg_seg *segs, int *nsegs);

/*
 * The one numbering of directed links: every module that counts messages
 * per link (the verifier, virtual-node hosting, the simulator, the step
 * diagrams) numbers them with these calls, so their ids agree.
 *
 * A directed link is (n, dim, up): the link leaving node n along dim, up = 1
 * for the +1 direction and 0 for -1. Its id is
 *     (n * ndims + dim) * 2 + up,
 * so the ids named by node n are n*ndims*2 .. n*ndims*2 + ndims*2 - 1, and
 * there are p * ndims * 2 of them (some unused at mesh and array edges).
 * Two physical facts fold ids together:
 *   - on a hypercube the link across bit b leaving n is one, whichever
 *     direction a route names it by: it is keyed (n, b) with up = 0;
 *   - on a wrapped dimension (ring, torus) of size 2 the +1 and -1
 *     neighbours of a node are the same node over the same physical link:
 *     it is keyed with up = 1.
 * On a tree dim is the edge's level, and the edge above the subtree of
 * 2^dim leaves named n (n's bits below dim are 0) is (n, dim, 1) climbing
 * and (n, dim, 0) coming down; ids whose n has such a bit set are unused.
 * A complete topology (a switch) has no links.
 */

/* Number of link ids of t: p * ndims * 2, or 0 when t has no links
 * (complete). Arrays indexed by link id have this many entries. */
size_t xchg_topo_link_count(const xchg_topo *t);

/* Id of the directed link leaving node along dim in direction dir (+1 or
 * -1; on a tree 0 climbs, as xchg_topo_neighbor says), by the rule above.
 * The caller makes sure the link exists (a hop of xchg_topo_route). O(1). */
size_t xchg_topo_link_id(const xchg_topo *t, uint32_t node, int dim, int dir);

/* The link an id names: the node it leaves, its dimension and direction
 * (+1 for up = 1, else -1; on a hypercube +1 when the bit goes 0 -> 1; on a
 * tree 0 climbing, +1/-1 coming down into the child whose bit dim is 1/0),
 * and the node at its far end (XCHG_NONE when the id names a missing link
 * at a mesh or array edge or an unused tree id). id < xchg_topo_link_count. */
void xchg_topo_link_ends(const xchg_topo *t, size_t id, uint32_t *from, int *dim, int *dir,
                         uint32_t *to);

/* ------------------------------------------------------------------ */
/* Schedules                                                           */
/* ------------------------------------------------------------------ */

/*
 * A schedule is a sequence of steps. In a step each node sends at most one
 * message; which blocks a message carries is a rule over the blocks the node
 * holds (the representation stays small for any network size). A block is
 * (origin, destination); at the start node i holds (i, j) for every j.
 */
typedef struct xchg_sched xchg_sched;

/* One node's message in one step, as the schedule describes it. */
typedef struct xchg_msg {
    uint32_t from;
    uint32_t to;          /* XCHG_NONE when the node is idle this step */
    uint64_t blocks;      /* declared message size, in blocks */
    int route_policy;     /* XCHG_ROUTE_* */
} xchg_msg;

void xchg_sched_free(xchg_sched *s);
const xchg_topo *xchg_sched_topo(const xchg_sched *s);
size_t xchg_sched_nsteps(const xchg_sched *s);
/* Algorithm spec that made the schedule, e.g. "multiphase:2,3". */
const char *xchg_sched_algorithm(const xchg_sched *s);
/* True when the algorithm claims no directed link carries two messages in a
 * step on this topology (the verifier holds it to that). */
int xchg_sched_contention_free(const xchg_sched *s);

/* The message node sends at step; to == XCHG_NONE when idle. */
void xchg_sched_message(const xchg_sched *s, size_t step, uint32_t node, xchg_msg *out);

/* Nonzero when node, holding block (origin, dest) at step, sends it. */
int xchg_sched_selects(const xchg_sched *s, size_t step, uint32_t node,
                       uint32_t origin, uint32_t dest);

/* Blocks every node copies locally before the step (rearrangement). */
uint64_t xchg_sched_copy_blocks(const xchg_sched *s, size_t step);

/* Largest declared message of a step, in blocks (0: nobody sends). */
uint64_t xchg_sched_step_max_blocks(const xchg_sched *s, size_t step);

/*
 * The group of senders the algorithm's paper names for node at step (step
 * 0-based), for pictures and explanations: Suh et al.'s SG_p(1), SG_p(2)
 * and T2's G_p(k) ("SG_3(1)", "G_3(2)"), Liu et al.'s "even nodes" and
 * "odd nodes" (AR1, AT2, PT4/PTk), the phases of multiphase and hc-standard
 * ("phase 2 (bits 2-3)").
 * s: the schedule; name: a buffer of len bytes the caller owns, which gets
 * the group's name, NUL-terminated and cut to fit ("" when there is none).
 * Returns the group's index (>= 0; within one step different groups have
 * different indices, and across steps the same index is the same role, as
 * the paper's numbering goes), or -1 when the algorithm names no group
 * there: node idle or sending to itself at step, an algorithm without
 * groups, a schedule read from a file or hosted on virtual nodes, step or
 * node out of range, name NULL or len < 2. Never fails otherwise; O(1).
 */
int xchg_sched_group(const xchg_sched *s, size_t step, uint32_t node, char *name, size_t len);

/* ------------------------------------------------------------------ */
/* Operations                                                          */
/* ------------------------------------------------------------------ */

/*
 * The collective operation a schedule performs (docs/operations.md). Every
 * operation uses the complete exchange's blocks: a token (origin, dest)
 * that starts at its origin, moves as the block follower says, and must end
 * at dest. What differs is which tokens exist and how the tokens of one
 * message make blocks of m bytes:
 *   alltoall        every (o, d)         each token is a block
 *   bcast(r)        (r, d) for every d   one block per origin: the tokens
 *                                        of one origin carry the same data
 *   reduce(r)       (o, r) for every o   one block per dest: contributions
 *                                        to one dest combine
 *   allgather       every (o, d)         one block per origin
 *   reduce_scatter  every (o, d)         one block per dest
 *   allreduce       every (o, d)         one block per distinct set of
 *                                        origins (dests holding the same
 *                                        set hold the same partial result)
 *   scan            (o, d) with o <= d   one block per distinct origin set
 *   scatter(r)      (r, d) for every d   each token is a block
 *   gather(r)       (o, r) for every o   each token is a block
 *   shift(q)        (o, (o+q) mod p)     each token is a block
 * A token moves (it is never copied), so a contribution arrives exactly
 * once or the verifier counts it undelivered: double counting cannot hide.
 */
typedef enum xchg_op_kind {
    XCHG_OP_ALLTOALL = 0,
    XCHG_OP_BCAST,
    XCHG_OP_REDUCE,
    XCHG_OP_ALLGATHER,
    XCHG_OP_REDUCE_SCATTER,
    XCHG_OP_ALLREDUCE,
    XCHG_OP_SCAN,
    XCHG_OP_SCATTER,
    XCHG_OP_GATHER,
    XCHG_OP_SHIFT
} xchg_op_kind;
#define XCHG_OP_COUNT 10

/* How the tokens of one message make blocks. */
typedef enum xchg_op_sizing {
    XCHG_SIZE_TOKENS,  /* a block per token */
    XCHG_SIZE_ORIGINS, /* a block per distinct origin */
    XCHG_SIZE_DESTS,   /* a block per distinct dest */
    XCHG_SIZE_SETS     /* a block per distinct set of origins held for a dest */
} xchg_op_sizing;

/* An operation and its parameters: root (bcast, reduce, scatter, gather)
 * and q (shift, 0 < q < p). Zeroed: the complete exchange. pieces: into how
 * many blocks the operation's m is cut (0 or 1: a block is m bytes; the
 * improved algorithms of seed 003 cut it into p, blocks of m/p bytes). */
typedef struct xchg_op {
    xchg_op_kind kind;
    uint32_t root;
    uint32_t shift;
    uint32_t pieces;
} xchg_op;

/* Name of an operation ("alltoall", "bcast", ...); "?" when out of range. */
const char *xchg_op_name(xchg_op_kind kind);
/* Parse an operation name; EINVAL listing the names otherwise. */
int xchg_op_parse(const char *name, xchg_op_kind *out, xchg_err *err);
/* How the operation's messages count blocks. */
xchg_op_sizing xchg_op_sizing_of(xchg_op_kind kind);
/* Nonzero when the operation has the token (origin, dest) on p nodes. */
int xchg_op_has_token(const xchg_op *op, uint32_t p, uint32_t origin, uint32_t dest);
/* 0 when op's parameters fit p nodes (root < p; 0 < q < p for shift), else
 * EINVAL saying what is accepted. */
int xchg_op_check(const xchg_op *op, uint32_t p, xchg_err *err);
/* The operation schedule s performs. */
void xchg_sched_op(const xchg_sched *s, xchg_op *out);
/* Bytes of one block of operation op whose data is m bytes: m / pieces. */
double xchg_op_block_bytes(const xchg_op *op, double m);

/*
 * Phases: a schedule may run one operation after another on the same data
 * (seed 003's improved operations: broadcast = scatter + allgather, reduce =
 * reduce_scatter + gather, all-reduce = reduce_scatter + allgather, each on
 * blocks of m/p). Phase k runs steps [first, end) and performs its own
 * operation, whose tokens the verifier follows within the phase; what one
 * phase leaves at node j (its dest's block) is what the next starts with at
 * origin j. A schedule of one operation has one phase, over every step.
 */
size_t xchg_sched_nphases(const xchg_sched *s);
/* Phase k's operation and steps [*first, *end); nothing when k is out of
 * range. */
void xchg_sched_phase(const xchg_sched *s, size_t k, xchg_op *op, size_t *first, size_t *end);

/* ------------------------------------------------------------------ */
/* Block follower                                                      */
/* ------------------------------------------------------------------ */

/*
 * Where the blocks go. A schedule stores rules, not blocks; a follower
 * compiles every step of one schedule once and then says, for a block, for
 * all blocks of an origin, or for a node, where blocks are and which ones
 * each message carries. It is the one definition of how blocks move: the
 * verifier, the exporter and virtual-node hosting all follow blocks with it.
 *
 * The rule: block (origin, dest) starts at origin. Before step k it is at
 * one node, its holder. When the holder has a partner (xchg_sched_message
 * gives to != XCHG_NONE) and its rule selects the block (xchg_sched_selects),
 * the holder sends it: the block moves to the partner when the partner is a
 * valid other node (< p and not the holder), and otherwise stays where it is
 * (such schedules fail xchg_verify, which counts the block as sent).
 *
 * A follower keeps a pointer to its schedule, which must outlive it. It
 * holds O(p * steps) memory, never one entry per block, and is read-only
 * once made: any number of threads may use one at once (a schedule's
 * callback rules then run concurrently, as in xchg_verify).
 */
typedef struct xchg_follower xchg_follower;

/*
 * Compile every step of s into *out (free it with xchg_follower_free).
 * Returns 0; XCHG_EINVAL when s or out is NULL, the topology has no nodes,
 * or a step is malformed (a rule or shift naming a missing dimension, a
 * zero radix, a missing table or callback, a node class out of range, an
 * unknown kind), with the message xchg_verify gives for it; XCHG_ENOMEM.
 * *out is unchanged on failure.
 */
int xchg_follower_new(const xchg_sched *s, xchg_follower **out, xchg_err *err);
void xchg_follower_free(xchg_follower *f);

/*
 * The path of block (origin, dest): path[k] = the node holding it before
 * step k, for k = 0..nsteps, so path[0] = origin and path[nsteps] is where
 * it ends (dest, in a correct schedule). path has xchg_sched_nsteps() + 1
 * entries. O(steps). Returns 0, or XCHG_EINVAL (path unchanged) when f or
 * path is NULL or origin or dest is not a node.
 */
int xchg_follow_block(const xchg_follower *f, uint32_t origin, uint32_t dest, uint32_t *path);

/*
 * Move all of origin's blocks through one step (the verifier's inner loop), in
 * O(p): pos[d] (p entries) is the node holding (origin, d) before the step
 * and becomes the node holding it after; sent_per_node[n] (p entries) grows
 * by the number of origin's blocks node n sends at the step (the caller
 * zeroes the counters and keeps them below 2^32). Starting from pos[d] =
 * origin and calling this for steps 0, 1, ... follows every block of
 * origin through the schedule with p entries of memory. Returns 0, or
 * XCHG_EINVAL (nothing changed) when an argument is NULL, step >= nsteps,
 * origin is not a node, or some pos[d] is not a node.
 */
int xchg_follow_origin_step(const xchg_follower *f, size_t step, uint32_t origin,
                            uint32_t *pos, uint32_t *sent_per_node);

/* A block: its origin and its final destination. */
typedef struct xchg_block {
    uint32_t origin;
    uint32_t dest;
} xchg_block;

/* One node's view of one step (xchg_follow_node_next). Every list is in
 * (origin, dest) order. */
typedef struct xchg_follow_node_step {
    size_t step;                  /* 0..nsteps; nsteps: after the last step */
    uint32_t partner;             /* whom the node sends to; XCHG_NONE when
                                     idle, and at step nsteps */
    const xchg_block *held;       /* blocks the node holds before the step */
    size_t nheld;
    const xchg_block *sent;       /* blocks it sends: held and selected; they
                                     leave unless the partner is not a valid
                                     other node */
    size_t nsent;
    const xchg_block *received;   /* blocks that arrive from other nodes */
    const uint32_t *received_from;/* the sender of each received block */
    size_t nreceived;
} xchg_follow_node_step;

/* Iterator over one node's steps. */
typedef struct xchg_follow_node xchg_follow_node;

/*
 * Make an iterator over what `node` does, step by step (xchg_follow_node_next),
 * for a program that runs one node's part of the schedule (an executor's
 * rank, a simulator's node, a drawing). It follows all p*p blocks origin by
 * origin once, keeping only those that pass the node: O(p*p*steps) time,
 * memory O(p + steps) plus 16 bytes for every (block, step) where the node
 * sends or receives the block. It does not keep f. Returns 0; XCHG_EINVAL
 * when f or out is NULL or node is not a node; XCHG_ENOMEM. *out is
 * unchanged on failure; free it with xchg_follow_node_free.
 */
int xchg_follow_node_new(const xchg_follower *f, uint32_t node, xchg_follow_node **out,
                         xchg_err *err);

/*
 * The next step of the iterator into *out: steps 0..nsteps-1, then one last
 * record, step nsteps, holding the blocks the node ends with (no partner,
 * nothing sent or received). Returns 1 while it wrote a record, 0 after the
 * last one (or when an argument is NULL). The lists in *out belong to the
 * iterator and stay valid until the next call or xchg_follow_node_free.
 */
int xchg_follow_node_next(xchg_follow_node *it, xchg_follow_node_step *out);
void xchg_follow_node_free(xchg_follow_node *it);

/* ------------------------------------------------------------------ */
/* Algorithms: the one registry                                        */
/* ------------------------------------------------------------------ */

/* Longest algorithm spec ("multiphase:2,3", "t1.2"), with its NUL. */
#define XCHG_SPEC_MAX 64
/* Most variants any algorithm offers on one topology (multiphase on a
 * hypercube:D offers D-2, the most of any). */
#define XCHG_MAX_VARIANTS 64
/* An algorithm spec as the registry writes it: "name[:options]". */
typedef char xchg_spec[XCHG_SPEC_MAX];

/* Knobs of every algorithm; each algorithm reads the ones it has. */
typedef struct xchg_opts {
    char args[128];                /* text after "name:" in the spec */
    uint32_t radix;                /* bruck: radix r >= 2 */
    int nparts;                    /* multiphase: the partition of d */
    int parts[XCHG_MAX_DIMS];
    int x;                         /* t1.x and similar: the configuration */
    int virtual_nodes;             /* ":virtual": host the next size the
                                      algorithm accepts on the real nodes */
    uint32_t root;                 /* rooted operations: the root node */
    uint32_t shift;                /* shift: q, 0 < q < p */
} xchg_opts;

/* Closed-form counts an algorithm's source gives (or we derived), in the
 * cost model's terms (xchg_cost). */
typedef struct xchg_counts {
    uint64_t startups;       /* non-empty steps */
    uint64_t volume_blocks;  /* sum over steps of the largest message */
    uint64_t copy_blocks;    /* blocks each node copies locally in all */
} xchg_counts;

/* A topology kind as a bit of a kinds mask (xchg_needs.kinds,
 * xchg_alg.free_on). */
#define XCHG_KIND(kind) (1u << (kind))
/* Every kind: ring, array, mesh, torus, hypercube, complete, tree. */
#define XCHG_KINDS_ALL ((1u << XCHG_TOPO_KINDS) - 1u)

/*
 * What an algorithm needs of a topology, declared in its registry entry as
 * data. A zero field asks nothing. xchg_needs_check tests the fields in the
 * order below and writes the refusal from them: what the entry needs, and
 * what the topology has that does not fit.
 */
typedef struct xchg_needs {
    unsigned kinds;          /* accepted kinds (XCHG_KIND bits); 0: every kind */
    int dims;                /* exactly this many dimensions; 0: any number */
    int max_dims;            /* at most this many dimensions; 0: no bound */
    int dims_pow2;           /* the number of dimensions k a power of two */
    int nodes_pow2;          /* a power-of-two node count, p = 2^D */
    int square_pow2;         /* 0, or two equal sizes 2^d with d >= this */
    uint32_t size_multiple;  /* every size a multiple of this; 0: any size */
    int size_multiple_2k;    /* every size a multiple of 2k, k the number of
                                dimensions */
    int virtual_any_size;    /* the option "virtual" (opts.virtual_nodes)
                                lifts size_multiple and size_multiple_2k:
                                the schedule is hosted on virtual nodes */
    const char *why;         /* the reason for the sizes, shown with the
                                refusal (a paper's section), or NULL */
} xchg_needs;

/*
 * Symmetry: a group H of relabellings of node ids under which an
 * algorithm's block paths are invariant: for every h in H and block
 * (o, d), path(h.o, h.d)[k] = h.path(o, d)[k] at every step k. One node's
 * blocks then follow from the paths of a few origins, so a rank can derive
 * its own lists in about p x steps (xchg_rank_new) without following all
 * p*p blocks. Declared in the registry (xchg_alg.symmetry); tests/test_rank.c
 * holds every declaration to it on every algorithm and many sizes.
 */
typedef enum xchg_sym_kind {
    XCHG_SYM_NONE = 0,      /* none claimed                                 */
    XCHG_SYM_XOR,           /* h.n = n XOR h, every h (p = 2^D)              */
    XCHG_SYM_CYCLIC,        /* h.n = (n + h) mod p, every h                  */
    XCHG_SYM_XOR_POW2,      /* declaration only: XOR when p = 2^D, else
                               CYCLIC (pairwise)                             */
    XCHG_SYM_TRANSLATE,     /* coordinates translated (mod each size) by any
                               h whose coordinate k is a multiple of
                               period[k]                                     */
    XCHG_SYM_TRANSLATE_2K   /* declaration only: TRANSLATE with every period
                               2k, k the number of dimensions (Liu et al.'s
                               node classes repeat every 2k)                 */
} xchg_sym_kind;

/* A resolved symmetry (xchg_alg_symmetry): kind NONE, XOR, CYCLIC or
 * TRANSLATE; period[k] (TRANSLATE only) divides size[k]. */
typedef struct xchg_symmetry {
    xchg_sym_kind kind;
    uint32_t period[XCHG_MAX_DIMS];
} xchg_symmetry;

/*
 * One algorithm. The declarations (needs, free_on, in_place, formula,
 * options) are the algorithm's contract: the registry checks preconditions
 * from needs, the generator takes its contention-freedom claim from free_on,
 * and the conformance test holds every schedule to all of them.
 */
/*
 * What building a schedule will take, known before it is built, so that a
 * caller can refuse or skip what is too large instead of running out of
 * memory or time (docs/limits.md). Sums saturate at UINT64_MAX.
 */
typedef struct xchg_estimate {
    uint64_t steps;  /* steps the schedule has (a hosted schedule: at most) */
    uint64_t bytes;  /* memory the built schedule holds, at most: its steps,
                        per-node tables and context */
    uint64_t work;   /* elementary operations to build it, about: one per
                        step, per table entry and per block followed */
} xchg_estimate;

/* A memory size as short text for messages ("3.2 GiB", "512 B"), written
 * to buf (len bytes); returns buf. */
const char *xchg_bytes_text(uint64_t bytes, char *buf, size_t len);

typedef struct xchg_alg {
    const char *name;        /* "hc-standard" */
    xchg_op_kind op;         /* the operation it performs (0: alltoall) */
    const char *summary;     /* one line */
    const char *source;      /* paper and section */
    const char *topologies;  /* accepted topologies, in words (what needs says) */
    const char *options;     /* accepted options, in words ("" for none) */
    xchg_needs needs;        /* the topologies and sizes it accepts */
    /* Kinds on which its schedules claim that no directed link carries two
     * messages in a step (XCHG_KIND bits; XCHG_KINDS_ALL: wherever it
     * applies). The verifier holds every claim. */
    unsigned free_on;
    /* Nonzero when at every step every node holds at most p blocks, so an
     * executor can run it in one buffer of p blocks plus one message of
     * scratch. Not for schedules hosted on virtual nodes (a host holds its
     * guests' blocks): see xchg_alg_in_place. */
    int in_place;
    /* The symmetry its schedules have wherever it applies (XCHG_SYM_*; not
     * for schedules hosted on virtual nodes): see xchg_alg_symmetry. */
    xchg_sym_kind symmetry;
    /* Parse the text after "name:" (may be empty) into opts; EINVAL with a
     * message on bad options. NULL: the algorithm takes no options. */
    int (*parse)(const char *args, xchg_opts *opts, xchg_err *err);
    /* What needs cannot say (e.g. multiphase's parts must sum to d), checked
     * by xchg_alg_applies after needs: 0, or XCHG_ENOTAPPLIC (or EINVAL)
     * with a message. NULL: needs says it all. Not the whole check: call
     * xchg_alg_applies. */
    int (*applies)(const xchg_topo *t, const xchg_opts *opts, xchg_err *err);
    /* Build the schedule; caller frees it with xchg_sched_free. Expects
     * xchg_alg_applies to have accepted (t, opts): xchg_alg_generate and
     * xchg_generate check once, then call it. */
    int (*generate)(const xchg_topo *t, const xchg_opts *opts, xchg_sched **out,
                    xchg_err *err);
    /* Closed-form start-ups, volume and local copies from the source, for
     * the tests (the conformance test holds every schedule to them).
     * XCHG_ENOTAPPLIC where there is no closed form. */
    int (*formula)(const xchg_topo *t, const xchg_opts *opts, xchg_counts *out);
    /* Option strings worth comparing on t (e.g. "multiphase:2,3"); writes
     * at most max of them and returns how many there are. NULL: just the
     * name. Callers use xchg_alg_variants, which also drops the ones that do
     * not apply. */
    int (*variants)(const xchg_topo *t, xchg_spec *specs, int max);
    /* What building its schedule on t with opts takes, without building it
     * (see xchg_estimate): fills every field of out, from closed forms in
     * O(steps) time or less and no memory that grows with p. Expects
     * xchg_alg_applies to have accepted (t, opts); callers use
     * xchg_alg_estimate. Returns 0. */
    int (*estimate)(const xchg_topo *t, const xchg_opts *opts, xchg_estimate *out);
} xchg_alg;

/* The registry: number of algorithms and the i-th one. */
size_t xchg_alg_count(void);
const xchg_alg *xchg_alg_at(size_t i);
/* Find by name (without options); NULL when unknown. */
const xchg_alg *xchg_alg_find(const char *name);

/*
 * Parse "name[:args]" into the algorithm and its options. EINVAL with a
 * message listing the known names when the name is unknown.
 */
int xchg_alg_parse(const char *spec, const xchg_alg **alg, xchg_opts *opts, xchg_err *err);

/*
 * The specs of alg worth running on t that apply to it: alg->variants when
 * the algorithm has them, else its bare name; each kept only when it parses
 * back to alg and xchg_alg_applies accepts it. Where none is kept and the
 * entry's needs say "virtual" lifts its size rule, "name:virtual" (hosted
 * on virtual nodes, docs/virtual-nodes.md) when that applies. This is the
 * one variant enumeration: the planner, the CLI, the executor's auto and
 * the tests all use it. Writes at most
 * max specs (XCHG_MAX_VARIANTS is always enough) and returns how many it
 * wrote; 0 when none applies, with the reason (the algorithm's own message)
 * in *why when why is not NULL. Never fails otherwise.
 */
int xchg_alg_variants(const xchg_topo *t, const xchg_alg *alg, xchg_spec *specs, int max,
                      xchg_err *why);

/* Nonzero when registry name `name` is in `list`, a comma-separated list of
 * registry names ("t1,t1.x,t2"); NULL or "" means every algorithm. */
int xchg_alg_in_list(const char *list, const char *name);
/* EINVAL naming the first word of `list` that is not a registry name. */
int xchg_alg_check_list(const char *list, xchg_err *err);

/*
 * The one precondition check of the declared needs: 0 when t meets them,
 * else XCHG_ENOTAPPLIC with a message that names `name`, says what is needed
 * and what t has. Only opts->virtual_nodes is read (opts may be NULL: no
 * options). EINVAL on a NULL needs or t.
 */
int xchg_needs_check(const xchg_needs *needs, const char *name, const xchg_topo *t,
                     const xchg_opts *opts, xchg_err *err);

/* 0 when alg applies to t with opts: its declared needs, then its applies
 * hook. XCHG_ENOTAPPLIC or EINVAL with the message otherwise. */
int xchg_alg_applies(const xchg_alg *alg, const xchg_topo *t, const xchg_opts *opts,
                     xchg_err *err);

/* Nonzero when alg's schedules on t claim to be contention-free (alg->free_on;
 * every generator takes its claim from here). */
int xchg_alg_claims_free(const xchg_alg *alg, const xchg_topo *t);

/* Nonzero when alg with opts runs in place (alg->in_place, and not hosted
 * on virtual nodes). */
int xchg_alg_in_place(const xchg_alg *alg, const xchg_opts *opts);

/* The symmetry of alg's schedules on t with opts, resolved for t: NONE when
 * none is declared, when hosted on virtual nodes, or when the declared one
 * does not fit t (XOR needs p = 2^D; TRANSLATE periods must divide the
 * sizes). Never fails; out must not be NULL. */
void xchg_alg_symmetry(const xchg_alg *alg, const xchg_topo *t, const xchg_opts *opts,
                       xchg_symmetry *out);

/* Check preconditions (xchg_alg_applies) once, then alg->generate. On
 * failure *out is untouched. */
int xchg_alg_generate(const xchg_alg *alg, const xchg_topo *t, const xchg_opts *opts,
                      xchg_sched **out, xchg_err *err);

/* Parse, check preconditions and generate in one call. */
int xchg_generate(const xchg_topo *t, const char *alg_spec, xchg_sched **out, xchg_err *err);

/*
 * What generating alg with opts on t would take (xchg_estimate), without
 * generating it: checks preconditions as xchg_alg_generate does, then asks
 * the entry's estimate hook. Returns 0; XCHG_ENOTAPPLIC or EINVAL with the
 * message when alg does not apply. *out is untouched on failure.
 */
int xchg_alg_estimate(const xchg_alg *alg, const xchg_topo *t, const xchg_opts *opts,
                      xchg_estimate *out, xchg_err *err);

/* Parse, check preconditions and estimate in one call (xchg_generate's
 * counterpart). */
int xchg_estimate_spec(const xchg_topo *t, const char *alg_spec, xchg_estimate *out,
                       xchg_err *err);

/* ------------------------------------------------------------------ */
/* Verifier                                                            */
/* ------------------------------------------------------------------ */

#define XCHG_VERIFY_MAX_REPORTED 16

/* Progress of long work: done out of 1, now and then; ctx is the caller's. */
typedef void (*xchg_progress_fn)(void *ctx, double done);

typedef struct xchg_verify_opts {
    int threads;           /* worker threads; 0 = number of online cores */
    uint64_t max_work;     /* refuse (XCHG_ETOOBIG) above this many
                              block-steps; 0 = default limit */
    int messages_only;     /* check only what the messages say: ports,
                              routes, link contention and link volume, with
                              start-ups and volume from the declared sizes.
                              No block is followed, so delivery and sizes are
                              not checked; for networks too large to follow
                              every block. max_work then limits the link
                              hops, p*steps*diameter. */
    uint64_t max_bytes;    /* refuse (XCHG_ETOOBIG) when the run would take
                              more memory (counts, scratch, compiled steps);
                              0 = XCHG_VERIFY_DEFAULT_MAX_BYTES */
    xchg_progress_fn progress; /* called now and then from the calling
                              thread with the fraction done; NULL: none */
    void *progress_ctx;
} xchg_verify_opts;

/* The verifier's default limits: work (block-steps, or link hops in
 * messages-only mode) and memory. */
#define XCHG_VERIFY_DEFAULT_MAX_WORK 20000000000ull
#define XCHG_VERIFY_DEFAULT_MAX_BYTES (2048ull << 20)

/*
 * Would xchg_verify with opts accept a schedule of `steps` steps on t? The
 * same work check it makes first (p*p*steps block-steps, or p*steps*diameter
 * link hops with messages_only, against opts->max_work), made before the
 * schedule is built. 0, or XCHG_ETOOBIG with the message xchg_verify would
 * give; EINVAL on a NULL t.
 */
int xchg_verify_check_work(const xchg_topo *t, uint64_t steps, const xchg_verify_opts *opts,
                           xchg_err *err);

/* The memory xchg_verify with opts takes at least on a schedule of `steps`
 * steps on t: its counts and scratch for one thread (the compiled steps, up
 * to 9p bytes a step, come on top; past opts->max_bytes it refuses). */
uint64_t xchg_verify_bytes(const xchg_topo *t, uint64_t steps, const xchg_verify_opts *opts);

typedef struct xchg_verify_report {
    int ok;                        /* every check passed */
    int messages_only;             /* blocks were not followed (see opts) */
    uint64_t blocks;               /* blocks followed (p*p) */
    size_t steps;
    uint64_t failures;             /* failed checks, all kinds */
    uint64_t undelivered;          /* blocks not at their destination */
    uint64_t size_mismatches;      /* (step,node) whose held-and-selected
                                      count differs from the declared size */
    uint64_t port_violations;      /* (step,node) receiving two messages */
    uint64_t route_failures;       /* routes that miss their partner */
    uint64_t link_conflicts;       /* (step,directed link) used by 2+ messages */
    uint32_t max_link_messages;    /* most messages on one link in one step */
    uint64_t startups;             /* steps with a non-empty message (counted) */
    uint64_t volume_blocks;        /* sum over steps of largest message (counted) */
    uint64_t link_volume_blocks;   /* sum over steps of the busiest directed
                                      link's load in blocks (congestion-scaled
                                      volume; equals volume when contention-free
                                      on a network with links) */
    uint64_t max_hops;             /* longest route */
    int reported;                  /* how many of msgs are filled */
    char msgs[XCHG_VERIFY_MAX_REPORTED][160]; /* first failures, precise */
} xchg_verify_report;

/*
 * Follow every block through the schedule and check: delivery, declared
 * message sizes equal what is held and selected (so a node only sends what it
 * holds), one-port receive, routes reach their partner, and no directed link
 * carries two messages in a step. Contention is a failure only when the
 * schedule claims to be contention-free; otherwise it is counted.
 * Returns 0 when the run completed (look at report->ok), XCHG_ETOOBIG when
 * the work exceeds the limit, XCHG_ENOMEM.
 */
int xchg_verify(const xchg_sched *s, const xchg_verify_opts *opts,
                xchg_verify_report *report, xchg_err *err);

/* ------------------------------------------------------------------ */
/* Cost model                                                          */
/* ------------------------------------------------------------------ */

/* Machine parameters; times in microseconds unless units says otherwise. */
typedef struct xchg_machine {
    char name[32];
    double ts;        /* start-up per message */
    double tw;        /* per byte transferred */
    double tr;        /* per byte copied locally (rearrangement) */
    double barrier;   /* one barrier on this many nodes (0: none) */
    char units[16];   /* "us" or "t_c" */
    /* An MPI library's eager protocol, as `xchg probe` measures it (0: one
     * range): messages under eager_bytes cost ts_eager + bytes*tw_eager.
     * The cost model keeps one line, ts and tw; the MPI executor's auto
     * reads both ranges. */
    double eager_bytes;
    double ts_eager;
    double tw_eager;
} xchg_machine;

/* Presets from Bokhari, Table 1: "paragon", "sp2", "cs2" (barrier for the
 * given node count). EINVAL listing the presets on an unknown name. */
int xchg_machine_preset(const char *name, uint32_t nodes, xchg_machine *out, xchg_err *err);
/* Suh et al.'s model: ts = a (a = t_s/t_c, in units of t_c), tw = 1 per
 * flit, no copy cost, units "t_c"; block sizes are then in flits. EINVAL
 * when a is negative or not finite. */
int xchg_machine_ratio(double a, xchg_machine *out, xchg_err *err);

/* Number of presets and the i-th name. */
size_t xchg_machine_preset_count(void);
const char *xchg_machine_preset_name(size_t i);

/*
 * Read a machine file, "xchg-machine/1" text (docs/machine-file.md), from
 * text (len bytes, not NUL-terminated) into *out. Returns 0; XCHG_EINVAL
 * with a message naming the line and what is accepted when the text is not
 * such a file, is of another version, is cut short (no ts or tw), or has an
 * unknown key, a key twice, or a bad value. *out is untouched on failure.
 */
int xchg_machine_parse(const char *text, size_t len, xchg_machine *out, xchg_err *err);

/*
 * Write m as a machine file into buf (len bytes, NUL-terminated), each line
 * of comment (may be NULL) as a '#' line after the header. Returns 0;
 * XCHG_EINVAL when m's units are not "us", its name is not a file name's
 * word (letters, digits, . _ - +) or a value is negative, not finite or
 * above 1e9; XCHG_ETOOBIG when buf is too small (2 KiB and the comment are
 * always enough). xchg_machine_parse reads back the same values.
 */
int xchg_machine_format(const xchg_machine *m, const char *comment, char *buf, size_t len);

/* One protocol range of a ping-pong fit: messages of lo..hi bytes (the
 * sizes measured) take ts + bytes*tw one way. */
typedef struct xchg_fit_range {
    double lo, hi;      /* first and last size of the range, bytes */
    double ts, tw;      /* us, us per byte; each >= 0 */
    size_t points;      /* sizes in the range */
    double rms_rel;     /* root mean square of the relative misses */
    double max_rel;     /* largest relative miss */
} xchg_fit_range;

/* A fit of one or two ranges; with two, switch_bytes is the first size of
 * the second (messages under it are in the first). */
typedef struct xchg_fit {
    int nranges;
    xchg_fit_range range[2];
    double switch_bytes;
} xchg_fit;

/*
 * Fit one-way times us[i] of messages of bytes[i] (n points, sizes
 * increasing) as one line ts + bytes*tw, or as two lines split where the
 * protocol switches: the size where time grows most beyond what any line
 * allows (src/model/fit.c). Least squares on relative error. Returns 0;
 * XCHG_EINVAL when fewer than 6 points, sizes not increasing, or a time not
 * positive and finite. *out is untouched on failure.
 */
int xchg_fit_pingpong(const double *bytes, const double *us, size_t n, xchg_fit *out,
                      xchg_err *err);

/* Set m's ts and tw from the fit's last (large-message) range and its eager
 * fields from the first range when there are two; other fields unchanged. */
void xchg_fit_machine(const xchg_fit *f, xchg_machine *m);

/*
 * A tuning file, "xchg-tuning/2" (docs/tuning.md): measured winners, one row
 * per (operation, ranks, topology, range of block sizes), as `xchg tune`
 * writes it and the MPI executor's auto reads it (XCHG_TUNING_FILE). Files
 * of the first version, "xchg-tuning/1", are read too: their rows, without
 * an operation column, are the complete exchange's.
 */
typedef struct xchg_tuning xchg_tuning;

/* One row of a tuning file. */
typedef struct xchg_tuning_entry {
    xchg_op_kind op;         /* the operation the row is for */
    uint32_t ranks;
    char topology[64];       /* as xchg_topo_spec writes it */
    uint64_t from, to;       /* block sizes in bytes, from <= to */
    char alg[XCHG_SPEC_MAX]; /* a registry spec of op, "mpi", or "shm" (alltoall) */
} xchg_tuning_entry;

/*
 * Read a tuning file from text (len bytes, not NUL-terminated) into a new
 * *out (free it with xchg_tuning_free). Returns 0; XCHG_EINVAL with a
 * message naming the line when the text is not such a file (another
 * header, a NUL byte, a long line), or a row is bad: not 6 fields (5 in
 * version 1), an operation xchg_op_parse does not know, a topology that
 * does not parse or has another node count, sizes out of order, an
 * algorithm that is not a registry spec of the operation, mpi or (for
 * alltoall) shm, or a range overlapping an earlier row's; XCHG_ENOMEM.
 * *out untouched on failure.
 */
int xchg_tuning_parse(const char *text, size_t len, xchg_tuning **out, xchg_err *err);
void xchg_tuning_free(xchg_tuning *t);

/* The algorithm tuned for operation op on a communicator laid out on topo
 * at block size m (bytes; one rank's block, as xchg-bench counts it): the
 * row of op, topo's node count and spec whose range holds m, else the
 * nearest such row (by ratio of sizes); NULL when no row is for op on
 * topo. The string belongs to t. */
const char *xchg_tuning_lookup(const xchg_tuning *t, xchg_op_kind op, const xchg_topo *topo,
                               uint64_t m);

/* Rows of t, and the i-th (0, or EINVAL when i is out of range). */
size_t xchg_tuning_rows(const xchg_tuning *t);
int xchg_tuning_row(const xchg_tuning *t, size_t i, xchg_tuning_entry *out);

typedef struct xchg_cost {
    uint64_t steps;
    uint64_t startups;        /* non-empty steps */
    uint64_t volume_blocks;   /* sum over steps of the largest message */
    uint64_t copy_blocks;     /* blocks copied locally, per node */
    double time;              /* startups*ts + volume*m*tw + copy*m*tr (+barriers) */
    /* lower bounds */
    uint64_t lb_startups;            /* ceil(log2 p), one-port */
    uint64_t lb_injection_blocks;    /* p-1: one port must inject them */
    uint64_t lb_bisection_blocks;    /* 0 when the topology has no such bound */
    char lb_bisection_name[48];      /* e.g. "torus bisection (Liu et al., Lemma 1)" */
    double lb_time;                  /* the binding combination */
    char lb_binding[64];             /* which volume bound binds */
} xchg_cost;

/*
 * Cost of a schedule from its declared message sizes: fast (O(steps)), no
 * block is followed and link contention is not seen: time is the line of
 * xchg_cost_line with the link volume taken as the volume. m is the block
 * size in bytes (or flits with units t_c). with_barrier adds one barrier
 * per start-up.
 */
int xchg_cost_compute(const xchg_sched *s, const xchg_machine *mach, double m,
                      int with_barrier, xchg_cost *out, xchg_err *err);

/* Lower bounds of operation op on t (fills the lb_* fields of out; see
 * docs/operations.md): start-ups, injection and, for the complete exchange
 * only, bisection. */
void xchg_cost_op_lower_bounds(const xchg_topo *t, const xchg_op *op,
                               const xchg_machine *mach, double m, xchg_cost *out);

/* Lower bounds of the complete exchange alone (fills the lb_* fields of
 * out). */
void xchg_cost_lower_bounds(const xchg_topo *t, const xchg_machine *mach, double m,
                            xchg_cost *out);

/* Where a time line's link volume comes from. */
enum {
    XCHG_LINK_CLAIMED = 0,    /* equal to the volume, unchecked: the schedule
                                 claims to be contention-free (the verifier
                                 holds every algorithm to its claim) */
    XCHG_LINK_MEASURED = 1,   /* measured by xchg_verify (any mode) */
    XCHG_LINK_UNMEASURED = 2  /* not contention-free and not measured (the
                                 check is over its work limit): the volume is
                                 shown, a lower bound; such a line may not win */
};

/*
 * The one time line of a schedule on a machine (docs/cost-model.md):
 *   time(m) = fixed + per_unit*m,
 *   fixed    = startups*ts (+ startups*barrier),
 *   per_unit = link_volume_blocks*tw + copy_blocks*tr.
 * It charges the link volume: the sum over steps of the busiest directed
 * link's load in blocks, which is the volume when no link carries two
 * messages in a step, and more when some do.
 */
typedef struct xchg_line {
    uint64_t steps;
    uint64_t startups;           /* non-empty steps (declared sizes) */
    uint64_t volume_blocks;      /* sum over steps of the largest declared message */
    uint64_t link_volume_blocks; /* the volume the line charges (see link_source) */
    uint64_t copy_blocks;        /* blocks each node copies locally */
    int link_source;             /* XCHG_LINK_* */
    uint64_t link_conflicts;     /* (step, link) pairs with 2+ messages, when
                                    measured; 0 otherwise */
    uint64_t check_failures;     /* failed checks of the run that measured the
                                    link volume (a broken schedule); 0 otherwise */
    double fixed;                /* time at m = 0 */
    double per_unit;             /* time per unit of m (byte, or flit in t_c) */
    uint32_t pieces;             /* blocks the operation's m is cut into (1, or
                                    p for seed 003's improved operations): a
                                    block is m/pieces, and per_unit says so */
} xchg_line;

/* How xchg_cost_line measures; a zeroed struct (or NULL) gives the defaults. */
typedef struct xchg_line_opts {
    int with_barrier;      /* add the machine's barrier once per start-up */
    int threads;           /* threads of the message-level check; 0 = every
                              online core */
    uint64_t max_work;     /* limit of that check in link hops
                              (p*steps*diameter); 0 = the verifier's default.
                              Above it the line is XCHG_LINK_UNMEASURED */
    uint64_t max_bytes;    /* memory limit of that check (0: the verifier's
                              default); above it, XCHG_LINK_UNMEASURED too */
    xchg_progress_fn progress; /* the check's progress (xchg_verify_opts) */
    void *progress_ctx;
    const xchg_verify_report *report; /* a report xchg_verify already made on
                              this schedule (any mode): the link volume is read
                              from it and no check is run */
} xchg_line_opts;

/*
 * The time line of s on mach. Counts come from the declared sizes. The link
 * volume: from opts->report when given; else, for a schedule that claims to
 * be contention-free (or a network without links), the volume
 * (XCHG_LINK_CLAIMED, O(steps)); else it is measured with xchg_verify's
 * message-level check (messages_only, about p*steps*hops work), or left
 * XCHG_LINK_UNMEASURED when that check is over opts->max_work.
 * Returns 0; XCHG_EINVAL when s, mach or out is NULL, a machine parameter
 * is negative or not finite, or opts->report has another step count;
 * XCHG_ENOMEM; or the verifier's code when the check fails to run for
 * another reason. out is untouched on failure.
 */
int xchg_cost_line(const xchg_sched *s, const xchg_machine *mach, const xchg_line_opts *opts,
                   xchg_line *out, xchg_err *err);

/* The line's time at block size m: fixed + per_unit*m. Every caller
 * (planner, CLI) evaluates lines through this one function. */
double xchg_line_time(const xchg_line *l, double m);

/* ------------------------------------------------------------------ */
/* Planner                                                             */
/* ------------------------------------------------------------------ */

/* What was checked of a candidate. */
enum {
    XCHG_CHECK_NONE = 0,     /* nothing: claims contention-free, verify not asked */
    XCHG_CHECK_BLOCKS = 1,   /* every block followed: passed */
    XCHG_CHECK_MESSAGES = 2, /* message-level checks only (routes, ports,
                                links): passed */
    XCHG_CHECK_FAILED = 3,   /* a check failed: never wins */
    XCHG_CHECK_TOOBIG = 4,   /* too large to check within max_work */
    XCHG_CHECK_ERROR = 5,    /* could not be generated or checked (see why) */
    XCHG_CHECK_SKIPPED = 6   /* not built: its estimate is over the memory
                                limit (see why); never wins */
};

/* One candidate: a registry algorithm with options, and its time line. */
typedef struct xchg_plan_entry {
    xchg_spec alg;            /* e.g. "t1.1", "multiphase:2,2,2" */
    int contention_free;      /* the schedule claims it */
    int check;                /* XCHG_CHECK_* */
    uint64_t failures;        /* failed checks when check is XCHG_CHECK_FAILED */
    xchg_line line;           /* all zero when check is XCHG_CHECK_ERROR */
    int eligible;             /* may win: generated, not failed, and its link
                                 volume is claimed or measured */
    char why[200];            /* why not eligible, or the first failure; "" */
} xchg_plan_entry;

/* How the planner gathers and checks its candidates; zeroed (or NULL)
 * gives: every registry entry, no verification, default threads and limit. */
typedef struct xchg_plan_opts {
    const char *only;      /* comma-separated registry names ("t1,t1.x,t2");
                              NULL or "" for all */
    int verify;            /* also follow every block of each candidate
                              (xchg_verify; message-level checks when there
                              are too many blocks): one that fails never wins */
    int threads;           /* verifier threads; 0 = every online core */
    uint64_t max_work;     /* verifier limit: block-steps (p*p*steps) to follow
                              blocks, link hops (p*steps*diameter) for the
                              message-level check; 0 = the verifier's default */
    int with_barrier;      /* charge one barrier per start-up */
    uint64_t max_bytes;    /* memory one candidate may take, its schedule
                              (xchg_estimate) and its check together; one
                              whose schedule alone is larger is skipped (not
                              built; XCHG_CHECK_SKIPPED). 0 = XCHG_DEFAULT_MAX_BYTES */
    uint64_t max_build_work; /* a candidate whose schedule takes more
                              operations to build (xchg_estimate) is skipped
                              (XCHG_CHECK_SKIPPED); 0 = XCHG_VERIFY_DEFAULT_MAX_WORK */
    xchg_progress_fn progress; /* fraction of the candidates done, now and
                              then; NULL: none */
    void *progress_ctx;
    xchg_op_kind op;       /* the operation whose algorithms compete
                              (0: the complete exchange) */
    uint32_t root, shift;  /* its root, its q (shift): xchg_opts.root/shift */
} xchg_plan_opts;

/* The memory a command or a planner candidate may take unless told
 * otherwise (docs/limits.md). */
#define XCHG_DEFAULT_MAX_BYTES (4ull << 30)

/* The result of a sweep over block sizes (opaque; xchg_sweep_free). */
typedef struct xchg_sweep xchg_sweep;

/* The winner changes from candidate `from` to candidate `to` at block size
 * m, where their lines cross (indices into the sweep's candidates). */
typedef struct xchg_crossover {
    size_t from, to;
    double m;
} xchg_crossover;

/* No candidate may win. */
#define XCHG_NO_WINNER SIZE_MAX

/*
 * Cost every candidate on t under mach and find the winners over the block
 * sizes lo, 2*lo, 4*lo, ... <= hi and the exact crossovers on the lower
 * envelope of the eligible lines in (lo, hi]. Candidates: every registry
 * entry (or those in opts->only) with each spec xchg_alg_variants gives, in
 * registry order; each is generated, checked as opts says, and given its
 * line (xchg_cost_line). The winner at m is the eligible candidate of least
 * time; ties go to the smaller per_unit, then to the earlier candidate.
 * Needs 0 < lo <= hi (or lo == hi >= 0: one size), both finite.
 * Returns 0 and *out (free with xchg_sweep_free), even when no candidate
 * is eligible; XCHG_EINVAL on bad arguments or an unknown name in
 * opts->only; XCHG_ENOTAPPLIC when no candidate applies; XCHG_ENOMEM.
 */
int xchg_plan_sweep(const xchg_topo *t, const xchg_machine *mach, double lo, double hi,
                    const xchg_plan_opts *opts, xchg_sweep **out, xchg_err *err);
void xchg_sweep_free(xchg_sweep *sw);

/* The candidates, in registry order. */
size_t xchg_sweep_ncandidates(const xchg_sweep *sw);
const xchg_plan_entry *xchg_sweep_candidate(const xchg_sweep *sw, size_t i);
/* Names of the registry entries asked for that do not apply to t,
 * comma-separated ("" when every one applies). */
const char *xchg_sweep_not_applicable(const xchg_sweep *sw);
/* The block sizes lo, 2*lo, ... <= hi, and the winner at each (an index
 * into the candidates, or XCHG_NO_WINNER). */
size_t xchg_sweep_nsizes(const xchg_sweep *sw);
double xchg_sweep_size(const xchg_sweep *sw, size_t k);
size_t xchg_sweep_winner(const xchg_sweep *sw, size_t k);
/* The winner at any block size m, by the same rule. */
size_t xchg_sweep_best_at(const xchg_sweep *sw, double m);
/* The candidates ranked at block size m by that rule: the eligible ones,
 * fastest first (rank[0] is xchg_sweep_best_at), then the others in
 * registry order. Writes at most max indices to rank; returns how many
 * candidates there are. */
size_t xchg_sweep_rank(const xchg_sweep *sw, double m, size_t *rank, size_t max);
/* The crossovers in (lo, hi], in increasing m. */
size_t xchg_sweep_ncrossovers(const xchg_sweep *sw);
const xchg_crossover *xchg_sweep_crossover(const xchg_sweep *sw, size_t i);

/*
 * The fastest candidate at one block size m >= 0: xchg_plan_sweep over
 * [m, m]. *best gets the winner; when all is non-NULL the first max_all
 * candidates, in registry order, are written there and *n_all gets their
 * total number (eligible or not). EINVAL on bad arguments or an unknown
 * name in opts->only; ENOTAPPLIC when no candidate applies or none may win
 * (the message says why); ENOMEM. Outputs are untouched on failure.
 */
int xchg_plan(const xchg_topo *t, const xchg_machine *mach, double m,
              const xchg_plan_opts *opts, xchg_plan_entry *best, xchg_plan_entry *all,
              size_t max_all, size_t *n_all, xchg_err *err);

/* ------------------------------------------------------------------ */
/* Network simulator                                                   */
/* ------------------------------------------------------------------ */

/* How steps follow each other in a simulation. */
enum {
    XCHG_SIM_BARRIER = 0, /* a step starts when the last one has ended on
                             every node (plus the machine's barrier time
                             when with_barrier) */
    XCHG_SIM_ASYNC = 1    /* a node starts its next step as soon as its own
                             send and receive of the last one are done */
};

/* How a message crosses the network in a simulation. */
enum {
    XCHG_SIM_WORMHOLE = 0, /* it needs every resource of its route at once
                              and holds them all from head to tail */
    XCHG_SIM_VCT = 1       /* virtual cut-through: its head takes the links
                              one by one; blocked, the message is buffered
                              where it stands and the links behind it are
                              freed as its tail passes */
};

typedef struct xchg_sim_opts {
    int mode;          /* XCHG_SIM_BARRIER (0) or XCHG_SIM_ASYNC */
    int routing;       /* XCHG_SIM_WORMHOLE (0) or XCHG_SIM_VCT */
    int all_port;      /* nodes inject and eject any number of messages at
                          once (default 0: one of each at a time) */
    double th;         /* latency per hop, in the machine's time units */
    int with_barrier;  /* barrier mode: charge mach->barrier once per
                          non-empty step, as xchg_cost_compute does */
    /* The network to run on: NULL for the schedule's own topology, or
     * another one with as many nodes (a hypercube schedule on a 2-D mesh);
     * routes, links and ports are the network's (shortest, dimension-
     * ordered; the schedule's route policy where the network has wrapped
     * dimensions). */
    const xchg_topo *network;
    /* Where each node of the schedule sits on the network: node i runs on
     * network node map[i] (a permutation of 0..p-1). NULL: node i on node
     * i. */
    const uint32_t *map;
    /* Called once per message when it ends, in the order messages end;
     * NULL: none. */
    void (*trace)(void *ctx, size_t step, uint32_t from, uint32_t to, uint64_t blocks,
                  double ready, double start, double end);
    void *trace_ctx;
} xchg_sim_opts;

/* One directed link of the simulated network and its load. */
typedef struct xchg_sim_link {
    uint32_t node;     /* the network node it leaves */
    int dim, dir;      /* its dimension and direction (+1, -1; on a tree
                          0 climbs: xchg_topo_neighbor) */
    double busy;       /* time some message held it */
    uint64_t messages; /* messages that crossed it */
} xchg_sim_link;

#define XCHG_SIM_TOP_LINKS 8

typedef struct xchg_sim_report {
    double time;           /* when the last message ended (or the last
                              step's copies and barrier) */
    double predicted;      /* the cost model's contention-free time
                              (xchg_cost_compute, with the same barrier) */
    uint64_t messages;     /* messages simulated (non-empty ones) */
    uint64_t link_hops;    /* links crossed, summed over messages */
    double wait;           /* time messages spent waiting for a link or a
                              port, summed */
    double max_wait;       /* the longest such wait */
    uint64_t waited;       /* messages that waited at all */
    uint64_t events;       /* events processed */
    size_t nlinks;         /* busiest links reported below */
    xchg_sim_link busiest[XCHG_SIM_TOP_LINKS]; /* by busy time, largest first */
} xchg_sim_report;

/*
 * Run schedule s on its topology, event by event, with blocks of m bytes
 * (of m/pieces for an operation cut into pieces: xchg_op_block_bytes; m is
 * always the operation's m, as in the cost line) on machine mach
 * (docs/simulator.md): a message of b blocks takes ts at
 * its sender, then holds every link of its route (xchg_topo_route, its
 * step's policy), and with one-port nodes its sender's injection port and
 * its receiver's ejection port, from head to tail: hops*th + b*m*tw. A
 * message that finds a link or port taken waits, first come first served
 * at the resource it waits for. Local copies take copy_blocks*m*tr before
 * a node's step. In barrier mode with th = 0 and no contention the time is
 * the cost model's. Memory: the network, and the messages in flight.
 * Returns 0; EINVAL on NULL arguments, a negative or non-finite m or
 * machine parameter or th, an unknown mode, a network of another size, a
 * map that is not a permutation; ENOMEM. report is untouched on failure.
 */
int xchg_sim_run(const xchg_sched *s, const xchg_machine *mach, double m,
                 const xchg_sim_opts *opts, xchg_sim_report *report, xchg_err *err);

/*
 * A placement of t's nodes on t's network for xchg_sim_opts.map: "row-major"
 * (node i on node i) or "snake" (boustrophedon: along the last dimension,
 * every other line runs backwards, so consecutive ids stay neighbours).
 * Fills map (t->nodes entries). EINVAL naming what is accepted.
 */
int xchg_sim_map(const xchg_topo *t, const char *name, uint32_t *map, xchg_err *err);

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

/* ------------------------------------------------------------------ */
/* Export                                                              */
/* ------------------------------------------------------------------ */

/* Output sink: called with successive chunks of text. */
typedef int (*xchg_write_fn)(void *ctx, const char *data, size_t len);

/*
 * Write the whole schedule, every block of every message, as
 * "xchg-schedule/1" JSON (format "json") or as readable text ("text"). A
 * schedule of another operation than the complete exchange names it, with
 * its phases, and lists only its tokens (xchg_op_has_token), each phase's
 * from their origins; the complete exchange's files name none.
 * XCHG_ETOOBIG when p*p*steps is beyond max_work (0 = default limit).
 */
/* Would xchg_export accept a schedule of `steps` steps on t with max_work
 * (0: its default)? Its limits, checked before the schedule is built: 0
 * with *bytes (when not NULL) set to the working memory it will take, or
 * XCHG_ETOOBIG with the message xchg_export would give. */
int xchg_export_check(const xchg_topo *t, uint64_t steps, uint64_t max_work, uint64_t *bytes,
                      xchg_err *err);

int xchg_export(const xchg_sched *s, const char *format, uint64_t max_work,
                xchg_write_fn write, void *ctx, xchg_err *err);

/* Options of xchg_import. */
typedef struct xchg_import_opts {
    uint64_t max_bytes; /* refuse a file whose replay would take more memory
                           (4 bytes per block, p*p blocks); 0: 4 GiB */
} xchg_import_opts;

/*
 * Read a schedule from text (len bytes, not NUL-terminated) in the export
 * format, xchg-schedule/1 JSON or text (docs/export-format.md, "Import"),
 * into a new *out (free it with xchg_sched_free): its topology, its
 * algorithm's name, its operation and phases (the complete exchange when
 * the file names none), every step's messages with the blocks they list
 * (each message declared as many blocks as its operation makes of them),
 * their routes' policy and the local copies. The schedule claims nothing
 * (xchg_sched_contention_free is 0): check it with xchg_verify. Returns 0;
 * XCHG_EINVAL with a message giving the line, column and (JSON) field when
 * the text is not such a schedule: bad syntax, another format, a topology
 * or node count that does not parse or agree, a node out of range, a node
 * sending to itself or twice in a step, a route that is not xchg_topo_route
 * under one policy for the step, a block not held by its sender at the
 * start of its step or listed twice in it, copies of the wrong count, an
 * operation or phase that fails xchg_op_check, lacks a parameter its kind
 * takes (root, q) or gives one it does not, phases out of step order, a
 * listed block that is not a token of its step's operation;
 * XCHG_EINVAL also when the replay would take more than opts->max_bytes;
 * XCHG_ENOMEM. *out is untouched on failure.
 */
int xchg_import(const char *text, size_t len, const xchg_import_opts *opts, xchg_sched **out,
                xchg_err *err);

/* ------------------------------------------------------------------ */
/* Step diagrams (SVG)                                                 */
/* ------------------------------------------------------------------ */

/* Options of xchg_draw_step and xchg_draw_all_steps; zero fields take the
 * defaults (docs/drawing.md). */
typedef struct xchg_draw_opts {
    uint32_t max_side;  /* a mesh, torus or hypercube grid with more nodes
                           along a side is shown as its top-left submesh
                           (0: 32) */
    uint32_t sub_side;  /* the side of that submesh (0: 16) */
    int no_labels;      /* never write message sizes next to the arrows */
} xchg_draw_opts;

/* Most steps a contact sheet (xchg_draw_all_steps) draws. */
#define XCHG_DRAW_MAX_PANELS 256

/*
 * Draw step `step` (0-based) of s as one SVG document, written through
 * write(ctx, data, len) in chunks: the network laid out for its kind (ring
 * and complete on a circle, array in a row, mesh and torus as a grid with
 * 3-D and higher as 2-D slices side by side, hypercube as a 2-D grid of its
 * bits taken alternately across and down), each message as one arrow
 * (<path class="msg">) along its route coloured by the dimension and
 * direction of its first hop, links that carry two or more messages in the
 * step in red (class="conflict"), a legend and a caption. Large networks
 * show a submesh; the caption says which and how many messages are not
 * drawn. Returns 0; XCHG_EINVAL on a NULL argument, a step out of range (the
 * message names the range) or a failed write; XCHG_ENOMEM.
 */
int xchg_draw_step(const xchg_sched *s, size_t step, const xchg_draw_opts *opts,
                   xchg_write_fn write, void *ctx, xchg_err *err);

/*
 * Draw every step of s as one SVG contact sheet: a grid of small panels,
 * one per step, each as xchg_draw_step draws it (without sizes and node
 * numbers), under one caption and one legend. XCHG_ETOOBIG when s has more
 * than XCHG_DRAW_MAX_PANELS steps or steps x nodes is beyond 2^26 (draw
 * single steps instead); otherwise as xchg_draw_step.
 */
int xchg_draw_all_steps(const xchg_sched *s, const xchg_draw_opts *opts, xchg_write_fn write,
                        void *ctx, xchg_err *err);

/* ------------------------------------------------------------------ */
/* Plots (SVG)                                                         */
/* ------------------------------------------------------------------ */

/* A plot of time against block size on log-log axes (opaque;
 * xchg_plot_free), written as SVG by xchg_plot_write (docs/drawing.md). */
typedef struct xchg_plot xchg_plot;

/* What a plot says about itself; strings are copied. */
typedef struct xchg_plot_opts {
    const char *title;   /* above the plot ("" or NULL: none) */
    const char *x_title; /* under the x axis, with its unit: "block size (bytes)" */
    const char *y_title; /* beside the y axis: "time (us)" */
    int x_bytes;         /* x ticks at powers of two labelled as sizes
                            (8 B, 1 KiB, 1 MiB); else decades, as y's */
    uint32_t width;      /* of the plotting area, px (0: 560) */
    uint32_t height;     /* (0: 400) */
} xchg_plot_opts;

/* Series styles. */
enum {
    XCHG_PLOT_LINE = 0,  /* a solid line in the next colour (class="series") */
    XCHG_PLOT_BOUND = 1  /* a dashed black line: a lower bound (class="bound") */
};

/* Most series and markers one plot holds. */
#define XCHG_PLOT_MAX_SERIES 64
#define XCHG_PLOT_MAX_MARKERS 64

/* A new empty plot into *out (free with xchg_plot_free). Returns 0;
 * XCHG_EINVAL when opts or out is NULL; XCHG_ENOMEM. */
int xchg_plot_new(const xchg_plot_opts *opts, xchg_plot **out, xchg_err *err);
void xchg_plot_free(xchg_plot *p);

/*
 * Add a series of n points (x[i], y[i]), drawn in that order, named `name`
 * in the legend, in style XCHG_PLOT_LINE or XCHG_PLOT_BOUND. The points are
 * copied. Returns 0; XCHG_EINVAL (the plot unchanged) on a NULL argument,
 * n == 0, a bad style, a value that is not finite or not positive (the axes
 * are logarithmic: the message names the series and the point), or more
 * than XCHG_PLOT_MAX_SERIES series; XCHG_ENOMEM.
 */
int xchg_plot_add_series(xchg_plot *p, const char *name, const double *x, const double *y,
                         size_t n, int style, xchg_err *err);

/* Mark the point (x, y), a crossover, with a dot and `label` beside it
 * (class="crossover"). Returns 0; XCHG_EINVAL as for a series' point, or
 * beyond XCHG_PLOT_MAX_MARKERS markers; XCHG_ENOMEM. */
int xchg_plot_add_marker(xchg_plot *p, double x, double y, const char *label, xchg_err *err);

/*
 * Write the plot as one SVG document through write(ctx, data, len): log-log
 * axes spanning every point (whole decades, or powers of two for sizes),
 * their ticks, labels and titles, one <path class="series"> per line series
 * (a colour each, named in the legend), one <path class="bound"> per bound
 * (dashed), one <g class="crossover"> per marker. Returns 0; XCHG_EINVAL
 * when p or write is NULL, the plot has no series, or a write fails;
 * XCHG_ENOMEM.
 */
int xchg_plot_write(const xchg_plot *p, xchg_write_fn write, void *ctx, xchg_err *err);

#ifdef __cplusplus
}
#endif

#endif /* XCHG_H */
