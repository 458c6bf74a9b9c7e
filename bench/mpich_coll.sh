#!/usr/bin/env bash
# mpich_coll.sh - MPICH's own tests of MPI_Alltoallv, MPI_Alltoallw, the
# nonblocking collectives (MPI_Ialltoall/v/w among them) and the persistent
# ones (MPI_Alltoall_init, _v, _w; request handling of inactive and
# reordered persistent requests), unmodified, built with the MPI chosen from
# an MPICH source tree the caller names, and each run without the drop-in and
# with LD_PRELOAD=libxchg_mpi.so XCHG_VERBOSE=1. Records per test: whether
# it builds with this MPI (the persistent ones need MPI 4: Open MPI 4.1 has
# no MPI_Alltoall_init), whether it says "No Errors" without the drop-in and
# with it, the all-to-all calls rank 0 made (counted by the PMPI interposer
# examples/count_alltoall.c, without xchg), and the drop-in's MPI_Finalize
# lines (calls carried by xchg / passed to the MPI library, summed over the
# ranks). The build follows bench/mpich_alltoall1.sh: the test and MPICH's
# mtest harness (util/, include/), a hand-written mpitestconf.h and, for a
# test written as run() (MPICH's multi-test form), the one-test main() its
# build generates.
#
# The drop-in's third Finalize line counts MPI_Alltoallv and MPI_Alltoallw
# (the table's last column: the number before "carried" and before
# "passed"); the fourth, "nonblocking and persistent exchanges", counts the
# I-calls and the *_init calls, and is shown in the lines below the table.
#
# Exit status: 0; 1 when a test says "No Errors" without the drop-in but not
# with it (or, with --expect-carried, when MPI_Alltoallv is not carried);
# 2 on bad usage or when the tree or the library cannot be found.
#
# Usage: bench/mpich_coll.sh --mpich DIR [--mpi openmpi|mpich] [--np P]
#                            [--build DIR] [--out FILE] [--expect-carried]
#   --mpich DIR        an MPICH source tree: a checkout (DIR/test/mpi) or a
#                      bare git repository (its HEAD is read; DIR/repo too)
#   --mpi M            openmpi (default) or mpich: the compiler, launcher and
#                      drop-in build used
#   --np P             ranks (default 4 with Open MPI, 3 with MPICH, whose
#                      waiting ranks busy-poll when oversubscribed)
#   --build DIR        build tree with libxchg_mpi.so for that MPI (default
#                      <repo>/build, or <repo>/build-mpich configured with
#                      -DXCHG_MPI=mpich; made when missing)
#   --out FILE         results (default bench/results/mpich_coll_<mpi>.txt)
#   --expect-carried   fail unless the drop-in's Finalize lines show
#                      MPI_Alltoallv calls carried by xchg in alltoallv and
#                      alltoallv0 (for when the drop-in carries them)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
mpich=
mpi=openmpi
np=
build=
out=
expect_carried=0
cmdline="bench/mpich_coll.sh $*"

die() {
    echo "mpich_coll.sh: $*" >&2
    exit 2
}
while [ $# -gt 0 ]; do
    case "$1" in
    --mpich) [ $# -ge 2 ] || die "--mpich needs an MPICH source tree"; mpich=$2; shift 2 ;;
    --mpi)
        [ $# -ge 2 ] || die "--mpi needs openmpi or mpich"
        case "$2" in openmpi | mpich) mpi=$2 ;; *) die "--mpi wants openmpi or mpich, not '$2'" ;; esac
        shift 2 ;;
    --np)
        [[ "${2:-}" =~ ^[1-9][0-9]*$ ]] || die "--np needs a count >= 1, got '${2:-}'"
        np=$2; shift 2 ;;
    --build) [ $# -ge 2 ] || die "--build needs a directory"; build=$2; shift 2 ;;
    --out) [ $# -ge 2 ] || die "--out needs a file"; out=$2; shift 2 ;;
    --expect-carried) expect_carried=1; shift ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option '$1'; accepted: --mpich DIR, --mpi openmpi|mpich, --np P, --build DIR, --out FILE, --expect-carried, --help" ;;
    esac
done
[ -n "$mpich" ] || die "--mpich DIR is needed: an MPICH source tree (a checkout or a bare git repository)"
if [ "$mpi" = openmpi ]; then
    np=${np:-4} build=${build:-$repo/build} cmake_mpi=()
else
    np=${np:-3} build=${build:-$repo/build-mpich} cmake_mpi=(-DXCHG_MPI=mpich)
fi
out=${out:-$here/results/mpich_coll_$mpi.txt}
cc=mpicc.$mpi
command -v "$cc" >/dev/null && command -v git >/dev/null || bash "$repo/scripts/install-deps.sh"
command -v git >/dev/null || die "git is needed to read a bare MPICH repository"
if [ ! -f "$build/CMakeCache.txt" ]; then
    cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release "${cmake_mpi[@]}" >/dev/null
fi
cmake --build "$build" --target xchg_mpi -j2 >/dev/null
lib=$build/libxchg_mpi.so
[ -f "$lib" ] || die "$build lacks libxchg_mpi.so (is an MPI found?)"
launcher=$(sed -n 's/^XCHG_MPIEXEC:FILEPATH=//p' "$build/CMakeCache.txt")
# shellcheck source=../tests/mpi/lib_mpi.sh
source "$repo/tests/mpi/lib_mpi.sh" "$launcher"
[ "$(mpi_flavor)" = "$mpi" ] ||
    die "$build is built for $(mpi_flavor) (launcher $launcher), not $mpi; give --build DIR of a $mpi build (cmake ${cmake_mpi[*]:-} ...)"
export OMPI_MCA_mpi_yield_when_idle=1

# The tests: NAME[:ARG] (ARG given to the program, as MPICH's testlist does).
tests="alltoallv alltoallv0 alltoallw1 alltoallw2 alltoallw_zeros icalltoallv
       icalltoallv:-nonblocking icalltoallw icalltoallw:-nonblocking nonblocking nonblocking2
       nonblocking3 p_alltoall p_alltoallv p_alltoallw p_inactive p_order"
# Tests whose MPI_Alltoallv calls the drop-in should carry (intracommunicators).
expect_v="alltoallv alltoallv0"
harness="util/mtest.c util/mtest_common.c util/mtest_single.c util/mtest_thread_pthread.h
         include/mpitest.h include/mpicolltest.h include/dtypes.h include/mpithreadtest.h
         include/mtest_common.h include/multi_tests.c"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
src=$tmp/src
mkdir -p "$src"
[ -d "$mpich/repo" ] && ! [ -d "$mpich/test/mpi" ] && mpich=$mpich/repo
# fetch PATH: test/mpi/PATH from the tree into $src; returns 1 when absent.
if [ -d "$mpich/test/mpi" ]; then
    fetch() { [ -f "$mpich/test/mpi/$1" ] && cp "$mpich/test/mpi/$1" "$src/"; }
    source_desc="$mpich (a checkout)"
elif git --git-dir="$mpich" rev-parse -q --verify HEAD >/dev/null 2>&1; then
    fetch() { git --git-dir="$mpich" show "HEAD:test/mpi/$1" >"$src/$(basename "$1")" 2>/dev/null; }
    source_desc="pmodels/mpich $(git --git-dir="$mpich" log -1 --format='%h of %cs' HEAD)"
else
    die "'$mpich' is neither an MPICH checkout (no test/mpi) nor a git repository"
fi
for f in $harness; do fetch "$f" || die "$mpich has no test/mpi/$f"; done
# What MPICH's configure would write for this machine, and the one-test
# main() its build generates for a test written as run().
# shellcheck source=lib_mtest.sh
source "$here/lib_mtest.sh"
mtest_stubs "$src"
# The harness once, the counting interposer for this MPI.
for f in mtest mtest_common mtest_single; do
    "$cc" -O2 -w -I"$src" -c -o "$tmp/$f.o" "$src/$f.c" || die "MPICH's util/$f.c did not build with $cc"
done
"$cc" -O2 -shared -fPIC -o "$tmp/libcount_alltoall.so" "$repo/examples/count_alltoall.c" ||
    die "examples/count_alltoall.c did not build with $cc"

# outcome LOG STATUS: what a run said: No Errors, Found N errors, timed out
# or the exit status.
outcome() {
    if [ "$2" -eq 0 ] && grep -q 'No Errors' "$1"; then
        echo "No Errors"
    elif grep -qE 'Found [0-9]+ errors?' "$1"; then
        grep -oE 'Found [0-9]+ errors?' "$1" | head -n 1
    elif [ "$2" -eq 124 ]; then
        echo "timed out"
    else
        echo "exit $2"
    fi
}

# run_test LOG PROG ARG ENV...: PROG on $np ranks under "env ENV...",
# killed after $limit seconds; output in LOG; prints the outcome.
run_test() {
    local log=$1 prog=$2 arg=$3 rc=0
    shift 3
    timeout "$limit" bash -c 'source "$1" "$2"; shift 2; mpi_run "$@"' _ \
        "$repo/tests/mpi/lib_mpi.sh" "$launcher" "$np" env "$@" "$prog" ${arg:+"$arg"} \
        >"$log" 2>&1 || rc=$?
    outcome "$log" "$rc"
}

# pair LINE: "carried/passed" from a Finalize line (the number before
# "carried" and the one before "passed"), or "?".
pair() {
    local c p
    c=$(printf '%s\n' "$1" | sed -nE 's/^(.*[^0-9])?([0-9]+)[^0-9]*carried.*/\2/p')
    p=$(printf '%s\n' "$1" | sed -nE 's/^(.*[^0-9])?([0-9]+)[^0-9]*passed.*/\2/p')
    echo "${c:-?}/${p:-?}"
}

# counted FILE: rank 0's nonzero all-to-all counts from count_alltoall's
# lines, e.g. "Alltoallv 8, Ialltoall 2", or "none".
counted() {
    local c
    c=$({ grep '^count_alltoall' "$1" || true; } | sed 's/^[^:]*: rank 0: //' | tr ',' '\n' |
        sed -nE 's/^ *([1-9][0-9]*) MPI_([A-Za-z_*]+)$/\2 \1/p' | paste -sd, - | sed 's/,/, /g')
    if [ -n "$c" ]; then
        echo "$c"
    elif grep -q '^count_alltoall' "$1"; then
        echo none
    else
        echo "? (no count)"
    fi
}

start=$(date +%s)
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
regressions=()
carry_missing=()
rows=()
details=()
for t in $tests; do
    name=${t%%:*} arg=
    [ "$t" != "$name" ] && arg=${t#*:}
    label=$name${arg:+ $arg}
    echo "mpich_coll.sh: $label ($mpi, $np ranks)" >&2
    if [ ! -x "$tmp/$name" ] && [ ! -f "$tmp/$name.why" ]; then
        if ! fetch "coll/$name.c"; then
            echo "not in this MPICH tree" >"$tmp/$name.why"
        else
            main=
            grep -q '^int run(const char \*arg)' "$src/$name.c" && main=$src/main.c
            if ! "$cc" -O2 -w -I"$src" -o "$tmp/$name" "$src/$name.c" $main "$tmp/mtest.o" \
                "$tmp/mtest_common.o" "$tmp/mtest_single.o" >"$tmp/$name.build" 2>&1; then
                why=$(grep -m1 -oE "undefined reference to \`[A-Za-z0-9_]+'|error: .*" "$tmp/$name.build" || true)
                echo "does not build with this MPI: ${why:-see $cc}" >"$tmp/$name.why"
            fi
        fi
    fi
    if [ -f "$tmp/$name.why" ]; then
        rows+=("$(printf '%-26s %-5s %-15s %-15s %-48s %-13s %-14s %s' "$label" no - - - - - -)")
        details+=("$label: $(cat "$tmp/$name.why")")
        continue
    fi
    # MPICH's testlist gives p_inactive 10 s (MPICH 4.0.2's MPI_Wait on the
    # inactive request never returns); the others three minutes.
    limit=180
    [ "$name" = p_inactive ] && limit=30
    without=$(run_test "$tmp/log.lib" "$tmp/$name" "$arg" -u LD_PRELOAD)
    calls="? (not counted)"
    if [ "$without" != "timed out" ]; then
        run_test "$tmp/log.count" "$tmp/$name" "$arg" LD_PRELOAD="$tmp/libcount_alltoall.so" >/dev/null
        calls=$(counted "$tmp/log.count")
    fi
    with=$(run_test "$tmp/log.xchg" "$tmp/$name" "$arg" LD_PRELOAD="$lib" XCHG_VERBOSE=1)
    fin=$(grep '^xchg: at MPI_Finalize' "$tmp/log.xchg" || true)
    a_line=$(printf '%s\n' "$fin" | grep -E '^xchg: at MPI_Finalize: [0-9]+ MPI_Alltoall calls' || true)
    o_line=$(printf '%s\n' "$fin" | grep '^xchg: at MPI_Finalize, the other operations:' || true)
    v_line=$(printf '%s\n' "$fin" | grep -E '(^|[^A-Za-z_])MPI_Alltoallv([^A-Za-z_]|$)' | head -n 1 || true)
    a=-; [ -n "$a_line" ] && a=$(pair "$a_line")
    o=-; [ -n "$o_line" ] && o=$(pair "$o_line")
    v="no line"; [ -n "$v_line" ] && v=$(pair "$v_line")
    rows+=("$(printf '%-26s %-5s %-15s %-15s %-48s %-13s %-14s %s' "$label" yes "$without" "$with" "$calls" "$a" "$o" "$v")")
    details+=("$label: $(printf '%s\n' "$fin" | grep -c . || true) Finalize line(s)")
    while IFS= read -r l; do
        if [ -n "$l" ]; then details+=("    $l"); fi
    done <<<"$fin"
    if [ "$without" != "No Errors" ]; then
        details+=("    without the drop-in it did not pass either ($without): the MPI library's, not a regression")
    fi
    if [ "$without" = "No Errors" ] && [ "$with" != "No Errors" ]; then
        regressions+=("$label ($with with the drop-in)")
        details+=("    with the drop-in it said:")
        while IFS= read -r l; do details+=("    | $l"); done < <(grep -v '^xchg: ' "$tmp/log.xchg" | head -n 15)
    fi
    if [ "$expect_carried" = 1 ] && [[ " $expect_v " == *" $label "* ]]; then
        c=${v%%/*}
        [[ "$c" =~ ^[0-9]+$ ]] && [ "$c" -gt 0 ] || carry_missing+=("$label (MPI_Alltoallv: $v)")
    fi
done
elapsed=$(($(date +%s) - start))
load_end=$(cut -d' ' -f1-3 /proc/loadavg)

mkdir -p "$(dirname "$out")"
{
    echo "# MPICH's collective tests (test/mpi/coll), unmodified, without the drop-in and with it"
    echo "# command: $cmdline"
    echo "# date: $(date -u +%Y-%m-%dT%H:%MZ)  commit: $(git -C "$repo" rev-parse --short HEAD)$(git -C "$repo" diff --quiet HEAD -- src include 2>/dev/null || echo ' (src/include modified)')  wall time: ${elapsed} s"
    echo "# test source: $source_desc"
    echo "# MPI: $cc, $("$launcher" --version 2>&1 | grep -m1 -iE 'version|open mpi|openrte' | sed 's/^ *//; s/  */ /g'); $np ranks on $(nproc) cores"
    echo "# drop-in: $lib"
    echo "# load average (1, 5, 15 min): $load_start at the start, $load_end at the end"
    echo "#"
    echo "# without, with: what the test printed (\"No Errors\", \"Found N errors\") or how it ended,"
    echo "#   without the drop-in and with LD_PRELOAD=libxchg_mpi.so XCHG_VERBOSE=1"
    echo "# rank 0 calls: the all-to-all calls rank 0 made (examples/count_alltoall.c, without xchg)"
    echo "# Alltoall c/p, other ops c/p: the drop-in's MPI_Finalize lines, calls carried by xchg /"
    echo "#   passed to the MPI library, summed over the ranks (MTest's own Allreduce etc. are"
    echo "#   among the other operations)"
    echo "# Alltoallv c/p: a Finalize line naming MPI_Alltoallv; \"no line\": the drop-in passed"
    echo "#   MPI_Alltoallv (and the other calls it does not define) to the MPI library uncounted"
    if [ "$np" -lt 4 ]; then
        echo "# icalltoallv/w: MTestGetIntercomm(..., 4) skips intercommunicators of fewer than 4"
        echo "#   ranks in all, so at $np ranks these tests make no all-to-all call"
    fi
    printf '%-26s %-5s %-15s %-15s %-48s %-13s %-14s %s\n' "# test" built without with \
        "rank 0 calls (counted)" "Alltoall c/p" "other ops c/p" "Alltoallv c/p"
    printf '%s\n' "${rows[@]}"
    echo
    echo "# per test: why it did not build, or the drop-in's Finalize lines (XCHG_VERBOSE=1)"
    printf '%s\n' "${details[@]}"
    echo
    if [ ${#regressions[@]} -eq 0 ]; then
        echo "regressions (No Errors without the drop-in, not with it): none"
    else
        echo "regressions (No Errors without the drop-in, not with it): ${regressions[*]}"
    fi
    if [ "$expect_carried" = 1 ]; then
        if [ ${#carry_missing[@]} -eq 0 ]; then
            echo "--expect-carried: MPI_Alltoallv carried in: $expect_v"
        else
            echo "--expect-carried: MPI_Alltoallv not carried in: ${carry_missing[*]}"
        fi
    fi
} >"$out"
cat "$out"
[ ${#regressions[@]} -eq 0 ] && [ ${#carry_missing[@]} -eq 0 ]
