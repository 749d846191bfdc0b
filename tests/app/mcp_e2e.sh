#!/usr/bin/env bash
# End to end: `ava mcp` configures @modelcontextprotocol/server-filesystem
# (installed by scripts/setup under tests/mcp-servers), then `ava -p` runs a
# turn against the loopback fake provider in echo mode whose model calls
# mcp__fs__read_text_file and answers with what it read. Also: secrets stay
# out of listings and the session log, a broken server does not stop the
# turn, per-project switches, and a malformed import changes nothing.
#   mcp_e2e.sh AVA FAKE_PROVIDER MCP_SERVERS_DIR
set -euo pipefail
ava=$1 fake=$2 servers=$3
fs_server="$servers/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"
if [ ! -f "$fs_server" ] || ! command -v node > /dev/null; then
  echo "skipped: $fs_server is not installed (run scripts/setup)"
  exit 77
fi
work=$(mktemp -d)
fake_pid=
trap '[ -n "$fake_pid" ] && kill "$fake_pid" 2>/dev/null; rm -rf "$work"' EXIT
mkdir -p "$work/home" "$work/project" "$work/other"
printf 'the fox is brown\nsecond line\n' > "$work/project/notes.txt"
export AVA_HOME="$work/home"
unset AVA_PROVIDER AVA_MODEL AVA_BASE_URL AVA_API_KEY AVA_MCP_WAIT_MS

fail() { echo "FAIL: $*"; for f in "$work"/*.out "$work"/*.err "$work"/*.jsonl; do [ -f "$f" ] && { echo "--- $f"; cat "$f"; }; done; exit 1; }

# Configuration.
"$ava" mcp add fs --env FS_TOKEN=hunter2-secret -- node "$fs_server" "$work/project" > "$work/add.out" \
  || fail "mcp add"
"$ava" mcp add broken -- node -e 'process.exit(3)' > /dev/null || fail "mcp add broken"
"$ava" mcp add fs -- node x 2> "$work/dup.err" && fail "a second fs was accepted"
grep -q "already configured" "$work/dup.err" || fail "duplicate message"
"$ava" mcp add 'bad name' -- node x 2> /dev/null && fail "a bad name was accepted"
[ "$(stat -c %a "$work/home/capabilities.sqlite3")" = 600 ] || fail "store mode"

"$ava" mcp list > "$work/list.out"
grep -q "^fs  stdio  node $fs_server $work/project \[env FS_TOKEN\]  (enabled)$" "$work/list.out" || fail "list"
grep -q hunter2 "$work/list.out" && fail "list shows the secret"
"$ava" mcp list --json | jq -e '.servers[] | select(.name == "fs") | .env.FS_TOKEN == "<redacted>"' > /dev/null \
  || fail "list --json redacts"
"$ava" mcp list --json --show-secrets | jq -e '.servers[] | select(.name == "fs") | .env.FS_TOKEN == "hunter2-secret"' \
  > /dev/null || fail "list --show-secrets"

# Credentials in arguments and URLs are masked in listings, shown with --show-secrets.
"$ava" mcp add leaky -- node srv.js --api-key sk-leaky-0123456789abcdef --token=tok-arg-secret \
  > /dev/null || fail "mcp add leaky"
"$ava" mcp add leakyurl --url 'https://mcp.example.com/mcp?api_key=url-key-secret' > /dev/null \
  || fail "mcp add leakyurl"
"$ava" mcp list > "$work/leaky.out"
grep -q "^leaky  stdio  node srv.js --api-key \[redacted\] --token=\[redacted\]  (enabled)$" \
  "$work/leaky.out" || fail "list masks arguments"
grep -q "^leakyurl  http  https://mcp.example.com/mcp?api_key=\[redacted\]  (enabled)$" \
  "$work/leaky.out" || fail "list masks the url"
"$ava" mcp list --json > "$work/leaky-json.out"
grep -Eq "sk-leaky|tok-arg-secret|url-key-secret" "$work/leaky.out" "$work/leaky-json.out" \
  && fail "a listing shows a credential"
grep -q "tok-arg-secret" <<< "$("$ava" mcp list --show-secrets)" || fail "list --show-secrets args"
"$ava" mcp remove leaky > /dev/null && "$ava" mcp remove leakyurl > /dev/null || fail "remove leaky"

# A sandbox asked for at add: kept, listed, refused when malformed.
"$ava" mcp add boxed --sandbox workspace-write --sandbox-network --writable-root cache -- node srv.js \
  > /dev/null || fail "mcp add --sandbox"
grep -q "^boxed  stdio  node srv.js \[sandbox workspace-write, network, +$(pwd -P)/cache\]" <<< "$("$ava" mcp list)" \
  || fail "list shows the sandbox: $("$ava" mcp list)"
"$ava" mcp list --json | jq -e --arg root "$(pwd -P)/cache" '.servers[] | select(.name == "boxed") | .sandbox ==
  {mode: "workspace-write", network: true, writableRoots: [$root]}' > /dev/null || fail "list --json sandbox"
set +e
"$ava" mcp add boxed2 --sandbox yolo -- node srv.js 2> "$work/sandbox.err"; code=$?
set -e
[ "$code" = 2 ] || fail "a bad --sandbox exit $code"
"$ava" mcp add boxed3 --sandbox-network -- node srv.js 2> "$work/sandbox.err" && fail "network without a sandbox"
grep -q "need a sandbox mode" "$work/sandbox.err" || fail "network without a sandbox: $(cat "$work/sandbox.err")"
"$ava" mcp remove boxed > /dev/null || fail "remove boxed"

# ava mcp test: name, protocol version, tools; non-zero for a broken server.
"$ava" mcp test fs > "$work/test.out" || fail "mcp test fs"
grep -q "^Server: secure-filesystem-server " "$work/test.out" || fail "server name"
grep -Eq "^Protocol version: 20[0-9]{2}-[0-9]{2}-[0-9]{2}$" "$work/test.out" || fail "protocol version"
grep -q "^  read_text_file  " "$work/test.out" || fail "tools"
"$ava" mcp test broken > /dev/null 2> "$work/broken.err" && fail "mcp test of a broken server succeeded"
grep -q "server broken" "$work/broken.err" || fail "broken message"
"$ava" mcp test nothere 2> /dev/null && fail "mcp test of an unknown server succeeded"

# A malformed import names the problem and changes nothing.
printf '{"mcpServers": {"ok": {"command": "x"}, "bad": {"command": 7}}}' > "$work/bad.json"
"$ava" mcp import "$work/bad.json" 2> "$work/import.err" && fail "bad import accepted"
grep -q "command must be a string; nothing was imported" "$work/import.err" || fail "import message"
printf '{"mcpServers": {"ok": ' > "$work/cut.json"
"$ava" mcp import "$work/cut.json" 2> /dev/null && fail "cut import accepted"
[ "$("$ava" mcp list --json | jq -c '[.servers[].name]')" = '["broken","fs"]' ] || fail "import changed the store"
printf '{"mcpServers": {"other": {"command": "true"}}}' > "$work/.mcp.json"
grep -q "Added MCP server other" <<< "$("$ava" mcp import "$work/.mcp.json" --project "$work/other")" || fail "import"
grep -q "^other .*(disabled here)$" <<< "$("$ava" mcp list --project "$work/project")" || fail "import scope"

# The agent turn: the model calls the MCP tool and answers with its result.
"$fake" --format anthropic --echo > "$work/fake.out" &
fake_pid=$!
for _ in $(seq 100); do [ -s "$work/fake.out" ] && break; sleep 0.05; done
base_url=$(head -n1 "$work/fake.out")
[ -n "$base_url" ] || fail "fake provider did not start"
export ANTHROPIC_API_KEY=test-key ANTHROPIC_BASE_URL="$base_url"

prompt="tool: mcp__fs__read_text_file {\"path\": \"$work/project/notes.txt\"}"
"$ava" -p "$prompt" --provider anthropic --cwd "$work/project" --output-format stream-json \
  > "$work/stream.jsonl" 2> "$work/prompt.err" || fail "ava -p"
head -n1 "$work/stream.jsonl" | jq -e '.type == "system" and .subtype == "init" and .schema_version == 1 and (.tools | index("mcp__fs__read_text_file")) and (.tools | index("bash"))' \
  > /dev/null || fail "init tools"
jq -se '[.[] | select(.type == "tool_result")] | map(.tool_name + ":" + .status) == ["mcp__fs__read_text_file:ok"]' \
  "$work/stream.jsonl" > /dev/null || fail "tool result"
result=$(tail -n1 "$work/stream.jsonl")
[ "$(jq -r .outcome <<< "$result")" = completed ] || fail "outcome"
[ "$(jq -r .result <<< "$result")" = "done: the fox is brown" ] || fail "answer"
grep -q "MCP server broken" "$work/prompt.err" || fail "the broken server is not reported"
log=$(jq -r .log <<< "$result")
"$ava" session inspect --json "$log" > "$work/inspect.json"
jq -e '[.toolCalls[] | .name + ":" + .status] == ["mcp__fs__read_text_file:ok"]' "$work/inspect.json" > /dev/null \
  || fail "inspect"
grep -q hunter2 <<< "$(zstd -dc "$log")" && fail "the secret is in the session log"
grep -rq hunter2 "$work/home/logs" "$work/prompt.err" && fail "the secret is in a log"
pgrep -f "$fs_server $work/project" > /dev/null && fail "the fs server outlived ava -p"

# Switched off in this project: no fs tools, the turn still runs.
"$ava" mcp disable fs --project "$work/project" > /dev/null || fail "disable"
"$ava" -p "hello" --provider anthropic --cwd "$work/project" --output-format stream-json \
  > "$work/off.jsonl" 2> "$work/off.err" || fail "ava -p without fs"
head -n1 "$work/off.jsonl" | jq -e '.tools | index("mcp__fs__read_text_file") | not' > /dev/null || fail "fs still offered"
[ "$(tail -n1 "$work/off.jsonl" | jq -r .result)" = "echo: hello" ] || fail "answer without fs"

# A server that never answers holds -p up only for --mcp-wait.
"$ava" mcp add slow -- node -e 'setInterval(() => {}, 1000)' > /dev/null || fail "add slow"
"$ava" -p "hello" --provider anthropic --cwd "$work/project" --mcp-wait 300 --output-format stream-json \
  > "$work/slow.jsonl" 2> "$work/slow.err" || fail "ava -p with a slow server"
grep -q "MCP server slow (still starting): no tools offered" "$work/slow.err" || fail "slow note"
[ "$(tail -n1 "$work/slow.jsonl" | jq -r .result)" = "echo: hello" ] || fail "answer with a slow server"
"$ava" mcp remove slow > /dev/null

# A server that listed its tools once (ava mcp test caches them) and is broken
# now: its tools are still offered, a call is a tool error the model reads,
# and the turn completes.
printf '#!/bin/sh\nexec node "%s" "%s"\n' "$fs_server" "$work/project" > "$work/wrapped.sh"
chmod +x "$work/wrapped.sh"
"$ava" mcp add wrapped -- "$work/wrapped.sh" > /dev/null || fail "add wrapped"
"$ava" mcp test wrapped > /dev/null || fail "test wrapped"
printf '#!/bin/sh\necho "wrapped is broken now" >&2\nexit 4\n' > "$work/wrapped.sh"
prompt="tool: mcp__wrapped__read_text_file {\"path\": \"$work/project/notes.txt\"}"
"$ava" -p "$prompt" --provider anthropic --cwd "$work/project" --output-format stream-json \
  > "$work/wrapped.jsonl" 2> "$work/wrapped.err" || fail "ava -p with a broken server"
grep -q "MCP server wrapped (.*): its tools as last listed are offered" "$work/wrapped.err" || fail "wrapped note"
jq -se '[.[] | select(.type == "tool_result")] | map(.tool_name + ":" + .status) == ["mcp__wrapped__read_text_file:error"]' \
  "$work/wrapped.jsonl" > /dev/null || fail "wrapped tool result"
# (Whether the quoted reason carries the stderr tail depends on how soon the
# second start notices the exit, so only the server is checked.)
jq -se '[.[] | select(.type == "tool_result")][0].content[0].text | startswith("MCP server wrapped is not available")' \
  "$work/wrapped.jsonl" > /dev/null || fail "the tool error does not name the server"
[ "$(tail -n1 "$work/wrapped.jsonl" | jq -r .outcome)" = completed ] || fail "wrapped outcome"

grep -q "Removed MCP server fs" <<< "$("$ava" mcp remove fs)" || fail "remove"
"$ava" mcp remove fs 2> /dev/null && fail "second remove succeeded"
echo "ok"
