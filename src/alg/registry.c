/*
 * registry.c - the one table of algorithms, and the calls that read it:
 * lookup by name, parsing "name[:args]" specs, the one precondition check
 * (an entry's declared needs turned into the refusal message), the declared
 * claims, and generate-in-one-call. The registry entries themselves live in
 * src/alg/<family>.c, each declaring its restrictions and properties as
 * data; this is the only place that lists them. The CLI, the planner, the
 * MPI executor and the tests all read this table.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "alg/alg_common.h"

static const xchg_alg *const registry[] = {
    &xchg_alg_ring,
    &xchg_alg_ring_bidir,
    &xchg_alg_mesh2,
    &xchg_alg_hc_standard,
    &xchg_alg_hc_direct,
    &xchg_alg_multiphase,
    &xchg_alg_bruck,
    &xchg_alg_pairwise,
    &xchg_alg_t1,
    &xchg_alg_t2,
    &xchg_alg_t1x,
    &xchg_alg_ar1,
    &xchg_alg_at2,
    &xchg_alg_pt4,
    &xchg_alg_ptk,
    &xchg_alg_mt3,
    &xchg_alg_mtk,
    &xchg_alg_bcast_hc,
    &xchg_alg_scatter_hc,
    &xchg_alg_reduce_hc,
    &xchg_alg_gather_hc,
    &xchg_alg_allgather_hc,
    &xchg_alg_reduce_scatter_hc,
    &xchg_alg_allreduce_hc,
    &xchg_alg_scan_hc,
    &xchg_alg_shift_hc,
    &xchg_alg_shift_hc_ecube,
    &xchg_alg_bcast_tree,
    &xchg_alg_reduce_tree,
    &xchg_alg_bcast_ring,
    &xchg_alg_reduce_ring,
    &xchg_alg_scatter_ring,
    &xchg_alg_gather_ring,
    &xchg_alg_allgather_ring,
    &xchg_alg_reduce_scatter_ring,
    &xchg_alg_shift_ring,
    &xchg_alg_bcast_mesh,
    &xchg_alg_reduce_mesh,
    &xchg_alg_scatter_mesh,
    &xchg_alg_gather_mesh,
    &xchg_alg_allgather_mesh,
    &xchg_alg_reduce_scatter_mesh,
    &xchg_alg_shift_mesh,
    &xchg_alg_bcast_split,
    &xchg_alg_reduce_split,
    &xchg_alg_allreduce_split,
};

#define NALGS (sizeof registry / sizeof registry[0])

size_t xchg_alg_count(void)
{
    return NALGS;
}

/* The i-th algorithm, NULL past the end. */
const xchg_alg *xchg_alg_at(size_t i)
{
    return i < NALGS ? registry[i] : NULL;
}

/* Exact, case-sensitive match on the name; NULL when unknown or name NULL. */
const xchg_alg *xchg_alg_find(const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; i < NALGS; i++)
        if (strcmp(registry[i]->name, name) == 0)
            return registry[i];
    return NULL;
}

/* Write "a, b, c" (the known names) into buf. */
static void known_names(char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < NALGS && at < len; i++) {
        int n = snprintf(buf + at, len - at, "%s%s", i ? ", " : "", registry[i]->name);
        if (n < 0)
            break;
        at += (size_t)n;
    }
}

/*
 * "base.N" (N decimal) names the entry "base.x" with options "N" (t1.2 is
 * t1.x:2) when no entry is called "base.N" itself. Sets *a to that entry and
 * returns a pointer to N inside name, or returns NULL and leaves *a.
 */
static const char *numbered_variant(const char *name, const xchg_alg **a)
{
    const char *dot = strrchr(name, '.');
    if (*a || !dot || dot == name || !dot[1] || strlen(name) + 2 >= 64)
        return NULL;
    for (const char *c = dot + 1; *c; c++)
        if (*c < '0' || *c > '9')
            return NULL;
    char base[64];
    size_t blen = (size_t)(dot - name);
    memcpy(base, name, blen);
    strcpy(base + blen, ".x");
    const xchg_alg *found = xchg_alg_find(base);
    if (!found || !found->parse)
        return NULL;
    *a = found;
    return dot + 1;
}

/*
 * Parse "name[:args]". On success sets *alg and *opts (zeroed, args text
 * kept in opts->args, the rest filled by alg->parse). EINVAL with a message
 * when the name is unknown (listing the known ones), when options are given
 * to an algorithm that takes none, or when alg->parse refuses them. *alg and
 * *opts are untouched on failure.
 */
int xchg_alg_parse(const char *spec, const xchg_alg **alg, xchg_opts *opts, xchg_err *err)
{
    if (!spec || !alg || !opts)
        return xchg_fail(err, XCHG_EINVAL, "xchg_alg_parse: NULL argument");
    const char *colon = strchr(spec, ':');
    size_t nlen = colon ? (size_t)(colon - spec) : strlen(spec);
    char name[64];
    char names[400];
    if (nlen == 0 || nlen >= sizeof name) {
        known_names(names, sizeof names);
        return xchg_fail(err, XCHG_EINVAL,
                         "bad algorithm spec '%.64s': expected name[:options], names: %s", spec,
                         names);
    }
    memcpy(name, spec, nlen);
    name[nlen] = '\0';
    const xchg_alg *a = xchg_alg_find(name);
    const char *num = numbered_variant(name, &a);
    if (num && colon)
        return xchg_fail(err, XCHG_EINVAL,
                         "'%s' already names the option; give it as %s or %.*s.x:%s, not both",
                         spec, name, (int)(num - name - 1), name, num);
    if (!a) {
        known_names(names, sizeof names);
        return xchg_fail(err, XCHG_EINVAL, "unknown algorithm '%s'; known: %s", name, names);
    }
    xchg_opts o;
    memset(&o, 0, sizeof o);
    const char *args = num ? num : colon ? colon + 1 : "";
    if (colon && !*args)
        return xchg_fail(err, XCHG_EINVAL, "%s: empty options after ':' (accepted: %s)", name,
                         a->parse ? a->options : "none");
    if (strlen(args) >= sizeof o.args)
        return xchg_fail(err, XCHG_EINVAL, "%s: options longer than %zu characters", name,
                         sizeof o.args - 1);
    strcpy(o.args, args);
    if (!a->parse) {
        if (*args)
            return xchg_fail(err, XCHG_EINVAL, "%s takes no options (got '%s')", name, args);
    } else {
        int rc = a->parse(args, &o, err);
        if (rc)
            return rc;
    }
    *alg = a;
    *opts = o;
    return XCHG_OK;
}

/* ---- declared needs: the one precondition check -------------------- */

/* A message being written: at most len-1 characters, always terminated. */
typedef struct text {
    char *buf;
    size_t len, at;
} text;

/* Append to x (printf-style); text past the end is dropped. */
static void put(text *x, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void put(text *x, const char *fmt, ...)
{
    if (x->at + 1 >= x->len)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(x->buf + x->at, x->len - x->at, fmt, ap);
    va_end(ap);
    if (n > 0)
        x->at += (size_t)n < x->len - x->at ? (size_t)n : x->len - x->at - 1;
}

/* "one-dimensional", "two-dimensional", "3-dimensional", ... */
static void put_dims_word(text *x, int k)
{
    if (k == 1)
        put(x, "one-dimensional");
    else if (k == 2)
        put(x, "two-dimensional");
    else
        put(x, "%d-dimensional", k);
}

/* The kinds of a mask as words: "torus", "mesh or torus", "a, b or c". */
static void put_kinds(text *x, unsigned kinds)
{
    int n = 0, total = 0;
    for (int k = XCHG_TOPO_RING; k < XCHG_TOPO_KINDS; k++)
        total += (kinds & XCHG_KIND(k)) != 0;
    for (int k = XCHG_TOPO_RING; k < XCHG_TOPO_KINDS; k++) {
        if (!(kinds & XCHG_KIND(k)))
            continue;
        put(x, "%s%s", n == 0 ? "" : n == total - 1 ? " or " : ", ",
            xchg_topo_kind_name((xchg_topo_kind)k));
        n++;
    }
}

/* The spec form of a kind with k dimensions: "ring:P", "mesh:AxB". */
static void put_form(text *x, xchg_topo_kind kind, int k)
{
    static const char *const forms[] = {"", "P", "AxB", "AxBxC", "AxBxCxD"};
    put(x, "%s:", xchg_topo_kind_name(kind));
    if (kind == XCHG_TOPO_HYPERCUBE || kind == XCHG_TOPO_TREE)
        put(x, "D");
    else if (k >= 1 && k <= 4)
        put(x, "%s", forms[k]);
    else
        put(x, "N1x...xNk");
}

/* Accepted kinds of n, every kind when none is declared. */
static unsigned kinds_of(const xchg_needs *n)
{
    return n->kinds ? n->kinds & XCHG_KINDS_ALL : XCHG_KINDS_ALL;
}

/* The first kind of a mask (the lowest bit), torus when it is empty. */
static xchg_topo_kind first_kind(unsigned kinds)
{
    for (int i = XCHG_TOPO_RING; i < XCHG_TOPO_KINDS; i++)
        if (kinds & XCHG_KIND(i))
            return (xchg_topo_kind)i;
    return XCHG_TOPO_TORUS;
}

/*
 * Examples of what n accepts and its reason, in parentheses, or nothing:
 * "(mesh:AxB, torus:AxB)", "(torus:4x4, torus:8x8, ...; why)". Forms are
 * given where the kinds and dimensions fix them (a one-dimensional
 * topology of any kind: ring:P, array:P, complete:P).
 */
static void put_examples(text *x, const xchg_needs *n)
{
    char buf[160] = "";
    text ex = {buf, sizeof buf, 0};
    unsigned kinds = n->kinds & XCHG_KINDS_ALL;
    if (n->square_pow2 > 0 && n->square_pow2 < 12) {
        const char *k = xchg_topo_kind_name(first_kind(kinds));
        unsigned a = 1u << n->square_pow2;
        put(&ex, "%s:%ux%u, %s:%ux%u, ...", k, a, a, k, 2 * a, 2 * a);
    } else if (n->dims > 0 && (kinds || n->dims == 1)) {
        if (!kinds)
            kinds = XCHG_KIND(XCHG_TOPO_RING) | XCHG_KIND(XCHG_TOPO_ARRAY) |
                    XCHG_KIND(XCHG_TOPO_COMPLETE);
        for (int i = XCHG_TOPO_RING; i < XCHG_TOPO_KINDS; i++) {
            if (!(kinds & XCHG_KIND(i)))
                continue;
            put(&ex, "%s", ex.at ? ", " : "");
            put_form(&ex, (xchg_topo_kind)i, n->dims);
        }
    }
    if (ex.at == 0 && !n->why)
        return;
    put(x, " (%s%s%s)", buf, ex.at && n->why ? "; " : "", n->why ? n->why : "");
}

/* One size rule of n as words, k the dimensions it is read for (0: not
 * known, for a topology of the wrong shape). */
static void put_size_rule(text *x, uint32_t m, int k, int per_2k)
{
    if (per_2k && k == 0)
        put(x, "every size a multiple of 2k, k the number of dimensions");
    else if (per_2k)
        put(x, "every size a multiple of 2k = %u", m);
    else if (k == 1 && m == 2)
        put(x, "an even number of nodes");
    else if (k == 1)
        put(x, "a node count that is a multiple of %u", m);
    else if (k == 2)
        put(x, "both sizes multiples of %u", m);
    else
        put(x, "every size a multiple of %u", m);
}

/*
 * What n asks, as words after "<name> needs ": the shape ("a two-dimensional
 * mesh or torus"), then "with" and the rules ("a power-of-two node count",
 * "every size a multiple of 2k = 6"), then the examples and the reason.
 * k is the number of dimensions 2k and the size wording are read for (0:
 * not known).
 */
static void put_needs(text *x, const xchg_needs *n, int k)
{
    const char *rules[6];
    char rbuf[6][80];
    int nr = 0;
    if (n->dims_pow2)
        rules[nr++] = "a power-of-two number of dimensions k";
    if (n->max_dims > 0) {
        snprintf(rbuf[nr], sizeof rbuf[nr], "at most %d dimensions", n->max_dims);
        rules[nr] = rbuf[nr];
        nr++;
    }
    if (n->nodes_pow2)
        rules[nr++] = "a power-of-two node count";
    if (n->square_pow2 > 0) {
        snprintf(rbuf[nr], sizeof rbuf[nr], "both sizes 2^d, d >= %d", n->square_pow2);
        rules[nr] = rbuf[nr];
        nr++;
    }
    uint32_t m2k = 2u * (uint32_t)k;
    if (n->size_multiple > 1 || n->size_multiple_2k) {
        text r = {rbuf[nr], sizeof rbuf[nr], 0};
        if (n->size_multiple > 1)
            put_size_rule(&r, n->size_multiple, k, 0);
        if (n->size_multiple > 1 && n->size_multiple_2k)
            put(&r, " and ");
        if (n->size_multiple_2k)
            put_size_rule(&r, m2k, k, 1);
        rules[nr] = rbuf[nr];
        nr++;
    }
    int shape = (n->kinds && n->kinds != XCHG_KINDS_ALL) || n->dims > 0;
    if (shape || nr == 0) {
        put(x, "a ");
        if (n->dims > 0) {
            put_dims_word(x, n->dims);
            put(x, " ");
        }
        if (n->kinds && n->kinds != XCHG_KINDS_ALL)
            put_kinds(x, n->kinds);
        else
            put(x, "topology");
        if (nr > 0)
            put(x, " with ");
    }
    for (int i = 0; i < nr; i++)
        put(x, "%s%s", i == 0 ? "" : i == nr - 1 ? " and " : ", ", rules[i]);
    put_examples(x, n);
}

/* The first size of t that is not a multiple of m, as a dimension index;
 * -1 when every size is. */
static int bad_size(const xchg_topo *t, uint32_t m)
{
    for (int d = 0; d < t->ndims; d++)
        if (m > 1 && t->size[d] % m != 0)
            return d;
    return -1;
}

/* What broke, for the wording of the refusal. */
enum { BROKE_NONE, BROKE_SHAPE, BROKE_SIZE, BROKE_VIRTUAL_SIZE };

/*
 * The fact about t that breaks n, written to f: BROKE_SHAPE (kind or
 * dimensions), BROKE_SIZE, BROKE_VIRTUAL_SIZE (a size rule the option
 * "virtual" would lift), or BROKE_NONE when t meets n.
 */
static int broken(const xchg_needs *n, const xchg_topo *t, int virt, text *f)
{
    char spec[64];
    xchg_topo_spec(t, spec, sizeof spec);
    if (!(kinds_of(n) & XCHG_KIND(t->kind))) {
        put(f, "%s is not one", spec);
        return BROKE_SHAPE;
    }
    int dims_off = (n->dims > 0 && t->ndims != n->dims) ||
                   (n->max_dims > 0 && t->ndims > n->max_dims) ||
                   (n->dims_pow2 && !xchg_alg_is_pow2((uint32_t)t->ndims)) ||
                   (n->square_pow2 > 0 && t->ndims != 2);
    if (dims_off) {
        put(f, "%s has %d dimension%s", spec, t->ndims, t->ndims == 1 ? "" : "s");
        return BROKE_SHAPE;
    }
    if (n->nodes_pow2 && !xchg_alg_is_pow2(t->nodes)) {
        put(f, "%s has %u nodes", spec, (unsigned)t->nodes);
        return BROKE_SIZE;
    }
    if (n->square_pow2 > 0) {
        uint32_t a = t->size[0];
        if (t->size[1] != a)
            put(f, "%s has sizes %u and %u", spec, (unsigned)a, (unsigned)t->size[1]);
        else if (!xchg_alg_is_pow2(a))
            put(f, "%s has side %u, not a power of two", spec, (unsigned)a);
        else if (xchg_alg_log2(a) < n->square_pow2)
            put(f, "%s has d = %d", spec, xchg_alg_log2(a));
        if (f->at)
            return BROKE_SIZE;
    }
    if (virt && n->virtual_any_size)
        return BROKE_NONE;
    int d = bad_size(t, n->size_multiple);
    if (d < 0 && n->size_multiple_2k)
        d = bad_size(t, 2u * (uint32_t)t->ndims);
    if (d < 0)
        return BROKE_NONE;
    if (t->ndims == 1)
        put(f, "%s has %u node%s", spec, (unsigned)t->size[0], t->size[0] == 1 ? "" : "s");
    else
        put(f, "%s has size %u in dimension %d", spec, (unsigned)t->size[d], d);
    return n->virtual_any_size ? BROKE_VIRTUAL_SIZE : BROKE_SIZE;
}

int xchg_needs_check(const xchg_needs *needs, const char *name, const xchg_topo *t,
                     const xchg_opts *opts, xchg_err *err)
{
    if (!needs || !t)
        return xchg_fail(err, XCHG_EINVAL, "xchg_needs_check: NULL argument");
    char fbuf[160] = "";
    text fact = {fbuf, sizeof fbuf, 0};
    int what = broken(needs, t, opts && opts->virtual_nodes, &fact);
    if (what == BROKE_NONE)
        return XCHG_OK;
    if (!err)
        return XCHG_ENOTAPPLIC;
    char mbuf[sizeof err->msg];
    text m = {mbuf, sizeof mbuf, 0};
    name = name ? name : "the algorithm";
    /* k for "2k = ...": declared, or t's own once t has the right shape */
    int k = needs->dims > 0 ? needs->dims : what == BROKE_SHAPE ? 0 : t->ndims;
    put(&m, "%s needs ", name);
    put_needs(&m, needs, k);
    put(&m, "; %s", fbuf);
    if (what == BROKE_VIRTUAL_SIZE)
        put(&m, " (use %s:virtual for any size)", name);
    return xchg_fail(err, XCHG_ENOTAPPLIC, "%s", mbuf);
}

/* Declared needs, then the entry's hook (opts NULL: no options). */
int xchg_alg_applies(const xchg_alg *alg, const xchg_topo *t, const xchg_opts *opts,
                     xchg_err *err)
{
    if (!alg || !t)
        return xchg_fail(err, XCHG_EINVAL, "xchg_alg_applies: NULL argument");
    xchg_opts none;
    if (!opts) {
        memset(&none, 0, sizeof none);
        opts = &none;
    }
    int rc = xchg_needs_check(&alg->needs, alg->name, t, opts, err);
    if (rc)
        return rc;
    return alg->applies ? alg->applies(t, opts, err) : XCHG_OK;
}

int xchg_alg_claims_free(const xchg_alg *alg, const xchg_topo *t)
{
    return alg && t && (alg->free_on & XCHG_KIND(t->kind)) != 0;
}

int xchg_alg_in_place(const xchg_alg *alg, const xchg_opts *opts)
{
    return alg && alg->in_place && !(opts && opts->virtual_nodes);
}

/*
 * The declared symmetry resolved for t: the declaration-only kinds become
 * XOR or CYCLIC (XOR_POW2) and TRANSLATE with periods 2k (TRANSLATE_2K);
 * anything that does not fit t, or a schedule hosted on virtual nodes
 * (hosting breaks the translations), gives NONE.
 */
void xchg_alg_symmetry(const xchg_alg *alg, const xchg_topo *t, const xchg_opts *opts,
                       xchg_symmetry *out)
{
    memset(out, 0, sizeof *out);
    if (!alg || !t || (opts && opts->virtual_nodes))
        return;
    int pow2 = t->nodes > 0 && (t->nodes & (t->nodes - 1)) == 0;
    xchg_sym_kind k = alg->symmetry;
    if (k == XCHG_SYM_XOR_POW2)
        k = pow2 ? XCHG_SYM_XOR : XCHG_SYM_CYCLIC;
    if (k == XCHG_SYM_XOR && !pow2)
        return;
    if (k == XCHG_SYM_TRANSLATE || k == XCHG_SYM_TRANSLATE_2K) {
        uint32_t period = k == XCHG_SYM_TRANSLATE ? 1 : 2u * (uint32_t)t->ndims;
        for (int d = 0; d < t->ndims; d++) {
            if (t->size[d] % period)
                return;
            out->period[d] = period;
        }
        k = XCHG_SYM_TRANSLATE;
    }
    out->kind = k;
}

/*
 * Check that alg applies to t with opts, then generate: the one place the
 * preconditions are checked before a generator runs (generators do not
 * repeat it). On failure *out is untouched.
 */
int xchg_alg_generate(const xchg_alg *alg, const xchg_topo *t, const xchg_opts *opts,
                      xchg_sched **out, xchg_err *err)
{
    if (!alg || !t || !opts || !out)
        return xchg_fail(err, XCHG_EINVAL, "xchg_alg_generate: NULL argument");
    int rc = xchg_alg_applies(alg, t, opts, err);
    if (rc)
        return rc;
    return alg->generate(t, opts, out, err);
}

/*
 * Parse alg_spec, check it applies to t, and generate. On success *out is
 * a schedule the caller frees with xchg_sched_free; on failure *out is
 * untouched and the code is that of the failing stage.
 */
int xchg_generate(const xchg_topo *t, const char *alg_spec, xchg_sched **out, xchg_err *err)
{
    if (!t || !out)
        return xchg_fail(err, XCHG_EINVAL, "xchg_generate: NULL argument");
    const xchg_alg *a;
    xchg_opts o;
    int rc = xchg_alg_parse(alg_spec, &a, &o, err);
    if (rc)
        return rc;
    return xchg_alg_generate(a, t, &o, out, err);
}

/* Is registry name `name` in the comma-separated list (NULL or "": all)? */
int xchg_alg_in_list(const char *only, const char *name)
{
    if (!only || !*only)
        return 1;
    size_t n = strlen(name);
    for (const char *p = only; *p;) {
        const char *c = strchr(p, ',');
        size_t len = c ? (size_t)(c - p) : strlen(p);
        if (len == n && strncmp(p, name, n) == 0)
            return 1;
        p += len;
        if (*p == ',')
            p++;
    }
    return 0;
}

/* EINVAL naming the first word of `only` that is not a registry name. */
int xchg_alg_check_list(const char *only, xchg_err *err)
{
    if (!only)
        return XCHG_OK;
    for (const char *p = only; *p;) {
        const char *c = strchr(p, ',');
        size_t len = c ? (size_t)(c - p) : strlen(p);
        char name[64] = "";
        if (len > 0 && len < sizeof name) {
            memcpy(name, p, len);
            name[len] = '\0';
        }
        if (!name[0] || !xchg_alg_find(name))
            return xchg_fail(err, XCHG_EINVAL,
                             "'%.*s' in the algorithm list '%.100s' is not a registry "
                             "name (see xchg list; variants such as t1.2 belong to t1.x)",
                             (int)(len < 60 ? len : 60), p, only);
        p += len;
        if (*p == ',')
            p++;
    }
    return XCHG_OK;
}

/* Nonzero when spec parses back to alg and applies to t (the reason in
 * *err otherwise). */
static int offered(const xchg_alg *alg, const xchg_topo *t, const char *spec, xchg_err *err)
{
    const xchg_alg *a = NULL;
    xchg_opts o;
    return xchg_alg_parse(spec, &a, &o, err) == XCHG_OK && a == alg &&
           xchg_alg_applies(alg, t, &o, err) == XCHG_OK;
}

/*
 * The padded form is offered here, in the one variant enumeration, and not
 * by the planner alone: "worth running on t and applies" is this call's
 * question, and every reader asks it here (compare and plan through the
 * planner, the executor's auto, xchg list --topo, the executor's test). A
 * planner-only padding would be a second enumeration, and list would say
 * "does not apply" of a spec compare ranks. It is offered only where no
 * plain spec applies: where one does, the padded form hosts nothing (each
 * real node is its own virtual one) and would only repeat it. Hosted
 * schedules have no closed form, so the entries' variants hooks (which the
 * conformance test holds to their formulas) keep offering the paper's
 * sizes only; the conformance test verifies the padded specs from here.
 */
int xchg_alg_variants(const xchg_topo *t, const xchg_alg *alg, xchg_spec *specs, int max,
                      xchg_err *why)
{
    xchg_spec all[XCHG_MAX_VARIANTS];
    xchg_err err = {{0}};
    int n = 1, kept = 0;
    if (!t || !alg || !specs)
        return 0;
    if (alg->variants) {
        n = alg->variants(t, all, XCHG_MAX_VARIANTS);
        if (n > XCHG_MAX_VARIANTS)
            n = XCHG_MAX_VARIANTS;
        /* the reason: the declared needs when they refuse t */
        if (n <= 0 && xchg_needs_check(&alg->needs, alg->name, t, NULL, &err) == XCHG_OK)
            xchg_fail(&err, XCHG_ENOTAPPLIC, "%s has no variant for this topology", alg->name);
    } else {
        snprintf(all[0], sizeof all[0], "%s", alg->name);
    }
    for (int i = 0; i < n && kept < max; i++) {
        all[i][XCHG_SPEC_MAX - 1] = '\0';
        if (offered(alg, t, all[i], &err))
            memcpy(specs[kept++], all[i], sizeof all[i]);
    }
    if (kept == 0 && max > 0 && alg->needs.virtual_any_size) {
        /* the plain sizes do not fit: the padded form, when t's kind and
         * dimensions suit it (the plain refusal stays the reason if not) */
        xchg_spec padded;
        snprintf(padded, sizeof padded, "%s:virtual", alg->name);
        if (offered(alg, t, padded, NULL))
            memcpy(specs[kept++], padded, sizeof padded);
    }
    if (kept == 0 && why)
        *why = err;
    return kept;
}

int xchg_alg_estimate(const xchg_alg *alg, const xchg_topo *t, const xchg_opts *opts,
                      xchg_estimate *out, xchg_err *err)
{
    if (!alg || !t || !out)
        return xchg_fail(err, XCHG_EINVAL, "estimate: NULL argument");
    xchg_opts none;
    if (!opts) {
        memset(&none, 0, sizeof none);
        opts = &none;
    }
    int rc = xchg_alg_applies(alg, t, opts, err);
    if (rc)
        return rc;
    if (!alg->estimate)
        return xchg_fail(err, XCHG_EINTERNAL, "%s has no estimate hook",
                         alg->name);
    xchg_estimate e = {0, 0, 0};
    if ((rc = alg->estimate(t, opts, &e)))
        return xchg_fail(err, rc, "%s: estimate failed", alg->name);
    *out = e;
    return XCHG_OK;
}

int xchg_estimate_spec(const xchg_topo *t, const char *alg_spec, xchg_estimate *out,
                       xchg_err *err)
{
    const xchg_alg *alg;
    xchg_opts opts;
    int rc = xchg_alg_parse(alg_spec, &alg, &opts, err);
    if (rc)
        return rc;
    return xchg_alg_estimate(alg, t, &opts, out, err);
}
