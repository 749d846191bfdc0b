#!/usr/bin/env bash
# `ava doctor`: a line per check with its fix, exit 1 only when one fails;
# providers and a local server asked over loopback, MCP servers from npm
# started, the backend seen, and no key ever printed.
#   doctor_cli.sh AVA MCP_SERVERS_DIR
set -euo pipefail
ava=$1 servers=$2
everything="$servers/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
if [ ! -f "$everything" ] || ! command -v node > /dev/null; then
  echo "skipped: $everything is not installed (run scripts/setup)"
  exit 77
fi
work=$(mktemp -d)
server_pid=""
cleanup() {
  "$ava" backend stop > /dev/null 2>&1 || true
  [ -n "$server_pid" ] && kill "$server_pid" 2> /dev/null
  rm -rf "$work"
}
trap cleanup EXIT
export AVA_HOME="$work/home"
export CODEX_HOME="$work/codex"  # a Codex login of the user's stays out of it
unset ANTHROPIC_API_KEY OPENAI_API_KEY AVA_API_KEY AVA_PROVIDER AVA_BASE_URL ANTHROPIC_BASE_URL \
  OPENAI_BASE_URL AVA_PROFILE NO_COLOR
fail() { echo "FAIL: $*"; exit 1; }

python3 "$(dirname "$0")/fake_models_server.py" sk-good > "$work/port" &
server_pid=$!
for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.05; done
port=$(cat "$work/port")

run() {  # CODE ARGS...
  local code=$1; shift
  set +e
  "$ava" "$@" > "$work/out" 2> "$work/err"; local got=$?
  set -e
  [ "$got" = "$code" ] || fail "ava $*: exit $got, expected $code: $(cat "$work/out" "$work/err")"
  if grep -q "sk-good\|sk-wrong" "$work/out" "$work/err"; then fail "ava $* printed a key"; fi
}

# Nothing configured, nothing local: the provider check fails with its fix.
AVA_LOCAL_PROBE=0 run 1 doctor --no-mcp
grep -q "^ok    home      $AVA_HOME (private, 0700)$" "$work/out" || fail "home: $(cat "$work/out")"
grep -q "^ok    disk      .* free; sessions use " "$work/out" || fail "disk: $(cat "$work/out")"
grep -q "^info  backend   not running" "$work/out" || fail "backend: $(cat "$work/out")"
grep -q "^FAIL  provider  no provider is configured$" "$work/out" || fail "provider: $(cat "$work/out")"
grep -q "fix: ava auth login (a key), or run Ollama" "$work/out" || fail "fix: $(cat "$work/out")"
grep -q "^\(ok  \|warn\)  sandbox   " "$work/out" || fail "sandbox: $(cat "$work/out")"

# A local Ollama found: a warning (not configured), with how to use it.
AVA_LOCAL_PROBE="ollama=127.0.0.1:$port" run 0 doctor --no-mcp
grep -q "^ok    local     ollama found at http://127.0.0.1:$port.* (1 models)$" "$work/out" ||
  fail "local: $(cat "$work/out")"
grep -q "fix: use it: AVA_PROVIDER=ollama" "$work/out" || fail "local fix: $(cat "$work/out")"
grep -q "^warn  provider  no provider is configured" "$work/out" || fail "$(cat "$work/out")"

# A provider whose key is refused, then accepted.
mkdir -p "$AVA_HOME"
printf '{"providers": {"anthropic": {"baseUrl": "http://127.0.0.1:%s"}}}\n' "$port" \
  > "$AVA_HOME/settings.json"
ANTHROPIC_API_KEY=sk-wrong AVA_LOCAL_PROBE=0 run 1 doctor --no-mcp
grep -q "^FAIL  provider  anthropic (in use) at http://127.0.0.1:$port: .*401" "$work/out" ||
  fail "refused key: $(cat "$work/out")"
grep -q "fix: ava auth login anthropic (or export ANTHROPIC_API_KEY)" "$work/out" ||
  fail "refused key fix: $(cat "$work/out")"

# MCP servers: one from npm starts, a broken one is named with its fix.
"$ava" mcp add everything -- node "$everything" > /dev/null
"$ava" mcp add broken -- node -e 'process.exit(3)' > /dev/null
"$ava" backend start > /dev/null
ANTHROPIC_API_KEY=sk-good AVA_LOCAL_PROBE=0 run 1 doctor
grep -q "^ok    provider  anthropic (in use) answers at http://127.0.0.1:$port (2 models)$" \
  "$work/out" || fail "provider: $(cat "$work/out")"
grep -q "^ok    backend   running at http://127.0.0.1:" "$work/out" || fail "backend: $(cat "$work/out")"
grep -q "^ok    mcp       everything started (.*, [0-9]* tools)$" "$work/out" ||
  fail "mcp: $(cat "$work/out")"
grep -q "^FAIL  mcp       broken does not start: " "$work/out" || fail "broken: $(cat "$work/out")"
grep -q "fix: ava mcp test broken shows the details; ava mcp disable broken turns it off" \
  "$work/out" || fail "broken fix: $(cat "$work/out")"

# The Codex CLI's login, with nothing else configured, is the provider in use.
mkdir -p "$CODEX_HOME"
printf '{"tokens": {"access_token": "at", "refresh_token": "rt"}, "last_refresh": "2026-01-01T00:00:00Z"}\n' \
  > "$CODEX_HOME/auth.json"
AVA_LOCAL_PROBE=0 run 0 doctor --no-mcp
grep -q "^ok    provider  codex (in use) uses the Codex CLI's login in $CODEX_HOME/auth.json (refreshed [0-9]* days ago)$" \
  "$work/out" || fail "codex: $(cat "$work/out")"
rm -r "$CODEX_HOME"

"$ava" mcp disable broken > /dev/null
ANTHROPIC_API_KEY=sk-good AVA_LOCAL_PROBE=0 run 0 doctor --json
python3 - "$work/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["worst"] in ("ok", "info", "warn"), d
areas = {f["area"] for f in d["findings"]}
assert {"home", "disk", "backend", "provider", "local", "mcp", "sandbox"} <= areas, areas
for f in d["findings"]:
    assert set(f) == {"area", "level", "summary", "fix"}, f
    assert f["level"] in ("ok", "info", "warn", "fail"), f
PY
echo "doctor_cli: ok"
