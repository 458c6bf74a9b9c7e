/*
 * cmd_export.c - "xchg export": write a whole schedule, every block of
 * every message, through xchg_export as JSON or text, to stdout or a file.
 *
 * A file is written under a temporary name in the same directory and
 * renamed over FILE only when the export succeeded, so a failure never
 * leaves a half-written FILE. On stdout the first 16 MiB are held back so
 * that an error found early (they are checked before anything is written)
 * still prints nothing to stdout.
 */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char xchg_cli_export_help[] =
    "usage: xchg export --topo T --alg A [--format json|text] [--output FILE]\n"
    "                   [--max-work W] [--max-memory BYTES]\n\n"
    "Write algorithm A's schedule on topology T, every block of every message:\n"
    "\"xchg-schedule/1\" JSON (docs/export-format.md) or one readable line per\n"
    "message. Work and output grow as p*p*steps: large networks are refused.\n\n"
    "options:\n"
    "  --topo T        ring:P array:P mesh:A[xB..] torus:A[xB..] hypercube:D\n"
    "                  complete:P tree:D\n"
    "  --alg A         an algorithm from 'xchg list', with options as NAME:OPTIONS\n"
    "  --format F      json (default) or text\n"
    "  --output FILE   write FILE (replaced only when the export succeeds)\n"
    "                  instead of stdout (- means stdout)\n"
    "  --max-work W    refuse above W block-steps (default 2e9), or a schedule\n"
    "                  that takes more than W operations to build\n"
    "  --max-memory BYTES\n"
    "                  refuse when the schedule and the export would take more\n"
    "                  memory (default 4G; suffixes K, M, G, T)\n\n"
    "exit status: 0 ok, 2 bad input, a schedule too big or a file that cannot\n"
    "be written, 3 internal error (a bug in xchg).\n";

/* Bytes held back on stdout before streaming starts. */
#define HOLD_BYTES ((size_t)16 << 20)

/* Where the export's chunks go. */
typedef struct out_sink {
    FILE *f;
    char *hold;      /* held-back text (stdout only), or NULL */
    size_t len, cap;
    int streaming;   /* hold flushed; write straight to f */
    int werr;        /* errno of the first failed write, else 0 */
} out_sink;

/* Flush the held-back text to f. Returns 0 or -1 on a write error. */
static int release(out_sink *o)
{
    if (o->len && fwrite(o->hold, 1, o->len, o->f) != o->len) {
        o->werr = errno ? errno : EIO;
        return -1;
    }
    o->len = 0;
    o->streaming = 1;
    return 0;
}

/* xchg_write_fn: hold or write one chunk. Nonzero on a write error. */
static int sink_write(void *ctx, const char *data, size_t len)
{
    out_sink *o = ctx;
    if (!o->streaming && o->hold) {
        if (o->len + len <= o->cap) {
            memcpy(o->hold + o->len, data, len);
            o->len += len;
            return 0;
        }
        if (release(o))
            return -1;
    }
    if (fwrite(data, 1, len, o->f) != len) {
        o->werr = errno ? errno : EIO;
        return -1;
    }
    return 0;
}

/* Export to stdout, holding back the first HOLD_BYTES. */
static int export_stdout(const xchg_sched *s, const char *format, uint64_t max_work)
{
    out_sink o = {stdout, NULL, 0, HOLD_BYTES, 0, 0};
    o.hold = malloc(o.cap);
    if (!o.hold)
        o.streaming = 1;
    xchg_err err = {{0}};
    int rc = xchg_export(s, format, max_work, sink_write, &o, &err);
    if (rc == 0 && !o.streaming)
        release(&o);
    free(o.hold);
    if (o.werr)
        return xchg_cli_error("writing standard output failed: %s", strerror(o.werr));
    if (rc)
        return xchg_cli_lib_error(rc, "export", &err);
    return XCHG_CLI_OK;
}

/* Export to path through a temporary file in the same directory. */
static int export_file(const xchg_sched *s, const char *format, uint64_t max_work,
                       const char *path)
{
    char *tmp = NULL;
    FILE *f = xchg_cli_tmp_beside(path, "--output", &tmp);
    if (!f)
        return XCHG_CLI_USAGE;
    out_sink o = {f, NULL, 0, 0, 1, 0};
    xchg_err err = {{0}};
    int rc = xchg_export(s, format, max_work, sink_write, &o, &err);
    int werr = o.werr;
    if (fflush(f) != 0 && !werr)
        werr = errno ? errno : EIO;
    if (fclose(f) != 0 && !werr)
        werr = errno ? errno : EIO;
    int status = XCHG_CLI_OK;
    if (rc && !werr) {
        status = xchg_cli_lib_error(rc, "export", &err);
    } else if (werr) {
        status = xchg_cli_error("writing --output '%s' failed: %s", path, strerror(werr));
    } else if (rename(tmp, path) != 0) {
        status = xchg_cli_error("cannot write --output '%s': %s", path, strerror(errno));
    }
    if (status != XCHG_CLI_OK)
        unlink(tmp);
    free(tmp);
    return status;
}

int xchg_cli_export(int argc, char **argv)
{
    xchg_cli_opt opts[] = {{"topo", "T", NULL, 0},     {"alg", "A", NULL, 0},
                           {"format", "F", NULL, 0},   {"output", "FILE", NULL, 0},
                           {"max-work", "W", NULL, 0}, {"max-memory", "BYTES", NULL, 0},
                           {NULL, NULL, NULL, 0}};
    int rc = xchg_cli_parse("export", argc, argv, opts);
    if (rc)
        return rc;
    xchg_topo t;
    if ((rc = xchg_cli_topo(opts, "export", &t)) || (rc = xchg_cli_require(opts, "alg", "export")))
        return rc;
    const char *format = xchg_cli_has(opts, "format") ? xchg_cli_val(opts, "format") : "json";
    if (strcmp(format, "json") != 0 && strcmp(format, "text") != 0)
        return xchg_cli_error("unknown --format '%s'; accepted: json, text", format);
    xchg_cli_limits lim;
    if ((rc = xchg_cli_limits_get(opts, &lim)))
        return rc;
    /* export's own default (fewer block-steps than verify's) unless told */
    uint64_t max_work = xchg_cli_has(opts, "max-work") ? lim.max_work : 0;
    const char *alg = xchg_cli_val(opts, "alg");
    xchg_estimate est;
    uint64_t need = 0;
    xchg_err err = {{0}};
    if ((rc = xchg_cli_estimate(&t, alg, &est)))
        return rc;
    if ((rc = xchg_export_check(&t, est.steps, max_work, &need, &err)))
        return xchg_cli_lib_error(rc, "export", &err);
    if ((rc = xchg_cli_within("export", &t, alg, &est, &lim, need, "export's block positions")))
        return rc;
    xchg_sched *s = NULL;
    if ((rc = xchg_cli_generate(&t, alg, &s)))
        return rc;
    const char *path = xchg_cli_val(opts, "output");
    if (path && strcmp(path, "-") != 0)
        rc = export_file(s, format, max_work, path);
    else
        rc = export_stdout(s, format, max_work);
    xchg_sched_free(s);
    return rc;
}
