#!/usr/bin/env bash
# liu_virtual.sh - ar1 and at2 on sizes the paper does not allow, through
# virtual nodes (src/alg/virtual.h): the next even ring, or the next multiples
# of 4, hosted by the real nodes, every guest's sends done by its host in
# one-port sub-steps. Each hosted schedule is verified block by block
# (`xchg verify --json`) and shown next to
#   - the plain algorithm on the virtual size (what the paper's algorithm
#     costs there), and the ratio hosted / plain;
#   - the binding volume lower bound of the REAL network (`xchg cost
#     --json`: the larger of injection p-1 and the bisection bound, Liu et al.
#     Lemma 1 on tori) and the ratio volume / bound.
# Usage: bash bench/liu_virtual.sh [path/to/xchg]
# Writes bench/results/liu_virtual.txt (and prints it). Exit 1 when a
# hosted schedule fails verification.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
X="${1:-$HERE/../build/xchg}"
OUT="$HERE/results/liu_virtual.txt"
mkdir -p "$HERE/results"
[ -x "$X" ] || { echo "liu_virtual: no xchg binary at $X" >&2; exit 2; }

field() {
    printf '%s\n' "$2" | grep -o "\"$1\":[^,}]*" | head -1 | cut -d: -f2
}

# row REAL VIRTUAL ALG: one line.
row() {
    local real=$1 virt=$2 alg=$3
    local v c n ok st vol lb nst nvol sec
    v=$("$X" verify --topo "$real" --alg "$alg:virtual" --json)
    ok=$(field ok "$v"); st=$(field startups "$v"); vol=$(field volume_blocks "$v")
    sec=$(field seconds "$v")
    c=$("$X" cost --topo "$real" --alg "$alg:virtual" --json)
    lb=$(awk -v a="$(field injection_blocks "$c")" -v b="$(field bisection_blocks "$c")" \
        'BEGIN { print (a > b ? a : b) }')
    n=$("$X" cost --topo "$virt" --alg "$alg" --json)
    nst=$(field startups "$n"); nvol=$(field volume_blocks "$n")
    awk -v r="$real" -v vt="$virt" -v a="$alg:virtual" -v ok="$ok" -v st="$st" -v vol="$vol" \
        -v nst="$nst" -v nvol="$nvol" -v lb="$lb" -v sec="$sec" 'BEGIN {
        printf "  %-13s %-13s %-12s %-5s %7d %8d %9d %9d %7.3f %7.3f %8d %7.3f %8.3f\n",
               r, vt, a, ok, st, vol, nst, nvol, (nst ? st / nst : 0), (nvol ? vol / nvol : 0),
               lb, (lb ? vol / lb : 0), sec }'
}

status=0
{
    echo "# ar1:virtual and at2:virtual: hosted schedules, verified, against the plain"
    echo "# algorithm on the virtual size and against the real network's volume bound"
    echo "# command: bash bench/liu_virtual.sh $X"
    echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ); host: $(uname -sm), $(nproc) cores"
    echo "# Real          Virtual       Algorithm    OK    Start-ups  Volume  Plain-st Plain-vol  St/pl  Vol/pl  VolLB  Vol/LB  Verify(s)"
    for p in 1 3 5 7 9 11 13 15 17 19 21 23 25 27 29 31 33 63 65 101 255 1001; do
        row "ring:$p" "ring:$(( (p + 1) / 2 * 2 ))" ar1
    done
    for t in 2x2 3x3 5x5 5x7 6x10 7x7 9x9 10x10 13x17 17x13 30x30 31x31 33x33 37x41 62x62 63x63 2x64 61x64; do
        r=${t%x*}; s=${t#*x}
        vr=$(( (r + 3) / 4 * 4 )); vs=$(( (s + 3) / 4 * 4 ))
        row "torus:$t" "torus:${vr}x$vs" at2
    done
} | tee "$OUT"
# the block above runs in a subshell: judge from what it wrote
if grep -E '^  (ring|torus):' "$OUT" | awk '$4 != "true"' | grep -q .; then status=1; fi
exit $status
