/*
 * check.c - counting assertions for the test programs, and the walk over
 * every registry algorithm that several module tests share.
 */
#include "check.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long check_passed, check_failed;

void check_record(int ok, const char *file, int line, const char *fmt, ...)
{
    if (ok) {
        check_passed++;
        return;
    }
    check_failed++;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "FAIL %s:%d: ", file, line);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

int check_finish(const char *suite)
{
    printf("%s: %lu passed, %lu failed\n", suite, check_passed, check_failed);
    return check_failed ? 1 : 0;
}

xchg_topo check_topo(const char *spec)
{
    xchg_topo t = {0};
    xchg_err err = {{0}};
    int rc = xchg_topo_parse(spec, &t, &err);
    check_record(rc == 0, __FILE__, __LINE__, "topology '%s': %s", spec, err.msg);
    return t;
}

xchg_sched *check_generate(const char *tspec, const char *alg)
{
    xchg_topo t = check_topo(tspec);
    xchg_sched *s = NULL;
    xchg_err err = {{0}};
    int rc = xchg_generate(&t, alg, &s, &err);
    check_record(rc == 0 && s, __FILE__, __LINE__, "generate %s on %s: %d %s", alg, tspec, rc,
                 err.msg);
    return rc == 0 ? s : NULL;
}

xchg_machine check_machine(double ts, double tw)
{
    xchg_machine m;
    memset(&m, 0, sizeof m);
    snprintf(m.name, sizeof m.name, "test");
    snprintf(m.units, sizeof m.units, "us");
    m.ts = ts;
    m.tw = tw;
    return m;
}

xchg_verify_report check_verify(const xchg_sched *s)
{
    xchg_verify_report r;
    xchg_err err = {{0}};
    xchg_verify_opts o = {.threads = 1};
    memset(&r, 0, sizeof r);
    int rc = xchg_verify(s, &o, &r, &err);
    check_record(rc == 0, __FILE__, __LINE__, "verify %s: %s", xchg_sched_algorithm(s), err.msg);
    if (rc)
        r.ok = 0;
    return r;
}

int check_verify_clean(const xchg_sched *s, const char *what, xchg_verify_report *rep)
{
    xchg_verify_opts vo = {.threads = 0, .max_work = 0};
    xchg_err err = {{0}};
    memset(rep, 0, sizeof *rep);
    int rc = xchg_verify(s, &vo, rep, &err);
    check_record(rc == 0, __FILE__, __LINE__, "%s: verify %d %s", what, rc, err.msg);
    if (rc != 0) {
        memset(rep, 0, sizeof *rep);
        return rc;
    }
    check_record(rep->ok && rep->undelivered == 0 && rep->link_conflicts == 0 &&
                     rep->port_violations == 0 && rep->size_mismatches == 0 &&
                     rep->route_failures == 0,
                 __FILE__, __LINE__,
                 "%s: ok %d undelivered %llu conflicts %llu port %llu sizes %llu routes %llu: %s",
                 what, rep->ok, (unsigned long long)rep->undelivered,
                 (unsigned long long)rep->link_conflicts,
                 (unsigned long long)rep->port_violations,
                 (unsigned long long)rep->size_mismatches,
                 (unsigned long long)rep->route_failures, rep->reported ? rep->msgs[0] : "");
    check_record(xchg_sched_contention_free(s), __FILE__, __LINE__,
                 "%s: does not claim contention-free", what);
    return rc;
}

/* Every variant of the entries of the complete exchange (op 0) or of the
 * other operations (op != 0) that applies to topo_spec. */
static int each_schedule(const char *topo_spec, xchg_op_kind op, check_schedule_fn fn,
                         void *ctx)
{
    xchg_topo t = check_topo(topo_spec);
    int ran = 0;
    for (size_t a = 0; a < xchg_alg_count(); a++) {
        xchg_spec specs[XCHG_MAX_VARIANTS];
        if ((xchg_alg_at(a)->op == XCHG_OP_ALLTOALL) != (op == XCHG_OP_ALLTOALL))
            continue;
        int n = xchg_alg_variants(&t, xchg_alg_at(a), specs, XCHG_MAX_VARIANTS, NULL);
        for (int v = 0; v < n; v++) {
            xchg_sched *s = NULL;
            if (xchg_generate(&t, specs[v], &s, NULL) != 0)
                continue;
            ran++;
            fn(specs[v], topo_spec, &t, s, ctx);
            xchg_sched_free(s);
        }
    }
    return ran;
}

int check_each_schedule(const char *topo_spec, check_schedule_fn fn, void *ctx)
{
    return each_schedule(topo_spec, XCHG_OP_ALLTOALL, fn, ctx);
}

int check_each_op_schedule(const char *topo_spec, check_schedule_fn fn, void *ctx)
{
    return each_schedule(topo_spec, XCHG_OP_BCAST, fn, ctx);
}

int check_doc_write(void *ctx, const char *data, size_t len)
{
    check_doc *d = ctx;
    if (d->fail_after && ++d->calls >= d->fail_after)
        return 7;
    if (d->len + len + 1 > d->cap) {
        size_t cap = d->cap ? d->cap : 4096;
        while (cap < d->len + len + 1)
            cap *= 2;
        char *nb = realloc(d->buf, cap);
        if (!nb)
            return 1;
        d->buf = nb;
        d->cap = cap;
    }
    memcpy(d->buf + d->len, data, len);
    d->len += len;
    d->buf[d->len] = '\0';
    return 0;
}

size_t check_doc_count(const check_doc *d, const char *needle)
{
    size_t n = 0;
    for (const char *p = d->buf; p && (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

/*
 * spec on tspec must verify (contention-free where free is set: claimed,
 * and no link carrying two messages), and cost exactly t_s a + t_w m b:
 * a with ts = 1, tw = 0, b m with ts = 0, tw = 1; the simulator agrees
 * with the cost model and the time respects the lower bound.
 */
int check_slide_cost(const char *tspec, const char *spec, int free, double a, double b,
                     double blocks)
{
    xchg_sched *s = check_generate(tspec, spec);
    if (!s)
        return 0;
    xchg_verify_report r = check_verify(s);
    CHECK(r.ok && r.undelivered == 0 && r.size_mismatches == 0, "%s on %s verifies: %s", spec,
          tspec, r.reported ? r.msgs[0] : "");
    if (free)
        CHECK(xchg_sched_contention_free(s) && r.link_conflicts == 0 &&
                  r.link_volume_blocks == r.volume_blocks,
              "%s on %s: contention-free claim %d, %llu conflicts", spec, tspec,
              xchg_sched_contention_free(s), (unsigned long long)r.link_conflicts);
    CHECK(r.startups == a && r.volume_blocks == blocks,
          "%s on %s: the verifier counts %llu start-ups, %llu blocks; slide %g, %g", spec,
          tspec, (unsigned long long)r.startups, (unsigned long long)r.volume_blocks, a,
          blocks);
    double m = 4096;
    xchg_machine ts1 = check_machine(1, 0), tw1 = check_machine(0, 1);
    xchg_machine both = check_machine(40, 0.01);
    xchg_cost c;
    xchg_err err = {{0}};
    CHECK(xchg_cost_compute(s, &ts1, m, 0, &c, &err) == 0, "cost: %s", err.msg);
    CHECK(c.time == a, "%s on %s: start-up term %g, slide %g", spec, tspec, c.time, a);
    CHECK(xchg_cost_compute(s, &tw1, m, 0, &c, &err) == 0, "cost: %s", err.msg);
    CHECK(c.time == b * m, "%s on %s: per-byte term %g m, slide %g m", spec, tspec,
          c.time / m, b);
    CHECK(xchg_cost_compute(s, &both, m, 0, &c, &err) == 0, "cost: %s", err.msg);
    CHECK(c.time >= c.lb_time, "%s on %s: time %g under the lower bound %g", spec, tspec,
          c.time, c.lb_time);
    xchg_sim_opts so = {0};
    xchg_sim_report sr;
    CHECK(xchg_sim_run(s, &both, m, &so, &sr, &err) == 0, "sim: %s", err.msg);
    /* without contention the simulator is the cost model; with it, slower */
    if (xchg_sched_contention_free(s))
        CHECK(sr.time >= c.time * (1 - 1e-12) && sr.time <= c.time * (1 + 1e-12),
              "%s on %s: simulated %.17g, cost model %.17g", spec, tspec, sr.time, c.time);
    else
        CHECK(sr.time >= c.time * (1 - 1e-12), "%s on %s: simulated %.17g under the model %.17g",
              spec, tspec, sr.time, c.time);
    xchg_sched_free(s);
    return 1;
}
