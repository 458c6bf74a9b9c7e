/*
 * cli.h - what the xchg command-line tool's files share: the option table
 * and its parser, the common options (--topo, --alg, --machine, --ts, --tw,
 * --tr, --a, --m, --json), error printing, and small JSON writers.
 *
 * The tool uses only the public API in xchg.h. Every error goes to stderr
 * as "xchg: <what was wrong>; <what is accepted>" before anything is
 * written to stdout, and the command returns the exit status:
 *   0 ok, 1 a verification failed, 2 bad usage or input, 3 internal error.
 */
#ifndef XCHG_CLI_H
#define XCHG_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "tool_json.h"
#include "xchg.h"

/* Exit statuses. */
enum {
    XCHG_CLI_OK = 0,
    XCHG_CLI_FAILED = 1,   /* a check failed (verify) */
    XCHG_CLI_USAGE = 2,    /* bad usage or input */
    XCHG_CLI_INTERNAL = 3  /* a library invariant failed: a bug */
};

/*
 * One long option of a subcommand. Tables end with a NULL name. meta is the
 * name of the value ("T", "BYTES") for options that take one, NULL for
 * flags. The parser fills value and seen.
 */
typedef struct xchg_cli_opt {
    const char *name;  /* without the leading "--" */
    const char *meta;  /* value placeholder, or NULL for a flag */
    const char *value; /* the value given (points into argv) */
    int seen;
} xchg_cli_opt;

/*
 * Parse argv[0..argc) (the words after the subcommand) against opts.
 * Accepts "--name value" and "--name=value". Returns 0, or prints the
 * problem (unknown option, missing value, value given to a flag, option
 * given twice, stray argument) and returns XCHG_CLI_USAGE.
 */
int xchg_cli_parse(const char *cmd, int argc, char **argv, xchg_cli_opt *opts);

/* True when argv holds "--help" or "-h" (checked before parsing so that
 * "xchg CMD --help" works whatever else is on the line). */
int xchg_cli_wants_help(int argc, char **argv);

/* The option named name in opts (it must be in the table). */
xchg_cli_opt *xchg_cli_get(xchg_cli_opt *opts, const char *name);
/* Its value when given, else NULL. */
const char *xchg_cli_val(xchg_cli_opt *opts, const char *name);
/* Nonzero when the option was given. */
int xchg_cli_has(xchg_cli_opt *opts, const char *name);

/* Print "xchg: <formatted message>" and a newline on stderr; returns
 * XCHG_CLI_USAGE so callers can write `return xchg_cli_error(...)`. */
int xchg_cli_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* Report a failed library call: prints "xchg: <what>: <library message>"
 * and returns the exit status for rc (2 for bad or too-big input and out of
 * memory, 3 for XCHG_EINTERNAL). */
int xchg_cli_lib_error(int rc, const char *what, const xchg_err *err);

/* Require option name (prints "--name is required" with an example). */
int xchg_cli_require(xchg_cli_opt *opts, const char *name, const char *cmd);

/* Parse --topo into *t; returns 0 or an exit status after printing. */
int xchg_cli_topo(xchg_cli_opt *opts, const char *cmd, xchg_topo *t);

/* The operation of --op NAME (default alltoall) with --root R and --q Q
 * (checked against p nodes) into *op; 0, or exit status 2 after the
 * message. --root needs a rooted operation, --q a shift. */
int xchg_cli_op(xchg_cli_opt *opts, uint32_t p, xchg_op *op);

/*
 * Parse a finite number in [lo, hi] (in (lo, hi] when lo_open) given to
 * option opt (named in the message). Rejects empty text, spaces, trailing
 * text, hex, nan and inf. Returns 0 or XCHG_CLI_USAGE after printing.
 */
int xchg_cli_number(const char *opt, const char *s, double lo, double hi, int lo_open,
                    double *out);

/* Whole decimal unsigned integer in [lo, hi] (no sign, no spaces). */
int xchg_cli_uint(const char *opt, const char *s, uint64_t lo, uint64_t hi, uint64_t *out);

/* Largest accepted --ts/--tw/--tr/--a and block size (--m, --sweep;
 * beyond them the predicted times leave the range where doubles are exact
 * enough). A model's block size is a real number, not a buffer to
 * allocate: fractions (a flit under --a, 0.0625) and exponents (1e15) are
 * meant, so --m and --sweep read decimals here and not the tools' byte
 * counts with K/M/G/T suffixes (tool_size.h). */
#define XCHG_CLI_MAX_PARAM 1e12
#define XCHG_CLI_MAX_M 1e15

/*
 * Parse a range of block sizes given to option opt: "MIN:MAX", or "N" for
 * N:N; decimal numbers with 0 < MIN <= MAX <= XCHG_CLI_MAX_M. The one
 * range parser: compare's --m and plan's --sweep both use it, so they
 * accept the same and say so in the same words. Returns 0, or
 * XCHG_CLI_USAGE after printing what was wrong and what is accepted.
 */
int xchg_cli_range(const char *opt, const char *s, double *lo, double *hi);

/* Block size m as text: the shortest of %.15g and %.17g that reads back
 * as m (so 65536 stays "65536" and sizes round-trip). Returns buf. */
const char *xchg_cli_size(double m, char *buf, size_t len);

/*
 * The machine from --machine NAME, or --ts S --tw W [--tr R] (custom, us),
 * or --a A (ts = A, tw = 1 per flit, tr = 0, units t_c: Suh et al.'s
 * a = t_s/t_c); paragon when none is given. opts must hold all five names.
 * nodes is the topology size (the presets' barrier depends on it).
 * Returns 0 or an exit status after printing.
 */
int xchg_cli_machine(xchg_cli_opt *opts, uint32_t nodes, xchg_machine *out);

/* Read the machine file at path (docs/machine-file.md) into *out: 0, or exit
 * status 2 after printing what is wrong (no such file, not a preset either,
 * or the line of the file that is bad). */
int xchg_cli_machine_file(const char *path, xchg_machine *out);

/* Read all of path into a new buffer (*buf, the caller frees it; *len
 * bytes, not NUL-terminated), refusing files above max bytes. opt names the
 * option in messages. 0, or exit status 2 after printing why. */
int xchg_cli_read_file(const char *opt, const char *path, size_t max, char **buf, size_t *len);

/* A new temporary file beside path, named PATH.tmp.XXXXXX (*tmp: its name,
 * the caller frees it and renames or unlinks the file), opened for writing
 * with the usual 0666 less umask, so a file is replaced only when it was
 * written whole. NULL (and *tmp NULL) after saying why, naming opt, on
 * failure. */
FILE *xchg_cli_tmp_beside(const char *path, const char *opt, char **tmp);

/* --m (default 1024 bytes), as cost and sim take it; 0 or an exit status
 * after printing. */
int xchg_cli_block_size(xchg_cli_opt *opts, double *m);

/* --- uneven block sizes (--counts; docs/alltoallv.md) ------------- */

/*
 * The count matrix of --counts FILE|uniform|random:X|hot:R[:F]|sparse:F
 * (and --seed N, default 1, for random and sparse) for t's nodes: *out a
 * new matrix (the caller frees it), or NULL when --counts is not given. A
 * named distribution takes m as its block size; a FILE must have t->nodes
 * lines of as many numbers, and refuses --m (it gives every size). desc
 * (len bytes) names them for printing: "sparse:0.25 (m = 1024, seed 1)",
 * "file 'x.txt'". Refused when the matrix (p*p*8 bytes) is over
 * --max-memory. opts must hold "counts", "seed", "m", "max-memory" and
 * "max-work". 0, or exit status 2 after printing what is wrong and what is
 * accepted.
 */
int xchg_cli_counts(xchg_cli_opt *opts, const xchg_topo *t, double m, xchg_vcounts **out,
                    char *desc, size_t len);

/* 0 when weighing the blocks of a schedule of `steps` steps on t with
 * counts (p*p*steps block-steps) is within --max-work; else exit status 2
 * after saying so (opts must hold "max-work" and "max-memory"). */
int xchg_cli_counts_work(xchg_cli_opt *opts, const xchg_topo *t, uint64_t steps);

/* cli_counts.c: the one-line description of counts c named desc, after
 * lead ("counts        " or "# counts "), in unit ("B" or "flits"). */
void xchg_cli_counts_describe(const char *lead, const char *desc, const xchg_vcounts *c,
                              const char *unit);

/* What plan and compare print with --counts (cli_counts.c): every
 * candidate of sw priced on the counts (xchg_plan_entry.vcost), fastest
 * first, the lower bounds and the best; as text, or with json one JSON
 * line per candidate (type `type`: "candidate" or "algorithm") and a
 * "best" line. note, when not NULL, writes a last column per candidate
 * (compare's verification) into buf. cmd names the command in the title. */
void xchg_cli_counts_ranking(const char *cmd, const xchg_topo *t, const xchg_machine *mach,
                             const char *desc, const xchg_vcounts *c, const xchg_sweep *sw,
                             int json, const char *type,
                             const char *(*note)(const xchg_plan_entry *e, char *buf,
                                                 size_t len));

/*
 * cli_schedule.c: what a command runs on. xchg_cli_input reads --topo T and
 * --alg A, or --schedule FILE (with an optional --topo that must be the
 * file's): sets *t, and *file_s to the file's schedule (imported, and
 * verified when verify_first: exit status 1 when it fails) or NULL.
 * xchg_cli_schedule then gives the schedule: the file's, or --alg's,
 * generated after its estimate (*est) is held to the limits; for a file,
 * *est holds only its step count. opts must hold "topo", "alg",
 * "schedule", "max-memory" and "max-work". 0 or an exit status after
 * printing.
 */
int xchg_cli_input(xchg_cli_opt *opts, const char *cmd, int verify_first, xchg_topo *t,
                   xchg_sched **file_s);
int xchg_cli_schedule(xchg_cli_opt *opts, const char *cmd, const xchg_topo *t,
                      xchg_sched *file_s, xchg_estimate *est, xchg_sched **out);

/* Print the library's message about --alg alg_spec (unknown, does not
 * apply, too large) and return the exit status for code rc. */
int xchg_cli_alg_error(int rc, const char *alg_spec, const xchg_err *err);

/* Generate alg_spec on t; returns 0 or an exit status after printing the
 * library's message. The caller frees *out. */
int xchg_cli_generate(const xchg_topo *t, const char *alg_spec, xchg_sched **out);

/* --- ranks a node (cli_ppn.c; docs/hierarchical.md) ---------------- */

/* --ppn K into *ppn (1 when not given): a whole number from 1, with
 * t->nodes*K at most XCHG_MAX_NODES ranks, and above 1 only with the
 * complete exchange (op). 0, or exit status 2 after printing. */
int xchg_cli_ppn(xchg_cli_opt *opts, const xchg_topo *t, xchg_op_kind op, uint32_t *ppn);

/* What --alg spec is with ppn ranks a node: 1 for a flat algorithm; 0
 * for a node-aware variant, with *h and its inner algorithm X on t in
 * inner (len bytes; auto resolved by the planner at block size m; "" for
 * aggregate, h->aggregate set); or an exit status after printing. */
int xchg_cli_ppn_variant(const xchg_topo *t, uint32_t ppn, const xchg_machine *mach, double m,
                         int barrier, const char *spec, xchg_hier *h, char *inner, size_t len);

/* `xchg cost --ppn K`: --alg (flat, leader:X, leaders:L:X, pairs:X, aggregate) on
 * t's nodes of ppn ranks, printed as text or --json. An exit status. */
int xchg_cli_cost_ppn(xchg_cli_opt *opts, const xchg_topo *t, uint32_t ppn,
                      const xchg_machine *mach, double m, int barrier);

/* --- limits (cli_limits.c) ---------------------------------------- */

/* What a command that builds schedules may spend (docs/limits.md). */
typedef struct xchg_cli_limits {
    uint64_t max_bytes;  /* --max-memory BYTES (default XCHG_DEFAULT_MAX_BYTES) */
    uint64_t max_work;   /* --max-work W: operations to build a schedule, and
                            the checks' work (default XCHG_VERIFY_DEFAULT_MAX_WORK) */
} xchg_cli_limits;

/* Read --max-memory and --max-work (opts must hold both names); 0 or an
 * exit status after printing. */
int xchg_cli_limits_get(xchg_cli_opt *opts, xchg_cli_limits *out);

/* Estimate alg_spec on t (xchg_estimate_spec); 0 or an exit status after
 * printing the library's message (unknown name, does not apply). */
int xchg_cli_estimate(const xchg_topo *t, const char *alg_spec, xchg_estimate *est);

/* 0 when building est's schedule, plus check_bytes for what the command
 * does with it (check_what names it: "the verifier's counts"), fits lim;
 * else prints the estimate, the limit and the flag that raises it for
 * command cmd, and returns XCHG_CLI_USAGE. */
int xchg_cli_within(const char *cmd, const xchg_topo *t, const char *alg_spec,
                    const xchg_estimate *est, const xchg_cli_limits *lim,
                    uint64_t check_bytes, const char *check_what);


/* For a command that builds --alg on t and keeps nothing else big (cost,
 * sim): read the limits, estimate (into *est), and refuse what is over
 * them. 0 or an exit status after printing. */
int xchg_cli_check_build(xchg_cli_opt *opts, const char *cmd, const xchg_topo *t,
                         xchg_estimate *est);

/* --- progress (cli_progress.c) ------------------------------------- */

/* A progress bar for one piece of long work. */
typedef struct xchg_cli_progress {
    const char *what;    /* shown before the bar */
    double start, last;  /* when the work began, when last drawn */
    double after;        /* seconds before the bar appears */
    int on;              /* stderr is a terminal */
    int drawn;           /* something is on the line */
} xchg_cli_progress;

/* Start: 0, or an exit status after printing (a bad XCHG_PROGRESS_AFTER). */
int xchg_cli_progress_start(xchg_cli_progress *pr, const char *what);
/* The library's progress hook (xchg_progress_fn); ctx is the bar. */
void xchg_cli_progress_hook(void *ctx, double done);
/* Erase the bar if it was drawn. */
void xchg_cli_progress_end(xchg_cli_progress *pr);

/* Nonzero when a planner candidate has no time line: it could not be
 * built (XCHG_CHECK_ERROR) or was skipped as too large (XCHG_CHECK_SKIPPED);
 * its `why` says which. */
int xchg_cli_no_line(const xchg_plan_entry *e);

/* Where a time line's link volume comes from (XCHG_LINK_*), as compare and
 * plan print it: "claimed", "measured", "not measured". */
const char *xchg_cli_link_source(int source);

/* Monotonic wall-clock seconds. */
double xchg_cli_now(void);

/* JSON writers (strings: xchg_tool_json_str, tool_json.h): a number
 * (finite ones as %.10g, anything else as null); a block size, exactly
 * (xchg_cli_size); a uint64. */
void xchg_cli_json_num(FILE *f, double v);
void xchg_cli_json_size(FILE *f, double m);
void xchg_cli_json_u64(FILE *f, uint64_t v);
/* The machine's fields of a JSON object: ,"machine":..,"units":..,"ts":..,
 * "tw":..,"tr":.. */
void xchg_cli_json_machine(FILE *f, const xchg_machine *mach);
/* A variable-block cost's fields: ,"startups" .. ,"link_time"; with full
 * also "max_node_messages" and "copy_blocks" (xchg cost's own object). */
void xchg_cli_json_vcost(FILE *f, const xchg_vcost *v, int full);

/* --- pictures (cli_picture.c) ------------------------------------- */

/* Draws one picture as SVG through write (xchg_draw_step, xchg_plot_write);
 * returns the library's status. */
typedef int (*xchg_cli_picture_fn)(void *arg, xchg_write_fn write, void *ctx, xchg_err *err);

/*
 * The format of a picture to be written to path: --format's value ("svg"
 * or "png"), or when format is NULL path's extension (.png: PNG, anything
 * else SVG). *png gets 1 for PNG. PNG needs rsvg-convert in PATH, checked
 * here so a command fails before its work. 0, or exit status 2 after
 * printing.
 */
int xchg_cli_picture_format(const char *format, const char *path, int *png);

/*
 * Write the picture fn(arg) draws to path ("-": stdout) as SVG, or as PNG
 * (rsvg-convert on the SVG) when png; under a temporary name renamed over
 * path only when everything succeeded. opt names the option that gave path
 * ("--output", "--plot") and what the library call ("draw") in messages.
 * 0 or an exit status after printing.
 */
int xchg_cli_picture_write(const char *path, const char *opt, int png, const char *what,
                           xchg_cli_picture_fn fn, void *arg);

/* --- compare --sim (compare_sim.c) --------------------------------- */

/* Simulate every candidate of sw that has a line and did not fail, at every
 * size of the sweep: *out gets ncandidates*nsizes times (candidate-major;
 * NaN where none), freed by the caller. Draws bar as it goes. 0 or an exit
 * status after printing. */
int xchg_cli_compare_sim(const xchg_topo *t, const xchg_machine *mach, const xchg_sweep *sw,
                         xchg_cli_progress *bar, double **out);
/* The eligible candidate of least simulated time at size k (ties: the
 * earlier), or XCHG_NO_WINNER. */
size_t xchg_cli_sim_best(const xchg_sweep *sw, const double *sim, size_t k);

/* The subcommands: argv holds the words after the subcommand name. */
int xchg_cli_list(int argc, char **argv);
int xchg_cli_verify(int argc, char **argv);
int xchg_cli_cost(int argc, char **argv);
int xchg_cli_export(int argc, char **argv);
int xchg_cli_compare(int argc, char **argv);
int xchg_cli_plan(int argc, char **argv);
int xchg_cli_sim(int argc, char **argv);
int xchg_cli_draw(int argc, char **argv);
int xchg_cli_plot(int argc, char **argv);
int xchg_cli_probe(int argc, char **argv);
int xchg_cli_tune(int argc, char **argv);

/* Their --help texts. */
extern const char xchg_cli_list_help[];
extern const char xchg_cli_verify_help[];
extern const char xchg_cli_cost_help[];
extern const char xchg_cli_export_help[];
extern const char xchg_cli_compare_help[];
extern const char xchg_cli_plan_help[];
extern const char xchg_cli_sim_help[];
extern const char xchg_cli_draw_help[];
extern const char xchg_cli_plot_help[];

#endif /* XCHG_CLI_H */
