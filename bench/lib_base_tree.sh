# shellcheck shell=bash
# lib_base_tree.sh - sourced by the before-and-after benchmarks
# (refactor_speed.sh, refactor_mpi_speed.sh): a temporary directory $work
# holding a checkout of a base revision in $work/base-src (a detached git
# worktree), both removed when the script exits, however it exits.
#
# Usage: source bench/lib_base_tree.sh REPO REV
base_tree_repo=$1
base_tree_rev=$2
work=$(mktemp -d)
base_tree_cleanup() {
    git -C "$base_tree_repo" worktree remove --force "$work/base-src" >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap base_tree_cleanup EXIT
git -C "$base_tree_repo" worktree add --detach "$work/base-src" "$base_tree_rev" >/dev/null 2>&1
