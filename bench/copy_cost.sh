#!/usr/bin/env bash
# copy_cost.sh - what one rank's block copies cost on this machine
# (bench/copy_cost.c): a pass of 1,024 blocks copied to transposed places,
# 8 B to 64 KiB a block, three times; the figures line of the middle run
# (by its ns a byte) is what bench/smpi_cluster.sh --copies counted charges
# each copy of the executor under SimGrid (XCHG_SMPI_COPY_COST=C,T).
#
# Usage: bench/copy_cost.sh [--build DIR] [--out FILE]
#   --build DIR  build tree (default <repo>/build; copy_cost built here)
#   --out FILE   results file (default bench/results/copy_cost.txt)
set -euo pipefail
# shellcheck source=lib_one_program.sh
source "$(dirname "$0")/lib_one_program.sh" copy_cost "$@"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for r in 1 2 3; do "$build/copy_cost" >"$tmp/run.$r"; done
mid=$(for r in 1 2 3; do echo "$(awk '$1 == "figures" { print $3 }' "$tmp/run.$r") $r"; done |
    sort -g | sed -n 2p | cut -d' ' -f2)
{
    echo "# one rank's pass of 1,024 block copies to transposed places (bench/copy_cost.c): ns a copy"
    echo "# command: bench/copy_cost.sh  date: $(date -u +%Y-%m-%dT%H:%MZ)" \
         " commit: $(git -C "$repo" rev-parse --short HEAD)"
    echo "# machine: $(nproc) online cores; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
    echo "# three runs; the middle one by ns a byte is kept; 'figures C T': ns of an 8-byte copy, and"
    echo "# ns a byte from 8 B to 64 KiB blocks (64 MiB a pass, past the caches)"
    for r in 1 2 3; do echo "## run $r"; grep -v '^check' "$tmp/run.$r"; done
    echo "## kept: run $mid"
    awk '$1 == "figures"' "$tmp/run.$mid"
} >"$out"
cat "$out"
