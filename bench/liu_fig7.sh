#!/usr/bin/env bash
# liu_fig7.sh - Liu et al. Figure 7 redone with `xchg compare`: complete
# exchange on 16x16, 32x32, 64x64 and 128x128 tori with the paper's Paragon
# parameters t_s = 75 us, t_w = 0.01111 us/byte, block sizes 8 B .. 64 KiB.
# For each torus the full `xchg compare` text (every registry algorithm that
# applies, verified block by block, its start-ups, volume, link volume and
# link volume over the Lemma 1 bound, predicted times, crossovers), then a
# compact table of the curves Figure 7 draws: at2 against Suh's t1 and t2
# (Suh et al., where they apply) and the lower bound.
# 128x128 is compared with --max-work 4e9: schedules above 4e9 block-steps
# get compare's message-level check (routes, ports, link contention: their
# link volume is measured, delivery is not followed) and are marked
# "messages only"; at2 on 128x128 is then verified on its own, block by
# block, with `xchg verify`.
# Usage: bash bench/liu_fig7.sh [path/to/xchg]
# Writes bench/results/liu_fig7.txt (and prints it). Exit 1 when a compare
# or the verify fails.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
X="${1:-$HERE/../build/xchg}"
OUT="$HERE/results/liu_fig7.txt"
mkdir -p "$HERE/results"
[ -x "$X" ] || { echo "liu_fig7: no xchg binary at $X" >&2; exit 2; }

# num KEY LINE: the value after the first "KEY": in a JSON line, or "-".
num() {
    local v
    v=$(printf '%s\n' "$2" | grep -o "\"$1\":\"[^\"]*\"\|\"$1\":[^,}\"]*" | head -1 | cut -d: -f2-)
    v=${v//\"/}
    printf '%s\n' "${v:--}"
}

status=0
{
    echo "# Liu et al. Figure 7 with xchg compare: tori 16x16 .. 128x128, ts = 75 us, tw = 0.01111 us/B"
    echo "# command: bash bench/liu_fig7.sh $X"
    echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ); host: $(uname -sm), $(nproc) cores"
    for n in 16 32 64 128; do
        extra=()
        [ "$n" = 128 ] && extra=(--max-work 4000000000)
        echo "#"
        echo "# ===== xchg compare --topo torus:${n}x$n --ts 75 --tw 0.01111 --m 8:65536 ${extra[*]}"
        "$X" compare --topo "torus:${n}x$n" --ts 75 --tw 0.01111 --m 8:65536 "${extra[@]}"
        echo "#"
        echo "# Figure 7, torus ${n}x$n: predicted time (us) of the curves the paper draws"
        printf '# %-9s %14s %14s %14s %14s\n' "Size(B)" "at2" "t1" "t2" "lower-bound"
        "$X" compare --topo "torus:${n}x$n" --ts 75 --tw 0.01111 --m 8:65536 "${extra[@]}" \
            --json | grep '"type":"size"' | while IFS= read -r line; do
            printf '  %-9s %14s %14s %14s %14s\n' "$(num m "$line")" "$(num at2 "$line")" \
                "$(num t1 "$line")" "$(num t2 "$line")" "$(num lower_bound "$line")"
        done
    done
    echo "#"
    echo "# ===== xchg verify --topo torus:128x128 --alg at2"
    "$X" verify --topo torus:128x128 --alg at2
} | tee "$OUT"
# the block above runs in a subshell: judge from what it wrote
grep -q '^result          ok' "$OUT" || status=1
grep -q 'NO (' "$OUT" && status=1
exit $status
