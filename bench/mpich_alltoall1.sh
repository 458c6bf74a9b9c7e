#!/usr/bin/env bash
# mpich_alltoall1.sh - a third-party program of many communicators and
# counts, timed with the drop-in and without: MPICH's own collective test
# test/mpi/coll/alltoall1.c (MPI_Alltoall over every communicator and
# datatype count its test harness makes, checked), unmodified, built here
# with Open MPI from an MPICH source tree the caller names (it is not part
# of this repository), then run at p = 16, oversubscribed, with
# LD_PRELOAD=libxchg_mpi.so and without it, interleaved. Reports each run's
# wall time (the launcher's, start to exit), the median of each side and
# their ratio with its spread, and from one more run with XCHG_VERBOSE=1
# how many calls xchg carried (docs/mpi.md, "What a plan costs").
#
# Usage: bench/mpich_alltoall1.sh --mpich DIR [--runs R] [--np P]
#                                 [--build DIR] [--out FILE]
#   --mpich DIR  an MPICH source tree: a checkout (DIR/test/mpi) or a bare
#                git repository (its HEAD is read), e.g. a clone of
#                https://github.com/pmodels/mpich
#   --runs R     interleaved runs of each side (default 5)
#   --np P       ranks (default 16)
#   --build DIR  build tree with libxchg_mpi.so (default <repo>/build)
#   --out FILE   results (default bench/results/mpich_alltoall1.txt)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
mpich=
runs=5
np=16
build=$repo/build
out=$here/results/mpich_alltoall1.txt
cmdline="bench/mpich_alltoall1.sh $*"

die() {
    echo "mpich_alltoall1.sh: $*" >&2
    exit 2
}
count_arg() { [[ "$2" =~ ^[1-9][0-9]*$ ]] || die "$1 needs a count >= 1, got '$2'"; }
while [ $# -gt 0 ]; do
    case "$1" in
    --mpich) [ $# -ge 2 ] || die "--mpich needs an MPICH source tree"; mpich=$2; shift 2 ;;
    --runs) count_arg --runs "${2:-}"; runs=$2; shift 2 ;;
    --np) count_arg --np "${2:-}"; np=$2; shift 2 ;;
    --build) [ $# -ge 2 ] || die "--build needs a directory"; build=$2; shift 2 ;;
    --out) [ $# -ge 2 ] || die "--out needs a file"; out=$2; shift 2 ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option '$1'; accepted: --mpich DIR, --runs R, --np P, --build DIR, --out FILE, --help" ;;
    esac
done
[ -n "$mpich" ] || die "--mpich DIR is needed: an MPICH source tree (a checkout or a bare git repository)"
command -v node >/dev/null && command -v mpicc.openmpi >/dev/null || bash "$repo/scripts/install-deps.sh"
[ -f "$build/CMakeCache.txt" ] || cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" --target xchg_mpi -j2 >/dev/null
lib=$build/libxchg_mpi.so
[ -f "$lib" ] || die "$build lacks libxchg_mpi.so (is an MPI found?)"
# shellcheck source=../tests/mpi/lib_mpi.sh
source "$repo/tests/mpi/lib_mpi.sh" "$(sed -n 's/^XCHG_MPIEXEC:FILEPATH=//p' "$build/CMakeCache.txt")"
export OMPI_MCA_mpi_yield_when_idle=1

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The test's files: the test, the harness (util/) and its headers (include/)
files="coll/alltoall1.c util/mtest.c util/mtest_common.c util/mtest_single.c
       util/mtest_thread_pthread.h include/mpitest.h include/mpicolltest.h include/dtypes.h
       include/mpithreadtest.h include/mtest_common.h include/multi_tests.c"
if [ -d "$mpich/test/mpi" ]; then
    for f in $files; do cp "$mpich/test/mpi/$f" "$tmp/" || die "$mpich/test/mpi/$f is missing"; done
    source_desc="$mpich (a checkout)"
elif git --git-dir="$mpich" rev-parse -q --verify HEAD >/dev/null 2>&1; then
    for f in $files; do
        git --git-dir="$mpich" show "HEAD:test/mpi/$f" >"$tmp/$(basename "$f")" ||
            die "$mpich has no test/mpi/$f at HEAD"
    done
    source_desc="pmodels/mpich $(git --git-dir="$mpich" log -1 --format='%h of %cs' HEAD)"
else
    die "'$mpich' is neither an MPICH checkout (no test/mpi) nor a git repository"
fi
# What MPICH's configure would write for this machine, and the one-test
# main() its build generates when tests are not bundled.
# shellcheck source=lib_mtest.sh
source "$here/lib_mtest.sh"
mtest_stubs "$tmp"
mpicc.openmpi -O2 -w -I"$tmp" -o "$tmp/alltoall1" "$tmp/alltoall1.c" "$tmp/mtest.c" \
    "$tmp/mtest_common.c" "$tmp/mtest_single.c" "$tmp/main.c" ||
    die "alltoall1.c did not build with mpicc.openmpi"

# one run of SIDE (xchg: preloaded, or lib): its wall seconds appended to
# $tmp/SIDE; the test must say " No Errors"
one() {
    local side=$1 t0 t1 log=$tmp/log
    t0=$(date +%s.%N)
    if [ "$side" = xchg ]; then
        mpi_run "$np" env LD_PRELOAD="$lib" "$tmp/alltoall1" >"$log" 2>&1
    else
        mpi_run "$np" "$tmp/alltoall1" >"$log" 2>&1
    fi
    t1=$(date +%s.%N)
    grep -q "No Errors" "$log" || { cat "$log" >&2; die "alltoall1 failed ($side)"; }
    echo "$t0 $t1" | awk '{ printf "%.2f\n", $2 - $1 }' >>"$tmp/$side"
}
start=$(date +%s)
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
for _ in $(seq 1 "$runs"); do
    one xchg
    one lib
done
elapsed=$(($(date +%s) - start))
load_end=$(cut -d' ' -f1-3 /proc/loadavg)
# one more run, untimed, with XCHG_VERBOSE=1: how many calls xchg carried
mpi_run "$np" env LD_PRELOAD="$lib" XCHG_VERBOSE=1 "$tmp/alltoall1" 2>&1 |
    grep "^xchg: at MPI_Finalize" >"$tmp/totals" || die "the verbose run printed no totals"

mkdir -p "$(dirname "$out")"
{
    echo "# MPICH's test/mpi/coll/alltoall1.c, unmodified, with the drop-in and without"
    echo "# command: $cmdline"
    echo "# date: $(date -u +%Y-%m-%dT%H:%MZ)  commit: $(git -C "$repo" rev-parse --short HEAD)  wall time: ${elapsed} s"
    echo "# test source: $source_desc"
    echo "# machine: $(nproc) online cores; $np ranks oversubscribed; $("$MPI_LAUNCHER" --version 2>&1 | head -1)"
    echo "# load average (1, 5, 15 min): $load_start at the start, $load_end at the end"
    echo "# what the drop-in did (a run with XCHG_VERBOSE=1, rank 0's totals):"
    sed 's/^/#   /' "$tmp/totals"
    node - "$tmp" "$runs" <<'EOF'
const fs = require("fs");
const [dir, runs] = [process.argv[2], +process.argv[3]];
const read = s => fs.readFileSync(`${dir}/${s}`, "utf8").split("\n").filter(l => l).map(Number);
const med = a => { const s = [...a].sort((x, y) => x - y), n = s.length;
                   return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2; };
const x = read("xchg"), l = read("lib"), r = x.map((t, i) => t / l[i]);
console.log(`with the drop-in (s): ${x.map(t => t.toFixed(2)).join(" ")}; median ${med(x).toFixed(2)}`);
console.log(`without (s):          ${l.map(t => t.toFixed(2)).join(" ")}; median ${med(l).toFixed(2)}`);
console.log(`ratio per run: ${r.map(v => v.toFixed(2)).join(" ")}; median ${med(r).toFixed(2)}, ` +
            `range ${Math.min(...r).toFixed(2)}..${Math.max(...r).toFixed(2)} (${runs} runs)`);
console.log(`goal (within 1.2x of its time without the drop-in): ${med(r) <= 1.2 ? "met" : "NOT met"}`);
EOF
} >"$out"
cat "$out"
