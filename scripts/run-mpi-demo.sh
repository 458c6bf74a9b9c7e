#!/usr/bin/env bash
# run-mpi-demo.sh - the end of `make run`: a short real exchange on 16 local
# ranks, xchg's executor (--alg auto) and then the MPI library's own
# MPI_Alltoall (--alg mpi), both validated (-c: every byte of every block),
# each printed as xchg-bench's OSU-style table, then the two side by side.
# Usage: scripts/run-mpi-demo.sh [BUILD_DIR]   (default: build)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$repo/build}
bench=$build/xchg-bench
if [ ! -x "$bench" ]; then
    echo "run-mpi-demo.sh: $bench not found: the build found no MPI (install Open MPI, e.g." \
        "scripts/install-deps.sh, then make build)" >&2
    exit 2
fi
launcher=$(sed -n 's/^XCHG_MPIEXEC:FILEPATH=//p' "$build/CMakeCache.txt")
# shellcheck source=../tests/mpi/lib_mpi.sh
source "$repo/tests/mpi/lib_mpi.sh" "${launcher:-mpirun}"
args=(-m 8:64K -i 50 -x 5 --iterations-large 10 --warmup-large 2 -c -f)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo
echo "== xchg-bench on 16 ranks: xchg's executor (--alg auto), validated"
mpi_run 16 "$bench" --alg auto "${args[@]}" | tee "$tmp/auto"
echo
echo "== xchg-bench on 16 ranks: the MPI library's MPI_Alltoall (--alg mpi), validated"
mpi_run 16 "$bench" --alg mpi "${args[@]}" | tee "$tmp/mpi"
echo
echo "== side by side (Avg Latency, us; speed-up = mpi / auto; one run each, oversubscribed)"
awk 'FNR == 1 { f++ }
     /^[0-9]/ { t[f, $1] = $2; v[f, $1] = $NF; if (f == 1) size[n++] = $1 }
     END {
         printf "%-10s%14s%14s%10s%12s\n", "# Size", "auto(us)", "mpi(us)", "speed-up", "Validation"
         for (i = 0; i < n; i++) {
             s = size[i]
             printf "%-10s%14.2f%14.2f%10.2f%12s\n", s, t[1, s], t[2, s], t[2, s] / t[1, s],
                    (v[1, s] == "Pass" && v[2, s] == "Pass") ? "Pass" : "Fail"
         }
     }' "$tmp/auto" "$tmp/mpi"
