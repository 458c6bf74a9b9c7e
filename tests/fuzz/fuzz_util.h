/*
 * fuzz_util.h - what the libFuzzer harnesses of tests/fuzz/ share: the input
 * as a NUL-terminated string, and an invariant check that aborts.
 *
 * A failed invariant must abort(): libFuzzer reports a crash only on a
 * signal or a sanitizer report, never on a return value, so a harness that
 * merely returned an error would let a wrong answer pass as a clean run.
 */
#ifndef XCHG_FUZZ_UTIL_H
#define XCHG_FUZZ_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The fuzzer's bytes as a fresh C string (free it); NULL when out of
 * memory. An embedded NUL ends the string early, as it would for any
 * caller passing text. */
static inline char *fz_cstr(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        return NULL;
    memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

/* Abort with the failed condition and the input when cond is false. */
#define FZ_CHECK(cond, input)                                                              \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "fuzz invariant failed at %s:%d: %s (input '%.200s')\n",       \
                    __FILE__, __LINE__, #cond, (input));                                   \
            abort();                                                                       \
        }                                                                                  \
    } while (0)

#endif /* XCHG_FUZZ_UTIL_H */
