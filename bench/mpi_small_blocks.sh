#!/usr/bin/env bash
# mpi_small_blocks.sh - tiny blocks on 64 oversubscribed ranks, timed back to
# back: a bare barrier, a hand-written hypercube exchange, xchg's
# hc-standard, xchg's shm and the MPI library's MPI_Alltoall, three runs in
# a row (bench/mpi_small_blocks.c).
# Writes bench/results/mpi_small_blocks.txt.
#
# Usage: bench/mpi_small_blocks.sh [BUILD_DIR]   (default: build)
set -eu
cd "$(dirname "$0")/.."
build=${1:-build}
cmake --build "$build" --target mpi_small_blocks >/dev/null
launcher=$(sed -n 's/^XCHG_MPIEXEC:FILEPATH=//p' "$build/CMakeCache.txt")
# shellcheck source=../tests/mpi/lib_mpi.sh
source tests/mpi/lib_mpi.sh "${launcher:-mpirun}"
out=bench/results/mpi_small_blocks.txt
{
    echo "# Tiny blocks on oversubscribed ranks, back to back (bench/mpi_small_blocks.sh)"
    echo "# $(date -u +%Y-%m-%dT%H:%MZ) on $(nproc) cores; load average $(cut -d' ' -f1-3 /proc/loadavg)"
    for run in 1 2 3; do
        echo "## run $run"
        mpi_run 64 "$build/mpi_small_blocks" 8 100
    done
} | tee "$out"
