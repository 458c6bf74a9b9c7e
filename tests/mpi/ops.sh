#!/usr/bin/env bash
# ops.sh - the other operations (xchg_mpi_bcast, _reduce, ... _shift)
# against the MPI library's own calls, bit for bit, at several process
# counts (tests/mpi/test_mpi_ops.c).
#
# Usage: tests/mpi/ops.sh TEST_MPI_OPS LAUNCHER [PS]
#   PS: the process counts, one word (default "1 2 3 4 5 8 12 16"); from
#   p = 8 on the program runs --quick (fewer roots and types per
#   algorithm: 8 to 16 oversubscribed ranks on 2 cores; p <= 5 runs every
#   root and every type in place and not). Under MPICH,
#   which busy-polls when oversubscribed, counts above 4 are left out and
#   p = 3 and 4 run --quick.
# The XCHG_* variables are unset: the program's "opts NULL" cases are auto;
# then once more (p = 4, --quick) with XCHG_ALG a list of one algorithm per
# operation, which those cases must run (under MPICH at p = 2, where no
# rank spins on a shared core: every algorithm of the list applies there).
set -u
prog=$1
source "$(dirname "$0")/lib_mpi.sh" "$2"
ps=${3:-"1 2 3 4 5 8 12 16"}
unset XCHG_ALG XCHG_TOPOLOGY XCHG_VERBOSE XCHG_TUNING_FILE XCHG_MACHINE_FILE
flavor=$(mpi_flavor)
failed=0
total_start=$(date +%s)

# run P [ARGS...]: the program on P ranks; says PASS or FAIL with the lines
# that say what failed
run() {
    local p=$1 start out
    shift
    start=$(date +%s)
    if out=$(timeout 600 bash -c 'source "$1" "$2"; shift 2; mpi_run "$@"' _ \
                 "$(dirname "$0")/lib_mpi.sh" "$MPI_LAUNCHER" "$p" "$prog" "$@" 2>&1); then
        echo "PASS p=$p $* ${XCHG_ALG:+XCHG_ALG=$XCHG_ALG }($(( $(date +%s) - start )) s):" \
             "$(echo "$out" | grep '^test_mpi_ops' | tail -1)"
    else
        echo "FAIL p=$p $* ${XCHG_ALG:+XCHG_ALG=$XCHG_ALG }($(( $(date +%s) - start )) s):"
        echo "$out" | grep 'FAIL\|\*\*\*\|not shown\|^case: \|ignal\|rror' | head -60
        echo "$out" | grep '^test_mpi_ops' | tail -1
        failed=$((failed + 1))
    fi
}

for p in $ps; do
    if [ "$flavor" = mpich ] && [ "$p" -gt 4 ]; then
        echo "SKIP p=$p (MPICH busy-polls with more ranks than cores)"
        continue
    fi
    # MPICH spins through every wait: fewer cases from p = 3
    if [ "$p" -ge 8 ] || { [ "$flavor" = mpich ] && [ "$p" -ge 3 ]; }; then
        run "$p" --quick
    else
        run "$p"
    fi
done
# opts NULL reads XCHG_ALG: a list of one algorithm per operation, which
# the program's opts-NULL cases then expect (the first p of 4 or more;
# 2 or more under MPICH)
alg_p=4
[ "$flavor" = mpich ] && alg_p=2
for p in $ps; do
    if [ "$p" -ge "$alg_p" ]; then
        XCHG_ALG=bcast-ring,reduce-hc,allreduce-split,reduce-scatter-ring,scan-hc,allgather-ring,gather-ring,scatter-hc,shift-ring \
            run "$p" --quick
        break
    fi
done
echo "ops.sh: $(( $(date +%s) - total_start )) s in all, $failed process counts failed"
[ "$failed" = 0 ]
