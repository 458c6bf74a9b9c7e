/*
 * check.c - counting assertions for the test programs.
 */
#include "check.h"

#include <stdarg.h>
#include <stdio.h>

static unsigned long check_passed, check_failed;

void check_record(int ok, const char *file, int line, const char *fmt, ...)
{
    if (ok) {
        check_passed++;
        return;
    }
    check_failed++;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "FAIL %s:%d: ", file, line);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

int check_finish(const char *suite)
{
    printf("%s: %lu passed, %lu failed\n", suite, check_passed, check_failed);
    return check_failed ? 1 : 0;
}
