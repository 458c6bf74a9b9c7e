/*
 * auto_files.c - what auto reads besides the schedules: a tuning file
 * (XCHG_TUNING_FILE: measured winners, from `xchg tune`; docs/tuning.md)
 * and a machine file (XCHG_MACHINE_FILE: measured t_s, t_w, t_r, from
 * `xchg probe`; docs/machine-file.md), once per set of options on a
 * communicator (settings.c): every rank reads them at the first call that
 * names them.
 *
 * Every rank must make the same choice, and a path can name different
 * files (or none) on different nodes. So rank 0 reads each file and
 * broadcasts its bytes, and every rank parses the same text; the paths
 * are rank 0's. A file that cannot be read, or is damaged, truncated or of
 * another kind, is refused with its line; auto then goes on without it
 * (the cost model instead of the tuning, the default figures instead of
 * the machine), and rank 0 says why. Nothing here stops the exchange.
 */
#include "mpi/comm.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Largest tuning and machine files read. */
#define TUNING_FILE_MAX ((size_t)4 << 20)
#define MACHINE_FILE_MAX ((size_t)64 << 10)

/* What rank 0 found for one file: nothing asked, bytes, or a reason. */
enum { FILE_NONE = 0, FILE_BYTES = 1, FILE_REASON = 2 };

/* One file as rank 0 sees it, and then as every rank has it. */
typedef struct shared_file {
    const char *path; /* rank 0's: NULL or "" for none */
    size_t max;
    long long head[2]; /* FILE_*, and the length of what follows */
    char *bytes;       /* FILE_BYTES: the text (NUL-terminated); caller frees */
    char why[320];     /* FILE_REASON: why rank 0 could not read it */
} shared_file;

/* Read f->path (at most f->max bytes) on the calling rank into f. */
static void read_local(shared_file *f)
{
    if (!f->path || !*f->path)
        return;
    FILE *in = fopen(f->path, "rb");
    char *b = NULL;
    size_t n = 0;
    if (!in) {
        snprintf(f->why, sizeof f->why, "cannot read it: %s", strerror(errno));
    } else {
        b = malloc(f->max + 1);
        n = b ? fread(b, 1, f->max + 1, in) : 0;
        int bad = !b || ferror(in);
        fclose(in);
        if (bad || n > f->max) {
            snprintf(f->why, sizeof f->why,
                     bad ? "cannot read it" : "it is larger than %zu bytes", f->max);
            free(b);
            b = NULL;
        }
    }
    f->bytes = b;
    f->head[0] = b ? FILE_BYTES : FILE_REASON;
    f->head[1] = b ? (long long)n : (long long)strlen(f->why) + 1;
}

/* Bytes a file's broadcast moves at a time: a rank that cannot hold the
 * file still takes part, into a buffer of this size on its stack. */
#define SHARE_CHUNK ((size_t)16 << 10)

/* Broadcast what rank 0 read of f (head already broadcast): its bytes or
 * its reason. A rank that cannot allocate the bytes takes part anyway and
 * keeps a reason instead. An MPI error code. */
static int share(xchg_mpi_comm *cs, shared_file *f)
{
    if (f->head[0] == FILE_NONE)
        return MPI_SUCCESS;
    size_t n = (size_t)f->head[1];
    if (f->head[0] == FILE_REASON) {
        f->head[1] = n < sizeof f->why ? (long long)n : (long long)sizeof f->why;
        cs->collectives++;
        return PMPI_Bcast(f->why, (int)f->head[1], MPI_BYTE, 0, cs->comm);
    }
    if (cs->rank != 0 && !(f->bytes = malloc(n + 1)))
        snprintf(f->why, sizeof f->why, "out of memory for %zu bytes", n);
    char sink[SHARE_CHUNK];
    int rc = MPI_SUCCESS;
    for (size_t at = 0; at < n && rc == MPI_SUCCESS; at += SHARE_CHUNK) {
        size_t k = n - at < SHARE_CHUNK ? n - at : SHARE_CHUNK;
        cs->collectives++;
        rc = PMPI_Bcast(f->bytes ? f->bytes + at : sink, (int)k, MPI_BYTE, 0, cs->comm);
    }
    if (f->bytes)
        f->bytes[n] = '\0';
    return rc;
}

/* Add "NAME=path: reason; consequence" to s's note. */
static void note(xchg_mpi_inputs *s, const char *name, const char *path, const char *reason,
                 const char *consequence)
{
    size_t at = strlen(s->auto_note);
    snprintf(s->auto_note + at, sizeof s->auto_note - at, "%s%s=%.100s: %.180s; %s",
             at ? "; " : "", name, path ? path : "", reason, consequence);
}

int xchg_mpi_auto_files(xchg_mpi_comm *cs, xchg_mpi_inputs *s)
{
    shared_file tun = {.path = s->tuning_path, .max = TUNING_FILE_MAX};
    shared_file mac = {.path = s->machine_path, .max = MACHINE_FILE_MAX};
    if (cs->rank == 0) {
        read_local(&tun);
        read_local(&mac);
    }
    long long heads[4] = {tun.head[0], tun.head[1], mac.head[0], mac.head[1]};
    cs->collectives++;
    int rc = PMPI_Bcast(heads, 4, MPI_LONG_LONG, 0, cs->comm);
    if (rc == MPI_SUCCESS) {
        memcpy(tun.head, heads, sizeof tun.head);
        memcpy(mac.head, heads + 2, sizeof mac.head);
        rc = share(cs, &tun);
    }
    if (rc == MPI_SUCCESS)
        rc = share(cs, &mac);
    xchg_err err = {{0}};
    if (rc == MPI_SUCCESS && tun.head[0] != FILE_NONE) {
        if (!tun.bytes)
            note(s, "XCHG_TUNING_FILE", s->tuning_path, tun.why, "auto uses the cost model");
        else if (xchg_tuning_parse(tun.bytes, (size_t)tun.head[1], &s->tuning, &err) != XCHG_OK)
            note(s, "XCHG_TUNING_FILE", s->tuning_path, err.msg, "auto uses the cost model");
    }
    if (rc == MPI_SUCCESS && mac.head[0] != FILE_NONE) {
        if (!mac.bytes)
            note(s, "XCHG_MACHINE_FILE", s->machine_path, mac.why,
                 "auto prices with its default figures");
        else if (xchg_machine_parse(mac.bytes, (size_t)mac.head[1], &s->mach, &err) != XCHG_OK)
            note(s, "XCHG_MACHINE_FILE", s->machine_path, err.msg,
                 "auto prices with its default figures");
        else
            s->have_file_mach = 1;
    }
    free(tun.bytes);
    free(mac.bytes);
    return rc;
}
