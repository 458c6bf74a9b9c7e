/*
 * fuzz_topo.c - libFuzzer harness for the topology spec parser,
 * xchg_topo_parse, on the input as a NUL-terminated string.
 *
 * When the spec parses, it asserts (abort() on violation):
 *   - 1 <= nodes <= XCHG_MAX_NODES, 0 <= ndims <= XCHG_MAX_DIMS, and nodes
 *     is the product of the sizes;
 *   - the canonical spec (xchg_topo_spec) parses back to the same topology
 *     (kind, sizes, strides, nodes) and prints the same text again;
 *   - coordinates of the first and last node lie within each size, and
 *     every neighbour of them is a node id or XCHG_NONE.
 */
#include "fuzz_util.h"
#include "xchg.h"

/* Nonzero when a and b are the same topology, field by field. */
static int same_topo(const xchg_topo *a, const xchg_topo *b)
{
    if (a->kind != b->kind || a->ndims != b->ndims || a->nodes != b->nodes)
        return 0;
    for (int k = 0; k < a->ndims; k++)
        if (a->size[k] != b->size[k] || a->stride[k] != b->stride[k])
            return 0;
    return 1;
}

/* Coordinates and neighbours of node id stay in range. */
static void check_node(const xchg_topo *t, uint32_t id, const char *in)
{
    for (int k = 0; k < t->ndims; k++) {
        FZ_CHECK(xchg_topo_coord(t, id, k) < t->size[k], in);
        for (int dir = -1; dir <= 1; dir += 2) {
            uint32_t n = xchg_topo_neighbor(t, id, k, dir);
            FZ_CHECK(n == XCHG_NONE || n < t->nodes, in);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *in = fz_cstr(data, size);
    if (!in)
        return 0;
    xchg_topo t;
    xchg_err err;
    if (xchg_topo_parse(in, &t, &err) == XCHG_OK) {
        FZ_CHECK(t.nodes >= 1 && t.nodes <= XCHG_MAX_NODES, in);
        FZ_CHECK(t.ndims >= 0 && t.ndims <= XCHG_MAX_DIMS, in);
        uint64_t prod = 1;
        for (int k = 0; k < t.ndims; k++)
            prod *= t.size[k];
        FZ_CHECK(prod == t.nodes, in);

        char spec[1024], again[1024];
        xchg_topo_spec(&t, spec, sizeof spec);
        xchg_topo back;
        FZ_CHECK(xchg_topo_parse(spec, &back, &err) == XCHG_OK, in);
        FZ_CHECK(same_topo(&t, &back), in);
        FZ_CHECK(strcmp(spec, xchg_topo_spec(&back, again, sizeof again)) == 0, in);

        check_node(&t, 0, in);
        check_node(&t, t.nodes - 1, in);
    } else {
        /* A refusal always says why. */
        FZ_CHECK(err.msg[0] != '\0', in);
    }
    free(in);
    return 0;
}
