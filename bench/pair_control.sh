#!/usr/bin/env bash
# pair_control.sh - the noise floor of bench/mpi_ops.sh --paired: on 16
# ranks, a 32 KiB MPI_Scatter timed against itself (control) and xchg's
# scatter, which auto passes to the library there, against the library
# (xchg), each with 5, 20 and 60 timed iterations, three runs of each
# (bench/pair_control.c). The control's ratios are how far a paired ratio
# strays from 1 when both sides make the very same call.
# Writes bench/results/pair_control.txt.
#
# Usage: bench/pair_control.sh [BUILD_DIR]   (default: build)
set -eu
cd "$(dirname "$0")/.."
build=${1:-build}
cmake --build "$build" --target pair_control >/dev/null
launcher=$(sed -n 's/^XCHG_MPIEXEC:FILEPATH=//p' "$build/CMakeCache.txt")
# shellcheck source=../tests/mpi/lib_mpi.sh
source tests/mpi/lib_mpi.sh "${launcher:-mpirun}"
export TUN=bench/results/mpi_ops-paired-tuning.txt
out=bench/results/pair_control.txt
{
    echo "# A paired timing's noise floor (bench/pair_control.sh): 16 ranks, MPI_Scatter of 32 KiB a rank"
    echo "# $(date -u +%Y-%m-%dT%H:%MZ) on $(nproc) cores; load average $(cut -d' ' -f1-3 /proc/loadavg);" \
        "commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
    echo "# control: PMPI_Scatter against PMPI_Scatter; xchg: xchg_mpi_scatter (auto, tuning file"
    echo "# $TUN: the library's call at this size) against PMPI_Scatter."
    echo "# Alternating as xchg-bench --pair does; times are the mean over ranks (us); ratio = first/second."
    echo "# mode       bytes  iters   first(us)   second(us)    ratio"
    for run in 1 2 3; do
        for n in 6 21 61; do
            for mode in control xchg; do
                mpi_run 16 "$build/pair_control" 32768 "$n" "$mode"
            done
        done
    done
} | tee "$out"
