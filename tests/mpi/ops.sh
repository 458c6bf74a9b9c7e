#!/usr/bin/env bash
# ops.sh - the other operations (xchg_mpi_bcast, _reduce, ... _shift)
# against the MPI library's own calls, bit for bit, at several process
# counts (tests/mpi/test_mpi_ops.c).
#
# Usage: tests/mpi/ops.sh TEST_MPI_OPS LAUNCHER [PS]
#   PS: the process counts, one word (default "1 2 3 4 5 8 12 16"); from
#   p = 12 on the program runs --quick (fewer roots and types per
#   algorithm: 12 and 16 oversubscribed ranks on 2 cores). Under MPICH,
#   which busy-polls when oversubscribed, counts above 4 are left out.
# The XCHG_* variables are unset: the program's "opts NULL" cases are auto.
set -u
prog=$1
source "$(dirname "$0")/lib_mpi.sh" "$2"
ps=${3:-"1 2 3 4 5 8 12 16"}
unset XCHG_ALG XCHG_TOPOLOGY XCHG_VERBOSE XCHG_TUNING_FILE XCHG_MACHINE_FILE
flavor=$(mpi_flavor)
failed=0
total_start=$(date +%s)
for p in $ps; do
    if [ "$flavor" = mpich ] && [ "$p" -gt 4 ]; then
        echo "SKIP p=$p (MPICH busy-polls with more ranks than cores)"
        continue
    fi
    args=()
    [ "$p" -ge 12 ] && args=(--quick)
    start=$(date +%s)
    if out=$(timeout 600 bash -c 'source "$1" "$2"; shift 2; mpi_run "$@"' _ \
                 "$(dirname "$0")/lib_mpi.sh" "$MPI_LAUNCHER" "$p" "$prog" "${args[@]}" 2>&1); then
        echo "PASS p=$p ($(( $(date +%s) - start )) s): $(echo "$out" | grep '^test_mpi_ops' | tail -1)"
    else
        echo "FAIL p=$p ($(( $(date +%s) - start )) s):"
        echo "$out" | grep -v '^\[.*\] \|^-----\|^  ' | head -60
        echo "$out" | grep '^test_mpi_ops' | tail -1
        failed=$((failed + 1))
    fi
done
echo "ops.sh: $(( $(date +%s) - total_start )) s in all, $failed process counts failed"
[ "$failed" = 0 ]
