#!/usr/bin/env bash
# exec.sh - the executor against MPI_Alltoall, byte for byte, at every
# process count of the issue's matrix (tests/mpi/test_mpi_exec.c).
#
# Usage: tests/mpi/exec.sh TEST_MPI_EXEC LAUNCHER [PS [ARGS...]]
#   PS: the process counts, one word (default "1 2 3 4 5 7 8 12 16 27 32
#   64"). Blocks up to 1 MiB at p <= 5 (at p = 5 the shm exchange of 1 MiB
#   blocks, 2 p^2 m above XCHG_MPI_SHM_MAX, goes in rounds), 64 KiB at
#   p <= 16, 4 KiB above (memory and time of 64 oversubscribed ranks on 2
#   cores); the larger blocks at more ranks ran the same code, most of the
#   matrix's time. From p = 27 on --rotate-only: no sweep of every type at
#   64 bytes, the types and in place turn round over each spec's sizes
#   (every type is swept at every p up to 16). ARGS replace the matrix's
#   arguments (e.g. --big BYTES).
set -u
prog=$1
source "$(dirname "$0")/lib_mpi.sh" "$2"
ps=${3:-"1 2 3 4 5 7 8 12 16 27 32 64"}
shift $(( $# < 3 ? $# : 3 ))
failed=0
for p in $ps; do
    if [ "$p" -le 5 ]; then max=1048576; elif [ "$p" -le 16 ]; then max=65536; else max=4096; fi
    args=(--max-bytes "$max")
    [ "$p" -ge 27 ] && args+=(--rotate-only)
    [ $# -gt 0 ] && args=("$@")
    start=$(date +%s)
    if out=$(timeout 900 bash -c 'source "$1" "$2"; shift 2; mpi_run "$@"' _ \
                 "$(dirname "$0")/lib_mpi.sh" "$MPI_LAUNCHER" "$p" "$prog" "${args[@]}" 2>&1); then
        echo "PASS p=$p ($(( $(date +%s) - start )) s): $(echo "$out" | tail -1)"
    else
        echo "FAIL p=$p:"
        echo "$out" | tail -30
        failed=$((failed + 1))
    fi
done
[ "$failed" = 0 ]
