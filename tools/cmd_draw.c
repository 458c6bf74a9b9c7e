/*
 * cmd_draw.c - "xchg draw": one step of a schedule, or all of them as a
 * contact sheet, as an SVG picture (xchg_draw_step, xchg_draw_all_steps;
 * docs/drawing.md). Steps are numbered from 1, as export's text format
 * numbers them. The picture is written under a temporary name in the
 * directory of --output and renamed over it only when drawing succeeded,
 * so a failure never leaves a half-written file.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

const char xchg_cli_draw_help[] =
    "usage: xchg draw (--topo T --alg A | --schedule FILE) [--step K | --all-steps]\n"
    "                 --output FILE [--max-memory BYTES] [--max-work W]\n\n"
    "Draw step K of algorithm A's schedule on topology T as an SVG picture: the\n"
    "network (ring and complete on a circle, array in a row, mesh and torus as a\n"
    "grid, 3-D as 2-D slices side by side, hypercube as a grid of its bits), each\n"
    "message as an arrow along its route coloured by the dimension and direction\n"
    "of its first hop, with its size in blocks, and in red every link that two or\n"
    "more messages cross in the step. A caption and a legend say what is shown.\n"
    "Networks wider than 32 nodes show their top-left 16x16 submesh\n"
    "(docs/drawing.md).\n\n"
    "options:\n"
    "  --topo T          ring:P array:P mesh:A[xB..] torus:A[xB..] hypercube:D complete:P\n"
    "  --alg A           an algorithm from 'xchg list', with options as NAME:OPTIONS\n"
    "  --schedule FILE   a schedule in the export format instead of --alg\n"
    "  --step K          the step to draw, 1 to the number of steps (default 1)\n"
    "  --all-steps       every step, one small panel each (at most 256 steps)\n"
    "  --output FILE, -o FILE\n"
    "                    the SVG file to write (replaced only when drawing\n"
    "                    succeeds; - means stdout)\n"
    "  --max-memory BYTES  refuse a schedule that would take more memory\n"
    "                    (default 4G; suffixes K, M, G, T)\n"
    "  --max-work W      refuse a schedule that takes more than W operations to\n"
    "                    build (default 2e10)\n\n"
    "exit status: 0 ok, 2 bad input or a file that cannot be written, 3 internal\n"
    "error (a bug in xchg).\n";

/* Where the picture's chunks go. */
typedef struct svg_sink {
    FILE *f;
    int werr; /* errno of the first failed write, else 0 */
} svg_sink;

/* xchg_write_fn: write one chunk; nonzero on a write error. */
static int sink_write(void *ctx, const char *data, size_t len)
{
    svg_sink *o = ctx;
    if (fwrite(data, 1, len, o->f) != len) {
        o->werr = errno ? errno : EIO;
        return -1;
    }
    return 0;
}

/* Draw step (0-based) or, when all, every step, into f. *werr gets the
 * errno of a failed write. Returns the library's status. */
static int draw_to(FILE *f, const xchg_sched *s, int all, size_t step, int *werr, xchg_err *err)
{
    svg_sink o = {f, 0};
    int rc = all ? xchg_draw_all_steps(s, NULL, sink_write, &o, err)
                 : xchg_draw_step(s, step, NULL, sink_write, &o, err);
    *werr = o.werr;
    return rc;
}

/* Draw to path through a temporary file in the same directory. */
static int draw_file(const xchg_sched *s, int all, size_t step, const char *path)
{
    size_t n = strlen(path);
    char *tmp = malloc(n + 16);
    if (!tmp)
        return xchg_cli_error("out of memory");
    snprintf(tmp, n + 16, "%s.tmp.XXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        int e = errno;
        free(tmp);
        return xchg_cli_error("cannot write --output '%s': %s; accepted: a file in a "
                              "writable directory",
                              path, strerror(e));
    }
    /* mkstemp makes the file 0600; give it the usual 0666 less umask. */
    mode_t mask = umask(0);
    umask(mask);
    (void)fchmod(fd, 0666 & ~mask);
    FILE *f = fdopen(fd, "w");
    if (!f) {
        int e = errno;
        close(fd);
        unlink(tmp);
        free(tmp);
        return xchg_cli_error("cannot write --output '%s': %s", path, strerror(e));
    }
    xchg_err err = {{0}};
    int werr = 0;
    int rc = draw_to(f, s, all, step, &werr, &err);
    if (fflush(f) != 0 && !werr)
        werr = errno ? errno : EIO;
    if (fclose(f) != 0 && !werr)
        werr = errno ? errno : EIO;
    int status = XCHG_CLI_OK;
    if (werr)
        status = xchg_cli_error("writing --output '%s' failed: %s", path, strerror(werr));
    else if (rc)
        status = xchg_cli_lib_error(rc, "draw", &err);
    else if (rename(tmp, path) != 0)
        status = xchg_cli_error("cannot write --output '%s': %s", path, strerror(errno));
    if (status != XCHG_CLI_OK)
        unlink(tmp);
    free(tmp);
    return status;
}

/* Draw to stdout. */
static int draw_stdout(const xchg_sched *s, int all, size_t step)
{
    xchg_err err = {{0}};
    int werr = 0;
    int rc = draw_to(stdout, s, all, step, &werr, &err);
    if (werr)
        return xchg_cli_error("writing standard output failed: %s", strerror(werr));
    if (rc)
        return xchg_cli_lib_error(rc, "draw", &err);
    return XCHG_CLI_OK;
}

/* Check --step against the schedule's steps; *step gets it 0-based. */
static int step_arg(xchg_cli_opt *opts, size_t nsteps, size_t *step)
{
    *step = 0;
    if (!xchg_cli_has(opts, "step")) {
        if (nsteps == 0)
            return xchg_cli_error("the schedule has no steps: nothing to draw");
        return 0;
    }
    const char *v = xchg_cli_val(opts, "step");
    if (nsteps == 0)
        return xchg_cli_error("bad --step '%s': the schedule has no steps", v);
    uint64_t k;
    if (xchg_cli_uint("step", v, 1, nsteps, &k))
        return XCHG_CLI_USAGE;
    *step = (size_t)(k - 1);
    return 0;
}

int xchg_cli_draw(int argc, char **argv)
{
    /* -o is the one short option: read it as --output */
    char **args = malloc(((size_t)argc + 1) * sizeof *args);
    if (!args)
        return xchg_cli_error("out of memory");
    static char output[] = "--output";
    for (int i = 0; i < argc; i++)
        args[i] = strcmp(argv[i], "-o") == 0 ? output : argv[i];
    args[argc] = NULL;
    xchg_cli_opt opts[] = {{"topo", "T", NULL, 0},
                           {"alg", "A", NULL, 0},
                           {"schedule", "FILE", NULL, 0},
                           {"step", "K", NULL, 0},
                           {"all-steps", NULL, NULL, 0},
                           {"output", "FILE", NULL, 0},
                           {"max-memory", "BYTES", NULL, 0},
                           {"max-work", "W", NULL, 0},
                           {NULL, NULL, NULL, 0}};
    int rc = xchg_cli_parse("draw", argc, args, opts);
    free(args);
    if (rc)
        return rc;
    if (!xchg_cli_has(opts, "output"))
        return xchg_cli_error("draw needs --output FILE (or -o FILE), the SVG file to write; "
                              "e.g. xchg draw --topo torus:8x8 --alg t1 --step 1 -o t1.svg");
    if (xchg_cli_has(opts, "step") && xchg_cli_has(opts, "all-steps"))
        return xchg_cli_error("--step and --all-steps given together; accepted: one of them");
    xchg_topo t;
    xchg_sched *file_s = NULL, *s = NULL;
    xchg_estimate est;
    if ((rc = xchg_cli_input(opts, "draw", 0, &t, &file_s)))
        return rc;
    if ((rc = xchg_cli_schedule(opts, "draw", &t, file_s, &est, &s))) {
        xchg_sched_free(file_s);
        return rc;
    }
    int all = xchg_cli_has(opts, "all-steps");
    size_t step = 0;
    if (!all)
        rc = step_arg(opts, xchg_sched_nsteps(s), &step);
    if (rc == 0) {
        const char *path = xchg_cli_val(opts, "output");
        rc = strcmp(path, "-") == 0 ? draw_stdout(s, all, step) : draw_file(s, all, step, path);
    }
    xchg_sched_free(s);
    return rc;
}
