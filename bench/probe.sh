#!/usr/bin/env bash
# probe.sh - this machine's figures from `xchg probe`, beside Bokhari's
# Table 1 (seed 002), and how long the probe takes (docs/machine-file.md).
# Runs the probe RUNS times on 2 ranks (the spread shows the noise of a
# shared 2-core machine) and once on 16 ranks (the barrier on 16,
# oversubscribed), and keeps the last 2-rank machine file.
#
# Usage: bash bench/probe.sh [build-dir] [runs]
# Writes bench/results/probe.txt and bench/results/probe-machine.txt.
set -u -o pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
BUILD="${1:-$HERE/../build}"
RUNS="${2:-5}"
X="$BUILD/xchg"
OUT="$HERE/results/probe.txt"
[ -x "$BUILD/xchg-probe" ] || { echo "probe.sh: no xchg-probe in $BUILD (build with an MPI)" >&2; exit 2; }
MPIRUN=$(command -v mpirun.openmpi || command -v mpirun)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# probe NP FILE: run it, its JSON in $TMP/j, wall seconds in $wall.
probe() {
    local t0=$EPOCHREALTIME
    "$MPIRUN" --oversubscribe -np "$1" "$X" probe --json -o "$2" >"$TMP/j" || exit 1
    local t1=$EPOCHREALTIME
    wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
}
# field EXPR: a value from the last JSON (node).
field() { node -e 'const o = JSON.parse(require("fs").readFileSync(0, "utf8")); console.log('"$1"')' <"$TMP/j"; }

{
echo "# xchg probe on this machine ($(nproc) cores, $("$MPIRUN" --version | head -n1)), $(date -u +%Y-%m-%d)"
echo "# one-way ping-pong 1 B .. 4 MiB between ranks 0 and 1 (shared memory), fitted per"
echo "# protocol range; t_r: memcpy of 64 KiB blocks; barrier: MPI_Barrier on all ranks."
echo
echo "## $RUNS runs on 2 ranks"
echo "# run  switch(B)  ts_eager(us)  tw_eager(us/B)  ts(us)  tw(us/B)   tr(us/B)  barrier(us)  rms(eager,main)  wall(s)"
for ((i = 1; i <= RUNS; i++)); do
    probe 2 "$TMP/m.txt"
    field '[o.switch_bytes, o.machine.ts_eager.toPrecision(3), o.machine.tw_eager.toPrecision(3), o.machine.ts.toPrecision(3), o.machine.tw.toPrecision(3), o.machine.tr.toPrecision(3), o.machine.barrier.toPrecision(3), o.ranges.map(r => (100 * r.rms_rel).toFixed(1) + "%").join(","), '"$wall"'].join("  ")' |
        awk -v i="$i" '{ printf "  %-4s %s\n", i, $0 }'
done
cp "$TMP/m.txt" "$HERE/results/probe-machine.txt"
echo
echo "## 16 ranks (oversubscribed 8 to a core: the barrier is what the executor sees at p = 16)"
probe 16 "$TMP/m16.txt"
echo "  ts $(field 'o.machine.ts.toPrecision(3)') us, tw $(field 'o.machine.tw.toPrecision(3)') us/B, barrier $(field 'o.machine.barrier.toPrecision(3)') us, wall $wall s"
echo
echo "## Beside Bokhari, Table 1 (messages under 8000 bytes there)"
echo "# machine          t_s(us)   t_w(us/B)  t_r(us/B)  barrier(us, 16 procs)"
echo "  Paragon             75      0.011      0.0140     391"
echo "  SP2                 70      0.043      0.0043     236"
echo "  CS-2               105      0.025      0.0153      62.4"
awk '$1 == "ts_eager" { ts = $2 } $1 == "tw_eager" { tw = $2 } $1 == "tr" { tr = $2 }
     END { printf "  this, eager     %8.3g  %9.3g  %9.3g", ts, tw, tr }' "$HERE/results/probe-machine.txt"
echo "     $(field 'o.machine.barrier.toPrecision(3)')"
awk '$1 == "ts" { ts = $2 } $1 == "tw" { tw = $2 } $1 == "tr" { tr = $2 }
     END { printf "  this, large     %8.3g  %9.3g  %9.3g\n", ts, tw, tr }' "$HERE/results/probe-machine.txt"
} | tee "$OUT"
