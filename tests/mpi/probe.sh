#!/usr/bin/env bash
# probe.sh - `xchg probe` under the build's launcher: a short probe writes a
# machine file that `xchg cost --machine FILE` reads back with the figures
# the probe printed; --json parses, with its ranges fitted over the sizes
# measured; fewer than 2 ranks, bad options and an unwritable output file
# exit 2 with one message from rank 0 (and write nothing).
# Usage: bash tests/mpi/probe.sh path/to/xchg [LAUNCHER]
X="${1:?usage: probe.sh path/to/xchg [launcher]}"
SUITE=mpi_probe
HERE="$(cd "$(dirname "$0")" && pwd)"
source "$HERE/lib_mpi.sh" "${2:-mpirun}"
source "$HERE/../lib_cli.sh"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# usage_error NP PATTERN ARGS...: exit 2, nothing on stdout, one
# "xchg probe: " line matching PATTERN. The runs go in the background, a
# few at once (mpi_bg: each is mostly the launcher starting and stopping);
# mpi_refusals_check "xchg probe: " waits and checks each, before any probe measures.
REFUSED_CMD=("$X" probe)
usage_error() { mpi_refused "$@"; }
# Under MPICH (one launch at a time) and under the sanitizers
# (XCHG_TEST_REDUCED=1) only the refusals that depend on the job (its size,
# rank 0's file): the others are the same option parsing with any MPI and
# in any build, and run in the plain Open MPI build.
usage_error 1 "needs 2 or more ranks, and has 1" -o "$TMP/one.txt"
usage_error 2 "cannot write the machine file '$TMP/no/such/m.txt'.*accepted" \
    --max-size 16K -o "$TMP/no/such/m.txt"
if [ "$(mpi_flavor)" = openmpi ] && [ "${XCHG_TEST_REDUCED:-0}" != 1 ]; then
    usage_error 2 "unknown option '--bogus'; accepted:" --bogus
    usage_error 2 "--max-size '1K' is not a size; accepted: 4K to 1G" --max-size 1K
    usage_error 2 "--max-size '2G' is not a size" --max-size 2G
    usage_error 2 "--name 'a b' is not a machine name" --name 'a b'
    usage_error 2 "unexpected argument 'stray'" stray
fi
mpi_refusals_check "xchg probe: "
[ -e "$TMP/one.txt" ] && bad "a refused probe wrote its file" || ok

"$X" probe --help >"$TMP/out" 2>&1
expect "--help exit" "$?" 0
grep -q -- '--max-size' "$TMP/out" && ok || bad "--help lists no options: $(head -c 200 "$TMP/out")"

# A short probe (up to 64 KiB) on 2 ranks, then on 3 (oversubscribed;
# reduced, the sanitizer build: 2 only, the same code of xchg probe, which
# times its barrier on every rank of the job at either count).
probe_ps="2 3"
[ "${XCHG_TEST_REDUCED:-0}" = 1 ] && probe_ps=2
for np in $probe_ps; do
    mpi_run $np "$X" probe --max-size 64K --name test-$np -o "$TMP/m$np.txt" >"$TMP/out" 2>"$TMP/err"
    expect "probe on $np ranks: exit" "$?" 0
    grep -q "^wrote $TMP/m$np.txt" "$TMP/out" && ok || bad "probe on $np: no 'wrote' line: $(cat "$TMP/out" "$TMP/err" | head -c 400)"
    expect "machine file header" "$(head -n1 "$TMP/m$np.txt")" "xchg-machine/1"
    grep -q "barrier on $np ranks" "$TMP/out" && ok || bad "probe on $np: barrier not on $np ranks"
    # the figures printed are the file's
    printed=$(awk '$1 == "test-'$np'" { print $2, $3 }' "$TMP/out")
    filed=$(awk '$1 == "ts" { ts = $2 } $1 == "tw" { tw = $2 } END { printf "%.4g %.4g", ts, tw }' "$TMP/m$np.txt")
    expect "probe on $np: printed ts tw = filed" "$printed" "$filed"
    "$X" cost --topo torus:4x4 --alg t2 --m 1024 --machine "$TMP/m$np.txt" --json >"$TMP/cost" 2>"$TMP/err"
    expect "cost --machine FILE exit" "$?" 0
    expect "cost reads the machine's name" "$(jsx 'o.machine' <"$TMP/cost")" "test-$np"
    expect "cost's tw is the file's, and positive" \
        "$(jsx 'o.tw > 0 && Math.abs(o.tw / '"$(awk '$1=="tw"{print $2}' "$TMP/m$np.txt")"' - 1) < 1e-6' <"$TMP/cost")" true
done

mpi_run 2 "$X" probe --max-size 64K --json >"$TMP/json" 2>"$TMP/err"
expect "--json exit" "$?" 0
expect "--json: 32 sizes from 1 B to 64 KiB" "$(jsx 'o.sizes.length + " " + o.sizes[0][0] + " " + o.sizes[o.sizes.length - 1][0]' <"$TMP/json")" "32 1 65536"
expect "--json: every time positive" "$(jsx 'o.sizes.every(s => s[1] > 0)' <"$TMP/json")" true
expect "--json: ranges cover the sizes, split at the switch" \
    "$(jsx 'const r = o.ranges; r[0].lo == 1 && r[r.length - 1].hi == 65536 && (r.length == 1 ? o.switch_bytes == 0 : r[1].lo == o.switch_bytes && r[0].hi < o.switch_bytes)' <"$TMP/json")" true
expect "--json: the machine is the last range" \
    "$(jsx 'const r = o.ranges[o.ranges.length - 1]; o.machine.ts == r.ts && o.machine.tw == r.tw && o.file === null' <"$TMP/json")" true
finish
