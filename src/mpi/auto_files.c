/*
 * auto_files.c - what auto reads besides the schedules: a tuning file
 * (XCHG_TUNING_FILE: measured winners, from `xchg tune`; docs/tuning.md)
 * and a machine file (XCHG_MACHINE_FILE: measured t_s, t_w, t_r, from
 * `xchg probe`; docs/machine-file.md).
 *
 * Every rank must make the same choice, and a path can name different
 * files (or none) on different nodes. So rank 0 reads each file and
 * broadcasts its bytes, and every rank parses the same text. A file that
 * cannot be read, or is damaged, truncated or of another kind, is refused
 * with its line; auto then goes on without it (the cost model instead of
 * the tuning, the default figures instead of the machine), and rank 0
 * says why. Nothing here stops the exchange.
 */
#include "mpi/mpi_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Largest tuning and machine files read. */
#define TUNING_FILE_MAX ((size_t)4 << 20)
#define MACHINE_FILE_MAX ((size_t)64 << 10)

/* Read path (at most max bytes) on the calling rank: 0 and a new buffer,
 * or -1 and the reason in why. */
static int read_local(const char *path, size_t max, char **buf, size_t *len, char *why,
                      size_t wlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(why, wlen, "cannot read it: %s", strerror(errno));
        return -1;
    }
    char *b = malloc(max + 1);
    size_t n = b ? fread(b, 1, max + 1, f) : 0;
    int bad = !b || ferror(f);
    fclose(f);
    if (bad || n > max) {
        snprintf(why, wlen, bad ? "cannot read it" : "it is larger than %zu bytes", max);
        free(b);
        return -1;
    }
    *buf = b;
    *len = n;
    return 0;
}

/*
 * Rank 0 reads path (its own opts: NULL or "" for none) and broadcasts what
 * it found. On every rank: 1 and the bytes (*buf, the caller frees it), 0
 * when rank 0 has no such file to read, -1 with the reason in why. Sets
 * *mpi_rc to an MPI error code when a broadcast fails.
 */
static int read_shared(xchg_mpi_plan *pl, const char *path, size_t max, char **buf,
                       size_t *len, char *why, size_t wlen, int *mpi_rc)
{
    /* head[0]: 0 none, 1 bytes follow, 2 a reason follows; head[1]: length */
    long long head[2] = {0, 0};
    char *b = NULL;
    size_t n = 0;
    if (pl->rank == 0 && path && *path) {
        if (read_local(path, max, &b, &n, why, wlen) == 0) {
            head[0] = 1;
            head[1] = (long long)n;
        } else {
            head[0] = 2;
            head[1] = (long long)strlen(why) + 1;
        }
    }
    *mpi_rc = PMPI_Bcast(head, 2, MPI_LONG_LONG, 0, pl->comm);
    if (*mpi_rc != MPI_SUCCESS || head[0] == 0) {
        free(b);
        return 0;
    }
    if (pl->rank != 0) {
        b = head[0] == 1 ? malloc((size_t)head[1] + 1) : NULL;
        if (head[0] == 1 && !b) {
            /* take part in the broadcast anyway, into nothing useful */
            snprintf(why, wlen, "out of memory for %lld bytes", head[1]);
        }
    }
    char *target = head[0] == 1 ? b : why;
    char sink[1];
    if (!target)
        target = sink; /* only with a zero-length broadcast below */
    *mpi_rc = PMPI_Bcast(target, b || head[0] == 2 ? (int)head[1] : 0, MPI_BYTE, 0, pl->comm);
    if (*mpi_rc != MPI_SUCCESS || head[0] == 2 || !b) {
        free(b);
        return -1;
    }
    *buf = b;
    *len = (size_t)head[1];
    return 1;
}

/* Add "NAME=path: reason; consequence" to the plan's note. */
static void note(xchg_mpi_plan *pl, const char *name, const char *path, const char *reason,
                 const char *consequence)
{
    size_t at = strlen(pl->auto_note);
    snprintf(pl->auto_note + at, sizeof pl->auto_note - at, "%s%s=%.100s: %.180s; %s",
             at ? "; " : "", name, path ? path : "", reason, consequence);
    pl->bad_value = 1;
}

int xchg_mpi_auto_files(xchg_mpi_plan *pl, const xchg_mpi_opts *opts)
{
    char why[320] = "";
    char *text = NULL;
    size_t len = 0;
    int rc = MPI_SUCCESS;
    pl->auto_note[0] = '\0';
    int got = read_shared(pl, opts->tuning_file, TUNING_FILE_MAX, &text, &len, why,
                          sizeof why, &rc);
    if (rc != MPI_SUCCESS)
        return rc;
    if (got < 0) {
        note(pl, "XCHG_TUNING_FILE", opts->tuning_file, why, "auto uses the cost model");
    } else if (got > 0) {
        xchg_err err = {{0}};
        if (xchg_tuning_parse(text, len, &pl->tuning, &err) != XCHG_OK)
            note(pl, "XCHG_TUNING_FILE", opts->tuning_file, err.msg,
                 "auto uses the cost model");
        else
            snprintf(pl->tuning_path, sizeof pl->tuning_path, "%s",
                     opts->tuning_file ? opts->tuning_file : "");
        free(text);
    }
    text = NULL;
    got = read_shared(pl, opts->machine_file, MACHINE_FILE_MAX, &text, &len, why, sizeof why,
                      &rc);
    if (rc != MPI_SUCCESS)
        return rc;
    if (got < 0) {
        note(pl, "XCHG_MACHINE_FILE", opts->machine_file, why,
             "auto prices with its default figures");
    } else if (got > 0) {
        xchg_err err = {{0}};
        if (xchg_machine_parse(text, len, &pl->file_mach, &err) != XCHG_OK)
            note(pl, "XCHG_MACHINE_FILE", opts->machine_file, err.msg,
                 "auto prices with its default figures");
        else
            pl->have_mach = 1;
        free(text);
    }
    return MPI_SUCCESS;
}

void xchg_mpi_tuned_why(const xchg_mpi_plan *pl, const char *what, const char *topo, char *out,
                        size_t len)
{
    snprintf(out, len, "auto: tuned (%.100s): %s measured fastest for %d ranks on %s near %zu-byte "
                       "blocks",
             pl->tuning_path, what, pl->p, topo, pl->block_bytes);
}

void xchg_mpi_auto_files_free(xchg_mpi_plan *pl)
{
    xchg_tuning_free(pl->tuning);
    pl->tuning = NULL;
}
