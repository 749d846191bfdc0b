#!/usr/bin/env bash
# End to end: `ava -p` against the loopback fake provider over HTTP, in one
# wire format. The scripted model runs bash, then edit, then answers; the
# test checks the file on disk, the stream-json output and the session log.
#   prompt_e2e.sh AVA FAKE_PROVIDER SCRIPT FORMAT
set -euo pipefail
ava=$1 fake=$2 script=$3 format=$4
work=$(mktemp -d)
trap 'kill "$fake_pid" 2>/dev/null || true; rm -rf "$work"' EXIT
mkdir -p "$work/home" "$work/project"
printf 'hello world\n' > "$work/project/greeting.txt"

"$fake" --format "$format" --script "$script" > "$work/fake.out" &
fake_pid=$!
for _ in $(seq 100); do [ -s "$work/fake.out" ] && break; sleep 0.05; done
base_url=$(head -n1 "$work/fake.out")
[ -n "$base_url" ] || { echo "fake provider did not start"; exit 1; }

export AVA_HOME="$work/home"
unset AVA_PROVIDER AVA_MODEL AVA_BASE_URL AVA_API_KEY
export ANTHROPIC_API_KEY=test-key ANTHROPIC_BASE_URL="$base_url"
export OPENAI_API_KEY=test-key OPENAI_BASE_URL="$base_url/v1"
case $format in
  anthropic) provider=anthropic ;;
  openai) provider=openai ;;
  openai-responses) provider=openai-responses ;;
esac

"$ava" -p "Greet Ava instead of the world in greeting.txt" --provider "$provider" \
  --cwd "$work/project" --output-format stream-json > "$work/stream.jsonl"

fail() { echo "FAIL: $*"; echo "--- stream"; cat "$work/stream.jsonl"; exit 1; }
[ "$(cat "$work/project/greeting.txt")" = "hello Ava" ] || fail "greeting.txt not edited"
jq -e . "$work/stream.jsonl" > /dev/null || fail "stream-json is not JSON lines"
[ "$(head -n1 "$work/stream.jsonl" | jq -r '.type + "/" + .subtype')" = system/init ] || fail "no init line"
jq -se '[.[] | select(.type == "tool_result")] | map(.tool_name + ":" + .status) == ["bash:ok", "edit:ok"]' \
  "$work/stream.jsonl" > /dev/null || fail "tool results"
jq -se '[.[] | select(.type == "tool_result" and .tool_name == "bash")][0].content[0].text | startswith("hello world")' \
  "$work/stream.jsonl" > /dev/null || fail "bash output"
result=$(tail -n1 "$work/stream.jsonl")
[ "$(jq -r .type <<< "$result")" = result ] || fail "no result line"
[ "$(jq -r .outcome <<< "$result")" = completed ] || fail "outcome"
[ "$(jq -r .result <<< "$result")" = "Changed the greeting to say hello to Ava." ] || fail "answer"
[ "$(jq -r .num_turns <<< "$result")" = 3 ] || fail "steps"
[ "$(jq -r .usage.output_tokens <<< "$result")" = 62 ] || fail "usage"

log=$(jq -r .log <<< "$result")
"$ava" session inspect --json "$log" > "$work/inspect.json"
jq -e '.turns | length == 1 and .[0].outcome == "completed" and .[0].steps == 3' "$work/inspect.json" > /dev/null \
  || fail "inspect turns: $(cat "$work/inspect.json")"
jq -e '[.toolCalls[] | .name + ":" + .status] == ["bash:ok", "edit:ok"]' "$work/inspect.json" > /dev/null \
  || fail "inspect calls: $(cat "$work/inspect.json")"
jq -e '.unpairedCalls == [] and .pendingInput == []' "$work/inspect.json" > /dev/null || fail "inspect pairing"
echo "ok: $format"
