/*
 * test_shared_lib.c - libxchg.so as a user's program sees it: linked alone
 * (no static library), the public API works end to end, and the shared
 * object exports every function the public headers declare (read from the
 * headers named on the command line: xchg_core.h, xchg_model.h,
 * xchg_rank.h, xchg_consumers.h) but none of the internal ones
 * (XCHG_INTERNAL: schedule building, rule constructors, registry entries,
 * error formatting).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "xchg.h"

int main(int argc, char **argv)
{
    /* The public API through the shared library: generate, verify, cost. */
    xchg_topo t = check_topo("torus:8x8");
    xchg_sched *s = NULL;
    xchg_err err = {{0}};
    CHECK(xchg_generate(&t, "mesh2", &s, &err) == 0 && s, "generate mesh2: %s", err.msg);
    if (s) {
        xchg_verify_report rep;
        check_verify_clean(s, "mesh2 on torus:8x8 through libxchg.so", &rep);
        CHECK_EQ_U64(rep.startups, 14, "mesh2 on 8x8 start-ups");
        xchg_sched_free(s);
    }

    CHECK(argc >= 3, "usage: test_shared_lib PATH/libxchg.so PATH/xchg_core.h ...");
    if (argc < 3)
        return check_finish("test_shared_lib");
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    CHECK(h != NULL, "dlopen %s: %s", argv[1], dlerror());
    if (!h)
        return check_finish("test_shared_lib");
    /* Every function the public headers declare must be exported: read the
     * names from the headers themselves, so a new public call is checked
     * without a list. */
    int declared = 0;
    for (int a = 2; a < argc; a++) {
        FILE *hdr = fopen(argv[a], "r");
        CHECK(hdr != NULL, "open %s", argv[a]);
        char line[512];
        while (hdr && fgets(line, sizeof line, hdr)) {
            /* a declaration line: "<type> xchg_name(" or "<type> *xchg_name(" */
            char *name = strstr(line, "xchg_");
            if (!name || line[0] == ' ' || line[0] == '#' || line[0] == '/' || line[0] == '}' ||
                strncmp(line, "typedef", 7) == 0)
                continue;
            size_t n = strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789_");
            if (name[n] != '(')
                continue;
            name[n] = '\0';
            declared++;
            CHECK(dlsym(h, name) != NULL, "libxchg.so exports %s (declared in %s)", name, argv[a]);
        }
        if (hdr)
            fclose(hdr);
    }
    CHECK(declared >= 40, "found %d function declarations in the public headers", declared);
    const char *hidden[] = {"xchg_sched_new", "xchg_sched_add", "xchg_fail", "xchg_step_xor",
                            "xchg_rule_coord_ne", "xchg_virtual_embed", "xchg_alg_ring",
                            "xchg_parse_u64"};
    for (size_t i = 0; i < sizeof hidden / sizeof hidden[0]; i++)
        CHECK(dlsym(h, hidden[i]) == NULL, "libxchg.so hides the internal %s", hidden[i]);
    dlclose(h);
    return check_finish("test_shared_lib");
}
