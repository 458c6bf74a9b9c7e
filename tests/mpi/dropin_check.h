/*
 * dropin_check.h - what the drop-in's C test programs of the other
 * operations share (dropin_ops_prog.c, dropin_large_prog.c): the inputs
 * every rank computes alike, and the check that counts a wrong result.
 * Programs that know nothing of xchg: this is plain MPI and C.
 */
#ifndef XCHG_DROPIN_CHECK_H
#define XCHG_DROPIN_CHECK_H

#include <stdio.h>

/* Wrong results on this rank. */
static int errs;

/* Input element i of rank r (for dest block d where the call has blocks). */
static int in(int r, int i)
{
    return (r * 7919 + i * 31) % 1009 - 500;
}

/* Count (and say, the first 5 times) a result that is not want. */
static void expect(const int *got, const int *want, int n, const char *what, int rank)
{
    for (int i = 0; i < n; i++)
        if (got[i] != want[i]) {
            if (errs++ < 5)
                fprintf(stderr, "rank %d: %s: element %d is %d, want %d\n", rank, what, i,
                        got[i], want[i]);
            return;
        }
}

#endif /* XCHG_DROPIN_CHECK_H */
