#!/usr/bin/env bash
# size_scaling.sh - how `xchg cost` and `xchg compare` grow with the network:
# wall time and peak memory (max RSS) against p = 2^10 ... 2^20 nodes on a
# ring, a hypercube and a square 2-D torus, next to the library's estimate
# of the schedule's memory (cost --json: estimate_bytes) and to `xchg
# --version` run the same way (process start-up, the floor). For each row
# the growth is its time over the time of the same row at a quarter of the
# nodes: about 4 for work linear in p, 16 for p^2 (shown from 20 ms up). Commands beyond the
# default limits are refused (exit 2) within a second; those rows say so.
#
# Usage: bash bench/size_scaling.sh [path/to/xchg] [max log2 p]
# Writes bench/results/size_scaling.txt (and prints it). Each command gets at
# most LIMIT seconds (default 600; a row that hits it says "timeout").
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
X="${1:-$HERE/../build/xchg}"
MAXD="${2:-20}"
LIMIT="${LIMIT:-600}"
OUT="$HERE/results/size_scaling.txt"
mkdir -p "$HERE/results"
[ -x "$X" ] || { echo "size_scaling: no xchg binary at $X" >&2; exit 2; }
[ -x /usr/bin/time ] || bash "$HERE/../scripts/install-deps.sh" # GNU time, for the peak memory
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# run CMD...: one run; sets secs, mb (max RSS in MiB) and rc.
run() {
    local t0=$EPOCHREALTIME t1 kb
    /usr/bin/time -f '%M' -o "$TMP/time" timeout "$LIMIT" "$@" >"$TMP/out" 2>"$TMP/err"
    rc=$?
    t1=$EPOCHREALTIME
    secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
    kb=$(tail -n1 "$TMP/time")
    mb=$(awk -v k="$kb" 'BEGIN { printf "%.1f", k / 1024 }')
}

# estimate T A: the library's estimate of the schedule's memory in MiB.
estimate() {
    "$X" cost --topo "$1" --alg "$2" --json --max-memory 1024T --max-work 18446744073709551615 \
        2>/dev/null | sed -n 's/.*"estimate_bytes":\([0-9]*\).*/\1/p' |
        awk '{ printf "%.1f", $1 / 1048576 }'
}

# topo KIND D: the topology of 2^D nodes of KIND.
topo() {
    case "$1" in
    ring) echo "ring:$((1 << $2))" ;;
    hypercube) echo "hypercube:$2" ;;
    torus) echo "torus:$((1 << ($2 / 2)))x$((1 << ($2 / 2)))" ;;
    esac
}

declare -A prev
# row CMD KIND ALG D: run one command and print its row.
row() {
    local cmd=$1 kind=$2 alg=$3 d=$4 t est growth key status
    t=$(topo "$kind" "$d")
    if [ "$cmd" = cost ]; then
        run "$X" cost --topo "$t" --alg "$alg" --m 64
        est=$(estimate "$t" "$alg")
    else
        run "$X" compare --topo "$t" --m 64:64
        est="-"
    fi
    case $rc in
    0) status=ok ;;
    2) status="refused: $(head -c 90 "$TMP/err" | tr '\n' ' ')" ;;
    124) status=timeout ;;
    *) status="exit $rc" ;;
    esac
    key="$cmd/$kind/$alg"
    growth="-"
    if [ $rc -eq 0 ] && [ -n "${prev[$key]:-}" ]; then
        growth=$(awk -v a="$secs" -v b="${prev[$key]}" 'BEGIN { if (b >= 0.02) printf "%.1f", a / b; else print "-" }')
    fi
    [ $rc -eq 0 ] && prev[$key]=$secs
    printf "  %-8s %-10s %-13s %8d %9s %7s %10s %10s  %s\n" "$cmd" "$kind" "$alg" \
        $((1 << d)) "$secs" "$growth" "$mb" "${est:--}" "$status"
}

run "$X" --version
floor=$secs
{
    echo "# xchg size scaling: one run per row, $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores"
    echo "# 'xchg --version' (start-up floor): $floor s"
    echo "# growth = time / time of the same row at p/4 (4: linear in p, 16: quadratic)"
    echo "# RSS = peak memory of the process; estimate = the library's estimate of the"
    echo "# schedule's memory (cost --json estimate_bytes), checked before building"
    printf "# %-8s %-10s %-13s %8s %9s %7s %10s %10s  %s\n" Command Network Algorithm \
        Nodes "Time(s)" Growth "RSS(MiB)" "Est(MiB)" Result
    for ((d = 10; d <= MAXD; d += 2)); do
        for alg in ring ar1 bruck pairwise; do row cost ring "$alg" "$d"; done
        for alg in hc-standard hc-direct bruck; do row cost hypercube "$alg" "$d"; done
        for alg in t1 t2 at2 mesh2 ptk; do row cost torus "$alg" "$d"; done
        for kind in ring hypercube torus; do row compare "$kind" all "$d"; done
    done
} | tee "$OUT"
