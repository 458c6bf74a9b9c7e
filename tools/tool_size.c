/*
 * tool_size.c - byte counts on the MPI tools' command lines (tool_size.h).
 */
#include "tool_size.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

int xchg_tool_bytes(const char *s, size_t max, size_t *out)
{
    char *end = NULL;
    if (!s || *s < '0' || *s > '9')
        return -1;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    unsigned shift = 0;
    if (*end == 'K' || *end == 'k')
        shift = 10, end++;
    else if (*end == 'M' || *end == 'm')
        shift = 20, end++;
    else if (*end == 'G' || *end == 'g')
        shift = 30, end++;
    if (*end || errno || v > (unsigned long long)(SIZE_MAX >> shift) ||
        (size_t)(v << shift) > max)
        return -1;
    *out = (size_t)(v << shift);
    return 0;
}
