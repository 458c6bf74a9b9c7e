/*
 * consumer.c - a program outside the xchg tree, built against an installed
 * xchg (tests/install.sh builds it with pkg-config and with find_package,
 * against libxchg.so and libxchg.a). It uses only the installed xchg.h:
 * parse torus:4x4, generate T2, verify it, and check the counts that Suh's
 * T2 has on a 4x4 torus (4 steps, 32 blocks of volume, contention-free).
 * Prints one line; exits 1 on any difference.
 */
#include <stdio.h>
#include <string.h>

#include <xchg.h>

int main(void)
{
    xchg_topo t;
    xchg_err err = {{0}};
    if (xchg_topo_parse("torus:4x4", &t, &err) != 0) {
        fprintf(stderr, "consumer: parse torus:4x4: %s\n", err.msg);
        return 1;
    }
    xchg_sched *s = NULL;
    if (xchg_generate(&t, "t2", &s, &err) != 0) {
        fprintf(stderr, "consumer: generate t2: %s\n", err.msg);
        return 1;
    }
    xchg_verify_opts vo;
    memset(&vo, 0, sizeof vo);
    vo.threads = 1;
    xchg_verify_report rep;
    int rc = xchg_verify(s, &vo, &rep, &err);
    char spec[64];
    printf("xchg %s: %s on %s: ok=%d steps=%zu startups=%llu volume=%llu blocks=%llu\n",
           XCHG_VERSION, xchg_sched_algorithm(s), xchg_topo_spec(&t, spec, sizeof spec),
           rep.ok, rep.steps, (unsigned long long)rep.startups,
           (unsigned long long)rep.volume_blocks, (unsigned long long)rep.blocks);
    int good = rc == 0 && rep.ok && t.nodes == 16 && rep.steps == 4 && rep.startups == 4 &&
               rep.volume_blocks == 32 && rep.blocks == 256 && rep.link_conflicts == 0 &&
               strcmp(spec, "torus:4x4") == 0;
    xchg_sched_free(s);
    if (!good) {
        fprintf(stderr, "consumer: expected ok=1 steps=4 startups=4 volume=32 blocks=256 "
                        "on torus:4x4 (verify rc %d: %s)\n", rc, err.msg);
        return 1;
    }
    return 0;
}
