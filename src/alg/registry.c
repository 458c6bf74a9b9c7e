/*
 * registry.c - the one table of algorithms, and the calls that read it:
 * lookup by name, parsing "name[:args]" specs, and generate-in-one-call.
 * The registry entries themselves live in src/alg/<family>.c; this is the
 * only place that lists them. The CLI, the planner and the tests all read
 * this table, and so will the MPI executor (src/mpi/, not built yet).
 */
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
    if ((rc = a->applies(t, &o, err)))
        return rc;
    return a->generate(t, &o, out, err);
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
        if (n <= 0)
            xchg_fail(&err, XCHG_ENOTAPPLIC, "%s has no variant for this topology", alg->name);
    } else {
        snprintf(all[0], sizeof all[0], "%s", alg->name);
    }
    for (int i = 0; i < n && kept < max; i++) {
        const xchg_alg *a = NULL;
        xchg_opts o;
        all[i][XCHG_SPEC_MAX - 1] = '\0';
        if (xchg_alg_parse(all[i], &a, &o, &err) != XCHG_OK || a != alg)
            continue;
        if (alg->applies(t, &o, &err) != XCHG_OK)
            continue;
        memcpy(specs[kept++], all[i], sizeof all[i]);
    }
    if (kept == 0 && why)
        *why = err;
    return kept;
}
