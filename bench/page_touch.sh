#!/usr/bin/env bash
# page_touch.sh - the first touch of a page on this machine, with and
# without MADV_POPULATE_WRITE, and a second touch (bench/page_touch.c), on
# a quiet machine and with every core busy with one such process.
#
# Usage: bench/page_touch.sh [--build DIR] [--out FILE]
#   --build DIR  build tree (default <repo>/build; page_touch built here)
#   --out FILE   results file (default bench/results/page_touch.txt)
set -euo pipefail
# shellcheck source=lib_one_program.sh
source "$(dirname "$0")/lib_one_program.sh" page_touch "$@"
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
