/*
 * import_internal.h - what the four files of the schedule importer share
 * (xchg_import, docs/export-format.md "Import"): the reader's state, the
 * messages of the step being read, error reporting, and the builder that
 * turns each step read into a step of the schedule.
 *   import.c        xchg_import: picks the format, finishes the schedule;
 *   import_json.c   the JSON format, with a field path for every message;
 *   import_text.c   the text format, line by line;
 *   import_build.c  the builder (checks, replay, the callback rule) and
 *                   error reporting, which the three others call.
 * Calls point one way: import.c -> the readers -> import_build.c.
 */
#ifndef XCHG_IMPORT_INTERNAL_H
#define XCHG_IMPORT_INTERNAL_H

#include "sched/sched_internal.h"
#include "xchg_consumers.h"

#define IMPORT_FORMAT "xchg-schedule/1"

/* ------------------------------------------------------------------ */
/* What a file holds, while it is read                                 */
/* ------------------------------------------------------------------ */

/* One message as read. */
typedef struct xchg_imp_msg {
    uint32_t from, to;
    size_t b0, nb;    /* its blocks: keys[b0 .. b0+nb) */
    size_t line, col; /* where it starts, for messages */
    xchg_seg segs[XCHG_MAX_DIMS];
    int nsegs;
} xchg_imp_msg;

typedef struct xchg_imp_ctx xchg_imp_ctx; /* the built schedule's context (import_build.c) */

/* Which parameters of an operation the file gives (xchg_imp_op.given). */
#define XCHG_IMP_ROOT 1u
#define XCHG_IMP_Q 2u
#define XCHG_IMP_PIECES 4u

/* The schedule's operation, or one of its phases, as read. */
typedef struct xchg_imp_op {
    xchg_op op;
    unsigned given;   /* XCHG_IMP_* */
    size_t first;     /* a phase: its first step (0-based) */
    size_t line, col; /* where it is given, for messages */
} xchg_imp_op;

/* The reader's state. */
typedef struct xchg_imp_reader {
    const char *s;
    size_t len, pos, line, col;
    char path[160]; /* JSON: the field being read */
    int json;       /* reading the JSON form */
    xchg_err *err;
    int rc; /* first error */
    uint64_t max_bytes;
    /* the document */
    int have_format, have_topo, have_nodes, have_alg;
    xchg_topo topo;
    uint32_t p;
    char alg[96];
    int have_op;           /* "operation" given (else the complete exchange) */
    xchg_imp_op op;
    xchg_imp_op phases[XCHG_MAX_PHASES];
    size_t nphases;        /* 0: one phase, op over every step */
    size_t replay_phase;   /* the phase the replay is in */
    uint64_t *copies; /* per step, or NULL */
    size_t ncopies, copies_cap;
    /* the current step */
    xchg_imp_msg *msgs;
    size_t nmsgs, msgs_cap;
    uint64_t *keys; /* blocks listed in the step */
    size_t nkeys, keys_cap;
    /* replay */
    uint32_t *holder; /* p*p */
    uint64_t *tmp;    /* sizing a message: its keys dest-major */
    size_t tmp_cap;
    struct xchg_imp_set *sets; /* sizing a message: its dests' origin sets */
    size_t sets_cap;
    /* what is built */
    xchg_sched *sched;
    xchg_imp_ctx *ctx;
    size_t steps_cap;
} xchg_imp_reader;

/* Record the first error, at line and column (and the JSON field in
 * r->path): fmt takes two strings, a and b (NULL prints nothing). Returns
 * the error code, XCHG_EINVAL (or the earlier error). */
XCHG_INTERNAL int xchg_imp_fail_at(xchg_imp_reader *r, size_t line, size_t col, const char *fmt,
                                   const char *a, const char *b);
/* The same at the reader's position. */
XCHG_INTERNAL int xchg_imp_fail(xchg_imp_reader *r, const char *fmt, const char *a, const char *b);
/* Record running out of memory; returns XCHG_ENOMEM (or the earlier error). */
XCHG_INTERNAL int xchg_imp_oom(xchg_imp_reader *r);
/* Grow *arr (n elements of size sz) to hold n+1; 0 or the error. */
XCHG_INTERNAL int xchg_imp_grow(xchg_imp_reader *r, void **arr, size_t *cap, size_t n, size_t sz);

/* The builder (import_build.c). begin_steps: the head is read (topology, nodes):
 * check it and set up the replay and the schedule. add_block: a listed
 * block of message m. check_nodes: m's two nodes. finish_step: the step
 * read is complete: check it (one message a sender, one route policy,
 * every block held by its sender and listed once), replay it and add it.
 * good_name: name can name an algorithm in both formats. Each returns 0
 * or the error (good_name: nonzero when good). */
XCHG_INTERNAL int xchg_imp_begin_steps(xchg_imp_reader *r, size_t line, size_t col);
XCHG_INTERNAL int xchg_imp_add_block(xchg_imp_reader *r, xchg_imp_msg *m, uint64_t o, uint64_t d,
                                     size_t line, size_t col);
XCHG_INTERNAL int xchg_imp_check_nodes(xchg_imp_reader *r, const xchg_imp_msg *m);
XCHG_INTERNAL int xchg_imp_finish_step(xchg_imp_reader *r);
XCHG_INTERNAL int xchg_imp_good_name(const char *name);

/* The operation o read at o->line, o->col (field: the JSON field, e.g.
 * "operation" or "phases[1]", or NULL in text) fits the topology: the
 * parameters its kind takes and no other (root for bcast, reduce, scatter
 * and gather; q for shift), pieces >= 1, and xchg_op_check. 0 or the
 * error. */
XCHG_INTERNAL int xchg_imp_check_op(xchg_imp_reader *r, const xchg_imp_op *o, const char *field);
/* Add phase o (its first step set) after the ones read; 0 or the error
 * (more than XCHG_MAX_PHASES). */
XCHG_INTERNAL int xchg_imp_add_phase(xchg_imp_reader *r, const xchg_imp_op *o);

/* Release what the reader and the builder hold, the schedule being built
 * too unless r->sched was taken (set to NULL) (import_build.c). */
XCHG_INTERNAL void xchg_imp_free(xchg_imp_reader *r);

/* The two formats: read all of r's text; 0 or the error. */
XCHG_INTERNAL int xchg_imp_read_json(xchg_imp_reader *r);
XCHG_INTERNAL int xchg_imp_read_text(xchg_imp_reader *r);

#endif
