#!/usr/bin/env bash
# `ava -p` never waits for a person: the default (auto inside the
# workspace-write sandbox, or accept-edits without Landlock), refusals listed
# in the JSON result, --permission-mode, --allowed-tools, --disallowed-tools
# and --sandbox, against real tool calls of the mock provider.
#   prompt_permissions.sh AVA SCRATCH   (SCRATCH: a folder outside /tmp)
set -euo pipefail
ava=$(realpath "$1")
work=$(mktemp -d)
# A folder for the project and "elsewhere" that no temp folder contains (the
# sandbox lets commands write the temp folders): the build tree, or, for a
# checkout under /tmp, ~/.cache.
under_temp() {
  local real; real=$(realpath -m "$1")
  for temp in /tmp /var/tmp /dev/shm ${TMPDIR:+"$TMPDIR"}; do
    temp=$(realpath -m "$temp")
    [[ $real == "$temp" || $real == "$temp"/* ]] && return 0
  done
  return 1
}
base=$(realpath "$2")
if under_temp "$base"; then base="$HOME/.cache/ava-sandbox-tests"; mkdir -p "$base"; fi
under_temp "$base" && { echo "prompt_permissions: no folder outside the temp folders; skipped"; exit 77; }
outside=$(mktemp -d "$base/prompt-permissions-XXXXXX")
trap 'kill "${listener:-}" 2>/dev/null || true; rm -rf "$work" "$outside"' EXIT
export AVA_HOME="$work/home" NO_PROXY='*' no_proxy='*'
unset ANTHROPIC_API_KEY OPENAI_API_KEY AVA_PROVIDER AVA_MODEL AVA_API_KEY AVA_BASE_URL AVA_MOCK_SCRIPT
project="$outside/project"   # outside /tmp too, so /tmp's write access says nothing about it
mkdir -p "$project" "$outside/elsewhere"
cd "$project"
fail() { echo "FAIL: $*"; exit 1; }

# A script of one tool call, then a final answer.
call() {  # call NAME ARGUMENTS_JSON -> the script's path
  local file="$work/script-$RANDOM.json"
  jq -n --arg name "$1" --argjson arguments "$2" \
    '{responses: [{steps: [{toolCall: {id: "c1", name: $name, arguments: $arguments}}]},
                  {steps: [{text: "done"}]}]}' > "$file"
  echo "$file"
}
bash_call() { call bash "$(jq -n --arg c "$1" '{command: $c}')"; }
run() {  # run SCRIPT ARGS... -> JSON on stdout, stderr in $work/err
  AVA_MOCK_SCRIPT="$1" "$ava" -p "go" --provider mock --output-format json "${@:2}" 2> "$work/err"
}
landlock=$("$ava" permissions --json | jq -r '.sandbox.landlockAbi // 0')

# 1. The default: auto inside the sandbox. The project is writable, a folder
#    outside it is not, and the tool result says the write was refused.
if [ "$landlock" -gt 0 ]; then
  out=$(run "$(bash_call "touch inside.txt")")
  [ -e inside.txt ] || fail "default: a write in the project was refused: $out"
  [ "$(jq -r .permission_mode <<<"$out")" = auto ] || fail "default mode: $out"
  [ "$(jq -r .sandbox <<<"$out")" = workspace-write ] || fail "default sandbox: $out"
  out=$(run "$(bash_call "touch '$outside/elsewhere/x.txt'")")
  [ ! -e "$outside/elsewhere/x.txt" ] || fail "the sandbox let a write outside the project through"
  AVA_MOCK_SCRIPT="$(bash_call "touch '$outside/elsewhere/x.txt'")" "$ava" -p go --provider mock \
    --output-format stream-json > "$work/stream.jsonl" 2>/dev/null
  jq -se '[.[] | select(.type == "tool_result")][0] | (.details.sandbox.mode == "workspace-write")
          and (.content | tostring | test("sandbox"))' "$work/stream.jsonl" > /dev/null \
    || fail "the refused write does not say so: $(cat "$work/stream.jsonl")"
  out=$(run "$(bash_call "touch /tmp/ava-prompt-permissions-$$ && rm /tmp/ava-prompt-permissions-$$")")
  [ "$(jq -r .permission_denials <<<"$out")" = "[]" ] || fail "/tmp: $out"

  # Network off: a loopback connection is refused inside, made with --sandbox
  # off in auto mode (which must be chosen: off alone means accept-edits).
  python3 -c 'import socket,sys,time
s=socket.socket(); s.bind(("127.0.0.1",0)); s.listen(8); print(s.getsockname()[1], flush=True)
while True: s.accept()' > "$work/port" &
  listener=$!
  for _ in $(seq 50); do [ -s "$work/port" ] && break; sleep 0.1; done
  port=$(cat "$work/port")
  AVA_MOCK_SCRIPT="$(bash_call "exec 3<>/dev/tcp/127.0.0.1/$port && echo connected")" "$ava" -p go \
    --provider mock --output-format stream-json > "$work/net.jsonl" 2>/dev/null
  jq -se '[.[] | select(.type == "tool_result")][0].status == "error"' "$work/net.jsonl" > /dev/null \
    || fail "a connection left the sandbox: $(cat "$work/net.jsonl")"
  AVA_MOCK_SCRIPT="$(bash_call "exec 3<>/dev/tcp/127.0.0.1/$port && echo connected")" "$ava" -p go \
    --provider mock --sandbox off --output-format stream-json > "$work/net.jsonl" 2>/dev/null
  jq -se '.[0].permission_mode == "accept-edits" and
          [.[] | select(.type == "tool_result")][0].details.permission.verdict == "ask"' \
    "$work/net.jsonl" > /dev/null || fail "--sandbox off alone: $(cat "$work/net.jsonl")"
  AVA_MOCK_SCRIPT="$(bash_call "exec 3<>/dev/tcp/127.0.0.1/$port && echo connected")" "$ava" -p go \
    --provider mock --sandbox off --permission-mode auto --output-format stream-json \
    > "$work/net.jsonl" 2>/dev/null
  jq -se '[.[] | select(.type == "tool_result")][0].status == "ok"' "$work/net.jsonl" > /dev/null \
    || fail "--sandbox off still refused the connection: $(cat "$work/net.jsonl")"
fi

# 2. No Landlock (as on a kernel without it): a one-line notice, accept-edits;
#    the edit runs, the command is refused and listed, and nothing waits.
out=$(AVA_SANDBOX_MAX_ABI=0 run "$(call write '{"path": "edited.txt", "content": "x"}')")
[ -e edited.txt ] || fail "no sandbox: an edit in the project was refused: $out"
grep -q "^ava: no sandbox here" "$work/err" || fail "no notice: $(cat "$work/err")"
[ "$(grep -c "no sandbox here" "$work/err")" = 1 ] || fail "the notice is not one line"
[ "$(jq -r .permission_mode <<<"$out")" = accept-edits ] || fail "fallback mode: $out"
out=$(AVA_SANDBOX_MAX_ABI=0 run "$(bash_call "touch refused.txt")")
[ ! -e refused.txt ] || fail "no sandbox: the command ran unsandboxed"
jq -e '.permission_denials | length == 1 and .[0].tool_name == "bash" and .[0].verdict == "ask"' \
  <<<"$out" > /dev/null || fail "refusal not listed: $out"
[ "$(jq -r .outcome <<<"$out")" = completed ] || fail "a refusal failed the run: $out"

# 3. --permission-mode plan refuses the edit; --disallowed-tools denies by rule.
out=$(run "$(call write '{"path": "planned.txt", "content": "x"}')" --permission-mode plan)
[ ! -e planned.txt ] || fail "plan mode wrote a file"
jq -e '.permission_denials[0].verdict == "deny"' <<<"$out" > /dev/null || fail "plan: $out"
out=$(run "$(bash_call "touch denied.txt")" --disallowed-tools 'bash(touch:*)')
[ ! -e denied.txt ] || fail "--disallowed-tools did not deny"
jq -e '.permission_denials[0].rule == "bash(touch:*)"' <<<"$out" > /dev/null || fail "deny rule: $out"

# 4. --allowed-tools lets a command run in ask mode (outside any sandbox);
#    the text output names a refusal on stderr.
out=$(run "$(bash_call "touch allowed.txt")" --permission-mode ask --sandbox off \
  --allowed-tools 'read,bash(touch:*)')
[ -e allowed.txt ] || fail "--allowed-tools: $out"
AVA_MOCK_SCRIPT="$(bash_call "touch asked.txt")" "$ava" -p go --provider mock --permission-mode ask \
  > /dev/null 2> "$work/err"
[ ! -e asked.txt ] || fail "ask mode ran a command in -p"
grep -q "^ava: bash not run: it needs approval" "$work/err" || fail "text refusal: $(cat "$work/err")"

# 5. Bad flags are usage errors that say what is allowed.
set +e
"$ava" -p go --provider mock --permission-mode yolo > /dev/null 2> "$work/err"; code=$?
set -e
[ "$code" = 2 ] || fail "bad mode exit $code"
grep -q "accept-edits" "$work/err" || fail "bad mode message: $(cat "$work/err")"
# 6. A UserPromptSubmit hook (the user's settings) keeps a prompt from the
#    model: nothing runs, the JSON says "blocked", the reason is on stderr.
mkdir -p "$AVA_HOME"
jq -n '{hooks: {UserPromptSubmit: [{hooks: [{type: "command",
         command: "if grep -q password; then echo \"no passwords, please\" >&2; exit 2; fi"}]}]}}' \
  > "$AVA_HOME/settings.json"
set +e
AVA_MOCK_SCRIPT="$(bash_call "touch hooked.txt")" "$ava" -p "my password is hunter2" --provider mock \
  --output-format json > "$work/out" 2> "$work/err"; code=$?
set -e
[ "$code" != 0 ] || fail "a blocked prompt exited 0"
[ ! -e hooked.txt ] || fail "a blocked prompt still ran the model's call"
jq -e '.outcome == "blocked" and .num_turns == 0' "$work/out" > /dev/null || fail "blocked: $(cat "$work/out")"
grep -q "no passwords, please" "$work/err" || fail "blocked reason: $(cat "$work/err")"
out=$(run "$(bash_call "touch hooked.txt")")
[ "$(jq -r .outcome <<<"$out")" = completed ] || fail "a prompt the hook lets through: $out"
rm "$AVA_HOME/settings.json"
echo "ok"
