/*
 * verify_internal.h - what the verifier's two files share: verify.c (the
 * complete exchange, and every schedule's message checks) and verify_op.c
 * (the public xchg_verify, which sends a schedule to verify.c or, for the
 * other operations, follows their tokens after verify.c's message checks).
 * Calls point one way, from verify_op.c to verify.c.
 */
#ifndef XCHG_VERIFY_INTERNAL_H
#define XCHG_VERIFY_INTERNAL_H

#include "base/util.h"
#include "xchg_model.h"

/* Append a failure message to the report when there is room. */
XCHG_INTERNAL void xchg_verify_note(xchg_verify_report *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* xchg_verify for a complete exchange, and the message checks alone
 * (opts->messages_only) for a schedule of any operation (verify.c). s and
 * report are not NULL and s has nodes. Same returns as xchg_verify. */
XCHG_INTERNAL int xchg_verify_exchange(const xchg_sched *s, const xchg_verify_opts *opts,
                                       xchg_verify_report *report, xchg_err *err);

#endif /* XCHG_VERIFY_INTERNAL_H */
