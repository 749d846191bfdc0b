#!/usr/bin/env bash
# `ava permissions`: the effective rules of the three settings files and the
# flags, with their sources; a malformed rule is an error naming its file.
#   permissions_cli.sh AVA
set -euo pipefail
ava=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export AVA_HOME=$work/home
mkdir -p "$AVA_HOME" "$work/p/.ava"
cat > "$AVA_HOME/settings.json" <<'JSON'
{"permissions": {"deny": ["bash(rm -rf *)"], "defaultMode": "acceptEdits"}}
JSON
cat > "$work/p/.ava/settings.json" <<'JSON'
{"permissions": {"allow": ["Bash(git status*)", "edit(src/**)"]}}
JSON
fail() { echo "permissions_cli: $*" >&2; exit 1; }

out=$("$ava" permissions --cwd "$work/p" --json)
[[ $(jq -r .mode <<<"$out") == accept-edits ]] || fail "mode: $out"
[[ $(jq -r .modeSource <<<"$out") == "$AVA_HOME/settings.json" ]] || fail "mode source: $out"
# The committed project file may not allow on its own: its allow rules are
# reported as ignored until the user trusts the project.
[[ $(jq -r '.rules | length' <<<"$out") == 1 ]] || fail "rules: $out"
[[ $(jq -r '.rules[] | select(.list == "deny") | .rule' <<<"$out") == "bash(rm -rf *)" ]] || fail "deny: $out"
[[ $(jq -r '.projectTrusted' <<<"$out") == false ]] || fail "trusted: $out"
[[ $(jq -r '[.ignored[].setting] | join(",")' <<<"$out") == "allow Bash(git status*),allow edit(src/**)" ]] \
  || fail "ignored: $out"
grep -q "^Ignored (the project is not in trustedProjects" <<<"$("$ava" permissions --cwd "$work/p")" \
  || fail "the text output does not say what it ignored"
cat > "$AVA_HOME/settings.json" <<JSON
{"permissions": {"deny": ["bash(rm -rf *)"], "defaultMode": "acceptEdits"}, "trustedProjects": ["$work/p"]}
JSON
out=$("$ava" permissions --cwd "$work/p" --json)
[[ $(jq -r '.rules | length' <<<"$out") == 3 ]] || fail "trusted rules: $out"
[[ $(jq -r '.ignored | length' <<<"$out") == 0 ]] || fail "trusted, still ignored: $out"

text=$("$ava" permissions --cwd "$work/p" --permission-mode plan --disallowed-tools "mcp__x__*")
grep -q "^Mode: plan (--permission-mode)" <<<"$text" || fail "flag mode: $text"
grep -q "deny   mcp__x__\* *(--disallowed-tools)" <<<"$text" || fail "flag rule: $text"
# Deny rules are listed first, the order they are checked in.
[[ $(grep -m1 -oE '^  (deny|ask|allow)' <<<"$text") == "  deny" ]] || fail "order: $text"

echo '{"permissions": {"allow": ["bash("]}}' > "$work/p/.ava/settings.local.json"
set +e
err=$("$ava" permissions --cwd "$work/p" 2>&1 >/dev/null)
code=$?
set -e
[[ $code == 1 ]] || fail "a malformed rule exits $code"
grep -q "^ava permissions: .*settings.local.json.*bash(" <<<"$err" || fail "message: $err"
echo "permissions_cli: ok"
