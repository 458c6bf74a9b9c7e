#!/usr/bin/env bash
# bench_cli.sh - a quick smoke test of xchg-bench under the build's launcher:
# bad options exit 2 with a message from rank 0 saying what was wrong and
# what is accepted, --help and --version exit 0 on stdout, small validated
# runs at p = 4 (xchg's auto, the MPI library's own, in place) print the
# OSU-style header and one Pass row per size, and --json prints one object
# per size that node parses.
# Usage: bash tests/mpi/bench_cli.sh path/to/xchg-bench [LAUNCHER]
B="${1:?usage: bench_cli.sh path/to/xchg-bench [launcher]}"
SUITE=bench_cli
HERE="$(cd "$(dirname "$0")" && pwd)"
source "$HERE/lib_mpi.sh" "${2:-mpirun}"
source "$HERE/../lib_cli.sh"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# usage_error PATTERN ARGS...: 2 ranks; exit 2, nothing on stdout, exactly one
# "xchg-bench: " line on stderr (rank 0 only) matching PATTERN.
usage_error() {
    local pattern="$1"
    shift
    mpi_run 2 "$B" "$@" >"$TMP/out" 2>"$TMP/err"
    local rc=$?
    local n
    n=$(grep -c '^xchg-bench: ' "$TMP/err")
    if [ "$rc" -eq 2 ] && [ ! -s "$TMP/out" ] && [ "$n" -eq 1 ] &&
        grep '^xchg-bench: ' "$TMP/err" | grep -qiE -- "$pattern"; then
        ok
    else
        bad "xchg-bench $* -> exit $rc, stdout '$(head -c 200 "$TMP/out")'," \
            "$n message lines, stderr '$(head -c 400 "$TMP/err")'" \
            "(wanted exit 2, no stdout, one line matching /$pattern/)"
    fi
}

usage_error "unknown option '--bogus'.*accepted" --bogus
usage_error "unknown option '-z'.*accepted" -z
usage_error "-m 'abc' is not a size range.*accepted" -m abc
usage_error "-m '0:8'.*at least 1 byte" -m 0:8
usage_error "-m '64:8'.*below MIN" -m 64:8
usage_error "-i '0' is not an iteration count.*1 to" -i 0
usage_error "-x 'x' is not a warm-up count" -x x
usage_error "-M '0' is not a memory size" -M 0
usage_error "--alg 'nosuch'.*known:.*auto .*shm .*mpi" --alg nosuch
usage_error "--topo 'torus:3x3' has 9 nodes.*2 ranks" --topo torus:3x3
usage_error "--topo 'bogus:2'.*accepted" --topo bogus:2
usage_error "--alg needs a value" --alg
usage_error "--alg 'bcast-hc'.*bcast-hc performs bcast, not the complete exchange" --alg bcast-hc
usage_error "unexpected argument 'stray'" stray

mpi_run 2 "$B" --help >"$TMP/out" 2>"$TMP/err"
rc=$?
expect "--help exit" "$rc" 0
grep -q -- '--message-size' "$TMP/out" && grep -q -- '--alg' "$TMP/out" && ok ||
    bad "--help: no option list on stdout: '$(head -c 300 "$TMP/out")'"
mpi_run 2 "$B" --version >"$TMP/out" 2>"$TMP/err"
expect "--version exit" "$?" 0
expect "--version output" "$(cat "$TMP/out")" "xchg-bench $(sed -n 's/.*XCHG_VERSION "\(.*\)"/\1/p' \
    "$HERE/../../include/xchg.h")"

# table RUN-NAME ARGS...: p = 4, sizes 1..64 (7 rows), validated, full.
table() {
    local name="$1"
    shift
    mpi_run 4 "$B" -m 1:64 -i 20 -x 2 -c -f "$@" >"$TMP/out" 2>"$TMP/err"
    local rc=$?
    expect "$name: exit" "$rc" 0
    grep -q '^# xchg-bench MPI All-to-All Personalized Exchange Latency Test' "$TMP/out" && ok ||
        bad "$name: no title line"
    grep -q '^# MPI library: ' "$TMP/out" && ok || bad "$name: no MPI library line"
    grep -qE '^# Size +Avg Latency\(us\) +Min Latency\(us\) +Max Latency\(us\) +Iterations +Validation$' \
        "$TMP/out" && ok || bad "$name: no OSU column header in '$(cat "$TMP/out")'"
    grep -q '^# plan' "$TMP/out" && ok || bad "$name: no plan line"
    local rows
    rows=$(grep -cE '^[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +20 +Pass$' "$TMP/out")
    expect "$name: Pass rows" "$rows" 7
    expect "$name: first size" "$(grep -E '^[0-9]' "$TMP/out" | head -n1 | awk '{print $1}')" 1
    expect "$name: last size" "$(grep -E '^[0-9]' "$TMP/out" | tail -n1 | awk '{print $1}')" 64
}
table "auto"
table "mpi" --alg mpi
table "auto in place" -l
table "mpi in place" --alg mpi --in-place

# --json: one object per size with the issue's fields.
mpi_run 4 "$B" -m 8:1K -i 10 -x 1 -c --json >"$TMP/out" 2>"$TMP/err"
expect "json: exit" "$?" 0
expect "json: lines" "$(jsx 'L.length' <"$TMP/out")" 8
expect "json: sizes" "$(jsx 'L.map(o => o.bytes).join(",")' <"$TMP/out")" \
    "8,16,32,64,128,256,512,1024"
expect "json: fields" "$(jsx 'L.every(o => typeof o.alg === "string" && o.p === 4 &&
    o.avg_us > 0 && o.min_us <= o.avg_us && o.avg_us <= o.max_us && o.iterations === 10 &&
    o.valid === true && o.requested === "auto")' <"$TMP/out")" true
mpi_run 4 "$B" -m 8:8 -i 5 -x 0 --alg mpi --json >"$TMP/out" 2>"$TMP/err"
expect "json mpi" "$(jsx 'o.alg + " " + o.topology + " " + o.valid' <"$TMP/out")" "mpi null null"

# --alg mpi is the MPI library's own call, not xchg's drop-in (which this
# program links): the drop-in's count at MPI_Finalize carries none of it.
XCHG_VERBOSE=1 mpi_run 4 "$B" -m 8:8 -i 5 -x 0 --alg mpi >"$TMP/out" 2>"$TMP/err"
grep -q "at MPI_Finalize: 0 MPI_Alltoall calls carried by xchg" "$TMP/err" && ok ||
    bad "--alg mpi went through xchg: '$(grep MPI_Finalize "$TMP/err")'"

finish
