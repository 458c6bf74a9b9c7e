#!/usr/bin/env bash
# liukd_virtual.sh - Liu et al.'s k-D algorithms on sizes the paper does not
# allow (odd, prime, mixed), made to work with virtual nodes (mt3:virtual,
# mtk:virtual, pt4:virtual, ptk:virtual; src/alg/virtual.h): every size rounded
# up to a multiple of 2k, the schedule built there and hosted on the real
# nodes, a host sending for all its virtual nodes. Each hosted schedule is
# verified block by block with `xchg verify` and costed with `xchg cost`,
# against the lower bounds the cost model names: start-ups >= ceil(log2 p),
# volume >= max(injection p-1, torus bisection -- Liu et al., Lemma 1, N1*p/8
# for even N1, the exact cut bound for odd N1). For reference, the last
# columns give the native schedule on the rounded-up torus (what the virtual
# torus would cost if it were real).
#
# Usage: bench/liukd_virtual.sh [OUTPUT]
# Environment: BUILD_DIR (default <repo>/build; configured and built here,
# Release), CASES (default below, "alg:torus" words).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
build=${BUILD_DIR:-$repo/build}
cases=${CASES:-"mtk:ring:7 mtk:ring:13 mtk:ring:31 mtk:5x7 ptk:5x7 mtk:6x10 ptk:6x10
mtk:9x9 mtk:11x13 ptk:11x13 mtk:31x31 mt3:3x3x3 mt3:5x7x11 mt3:7x7x7 mtk:7x7x7
mt3:9x9x9 mt3:10x10x10 pt4:3x3x3x3 pt4:5x5x5x5 mtk:5x5x5x5 pt4:6x6x6x6"}
out=${1:-$here/results/liukd_virtual.txt}

cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" --target xchg_cli -j2 >/dev/null
bin=$build/xchg

mkdir -p "$(dirname "$out")"
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
fail=0

for c in $cases; do
    alg=${c%%:*}
    rest=${c#*:}
    case $rest in
    ring:*) topo=$rest ;;
    *) topo=torus:$rest ;;
    esac
    # the rounded-up ("virtual") topology: every size up to a multiple of 2k
    dims=${topo#*:}
    k=$(awk -F x '{ print NF }' <<<"$dims")
    vdims=$(awk -F x -v m=$((2 * k)) '{ for (i = 1; i <= NF; i++) printf "%s%d", (i > 1 ? "x" : ""), int(($i + m - 1) / m) * m }' <<<"$dims")
    vtopo=${topo%%:*}:$vdims
    if ! v=$("$bin" verify --topo "$topo" --alg "$alg:virtual" --max-work 100000000000 --json); then
        echo "liukd_virtual: $alg:virtual on $topo failed verification" >&2
        fail=1
    fi
    cj=$("$bin" cost --topo "$topo" --alg "$alg:virtual" --json)
    nj=$("$bin" cost --topo "$vtopo" --alg "$alg" --json)
    jq -n -r --argjson v "$v" --argjson c "$cj" --argjson n "$nj" --arg alg "$alg" \
        --arg topo "$topo" --arg vtopo "$vtopo" '
        ($c.lower_bound.bisection_blocks) as $bis |
        ($c.lower_bound.injection_blocks) as $inj |
        (if $bis > $inj then $bis else $inj end) as $lb |
        [$alg + ":virtual", $topo, ($v.ok | if . then "ok" else "FAIL" end), $v.steps,
         $v.startups, $c.lower_bound.startups, $v.volume_blocks, $lb,
         (($v.volume_blocks / $lb * 1000 | round) / 1000), $vtopo, $n.startups,
         $n.volume_blocks, (($v.seconds * 1000 | round) / 1000)] | @tsv' >>"$tmp"
done

{
    echo "# Liu et al. k-D algorithms on any size: hosted on virtual nodes, verified block by block"
    echo "# command: BUILD_DIR=$build bench/liukd_virtual.sh (Release build)"
    echo "# date: $(date -u +%Y-%m-%dT%H:%MZ)  host: $(uname -m), $(nproc) online cores;" \
         "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg) (the machine is shared)"
    echo "# LB-st = ceil(log2 p); LB-vol = max(injection p-1, torus bisection / Lemma 1) blocks;"
    echo "# Native = the algorithm itself on the rounded-up torus (reference, not run here)"
    printf "%-13s %-18s %5s %5s %8s %6s %9s %8s %7s %-16s %8s %10s %9s\n" "# Algorithm" \
        "Topology" "Verif" "Steps" "Startups" "LB-st" "Volume" "LB-vol" "Vol/LB" "Native-on" \
        "N-start" "N-volume" "Verify(s)"
    awk -F '\t' '{ printf "%-13s %-18s %5s %5d %8d %6d %9d %8d %7.3f %-16s %8d %10d %9.3f\n",
        $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13 }' "$tmp"
    echo "# cases: $(wc -l <"$tmp"); verify FAIL $(awk -F '\t' '$3 != "ok"' "$tmp" | wc -l)"
} >"$out"
cat "$out"
exit "$fail"
