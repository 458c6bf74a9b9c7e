/*
 * svg.c - the drawing layer's writer: formatted text to the caller's write
 * callback (xchg_write_fn), XML escaping, and a growing buffer for the "d"
 * attribute of a path. The first failure (a write the callback refuses, an
 * allocation) is remembered and everything after it is dropped, so the
 * drawing code writes on and checks once at the end.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw_internal.h"

/* Hand len bytes to the callback unless an earlier write failed. */
static void svg_put(draw_svg *o, const char *data, size_t len)
{
    if (o->write_rc || o->oom || len == 0)
        return;
    int rc = o->write(o->ctx, data, len);
    if (rc)
        o->write_rc = rc;
}

void xchg_draw_svg_printf(draw_svg *o, const char *fmt, ...)
{
    char small[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) {
        o->oom = 1;
        return;
    }
    if ((size_t)n < sizeof small) {
        svg_put(o, small, (size_t)n);
        return;
    }
    char *big = malloc((size_t)n + 1);
    if (!big) {
        o->oom = 1;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    svg_put(o, big, (size_t)n);
    free(big);
}

void xchg_draw_svg_text(draw_svg *o, const char *s)
{
    size_t run = 0;
    for (const char *c = s;; c++) {
        const char *rep = NULL;
        switch (*c) {
        case '&':
            rep = "&amp;";
            break;
        case '<':
            rep = "&lt;";
            break;
        case '>':
            rep = "&gt;";
            break;
        case '"':
            rep = "&quot;";
            break;
        default:
            break;
        }
        if (rep || *c == '\0') {
            svg_put(o, c - run, run);
            run = 0;
            if (*c == '\0')
                return;
            svg_put(o, rep, strlen(rep));
        } else {
            run++;
        }
    }
}

void xchg_draw_path_add(draw_path *p, const char *fmt, ...)
{
    if (p->oom)
        return;
    for (;;) {
        size_t room = p->cap - p->len;
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(p->buf ? p->buf + p->len : NULL, p->buf ? room : 0, fmt, ap);
        va_end(ap);
        if (n < 0) {
            p->oom = 1;
            return;
        }
        if (p->buf && (size_t)n < room) {
            p->len += (size_t)n;
            return;
        }
        size_t cap = p->cap ? p->cap * 2 : 256;
        while (cap < p->len + (size_t)n + 1)
            cap *= 2;
        char *nb = realloc(p->buf, cap);
        if (!nb) {
            p->oom = 1;
            return;
        }
        p->buf = nb;
        p->cap = cap;
    }
}

void xchg_draw_path_clear(draw_path *p)
{
    p->len = 0;
    if (p->buf)
        p->buf[0] = '\0';
}

void xchg_draw_path_free(draw_path *p)
{
    free(p->buf);
    p->buf = NULL;
    p->len = p->cap = 0;
}
