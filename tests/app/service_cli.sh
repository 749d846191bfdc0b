#!/usr/bin/env bash
# `ava service`: the systemd unit it would install passes systemd-analyze
# verify, the launchd plist parses as a property list, and where no systemd
# user session exists (this test takes it away) install refuses clearly,
# writes nothing and points at `ava backend start`.
#   service_cli.sh AVA
set -euo pipefail
ava=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HOME="$work/user" AVA_HOME="$work/user/.ava" XDG_CONFIG_HOME="$work/user/.config"
mkdir -p "$HOME"
# No user bus: systemctl --user cannot reach a manager, whatever this machine runs.
unset XDG_RUNTIME_DIR DBUS_SESSION_BUS_ADDRESS
fail() { echo "FAIL: $*"; exit 1; }

run() {  # CODE ARGS... : runs ava, checks the exit code
  local code=$1; shift
  set +e
  "$ava" "$@" > "$work/out" 2> "$work/err"; local got=$?
  set -e
  [ "$got" = "$code" ] || fail "ava $*: exit $got, expected $code: $(cat "$work/out" "$work/err")"
}

# The unit for the default home: no AVA_HOME in it, the backend beside ava.
run 0 service install --print
unit_path=$(head -1 "$work/out" | sed 's/^# //')
[ "$unit_path" = "$XDG_CONFIG_HOME/systemd/user/ava-backend.service" ] || fail "unit path $unit_path"
tail -n +2 "$work/out" > "$work/ava-backend.service"
backend=$(dirname "$ava")/ava-backend
grep -qxF "ExecStart=\"$backend\" --log-level info" "$work/ava-backend.service" ||
  fail "ExecStart: $(grep ExecStart "$work/ava-backend.service")"
grep -q AVA_HOME "$work/ava-backend.service" && fail "the default home needs no AVA_HOME"
grep -qx "Restart=on-failure" "$work/ava-backend.service" || fail "no Restart=on-failure"
if command -v systemd-analyze > /dev/null; then
  systemd-analyze verify "$work/ava-backend.service" > "$work/verify" 2>&1 ||
    fail "systemd-analyze verify: $(cat "$work/verify")"
  if grep -qi "ava-backend.service" "$work/verify"; then fail "verify: $(cat "$work/verify")"; fi
else
  fail "systemd-analyze is missing (scripts/setup installs systemd)"
fi

# Another home gets its own unit, with AVA_HOME.
AVA_HOME="$work/other home" run 0 service install --print
grep -q '^# .*/ava-backend-[0-9a-f]\{8\}\.service$' "$work/out" || fail "other home: $(head -1 "$work/out")"
grep -qxF "Environment=\"AVA_HOME=$work/other home\"" "$work/out" || fail "other home's Environment"

# The launchd agent, checked as a property list.
run 0 service install --print --manager launchd
tail -n +2 "$work/out" > "$work/agent.plist"
python3 - "$work/agent.plist" "$backend" "$AVA_HOME" <<'PY'
import plistlib, sys
with open(sys.argv[1], "rb") as f:
    plist = plistlib.load(f)
assert plist["Label"] == "dev.ava.ava-backend", plist
assert plist["ProgramArguments"][0] == sys.argv[2], plist
assert plist["RunAtLoad"] is True and plist["KeepAlive"] == {"SuccessfulExit": False}, plist
assert plist["StandardErrorPath"] == sys.argv[3] + "/logs/backend.log", plist
PY
run 2 service install --manager launchd
grep -q "only goes with --print" "$work/err" || fail "--manager without --print: $(cat "$work/err")"

# No systemd user session: a clear refusal that names the fallback.
run 1 service install
grep -q "systemd user services are not available here" "$work/err" || fail "install: $(cat "$work/err")"
grep -q "ava backend start" "$work/err" || fail "no fallback named: $(cat "$work/err")"
[ ! -e "$unit_path" ] || fail "a refused install wrote $unit_path"
run 3 service status
grep -q "not installed" "$work/out" || fail "status: $(cat "$work/out")"
run 3 service status --json
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["installed"] is False and d["active"] is False and d["name"]=="ava-backend", d' "$work/out"
run 1 service uninstall
grep -q "no service is installed" "$work/err" || fail "uninstall: $(cat "$work/err")"
echo "service_cli: ok"
