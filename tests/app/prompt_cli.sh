#!/usr/bin/env bash
# `ava -p` behaviour around the run: no provider configured, a session owned
# by an Ava server, Ctrl-C during a tool, and --continue.
#   prompt_cli.sh AVA
set -euo pipefail
ava=$(realpath "$1")
work=$(mktemp -d)
trap 'kill "${holder:-}" "${run_pid:-}" 2>/dev/null || true; rm -rf "$work"' EXIT
export AVA_HOME="$work/home" NO_PROXY='*' no_proxy='*'
export AVA_LOCAL_PROBE=0  # a local model server on this machine must not answer for "nothing configured"
export CODEX_HOME="$work/codex"  # nor a Codex login of the user's
unset ANTHROPIC_API_KEY OPENAI_API_KEY AVA_PROVIDER AVA_MODEL AVA_API_KEY AVA_BASE_URL AVA_MOCK_SCRIPT
mkdir -p "$work/project"
cd "$work/project"
fail() { echo "FAIL: $*"; exit 1; }

# 1. Nothing configured: one line that says the fix, exit 2, no session.
set +e
message=$("$ava" -p "hello" 2>&1 >/dev/null); code=$?
set -e
[ "$code" = 2 ] || fail "no provider: exit $code"
[[ "$message" == *"ava auth login"*"a local model server works too"*"--provider mock answers offline"* ]] \
  || fail "no provider message: $message"

# 2. --continue finds the session started here; the mock echoes.
"$ava" -p "first" --provider mock --output-format json > "$work/first.json"
session=$(jq -r .session_id "$work/first.json")
"$ava" -p "second" --provider mock -c --output-format json > "$work/second.json"
[ "$(jq -r .session_id "$work/second.json")" = "$session" ] || fail "--continue picked another session"
[ "$(jq -r .result "$work/second.json")" = 'mock: you said "second"' ] || fail "continue answer"

# 3. A session in a home an Ava server owns is refused, naming the owner.
echo 4242 > "$AVA_HOME/owner.lock"
flock -x "$AVA_HOME/owner.lock" sleep 30 &
holder=$!
sleep 0.3
set +e
message=$("$ava" -p "third" --provider mock --session "$session" 2>&1); code=$?
set -e
[ "$code" != 0 ] || fail "owned session was resumed"
[[ "$message" == *"belongs to the Ava server running on this home (pid 4242)"* ]] \
  || fail "owned message: $message"
kill "$holder"; wait "$holder" 2>/dev/null || true; holder=

# 4. Ctrl-C during a tool: the turn is aborted, the call paired, exit 130.
cat > "$work/slow.json" <<'JSON'
{"responses": [{"steps": [{"toolCall": {"id": "slow", "name": "bash", "arguments": {"command": "sleep 30"}}}]}]}
JSON
AVA_MOCK_SCRIPT="$work/slow.json" "$ava" -p "wait" --provider mock --output-format stream-json \
  > "$work/slow.jsonl" 2> "$work/slow.err" &
run_pid=$!
for _ in $(seq 100); do grep -q '"type":"assistant"' "$work/slow.jsonl" 2>/dev/null && break; sleep 0.05; done
sleep 0.2
kill -INT "$run_pid"
set +e
wait "$run_pid"; code=$?
set -e
run_pid=
[ "$code" = 130 ] || fail "Ctrl-C exit $code: $(cat "$work/slow.err")"
jq -se '[.[] | select(.type == "tool_result")] | length == 1 and .[0].status == "interrupted"' \
  "$work/slow.jsonl" > /dev/null || fail "call not paired: $(cat "$work/slow.jsonl")"
[ "$(tail -n1 "$work/slow.jsonl" | jq -r .outcome)" = aborted ] || fail "outcome"
log=$(tail -n1 "$work/slow.jsonl" | jq -r .log)
"$ava" session inspect --json "$log" | jq -e '.unpairedCalls == [] and .turns[0].outcome == "aborted"' \
  > /dev/null || fail "inspect after abort"

# 5. A slash command from the project's .ava/commands, expanded in the agent;
#    an unknown one is refused with the known names.
mkdir -p .ava/commands
printf -- '---\ndescription: greet someone\n---\nSay hi to $ARGUMENTS' > .ava/commands/hello.md
"$ava" -p "/hello the team" --provider mock --output-format json > "$work/slash.json"
[ "$(jq -r .result "$work/slash.json")" = 'mock: you said "Say hi to the team"' ] \
  || fail "slash command: $(cat "$work/slash.json")"
set +e
message=$("$ava" -p "/helo" --provider mock 2>&1 >/dev/null); code=$?
set -e
[ "$code" != 0 ] || fail "an unknown command ran"
[[ "$message" == *"unknown command /helo"*"/hello"* ]] || fail "unknown command message: $message"

# 6. Built-ins are answered by the agent itself: no model call, exit 0.
help=$("$ava" -p "/help" --provider mock) || fail "/help failed"
[[ "$help" == *"/compact [focus]"*"/hello"* ]] || fail "/help: $help"
"$ava" -p "/cost" --provider mock --output-format json > "$work/cost.json"
jq -e '.outcome == "command" and .is_error == false and .result == "No tokens used yet."' \
  "$work/cost.json" > /dev/null || fail "/cost: $(cat "$work/cost.json")"
echo ok
