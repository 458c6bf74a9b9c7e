/*
 * tool_size.c - byte counts on the tools' command lines (tool_size.h).
 */
#include "tool_size.h"

#include <ctype.h>
#include <string.h>

int xchg_tool_bytes(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
    static const char suffixes[] = "KMGT";
    if (!s || *s < '0' || *s > '9')
        return -1;
    uint64_t v = 0;
    for (; *s >= '0' && *s <= '9'; s++) {
        unsigned d = (unsigned)(*s - '0');
        if (v > (UINT64_MAX - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    /* the suffix is the 1st, 2nd ... letter of "KMGT": 2^10, 2^20 ... */
    const char *at = *s ? strchr(suffixes, toupper((unsigned char)*s)) : NULL;
    unsigned shift = at ? 10u * (unsigned)(at - suffixes + 1) : 0;
    if (at)
        s++;
    if (*s || v > (UINT64_MAX >> shift))
        return -1;
    v <<= shift;
    if (v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}
