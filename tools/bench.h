/*
 * bench.h - what the files of xchg-bench share (xchg_bench.c says what the
 * program times and how): its command line (bench_args.c, one table of
 * options; bench_rules.c, what is accepted across options), the data
 * pattern that validates every call (bench_data.c), the timing of one
 * size (bench_time.c) and the table and JSON it prints (bench_print.c).
 */
#ifndef XCHG_BENCH_H
#define XCHG_BENCH_H

#include <stddef.h>
#include <stdint.h>

#include <mpi.h>

#include "tool_usage.h"
#include "xchg.h"
#include "xchg_mpi.h"

#define BENCH_NAME "xchg-bench"
/* Sizes above this many bytes use the large iteration and warm-up counts
 * (osu_alltoall's LARGE_MESSAGE_SIZE, osu_util.h). */
#define LARGE_MESSAGE_SIZE ((size_t)8192)

enum {
    BENCH_EXIT_OK = 0,
    BENCH_EXIT_INVALID = 1, /* a validation failed */
    BENCH_EXIT_USAGE = XCHG_TOOL_USAGE,
    BENCH_EXIT_MPI = 3 /* an MPI call failed */
};

/* Everything the command line sets. */
typedef struct bench_args {
    size_t min_size, max_size;
    long iters, warmup, iters_large, warmup_large;
    size_t mem_limit;
    int full, validate, in_place, json, verbose;
    int pair;        /* --pair: the MPI library's call timed too, interleaved */
    double min_time; /* --min-time: seconds of timed calls per size at least (0: off) */
    const char *alg;  /* "auto", "mpi" or a registry spec */
    const char *topo; /* NULL or "auto" or a topology spec */
    const char *tuning, *machine; /* auto's files (NULL: XCHG_TUNING_FILE,
                                     XCHG_MACHINE_FILE, or none) */
    xchg_op_kind op;              /* --op, default the exchange */
    int root, q;                  /* --root (bcast, reduce, gather, scatter), --q (shift) */
    /* --op, --root and --q as given (NULL: not given), read by bench_rules
     * once every option is known */
    const char *op_text, *root_text, *q_text;
    /* --op alltoallv (1) or alltoallw (2): op is then the exchange; 0 for
     * the others. --counts: the named distribution of the blocks (NULL
     * given none: uniform), --seed its seed (as text until the rules) */
    int vexchange;
    const char *counts, *seed_text;
    uint64_t seed;
} bench_args;

/* One row's figures. */
typedef struct bench_row {
    size_t bytes;
    long iters;
    double avg_us, min_us, max_us;
    double mpi_avg_us, ratio; /* --pair: the library's Avg, and avg_us / it */
    double med_us, mpi_med_us, med_ratio; /* --pair: the same of each rank's median call */
    double pair_ratio; /* --pair: each rank's median of its calls' ratios, one per iteration */
    int checked, valid;
    xchg_mpi_plan_info info; /* alg "mpi" for --alg mpi */
    int have_info;
} bench_row;

/* A reduction's input pattern: element k of a rank's vector in one call
 * is a function of these two words (bench_data.c). */
typedef struct red_coef {
    uint32_t a, b;
} red_coef;

/* What every size of a run shares: the arguments, the communicators, this
 * rank's buffers (sized for the largest block; sbuf NULL in place) and p
 * entries of scratch for checking reductions. */
typedef struct bench_job {
    const bench_args *a;
    MPI_Comm comm, shift_comm; /* shift_comm: the MPI library's shift, or MPI_COMM_NULL */
    int rank, p;
    unsigned char *sbuf, *rbuf;
    size_t rbytes; /* the size of rbuf */
    red_coef *coefs;
} bench_job;

/* One size's MPI_Alltoallv or MPI_Alltoallw call (bench_v.c): this
 * rank's counts and displacements (bytes, int), every peer's type
 * (MPI_BYTE), its buffers. */
typedef struct bench_v {
    int *sc, *sd, *rc, *rd;
    MPI_Datatype *types;
    unsigned char *s, *r;
    size_t sbytes, rbytes;
} bench_v;

/* bench_v.c: the operation's names as --op, MPI and the header say them
 * (alltoallv and alltoallw beside the registry's operations). */
const char *bench_op_name(const bench_args *a);
const char *bench_op_mpi_name(const bench_args *a);
const char *bench_op_title(const bench_args *a);

/* bench_v.c: the call of size m (the mean block) from --counts, into *v:
 * BENCH_EXIT_OK, or an exit code after saying why (rank 0 for usage). */
int bench_v_make(const bench_job *job, size_t m, bench_v *v);
void bench_v_free(bench_v *v);
/* One call: the MPI library's (is_mpi) or xchg's with opts. */
int bench_v_call(const bench_job *job, const bench_v *v, int is_mpi, const xchg_mpi_opts *opts);
/* -c: fill the send blocks of call `call` and spoil the receive buffer;
 * check what arrived: the number of wrong blocks (the first on stderr). */
void bench_v_fill(const bench_job *job, const bench_v *v, size_t m, long call);
long bench_v_check(const bench_job *job, const bench_v *v, size_t m, long call);

/* bench_data.c: one block's pattern (origin -> dest, size m, call), n
 * bytes of it at b; the first byte of b that differs from it, or n. */
void bench_block_fill(unsigned char *b, size_t n, int origin, int dest, size_t m, long call);
size_t bench_block_check(const unsigned char *b, size_t n, int origin, int dest, size_t m,
                         long call);

/* bench_args.c: parse argv into *a (rank 0 prints help, version and
 * errors). 0; BENCH_EXIT_USAGE after saying what was wrong; -1 when
 * --help or --version was answered (exit 0). */
int bench_parse_args(int argc, char **argv, int rank, bench_args *a);
/* A whole decimal count in [lo, hi] (no sign): 0 and *out, or -1. */
int bench_parse_long(const char *s, long lo, long hi, long *out);

/* bench_rules.c: the checks across options, against the job's nprocs ranks
 * and the registry; sets a->op, root and q from their text and lowers
 * max_size to fit mem_limit (with a warning). 0, or BENCH_EXIT_USAGE after
 * saying what was wrong and what is accepted. */
int bench_rules(bench_args *a, int nprocs);

/* bench_data.c: fill buf with this rank's (me's) blocks for each of p
 * destinations, m bytes each, in call `call`. */
void bench_fill_blocks(unsigned char *buf, int me, int p, size_t m, long call);
/* Fill this rank's inputs of call `call` at m bytes (count elements) and
 * spoil its outputs, so a result left over or never written is caught. */
void bench_fill(const bench_job *job, size_t m, size_t count, long call);
/* Check this rank's outputs of call `call` against the operation's
 * definition, recomputed here: the number of wrong blocks or elements; the
 * first is described on stderr. */
long bench_check(const bench_job *job, size_t m, size_t count, long call);

/* bench_time.c: time one size m (count elements) on every rank and fill
 * *row. Stops the job on an MPI failure (exit 3) or, after saying why,
 * when xchg has no plan for the size (exit 2). */
void bench_run_size(const bench_job *job, size_t m, size_t count, bench_row *row);

/* bench_print.c (rank 0): the header before the first row; a "# plan"
 * line when the plan differs from prev's (prev NULL: the first row); a
 * row of the table; a row as one JSON object. */
void bench_print_header(const bench_args *a, int p);
void bench_print_plan_line(const bench_args *a, const bench_row *r, const bench_row *prev);
void bench_print_row(const bench_args *a, const bench_row *r);
void bench_print_json(const bench_args *a, int p, const bench_row *r);

/* xchg_bench.c: leave MPI and the program with status code on every rank. */
void bench_finish(int code);

#endif
