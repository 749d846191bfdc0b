#!/usr/bin/env bash
# `ava auth`: keys read from stdin (a terminal gets a hidden prompt), checked
# against a loopback provider before `login` saves them, never printed;
# status says where each key comes from; logout forgets them.
#   auth_cli.sh AVA
set -euo pipefail
ava=$1
work=$(mktemp -d)
server_pid=""
trap '[ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; rm -rf "$work"' EXIT
export AVA_HOME="$work/home"
export CODEX_HOME="$work/codex"  # a Codex login of the user's stays out of it
unset ANTHROPIC_API_KEY OPENAI_API_KEY AVA_API_KEY AVA_PROVIDER AVA_BASE_URL ANTHROPIC_BASE_URL \
  OPENAI_BASE_URL AVA_PROFILE
fail() { echo "FAIL: $*"; exit 1; }

# A loopback Anthropic-style model listing that only takes "sk-good".
python3 "$(dirname "$0")/fake_models_server.py" sk-good > "$work/port" &
server_pid=$!
for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.05; done
port=$(cat "$work/port")
mkdir -p "$AVA_HOME"
printf '{"providers": {"anthropic": {"baseUrl": "http://127.0.0.1:%s"}}}\n' "$port" \
  > "$AVA_HOME/settings.json"

run() {  # CODE STDIN ARGS...
  local code=$1 input=$2; shift 2
  set +e
  printf '%s' "$input" | "$ava" "$@" > "$work/out" 2> "$work/err"; local got=$?
  set -e
  [ "$got" = "$code" ] || fail "ava $*: exit $got, expected $code: $(cat "$work/out" "$work/err")"
  if grep -q "sk-good\|sk-two\|sk-bad" "$work/out" "$work/err"; then fail "ava $* printed a key"; fi
}
saved() { python3 -c 'import json,sys; print(" ".join(sorted(json.load(open(sys.argv[1])))))' \
  "$AVA_HOME/auth.json" 2>/dev/null || true; }

# A key the provider refuses is not saved.
run 1 $'sk-bad\n' auth login anthropic
grep -q "anthropic did not accept the key" "$work/err" || fail "bad key: $(cat "$work/err")"
[ -z "$(saved)" ] || fail "a refused key was saved: $(saved)"
# A good one is checked, then saved 0600.
run 0 $'  sk-good\n' auth login anthropic
grep -q "anthropic accepted the key (2 models)" "$work/out" || fail "login: $(cat "$work/out")"
[ "$(saved)" = "anthropic" ] || fail "saved: $(saved)"
[ "$(stat -c %a "$AVA_HOME/auth.json")" = 600 ] || fail "auth.json mode"
grep -q '"sk-good"' "$AVA_HOME/auth.json" || fail "the key was trimmed wrongly"

run 0 "" auth status
grep -q "^anthropic .*key saved in auth.json .*(in use)" "$work/out" || fail "status: $(cat "$work/out")"
grep -q "^openai .*no key" "$work/out" || fail "status openai: $(cat "$work/out")"
grep -q "^ollama .*no key needed" "$work/out" || fail "status ollama: $(cat "$work/out")"

# set-key does not ask the provider; the environment's key wins and says so.
ANTHROPIC_API_KEY=sk-env run 0 $'sk-two\n' auth set-key openai
grep -q "saved the openai key" "$work/out" || fail "set-key: $(cat "$work/out")"
OPENAI_API_KEY=sk-env run 0 $'sk-two\n' auth set-key openai
grep -q "OPENAI_API_KEY is set in this environment" "$work/err" || fail "no note: $(cat "$work/err")"
ANTHROPIC_API_KEY=sk-env run 0 "" auth status --json
python3 - "$work/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
by = {p["name"]: p for p in d["providers"]}
assert d["inUse"] == "anthropic", d
assert by["anthropic"]["key"] == "environment" and by["anthropic"]["keyVariable"] == "ANTHROPIC_API_KEY", by
assert by["openai"]["key"] == "auth.json", by
assert by["ollama"]["key"] == "not needed", by
assert "mock" not in by
PY

# What is not a key, or not a provider, is refused and changes nothing.
run 1 $'sk bad\n' auth set-key openai
grep -q "printable ASCII" "$work/err" || fail "spaces: $(cat "$work/err")"
run 1 $'\n' auth set-key openai
grep -q "the key is empty" "$work/err" || fail "empty: $(cat "$work/err")"
run 2 $'k\n' auth set-key nosuch
grep -q "unknown provider 'nosuch'" "$work/err" || fail "unknown: $(cat "$work/err")"
run 2 $'k\n' auth set-key mock
run 2 "" auth set-key anthropic sk-in-argv
run 2 "" auth login
grep -q "name the provider" "$work/err" || fail "login without a terminal: $(cat "$work/err")"
[ "$(saved)" = "anthropic openai" ] || fail "saved after refusals: $(saved)"

# At a terminal the key is asked for with echo off: it never shows.
python3 - "$ava" <<'PY'
import os, pty, select, sys, time
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[1], [sys.argv[1], "auth", "set-key", "openai"])
seen = b""
def read_until(marker, limit=10.0):
    global seen
    end = time.time() + limit
    while marker not in seen and time.time() < end:
        if not select.select([fd], [], [], max(0.0, end - time.time()))[0]:
            break  # waits at most the limit, so a hang fails with what was seen
        try:
            seen += os.read(fd, 4096)
        except OSError:
            break
    assert marker in seen, seen
read_until(b"API key for openai (not shown): ")
os.write(fd, b"sk-typed-at-tty\r")
read_until(b"saved the openai key")
_, status = os.waitpid(pid, 0)
assert os.waitstatus_to_exitcode(status) == 0, seen
assert b"sk-typed" not in seen, seen
PY
grep -q '"sk-typed-at-tty"' "$AVA_HOME/auth.json" || fail "the key typed at the terminal was not saved"

# Logout: a name is needed when several are saved.
run 2 "" auth logout
grep -q "keys are saved for: anthropic openai" "$work/err" || fail "logout: $(cat "$work/err")"
run 2 "" auth logout --all openai
run 0 "" auth logout openai
run 0 "" auth logout
grep -q "removed the anthropic key" "$work/out" || fail "logout: $(cat "$work/out")"
run 1 "" auth logout anthropic
grep -q "no key is saved for 'anthropic'" "$work/err" || fail "logout again: $(cat "$work/err")"
run 0 "" auth status
grep -q "no provider is configured" "$work/out" || fail "empty status: $(cat "$work/out")"

# The Codex CLI's ChatGPT login is used when nothing else is configured.
mkdir -p "$CODEX_HOME"
printf '{"tokens": {"access_token": "at", "refresh_token": "rt", "account_id": "a1"}, "last_refresh": "2026-01-01T00:00:00Z"}\n' \
  > "$CODEX_HOME/auth.json"
run 0 "" auth status
grep -q "^codex .*the Codex CLI's login .*chatgpt.com/backend-api/codex  (in use)" "$work/out" \
  || fail "codex status: $(cat "$work/out")"
run 2 $'k\n' auth set-key codex
grep -q "the codex provider takes no key" "$work/err" || fail "codex key: $(cat "$work/err")"
echo "auth_cli: ok"
