#!/usr/bin/env bash
# liu_verify.sh - Liu et al.'s ar1 and at2 on every size the paper allows, up
# to ring:256 and torus:64x64: each schedule verified block by block
# (`xchg verify --json`: delivery, declared sizes, one-port, routes, no
# directed link used twice in a step), its counted start-ups and volume next
# to the paper's formulas, and the volume over the Lemma 1 bound
# N1*prod(Ni)/8 (the cost model's bisection bound, `xchg cost --json`).
#   ring:P    P = 2, 4, ..., 256; paper T_ring: ceil(p/4)+1 start-ups,
#             floor(p^2/8)+p/2 blocks;
#   torus:RxS R, S = 4, 8, ..., 64, both orders; paper T_2D (r <= s):
#             2*ceil(s/8)+4 start-ups, 4r*floor(s^2/32)+2rs blocks (with
#             r = min, s = max). "=" marks agreement, "DIFF" a difference
#             (docs/ar1.md and docs/at2.md explain the two: ring:2 and 4x4).
# Usage: bash bench/liu_verify.sh [path/to/xchg]
# Writes bench/results/liu_verify.txt (and prints it). Exit 1 when any
# schedule fails verification.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
X="${1:-$HERE/../build/xchg}"
OUT="$HERE/results/liu_verify.txt"
mkdir -p "$HERE/results"
[ -x "$X" ] || { echo "liu_verify: no xchg binary at $X" >&2; exit 2; }

# field NAME JSON: the number (or true/false) after the first "NAME": in a JSON line.
field() {
    printf '%s\n' "$2" | grep -o "\"$1\":[^,}]*" | head -1 | cut -d: -f2
}

status=0
{
    echo "# Liu et al. ar1 and at2: verified counts vs the paper's formulas and Lemma 1"
    echo "# command: bash bench/liu_verify.sh $X"
    echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ); host: $(uname -sm), $(nproc) cores"
    echo "# Topology        Alg  Verified  Start-ups  Paper-st   Volume  Paper-vol  Agree  Lemma1  Vol/Lemma1  Verify(s)"
    for ((p = 2; p <= 256; p += 2)); do
        v=$("$X" verify --topo "ring:$p" --alg ar1 --json)
        ok=$(field ok "$v")
        st=$(field startups "$v"); vol=$(field volume_blocks "$v"); sec=$(field seconds "$v")
        c=$("$X" cost --topo "ring:$p" --alg ar1 --json)
        lb=$(field bisection_blocks "$c")
        pst=$(( (p + 3) / 4 + 1 )); pvol=$(( p * p / 8 + p / 2 ))
        agree="="; { [ "$st" = "$pst" ] && [ "$vol" = "$pvol" ]; } || agree="DIFF"
        awk -v t="ring:$p" -v ok="$ok" -v st="$st" -v pst="$pst" -v vol="$vol" -v pvol="$pvol" \
            -v ag="$agree" -v lb="$lb" -v sec="$sec" 'BEGIN {
            printf "  %-15s %-4s %-9s %9d %9d %8d %10d  %-5s %7d %11.4f %10.3f\n",
                   t, "ar1", ok, st, pst, vol, pvol, ag, lb, vol / lb, sec }'
    done
    for ((r = 4; r <= 64; r += 4)); do
        for ((s = 4; s <= 64; s += 4)); do
            v=$("$X" verify --topo "torus:${r}x$s" --alg at2 --json)
            ok=$(field ok "$v")
            st=$(field startups "$v"); vol=$(field volume_blocks "$v"); sec=$(field seconds "$v")
            c=$("$X" cost --topo "torus:${r}x$s" --alg at2 --json)
            lb=$(field bisection_blocks "$c")
            a=$(( r < s ? r : s )); b=$(( r < s ? s : r ))
            pst=$(( 2 * ((b + 7) / 8) + 4 )); pvol=$(( 4 * a * (b * b / 32) + 2 * a * b ))
            agree="="; { [ "$st" = "$pst" ] && [ "$vol" = "$pvol" ]; } || agree="DIFF"
            awk -v t="torus:${r}x$s" -v ok="$ok" -v st="$st" -v pst="$pst" -v vol="$vol" \
                -v pvol="$pvol" -v ag="$agree" -v lb="$lb" -v sec="$sec" 'BEGIN {
                printf "  %-15s %-4s %-9s %9d %9d %8d %10d  %-5s %7d %11.4f %10.3f\n",
                       t, "at2", ok, st, pst, vol, pvol, ag, lb, vol / lb, sec }'
        done
    done
} | tee "$OUT"
# the block above runs in a subshell: judge from what it wrote
grep -E '^  (ring|torus):' "$OUT" | awk '$3 != "true"' | grep -q . && status=1
n_diff=$(grep -c 'DIFF' "$OUT")
echo "# rows where the verified counts differ from the paper's formula: $n_diff" | tee -a "$OUT"
exit $status
