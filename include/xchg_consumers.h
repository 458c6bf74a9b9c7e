/*
 * xchg_consumers.h - the consumers of schedules in xchg's public API, the
 * top layer: the event-driven network simulator, export and import of the
 * xchg-schedule/1 format, step diagrams and plots (SVG).
 *
 * Includes xchg_model.h (and through it xchg_core.h): the simulator runs on
 * the model's machines and sets its prediction beside the cost model's.
 * Not xchg_rank.h: no consumer runs one rank's program. The library's sim,
 * export and draw layers see it (docs/architecture.md, "The public
 * headers").
 */
#ifndef XCHG_CONSUMERS_H
#define XCHG_CONSUMERS_H

#include "xchg_model.h"

#ifdef __cplusplus
extern "C" {
#endif

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
    /* Blocks of uneven sizes (docs/alltoallv.md), indexed by the schedule's
     * nodes; NULL: every block m bytes. A message then takes the bytes of
     * its blocks (xchg_vcounts_messages) times tw instead of blocks*m*tw,
     * one of 0 bytes is not sent, and copies are charged at the counts'
     * copy_block (xchg_vcounts_summary) instead of m; m is not read. The
     * complete exchange only, as many nodes as the schedule. */
    const xchg_vcounts *counts;
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
                              (xchg_cost_compute, with the same barrier;
                              with counts, xchg_cost_vcounts's time) */
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
 * the cost model's. Memory: the network, and the messages in flight (with
 * opts->counts, also every message's bytes: steps*p numbers).
 * Returns 0; EINVAL on NULL arguments, a negative or non-finite m or
 * machine parameter or th, an unknown mode, a network of another size, a
 * map that is not a permutation, counts that do not fit the schedule;
 * ENOMEM. report is untouched on failure.
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

#endif /* XCHG_CONSUMERS_H */
