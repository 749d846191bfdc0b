#!/usr/bin/env bash
# The headless contract (docs/cli.md): -p's json and stream-json output,
# with and without --include-partial-messages, checked line by line against
# docs/schema/headless-v1.json; and `ava chat` driven through a pipe, which
# must print plain text (no colour, no status line, no prompt).
#   headless_cli.sh AVA SCHEMA
set -euo pipefail
ava=$1
schema=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export AVA_HOME="$work/home"
unset ANTHROPIC_API_KEY OPENAI_API_KEY AVA_PROVIDER AVA_MODEL AVA_API_KEY AVA_BASE_URL AVA_MOCK_SCRIPT
mkdir -p "$work/project"
cd "$work/project"
fail() { echo "FAIL: $*"; exit 1; }

validate() {  # FILE: every line an object the schema accepts
  python3 - "$schema" "$1" <<'PY'
import json, sys
import jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
validator = jsonschema.Draft202012Validator(schema)
lines = [l for l in open(sys.argv[2]) if l.strip()]
assert lines, "no output"
for number, line in enumerate(lines, 1):
    errors = sorted(validator.iter_errors(json.loads(line)), key=str)
    if errors:
        sys.exit(f"line {number}: {errors[0].message}\n{line}")
PY
}

# A tool call, a refusal (bash needs approval in plan mode), then text.
cat > "$work/script.json" <<'JSON'
{"responses": [
  {"steps": [{"toolCall": {"id": "c1", "name": "bash", "arguments": {"command": "touch x"}}}]},
  {"steps": [{"text": "All "}, {"text": "done."}]}
]}
JSON
run() { AVA_MOCK_SCRIPT="$work/script.json" "$ava" -p "go" --provider mock --no-mcp "$@"; }

run --output-format json --permission-mode plan > "$work/result.json"
validate "$work/result.json" || fail "json output: $(cat "$work/result.json")"
jq -e '.type == "result" and .subtype == "success" and .is_error == false and .result == "All done."
       and .num_turns == 2 and (.session_id | length) > 0 and .usage.output_tokens >= 0
       and .permission_denials[0].tool_name == "bash" and .permission_denials[0].tool_use_id == "c1"' \
  "$work/result.json" > /dev/null || fail "result fields: $(cat "$work/result.json")"

run --output-format stream-json --permission-mode plan > "$work/stream.jsonl"
validate "$work/stream.jsonl" || fail "stream-json output"
head -n1 "$work/stream.jsonl" | jq -e '.type == "system" and .subtype == "init" and .schema_version == 1' \
  > /dev/null || fail "init line: $(head -n1 "$work/stream.jsonl")"
tail -n1 "$work/stream.jsonl" | jq -e '.type == "result"' > /dev/null || fail "last line"
! grep -q '"stream_event"' "$work/stream.jsonl" || fail "deltas without --include-partial-messages"

run --output-format stream-json --include-partial-messages --permission-mode plan > "$work/partial.jsonl"
validate "$work/partial.jsonl" || fail "partial messages output"
[ "$(jq -rs '[.[] | select(.type == "stream_event" and .event.type == "text_delta") | .event.text] | join("")' \
      "$work/partial.jsonl")" = "All done." ] || fail "text deltas: $(cat "$work/partial.jsonl")"
jq -se '[.[] | select(.type == "stream_event" and .event.type == "tool_call_start")][0].event.name == "bash"' \
  "$work/partial.jsonl" > /dev/null || fail "tool call start"

# An aborted or failed run is still one valid result line.
echo '{"responses": [{"steps": [{"error": {"kind": "invalid_request", "message": "bad"}}]}]}' > "$work/error.json"
set +e
AVA_MOCK_SCRIPT="$work/error.json" "$ava" -p go --provider mock --no-mcp --output-format json \
  > "$work/failed.json" 2> /dev/null
set -e
validate "$work/failed.json" || fail "failed run: $(cat "$work/failed.json")"
jq -e '.is_error == true and .subtype == "error_during_execution" and (.error | length) > 0' \
  "$work/failed.json" > /dev/null || fail "failed fields: $(cat "$work/failed.json")"

# ava chat through a pipe: one input per line, a trailing backslash joins
# lines, plain text out. The mock echoes what it is sent.
printf 'first line \\\nsecond line\n/cost\n/exit\n' \
  | TERM=xterm-256color "$ava" chat --provider mock --no-mcp > "$work/chat.out" 2> "$work/chat.err" \
  || fail "chat exited $?: $(cat "$work/chat.err")"
! grep -q $'\x1b' "$work/chat.out" || fail "escape sequences through a pipe: $(cat -v "$work/chat.out")"
grep -q "first line" "$work/chat.out" && grep -q "second line" "$work/chat.out" \
  || fail "the joined input: $(cat "$work/chat.out")"
grep -Eq " in, |No tokens used yet" "$work/chat.out" || fail "/cost: $(cat "$work/chat.out")"
! grep -q "›" "$work/chat.out" || fail "a prompt printed without a terminal"
[ "$("$ava" session list --json | jq -r '.[0].first_input')" = $'first line \nsecond line' ] \
  || fail "session list: $("$ava" session list --json)"
echo "headless: ok"
