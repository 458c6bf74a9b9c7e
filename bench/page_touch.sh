#!/usr/bin/env bash
# page_touch.sh - the first touch of a page on this machine, with and
# without MADV_POPULATE_WRITE, and a second touch (bench/page_touch.c), on
# a quiet machine and with every core busy with one such process.
#
# Usage: bench/page_touch.sh [--build DIR] [--out FILE]
#   --build DIR  build tree (default <repo>/build; page_touch built here)
#   --out FILE   results file (default bench/results/page_touch.txt)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
build=$repo/build
out=$here/results/page_touch.txt
die() { echo "page_touch.sh: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
    case "$1" in
    --build) [ $# -ge 2 ] || die "--build needs a directory"; build=$2; shift 2 ;;
    --out) [ $# -ge 2 ] || die "--out needs a file"; out=$2; shift 2 ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option '$1'; accepted: --build DIR, --out FILE, --help" ;;
    esac
done
[ -f "$build/CMakeCache.txt" ] || cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" --target page_touch >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$build/page_touch" 4096 5 >"$tmp/alone"
cores=$(nproc)
for i in $(seq 1 "$cores"); do "$build/page_touch" 4096 5 >"$tmp/busy.$i" & done
wait
{
    echo "# the first touch of a page (us a page; 4,096 pages of a fresh shared mapping a round)"
    echo "# command: bench/page_touch.sh  date: $(date -u +%Y-%m-%dT%H:%MZ)" \
         " commit: $(git -C "$repo" rev-parse --short HEAD)"
    echo "# machine: $(nproc) online cores; kernel $(uname -r)"
    echo "## alone"
    cat "$tmp/alone"
    echo "## $cores at once (one of them shown)"
    cat "$tmp/busy.1"
} >"$out"
cat "$out"
