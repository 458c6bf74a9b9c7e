#!/usr/bin/env bash
# cli_readme.sh - README.md and docs/ stay true: every command they show
# with its output in a ```text block ("$ build/xchg ..." or "$ xchg ...",
# followed by what it prints) is run here, and the lines shown must be what
# the tool prints, in the same order. A line "..." stands for lines left out; without one, the
# lines shown must follow each other in the output. "$ echo $?" shows the
# previous command's exit status. Times ("time taken ... s") vary from run
# to run, so their digits are not compared.
#
# The commands run in a folder of their own holding a copy of
# docs/examples/, so a page may name the example files it ships by their
# path in the repository (docs/alltoallv.md's counts file).
#
# Usage: tests/cli_readme.sh PATH/TO/xchg [FILE.md ...]
#        (default: the repository's README.md and docs/*.md)
set -u
xchg=${1:?usage: cli_readme.sh PATH/TO/xchg [FILE.md ...]}
shift
repo=$(cd "$(dirname "$0")/.." && pwd)
[ $# -gt 0 ] || set -- "$repo/README.md" "$repo"/docs/*.md
# The commands run in a folder of their own, so files they write (the
# README's `--output t2.txt`) are not left behind.
case $xchg in /*) ;; *) xchg=$(pwd)/$xchg ;; esac
for f in "$@"; do # each file made absolute, in order
    case $f in /*) set -- "$@" "$f" ;; *) set -- "$@" "$(pwd)/$f" ;; esac
    shift
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ -d "$repo/docs/examples" ]; then
    mkdir -p "$work/docs" && cp -R "$repo/docs/examples" "$work/docs/" || exit 1
fi
cd "$work" || exit 1
passed=0
failed=0

# norm VAR LINE: VAR = the line as compared, digits of a timing line
# folded. In the shell itself, not a $(...) with tr: a fork for each line
# compared was most of this test's time.
norm() {
    case $2 in
        "time taken"*) printf -v "$1" '%s' "${2//[0-9]/0}" ;;
        *) printf -v "$1" '%s' "$2" ;;
    esac
}

# check CMD: run it and hold its output to the expected lines in exp[].
last_rc=0
check() {
    local cmd=$1 out rc
    # blank lines that separate one command from the next are not output
    while [ "${#exp[@]}" -gt 0 ] && [ -z "${exp[${#exp[@]}-1]}" ]; do
        unset 'exp[${#exp[@]}-1]'
    done
    if [ "$cmd" = 'echo $?' ]; then
        out=$last_rc
        rc=0
    else
        local run=${cmd/#build\/xchg /\"\$xchg\" }
        run=${run/#xchg /\"\$xchg\" }
        out=$(eval "$run" 2>&1)
        rc=$?
        last_rc=$rc
    fi
    local -a got=()
    mapfile -t got <<<"$out"
    local j=0 gap=1 ok=1 want line
    # the first shown line must be the first printed unless the block
    # starts with "..."
    [ "${#exp[@]}" -gt 0 ] && [ "${exp[0]}" != "..." ] && gap=0
    for want in "${exp[@]}"; do
        if [ "$want" = "..." ]; then
            gap=1
            continue
        fi
        norm want "$want"
        line=
        [ $j -lt ${#got[@]} ] && norm line "${got[$j]}"
        if [ $gap = 1 ]; then
            while [ $j -lt ${#got[@]} ] && [ "$line" != "$want" ]; do
                j=$((j + 1))
                line=
                [ $j -lt ${#got[@]} ] && norm line "${got[$j]}"
            done
        fi
        if [ $j -ge ${#got[@]} ] || [ "$line" != "$want" ]; then
            ok=0
            echo "FAIL: $file: \$ $cmd" >&2
            echo "  shows:  $want" >&2
            echo "  prints: ${got[$j]:-<nothing more>}" >&2
            break
        fi
        j=$((j + 1))
        gap=0
    done
    if [ $ok = 1 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
}

for file in "$@"; do
    in_block=0
    cmd=
    exp=()
    while IFS= read -r line; do
        if [ $in_block = 0 ]; then
            [ "$line" = '```text' ] && in_block=1
            continue
        fi
        if [ "$line" = '```' ] || [ "${line:0:2}" = '$ ' ]; then
            [ -n "$cmd" ] && check "$cmd"
            cmd=
            exp=()
            if [ "$line" = '```' ]; then
                in_block=0
            else
                cmd=${line:2}
            fi
            continue
        fi
        [ -n "$cmd" ] && exp+=("$line")
    done <"$file"
done

[ $((passed + failed)) -ge 5 ] || { echo "FAIL: found only $((passed + failed)) commands in $*" >&2; failed=$((failed + 1)); }
echo "cli_readme: $passed passed, $failed failed"
[ $failed = 0 ]
