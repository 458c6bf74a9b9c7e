/*
 * verify_internal.h - what the verifier's two files share: verify.c (the
 * complete exchange, and every schedule's message checks) and verify_op.c
 * (the other operations' tokens).
 */
#ifndef XCHG_VERIFY_INTERNAL_H
#define XCHG_VERIFY_INTERNAL_H

#include "base/util.h"

/* Append a failure message to the report when there is room. */
XCHG_INTERNAL void xchg_verify_note(xchg_verify_report *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* xchg_verify for a schedule whose operation is not the complete exchange:
 * the message checks in messages-only mode, then every token followed and
 * every message's size counted with the operation's sizing. Same returns
 * as xchg_verify. */
XCHG_INTERNAL int xchg_verify_op(const xchg_sched *s, const xchg_verify_opts *opts,
                                 xchg_verify_report *report, xchg_err *err);

#endif /* XCHG_VERIFY_INTERNAL_H */
