#!/usr/bin/env bash
# pictures.sh - the committed pictures are what scripts/make-pictures.sh
# makes now: it runs the script into a temporary folder and compares every
# file byte for byte with docs/pictures/ (none missing, none extra), then
# checks that every image link of README.md and docs/*.md points to a file
# that exists, and that each algorithm family page and each operation's page
# (docs/op-*.md) embeds a picture.
# Usage: bash tests/pictures.sh path/to/xchg [REPO]
X="${1:?usage: pictures.sh path/to/xchg [REPO]}"
repo=${2:-$(cd "$(dirname "$0")/.." && pwd)}
SUITE=pictures
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

if bash "$repo/scripts/make-pictures.sh" "$X" "$TMP/pictures" 2>"$TMP/err"; then ok; else
    bad "scripts/make-pictures.sh failed: $(head -c 400 "$TMP/err")"
fi
for f in "$TMP"/pictures/*; do
    name=$(basename "$f")
    if cmp -s "$f" "$repo/docs/pictures/$name"; then ok; else
        bad "docs/pictures/$name differs from what make-pictures.sh makes now (run make pictures)"
    fi
done
for f in "$repo"/docs/pictures/*; do
    [ -e "$TMP/pictures/$(basename "$f")" ] && ok ||
        bad "docs/pictures/$(basename "$f") is not made by make-pictures.sh (stale?)"
done

# Every ![...](path) in README.md and docs/*.md names an existing file.
for md in "$repo/README.md" "$repo"/docs/*.md; do
    dir=$(dirname "$md")
    while read -r link; do
        [ -n "$link" ] || continue
        if [ -f "$dir/$link" ]; then ok; else bad "$(basename "$md") embeds '$link', which does not exist"; fi
    done < <(grep -o '!\[[^]]*\]([^)]*)' "$md" | sed 's/.*](\([^)]*\))/\1/')
done
for page in ring mesh2 hypercube bruck pairwise torus-suh ar1 at2 pt mt \
    op-bcast op-reduce op-allgather op-reduce-scatter op-allreduce op-scan \
    op-scatter op-gather op-shift; do
    grep -q '!\[[^]]*\](pictures/[^)]*\.svg)' "$repo/docs/$page.md" && ok ||
        bad "docs/$page.md embeds no picture from docs/pictures"
done
grep -q '!\[[^]]*\](docs/pictures/t1-torus8x8-step1.svg)' "$repo/README.md" && ok ||
    bad "README.md embeds the T1 diagram"
grep -q '!\[[^]]*\](docs/pictures/compare-torus64x64-suh.svg)' "$repo/README.md" && ok ||
    bad "README.md embeds the 64x64 crossover plot"
echo "$SUITE: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
