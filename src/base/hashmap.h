/*
 * hashmap.h - the library's one hash map: from a 64-bit key (any value but
 * UINT64_MAX) to a 32-bit value, open addressing with linear probing and
 * backward-shift deletion (no tombstones, so a map that takes as much as
 * it puts stays as fast as a fresh one). One rank's programs use it: the
 * scratch slot of a block passing through (rank/rank.c) and the slot of a
 * token's data (rank/op_program.c), both keyed origin * p + dest.
 *
 * A zeroed xchg_hashmap is an empty map that holds no memory; the map owns
 * its arrays, which xchg_hashmap_free releases.
 */
#ifndef XCHG_HASHMAP_H
#define XCHG_HASHMAP_H

#include <stddef.h>
#include <stdint.h>

#include "base/util.h"

typedef struct xchg_hashmap {
    uint64_t *key; /* UINT64_MAX: an empty entry */
    uint32_t *val;
    size_t cap;    /* 0, or a power of two at least twice n */
    size_t n;      /* keys held */
} xchg_hashmap;

/* An empty map (the same as zeroing it). */
XCHG_INTERNAL void xchg_hashmap_init(xchg_hashmap *m);

/* Release m's arrays; m is then empty again. m may be NULL. */
XCHG_INTERNAL void xchg_hashmap_free(xchg_hashmap *m);

/* The value of key in *val: 1 when m holds key, else 0 (*val unchanged). */
XCHG_INTERNAL int xchg_hashmap_find(const xchg_hashmap *m, uint64_t key, uint32_t *val);

/* Map key to val, replacing the value it had. 0, or XCHG_ENOMEM with m
 * unchanged. */
XCHG_INTERNAL int xchg_hashmap_insert(xchg_hashmap *m, uint64_t key, uint32_t val);

/* Remove key, its value to *val: 1 when m held it, else 0 (m unchanged). */
XCHG_INTERNAL int xchg_hashmap_take(xchg_hashmap *m, uint64_t key, uint32_t *val);

#endif /* XCHG_HASHMAP_H */
