/*
 * util.h - the base layer's helpers, shared by every module of the library:
 * the XCHG_INTERNAL marker that hides a symbol from the shared library,
 * error messages, strict number parsing, the processor count and a clock.
 */
#ifndef XCHG_UTIL_H
#define XCHG_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "xchg_core.h"

/* Hide internal symbols from the shared library. */
#if defined(__GNUC__)
#define XCHG_INTERNAL __attribute__((visibility("hidden")))
#else
#define XCHG_INTERNAL
#endif

/* Format a message into err (no-op when err is NULL); returns code so a
 * caller can write `return xchg_fail(err, XCHG_EINVAL, "...")`. */
XCHG_INTERNAL int xchg_fail(xchg_err *err, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Parse a whole decimal unsigned number in [lo, hi] from s (no sign, no
 * spaces, no trailing text). Returns 0 and sets *out, or -1. */
XCHG_INTERNAL int xchg_parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out);

/* Number of online processors, at least 1. */
XCHG_INTERNAL int xchg_ncpus(void);

/* Seconds on a monotonic clock (for pacing progress reports). */
XCHG_INTERNAL double xchg_now(void);

#endif /* XCHG_UTIL_H */
