/*
 * fuzz_mpi_env.c - libFuzzer harness for the MPI library's environment
 * variables: xchg_mpi_opts_from_env (src/mpi/opts.c) with XCHG_ALG,
 * XCHG_TOPOLOGY and XCHG_VERBOSE set from the input, which is split at its
 * first two newlines into the three values (a missing part leaves that
 * variable unset; an empty one sets it to "", and a value is cut at 400
 * bytes, beyond the fuzzer's -max_len). Needs only mpi.h: opts.c
 * makes no MPI call, so there is no MPI_Init.
 *
 * It asserts (abort() on violation):
 *   - the result is XCHG_OK or XCHG_EINVAL, and a refusal has a message
 *     and leaves the options at their defaults;
 *   - on success the options point at the variables' values (or keep the
 *     defaults where a variable is unset or empty), verbose is 0 or 1, and
 *     each value is valid on its own: the algorithm passes
 *     xchg_mpi_alg_check, the topology is "auto" or parses.
 */
/* putenv is XSI, beyond the _POSIX_C_SOURCE the build sets. */
#define _XOPEN_SOURCE 700

#include "fuzz_util.h"
#include "xchg.h"
#include "xchg_mpi.h"

static const char *const vars[3] = {"XCHG_ALG", "XCHG_TOPOLOGY", "XCHG_VERBOSE"};

/* "NAME=value" for each variable, handed to putenv and rewritten in place.
 * Not setenv: glibc's setenv keeps every value it ever replaced (so old
 * getenv pointers stay valid), which over millions of inputs ran the first
 * 10-minute run out of memory. */
static char env_buf[3][512];

/* Set vars[k] to value (at most 256 bytes, -max_len), or unset it. */
static void set_var(int k, const char *value)
{
    if (!value) {
        unsetenv(vars[k]);
        return;
    }
    snprintf(env_buf[k], sizeof env_buf[k], "%s=%s", vars[k], value);
    if (putenv(env_buf[k]) != 0)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *in = fz_cstr(data, size);
    if (!in)
        return 0;
    char *part[3] = {NULL, NULL, NULL};
    char *p = in;
    for (int k = 0; k < 3 && p; k++) {
        part[k] = p;
        char *nl = k < 2 ? strchr(p, '\n') : NULL;
        if (nl)
            *nl = '\0';
        p = nl ? nl + 1 : NULL;
    }
    for (int k = 0; k < 3; k++)
        set_var(k, part[k]);

    xchg_mpi_opts o;
    xchg_mpi_opts_default(&o);
    xchg_err err;
    err.msg[0] = '\0';
    int rc = xchg_mpi_opts_from_env(&o, &err);
    FZ_CHECK(rc == XCHG_OK || rc == XCHG_EINVAL, in);
    if (rc != XCHG_OK) {
        FZ_CHECK(err.msg[0] != '\0', in);
        FZ_CHECK(!strcmp(o.alg, "auto") && !strcmp(o.topology, "auto") && o.verbose == 0, in);
    } else {
        const char *alg = getenv("XCHG_ALG"), *topo = getenv("XCHG_TOPOLOGY");
        FZ_CHECK(alg && *alg ? o.alg == alg : !strcmp(o.alg, "auto"), in);
        FZ_CHECK(topo && *topo ? o.topology == topo : !strcmp(o.topology, "auto"), in);
        FZ_CHECK(o.verbose == 0 || o.verbose == 1, in);
        FZ_CHECK(xchg_mpi_alg_check(o.alg, &err) == XCHG_OK, in);
        xchg_topo t;
        FZ_CHECK(!strcmp(o.topology, "auto") || xchg_topo_parse(o.topology, &t, NULL) == XCHG_OK,
                 in);
    }
    free(in);
    return 0;
}
