#!/usr/bin/env bash
# rank_plan.sh - time and memory for one rank to derive its own program
# (xchg_rank_new) at p = 1,024, 4,096 and 16,384, without MPI: the per-rank
# planning the MPI executor does when it makes a plan. Writes
# bench/results/rank_plan.txt.
#
# Usage: bench/rank_plan.sh [BUILD_DIR]   (default: build)
set -eu
cd "$(dirname "$0")/.."
build=${1:-build}
cmake --build "$build" --target bench_rank_plan >/dev/null
out=bench/results/rank_plan.txt
{
    echo "# One rank's program: derivation time and memory (bench/rank_plan.sh)"
    echo "# $(date -u +%Y-%m-%d) on $(nproc) cores: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
    echo "# The node is p/3. 'rank' is xchg_rank_new alone; 'generate' builds the"
    echo "# schedule's rules. sym: the symmetry the rank's lists came from (none:"
    echo "# every block followed, p*p*steps). lists: bytes the program keeps;"
    echo "# scratch: blocks of scratch it needs at the block size of a run."
    for spec in "hypercube:10 hc-standard" "complete:1024 bruck" "complete:1024 pairwise" \
                "torus:32x32 at2" "torus:32x32 mtk" "torus:32x32 t2" \
                "hypercube:12 hc-standard" "complete:4096 bruck" "complete:4096 pairwise" \
                "torus:64x64 at2" "torus:64x64 t2" \
                "hypercube:14 hc-standard" "hypercube:14 multiphase:7,7" "complete:16384 bruck" \
                "complete:16384 pairwise" "torus:128x128 at2" "torus:128x128 mtk"; do
        # shellcheck disable=SC2086
        "$build/bench_rank_plan" $spec
    done
} | tee "$out"
