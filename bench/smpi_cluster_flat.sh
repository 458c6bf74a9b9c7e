#!/usr/bin/env bash
# smpi_cluster_flat.sh - where xchg stands on a cluster of many-core nodes:
# the executor flat, over every rank (auto, and Bruck), and through one
# leader a node (forced: XCHG_ALG=leader, its leaders' exchange auto's or
# Bruck's; docs/mpi.md, "On a cluster"). xchg-bench
# (built with smpicc) under smpirun on 16 simulated hosts of 16 cores (256
# ranks), on a two-level fat-tree and on a dragonfly
# (scripts/simgrid-platform.sh), links of 25 GB/s and 1 us each way, and
# 100 GB/s and 0.1 us between two ranks of one host. Against it, SimGrid's
# own MPI_Alltoall as Open MPI and MPICH would choose it
# (smpi/coll-selector:ompi, :mpich) and SimGrid's Bruck.
#
# Two ways to count the executor's copies:
#   free     smpi/simulate-computation:no: only messages take time (what
#            tests/smpi and bench/smpi_executor.sh use); deterministic.
#   charged  smpi/simulate-computation:yes with smpi/host-speed equal to
#            the hosts' speed: the CPU time this machine spends between MPI
#            calls (xchg's packing and unpacking) is charged as it was
#            measured, so these figures move from run to run: the median
#            of RUNS runs, each after one untimed call.
# SimGrid's own collectives copy inside the MPI library, which SMPI never
# charges: the bias of the charged figures against xchg is read from xchg's
# Bruck against SimGrid's Bruck, which send the same messages (equal times
# where copies are free).
#
# Each figure is xchg-bench's Avg Latency (us, simulated): each rank's time
# of the call, averaged over the ranks, as osu_alltoall reports it; every
# exchange validated (-c).
#
# Usage: [RUNS=3] bash bench/smpi_cluster_flat.sh
# Writes bench/results/smpi_cluster_flat.txt. Takes about 5 minutes here.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
BENCH=smpi_cluster_flat
. "$HERE/lib_smpi_cluster.sh"
SB="$ROOT/build-smpi/xchg-bench"
OUT="$HERE/results/smpi_cluster_flat.txt"
RUNS=${RUNS:-3}
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || { echo "smpi_cluster_flat: RUNS '$RUNS' is not a count >= 1" >&2; exit 2; }
SIZES="8:512"
smpi_build
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
start=$(date +%s)

# the platforms: NAME KIND SHAPE
platforms="fat-tree fat-tree 2;4,4;1,4;1,1
dragonfly dragonfly 2,1;2,1;2,1;2"
# the variants: NAME XCHG-BENCH-ALG SIMGRID-CFG
variants="ompi mpi --cfg=smpi/coll-selector:ompi
mpich mpi --cfg=smpi/coll-selector:mpich
simgrid-bruck mpi --cfg=smpi/alltoall:bruck
xchg-auto auto -
xchg-bruck bruck -
leader leader -
leader-bruck leader:bruck -"

# run PLATFORM VARIANT ALG CFG MODE R: one smpirun, "size us" lines into
# $TMP/PLATFORM.VARIANT.MODE.R
run() {
    local plat=$1 name=$2 alg=$3 cfg=$4 mode=$5 r=$6 comp=no warm=0 extra=()
    [ "$mode" = charged ] && comp=yes warm=1
    [ "$cfg" != - ] && extra=("$cfg")
    smpirun -np 256 -platform "$TMP/$plat.xml" -hostfile "$TMP/$plat.hosts" \
        --cfg=smpi/simulate-computation:$comp --cfg=smpi/host-speed:1Gf "${extra[@]}" \
        "$SB" --alg "$alg" -m "$SIZES" -i 1 -x "$warm" -c >"$TMP/log" 2>&1 ||
        { tail -n 5 "$TMP/log" >&2; echo "smpi_cluster_flat: $name on $plat failed" >&2; exit 1; }
    if grep -q Fail "$TMP/log"; then
        echo "smpi_cluster_flat: $name on $plat delivered wrong data" >&2
        exit 1
    fi
    awk '/^[0-9]+ +[0-9.]+ +Pass$/ { print $1, $2 }' "$TMP/log" >"$TMP/$plat.$name.$mode.$r"
}

while read -r plat kind shape; do
    made=$(bash "$ROOT/scripts/simgrid-platform.sh" --kind "$kind" --shape "$shape" --bw 25e9 \
        --lat 1e-6 --cores 16 --host-bw 1e11 --host-lat 1e-7 --out "$TMP")
    mv "$made" "$TMP/$plat.xml"
    mv "${made%.xml}.hosts" "$TMP/$plat.hosts"
    while read -r name alg cfg; do
        run "$plat" "$name" "$alg" "$cfg" free 1
        for r in $(seq 1 "$RUNS"); do run "$plat" "$name" "$alg" "$cfg" charged "$r"; done
    done <<<"$variants"
    echo "$plat done ($(($(date +%s) - start)) s)" >&2
done <<<"$platforms"

{
    echo "# xchg flat and through one leader a node on a simulated cluster of many-core nodes"
    echo "# command: RUNS=$RUNS bash bench/smpi_cluster_flat.sh"
    echo "# date: $(date -u +%Y-%m-%dT%H:%MZ)  commit: $(git -C "$ROOT" rev-parse --short HEAD)  wall time: $(($(date +%s) - start)) s"
    echo "# SimGrid $(smpi_simgrid_version); 16 hosts x 16 cores = 256 ranks, block placement;"
    echo "# links 25e9 B/s, 1 us each way; within a host 1e11 B/s, 0.1 us"
    echo "# fat-tree: SimGrid FAT_TREE 2;4,4;1,4;1,1 (4 leaf switches of 4 hosts, 4 top switches)"
    echo "# dragonfly: SimGrid DRAGONFLY 2,1;2,1;2,1;2 (2 groups, 2 chassis, 2 routers, 2 hosts a router)"
    echo "# us: xchg-bench Avg Latency (simulated). free: copies not timed; charged: this"
    echo "# machine's CPU time between MPI calls charged, median of $RUNS runs."
    echo "# leader, leader-bruck: through one leader a node (16 nodes of 16 ranks), the leaders'"
    echo "# exchange auto's or Bruck's"
    echo "# ratio columns: the better selector's time over xchg's (above 1: xchg faster;"
    echo "# best/leader: over the faster of leader and leader-bruck);"
    echo "# bias: xchg's Bruck over SimGrid's Bruck (the same messages; SMPI does not charge its own copies)"
    while read -r plat _ _; do
        for mode in free charged; do
            n=1
            [ "$mode" = charged ] && n=$RUNS
            echo
            echo "## $plat, copies $mode"
            printf '%-8s %9s %9s %9s %9s %9s %9s %9s %10s %10s %11s %6s\n' "# Size" ompi mpich \
                sg-bruck xchg-auto xg-bruck leader ldr-bruck best/auto best/bruck best/leader bias
            for name in ompi mpich simgrid-bruck xchg-auto xchg-bruck leader leader-bruck; do
                for r in $(seq 1 "$n"); do cat "$TMP/$plat.$name.$mode.$r"; done |
                    awk -v v="$name" '{ t[$1] = t[$1] " " $2 } END { for (s in t) print s, v, t[s] }'
            done | awk "$(smpi_median)"'
                { s = $1; v = $2; $1 = $2 = ""; m[s, v] = median($0); sizes[s] = 1 }
                END {
                    for (s in sizes) order[++k] = s + 0
                    for (i = 2; i <= k; i++) { x = order[i]; for (j = i - 1; j > 0 && order[j] > x; j--) order[j + 1] = order[j]; order[j + 1] = x }
                    for (i = 1; i <= k; i++) {
                        s = order[i]
                        best = m[s, "ompi"] < m[s, "mpich"] ? m[s, "ompi"] : m[s, "mpich"]
                        ldr = m[s, "leader"] < m[s, "leader-bruck"] ? m[s, "leader"] : m[s, "leader-bruck"]
                        printf "%-8s %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %10.2f %10.2f %11.2f %6.2f\n", s,
                            m[s, "ompi"], m[s, "mpich"], m[s, "simgrid-bruck"], m[s, "xchg-auto"],
                            m[s, "xchg-bruck"], m[s, "leader"], m[s, "leader-bruck"],
                            best / m[s, "xchg-auto"], best / m[s, "xchg-bruck"], best / ldr,
                            m[s, "xchg-bruck"] / m[s, "simgrid-bruck"]
                    }
                }'
        done
    done <<<"$platforms"
} >"$OUT"
cat "$OUT"
