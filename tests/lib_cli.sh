# lib_cli.sh - what the CLI test scripts (tests/cli_*.sh) share: pass and
# fail counting, the closing "NAME: N passed, N failed" line, and JSON
# checks with node. Source it after setting SUITE (the script's name).
#   ok / bad MESSAGE        count a check (bad prints "FAIL: MESSAGE")
#   expect WHAT ACTUAL WANT count a check that ACTUAL equals WANT
#   jsx EXPR < lines        parse every stdin line as JSON into L (an array),
#                           o = the last one; print EXPR's value, or
#                           "error: ..." when a line does not parse
#   finish                  print the closing line; status 1 on a failure
#   usage_error PATTERN ARGS  "$X" ARGS exits 2, prints nothing on stdout
#                           and an "xchg: " error matching PATTERN ($TMP
#                           holds its output)
#   need PROGRAM PACKAGE    exit 1 with a message unless PROGRAM is installed
#   attr NAME FILE          the number in NAME="..." on FILE's <svg> line
#   png_size FILE           "W H" of a PNG, from its IHDR
#   is_png FILE             status 0 when FILE starts with the PNG signature
pass=0
fail=0

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

expect() {
    if [ "$2" = "$3" ]; then
        ok
    else
        bad "$1: got '$2', want '$3'"
    fi
}

need() {
    if ! command -v "$1" >/dev/null 2>&1; then
        echo "$SUITE: $1 not found; scripts/install-deps.sh installs it (package $2)" >&2
        exit 1
    fi
}
need node nodejs

jsx() {
    node -e '
try {
  const L = require("fs").readFileSync(0, "utf8").split("\n").filter(l => l.length)
      .map(l => JSON.parse(l));
  const o = L[L.length - 1];
  const v = eval(process.argv[1]);
  console.log(typeof v === "object" ? JSON.stringify(v) : String(v));
} catch (e) {
  console.log("error: " + e.message);
  process.exit(1);
}' "$1"
}

# usage_error PATTERN ARGS...: exit 2, empty stdout, stderr starting with
# "xchg: ", matching PATTERN (extended regex, case-insensitive).
usage_error() {
    local pattern="$1"
    shift
    "$X" "$@" >"$TMP/out" 2>"$TMP/err"
    local rc=$?
    if [ "$rc" -eq 2 ] && [ ! -s "$TMP/out" ] && head -n1 "$TMP/err" | grep -q '^xchg: ' &&
        grep -qiE -- "$pattern" "$TMP/err"; then
        ok
    else
        bad "xchg $* -> exit $rc, stdout '$(head -c 200 "$TMP/out")', stderr" \
            "'$(head -c 400 "$TMP/err")' (wanted exit 2, no stdout, stderr matching /$pattern/)"
    fi
}

finish() {
    echo "$SUITE: $pass passed, $fail failed"
    [ "$fail" -eq 0 ]
}

# Pictures (tests/cli_draw.sh, tests/cli_plot.sh).
attr() { sed -n "s/^<svg .* $1=\"\([0-9]*\)\".*/\1/p" "$2" | head -n1; }
# bytes 16..23 of a PNG, its IHDR's width and height, big-endian
png_size() {
    od -An -tu1 -j16 -N8 "$1" | awk '{ printf "%d %d\n", (($1*256+$2)*256+$3)*256+$4, (($5*256+$6)*256+$7)*256+$8 }'
}
is_png() { [ "$(od -An -tx1 -N8 "$1" | tr -d ' \n')" = "89504e470d0a1a0a" ]; }
