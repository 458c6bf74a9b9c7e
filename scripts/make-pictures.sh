#!/usr/bin/env bash
# make-pictures.sh - the pictures of README.md and docs/, made by xchg itself
# (`make pictures` runs it): a step diagram per algorithm family page, T1 on
# an 8x8 torus for the README, and the comparison plots of a 64x64 torus.
# The SVG files are committed; tests/pictures.sh runs this script into a
# temporary folder and holds the committed files to what it makes now.
#
# Usage: scripts/make-pictures.sh [XCHG [OUTDIR]]
#   XCHG    the xchg binary (default build/xchg)
#   OUTDIR  where the pictures go (default docs/pictures of this checkout)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
X=${1:-$here/build/xchg}
OUT=${2:-$here/docs/pictures}
if [ ! -x "$X" ]; then
    echo "make-pictures.sh: no xchg binary at '$X'; build first (make build)" >&2
    exit 2
fi
mkdir -p "$OUT"

# draw NAME TOPO ALG STEP: step STEP of ALG on TOPO into OUT/NAME.svg
draw() {
    "$X" draw --topo "$2" --alg "$3" --step "$4" -o "$OUT/$1.svg"
}

# The README's step diagram (also in docs/torus-suh.md).
draw t1-torus8x8-step1 torus:8x8 t1 1
# One step diagram per algorithm family page of docs/.
draw ring-ring8-step1 ring:8 ring 1
draw mesh2-mesh4x6-step1 mesh:4x6 mesh2 1
draw hc-standard-hypercube4-step1 hypercube:4 hc-standard 1
draw bruck-complete8-step2 complete:8 bruck 2
draw pairwise-torus4x4-step2 torus:4x4 pairwise 2
draw ar1-ring8-step1 ring:8 ar1 1
draw at2-torus8x8-step1 torus:8x8 at2 1
draw ptk-torus4x4-step1 torus:4x4 ptk 1
draw mt3-torus6x6x6-step1 torus:6x6x6 mt3 1
# docs/drawing.md's sender groups: T2's four level-3 groups on 16x16.
draw t2-torus16x16-step7 torus:16x16 t2 7

# the other operations (docs/operations.md and one page each,
# docs/op-*.md): every step on one sheet
sheet() {
    "$X" draw --topo "$2" --alg "$3" --all-steps -o "$OUT/$1.svg"
}
sheet bcast-ring-ring8 ring:8 bcast-ring
sheet bcast-tree-tree3 tree:3 bcast-tree:root=2
sheet reduce-ring-ring8 ring:8 reduce-ring
sheet allgather-mesh-mesh3x3 mesh:3x3 allgather-mesh
sheet reduce-scatter-hc-hypercube3 hypercube:3 reduce-scatter-hc
sheet allreduce-hc-hypercube3 hypercube:3 allreduce-hc
sheet scan-hc-hypercube3 hypercube:3 scan-hc
sheet scatter-hc-hypercube3 hypercube:3 scatter-hc
sheet gather-mesh-mesh4x4 mesh:4x4 gather-mesh
sheet shift-mesh-torus4x4-q5 torus:4x4 shift-mesh:q=5

# Every algorithm that applies to a 64x64 torus on the Paragon. Blocks are
# followed in schedules of at most 1e8 block-steps (the rest get the
# message-level checks): the picture takes well under a second instead of
# about 20; only hc-direct and pairwise (4095 start-ups, far above every
# other line) are left unmeasured, and they may not win, so are not drawn.
"$X" compare --topo torus:64x64 --machine paragon --m 8:65536 --max-work 100000000 \
    --plot "$OUT/compare-torus64x64.svg" >/dev/null
# Suh et al.'s T1, T1.x and T2 in their own model (a = t_s/t_c = 1000):
# the winner changes twice below 4 flits.
"$X" compare --topo torus:64x64 --only t1,t1.x,t2 --a 1000 --m 0.125:32 \
    --max-work 100000000 --plot "$OUT/compare-torus64x64-suh.svg" >/dev/null
