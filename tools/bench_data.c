/*
 * bench_data.c - the data xchg-bench validates with (-c): every input is
 * filled before every call and every output checked after it against the
 * value the operation's definition gives, computed locally. A block's
 * bytes encode (origin, destination, offset, size, call) through a hash,
 * so a block from the wrong origin, at the wrong offset or left over from
 * an earlier call is caught; reductions sum small integers derived the
 * same way, and each rank recomputes the sum it must receive.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "bench.h"

/* splitmix64's finaliser: a bijective 64-bit mixer. */
static inline uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* The seed of block (origin -> dest) in call `call` of size m. */
static uint64_t block_seed(int origin, int dest, size_t m, long call)
{
    uint64_t s = mix64(((uint64_t)(uint32_t)origin << 32) | (uint32_t)dest);
    s = mix64(s ^ mix64((uint64_t)m * 0x9e3779b97f4a7c15ULL + (uint64_t)call));
    return s;
}

/* Fill a block of m bytes: byte k is byte k%8 of mix64(seed + k/8), so every
 * byte depends on the origin, destination, offset, size and call. */
static void fill_block(unsigned char *b, size_t m, uint64_t seed)
{
    size_t w = 0, k = 0;
    for (; k + 8 <= m; k += 8, w++) {
        uint64_t v = mix64(seed + w);
        for (int j = 0; j < 8; j++)
            b[k + j] = (unsigned char)(v >> (8 * j));
    }
    if (k < m) {
        uint64_t v = mix64(seed + w);
        for (int j = 0; k < m; k++, j++)
            b[k] = (unsigned char)(v >> (8 * j));
    }
}

/* The offset of the first byte of b that differs from the pattern, or m. */
static size_t check_block(const unsigned char *b, size_t m, uint64_t seed)
{
    size_t w = 0, k = 0;
    for (; k + 8 <= m; k += 8, w++) {
        uint64_t v = mix64(seed + w);
        for (int j = 0; j < 8; j++)
            if (b[k + j] != (unsigned char)(v >> (8 * j)))
                return k + (size_t)j;
    }
    if (k < m) {
        uint64_t v = mix64(seed + w);
        for (int j = 0; k < m; k++, j++)
            if (b[k] != (unsigned char)(v >> (8 * j)))
                return k;
    }
    return m;
}

void bench_block_fill(unsigned char *b, size_t n, int origin, int dest, size_t m, long call)
{
    fill_block(b, n, block_seed(origin, dest, m, call));
}

size_t bench_block_check(const unsigned char *b, size_t n, int origin, int dest, size_t m,
                         long call)
{
    return check_block(b, n, block_seed(origin, dest, m, call));
}

void bench_fill_blocks(unsigned char *buf, int me, int p, size_t m, long call)
{
    for (int d = 0; d < p; d++)
        fill_block(buf + (size_t)d * m, m, block_seed(me, d, m, call));
}

/*
 * Check what this rank received: block o of buf must be origin o's block for
 * this rank. Returns the number of bad blocks; the first one is described on
 * stderr (each rank speaks at most once per size).
 */
static long check_recv(const unsigned char *buf, int me, int p, size_t m, long call)
{
    long bad = 0;
    for (int o = 0; o < p; o++) {
        size_t at = check_block(buf + (size_t)o * m, m, block_seed(o, me, m, call));
        if (at < m) {
            if (bad == 0) {
                /* Say whose data is there when it is another origin's. */
                int from = -1;
                size_t w0 = at / 8 * 8, len = m - w0 < 8 ? m - w0 : 8;
                for (int q = 0; q < p && from < 0; q++) {
                    unsigned char probe[8];
                    fill_block(probe, len, block_seed(q, me, m, call) + at / 8);
                    if (q != o && memcmp(probe, buf + (size_t)o * m + w0, len) == 0)
                        from = q;
                }
                if (from >= 0)
                    fprintf(stderr,
                            BENCH_NAME ": rank %d, size %zu, call %ld: the block from rank %d "
                            "holds rank %d's data at byte %zu\n",
                            me, m, call, o, from, at);
                else
                    fprintf(stderr,
                            BENCH_NAME ": rank %d, size %zu, call %ld: the block from rank %d "
                            "is wrong at byte %zu\n",
                            me, m, call, o, at);
            }
            bad++;
        }
    }
    return bad;
}

/* A block every rank may hold (bcast, allgather, gather, shift): its
 * destination in the seed is "any". */
#define ANY_DEST (-1)

/* Check one block that rank me received against origin o's block for
 * dest; 0, or 1 after describing the first bad byte on stderr when first
 * is set. */
static long check_one(const unsigned char *b, int me, int o, int dest, size_t m, long call,
                      int first)
{
    size_t at = check_block(b, m, block_seed(o, dest, m, call));
    if (at == m)
        return 0;
    if (first)
        fprintf(stderr,
                BENCH_NAME ": rank %d, size %zu, call %ld: the block from rank %d is wrong at "
                           "byte %zu\n",
                me, m, call, o, at);
    return 1;
}

/* The reductions' inputs: element k of rank o's vector in a call is a
 * small integer from a hash of (o, size, call) and k, so sums over 2^15
 * ranks stay in an int and every element, rank and call differ. */
static red_coef red_coef_of(int o, size_t m, long call)
{
    uint64_t z = block_seed(o, -2, m, call);
    return (red_coef){(uint32_t)z, (uint32_t)(z >> 32) | 1u};
}

static int red_value(red_coef c, size_t k)
{
    uint32_t x = c.a + (uint32_t)k * c.b;
    return (int)((x ^ (x >> 15)) & 0x7fffu) - 0x4000;
}

void bench_fill(const bench_job *job, size_t m, size_t count, long call)
{
    const bench_args *a = job->a;
    int me = job->rank, p = job->p;
    unsigned char *sbuf = job->sbuf, *rbuf = job->rbuf;
    if (rbuf && a->op != XCHG_OP_ALLTOALL)
        memset(rbuf, 0xa5, job->rbytes);
    switch (a->op) {
    case XCHG_OP_ALLTOALL:
        bench_fill_blocks(a->in_place ? rbuf : sbuf, me, p, m, call);
        break;
    case XCHG_OP_BCAST:
        if (me == a->root)
            fill_block(rbuf, m, block_seed(me, ANY_DEST, m, call));
        break;
    case XCHG_OP_REDUCE:
    case XCHG_OP_ALLREDUCE:
    case XCHG_OP_SCAN:
    case XCHG_OP_REDUCE_SCATTER: {
        size_t n = a->op == XCHG_OP_REDUCE_SCATTER ? count * (size_t)p : count;
        red_coef c = red_coef_of(me, m, call);
        int *v = (int *)(void *)sbuf;
        for (size_t k = 0; k < n; k++)
            v[k] = red_value(c, k);
        break;
    }
    case XCHG_OP_SCATTER:
        if (me == a->root)
            for (int d = 0; d < p; d++)
                fill_block(sbuf + (size_t)d * m, m, block_seed(me, d, m, call));
        break;
    default: /* allgather, gather, shift: this rank's one block */
        fill_block(sbuf, m, block_seed(me, ANY_DEST, m, call));
        break;
    }
}

long bench_check(const bench_job *job, size_t m, size_t count, long call)
{
    const bench_args *a = job->a;
    int me = job->rank, p = job->p;
    const unsigned char *rbuf = job->rbuf;
    red_coef *coefs = job->coefs;
    long bad = 0;
    switch (a->op) {
    case XCHG_OP_ALLTOALL:
        return check_recv(rbuf, me, p, m, call);
    case XCHG_OP_BCAST:
        return check_one(rbuf, me, a->root, ANY_DEST, m, call, 1);
    case XCHG_OP_SCATTER:
        return check_one(rbuf, me, a->root, me, m, call, 1);
    case XCHG_OP_SHIFT: {
        int from = (int)((((long long)me - a->q) % p + p) % p);
        return check_one(rbuf, me, from, ANY_DEST, m, call, 1);
    }
    case XCHG_OP_GATHER:
        if (me != a->root)
            return 0;
        /* fall through */
    case XCHG_OP_ALLGATHER:
        for (int o = 0; o < p; o++)
            bad += check_one(rbuf + (size_t)o * m, me, o, ANY_DEST, m, call, bad == 0);
        return bad;
    default:
        break;
    }
    /* Reductions: the sum over ranks 0..last of their elements k0 + j. */
    if (a->op == XCHG_OP_REDUCE && me != a->root)
        return 0;
    int last = a->op == XCHG_OP_SCAN ? me : p - 1;
    size_t k0 = a->op == XCHG_OP_REDUCE_SCATTER ? (size_t)me * count : 0;
    for (int o = 0; o <= last; o++)
        coefs[o] = red_coef_of(o, m, call);
    const int *got = (const int *)(const void *)rbuf;
    for (size_t j = 0; j < count; j++) {
        int want = 0;
        for (int o = 0; o <= last; o++)
            want += red_value(coefs[o], k0 + j);
        if (got[j] != want) {
            if (bad == 0)
                fprintf(stderr,
                        BENCH_NAME ": rank %d, size %zu, call %ld: element %zu is %d, the sum "
                                   "over ranks 0 to %d is %d\n",
                        me, m, call, j, got[j], last, want);
            bad++;
        }
    }
    return bad;
}
