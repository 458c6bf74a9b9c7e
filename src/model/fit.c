/*
 * fit.c - fit start-up and per-byte time to ping-pong measurements, finding
 * where an MPI library switches protocol (xchg_fit_pingpong; `xchg probe`,
 * docs/machine-file.md).
 *
 * A message of n bytes takes t(n) = ts + n*tw within one protocol range.
 * Times span several orders of magnitude (a microsecond for a byte, a
 * millisecond for megabytes), so the fit is least squares on relative
 * error: each point weighs 1/t^2, and a 10% miss counts the same at 1 us
 * and at 1 ms.
 *
 * The switch (eager to rendezvous) is found from the data, not assumed.
 * Along one line with ts >= 0, time never grows faster than size: from
 * n1 to n2 bytes it grows at most n2/n1 times. Where the measured time
 * grows faster than that by more than SWITCH_EXCESS, no line fits both
 * sides: a protocol boundary. The switch is the size with the largest such
 * excess (a handshake's latency appearing, a copy path changing) among
 * those that leave the large messages a range of sizes spanning 4x or more
 * with a per-byte time above zero, and each side gets its own line. Real curves also bend within a range (caches);
 * the fit's relative misses, reported per range, say how well a line does.
 */
#include <math.h>
#include <string.h>

#include "base/util.h"
#include "xchg_model.h"

/* Points each side of a split needs. */
#define FIT_MIN_POINTS 3
/* Growth beyond the sizes' ratio that marks a switch: 20% more than any
 * line allows, well above the noise of medians of many round trips. */
#define SWITCH_EXCESS 1.2
/* The large-message side of a split spans at least this ratio of sizes. */
#define UPPER_SPAN 4

/* Weighted least-squares line over points [lo, hi) into *r: ts, tw (each
 * clamped at 0, refitting the other), and the relative misses. */
static void fit_line(const double *x, const double *y, size_t lo, size_t hi,
                       xchg_fit_range *r)
{
    double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (size_t i = lo; i < hi; i++) {
        double w = 1 / (y[i] * y[i]);
        sw += w;
        sx += w * x[i];
        sy += w * y[i];
        sxx += w * x[i] * x[i];
        sxy += w * x[i] * y[i];
    }
    double det = sw * sxx - sx * sx;
    double a = 0, b = 0;
    if (det > 0) {
        a = (sy * sxx - sx * sxy) / det;
        b = (sw * sxy - sx * sy) / det;
    }
    if (!(det > 0) || a < 0) { /* through the origin: t = n*tw */
        a = 0;
        b = sxx > 0 ? sxy / sxx : 0;
    }
    if (b < 0) { /* flat: t = ts */
        b = 0;
        a = sy / sw;
    }
    double sse = 0, worst = 0;
    for (size_t i = lo; i < hi; i++) {
        double e = (a + b * x[i] - y[i]) / y[i];
        sse += e * e;
        if (fabs(e) > worst)
            worst = fabs(e);
    }
    r->lo = x[lo];
    r->hi = x[hi - 1];
    r->ts = a;
    r->tw = b;
    r->points = hi - lo;
    r->rms_rel = sqrt(sse / (double)(hi - lo));
    r->max_rel = worst;
}

int xchg_fit_pingpong(const double *bytes, const double *us, size_t n, xchg_fit *out,
                      xchg_err *err)
{
    if (!bytes || !us || !out)
        return xchg_fail(err, XCHG_EINVAL, "xchg_fit_pingpong: NULL argument");
    if (n < 2 * FIT_MIN_POINTS)
        return xchg_fail(err, XCHG_EINVAL,
                         "xchg_fit_pingpong: %zu points; accepted: at least %d message sizes",
                         n, 2 * FIT_MIN_POINTS);
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(bytes[i]) || bytes[i] < 0 || (i > 0 && !(bytes[i] > bytes[i - 1])))
            return xchg_fail(err, XCHG_EINVAL,
                             "xchg_fit_pingpong: size %zu (%g bytes) is not above the one "
                             "before; accepted: sizes from 0, increasing",
                             i, bytes[i]);
        if (!isfinite(us[i]) || !(us[i] > 0))
            return xchg_fail(err, XCHG_EINVAL,
                             "xchg_fit_pingpong: time %zu (%g us) is not a positive number",
                             i, us[i]);
    }
    xchg_fit f;
    memset(&f, 0, sizeof f);
    /* Take the split with the largest excess whose large-message side is a
     * range a line can be fitted to: sizes spanning UPPER_SPAN or more, and
     * a per-byte time above zero. A jump among the last few sizes (noise on
     * a loaded machine) would otherwise leave a flat line, tw = 0, as the
     * machine's figure. */
    double below = INFINITY; /* excess of the split last refused */
    for (;;) {
        size_t split = 0;
        double most = SWITCH_EXCESS;
        for (size_t k = FIT_MIN_POINTS; k + FIT_MIN_POINTS <= n; k++) {
            double grow = bytes[k - 1] > 0 ? bytes[k] / bytes[k - 1] : INFINITY;
            double excess = us[k] / us[k - 1] / grow;
            if (excess > most && excess < below && bytes[n - 1] >= UPPER_SPAN * bytes[k]) {
                most = excess;
                split = k;
            }
        }
        if (!split)
            break;
        below = most;
        fit_line(bytes, us, split, n, &f.range[1]);
        if (!(f.range[1].tw > 0))
            continue;
        fit_line(bytes, us, 0, split, &f.range[0]);
        f.nranges = 2;
        f.switch_bytes = bytes[split];
        break;
    }
    if (f.nranges == 0) {
        fit_line(bytes, us, 0, n, &f.range[0]);
        f.nranges = 1;
    }
    *out = f;
    return XCHG_OK;
}

void xchg_fit_machine(const xchg_fit *f, xchg_machine *m)
{
    const xchg_fit_range *large = &f->range[f->nranges - 1];
    m->ts = large->ts;
    m->tw = large->tw;
    if (f->nranges == 2) {
        m->eager_bytes = f->switch_bytes;
        m->ts_eager = f->range[0].ts;
        m->tw_eager = f->range[0].tw;
    } else {
        m->eager_bytes = m->ts_eager = m->tw_eager = 0;
    }
}
