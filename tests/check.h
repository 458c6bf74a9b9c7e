/*
 * check.h - the tests' assertion helpers: count checks, print each failure
 * with file and line, and end with "N passed, N failed".
 */
#ifndef XCHG_CHECK_H
#define XCHG_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "xchg.h"

void check_record(int ok, const char *file, int line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* Print the summary line and return the exit status for main(). */
int check_finish(const char *suite);

/* CHECK(cond, "what, with %d values", ...): one check. */
#define CHECK(cond, ...) check_record(!!(cond), __FILE__, __LINE__, __VA_ARGS__)
/* CHECK_EQ_U64(actual, expected, "what"): prints both values on failure. */
#define CHECK_EQ_U64(a, b, what)                                                     \
    do {                                                                             \
        uint64_t check_a_ = (uint64_t)(a), check_b_ = (uint64_t)(b);                 \
        check_record(check_a_ == check_b_, __FILE__, __LINE__, "%s: got %llu, want %llu", \
                     (what), (unsigned long long)check_a_, (unsigned long long)check_b_); \
    } while (0)

/* Parse a topology spec the test needs (a failed check when it is bad). */
xchg_topo check_topo(const char *spec);

/* A document gathered through an xchg_write_fn (check_doc_write), for the
 * tests of the writers (draw, plot) to read back; zero-initialise it and
 * free buf when done. fail_after > 0 makes that call of the callback fail
 * (returns 7), to test how a writer handles a failed write. */
typedef struct check_doc {
    char *buf;
    size_t len, cap;
    int fail_after, calls;
} check_doc;

/* xchg_write_fn appending to the check_doc ctx (buf stays NUL-terminated). */
int check_doc_write(void *ctx, const char *data, size_t len);

/* Occurrences of needle in the document. */
size_t check_doc_count(const check_doc *d, const char *needle);

/* Generate alg (a spec, "bruck:3") on topology tspec, expecting success:
 * the schedule (the caller frees it), or NULL and a failed check. */
xchg_sched *check_generate(const char *tspec, const char *alg);

/* A machine named "test" with start-up ts and per-byte tw, nothing else
 * (units us). */
xchg_machine check_machine(double ts, double tw);

/* Verify s on one thread, checking the call ran; its report (ok 0 when
 * the verifier could not run). The checks themselves are the caller's. */
xchg_verify_report check_verify(const xchg_sched *s);

/* Verify s block by block on every core and check that it passed every
 * check (delivered, sizes, one port, routes, no link conflict) and claims to
 * be contention-free; `what` names the case in failure messages. Fills *rep
 * (zeroed when the verifier cannot run) and returns xchg_verify's status. */
int check_verify_clean(const xchg_sched *s, const char *what, xchg_verify_report *rep);

/* Called by check_each_schedule with one generated schedule, which is freed
 * after the call returns. */
typedef void (*check_schedule_fn)(const char *alg_spec, const char *topo_spec,
                                  const xchg_topo *t, xchg_sched *s, void *ctx);

/* For every registry algorithm of the complete exchange on topo_spec, and
 * each of its variants (or the bare name when it has none), generate the
 * schedule and, where that succeeds (the algorithm applies), call fn.
 * Returns how many ran. */
int check_each_schedule(const char *topo_spec, check_schedule_fn fn, void *ctx);
/*
 * Hold spec on tspec to a slide's formula t_s a + t_w m b: the verifier
 * passes (and, when free, finds no link carrying two messages) and counts a
 * start-ups and `blocks` blocks (b times p for a -split algorithm, whose
 * blocks are m/p); the cost model gives a with ts = 1, tw = 0 and b*m with
 * ts = 0, tw = 1; the simulator equals the model when the schedule is
 * contention-free, and the time respects the lower bound. Returns 1 when
 * spec was generated (0, and a failed check, when not).
 */
int check_slide_cost(const char *tspec, const char *spec, int free, double a, double b,
                     double blocks);

/* The same for the registry algorithms of the other operations (bcast,
 * reduce, ...; docs/operations.md), with their default root and q. */
int check_each_op_schedule(const char *topo_spec, check_schedule_fn fn, void *ctx);

#endif /* XCHG_CHECK_H */
