# lib_one_program.sh - sourced by the benchmarks that build and run one
# program of bench/ (page_touch.sh, copy_cost.sh): their two options and
# the build.
#
# Usage: source bench/lib_one_program.sh NAME "$@"
#   reads --build DIR (default <repo>/build) and --out FILE (default
#   bench/results/NAME.txt), or prints the calling script's header for
#   --help; sets here, repo, build, out; builds the target NAME in build
#   (configuring it first when it is not a build tree).
one_name=$1
shift
here=$(cd "$(dirname "${BASH_SOURCE[1]}")" && pwd)
repo=$(dirname "$here")
build=$repo/build
out=$here/results/$one_name.txt
die() { echo "$one_name.sh: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
    case "$1" in
    --build) [ $# -ge 2 ] || die "--build needs a directory"; build=$2; shift 2 ;;
    --out) [ $# -ge 2 ] || die "--out needs a file"; out=$2; shift 2 ;;
    -h | --help) sed -n '2,/^set -euo/p' "${BASH_SOURCE[1]}" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option '$1'; accepted: --build DIR, --out FILE, --help" ;;
    esac
done
[ -f "$build/CMakeCache.txt" ] || cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" --target "$one_name" >/dev/null
