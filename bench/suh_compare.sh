#!/usr/bin/env bash
# suh_compare.sh - Suh et al.'s evaluation (section 5, Figures 6 and 7) with
# the tool: on torus:64x64 and torus:128x128, a = t_s/t_c = 5000 and 10000,
# t_c one time unit, block size m in flits:
#   1. xchg plan --only t1,t1.x,t2 --sweep: the fastest of the family per
#      block size and the exact crossovers, from our verified schedules'
#      counts;
#   2. the same lower envelope computed (awk) from Table 1 of Suh et al.'s
#      formulas, so the two can be read side by side;
#   3. xchg compare on the same topology and a (every registry algorithm,
#      each verified block by block; --max-work 3e10 so t2 on 128x128,
#      2.6e10 block-steps, is verified too).
# Writes bench/results/suh_compare.txt (or $1).
#
# Usage: bench/suh_compare.sh [OUTPUT]
# Environment: BUILD_DIR (default <repo>/build), SIDES (default "64 128"),
# AS (default "5000 10000"), COMPARE (default 1; 0 skips step 3).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
build=${BUILD_DIR:-$repo/build}
sides=${SIDES:-"64 128"}
as=${AS:-"5000 10000"}
compare=${COMPARE:-1}
out=${1:-$here/results/suh_compare.txt}

cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" --target xchg_cli -j2 >/dev/null
xchg=$build/xchg
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT

# Lower envelope of Table 1's lines steps*a + volume*m on [lo, hi].
paper_envelope() {
    awk -v d="$1" -v a="$2" -v lo="$3" -v hi="$4" 'BEGIN {
        p = 2^(2*d); n = 0
        name[n] = "t1"; s[n] = 3*d - 3; v[n] = 9*2^(3*d-4) + (d*d - 5*d + 3)*2^(2*d-1); n++
        name[n] = "t2"; s[n] = 3*2^(d-2); v[n] = 3*2^(3*d-3); n++
        for (x = 1; x <= d - 4; x++) {
            name[n] = "t1." x; s[n] = 3*2^(d-3) + 3*x + 2 - 2^x
            v[n] = 3*2^(3*d+x-4) + (2*x+3)*2^(2*d+x-2); n++
        }
        printf "# Table 1 lines (start-ups, blocks):"
        for (i = 0; i < n; i++) printf " %s (%d, %d)", name[i], s[i], v[i]
        printf "\n"
        cur = 0
        for (i = 1; i < n; i++)
            if (s[i]*a + v[i]*lo < s[cur]*a + v[cur]*lo) cur = i
        at = lo; k = 0
        while (1) {
            nx = -1
            for (i = 0; i < n; i++) {
                if (v[i] >= v[cur]) continue
                m = (s[i] - s[cur]) * a / (v[cur] - v[i]); if (m < at) m = at
                if (nx < 0 || m < bm) { nx = i; bm = m }
            }
            if (nx < 0 || bm > hi) break
            printf "paper crossover: %s -> %s at m = %.6g flits\n", name[cur], name[nx], bm
            cur = nx; at = bm; k++
        }
        if (k == 0) printf "paper crossover: none; %s fastest throughout\n", name[cur]
    }'
}

{
    echo "# Suh et al. section 5 replayed: T1, T1.x, T2 on 2^d x 2^d tori, a = t_s/t_c"
    echo "# command: BUILD_DIR=$build SIDES=\"$sides\" AS=\"$as\" COMPARE=$compare" \
         "bench/suh_compare.sh"
    echo "# date: $(date -u +%Y-%m-%dT%H:%MZ)  host: $(uname -m), $(nproc) online cores"
    echo "# time = start-ups*a + volume_blocks*m (t_c units, m in flits)"
} >"$tmp"

for n in $sides; do
    d=0
    while [ $((1 << d)) -lt "$n" ]; do d=$((d + 1)); done
    for a in $as; do
        {
            echo
            echo "######## torus:${n}x${n} (d = $d), a = $a"
            echo "## 1. ours: xchg plan --topo torus:${n}x${n} --a $a --sweep 0.015625:4096" \
                 "--only t1,t1.x,t2"
            "$xchg" plan --topo "torus:${n}x${n}" --a "$a" --sweep 0.015625:4096 \
                --only t1,t1.x,t2
            echo "## 2. Suh et al. Table 1 formulas, same model and range"
            paper_envelope "$d" "$a" 0.015625 4096
        } >>"$tmp"
        if [ "$compare" = 1 ]; then
            {
                echo "## 3. xchg compare --topo torus:${n}x${n} --a $a --m 1:4096" \
                     "--max-work 30000000000"
                t0=$(date +%s)
                "$xchg" compare --topo "torus:${n}x${n}" --a "$a" --m 1:4096 \
                    --max-work 30000000000
                echo "# compare took $(($(date +%s) - t0)) s"
            } >>"$tmp"
        fi
    done
done
echo "# load average at the end: $(cut -d' ' -f1-3 /proc/loadavg) (the machine is shared)" >>"$tmp"
mkdir -p "$(dirname "$out")"
cp "$tmp" "$out"
cat "$out"
