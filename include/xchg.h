/*
 * xchg.h - public API of xchg: complete exchange (all-to-all personalized
 * communication) on direct networks.
 *
 * Data flow: a topology spec is parsed into an xchg_topo; an algorithm from
 * the registry (xchg_alg) turns a topology and options into an xchg_sched;
 * the verifier, the cost model and the exporter all read that schedule.
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
    XCHG_TOPO_COMPLETE   /* complete:P  P >= 1, switch, no link contention */
} xchg_topo_kind;

/*
 * A topology is a plain value: copy it freely. Dimensions: ring, array and
 * complete have one, of size P; mesh and torus have one per size in the
 * spec; a hypercube has D, dimension b being bit b of the node id (size 2).
 * Node ids are row-major over coordinates, first coordinate slowest; a
 * hypercube node's id is its binary label.
 */
typedef struct xchg_topo {
    xchg_topo_kind kind;
    int ndims;
    uint32_t size[XCHG_MAX_DIMS];   /* nodes along each dimension */
    uint32_t stride[XCHG_MAX_DIMS]; /* id step of +1 along each dimension */
    uint32_t nodes;                 /* product of the sizes */
} xchg_topo;

/*
 * Parse a topology spec: ring:P, array:P, mesh:AxB[xC...], torus:AxB[xC...],
 * hypercube:D, complete:P. Returns XCHG_EINVAL with a message naming the
 * accepted forms on bad input.
 */
int xchg_topo_parse(const char *spec, xchg_topo *out, xchg_err *err);

/* Write the canonical spec ("torus:8x8") into buf; returns buf. */
const char *xchg_topo_spec(const xchg_topo *t, char *buf, size_t len);

/* Name of a kind: "ring", "array", "mesh", "torus", "hypercube", "complete". */
const char *xchg_topo_kind_name(xchg_topo_kind kind);

/* Coordinate of node id along dimension dim. */
uint32_t xchg_topo_coord(const xchg_topo *t, uint32_t id, int dim);

/* Node one hop from id along dim in direction dir (+1 or -1), or XCHG_NONE
 * where there is no such link (mesh and array edges, complete). On a
 * hypercube the direction is implied by the bit: both +1 and -1 give the
 * neighbour across bit dim. */
uint32_t xchg_topo_neighbor(const xchg_topo *t, uint32_t id, int dim, int dir);

/* True when the topology has links between neighbours (not complete). */
int xchg_topo_has_links(const xchg_topo *t);

/* One straight piece of a route: hops links along dim in direction dir. */
typedef struct xchg_seg {
    int dim;
    int dir;       /* +1 or -1; on a hypercube +1 when the bit goes 0 -> 1 */
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
 * round; meshes and arrays have only one way. Writes at most XCHG_MAX_DIMS
 * segments to segs and their number to *nsegs (0 for from == to and for a
 * complete topology).
 */
void xchg_topo_route(const xchg_topo *t, uint32_t from, uint32_t to, int policy,
                     xchg_seg *segs, int *nsegs);

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

/* Knobs of every algorithm; each algorithm reads the ones it has. */
typedef struct xchg_opts {
    char args[128];                /* text after "name:" in the spec */
    uint32_t radix;                /* bruck: radix r >= 2 */
    int nparts;                    /* multiphase: the partition of d */
    int parts[XCHG_MAX_DIMS];
    int x;                         /* t1.x and similar: the configuration */
    int virtual_nodes;             /* ":virtual": host the next size the
                                      algorithm accepts on the real nodes */
} xchg_opts;

/* Closed-form counts an algorithm's source gives (or we derived). */
typedef struct xchg_counts {
    uint64_t startups;
    uint64_t volume_blocks;
} xchg_counts;

typedef struct xchg_alg {
    const char *name;        /* "hc-standard" */
    const char *summary;     /* one line */
    const char *source;      /* paper and section */
    const char *topologies;  /* accepted topologies, in words */
    const char *options;     /* accepted options, in words ("" for none) */
    /* Parse the text after "name:" (may be empty) into opts; EINVAL with a
     * message on bad options. NULL: the algorithm takes no options. */
    int (*parse)(const char *args, xchg_opts *opts, xchg_err *err);
    /* 0 when the algorithm applies to t with opts, else XCHG_ENOTAPPLIC
     * (or EINVAL) with a message saying what it needs. */
    int (*applies)(const xchg_topo *t, const xchg_opts *opts, xchg_err *err);
    /* Build the schedule; caller frees it with xchg_sched_free. */
    int (*generate)(const xchg_topo *t, const xchg_opts *opts, xchg_sched **out,
                    xchg_err *err);
    /* Closed-form start-ups and volume from the source, for the tests. */
    int (*formula)(const xchg_topo *t, const xchg_opts *opts, xchg_counts *out);
    /* Option strings worth comparing on t (e.g. "multiphase:2,3"); writes
     * at most max of them and returns how many there are. NULL: just the name. */
    int (*variants)(const xchg_topo *t, char (*specs)[64], int max);
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

/* Nonzero when registry name `name` is in `list`, a comma-separated list of
 * registry names ("t1,t1.x,t2"); NULL or "" means every algorithm. */
int xchg_alg_in_list(const char *list, const char *name);
/* EINVAL naming the first word of `list` that is not a registry name. */
int xchg_alg_check_list(const char *list, xchg_err *err);

/* Parse, check preconditions and generate in one call. */
int xchg_generate(const xchg_topo *t, const char *alg_spec, xchg_sched **out, xchg_err *err);

/* ------------------------------------------------------------------ */
/* Verifier                                                            */
/* ------------------------------------------------------------------ */

#define XCHG_VERIFY_MAX_REPORTED 16

typedef struct xchg_verify_opts {
    int threads;           /* worker threads; 0 = number of online cores */
    uint64_t max_work;     /* refuse (XCHG_ETOOBIG) above this many
                              block-steps; 0 = default limit */
    int messages_only;     /* check only what the messages say: ports,
                              routes, link contention and link volume, with
                              start-ups and volume from the declared sizes.
                              No block is followed, so delivery and sizes are
                              not checked; for networks too large to follow
                              every block. max_work then limits p*steps. */
} xchg_verify_opts;

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
} xchg_machine;

/* Presets from seed 002 Table 1: "paragon", "sp2", "cs2" (barrier for the
 * given node count). EINVAL listing the presets on an unknown name. */
int xchg_machine_preset(const char *name, uint32_t nodes, xchg_machine *out, xchg_err *err);
/* Seed 000's model: ts = a (a = t_s/t_c, in units of t_c), tw = 1 per flit,
 * no copy cost, units "t_c"; block sizes are then in flits. EINVAL when a is
 * negative or not finite. */
int xchg_machine_ratio(double a, xchg_machine *out, xchg_err *err);

/* Number of presets and the i-th name. */
size_t xchg_machine_preset_count(void);
const char *xchg_machine_preset_name(size_t i);

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
    char lb_bisection_name[48];      /* e.g. "torus bisection (seed 001 Lemma 1)" */
    double lb_time;                  /* the binding combination */
    char lb_binding[64];             /* which volume bound binds */
} xchg_cost;

/*
 * Cost of a schedule from its declared message sizes: fast, no block is
 * followed. m is the block size in bytes (or flits with units t_c).
 * with_barrier adds one barrier per start-up.
 */
int xchg_cost_compute(const xchg_sched *s, const xchg_machine *mach, double m,
                      int with_barrier, xchg_cost *out, xchg_err *err);

/* Lower bounds alone (fills the lb_* fields of out). */
void xchg_cost_lower_bounds(const xchg_topo *t, const xchg_machine *mach, double m,
                            xchg_cost *out);

/* ------------------------------------------------------------------ */
/* Planner                                                             */
/* ------------------------------------------------------------------ */

/* One candidate the planner costed: its time is a line fixed + per_unit*m. */
typedef struct xchg_plan_entry {
    char alg[64];              /* spec, e.g. "t1.1" */
    uint64_t startups;
    uint64_t volume_blocks;
    uint64_t copy_blocks;
    double fixed;              /* startups*ts */
    double per_unit;           /* volume*tw + copy*tr, per unit of m */
    double time;               /* fixed + per_unit*m at the m asked */
} xchg_plan_entry;

/*
 * Choose the fastest algorithm for block size m on t under mach: every
 * registry entry (or only those named in `only`, a comma-separated list of
 * registry names such as "t1,t1.x,t2"; NULL or "" for all) with each of its
 * variants that applies and claims to be contention-free (the cost model
 * cannot see contention) is generated and costed with xchg_cost_compute;
 * the least time wins, ties to the earlier registry entry. *best gets the
 * winner; when all is non-NULL the first max_all candidates, in registry
 * order, are written there and *n_all gets their total number.
 * EINVAL on bad arguments or an unknown name in `only`, ENOTAPPLIC when no
 * candidate applies, ENOMEM.
 */
int xchg_plan(const xchg_topo *t, const xchg_machine *mach, double m, const char *only,
              xchg_plan_entry *best, xchg_plan_entry *all, size_t max_all, size_t *n_all,
              xchg_err *err);

/* ------------------------------------------------------------------ */
/* Export                                                              */
/* ------------------------------------------------------------------ */

/* Output sink: called with successive chunks of text. */
typedef int (*xchg_write_fn)(void *ctx, const char *data, size_t len);

/*
 * Write the whole schedule, every block of every message, as
 * "xchg-schedule/1" JSON (format "json") or as readable text ("text").
 * XCHG_ETOOBIG when p*p*steps is beyond max_work (0 = default limit).
 */
int xchg_export(const xchg_sched *s, const char *format, uint64_t max_work,
                xchg_write_fn write, void *ctx, xchg_err *err);

#ifdef __cplusplus
}
#endif

#endif /* XCHG_H */
