#!/usr/bin/env bash
# exec.sh - xchg's MPI executor under SimGrid's SMPI: xchg-bench built with
# smpicc (the build-smpi tree, XCHG_MPI=smpi) runs unchanged under smpirun
# with 64 ranks on a simulated 8x8 torus (scripts/simgrid-platform.sh).
#   1. Every algorithm that applies to torus:8x8, auto, and SMPI's own
#      MPI_Alltoall (its default and the algorithms bench/smpi_executor.sh
#      compares against), 8 B to 4 KiB (512 B to 4 KiB where many messages
#      are in flight at once), every received byte validated.
#   2. Where a schedule is contention-free and runs one step after the
#      other (t1, at2, mesh2), SMPI's simulated time of the executor's run
#      equals xchg sim's on the same links within 1% at 1 KiB: the executor
#      sends what the schedule says, when it says.
#   3. xchg-bench's own refusals work under smpirun (exit 2, a message).
# And xchg-bench's defaults (auto on the topology auto finds) run: under
# SMPI that is complete:64, since SMPI cannot say whether ranks form a grid.
#   4. Auto counts the simulated hosts' cores, not this machine's.
#   5. The exchanges through one leader a node and by aggregation run on
#      SMPI's hosts.
#   6. XCHG_SMPI_COPY_COST charges the executor's copies, deterministically:
#      pairwise copies one block (its own) before it sends, so a copy of
#      1,000 ns adds 1 us; 0,0 changes nothing; Bruck and aggregation,
#      which copy at every step, grow by more; a bad value is refused.
# The runs of 1 and 2 go two at a time (smpi_bg, below).
#
# Usage: bash tests/smpi/exec.sh path/to/build-smpi/xchg-bench path/to/smpirun path/to/xchg
SUITE=smpi_exec
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT="$HERE/../.."
BENCH=$1 SMPIRUN=$2 X=$3
. "$ROOT/tests/lib_cli.sh"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
BW=1e9 LAT=1e-7 TW=0.001 TH=0.1 # the links, as SMPI and xchg sim take them
plat=$(bash "$ROOT/scripts/simgrid-platform.sh" --shape 8x8 --bw $BW --lat $LAT --out "$TMP") ||
    { bad "simgrid-platform.sh failed"; finish; exit 1; }

# smpi OUT ARGS...: run xchg-bench ARGS under smpirun, with SimGrid's
# settings in the array cfg; its status in $rc.
cfg=()
smpi() {
    local out=$1
    shift
    "$SMPIRUN" -platform "$plat" -hostfile "${plat%.xml}.hosts" --cfg=network/model:CM02 \
        --cfg=network/crosstraffic:0 --cfg=smpi/simulate-computation:no "${cfg[@]}" \
        "$BENCH" "$@" >"$out" 2>&1
    rc=$?
}

# smpi_bg NAME ARGS...: smpi in the background, into $TMP/NAME.out with its
# status in $TMP/NAME.rc; SMPI_JOBS (2: the cores of this machine) at once.
# Each smpirun is one process simulating every rank, and its times are
# simulated (smpi/simulate-computation:no), so runs side by side give the
# same results as one after the other, on both cores. smpi_wait waits for
# them all.
smpi_bg() {
    local name=$1
    shift
    while [ "$(jobs -rp | wc -l)" -ge "${SMPI_JOBS:-2}" ]; do
        wait -n
    done
    ( smpi "$TMP/$name.out" "$@"; echo "$rc" >"$TMP/$name.rc" ) &
}
smpi_wait() { wait; }

# 1. Validated exchanges: every size row must say Pass.
algs1="t1 t2 at2 mesh2 bruck pairwise hc-standard auto mpi mpi:pair mpi:bruck mpi:2dmesh mpi:mpich mpi:ompi"
for alg in $algs1; do
    args=(--alg "$alg" --topo torus:8x8) cfg=()
    case $alg in mpi:*) args=(--alg mpi) cfg=("--cfg=smpi/alltoall:${alg#mpi:}") ;; esac
    # Many messages in flight at once are slow to simulate (pairwise posts
    # 63 steps at a time, SimGrid's ompi picks basic_linear, all at once at
    # these sizes): those two run 4 sizes, one call each, instead of 10
    # sizes of 3 calls (86 s and 39 s here otherwise).
    sizes=(-m 8:4096 -i 2 -x 1)
    case $alg in pairwise | mpi:ompi) sizes=(-m 512:4096 -i 1 -x 0) ;; esac
    smpi_bg "valid-$alg" "${sizes[@]}" -c "${args[@]}"
done
# xchg-bench's defaults (--alg auto --topo auto): the topology is asked of
# the communicator, which SMPI cannot answer for a grid (docs/mpi.md)
cfg=()
smpi_bg "valid-defaults" -m 8:4096 -i 2 -x 1 -c
# 2. (its runs, beside those of 1)
cfg=()
for alg in t1 at2 mesh2; do
    smpi_bg "time-$alg" -m 1024:1024 -i 1 -x 0 --alg "$alg" --topo torus:8x8
done
smpi_wait
for alg in $algs1; do
    want=10
    case $alg in pairwise | mpi:ompi) want=4 ;; esac
    out="$TMP/valid-$alg.out" rc=$(cat "$TMP/valid-$alg.rc")
    rows=$(grep -cE '^[0-9]+ +[0-9.]+ +Pass$' "$out")
    if [ "$rc" -eq 0 ] && [ "$rows" -eq "$want" ] && ! grep -q Fail "$out"; then ok; else
        bad "$alg: status $rc, $rows of $want sizes passed: $(grep -v '^ *->' "$out" | tail -n 4)"
    fi
done

out="$TMP/valid-defaults.out" rc=$(cat "$TMP/valid-defaults.rc")
rows=$(grep -cE '^[0-9]+ +[0-9.]+ +Pass$' "$out")
if [ "$rc" -eq 0 ] && [ "$rows" -eq 10 ] && grep -q "complete:64" "$out"; then ok; else
    bad "xchg-bench's defaults: status $rc, $rows of 10 sizes passed: $(grep -v '^ *->' "$out" | tail -n 4)"
fi

# 2. SMPI's time of the executor's run against xchg sim's.
for alg in t1 at2 mesh2; do
    got=$(awk '$1 == 1024 { print $2 }' "$TMP/time-$alg.out")
    want=$("$X" sim --topo torus:8x8 --alg "$alg" --m 1024 --ts 0 --tw $TW --th $TH --mode async \
        --routing vct --json | grep -o '"time":[0-9.e+-]*' | head -n1 | cut -d: -f2)
    if [ -n "$got" ] && [ -n "$want" ] &&
        awk -v a="$got" -v b="$want" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 0.01 * b) }'; then
        ok
    else
        bad "$alg at 1024 B: SMPI ${got:-none} us, xchg sim ${want:-none} us (want within 1%)"
    fi
done

# 3. Refusals under smpirun: every rank exits 2, rank 0 says why.
smpi "$TMP/out" --alg no-such-alg --topo torus:8x8
if [ "$rc" -ne 0 ] && grep -q "no-such-alg" "$TMP/out"; then ok; else
    bad "unknown --alg under smpirun: status $rc: $(tail -n 3 "$TMP/out")"
fi
smpi "$TMP/out" --alg t1 --topo torus:4x4
if [ "$rc" -ne 0 ] && grep -q "torus:4x4" "$TMP/out"; then ok; else
    bad "--topo of 16 nodes for 64 ranks under smpirun: status $rc: $(tail -n 3 "$TMP/out")"
fi
# 4. Auto's ranks per core under SMPI are the simulated host's: 16 ranks on
# a fat-tree of 4 hosts of 4 cores each (scripts/simgrid-platform.sh) are
# 1 rank per core, not 4 ranks over this machine's cores; and auto sees
# the hosts as nodes, choosing a node-aware exchange at 8-byte blocks.
fat=$(bash "$ROOT/scripts/simgrid-platform.sh" --kind fat-tree --shape '2;2,2;1,2;1,1' \
    --bw 25e9 --lat 1e-6 --cores 4 --host-bw 1e11 --host-lat 1e-7 --out "$TMP")
"$SMPIRUN" -np 16 -platform "$fat" -hostfile "${fat%.xml}.hosts" \
    --cfg=smpi/simulate-computation:no "$BENCH" -m 8:8 -i 1 -x 0 -c >"$TMP/out" 2>&1
rc=$?
if [ "$rc" -eq 0 ] && grep -q "with 1 ranks per core" "$TMP/out" &&
    grep -q "4 nodes of 4 ranks (simulated host)" "$TMP/out" &&
    grep -qE '^8 +[0-9.]+ +Pass$' "$TMP/out"; then
    ok
else
    bad "4 hosts of 4 cores: status $rc: $(grep -o 'with [0-9.]* ranks per core' "$TMP/out" | head -n 1)"
fi
# 5. The node-aware exchanges through one leader a node and by aggregation
# on those hosts: SMPI's nodes are its hosts (told by name), every byte
# validated.
for alg in leader:bruck aggregate; do
    "$SMPIRUN" -np 16 -platform "$fat" -hostfile "${fat%.xml}.hosts" \
        --cfg=smpi/simulate-computation:no "$BENCH" --alg $alg -m 8:4096 -i 1 -x 0 -c \
        >"$TMP/out" 2>&1
    rc=$?
    rows=$(grep -cE '^[0-9]+ +[0-9.]+ +Pass$' "$TMP/out")
    if [ "$rc" -eq 0 ] && [ "$rows" -eq 10 ] && grep -q "4 nodes of 4 ranks" "$TMP/out"; then ok; else
        bad "$alg on 4 hosts of 4 cores: status $rc, $rows of 10 sizes passed: $(tail -n 3 "$TMP/out")"
    fi
done
# 6. Copies counted (XCHG_SMPI_COPY_COST, src/mpi/charge.c): us ALG COST
# prints ALG's simulated time at 64 B on those hosts with that figure.
us() {
    XCHG_SMPI_COPY_COST=$2 "$SMPIRUN" -np 16 -platform "$fat" -hostfile "${fat%.xml}.hosts" \
        --cfg=smpi/simulate-computation:no "$BENCH" --alg "$1" -m 64:64 -i 1 -x 0 -c 2>/dev/null |
        awk '$1 == 64 && $3 == "Pass" { print $2 }'
}
free=$(us pairwise '') zero=$(us pairwise 0,0) one=$(us pairwise 1000,0)
if [ -n "$free" ] && [ "$zero" = "$free" ] &&
    awk -v a="$free" -v b="$one" 'BEGIN { exit !(b - a > 0.999 && b - a < 1.001) }'; then ok; else
    bad "pairwise with copies of 1000 ns: $free us free, $zero at 0,0, $one at 1000,0 (expected 1 us more)"
fi
for alg in bruck aggregate; do
    free=$(us $alg '') counted=$(us $alg 1000,0.5) again=$(us $alg 1000,0.5)
    if [ -n "$free" ] && [ "$counted" = "$again" ] &&
        awk -v a="$free" -v b="$counted" 'BEGIN { exit !(b - a > 3) }'; then ok; else
        bad "$alg with copies counted: $free us free, $counted and $again counted (expected the same, 3 us more)"
    fi
done
# (in $TMP: a failed smpirun keeps its unrolled hostfile where it runs)
(cd "$TMP" && XCHG_SMPI_COPY_COST=fast "$SMPIRUN" -np 4 -platform "$fat" \
    -hostfile "${fat%.xml}.hosts" --cfg=smpi/simulate-computation:no "$BENCH" -m 8:8 -i 1 -x 0) \
    >"$TMP/out" 2>&1
rc=$?
if [ "$rc" -ne 0 ] && grep -q "XCHG_SMPI_COPY_COST=fast: expected C,T" "$TMP/out" &&
    grep -q "Execution failed with code 2" "$TMP/out"; then ok; else
    bad "XCHG_SMPI_COPY_COST=fast: status $rc: $(grep -v '^\[' "$TMP/out" | tail -n 2)"
fi
finish
