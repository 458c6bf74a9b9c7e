#!/usr/bin/env bash
# pass_cold.sh - what xchg's way to the MPI library costs a call with warm
# and with cold caches (bench/pass_cold.c), on 2 ranks: xchg_mpi_shift,
# _scatter and _bcast of 8 bytes a rank, which a tuning file sends to the
# library, against PMPI_Sendrecv, PMPI_Scatter and PMPI_Bcast, in
# alternating pairs; before each call either nothing (warm) or 32 MiB
# written (cold: caches and TLB flushed, as at 64 ranks on 2 cores, where
# 31 other ranks run on a core between two calls of one). The difference
# of the median calls is what xchg's way adds.
#
# --before DIR also times the library of another build tree (say, of the
# commit before a change to that way), interleaved with this tree's, so
# the two meet the same machine. pass_cold.txt compares commit 6349d9f:
#   git worktree add /tmp/before 6349d9f
#   cmake -S /tmp/before -B /tmp/before/build -DCMAKE_BUILD_TYPE=Release -DXCHG_MPI=openmpi
#   cmake --build /tmp/before/build -j2
#   bench/pass_cold.sh --before /tmp/before/build --before-name "commit 6349d9f"
#
# Usage: bench/pass_cold.sh [--build DIR] [--before DIR] [--before-name TEXT]
#                           [--rounds R] [--iters N]
#   --build DIR   this tree's Open MPI build (default <repo>/build)
#   --before DIR  another build tree whose libxchg_mpi to time as well
#   --before-name TEXT  what that tree is built from, for the results
#   --rounds R    interleaved rounds (default 3)
#   --iters N     pairs of calls a run (default 1000)
# Writes bench/results/pass_cold.txt. About 5 minutes with --before.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
build=$repo/build
before=
before_name="(not named)"
rounds=3
iters=1000
die() {
    echo "pass_cold.sh: $*" >&2
    exit 2
}
while [ $# -gt 0 ]; do
    case "$1" in
    --build) [ $# -ge 2 ] || die "--build needs a directory"; build=$2; shift 2 ;;
    --before) [ $# -ge 2 ] && [ -f "${2:-}/libxchg_mpi.so" ] ||
        die "--before needs a build tree with libxchg_mpi.so, got '${2:-}'"
        before=$(cd "$2" && pwd); shift 2 ;;
    --before-name) [ $# -ge 2 ] || die "--before-name needs a text"; before_name=$2; shift 2 ;;
    --rounds) [ $# -ge 2 ] && [[ "$2" =~ ^[1-9][0-9]*$ ]] || die "--rounds needs a count >= 1"
        rounds=$2; shift 2 ;;
    --iters) [ $# -ge 2 ] && [[ "$2" =~ ^[1-9][0-9]*$ ]] || die "--iters needs a count >= 1"
        iters=$2; shift 2 ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option '$1'; accepted: --build DIR, --before DIR, --before-name TEXT, --rounds R, --iters N, --help" ;;
    esac
done
if ! command -v cmake >/dev/null || ! command -v mpicc.openmpi >/dev/null; then
    echo "pass_cold.sh: installing what is missing (scripts/install-deps.sh)" >&2
    bash "$repo/scripts/install-deps.sh" >&2
fi
if [ ! -f "$build/CMakeCache.txt" ]; then
    cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release -DXCHG_MPI=openmpi >/dev/null
fi
cmake --build "$build" --target xchg_mpi -j2 >/dev/null
build=$(cd "$build" && pwd)
# shellcheck source=../tests/mpi/lib_mpi.sh
source "$repo/tests/mpi/lib_mpi.sh" "$(sed -n 's/^XCHG_MPIEXEC:FILEPATH=//p' "$build/CMakeCache.txt")"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# the program, once against each library
sides="this"
mpicc.openmpi -O2 -I"$repo/include" "$here/pass_cold.c" -o "$tmp/this" -L"$build" -lxchg_mpi \
    -lxchg -Wl,-rpath,"$build"
if [ -n "$before" ]; then
    sides="this before"
    mpicc.openmpi -O2 -I"$repo/include" "$here/pass_cold.c" -o "$tmp/before" -L"$before" \
        -lxchg_mpi -lxchg -Wl,-rpath,"$before"
fi
# every size of these operations on 2 ranks to the library
{
    echo "xchg-tuning/2"
    echo "# pass_cold.sh: the library's call for every size on 2 ranks"
    for op in shift scatter bcast; do
        echo "$op 2 complete:2 1 1048576 mpi"
    done
} >"$tmp/tuning.txt"

out=$here/results/pass_cold.txt
: >"$tmp/rows"
for r in $(seq 1 "$rounds"); do
    for flush in 0 32; do
        for op in shift scatter bcast; do
            for side in $sides; do
                line=$(mpi_run 2 "$tmp/$side" "$op" "$tmp/tuning.txt" "$iters" "$flush")
                echo "$side $r $line" >>"$tmp/rows"
            done
        done
    done
done
{
    echo "# xchg's way to the MPI library with warm and cold caches (bench/pass_cold.sh), 2 ranks, 8 B a rank"
    echo "# $(date -u +%Y-%m-%dT%H:%MZ) on $(nproc) cores; load average $(cut -d' ' -f1-3 /proc/loadavg);" \
        "commit $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)"
    echo "# this: $build${before:+; before: $before, $before_name}"
    echo "# $iters pairs of calls a run, alternating; flush: MiB written before each call (0 warm,"
    echo "# 32 cold); times: the median call, mean over the 2 ranks (us); diff = xchg - library."
    echo "# side   round op        flush  xchg(us)   lib(us)    diff(us)"
    cat "$tmp/rows"
    echo "# median diff over the rounds (us)"
    for side in $sides; do
        for flush in 0 32; do
            for op in shift scatter bcast; do
                awk -v s="$side" -v o="$op" -v f="$flush" '$1 == s && $3 == o && $4 == f { print $7 }' \
                    "$tmp/rows" | sort -g | awk -v s="$side" -v o="$op" -v f="$flush" \
                    '{ v[NR] = $1 } END { printf "# %-6s %-8s flush %2d  median diff %7.3f  (%d rounds, %.3f..%.3f)\n", s, o, f, v[int((NR + 1) / 2)], NR, v[1], v[NR] }'
            done
        done
    done
} | tee "$out"
