#!/usr/bin/env bash
# End to end: `ava eval benchmark` on the example tasks (examples/benchmark)
# with three candidates: "good" and "bad" answered by two loopback fake
# providers, "down" pointed at a port nothing listens on. Checks the grades,
# that the provider failure is an infrastructure failure and not a failed
# grade, the fresh copies, the frozen manifest, and that `ava eval compare`
# refuses runs whose task or candidate identity differ.
#   eval_benchmark.sh AVA FAKE_PROVIDER TASKS SCRIPTS_DIR
set -euo pipefail
ava=$1 fake=$2 tasks=$3 scripts=$4
work=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true; [ -n "${KEEP_WORK:-}" ] || rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

start_fake() {  # NAME SCRIPT -> sets url_NAME
  "$fake" --format anthropic --script "$2" > "$work/$1.url" &
  pids+=($!)
  for _ in $(seq 100); do [ -s "$work/$1.url" ] && break; sleep 0.05; done
  [ -s "$work/$1.url" ] || fail "fake provider $1 did not start"
}
start_fake good "$scripts/good.json"
start_fake bad "$scripts/bad.json"
# A port that was just free: nothing listens there.
closed_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

unset AVA_PROVIDER AVA_MODEL AVA_BASE_URL AVA_HOME
export ANTHROPIC_API_KEY=test-key HOME="$work/user"
mkdir -p "$HOME"
cd "$work"
"$ava" eval benchmark "$tasks" --trials 2 --out "$work/run" --json \
  --candidate "good=provider=anthropic,base-url=$(head -n1 good.url)" \
  --candidate "bad=provider=anthropic,base-url=$(head -n1 bad.url),max-steps=10" \
  --candidate "down=provider=anthropic,base-url=http://127.0.0.1:$closed_port" \
  > "$work/comparison.json" 2> "$work/progress.txt" || fail "benchmark: $(cat "$work/progress.txt")"

results=$work/run/results.jsonl
[ "$(wc -l < "$results")" = 18 ] || fail "18 trials expected: $(wc -l < "$results")"
count() { jq -s "[.[] | select($1)] | length" "$results"; }
[ "$(count '.candidate == "good" and .grade.passed == true')" = 6 ] || fail "good passes all 6"
[ "$(count '.candidate == "bad" and .grade.passed == true and .task == "rename-function"')" = 2 ] \
  || fail "bad passes the refactor"
[ "$(count '.candidate == "bad" and .grade.passed == false')" = 4 ] || fail "bad fails 4 grades"
# A failed grade is a completed run with a grade; the provider being down is
# no grade at all, and an infrastructure failure.
[ "$(count '.candidate == "bad" and .infrastructure == null and .completion.outcome == "completed"')" = 6 ] \
  || fail "bad's runs completed"
[ "$(count '.candidate == "down" and .grade == null and .infrastructure.stage == "provider"')" = 6 ] \
  || fail "down: $(jq -c 'select(.candidate == "down")' "$results" | head -n1)"
[ "$(count '.candidate == "good" and .resources.outputTokens > 0 and .resources.wallMs > 0 and .resources.costUsd > 0')" = 6 ] \
  || fail "resources: $(head -n1 "$results")"
[ "$(count '.task == "create-hello-script" and .candidate == "good" and .resources.inputTokens == 2100')" = 2 ] \
  || fail "resources: $(head -n1 "$results")"

# Each trial had its own copy and home; the task folders were not touched.
[ "$(cat "$work/run/trials/create-hello-script/good/2/repo/hello.py")" = 'print("Hello, Ava!")' ] \
  || fail "the trial's copy"
[ ! -e "$tasks/create-hello-script/repo/hello.py" ] || fail "the task's repo was changed"
[ -d "$work/run/trials/fix-off-by-one/bad/1/home/sessions" ] || fail "a fresh AVA_HOME per trial"
grep -q 'range(1, len(numbers))' "$tasks/fix-off-by-one/repo/stats.py" || fail "the task's stats.py was changed"

# The manifest froze the tasks and the candidates' identities.
manifest=$work/run/manifest.json
jq -e '(.tasks | length) == 3 and (.candidates | length) == 3 and .trials == 2
       and (.candidates[0].binarySha256 | length) == 64 and (.candidates[0].version | test("ava"))
       and .candidates[1].spec.maxSteps == 10' "$manifest" > /dev/null || fail "manifest: $(cat "$manifest")"
[ -f "$work/run/tasks/fix-off-by-one/repo/test_stats.py" ] || fail "the frozen copy of the tasks"

# The comparison: good 6/6, bad 2/6, down not compared (no complete sample).
jq -e '.candidates[0].name == "good" and .candidates[0].passed == 6 and .candidates[0].compared == 6
       and .candidates[1].passed == 2 and .candidates[1].compared == 6
       and .candidates[2].compared == 0 and .candidates[2].infrastructureFailures == 6
       and .byTask["fix-off-by-one"].bad.passed == 0
       and (.excluded | any(test("candidate down: no complete sample")))' "$work/comparison.json" > /dev/null \
  || fail "comparison: $(cat "$work/comparison.json")"
grep -q "infrastructure failure (provider)" "$work/progress.txt" || fail "progress: $(cat "$work/progress.txt")"
"$ava" eval compare "$work/run" > "$work/compare.txt"
grep -Eq '^good .* 6/6 +100%' "$work/compare.txt" || fail "compare text: $(cat "$work/compare.txt")"

# Runs that disagree on a candidate's identity or a task are refused.
cp -r "$work/run" "$work/changed"
jq '.candidates[0].settingsHash = "0000"' "$work/run/manifest.json" > "$work/changed/manifest.json"
if "$ava" eval compare "$work/run" "$work/changed" 2> "$work/err"; then fail "merged two identities"; fi
grep -q "candidate good has two identities" "$work/err" || fail "message: $(cat "$work/err")"
jq '.tasks[0].hash = "0000"' "$work/run/manifest.json" > "$work/changed/manifest.json"
if "$ava" eval compare "$work/run" "$work/changed" 2> "$work/err"; then fail "merged two tasks"; fi
grep -q "task create-hello-script differs between the runs" "$work/err" || fail "message: $(cat "$work/err")"

# Bad input: refused with a message, nothing run.
if "$ava" eval benchmark "$tasks" --out "$work/run" --candidate "x=provider=anthropic" 2> "$work/err"; then
  fail "ran into a non-empty folder"
fi
grep -q "is not empty" "$work/err" || fail "message: $(cat "$work/err")"
if "$ava" eval benchmark "$tasks" --out "$work/r2" --candidate "x=colour=blue" 2> "$work/err"; then
  fail "took an unknown key"
fi
grep -q 'unknown key "colour"' "$work/err" || fail "message: $(cat "$work/err")"
[ ! -e "$work/r2" ] || fail "a refused run left a folder"
echo "benchmark: ok"
