#!/usr/bin/env bash
# Profiles: AVA_HOME/profiles/NAME.json over settings.json, chosen by
# --profile or AVA_PROFILE, as `ava settings show`, `ava permissions` and
# `ava -p` see them; a missing or malformed profile is an error, not ignored.
#   settings_cli.sh AVA
set -euo pipefail
ava=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export AVA_HOME=$work/home
unset AVA_PROFILE
mkdir -p "$AVA_HOME/profiles" "$work/p"
cd "$work/p"
cat > "$AVA_HOME/settings.json" <<'JSON'
{"provider": "mock", "model": "home-model",
 "providers": {"work": {"kind": "openai", "baseUrl": "http://127.0.0.1:9/v1", "headers": {"X-Token": "s3cret"}}},
 "permissions": {"allow": ["bash(git status*)"], "defaultMode": "ask"}}
JSON
cat > "$AVA_HOME/profiles/laptop.json" <<'JSON'
{"model": "laptop-model", "permissions": {"deny": ["bash(rm -rf *)"], "defaultMode": "plan"}}
JSON
fail() { echo "settings_cli: $*" >&2; exit 1; }

# Without a profile: settings.json alone.
out=$("$ava" settings show --json)
jq -e '.profile == null and .settings.model == "home-model"' <<<"$out" > /dev/null || fail "plain: $out"

# With one: what it names wins, and says where it came from; lists add up.
out=$("$ava" --profile laptop settings show --json)
jq -e --arg p "$AVA_HOME/profiles/laptop.json" --arg s "$AVA_HOME/settings.json" '
  .profile == "laptop" and .settings.model == "laptop-model" and .sources.model == $p
  and .settings.provider == "mock" and .sources.provider == $s
  and .settings.permissions.defaultMode == "plan"
  and .settings.permissions.allow == ["bash(git status*)"]
  and .settings.permissions.deny == ["bash(rm -rf *)"]
  and .settings.providers.work.headers["X-Token"] == "(hidden)"' <<<"$out" > /dev/null \
  || fail "profile overlay: $out"
text=$(AVA_PROFILE=laptop "$ava" settings show)
grep -q "^model = \"laptop-model\"   ($AVA_HOME/profiles/laptop.json)" <<<"$text" || fail "text: $text"
! grep -q s3cret <<<"$text" || fail "a header's secret was printed"

# The permission check reads the same layers.
perm=$(AVA_PROFILE=laptop "$ava" permissions --json)
jq -e --arg p "$AVA_HOME/profiles/laptop.json" '.mode == "plan" and .modeSource == $p
  and ([.rules[].rule] | sort) == ["bash(git status*)", "bash(rm -rf *)"]' <<<"$perm" > /dev/null \
  || fail "permissions: $perm"

# ava -p runs with the profile's model.
"$ava" --profile laptop -p "hello" --output-format stream-json > "$work/run.jsonl"
[ "$(head -n1 "$work/run.jsonl" | jq -r .model)" = laptop-model ] || fail "-p model: $(head -n1 "$work/run.jsonl")"

# A profile that is not there, or a bad name, stops the command.
set +e
message=$("$ava" --profile nothere settings show 2>&1); code=$?
set -e
[ "$code" = 1 ] && [[ "$message" == *"profile nothere has no settings file"* ]] || fail "missing ($code): $message"
set +e
message=$("$ava" --profile ../x settings show 2>&1); code=$?
set -e
[ "$code" != 0 ] && [[ "$message" == *"a profile name is"* ]] || fail "bad name ($code): $message"
echo '{"model": ' > "$AVA_HOME/profiles/broken.json"
set +e
message=$("$ava" --profile broken settings show 2>&1); code=$?
set -e
[ "$code" = 1 ] && [[ "$message" == *"broken.json"* ]] || fail "malformed ($code): $message"
echo ok
