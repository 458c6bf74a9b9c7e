/*
 * tool_size.h - the one reader of byte counts on every tool's command line:
 * the xchg CLI's --max-memory, xchg-bench's -m and -M, xchg probe's
 * --max-size, xchg tune's -m and -M. One syntax everywhere: decimal digits
 * with an optional suffix K, M, G or T, powers of 1024 ("4096", "64K",
 * "1M", "4G", "1T"). No "B" or "KiB": docs/limits.md says "4GB" is refused,
 * and no page or script ever used one.
 */
#ifndef XCHG_TOOL_SIZE_H
#define XCHG_TOOL_SIZE_H

#include <stdint.h>

/*
 * The byte count in s into *out when s is digits with an optional K, M, G
 * or T (either case) and nothing else (no sign, space, fraction or unit),
 * and the count is within [lo, hi]: returns 0. Otherwise returns -1 and
 * leaves *out unchanged; the caller says what it accepts, since each
 * option has its own range.
 */
int xchg_tool_bytes(const char *s, uint64_t lo, uint64_t hi, uint64_t *out);

#endif
