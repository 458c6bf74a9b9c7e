# lib_cli.sh - what the CLI test scripts (tests/cli_*.sh) share: pass and
# fail counting, the closing "NAME: N passed, N failed" line, and JSON
# checks with node. Source it after setting SUITE (the script's name).
#   ok / bad MESSAGE        count a check (bad prints "FAIL: MESSAGE")
#   expect WHAT ACTUAL WANT count a check that ACTUAL equals WANT
#   jsx EXPR < lines        parse every stdin line as JSON into L (an array),
#                           o = the last one; print EXPR's value, or
#                           "error: ..." when a line does not parse
#   finish                  print the closing line; status 1 on a failure
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

if ! command -v node >/dev/null 2>&1; then
    echo "$SUITE: node not found; scripts/install-deps.sh installs it (package nodejs)" >&2
    exit 1
fi

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
