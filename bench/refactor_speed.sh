#!/usr/bin/env bash
# refactor_speed.sh - is the verifier as fast as it was before a change?
# Builds the xchg CLI from a base revision (default: the last commit before
# issue 8 moved the block follower into src/sched/) and from the working
# tree, both Release with the repo's CMake, then times the same schedules
# with each, interleaved (base, current, base, current, ...) so both see the
# same load on this shared machine:
#   hc-standard on hypercube:14   (2.7e8 blocks, 14 steps)
#   t2 on torus:128x128           (2.7e8 blocks, 96 steps)
# Each timing is one `xchg verify` on every online core, the verify call
# alone as the CLI's "time taken" line reports it (schedule generation not
# timed); --max-work lets t2's 2.6e10 block-steps through on both builds. Reports the median time of each build, the ratio
# current / base of the medians, and the spread of the per-round ratios.
#
# Usage: bench/refactor_speed.sh [OUTPUT]
# Environment: BASE (default 19d9b57), ROUNDS (default 3),
#              CASES (default "hypercube:14/hc-standard torus:128x128/t2").
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
base=${BASE:-19d9b57}
rounds=${ROUNDS:-3}
cases=${CASES:-"hypercube:14/hc-standard torus:128x128/t2"}
out=${1:-$here/results/refactor_speed.txt}

# shellcheck source=lib_base_tree.sh
source "$here/lib_base_tree.sh" "$repo" "$base"
for side in base cur; do
    src=$repo
    [ "$side" = base ] && src=$work/base-src
    cmake -S "$src" -B "$work/$side" -DCMAKE_BUILD_TYPE=Release >/dev/null
    cmake --build "$work/$side" --target xchg_cli -j2 >/dev/null
done
base_desc=$(git -C "$repo" log -1 --format='%h %s' "$base" | cut -c1-70)
cur_desc="$(git -C "$repo" log -1 --format='%h' HEAD)$(git -C "$repo" diff --quiet HEAD -- src include || echo ' + uncommitted changes')"

raw=$work/raw
: >"$raw"
for c in $cases; do
    topo=${c%/*}
    alg=${c#*/}
    for r in $(seq 1 "$rounds"); do
        for side in base cur; do
            rep=$("$work/$side/xchg" verify --topo "$topo" --alg "$alg" --max-work 100000000000)
            if ! grep -q '^result *ok' <<<"$rep"; then
                echo "refactor_speed: $alg on $topo did not verify with the $side build" >&2
                exit 1
            fi
            secs=$(awk '/^time taken/ { print $3 }' <<<"$rep")
            blocks=$(awk '/^blocks/ { print $2 }' <<<"$rep")
            steps=$(awk '/^steps/ { print $2 }' <<<"$rep")
            echo "$topo $alg $r $side $secs $blocks $steps" >>"$raw"
        done
    done
done

mkdir -p "$(dirname "$out")"
{
    echo "# xchg verifier speed before and after a change, same machine, interleaved runs"
    echo "# command: ROUNDS=$rounds bench/refactor_speed.sh (BASE=$base)"
    echo "# base:    $base_desc"
    echo "# current: $cur_desc"
    echo "# date: $(date -u +%Y-%m-%dT%H:%MZ)  host: $(uname -m), $(nproc) online cores," \
         "$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //')"
    echo "# load average at the end: $(cut -d' ' -f1-3 /proc/loadavg) (the machine is shared)"
    echo "# Time = one xchg_verify on every online core, every block followed; median of $rounds rounds"
    echo "# Ratio = current median / base median (below 1: faster); spread = min..max of the per-round ratios"
    printf "%-16s %-12s %12s %6s %14s %14s %8s  %s\n" "# Topology" "Algorithm" "Blocks" "Steps" \
        "Base(s)" "Current(s)" "Ratio" "Spread"
    for c in $cases; do
        topo=${c%/*}
        alg=${c#*/}
        awk -v topo="$topo" -v alg="$alg" '
            function median(a, n,   i, j, t) {
                for (i = 1; i <= n; i++)
                    for (j = i + 1; j <= n; j++)
                        if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
                return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
            }
            $1 == topo && $2 == alg {
                if ($4 == "base") { b[++nb] = $5; br[$3] = $5 } else { c[++nc] = $5; cr[$3] = $5 }
                blocks = $6; steps = $7
            }
            END {
                lo = 1e300; hi = 0
                for (r in br) if (br[r] > 0) { q = cr[r] / br[r]; if (q < lo) lo = q; if (q > hi) hi = q }
                mb = median(b, nb); mc = median(c, nc)
                printf "  %-14s %-12s %12d %6d %14.3f %14.3f %8.3f  %.3f..%.3f\n",
                       topo, alg, blocks, steps, mb, mc, (mb > 0 ? mc / mb : 0), lo, hi
            }' "$raw"
    done
} >"$out"
cat "$out"
