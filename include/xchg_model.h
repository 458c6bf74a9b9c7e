/*
 * xchg_model.h - the model layer of xchg's public API: what a schedule is
 * worth before it runs. The verifier (does it deliver every block, one
 * port, without link contention?), the cost model (machines and their
 * files, the ping-pong fit, tuning files, the one time line, lower bounds)
 * and the planner (winners and crossovers over block sizes).
 *
 * Includes xchg_core.h and nothing else of xchg: the model reads schedules,
 * topologies and the registry, never a consumer's calls. The library's
 * check and model layers see it (docs/architecture.md, "The public
 * headers").
 */
#ifndef XCHG_MODEL_H
#define XCHG_MODEL_H

#include "xchg_core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A matrix of block sizes, one per (origin, destination): MPI_Alltoallv's
 * counts (section "Uneven block sizes" below; docs/alltoallv.md). */
typedef struct xchg_vcounts xchg_vcounts;

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
    const xchg_vcounts *counts; /* blocks of uneven sizes (NULL: none): also
                              weigh each message by the bytes of the blocks
                              it carries (the report's *_bytes fields). A
                              message whose blocks are all 0 bytes counts as
                              not sent. The complete exchange only, with
                              blocks followed (not messages_only), and as
                              many nodes as the schedule */
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
    /* With opts->counts only (0 otherwise), from the blocks followed: */
    int counted_bytes;             /* the four fields below are filled */
    uint64_t max_message_bytes;    /* the largest message, in bytes */
    uint64_t volume_bytes;         /* sum over steps of the largest message */
    uint64_t startups_bytes;       /* steps with a message of > 0 bytes */
    uint64_t messages_bytes;       /* messages of > 0 bytes, all steps */
    int reported;                  /* how many of msgs are filled */
    char msgs[XCHG_VERIFY_MAX_REPORTED][160]; /* first failures, precise */
} xchg_verify_report;

/*
 * Follow every block through the schedule and check: delivery, declared
 * message sizes equal what is held and selected (so a node only sends what it
 * holds), one-port receive, routes reach their partner, and no directed link
 * carries two messages in a step. Contention is a failure only when the
 * schedule claims to be contention-free; otherwise it is counted.
 * With opts->counts, each block also weighs its bytes: the report's
 * *_bytes fields say what the messages carry (delivery is checked as
 * always; a block of 0 bytes must still arrive exactly once).
 * Returns 0 when the run completed (look at report->ok), XCHG_ETOOBIG when
 * the work exceeds the limit, XCHG_EINVAL when opts->counts does not fit
 * (another node count, another operation, messages_only), XCHG_ENOMEM.
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
    /* Within one node of a cluster (docs/hierarchical.md): a message
     * between two ranks of one node costs ts_node + bytes*tw_node; a copy
     * within a rank costs tr a byte, as everywhere. Every constructor
     * (presets, xchg_machine_ratio, xchg_machine_parse) fills them; where
     * nothing is known, xchg_machine_node_defaults: ts_node = ts (a message
     * starts up no faster inside a node than between nodes, the
     * conservative choice) and tw_node = tr (a shared-memory message is one
     * copy of its bytes). Only the node-aware model (ppn > 1) reads them. */
    double ts_node;
    double tw_node;
} xchg_machine;

/* Set m's intra-node figures to their defaults: ts_node = ts, tw_node = tr. */
void xchg_machine_node_defaults(xchg_machine *m);

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

/*
 * The tuning file's operation "alltoallv": MPI_Alltoallv and
 * MPI_Alltoallw, the MPI executor's exchange of variable blocks. It is no
 * operation of the core's (no schedule performs it: it runs the complete
 * exchange's schedules with each call's sizes), so it has no xchg_op_kind
 * of its own; its rows carry this value, one past the core's kinds (the
 * executor's own number for MPI_Alltoallv). Its rows' sizes are a call's
 * largest block, in bytes; their algorithms are a registry spec of the
 * complete exchange, "mpi" or "shm" (docs/tuning.md).
 */
#define XCHG_TUNING_ALLTOALLV ((xchg_op_kind)XCHG_OP_COUNT)

/* The name of a tuning file's operation: xchg_op_name's, or "alltoallv". */
const char *xchg_tuning_op_name(xchg_op_kind op);
/* A tuning file's operation from its name: xchg_op_parse's names and
 * "alltoallv" (XCHG_TUNING_ALLTOALLV). 0, or XCHG_EINVAL listing the
 * accepted names; *out untouched on failure. */
int xchg_tuning_op_parse(const char *name, xchg_op_kind *out, xchg_err *err);

/* One row of a tuning file. */
typedef struct xchg_tuning_entry {
    xchg_op_kind op;         /* the operation the row is for (or XCHG_TUNING_ALLTOALLV) */
    uint32_t ranks;
    char topology[64];       /* as xchg_topo_spec writes it */
    uint64_t from, to;       /* block sizes in bytes, from <= to */
    char alg[XCHG_SPEC_MAX]; /* a registry spec of op, "mpi", or "shm" (alltoall, alltoallv) */
} xchg_tuning_entry;

/*
 * Read a tuning file from text (len bytes, not NUL-terminated) into a new
 * *out (free it with xchg_tuning_free). Returns 0; XCHG_EINVAL with a
 * message naming the line when the text is not such a file (another
 * header, a NUL byte, a long line), or a row is bad: not 6 fields (5 in
 * version 1), an operation xchg_tuning_op_parse does not know, a topology
 * that does not parse or has another node count, sizes out of order, an
 * algorithm that is not a registry spec of the operation (alltoallv: of
 * alltoall), mpi or (for alltoall and alltoallv) shm, or a range
 * overlapping an earlier row's; XCHG_ENOMEM.
 * *out untouched on failure.
 */
int xchg_tuning_parse(const char *text, size_t len, xchg_tuning **out, xchg_err *err);
void xchg_tuning_free(xchg_tuning *t);

/* The algorithm tuned for operation op on a communicator laid out on topo
 * at block size m (bytes; one rank's block, as xchg-bench counts it; for
 * XCHG_TUNING_ALLTOALLV a call's largest block): the
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
    /* Node-aware lines only (ppn > 1, docs/hierarchical.md); 0 otherwise.
     * Messages within a node: start-ups charged at ts_node and the volume
     * (sum over such steps of the largest, in blocks of m) at tw_node; both
     * are already in fixed and per_unit. */
    uint64_t node_startups;
    uint64_t node_volume_blocks;
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
/* Uneven block sizes: count matrices (MPI_Alltoallv; docs/alltoallv.md) */
/* ------------------------------------------------------------------ */

/*
 * An xchg_vcounts (declared above) holds, for p nodes, the size in bytes of
 * every block of the complete exchange: bytes(origin, dest), row = origin,
 * column = destination, 0 allowed (the pair has nothing to say). The
 * schedule is the same whatever the sizes: what changes is what each of its
 * messages weighs (the sum of the sizes of the blocks it carries) and which
 * messages are sent at all (one carrying only 0-byte blocks is not). The
 * name is MPI_Alltoallv's "v"; xchg_counts (xchg_core.h) is another thing,
 * the closed-form counts of a schedule.
 */

/* The largest block a count matrix holds, bytes (as XCHG_CLI_MAX_M). */
#define XCHG_VCOUNTS_MAX_BLOCK 1000000000000000ull

/* A new matrix of p nodes, every block 0 bytes, into *out (free it with
 * xchg_vcounts_free). EINVAL when p is 0 or over XCHG_MAX_NODES; ENOMEM
 * (p*p*8 bytes). */
int xchg_vcounts_new(uint32_t p, xchg_vcounts **out, xchg_err *err);
void xchg_vcounts_free(xchg_vcounts *c);

/*
 * Read a counts file (docs/alltoallv.md) from text (len bytes, not
 * NUL-terminated) into a new *out: an optional first line "# xchg counts
 * p=P", then P lines of P whole numbers >= 0 (bytes, at most
 * XCHG_VCOUNTS_MAX_BLOCK) separated by spaces or tabs, line i holding the
 * blocks origin i sends to 0, 1, ... P-1. Other '#' comments (whole lines,
 * or the end of a line) and blank lines are skipped; CR LF line ends are
 * read. p is the node count wanted (0: the header's P, else the first
 * row's length). Returns 0; XCHG_EINVAL with a message naming the line and
 * what is accepted (a header of another p, a row of another length, too few
 * or too many rows, a negative, fractional, non-numeric or too large
 * number, a NUL byte); XCHG_ENOMEM. *out untouched on failure.
 */
int xchg_vcounts_parse(const char *text, size_t len, uint32_t p, xchg_vcounts **out,
                       xchg_err *err);

/*
 * A named distribution of p nodes with mean-ish block m bytes (every size
 * rounded to a whole byte), deterministic for a given seed (a splitmix64
 * stream of the library's own, drawn in row-major order):
 *   uniform     every block m (the plain model's exchange);
 *   random:X    block (i,j) = m*(1 + u*X/100), u uniform in [-1, 1], X a
 *               number in [0, 100];
 *   hot:R[:F]   the blocks of rank R's row and column are F*m (F a number
 *               > 0 and at most 1e6, default 8), the others m; 0 <= R < p;
 *   sparse:F    each off-diagonal block (i,j), i != j, is m with
 *               probability F in (0, 1], else 0; the diagonal keeps m.
 * Returns 0 and a new *out; XCHG_EINVAL (a message listing the accepted
 * forms) on a bad spec, p 0 or too large, m negative, not finite or over
 * XCHG_VCOUNTS_MAX_BLOCK; XCHG_ENOMEM. *out untouched on failure.
 */
int xchg_vcounts_named(const char *spec, uint32_t p, double m, uint64_t seed,
                       xchg_vcounts **out, xchg_err *err);

/* Nodes of c (0 for NULL). */
uint32_t xchg_vcounts_nodes(const xchg_vcounts *c);
/* Bytes of block (origin, dest); 0 when c is NULL or a node is out of range. */
uint64_t xchg_vcounts_get(const xchg_vcounts *c, uint32_t origin, uint32_t dest);
/* Set block (origin, dest) to bytes: 0, or EINVAL (c unchanged) when c is
 * NULL, a node is out of range or bytes is over XCHG_VCOUNTS_MAX_BLOCK. */
int xchg_vcounts_set(xchg_vcounts *c, uint32_t origin, uint32_t dest, uint64_t bytes);
/* Origin's row: p sizes, dest by dest (NULL when out of range). The
 * pointer belongs to c and stays valid until it is freed. */
const uint64_t *xchg_vcounts_row(const xchg_vcounts *c, uint32_t origin);

/* What a count matrix holds, in one pass (sums saturate at UINT64_MAX).
 * "Off the diagonal": the blocks that travel (a node's block to itself
 * never leaves it). */
typedef struct xchg_vcounts_summary {
    uint32_t nodes;
    uint64_t total;           /* bytes of every block, the diagonal included */
    uint64_t max_block;       /* the largest block */
    uint64_t nonzero;         /* blocks of > 0 bytes off the diagonal */
    double mean;              /* total / p^2: the mean block */
    uint64_t max_send;        /* most bytes one node sends off the diagonal
                                 (largest row sum) */
    uint64_t max_recv;        /* most bytes one node receives (column sum) */
    uint64_t max_send_blocks; /* most nonzero blocks off the diagonal in a row */
    uint64_t max_recv_blocks; /* ... in a column */
    double copy_block;        /* what the model charges per block copied
                                 locally: the heaviest node's mean block,
                                 max over nodes of its larger of row and
                                 column sum (diagonal included) over p; m
                                 when every block is m */
} xchg_vcounts_summary;

/* Fill *out from c (p entries of scratch): 0, EINVAL when an argument is
 * NULL, ENOMEM. */
int xchg_vcounts_summarize(const xchg_vcounts *c, xchg_vcounts_summary *out);

/*
 * The bytes of every message of s on the counts c: bytes[k*p + n] = the sum
 * of the sizes of the blocks node n sends at step k (0 when idle, or when
 * every block it sends is 0 bytes), following every block with the block
 * follower (a block is counted where it leaves its holder). len is the
 * number of entries of bytes, at least nsteps*p. O(p*p*steps) time, p
 * entries of scratch. Returns 0; EINVAL when an argument is NULL, len is
 * too small, c is not of s's node count, or s is not a complete exchange
 * of one phase; the follower's EINVAL on a malformed step; ENOMEM. bytes
 * is untouched on failure.
 */
int xchg_vcounts_messages(const xchg_sched *s, const xchg_vcounts *c, uint64_t *bytes,
                          size_t len, xchg_err *err);

/* The cost of a schedule on a count matrix (xchg_cost_vcounts). */
typedef struct xchg_vcost {
    uint64_t steps;
    uint64_t startups;          /* steps with a message of > 0 bytes */
    uint64_t volume_bytes;      /* sum over steps of the step's largest message */
    uint64_t link_volume_bytes; /* sum over steps of the busiest directed
                                   link's bytes: volume_bytes when link_source
                                   is XCHG_LINK_CLAIMED, else measured */
    int link_source;            /* XCHG_LINK_CLAIMED (contention-free claim,
                                   or no links) or XCHG_LINK_MEASURED */
    uint64_t copy_blocks;       /* blocks each node copies locally (declared) */
    double copy_bytes;          /* copy_blocks * the summary's copy_block */
    uint64_t messages;          /* messages of > 0 bytes, all steps */
    uint64_t max_message_bytes; /* the largest message */
    uint64_t max_node_messages; /* most messages of > 0 bytes one node sends */
    double time;                /* startups*ts + volume_bytes*tw +
                                   copy_bytes*tr (+ startups*barrier) */
    double link_time;           /* the same with link_volume_bytes: what the
                                   planner ranks by */
    /* Lower bounds on any schedule with these counts (one-port): */
    uint64_t lb_startups;       /* max over nodes of ceil(log2(k+1)), k the
                                   nonzero blocks off the diagonal it sends
                                   or receives (the larger): with
                                   forwarding, the nodes holding a node's
                                   data at most double a step */
    uint64_t lb_direct_startups;/* the largest such k: a direct schedule (a
                                   block goes straight from origin to
                                   destination) sends one message per
                                   nonzero block */
    uint64_t lb_injection_bytes;/* the larger of max_send and max_recv: one
                                   port must carry them */
    double lb_time;             /* lb_startups*ts + lb_injection_bytes*tw */
} xchg_vcost;

/*
 * Cost of schedule s on machine mach with the blocks of c
 * (docs/alltoallv.md): per step, each node's message weighs the bytes of
 * the blocks it sends (xchg_vcounts_messages); a message of 0 bytes is not
 * sent and pays no start-up; a step costs one start-up when some message
 * has bytes, plus its largest message's bytes times tw. Copies are the
 * declared ones, each charged at the summary's copy_block. with_barrier
 * adds mach->barrier per start-up. With every block m bytes this is
 * xchg_cost_compute's time (volume_bytes = volume_blocks*m). The link
 * volume is measured from the routes (xchg_topo_route) when s does not
 * claim to be contention-free on a network with links, as xchg_cost_line
 * measures it in blocks. Returns 0; EINVAL when an argument is NULL, a
 * machine figure is negative or not finite, or c does not fit s (see
 * xchg_vcounts_messages); ENOMEM. out is untouched on failure.
 */
int xchg_cost_vcounts(const xchg_sched *s, const xchg_machine *mach, const xchg_vcounts *c,
                      int with_barrier, xchg_vcost *out, xchg_err *err);

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
    int has_vcost;            /* vcost is filled (xchg_plan_opts.counts) */
    xchg_vcost vcost;         /* its cost on the counts; zero otherwise */
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
    uint32_t ppn;          /* ranks a node (0 or 1: every rank is a node of
                              t). Above 1, t is the network of nodes, p =
                              t->nodes*ppn ranks, and the candidates are the
                              flat algorithms on complete:p hosted ppn to a
                              node (xchg_flat_line), the node-aware
                              variants leader:X, leaders:L:X, pairs:X for
                              every candidate X on t (xchg_hier_line) and
                              aggregate (xchg_aggregate_line);
                              docs/hierarchical.md. Complete exchange only */
    const xchg_vcounts *counts; /* blocks of uneven sizes (NULL: every block
                              m bytes): each candidate is also priced on
                              them (xchg_cost_vcounts, into its vcost) and
                              the candidates are ranked by vcost.link_time
                              instead of their lines. One block size only
                              (lo == hi; no crossovers), the complete
                              exchange, ppn <= 1, t->nodes nodes
                              (docs/alltoallv.md) */
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
/* Node-aware model (clusters: nodes of ppn ranks; docs/hierarchical.md) */
/* ------------------------------------------------------------------ */

/*
 * The time line of a node-aware variant with `leaders` leaders a node
 * (xchg_hier, xchg_core.h: 1 for leader:X, ppn for pairs:X; aggregate,
 * which has no X, is xchg_aggregate_line's) on N =
 * nodes->nodes nodes of K = ppn ranks, from inner, the line of X on the
 * node network (xchg_cost_line or a planner candidate's, on the same
 * machine with the same barrier choice). With G = K/L and p = N*K, in
 * blocks of m bytes:
 *   startups           = inner.startups  (the L lanes of a node start
 *                        their messages side by side, a core each: their
 *                        start-ups overlap, so one lane's are paid)
 *   volume, link volume = K*K * inner's      (L lanes of G*K-block blocks,
 *                        all through the node's one port: bytes do not
 *                        overlap)
 *   copy_blocks        = G*K*inner.copy + pre + mid + post, pre = post =
 *                        G*p when G > 1, mid = G*p when L > 1
 *   node_startups      = 2*(G-1) + (L-1)     (gather, leaders' exchange,
 *                        scatter; one port at each receiver)
 *   node_volume_blocks = 2*(G-1)*p + (L-1)*N*G*G
 *   fixed    = startups*ts (+ inner.startups*barrier) + node_startups*ts_node
 *   per_unit = link_volume*tw + copy*tr + node_volume*tw_node
 *   steps    = inner.steps + node_startups   (those of xchg_hier_generate)
 * Returns 0; EINVAL when an argument is NULL, ppn is 0, leaders does not
 * divide ppn, N*K is over XCHG_MAX_NODES, or a machine figure is negative
 * or not finite. out is untouched on failure.
 */
int xchg_hier_line(const xchg_line *inner, const xchg_topo *nodes, uint32_t ppn,
                   uint32_t leaders, const xchg_machine *mach, int with_barrier,
                   xchg_line *out, xchg_err *err);

/*
 * The time line of aggregate (locality-aware aggregation, no X; xchg_hier,
 * xchg_core.h) on N = nodes->nodes nodes of K = ppn ranks, p = N*K,
 * O = ceil(N/K), in blocks of m (the steps of xchg_hier_generate):
 *   startups   = O, the steps between nodes (O - 1 when K = 1 or N = 1:
 *                then slot distance 0 has no message): each rank sends at
 *                most one message a step, O in all, and the K ranks of a
 *                node start theirs side by side
 *   volume     = (N-1)*K*K, the blocks one node's port sends (and receives)
 *                in the whole exchange: its K ranks' messages are all under
 *                way at once, through the one port
 *   link volume = volume on a network without links (XCHG_LINK_CLAIMED);
 *                else the larger of volume and K*K times the most node
 *                pairs whose shortest route crosses one directed link
 *                (XCHG_LINK_MEASURED; link_conflicts = the links two pairs
 *                or more cross), or volume and XCHG_LINK_UNMEASURED when
 *                N*N*route length is over opts->max_work (0: the
 *                verifier's default) on an array, mesh or tree
 *   copy_blocks = 4*p (0 when p = 1): pack, lay out, pack, unpack
 *   node_startups = 2*(K-1) (K-1 when N = 1: nothing comes from elsewhere)
 *   node_volume_blocks = (K-1)*(O*K + 1) + (K-1)*O*K (K-1 when N = 1)
 *   fixed    = startups*ts (+ startups*barrier) + node_startups*ts_node
 *   per_unit = link_volume*tw + copy*tr + node_volume*tw_node
 *   steps    = startups + node_startups
 * Returns 0; EINVAL when an argument is NULL, ppn is 0, N*K is over
 * XCHG_MAX_NODES, or a machine figure is negative or not finite; ENOMEM.
 * out is untouched on failure.
 */
int xchg_aggregate_line(const xchg_topo *nodes, uint32_t ppn, const xchg_machine *mach,
                        const xchg_line_opts *opts, xchg_line *out, xchg_err *err);

/*
 * The time line of a flat schedule s on p = nodes->nodes*ppn ranks when
 * rank r runs on node r/ppn of the network `nodes` (one port a node). Per
 * step, from the messages: a message between two ranks of one node is an
 * intra-node message (the step's largest such one is charged: node
 * start-up and volume); the others leave their node's port and cross the
 * network along the shortest dimension-ordered route. The step then costs
 * S start-ups, S the most such messages one RANK sends or receives (1 in
 * a one-port schedule when any message leaves its node, else 0: the ppn
 * ranks of a node start theirs side by side, a core each, so their
 * start-ups overlap), and V blocks, V the largest of the blocks one node
 * sends, one node receives and one directed link of the network carries
 * (XCHG_LINK_MEASURED): the bytes of a node's ranks share its one port.
 * So with ppn = 1 and s on `nodes` itself it is xchg_cost_line's measured
 * line. Copies are s's (each rank its own, in parallel). Work
 * p*steps*route length; over opts->max_work (0: the verifier's default)
 * the line is XCHG_LINK_UNMEASURED. Returns 0; EINVAL on NULL arguments,
 * ppn 0, s not on nodes->nodes*ppn nodes, a bad machine; ENOMEM. out is
 * untouched on failure.
 */
int xchg_flat_line(const xchg_sched *s, const xchg_topo *nodes, uint32_t ppn,
                   const xchg_machine *mach, const xchg_line_opts *opts, xchg_line *out,
                   xchg_err *err);

#ifdef __cplusplus
}
#endif

#endif /* XCHG_MODEL_H */
