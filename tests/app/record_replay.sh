#!/usr/bin/env bash
# End to end: `ava -p --record DIR` against the loopback fake provider, then
# `ava replay DIR` with the provider gone (a replay that reached it would
# fail), `ava eval diagnose` of the run's log, and a damaged recording refused.
#   record_replay.sh AVA FAKE_PROVIDER SCRIPT
set -euo pipefail
ava=$1 fake=$2 script=$3
work=$(mktemp -d)
trap 'kill "$fake_pid" 2>/dev/null || true; rm -rf "$work"' EXIT
mkdir -p "$work/home" "$work/project"
printf 'hello world\n' > "$work/project/greeting.txt"

"$fake" --format anthropic --script "$script" > "$work/fake.out" &
fake_pid=$!
for _ in $(seq 100); do [ -s "$work/fake.out" ] && break; sleep 0.05; done
base_url=$(head -n1 "$work/fake.out")
[ -n "$base_url" ] || { echo "fake provider did not start"; exit 1; }

export AVA_HOME="$work/home"
unset AVA_PROVIDER AVA_MODEL AVA_BASE_URL AVA_API_KEY
export ANTHROPIC_API_KEY=test-key ANTHROPIC_BASE_URL="$base_url"
fail() { echo "FAIL: $*"; exit 1; }

"$ava" -p "Greet Ava instead of the world in greeting.txt" --provider anthropic \
  --cwd "$work/project" --record "$work/rec" --output-format json > "$work/result.json"
[ "$(cat "$work/project/greeting.txt")" = "hello Ava" ] || fail "greeting.txt not edited"
for file in recording.json exchanges.jsonl tools.jsonl; do
  [ "$(stat -c %a "$work/rec/$file")" = 600 ] || fail "$file is not private"
done
[ "$(wc -l < "$work/rec/exchanges.jsonl")" = 3 ] || fail "three exchanges"
[ "$(wc -l < "$work/rec/tools.jsonl")" = 2 ] || fail "two tool responses"
jq -e '.outcome.reason == "completed" and .provider == "anthropic"' "$work/rec/recording.json" > /dev/null \
  || fail "manifest: $(cat "$work/rec/recording.json")"

# The recording lives beside the session log, not in it.
log=$(jq -r .log "$work/result.json")
case $log in "$work/rec"/*) fail "the log is inside the recording" ;; esac

# A second recording into the same folder is refused, and changes nothing.
before=$(sha256sum "$work/rec/exchanges.jsonl")
if "$ava" -p "again" --provider anthropic --cwd "$work/project" --record "$work/rec" 2> "$work/err"; then
  fail "recorded into a non-empty folder"
fi
grep -q "is not empty" "$work/err" || fail "message: $(cat "$work/err")"
[ "$(sha256sum "$work/rec/exchanges.jsonl")" = "$before" ] || fail "the recording changed"

kill "$fake_pid"; wait "$fake_pid" 2>/dev/null || true
printf 'hello world\n' > "$work/project/greeting.txt"
"$ava" replay "$work/rec" > "$work/replay.out" || fail "replay: $(cat "$work/replay.out")"
grep -q "replay passed: 3 exchanges and 2 tool calls" "$work/replay.out" || fail "$(cat "$work/replay.out")"
[ "$(cat "$work/project/greeting.txt")" = "hello world" ] || fail "the replay ran a real tool"
"$ava" eval replay --json "$work/rec" | jq -e '.passed and .exchangesReplayed == 3' > /dev/null \
  || fail "ava eval replay --json"

# The last exchange missing: refused, exit 1, the reason on stderr.
cp -r "$work/rec" "$work/short"
sed -i '$d' "$work/short/exchanges.jsonl"
if "$ava" replay "$work/short" 2> "$work/err"; then fail "a missing exchange replayed"; fi
grep -q "refused: the agent made request 3, but the recording holds 2 exchanges" "$work/err" \
  || fail "message: $(cat "$work/err")"

# Diagnose the run's log: the bash call and the edit, no findings.
"$ava" eval diagnose --json "$log" > "$work/diagnose.json"
jq -e '.sessions[0].toolCalls == 2 and (.sessions[0].findings | length) == 0' "$work/diagnose.json" > /dev/null \
  || fail "diagnose: $(cat "$work/diagnose.json")"
id=$(basename "$log" .jsonl.zst)
grep -q "no findings" <<< "$("$ava" eval diagnose "$id")" || fail "diagnose by id"
if "$ava" eval diagnose nosuchsession 2> "$work/err"; then fail "a missing session diagnosed"; fi
grep -q "ava eval diagnose: " "$work/err" || fail "message: $(cat "$work/err")"
echo "record and replay: ok"
