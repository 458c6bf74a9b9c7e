#!/usr/bin/env bash
# suh_draw.sh - text drawings of Suh et al. schedules, read back from
# `xchg export --format json` (so they show what the generator made): for
# chosen steps, the top-left 8x8 submesh, one character per node:
#   > sends to a node on its right (+x, same row)   < to its left
#   v sends to a node below (+y, same column)       ^ above
#   . idle (no message this step)
# followed by the partner of each sender in row 0..7 as "x->x'" pairs.
# Writes bench/results/suh_draw.txt (or $1).
#
# Usage: bench/suh_draw.sh [OUTPUT]
# Environment: BUILD_DIR (default <repo>/build).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
build=${BUILD_DIR:-$repo/build}
out=${1:-$here/results/suh_draw.txt}

cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" --target xchg_cli -j2 >/dev/null
xchg=$build/xchg
tmp=$(mktemp)
json=$(mktemp)
trap 'rm -f "$tmp" "$json"' EXIT

# draw TOPO_SIDE ALG "STEP STEP ..." TITLE
draw() {
    local n=$1 alg=$2 steps=$3 title=$4
    "$xchg" export --topo "torus:${n}x${n}" --alg "$alg" --format json --output "$json" \
        --max-work 100000000000
    python3 - "$json" "$n" "$alg" "$steps" "$title" >>"$tmp" <<'EOF'
import json, sys
path, n, alg, steps, title = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
with open(path) as f:
    sched = json.load(f)
print("#", title)
print("# command: xchg export --topo torus:%dx%d --alg %s --format json (steps counted from 1)"
      % (n, n, alg))
for st in map(int, steps.split()):
    msgs = {m["from"]: m for m in sched["steps"][st - 1]}
    sizes = sorted({len(m["blocks"]) for m in msgs.values()})
    print("step %d of %d: %d senders in the torus, message sizes %s blocks"
          % (st, len(sched["steps"]), len(msgs), sizes))
    for y in range(8):
        row = []
        for x in range(8):
            m = msgs.get(y * n + x)
            if m is None:
                row.append(".")
                continue
            ty, tx = divmod(m["to"], n)
            row.append(">" if ty == y and tx > x else "<" if ty == y else "v" if ty > y else "^")
        print("   " + " ".join(row))
    print()
EOF
}

{
    echo "# Suh et al. schedules drawn from xchg export (top-left 8x8 submesh)"
    echo "# command: BUILD_DIR=$build bench/suh_draw.sh"
    echo
} >"$tmp"
draw 16 t2 "5 6 7 8" "T2 on 16x16, phase 3 (level 3: four groups, two per step pair)"
draw 32 t1 "1 2 3 4 5 6" "T1 on 32x32 (c = 2): concentration phases 1 and 2, then phase 3 on G_3(1)"
draw 32 t1 "11 12" "T1 on 32x32: the send phase (G_3(1) -> level-2 mirror, G_2(1) -> x0 neighbour)"
mkdir -p "$(dirname "$out")"
cp "$tmp" "$out"
cat "$out"
