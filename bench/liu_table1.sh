#!/usr/bin/env bash
# liu_table1.sh - the 2-D rows of seed 001 Table 1 with `xchg compare`:
# start-ups and volume (blocks) of AT2 and of Suh's algorithms on 2^d x 2^d
# tori, from the verified schedules next to Table 1's formulas.
#   Suh [12] (2^d x 2^d): (3d-3) t_s, (9*2^(3d-4) + (d^2-5d+3)*2^(2d-1)) m t_w;
#     these are the counts of seed 000's T1 (registry `t1`), so its row is t1.
#   Suh [13] (r x s): (s/2+2) t_s, (r*s^2/4 + r*s) m t_w; not in the registry
#     (the paper gives only its cost), so formula only.
#   AT2 (r x s): (2*ceil(s/8)+4) t_s, (4r*floor(s^2/32) + 2rs) m t_w.
# The k-D rows (PTk, MTk) belong to bench/liukd_*.sh.
# Usage: bash bench/liu_table1.sh [path/to/xchg]
# Writes bench/results/liu_table1.txt (and prints it). The Agree column is
# "=" when the verified counts equal the table's, "DIFF" otherwise. Exit 1
# when an AT2 row differs or any schedule fails verification.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
X="${1:-$HERE/../build/xchg}"
OUT="$HERE/results/liu_table1.txt"
mkdir -p "$HERE/results"
[ -x "$X" ] || { echo "liu_table1: no xchg binary at $X" >&2; exit 2; }

# alg_field ALG KEY JSONLINES: KEY of the "algorithm" line of ALG, or "-".
alg_field() {
    local v
    v=$(printf '%s\n' "$3" | grep "\"type\":\"algorithm\",\"algorithm\":\"$1\"" |
        grep -o "\"$2\":[^,}]*" | head -1 | cut -d: -f2-)
    v=${v//\"/}
    printf '%s\n' "${v:--}"
}

status=0
{
    echo "# seed 001 Table 1, 2-D rows: verified counts (xchg compare --json) vs the table's formulas"
    echo "# command: bash bench/liu_table1.sh $X"
    echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ); host: $(uname -sm), $(nproc) cores"
    printf '# %-10s %-9s %-10s %10s %10s %12s %12s  %-5s %s\n' "Torus" "Row" "Registry" \
        "Start-ups" "Table-st" "Volume" "Table-vol" "Agree" "Verified"
    for d in 3 4 5 6; do
        n=$((1 << d)); r=$n; s=$n
        j=$("$X" compare --topo "torus:${n}x$n" --ts 75 --tw 0.01111 --m 1024 --json)
        # Suh [12] = t1
        st=$(alg_field t1 startups "$j"); vol=$(alg_field t1 volume_blocks "$j")
        ver=$(alg_field t1 verified "$j")
        tst=$((3 * d - 3)); tvol=$((9 * (1 << (3 * d - 4)) + (d * d - 5 * d + 3) * (1 << (2 * d - 1))))
        ag="="; { [ "$st" = "$tst" ] && [ "$vol" = "$tvol" ]; } || ag=DIFF
        printf '  %-10s %-9s %-10s %10s %10s %12s %12s  %-5s %s\n' "${n}x$n" "Suh[12]" t1 "$st" \
            "$tst" "$vol" "$tvol" "$ag" "$ver"
        # Suh [13]: formula only
        printf '  %-10s %-9s %-10s %10s %10s %12s %12s  %-5s %s\n' "${n}x$n" "Suh[13]" "-" "-" \
            "$((s / 2 + 2))" "-" "$((r * s * s / 4 + r * s))" "-" "not in the registry"
        # AT2
        st=$(alg_field at2 startups "$j"); vol=$(alg_field at2 volume_blocks "$j")
        ver=$(alg_field at2 verified "$j")
        tst=$((2 * ((s + 7) / 8) + 4)); tvol=$((4 * r * (s * s / 32) + 2 * r * s))
        ag="="; { [ "$st" = "$tst" ] && [ "$vol" = "$tvol" ]; } || ag=DIFF
        # the text's 2^d x 2^d form: (2^(d-2)+4) t_s + (2^(3d-3) + 2^(2d+1)) m t_w
        [ "$tst" = $(((1 << (d - 2)) + 4)) ] && [ "$tvol" = $(((1 << (3 * d - 3)) + (1 << (2 * d + 1)))) ] ||
            ag=DIFF
        printf '  %-10s %-9s %-10s %10s %10s %12s %12s  %-5s %s\n' "${n}x$n" "AT2" at2 "$st" \
            "$tst" "$vol" "$tvol" "$ag" "$ver"
    done
} | tee "$OUT"
# the block above runs in a subshell: judge from what it wrote
if grep -E '^  [0-9]+x[0-9]+ +AT2 ' "$OUT" | grep -q 'DIFF'; then status=1; fi
if grep -E '^  [0-9]+x[0-9]+ ' "$OUT" | grep -v 'not in the registry' | grep -qv ' yes$'; then
    status=1
fi
exit $status
