#!/usr/bin/env bash
# CLI11's parse errors in Ava's form: "ava: ..." on stderr and exit 2, a
# mistyped command with "did you mean", help and version still exit 0.
#   cli_errors.sh AVA
set -euo pipefail
ava=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export AVA_HOME="$work/home"
fail() { echo "FAIL: $*"; exit 1; }

expect() {  # CODE MESSAGE ARGS...
  local code=$1 message=$2; shift 2
  set +e
  "$ava" "$@" > "$work/out" 2> "$work/err"; local got=$?
  set -e
  [ "$got" = "$code" ] || fail "ava $*: exit $got, expected $code: $(cat "$work/err")"
  grep -qF -- "$message" "$work/err" || fail "ava $*: stderr $(cat "$work/err"), expected: $message"
}

expect 2 "ava: unknown command 'modles'; did you mean 'models'?" modles
expect 2 "did you mean 'analytics'?" analytcs list
expect 2 "did you mean 'session'?" sesion
expect 2 "ava: The following argument was not expected: --no-such-flag" --no-such-flag
expect 2 "Run 'ava --help'" --no-such-flag
expect 2 "ava: --max-steps: Value zero not in range 1 to 100000" -p hi --max-steps zero
expect 2 "ava: --max-steps: Value 0 not in range 1 to 100000" -p hi --max-steps 0
expect 2 "ava: " mcp --bogus
# A prompt without -p is still that, not a typo: the message says -p.
expect 2 "a prompt needs -p" fix the login bug
# Flags where they do nothing are refused, not ignored.
expect 2 "ava: --output-format: applies to -p only" --output-format json
expect 2 "ava: --verbose: applies to -p only" -c --verbose
expect 2 "ava: --model: applies to -p, ava chat and ava -c" --model x
expect 2 "ava: --port: does not apply to -p" -p hi --port 5
expect 2 "ava: --include-partial-messages: applies to --output-format stream-json only" \
  -p hi --include-partial-messages
# No stray CLI11 exit codes (105-109) and no unprefixed lines.
if grep -qv "^ava: \|^Run 'ava --help'" "$work/err"; then fail "unprefixed: $(cat "$work/err")"; fi

grep -q "^ava " <<< "$("$ava" --version)" || fail "--version"
"$ava" --help > "$work/help" || fail "--help exits 0"
# Help in groups, with examples, the environment and the exit codes.
for section in "Prompt (-p):" "Agent (-p, ava chat, -c):" "Server (bare ava, --serve):" \
               "Examples:" "Environment:" "Exit codes:" "chat"; do
  grep -qF -- "$section" "$work/help" || fail "--help lacks '$section'"
done
echo "cli errors: ok"
