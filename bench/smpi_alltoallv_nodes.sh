#!/usr/bin/env bash
# smpi_alltoallv_nodes.sh - MPI_Alltoallv across nodes on a simulated
# cluster (docs/alltoallv.md, "Across nodes: aggregation"): xchg-bench
# --op alltoallv built with smpicc (build-smpi) under smpirun, a two-level
# fat-tree of 16-core nodes with InfiniBand NDR links (the fat-tree of
# docs/clusters.md's tables, with fewer nodes), ranks placed block-wise.
#
# Columns, at each mean block (--counts uniform: every block that size):
#   ompi       SimGrid's smpi/coll-selector:ompi (the MPI_Alltoallv Open
#              MPI would choose)
#   pairwise   xchg's direct exchange, flat over every rank (XCHG_ALG=pairwise)
#   aggregate  xchg's aggregation across nodes (src/mpi/aggregate_v.c)
#   auto       xchg's own choice, pricing the platform by a machine file of
#              its figures (as bench/smpi_cluster.sh writes it)
# Copies free (smpi/simulate-computation:no: messages only) and counted
# (each copying pass of xchg's charged C ns a copy and T ns a byte,
# bench/results/copy_cost.txt; SimGrid's own collective as free: its
# copies are never charged). Deterministic: one run each. Every exchange
# is validated (-c). Each figure is xchg-bench's Avg Latency: each rank's
# simulated time of one call after one untimed call, averaged over the
# ranks.
#
# Usage: bash bench/smpi_alltoallv_nodes.sh [--hosts 4|8] [--sizes LIST]
#            [--limit S] [--out FILE]
#   --hosts  4 (FAT_TREE 2;2,2;1,2;1,1: 64 ranks) or 8 (2;4,2;1,2;1,1: 128
#            ranks; the default)
#   --sizes  mean blocks in bytes (default 64,4096)
#   --limit  seconds one smpirun may take (default 600)
#   --out    default bench/results/smpi_alltoallv_nodes.txt
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
BENCH=smpi_alltoallv_nodes
. "$HERE/lib_smpi_cluster.sh"
SB=${XCHG_BENCH:-$ROOT/build-smpi/xchg-bench}
hosts=8 sizes=64,4096 limit=600 out="$HERE/results/smpi_alltoallv_nodes.txt"
while [ $# -gt 0 ]; do
    case "$1" in
    --hosts) hosts=$2; shift 2 ;;
    --sizes) sizes=$2; shift 2 ;;
    --limit) limit=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "$BENCH: unknown argument '$1'; accepted: --hosts, --sizes, --limit, --out, --help" >&2; exit 2 ;;
    esac
done
case $hosts in
4) shape='2;2,2;1,2;1,1' ;;
8) shape='2;4,2;1,2;1,1' ;;
*) echo "$BENCH: --hosts '$hosts'; accepted: 4, 8" >&2; exit 2 ;;
esac
CORES=16 BW=50e9 LAT=2.5e-7 HOPS=4 HOST_BW=8.75e9 HOST_LAT=1.4e-7
np=$((hosts * CORES))
[ -n "${XCHG_BENCH:-}" ] || smpi_build
COPY_COST=$(awk '$1 == "figures" { c = $2; t = $3 } END { if (c != "") print c "," t }' \
    "$HERE/results/copy_cost.txt")
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
made=$(bash "$ROOT/scripts/simgrid-platform.sh" --kind fat-tree --shape "$shape" --bw $BW --lat $LAT \
    --cores $CORES --host-bw $HOST_BW --host-lat $HOST_LAT --out "$TMP")
# the platform's figures for auto (as bench/smpi_cluster.sh's machine_file)
machine() {
    awk -v bw=$BW -v lat=$LAT -v hops=$HOPS -v hbw=$HOST_BW -v hlat=$HOST_LAT -v tr="$1" 'BEGIN {
        print "xchg-machine/1"; print "name fat-tree"; print "units us"
        printf "ts %.6g\ntw %.6g\ntr %s\n", hops * lat * 1e6, 1e6 / bw, tr
        printf "ts_node %.6g\ntw_node %.6g\n", hlat * 1e6, 1e6 / hbw }'
}
machine 0 >"$TMP/free.machine"
machine "$(awk -v t="${COPY_COST#*,}" 'BEGIN { printf "%.4g", t / 1000 }')" >"$TMP/counted.machine"
start=$(date +%s)
results=()
for mode in free counted; do
    for m in ${sizes//,/ }; do
        row="$mode $m"
        for col in ompi pairwise aggregate auto; do
            [ "$col" = ompi ] && [ "$mode" = counted ] && { row+=" -"; continue; }
            cfg=(--cfg=network/model:CM02 --cfg=network/crosstraffic:0 --cfg=smpi/host-speed:1Gf
                --cfg=smpi/simulate-computation:no)
            envs=("XCHG_MACHINE_FILE=$TMP/$mode.machine")
            [ "$mode" = counted ] && envs+=("XCHG_SMPI_COPY_COST=$COPY_COST")
            alg=$col
            [ "$col" = ompi ] && { cfg+=(--cfg=smpi/coll-selector:ompi); alg=mpi; }
            t0=$(date +%s)
            (cd "$TMP" && exec env "${envs[@]}" timeout "$limit" smpirun -np $np -platform "$made" \
                -hostfile "${made%.xml}.hosts" "${cfg[@]}" "$SB" --op alltoallv --counts uniform \
                -m "$m:$m" -i 1 -x 1 -c --alg "$alg" --verbose) >"$TMP/log" 2>&1 || true
            us=$(awk -v m="$m" '$1 == m && $2 ~ /^[0-9.]+$/ { print $2 }' "$TMP/log" | tail -n 1)
            grep -q Fail "$TMP/log" && us=wrong
            [ -n "$us" ] || { us=n/a; grep -v 'xbt_cfg/INFO\|smpi_coll/INFO' "$TMP/log" | tail -n 3 >&2; }
            if [ "$col" = auto ]; then
                ran=$(grep -o 'Alltoallv, [0-9]* ranks: [a-z:0-9-]*' "$TMP/log" | head -n 1 | sed 's/.*: //')
                us="$us(${ran:-?})"
            fi
            echo "$BENCH: $mode ${m} B $col: $us us ($(($(date +%s) - t0)) s)" >&2
            row+=" $us"
        done
        results+=("$row")
    done
done
{
    echo "# MPI_Alltoallv across nodes, simulated: xchg's direct exchange (flat), aggregation and auto against SimGrid's ompi selector"
    cmd="bash bench/smpi_alltoallv_nodes.sh --hosts $hosts --sizes $sizes --limit $limit"
    [ "$out" = "$HERE/results/smpi_alltoallv_nodes.txt" ] || cmd+=" --out ${out#$ROOT/}"
    echo "# command: $cmd"
    echo "# date: $(date -u +%Y-%m-%dT%H:%MZ)  commit: $(git -C "$ROOT" rev-parse --short HEAD)$(git -C "$ROOT" diff --quiet HEAD -- src include 2>/dev/null || echo ' (src/ with changes not committed)')  wall time: $(($(date +%s) - start)) s"
    echo "# SimGrid $(smpi_simgrid_version), network/model:CM02, network/crosstraffic:0; FAT_TREE $shape: $hosts hosts of $CORES cores, $np ranks placed block-wise"
    echo "# links 50e9 B/s, 0.25 us each way (InfiniBand NDR, as docs/clusters.md); within a host 8.75e9 B/s, 0.14 us"
    echo "# xchg-bench --op alltoallv --counts uniform (every block m bytes) -m m:m -i 1 -x 1 -c: Avg Latency, us simulated, one call after one untimed"
    echo "# free: copies not timed; counted: xchg's copying passes charged $COPY_COST (ns a copy, ns a byte; bench/results/copy_cost.txt)"
    echo "# auto: what it ran in brackets (XCHG_MACHINE_FILE: the platform's figures, tr as counted or 0)"
    printf '%-8s %8s %12s %12s %12s %s\n' "# copies" "m(B)" ompi pairwise aggregate auto
    for r in "${results[@]}"; do
        read -r mode m a b c d <<<"$r"
        printf '%-8s %8s %12s %12s %12s %s\n' "$mode" "$m" "$a" "$b" "$c" "$d"
    done
} >"$out"
cat "$out"
