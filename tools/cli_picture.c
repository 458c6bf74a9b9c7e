/*
 * cli_picture.c - how the commands that make pictures (draw, compare
 * --plot, plot) write them: SVG as the library writes it, or PNG made from
 * that SVG by rsvg-convert (Debian's librsvg2-bin, which
 * scripts/install-deps.sh installs). Either way the picture goes to a
 * temporary file beside its destination and is renamed over it only when
 * everything succeeded, so a failure leaves the old file (or none) and no
 * temporary files.
 */
#include <errno.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"

extern char **environ;

/* The converter; found in PATH. */
#define RSVG "rsvg-convert"

/* Where the picture's chunks go. */
typedef struct pic_sink {
    FILE *f;
    int werr; /* errno of the first failed write, else 0 */
} pic_sink;

/* xchg_write_fn: write one chunk; nonzero on a write error. */
static int pic_write(void *ctx, const char *data, size_t len)
{
    pic_sink *o = ctx;
    if (fwrite(data, 1, len, o->f) != len) {
        o->werr = errno ? errno : EIO;
        return -1;
    }
    return 0;
}

/* Nonzero when an executable named name is in one of PATH's folders. */
static int in_path(const char *name)
{
    const char *path = getenv("PATH");
    if (!path || !*path)
        return 0;
    char buf[4096];
    while (*path) {
        size_t len = strcspn(path, ":");
        if (len > 0 && len + strlen(name) + 2 < sizeof buf) {
            snprintf(buf, sizeof buf, "%.*s/%s", (int)len, path, name);
            if (access(buf, X_OK) == 0)
                return 1;
        }
        path += len + (path[len] == ':');
    }
    return 0;
}

int xchg_cli_picture_format(const char *format, const char *path, int *png)
{
    if (format) {
        if (strcmp(format, "svg") == 0)
            *png = 0;
        else if (strcmp(format, "png") == 0)
            *png = 1;
        else
            return xchg_cli_error("bad --format '%s'; accepted: svg, png", format);
    } else {
        size_t n = path ? strlen(path) : 0;
        *png = n > 4 && strcmp(path + n - 4, ".png") == 0;
    }
    if (*png && !in_path(RSVG))
        return xchg_cli_error("PNG output needs " RSVG ", which is not in PATH; install "
                              "librsvg2-bin (scripts/install-deps.sh does), or write SVG "
                              "(--format svg)");
    return 0;
}

/* Draw into f and close it. 0 or an exit status after printing. */
static int draw_into(FILE *f, const char *path, const char *opt, const char *what,
                     xchg_cli_picture_fn fn, void *arg)
{
    pic_sink o = {f, 0};
    xchg_err err = {{0}};
    int rc = fn(arg, pic_write, &o, &err);
    int werr = o.werr;
    if (fflush(f) != 0 && !werr)
        werr = errno ? errno : EIO;
    if (f != stdout && fclose(f) != 0 && !werr)
        werr = errno ? errno : EIO;
    if (werr && f == stdout)
        return xchg_cli_error("writing standard output failed: %s", strerror(werr));
    if (werr)
        return xchg_cli_error("writing %s '%s' failed: %s", opt, path, strerror(werr));
    if (rc)
        return xchg_cli_lib_error(rc, what, &err);
    return 0;
}

/* Run rsvg-convert on svg into png (NULL: stdout). 0 or exit status. */
static int convert(const char *svg, const char *png)
{
    char *args[] = {RSVG, "-f", "png", "-o", (char *)png, (char *)svg, NULL};
    if (!png) {
        args[3] = (char *)svg;
        args[4] = NULL;
    }
    fflush(stdout);
    pid_t pid;
    int e = posix_spawnp(&pid, RSVG, NULL, NULL, args, environ);
    if (e)
        return xchg_cli_error("cannot run " RSVG ": %s; install librsvg2-bin", strerror(e));
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return xchg_cli_error("waiting for " RSVG ": %s", strerror(errno));
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        return xchg_cli_error(RSVG " failed (%s %d) to convert the SVG to PNG",
                              WIFEXITED(st) ? "exit status" : "signal",
                              WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
    return 0;
}

/* PNG: the SVG into a temporary file, converted into another, renamed. */
static int write_png(const char *path, const char *opt, const char *what, xchg_cli_picture_fn fn,
                     void *arg)
{
    int to_stdout = strcmp(path, "-") == 0;
    const char *base = to_stdout ? "xchg-picture" : path;
    char *svg = NULL, *png = NULL;
    char tmpl[64];
    if (to_stdout) {
        const char *dir = getenv("TMPDIR");
        snprintf(tmpl, sizeof tmpl, "%s/%s", dir && strlen(dir) < 40 ? dir : "/tmp", base);
        base = tmpl;
    }
    FILE *f = xchg_cli_tmp_beside(base, opt, &svg);
    if (!f)
        return XCHG_CLI_USAGE;
    int rc = draw_into(f, path, opt, what, fn, arg);
    if (rc == 0 && to_stdout) {
        rc = convert(svg, NULL);
    } else if (rc == 0) {
        FILE *pf = xchg_cli_tmp_beside(path, opt, &png);
        if (!pf)
            rc = XCHG_CLI_USAGE;
        else {
            fclose(pf);
            rc = convert(svg, png);
            if (rc == 0 && rename(png, path) != 0)
                rc = xchg_cli_error("cannot write %s '%s': %s", opt, path, strerror(errno));
            if (rc)
                unlink(png);
        }
    }
    unlink(svg);
    free(svg);
    free(png);
    return rc;
}

int xchg_cli_picture_write(const char *path, const char *opt, int png, const char *what,
                           xchg_cli_picture_fn fn, void *arg)
{
    if (png)
        return write_png(path, opt, what, fn, arg);
    if (strcmp(path, "-") == 0)
        return draw_into(stdout, path, opt, what, fn, arg);
    char *tmp = NULL;
    FILE *f = xchg_cli_tmp_beside(path, opt, &tmp);
    if (!f)
        return XCHG_CLI_USAGE;
    int rc = draw_into(f, path, opt, what, fn, arg);
    if (rc == 0 && rename(tmp, path) != 0)
        rc = xchg_cli_error("cannot write %s '%s': %s", opt, path, strerror(errno));
    if (rc)
        unlink(tmp);
    free(tmp);
    return rc;
}
