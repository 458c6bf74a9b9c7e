/*
 * import.c - xchg_import: read a schedule written in the export format,
 * xchg-schedule/1 JSON or text (docs/export-format.md, "Import"), by xchg
 * export or by hand or another tool, back into a schedule every consumer
 * can run. The first character tells the format; import_json.c or
 * import_text.c reads it, calling the builder (import_build.c, which says
 * what is checked and how a step becomes rules) as they go; at the end the
 * local copies and the phases read are set on the schedule.
 * Calls point one way: this file calls the two readers and the builder,
 * and none of them calls it (import_internal.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/import_internal.h"

/* Default memory limit when the caller passes 0. */
#define IMPORT_DEFAULT_BYTES ((uint64_t)4 << 30)

int xchg_import(const char *text, size_t len, const xchg_import_opts *opts, xchg_sched **out,
                xchg_err *err)
{
    if (!text || !out)
        return xchg_fail(err, XCHG_EINVAL, "xchg_import: text and out must not be NULL");
    xchg_imp_reader r;
    memset(&r, 0, sizeof r);
    r.s = text;
    r.len = len;
    r.line = 1;
    r.col = 1;
    r.err = err;
    r.max_bytes = opts && opts->max_bytes ? opts->max_bytes : IMPORT_DEFAULT_BYTES;
    /* the first character that is not white space tells the format */
    size_t at = 0;
    while (at < len &&
           (text[at] == ' ' || text[at] == '\t' || text[at] == '\r' || text[at] == '\n'))
        at++;
    int c = at < len ? (unsigned char)text[at] : -1;
    if (c == '{') {
        r.json = 1;
        xchg_imp_read_json(&r);
    } else if (c == '#') {
        r.line = 0; /* the text reader counts lines as it takes them */
        xchg_imp_read_text(&r);
    } else {
        char seen[32];
        if (c < 0)
            snprintf(seen, sizeof seen, "the end of the file");
        else if (c >= 32 && c < 127)
            snprintf(seen, sizeof seen, "'%c'", c);
        else
            snprintf(seen, sizeof seen, "byte 0x%02x", (unsigned)c);
        xchg_imp_fail(&r,
                      "this is not a schedule: it starts with %s; accepted: "
                      "xchg-schedule/1 JSON ('{') or text ('# " IMPORT_FORMAT " ...'), as "
                      "xchg export writes",
                      seen, NULL);
    }
    if (!r.rc && r.sched && r.ncopies) {
        if (r.ncopies != r.sched->nsteps) {
            char a[32], b[32];
            snprintf(a, sizeof a, "%zu", r.ncopies);
            snprintf(b, sizeof b, "%zu", r.sched->nsteps);
            snprintf(r.path, sizeof r.path, "copies");
            xchg_imp_fail_at(&r, r.line, r.col, "%s copies for %s steps; accepted: one per step", a,
                             b);
        } else {
            for (size_t k = 0; k < r.ncopies; k++)
                r.sched->steps[k].copy_blocks = r.copies[k];
        }
    }
    if (!r.rc && r.sched) {
        /* the operation and its phases */
        for (size_t k = 0; k < r.nphases && !r.rc; k++)
            if (r.phases[k].first > r.sched->nsteps) {
                char a[32], b[32];
                snprintf(a, sizeof a, "%zu", r.phases[k].first);
                snprintf(b, sizeof b, "%zu", r.sched->nsteps);
                if (r.json)
                    snprintf(r.path, sizeof r.path, "phases[%zu].first", k);
                xchg_imp_fail_at(&r, r.phases[k].line, r.phases[k].col,
                                 "this phase starts at step %s but the file has %s steps", a,
                                 b);
            }
        r.sched->op = r.op.op;
        r.sched->nphases = r.nphases;
        for (size_t k = 0; k < r.nphases; k++) {
            r.sched->phases[k].op = r.phases[k].op;
            r.sched->phases[k].first = r.phases[k].first;
        }
    }
    if (r.rc) {
        int rc = r.rc;
        xchg_imp_free(&r);
        return rc;
    }
    xchg_sched *s = r.sched;
    r.sched = NULL;
    r.ctx = NULL;
    xchg_imp_free(&r);
    *out = s;
    return XCHG_OK;
}
