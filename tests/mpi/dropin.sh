#!/usr/bin/env bash
# dropin.sh - the drop-in library under unmodified MPI programs: LD_PRELOAD
# libxchg_mpi.so and check that MPI_Alltoall runs through xchg, that the
# environment turns it off or forces an algorithm, that bad values get a
# clear message and the MPI library's own call (the program still succeeds),
# and that XCHG_VERBOSE=1 prints the totals line at MPI_Finalize.
#
# Usage: tests/mpi/dropin.sh LIB.so C_PROG F_PROG|none LAUNCHER [OPS_PROG [F_OPS_PROG|none
#                            [LARGE_PROG [F08_OPS_PROG|none [V_PROG [F_V_PROG|none [NB_PROG]]]]]]]
#   LIB.so    libxchg_mpi.so
#   C_PROG    tests/mpi/dropin_prog.c built (30 MPI_Alltoall calls per rank)
#   F_PROG    tests/mpi/dropin_prog.f90 built (2 MPI_ALLTOALL per rank), or none
#   LAUNCHER  the MPI's mpirun (tests/mpi/lib_mpi.sh)
#   OPS_PROG  tests/mpi/dropin_ops_prog.c built (MPI_Bcast ... MPI_Scatter,
#             checked against their definitions): the other operations
#   F_OPS_PROG tests/mpi/dropin_ops_prog.F90 built (11 calls of the other
#             operations per rank, checked), or none
#   F08_OPS_PROG the same program built with `use mpi_f08`, or none
#   V_PROG    tests/mpi/dropin_v_prog.c built (12 MPI_Alltoallv and
#             MPI_Alltoallw calls per rank, checked)
#   F_V_PROG  tests/mpi/dropin_v_prog.f90 built (MPI_ALLTOALLV and
#             MPI_ALLTOALLW, one each per rank), or none
#   NB_PROG   tests/mpi/dropin_nb_prog.c built (MPI_Ialltoall, MPI_Ialltoallv
#             and a persistent MPI_Alltoall_init or MPIX_Alltoall_init)
#   LARGE_PROG tests/mpi/dropin_large_prog.c built (MPI 4's MPI_Alltoall_c,
#             MPI_Bcast_c, ...; under an older MPI it says so and the check
#             is skipped)
# Prints PASS/FAIL per check; exits 1 on any failure, 2 on bad usage.
set -u
if [ $# -lt 4 ] || [ $# -gt 11 ]; then
    echo "usage: $0 LIB.so C_PROG F_PROG|none LAUNCHER [OPS_PROG [F_OPS_PROG|none [LARGE_PROG" \
        "[F08_OPS_PROG|none [V_PROG [F_V_PROG|none [NB_PROG]]]]]]]" >&2
    exit 2
fi
lib=$1 cprog=$2 fprog=$3 launcher=$4 opsprog=${5:-} fopsprog=${6:-none} largeprog=${7:-}
f08opsprog=${8:-none} vprog=${9:-} fvprog=${10:-none} nbprog=${11:-}
# shellcheck source=lib_mpi.sh
source "$(dirname "$0")/lib_mpi.sh" "$launcher"

failed=0
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# A sanitizer build's library needs the ASan runtime loaded before anything
# else; a program built without ASan does not load it, so preload it first.
preload=$lib
asan=$(ldd "$lib" 2>/dev/null | awk '/libasan/ { print $3; exit }')
if [ -n "$asan" ]; then
    preload="$asan:$lib"
fi

# run NAME NP PROG [VAR=VALUE...]: PROG at NP ranks with the library
# preloaded and the variables set in the ranks' environment only (through
# env, so the launcher itself loads nothing); stdout in $tmp/NAME.out, stderr
# in $tmp/NAME.err; returns the launcher's exit code.
run() {
    local name=$1 np=$2 prog=$3
    shift 3
    timeout 120 bash -c 'source "$1" "$2"; shift 2; mpi_run "$@"' _ \
        "$(dirname "$0")/lib_mpi.sh" "$launcher" "$np" \
        env LD_PRELOAD="$preload" "$@" "$prog" >"$tmp/$name.out" 2>"$tmp/$name.err"
}

# totals NAME: "N M" from the MPI_Finalize line, or nothing.
totals() {
    sed -n 's/^xchg: at MPI_Finalize: \([0-9][0-9]*\) MPI_Alltoall calls carried by xchg, \([0-9][0-9]*\) passed to the MPI library$/\1 \2/p' \
        "$tmp/$1.err" | head -1
}

# expect NAME WHAT OKLINE CALLS CHECK [GREP...]: the run succeeded and printed
# OKLINE; the Finalize line exists, its N + M equals CALLS, and CHECK holds
# (carried: N > 0; passed: N = 0); each GREP pattern is on stderr.
expect() {
    local name=$1 what=$2 okline=$3 calls=$4 check=$5 rc=$6
    shift 6
    local ok=1 n m t
    if [ "$rc" -ne 0 ] || ! grep -qx "$okline" "$tmp/$name.out"; then
        ok=0
        fail "$what: the program failed (exit $rc)"
    fi
    t=$(totals "$name")
    if [ -z "$t" ]; then
        [ $ok = 1 ] && fail "$what: no 'xchg: at MPI_Finalize: ...' line on stderr"
        ok=0
    else
        read -r n m <<<"$t"
        if [ $((n + m)) -ne "$calls" ]; then
            [ $ok = 1 ] && fail "$what: $n carried + $m passed, want $calls calls in all"
            ok=0
        elif [ "$check" = carried ] && [ "$n" -eq 0 ]; then
            [ $ok = 1 ] && fail "$what: no call carried by xchg ($m passed)"
            ok=0
        elif [ "$check" = passed ] && [ "$n" -ne 0 ]; then
            [ $ok = 1 ] && fail "$what: $n calls carried, want every call passed"
            ok=0
        fi
    fi
    for pat in "$@"; do
        if [ $ok = 1 ] && ! grep -q -- "$pat" "$tmp/$name.err"; then
            fail "$what: stderr does not say '$pat'"
            ok=0
        fi
    done
    if [ $ok = 1 ]; then
        pass "$what (${n:-?} carried, ${m:-?} passed)"
    else
        sed 's/^/    | /' "$tmp/$name.out" "$tmp/$name.err" | head -20
    fi
}

# The runs are on NP ranks: 4, or 2 under MPICH, whose ranks spin through
# every wait when more of them than cores (at 4 every run of this test was
# slow there). What MPICH adds is its library under the same calls: the
# interposition of its symbols, its Fortran bindings, its large-count calls,
# none of which depends on p; 3 and 4 ranks, and the choices an odd p
# makes, run with Open MPI. The counts below scale with NP.
NP=4
[ "$(mpi_flavor)" = mpich ] && NP=2
# On 2 ranks auto passes the exchange (fixed or variable blocks) to the
# library where it would send messages: one message each way is what the
# library sends too (docs/mpi.md). The runs below that check that xchg
# carries a program's exchanges through a binding (Fortran, large counts,
# MPI_Alltoallv) name pairwise on 2 ranks, so that way is still run.
carry2() { # NP: the environment that makes xchg carry the exchange on NP ranks
    [ "$1" = 2 ] && echo XCHG_ALG=pairwise
}
# The C program makes 30 calls per rank (15 on MPI_COMM_WORLD, 15 on its half).
c_ps="$NP 3"
[ "$(mpi_flavor)" = mpich ] && c_ps=$NP
for np in $c_ps; do
    run "c$np" "$np" "$cprog" XCHG_VERBOSE=1
    expect "c$np" "C program, p=$np, XCHG_VERBOSE=1: carried" "dropin_prog: OK" \
        $((30 * np)) carried $?
done

run off $NP "$cprog" XCHG_DISABLE=1 XCHG_VERBOSE=1
expect off "XCHG_DISABLE=1: every call passed" "dropin_prog: OK" $((30 * NP)) passed $?

run hc $NP "$cprog" XCHG_ALG=hc-standard XCHG_VERBOSE=1
expect hc "XCHG_ALG=hc-standard, p=$NP: carried" "dropin_prog: OK" $((30 * NP)) carried $? \
    hc-standard

# Through one leader a node (nodes of NP/2 emulated): the totals count the
# program's calls, not the leaders' own exchanges between the nodes.
run leader $NP "$cprog" XCHG_ALG=leader:pairwise XCHG_NODE_SIZE=$((NP / 2)) XCHG_VERBOSE=1
expect leader "XCHG_ALG=leader:pairwise, p=$NP: carried, the program's calls counted" \
    "dropin_prog: OK" $((30 * NP)) carried $? leader:pairwise

# Bad values (four more runs at p = 4): under Open MPI only (NP is 4 here). What they
# check is opts.c's reading of the environment, the same code with any MPI
# (fuzzed by tests/fuzz/fuzz_mpi_env.c); the call they pass to the MPI
# library is XCHG_DISABLE=1's above, which MPICH runs too. Not in the
# sanitizer build (XCHG_TEST_REDUCED=1): opts.c runs there under the fuzzer
# and the plain build runs these.
if [ "$(mpi_flavor)" = openmpi ] && [ "${XCHG_TEST_REDUCED:-0}" != 1 ]; then
run badalg 4 "$cprog" XCHG_ALG=nonsense XCHG_VERBOSE=1
expect badalg "XCHG_ALG=nonsense: message, every call passed" "dropin_prog: OK" 120 passed $? \
    "^xchg: .*XCHG_ALG" nonsense hc-standard

run baddis 4 "$cprog" XCHG_DISABLE=maybe XCHG_VERBOSE=1
expect baddis "XCHG_DISABLE=maybe: message, every call passed" "dropin_prog: OK" 120 passed $? \
    "^xchg: .*XCHG_DISABLE" maybe "expected 0"

run badtopo 4 "$cprog" XCHG_TOPOLOGY=torus:3x3 XCHG_VERBOSE=1
expect badtopo "XCHG_TOPOLOGY=torus:3x3 at p=4: message, every call passed" "dropin_prog: OK" \
    120 passed $? "^xchg: .*torus:3x3"

run badcopy 4 "$cprog" XCHG_SMPI_COPY_COST=3 XCHG_VERBOSE=1
expect badcopy "XCHG_SMPI_COPY_COST=3: message, every call passed" "dropin_prog: OK" 120 passed $? \
    "^xchg: .*XCHG_SMPI_COPY_COST=3: expected C,T"

run badspec 4 "$cprog" XCHG_TOPOLOGY=torus:3y XCHG_VERBOSE=1
expect badspec "XCHG_TOPOLOGY=torus:3y: message, every call passed" "dropin_prog: OK" 120 passed $? \
    "^xchg: .*XCHG_TOPOLOGY" "torus:3y"
fi

# The other operations: OPS_PROG makes 3 * (4 + 4p) calls per rank, all
# carried at p = NP and 8 (8: Open MPI only; every operation has a
# hypercube algorithm) and at p = 3 (Open MPI only: the ring and split
# algorithms and scan-hc take any p); XCHG_ALG=mpi and
# XCHG_DISABLE=1 pass every one; XCHG_ALG names one per operation.
# ops_totals NAME: "N M" from the other operations' Finalize line.
ops_totals() {
    sed -n 's/^xchg: at MPI_Finalize, the other operations: \([0-9][0-9]*\) calls carried by xchg, \([0-9][0-9]*\) passed to the MPI library$/\1 \2/p' \
        "$tmp/$1.err" | head -1
}
# ops_expect NAME WHAT NP CARRIED: the program's OK line, and the totals
# line with CARRIED calls carried ("all", "none" or "some") of 3*(4+4p)*p.
ops_expect() {
    local name=$1 what=$2 np=$3 want=$4 rc=$5 n m
    local calls=$((3 * (4 + 4 * np) * np))
    read -r n m <<<"$(ops_totals "$name")"
    if [ "$rc" -ne 0 ] || ! grep -qx "dropin_ops_prog: OK" "$tmp/$name.out"; then
        fail "$what: the program failed (exit $rc)"
    elif [ -z "${n:-}" ] || [ $((n + m)) -ne $calls ]; then
        fail "$what: totals '${n:-?} ${m:-?}', want $calls calls in all"
    elif { [ "$want" = all ] && [ "$m" -ne 0 ]; } || { [ "$want" = none ] && [ "$n" -ne 0 ]; } ||
        { [ "$want" = some ] && { [ "$n" -eq 0 ] || [ "$m" -eq 0 ]; }; }; then
        fail "$what: $n carried, $m passed; want $want carried"
    else
        pass "$what ($n carried, $m passed)"
        return
    fi
    sed 's/^/    | /' "$tmp/$name.out" "$tmp/$name.err" | head -20
}
# MPICH busy-polls when oversubscribed: p = NP (2) only there.
ops_ps="$NP 8"
[ "$(mpi_flavor)" = mpich ] && ops_ps=$NP
if [ -n "$opsprog" ]; then
    for np in $ops_ps; do
        run "ops$np" $np "$opsprog" XCHG_VERBOSE=1
        ops_expect "ops$np" "other operations, p=$np: every call carried" $np all $?
    done
    if [ "$(mpi_flavor)" = openmpi ]; then
        run ops3 3 "$opsprog" XCHG_VERBOSE=1
        ops_expect ops3 "other operations, p=3: every call carried (ring, split, scan-hc)" 3 all $?
    fi
    run opsmpi $NP "$opsprog" XCHG_ALG=mpi XCHG_VERBOSE=1
    ops_expect opsmpi "other operations, XCHG_ALG=mpi: every call passed" $NP none $?
    run opsoff $NP "$opsprog" XCHG_DISABLE=1 XCHG_VERBOSE=1
    ops_expect opsoff "other operations, XCHG_DISABLE=1: every call passed" $NP none $?
    run opslist $NP "$opsprog" XCHG_ALG=hc-standard,bcast-ring,allreduce-split XCHG_VERBOSE=1
    ops_expect opslist "other operations, XCHG_ALG lists bcast-ring and allreduce-split" $NP all $?
    if grep -q "^xchg: bcast, $NP ranks, .*: bcast-ring on" "$tmp/opslist.err" &&
        grep -q "^xchg: allreduce, $NP ranks, .*: allreduce-split on" "$tmp/opslist.err"; then
        pass "XCHG_ALG's list: each operation runs its own"
    else
        fail "XCHG_ALG's list: no 'bcast-ring' and 'allreduce-split' lines"
        sed 's/^/    | /' "$tmp/opslist.err" | head -10
    fi
fi

# MPI 4's large-count calls (MPICH 4; Open MPI 4.1 is MPI 3): at p = NP
# each of the 9 carried (the exchange's line counts 1 a rank, the other
# operations' 8); then at p = 2 one MPI_Bcast_c of 2^31 + 8 bytes, which no
# int count holds, passed by xchg to the library's MPI_Bcast_c
# (XCHG_ALG=mpi; slow under MPICH, most of it the receiver's 2 GiB of fresh
# pages: the root's buffer is one period of the pattern mapped over and
# over, dropin_large_prog.c; so only this one: xchg carrying a call above
# 2^31 bytes is mpi_big's, for the exchange, in the plain build).
if [ -n "$largeprog" ]; then
    # shellcheck disable=SC2046
    run large $NP "$largeprog" XCHG_VERBOSE=1 $(carry2 $NP)
    rc=$?
    if grep -qx "dropin_large_prog: no MPI 4 large-count calls" "$tmp/large.out"; then
        echo "SKIP: MPI 4 large-count calls (this MPI is older)"
    elif [ $rc -eq 0 ] && grep -qx "dropin_large_prog: OK" "$tmp/large.out" &&
        [ "$(totals large)" = "$NP 0" ] && [ "$(ops_totals large)" = "$((8 * NP)) 0" ]; then
        pass "MPI 4 large-count calls, p=$NP: all 9 carried and checked"
    else
        fail "MPI 4 large-count calls, p=$NP: exit $rc, totals '$(totals large)' and '$(ops_totals large)', want '$NP 0' and '$((8 * NP)) 0'"
        sed 's/^/    | /' "$tmp/large.out" "$tmp/large.err" | head -20
    fi
    if grep -qx "dropin_large_prog: OK" "$tmp/large.out"; then
        # 9 calls of the other operations a rank, the big one included: all
        # passed
        run big 2 "$largeprog" DROPIN_LARGE_BIG=1 XCHG_VERBOSE=1 XCHG_ALG=mpi
        rc=$?
        if [ $rc -eq 0 ] && grep -qx "dropin_large_prog: OK" "$tmp/big.out" &&
            [ "$(ops_totals big)" = "0 18" ]; then
            pass "MPI_Bcast_c of 2^31 + 8 bytes at p=2, XCHG_ALG=mpi: passed on as it is"
        else
            fail "MPI_Bcast_c of 2^31 + 8 bytes at p=2, XCHG_ALG=mpi: exit $rc, totals '$(ops_totals big)', want '0 18'"
            sed 's/^/    | /' "$tmp/big.out" "$tmp/big.err" | head -20
        fi
    fi
fi

# Exactly one Finalize line, from one rank; the executor's lines saying what
# it chose; nothing without XCHG_VERBOSE.
lines=$(grep -c '^xchg: at MPI_Finalize: .* MPI_Alltoall calls' "$tmp/c$NP.err")
if [ "$lines" -eq 1 ]; then pass "one Finalize line at p=$NP"; else fail "$lines Finalize lines at p=$NP, want 1"; fi
if grep -v '^xchg: at MPI_Finalize' "$tmp/c$NP.err" | grep -q '^xchg: '; then
    pass "XCHG_VERBOSE=1: the executor says what it chose"
else
    fail "XCHG_VERBOSE=1: no line from the executor saying what it chose"
fi
run quiet $NP "$cprog"
rc=$?
if [ $rc -eq 0 ] && grep -qx "dropin_prog: OK" "$tmp/quiet.out" && ! grep -q '^xchg:' "$tmp/quiet.err"; then
    pass "quiet without XCHG_VERBOSE"
else
    fail "without XCHG_VERBOSE: exit $rc, or xchg printed something"
    sed 's/^/    | /' "$tmp/quiet.out" "$tmp/quiet.err" | head -20
fi

# Fortran (use mpi): carried where the binding allows interposition; both
# bindings built here do (MPICH's through the C MPI_Alltoall, Open MPI's
# through the Fortran symbols of src/mpi/dropin_fortran.c).
if [ "$fprog" != none ]; then
    # shellcheck disable=SC2046
    run f $NP "$fprog" XCHG_VERBOSE=1 $(carry2 $NP)
    expect f "Fortran program (use mpi), p=$NP: carried" "dropin_prog_f: OK" $((2 * NP)) carried $?
else
    echo "SKIP: Fortran program (no MPI Fortran compiler in this build)"
fi
# The other operations from Fortran: every call carried (Open MPI's through
# src/mpi/dropin_fortran_ops.c, MPICH's through the C functions), 11 a rank,
# with `use mpi` and with `use mpi_f08` (Open MPI 4's f08 routines are
# defined there too).
fortran_ops() { # NAME PROG BINDING
    if [ "$2" = none ]; then
        echo "SKIP: Fortran program of the other operations ($3): not built here"
        return
    fi
    run "$1" $NP "$2" XCHG_VERBOSE=1
    local rc=$?
    read -r n m <<<"$(ops_totals "$1")"
    if [ $rc -eq 0 ] && grep -qx "dropin_ops_prog_f: OK" "$tmp/$1.out" &&
        [ "${n:-}" = $((11 * NP)) ] && [ "${m:-}" = 0 ]; then
        pass "Fortran program of the other operations ($3), p=$NP: all $((11 * NP)) calls carried"
    else
        fail "Fortran program of the other operations ($3): exit $rc, totals" \
            "'${n:-?} ${m:-?}' (want $((11 * NP)) 0)"
        sed 's/^/    | /' "$tmp/$1.out" "$tmp/$1.err" | head -20
    fi
}
fortran_ops fops "$fopsprog" "use mpi"
fortran_ops f08ops "$f08opsprog" "use mpi_f08"

# MPI_Alltoallv and MPI_Alltoallw: V_PROG's 12 calls a rank all carried
# (at NP, and at 5 with Open MPI), all passed with XCHG_ALG=mpi and with
# XCHG_DISABLE=1, from the third Finalize line; F_V_PROG's 2 a rank
# carried (Open MPI: src/mpi/dropin_fortran_ops.c; MPICH: the C calls).
v_totals() {
    sed -n 's/^xchg: at MPI_Finalize, MPI_Alltoallv and MPI_Alltoallw: \([0-9][0-9]*\) calls carried by xchg, \([0-9][0-9]*\) passed to the MPI library$/\1 \2/p' \
        "$tmp/$1.err" | head -1
}
v_expect() { # NAME WHAT OKLINE CARRIED PASSED RC
    local n m
    read -r n m <<<"$(v_totals "$1")"
    if [ "$6" -eq 0 ] && grep -qx "$3" "$tmp/$1.out" && [ "${n:-}" = "$4" ] && [ "${m:-}" = "$5" ]; then
        pass "$2 ($n carried, $m passed)"
    else
        fail "$2: exit $6, totals '${n:-?} ${m:-?}' (want $4 $5)"
        sed 's/^/    | /' "$tmp/$1.out" "$tmp/$1.err" | head -20
    fi
}
if [ -n "$vprog" ]; then
    v_ps=$NP
    [ "$(mpi_flavor)" = openmpi ] && v_ps="$NP 5"
    for np in $v_ps; do
        # shellcheck disable=SC2046
        run "v$np" $np "$vprog" XCHG_VERBOSE=1 $(carry2 $np)
        v_expect "v$np" "MPI_Alltoallv and _w, p=$np: every call carried" "dropin_v_prog: OK" \
            $((12 * np)) 0 $?
    done
    # across emulated nodes of 2 (5 ranks: 2 + 2 + 1; MPICH's 2: one rank a
    # node), aggregation (src/mpi/aggregate_v.c) forced: every call carried
    # and counted once (its exchanges within the node are not the
    # program's), and rank 0 says it ran
    vn=$NP
    [ "$(mpi_flavor)" = openmpi ] && vn=5
    run vagg $vn "$vprog" XCHG_ALG=aggregate XCHG_NODE_SIZE=$(((vn + 1) / 3)) XCHG_VERBOSE=1
    rc=$?
    grep -q "Alltoallv, $vn ranks: aggregate (asked for" "$tmp/vagg.err" || rc=1
    v_expect vagg "MPI_Alltoallv and _w by aggregation across nodes, p=$vn: every call carried" \
        "dropin_v_prog: OK" $((12 * vn)) 0 $rc
    run vmpi $NP "$vprog" XCHG_ALG=mpi XCHG_VERBOSE=1
    v_expect vmpi "MPI_Alltoallv and _w, XCHG_ALG=mpi: every call passed" "dropin_v_prog: OK" \
        0 $((12 * NP)) $?
    run voff $NP "$vprog" XCHG_DISABLE=1 XCHG_VERBOSE=1
    v_expect voff "MPI_Alltoallv and _w, XCHG_DISABLE=1: every call passed" "dropin_v_prog: OK" \
        0 $((12 * NP)) $?
fi
if [ "$fvprog" != none ]; then
    # shellcheck disable=SC2046
    run fv $NP "$fvprog" XCHG_VERBOSE=1 $(carry2 $NP)
    v_expect fv "Fortran MPI_ALLTOALLV and _W, p=$NP: carried" "dropin_v_prog_f: OK" \
        $((2 * NP)) 0 $?
else
    echo "SKIP: Fortran program of MPI_Alltoallv (no MPI Fortran compiler in this build)"
fi

# Nonblocking and persistent: NB_PROG's initiations all made by xchg (the
# fourth Finalize line), all passed with XCHG_DISABLE=1 and XCHG_ALG=mpi.
nb_expect() { # NAME WHAT CARRIED(all|none) RC
    local n m k
    k=$(sed -n 's/^dropin_nb_prog: OK, \([0-9][0-9]*\) initiations$/\1/p' "$tmp/$1.out")
    read -r n m <<<"$(sed -n 's/^xchg: at MPI_Finalize, nonblocking and persistent exchanges: \([0-9][0-9]*\) made by xchg, \([0-9][0-9]*\) passed to the MPI library$/\1 \2/p' "$tmp/$1.err")"
    local want_n=$((${k:-0} * NP)) want_m=0
    [ "$3" = none ] && want_m=$want_n && want_n=0
    if [ "$4" -eq 0 ] && [ -n "$k" ] && [ "${n:-}" = "$want_n" ] && [ "${m:-}" = "$want_m" ]; then
        pass "$2 ($n made by xchg, $m passed)"
    else
        fail "$2: exit $4, program '${k:-no OK line}', totals '${n:-?} ${m:-?}' (want $want_n $want_m)"
        sed 's/^/    | /' "$tmp/$1.out" "$tmp/$1.err" | head -20
    fi
}
if [ -n "$nbprog" ]; then
    run nb $NP "$nbprog" XCHG_VERBOSE=1
    nb_expect nb "MPI_Ialltoall, _Ialltoallv and a persistent alltoall, p=$NP: made by xchg" all $?
    run nboff $NP "$nbprog" XCHG_DISABLE=1 XCHG_VERBOSE=1
    nb_expect nboff "nonblocking and persistent, XCHG_DISABLE=1: passed" none $?
    run nbmpi $NP "$nbprog" XCHG_ALG=mpi XCHG_VERBOSE=1
    nb_expect nbmpi "nonblocking and persistent, XCHG_ALG=mpi: passed" none $?
fi

if [ $failed -ne 0 ]; then
    echo "dropin.sh: $failed check(s) failed"
    exit 1
fi
echo "dropin.sh: all checks passed"
