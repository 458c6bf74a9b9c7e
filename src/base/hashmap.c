/*
 * hashmap.c - the one hash map (hashmap.h): open addressing over a power-of-
 * two table kept at most half full, so a probe ends within a few entries.
 */
#include <stdlib.h>
#include <string.h>

#include "base/hashmap.h"

#define EMPTY UINT64_MAX

/* Where key's probe starts: the key times the golden ratio, so that keys
 * o * p + d, which differ in their low bits only now and then, spread over
 * the whole table. */
static size_t home(const xchg_hashmap *m, uint64_t key)
{
    return (size_t)((key * 0x9e3779b97f4a7c15ull) >> 17) & (m->cap - 1);
}

/* The entry holding key, or the empty entry where its probe ends; m->cap
 * must not be 0. */
static size_t probe(const xchg_hashmap *m, uint64_t key)
{
    size_t i = home(m, key);
    while (m->key[i] != key && m->key[i] != EMPTY)
        i = (i + 1) & (m->cap - 1);
    return i;
}

void xchg_hashmap_init(xchg_hashmap *m)
{
    memset(m, 0, sizeof *m);
}

void xchg_hashmap_free(xchg_hashmap *m)
{
    if (!m)
        return;
    free(m->key);
    free(m->val);
    xchg_hashmap_init(m);
}

/* The entry holding key, or SIZE_MAX when m does not hold it. */
static size_t lookup(const xchg_hashmap *m, uint64_t key)
{
    if (!m->cap)
        return SIZE_MAX;
    size_t i = probe(m, key);
    return m->key[i] == EMPTY ? SIZE_MAX : i;
}

int xchg_hashmap_find(const xchg_hashmap *m, uint64_t key, uint32_t *val)
{
    size_t i = lookup(m, key);
    if (i == SIZE_MAX)
        return 0;
    *val = m->val[i];
    return 1;
}

/* Double m's table (256 entries the first time), moving every entry. */
static int grow(xchg_hashmap *m)
{
    xchg_hashmap g = {0};
    g.cap = m->cap ? m->cap * 2 : 256;
    g.key = malloc(g.cap * sizeof *g.key);
    g.val = malloc(g.cap * sizeof *g.val);
    if (!g.key || !g.val) {
        free(g.key);
        free(g.val);
        return XCHG_ENOMEM;
    }
    memset(g.key, 0xff, g.cap * sizeof *g.key);
    for (size_t i = 0; i < m->cap; i++)
        if (m->key[i] != EMPTY) {
            size_t j = probe(&g, m->key[i]);
            g.key[j] = m->key[i];
            g.val[j] = m->val[i];
        }
    g.n = m->n;
    free(m->key);
    free(m->val);
    *m = g;
    return XCHG_OK;
}

int xchg_hashmap_insert(xchg_hashmap *m, uint64_t key, uint32_t val)
{
    if ((m->n + 1) * 2 > m->cap && grow(m))
        return XCHG_ENOMEM;
    size_t i = probe(m, key);
    if (m->key[i] == EMPTY) {
        m->key[i] = key;
        m->n++;
    }
    m->val[i] = val;
    return XCHG_OK;
}

int xchg_hashmap_take(xchg_hashmap *m, uint64_t key, uint32_t *val)
{
    size_t i = lookup(m, key);
    if (i == SIZE_MAX)
        return 0;
    *val = m->val[i];
    m->n--;
    size_t hole = i;
    for (size_t j = (i + 1) & (m->cap - 1); m->key[j] != EMPTY; j = (j + 1) & (m->cap - 1)) {
        size_t h = home(m, m->key[j]);
        /* j's entry may move to the hole when its home is not in (hole, j] */
        int stays = hole <= j ? (h > hole && h <= j) : (h > hole || h <= j);
        if (!stays) {
            m->key[hole] = m->key[j];
            m->val[hole] = m->val[j];
            hole = j;
        }
    }
    m->key[hole] = EMPTY;
    return 1;
}
