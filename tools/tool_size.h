/*
 * tool_size.h - byte counts on the MPI tools' command lines (xchg probe,
 * xchg tune): "4096", "64K", "1M", "1G" (suffixes are powers of 1024).
 */
#ifndef XCHG_TOOL_SIZE_H
#define XCHG_TOOL_SIZE_H

#include <stddef.h>

/* The byte count in s into *out: 0, or -1 (out unchanged) when s is not a
 * whole number with an optional K, M or G suffix, or is above max. */
int xchg_tool_bytes(const char *s, size_t max, size_t *out);

#endif
