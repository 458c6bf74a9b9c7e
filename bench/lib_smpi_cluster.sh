# lib_smpi_cluster.sh - what bench/smpi_cluster_flat.sh and
# bench/smpi_cluster.sh share; sourced, not run. Each sets ROOT (the
# checkout) and a name for its messages in BENCH before sourcing it.
#
#   smpi_build            build build/ and build-smpi/ (smpicc) when missing
#   smpi_simgrid_version  the SimGrid package's version
#   smpi_median           an awk function: the median of a list of numbers
#                         (paste "$(smpi_median)" into an awk program)

# smpi_build: SimGrid (scripts/install-deps.sh) and the executor built with
# smpicc in build-smpi (XCHG_MPI=smpi), as tests/smpi and the other SMPI
# benchmarks build it, brought up to date with the sources (an existing
# tree is rebuilt where they changed); exit 1 when the build fails.
smpi_build() {
    command -v smpicc >/dev/null 2>&1 && [ -x /usr/bin/time ] || bash "$ROOT/scripts/install-deps.sh"
    [ -x "$ROOT/build/xchg" ] || make -C "$ROOT" build >/dev/null ||
        { echo "$BENCH: the ordinary build (make build) failed" >&2; exit 1; }
    CC=smpicc cmake -S "$ROOT" -B "$ROOT/build-smpi" -DCMAKE_BUILD_TYPE=Release -DXCHG_MPI=smpi \
        -DXCHG_HOST_CLI="$ROOT/build/xchg" >/dev/null && cmake --build "$ROOT/build-smpi" -j2 >/dev/null ||
        { echo "$BENCH: the smpicc build (build-smpi) failed" >&2; exit 1; }
}

smpi_simgrid_version() {
    dpkg-query -W -f '${Version}' libsimgrid-dev 2>/dev/null || echo '?'
}

smpi_median() {
    cat <<'EOF'
function median(list,   a, n, i, j, x) {
    n = split(list, a, " ")
    for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j > 0 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
EOF
}
