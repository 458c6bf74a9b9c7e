# lib_cli.sh - what the CLI test scripts (tests/cli_*.sh) share: pass and
# fail counting, the closing "NAME: N passed, N failed" line, and JSON
# checks with node. Source it after setting SUITE (the script's name).
#   ok / bad MESSAGE        count a check (bad prints "FAIL: MESSAGE")
#   expect WHAT ACTUAL WANT count a check that ACTUAL equals WANT
#   jsx EXPR < lines        parse every stdin line as JSON into L (an array),
#                           o = the last one; print EXPR's value, or
#                           "error: ..." when a line does not parse
#   finish                  print the closing line; status 1 on a failure
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
