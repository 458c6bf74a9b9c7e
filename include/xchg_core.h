/*
 * xchg_core.h - the core of xchg's public API, the bottom layer: status
 * codes and errors, topologies and the one numbering of their directed
 * links, schedules, the collective operations, the block follower, and
 * the registry of algorithms (xchg_alg) that turns a topology and options
 * into a schedule. Everything else reads schedules through these calls.
 *
 * Includes no other header of xchg; every other public header includes
 * it. The library's base, sched and alg layers see this header only
 * (docs/architecture.md, "The public headers").
 *
 * Conventions (see ../shared/DESIGN.md):
 *   - every public symbol has the xchg_ prefix;
 *   - fallible functions return 0 or a negative XCHG_E* code, give results
 *     through pointers, and leave their inputs unchanged on failure;
 *   - an optional xchg_err receives a one-line message saying what was wrong
 *     and what is accepted; the library never prints and never exits;
 *   - every *_free accepts NULL.
 */
#ifndef XCHG_CORE_H
#define XCHG_CORE_H

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
/* Node-aware (hierarchical) exchange: clusters of nodes of ppn ranks   */
/* ------------------------------------------------------------------ */

/*
 * A node-aware variant (docs/hierarchical.md), on N nodes of K ranks,
 * rank (a, i) = a*K + i, over a node network of N nodes:
 *   leader:X       one leader a node: gather at local rank 0, X among the
 *                  leaders with blocks of K*K*m, scatter (leaders = 1);
 *   leaders:L:X    L leaders a node (L divides K, G = K/L): gather in
 *                  groups of G, X in each of the L lanes with blocks of
 *                  G*K*m, an exchange among a node's leaders with blocks of
 *                  N*G*G*m, scatter in groups;
 *   pairs:X        leaders:K:X: every rank runs X in its lane with blocks
 *                  of K*m, then an exchange within the node of N*m blocks;
 *   aggregate      locality-aware aggregation, no X: place l of every node
 *                  owns the nodes b with b mod K = l; an exchange within the
 *                  node brings each owner its node's blocks for the nodes it
 *                  owns, every owner sends each of them one message of K*K
 *                  blocks directly, an exchange within the node hands out
 *                  what came.
 * X is a registry spec of the complete exchange on the node network, or
 * "auto" (the planner's choice; "leader" alone is "leader:auto").
 */
typedef struct xchg_hier {
    uint32_t leaders;          /* L: 1 for leader, K for pairs and aggregate
                                  (every rank sends between nodes) */
    char inner[XCHG_SPEC_MAX]; /* X, or "auto"; "" for aggregate */
    char kind[16];             /* "leader", "leaders", "pairs" or "aggregate" */
    int aggregate;             /* 1 for aggregate (kind says so too) */
} xchg_hier;

/*
 * Parse a node-aware spec for nodes of ppn ranks into *out. Returns 1 when
 * spec names a node-aware variant and parsed, 0 when it does not start
 * with leader, leaders, pairs or aggregate (a flat registry spec), or
 * XCHG_EINVAL with a message (L missing, not a number, not dividing ppn;
 * X empty; anything after aggregate). X itself is not checked here. *out
 * untouched unless 1 is returned.
 */
int xchg_hier_parse(const char *spec, uint32_t ppn, xchg_hier *out, xchg_err *err);

/*
 * The composed schedule of node-aware spec on `nodes` with ppn ranks a
 * node, on complete:p (p = nodes->nodes*ppn), for the verifier: gather
 * steps, X's steps on the lanes' leaders carrying aggregated blocks, the
 * leaders' exchange, scatter steps, with their declared sizes and copies
 * (xchg_hier_line counts the same steps); for aggregate the exchange
 * within the node, the direct messages between nodes and the exchange
 * within the node again (xchg_aggregate_line counts the same steps). Rank
 * (a, i) is a*ppn + i. X must be explicit (not auto). One-port at every
 * rank; the node network's routes and contention are not in it (it is on
 * a switch): the model costs X (aggregate's messages) on the node network.
 * Returns 0; EINVAL (bad spec, auto, p too large); X's own errors
 * (ENOTAPPLIC ...); ENOMEM. Free with xchg_sched_free.
 */
int xchg_hier_generate(const xchg_topo *nodes, uint32_t ppn, const char *spec,
                       xchg_sched **out, xchg_err *err);

#ifdef __cplusplus
}
#endif

#endif /* XCHG_CORE_H */
