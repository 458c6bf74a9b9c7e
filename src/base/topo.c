/*
 * topo.c - topologies: parsing specs, coordinates, neighbours and routes.
 *
 * Every topology is described by dimensions (size and id stride): ring,
 * array and complete have one dimension of P nodes; mesh and torus one per
 * size; a hypercube one per bit (size 2, stride 2^b). Node ids are row-major,
 * first coordinate slowest, so the last dimension has stride 1.
 *
 * Routes are dimension-ordered with the fastest-varying dimension first: on
 * a 2-D mesh that is along the row first, then along the column (the
 * Paragon's row-column rule, Bokhari section 3.1); on a hypercube the lowest
 * bit first, which is e-cube routing (Grama et al. section 4.5.3).
 *
 * A tree (tree:D) has its processors at the leaves and switches inside; a
 * route climbs to the lowest common ancestor and comes down, one hop per
 * level (xchg_core.h says how switches are named).
 */
#include <stdio.h>
#include <string.h>

#include "base/util.h"

static const char *const kind_names[] = {"ring",      "array",    "mesh", "torus",
                                         "hypercube", "complete", "tree"};
_Static_assert(sizeof kind_names / sizeof kind_names[0] == XCHG_TOPO_KINDS,
               "a name for every topology kind");

static const char accepted[] =
    "accepted: ring:P, array:P, complete:P (P >= 1), mesh:A[xB...], "
    "torus:A[xB...] (every size >= 2), hypercube:D (0 <= D <= 24), tree:D (0 <= D <= 16); "
    "at most 16777216 nodes";

/* Deepest tree: a route's 2*D one-hop segments must fit XCHG_MAX_DIMS. */
#define TREE_MAX_DEPTH (XCHG_MAX_DIMS / 2)

const char *xchg_topo_kind_name(xchg_topo_kind kind)
{
    if ((unsigned)kind < sizeof kind_names / sizeof kind_names[0])
        return kind_names[kind];
    return "unknown";
}

/* Fill strides and node count from sizes; returns -1 when the node count
 * exceeds XCHG_MAX_NODES. */
static int topo_finish(xchg_topo *t)
{
    uint64_t n = 1;
    for (int k = t->ndims - 1; k >= 0; k--) {
        t->stride[k] = (uint32_t)n;
        n *= t->size[k];
        if (n > XCHG_MAX_NODES)
            return -1;
    }
    t->nodes = (uint32_t)n;
    return 0;
}

/* Parse "AxBxC" into t->size; returns 0, or -1 with a reason in why. */
static int parse_dims(const char *s, xchg_topo *t, const char **why)
{
    char buf[256];
    if (strlen(s) >= sizeof buf) {
        *why = "spec too long";
        return -1;
    }
    strcpy(buf, s);
    t->ndims = 0;
    char *save = NULL;
    if (buf[0] == '\0' || buf[0] == 'x' || buf[strlen(buf) - 1] == 'x' || strstr(buf, "xx")) {
        *why = "sizes must be whole numbers >= 2 separated by 'x'";
        return -1;
    }
    for (char *tok = strtok_r(buf, "x", &save); tok; tok = strtok_r(NULL, "x", &save)) {
        uint64_t v;
        if (t->ndims == XCHG_MAX_DIMS) {
            *why = "too many dimensions (at most 32)";
            return -1;
        }
        if (xchg_parse_u64(tok, 2, XCHG_MAX_NODES, &v) != 0) {
            *why = "sizes must be whole numbers >= 2 separated by 'x'";
            return -1;
        }
        t->size[t->ndims++] = (uint32_t)v;
    }
    return 0;
}

int xchg_topo_parse(const char *spec, xchg_topo *out, xchg_err *err)
{
    if (!spec || !out)
        return xchg_fail(err, XCHG_EINVAL, "no topology given; %s", accepted);
    const char *colon = strchr(spec, ':');
    if (!colon)
        return xchg_fail(err, XCHG_EINVAL, "topology '%s' has no ':'; %s", spec, accepted);
    size_t klen = (size_t)(colon - spec);
    const char *arg = colon + 1;
    xchg_topo t;
    memset(&t, 0, sizeof t);
    int kind = -1;
    for (int k = 0; k < (int)(sizeof kind_names / sizeof kind_names[0]); k++)
        if (strlen(kind_names[k]) == klen && strncmp(spec, kind_names[k], klen) == 0)
            kind = k;
    if (kind < 0)
        return xchg_fail(err, XCHG_EINVAL, "unknown topology kind in '%s'; %s", spec, accepted);
    t.kind = (xchg_topo_kind)kind;
    uint64_t v;
    switch (t.kind) {
    case XCHG_TOPO_RING:
    case XCHG_TOPO_ARRAY:
    case XCHG_TOPO_COMPLETE:
        if (xchg_parse_u64(arg, 1, XCHG_MAX_NODES, &v) != 0)
            return xchg_fail(err, XCHG_EINVAL,
                             "bad node count in '%s': want a whole number from 1 to %u; %s",
                             spec, XCHG_MAX_NODES, accepted);
        t.ndims = 1;
        t.size[0] = (uint32_t)v;
        break;
    case XCHG_TOPO_HYPERCUBE:
    case XCHG_TOPO_TREE: {
        int tree = t.kind == XCHG_TOPO_TREE;
        unsigned most = tree ? TREE_MAX_DEPTH : 24;
        if (xchg_parse_u64(arg, 0, most, &v) != 0)
            return xchg_fail(err, XCHG_EINVAL,
                             "bad %s in '%s': want a whole number from 0 to %u; %s",
                             tree ? "tree depth" : "hypercube dimension", spec, most, accepted);
        t.ndims = (int)v;
        for (int b = 0; b < t.ndims; b++)
            t.size[b] = 2;
        /* bit b is dimension b: stride 2^b, so ids are the binary labels */
        for (int b = 0; b < t.ndims; b++)
            t.stride[b] = 1u << b;
        t.nodes = 1u << t.ndims;
        *out = t;
        return XCHG_OK;
    }
    case XCHG_TOPO_MESH:
    case XCHG_TOPO_TORUS: {
        const char *why = NULL;
        if (parse_dims(arg, &t, &why) != 0)
            return xchg_fail(err, XCHG_EINVAL, "bad sizes in '%s': %s; %s", spec, why, accepted);
        break;
    }
    }
    if (topo_finish(&t) != 0)
        return xchg_fail(err, XCHG_EINVAL, "topology '%s' has more than %u nodes; %s", spec,
                         XCHG_MAX_NODES, accepted);
    *out = t;
    return XCHG_OK;
}

const char *xchg_topo_spec(const xchg_topo *t, char *buf, size_t len)
{
    if (!buf || len == 0)
        return buf;
    int n = snprintf(buf, len, "%s:", xchg_topo_kind_name(t->kind));
    if (t->kind == XCHG_TOPO_HYPERCUBE || t->kind == XCHG_TOPO_TREE) {
        snprintf(buf + n, len > (size_t)n ? len - (size_t)n : 0, "%d", t->ndims);
        return buf;
    }
    for (int k = 0; k < t->ndims && (size_t)n < len; k++)
        n += snprintf(buf + n, len - (size_t)n, k ? "x%u" : "%u", t->size[k]);
    return buf;
}

uint32_t xchg_topo_coord(const xchg_topo *t, uint32_t id, int dim)
{
    return (id / t->stride[dim]) % t->size[dim];
}

/* True when dimension dim wraps around (ring, torus). */
static int dim_wraps(const xchg_topo *t)
{
    return t->kind == XCHG_TOPO_RING || t->kind == XCHG_TOPO_TORUS;
}

int xchg_topo_has_links(const xchg_topo *t)
{
    return t->kind != XCHG_TOPO_COMPLETE;
}

/* A tree's hop (xchg_topo_neighbor): dir 0 climbs from the subtree of 2^dim
 * leaves named id, +1/-1 come down from the switch named id (level dim+1)
 * into its child whose bit dim is 1/0. */
static uint32_t tree_neighbor(uint32_t id, int dim, int dir)
{
    uint32_t bit = 1u << dim;
    if (dir == 0)
        return (id & (bit - 1)) ? XCHG_NONE : id & ~bit;
    if (id & (bit | (bit - 1)))
        return XCHG_NONE;
    return dir > 0 ? id | bit : id;
}

uint32_t xchg_topo_neighbor(const xchg_topo *t, uint32_t id, int dim, int dir)
{
    if (dim < 0 || dim >= t->ndims || id >= t->nodes)
        return XCHG_NONE;
    if (t->kind == XCHG_TOPO_TREE && dir >= -1 && dir <= 1)
        return tree_neighbor(id, dim, dir);
    if (dir != 1 && dir != -1)
        return XCHG_NONE;
    if (t->kind == XCHG_TOPO_COMPLETE)
        return XCHG_NONE;
    if (t->kind == XCHG_TOPO_HYPERCUBE)
        return id ^ (1u << dim);
    uint32_t n = t->size[dim], c = xchg_topo_coord(t, id, dim);
    uint32_t nc;
    if (dir > 0) {
        if (c + 1 < n)
            nc = c + 1;
        else if (dim_wraps(t) && n > 1)
            nc = 0;
        else
            return XCHG_NONE;
    } else {
        if (c > 0)
            nc = c - 1;
        else if (dim_wraps(t) && n > 1)
            nc = n - 1;
        else
            return XCHG_NONE;
    }
    return id - c * t->stride[dim] + nc * t->stride[dim];
}

/* A tree's route (xchg_topo_route): up to the lowest common ancestor, at
 * level L, then down; returns the number of segments, 2L. */
static int tree_route(uint32_t from, uint32_t to, xchg_seg *segs)
{
    uint32_t diff = from ^ to;
    int levels = 0, n = 0;
    while (levels < 32 && (diff >> levels))
        levels++;
    for (int l = 0; l < levels; l++)
        segs[n++] = (xchg_seg){l, 0, 1};
    for (int l = levels - 1; l >= 0; l--)
        segs[n++] = (xchg_seg){l, (to >> l & 1u) ? 1 : -1, 1};
    return n;
}

void xchg_topo_route(const xchg_topo *t, uint32_t from, uint32_t to, int policy,
                     xchg_seg *segs, int *nsegs)
{
    int n = 0;
    if (t->kind == XCHG_TOPO_TREE) {
        *nsegs = from == to ? 0 : tree_route(from, to, segs);
        return;
    }
    if (t->kind != XCHG_TOPO_COMPLETE && from != to) {
        if (t->kind == XCHG_TOPO_HYPERCUBE) {
            uint32_t diff = from ^ to;
            for (int b = 0; b < t->ndims; b++)
                if (diff >> b & 1u)
                    segs[n++] = (xchg_seg){b, (to >> b & 1u) ? 1 : -1, 1};
        } else {
            for (int k = t->ndims - 1; k >= 0; k--) {
                uint32_t size = t->size[k];
                uint32_t a = xchg_topo_coord(t, from, k), b = xchg_topo_coord(t, to, k);
                if (a == b)
                    continue;
                if (!dim_wraps(t)) {
                    segs[n++] = (xchg_seg){k, b > a ? 1 : -1, b > a ? b - a : a - b};
                    continue;
                }
                uint32_t plus = (b + size - a) % size, minus = size - plus;
                int dir;
                if (policy == XCHG_ROUTE_PLUS)
                    dir = 1;
                else if (policy == XCHG_ROUTE_MINUS)
                    dir = -1;
                else
                    dir = plus <= minus ? 1 : -1;
                segs[n++] = (xchg_seg){k, dir, dir > 0 ? plus : minus};
            }
        }
    }
    *nsegs = n;
}
