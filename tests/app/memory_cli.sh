#!/usr/bin/env bash
# `ava memory list|dream`: the notes, and consolidation over recent sessions
# (the mock provider in echo mode answers): the run gets the sessions'
# digests and the notes' index, only the read and memory tools, and plan mode
# unless --apply; subagent logs and earlier dreams are not learned from.
#   memory_cli.sh AVA
set -euo pipefail
ava=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export AVA_HOME=$work/home
unset AVA_PROFILE
mkdir -p "$AVA_HOME/memory" "$work/p/.git" "$work/other"
cd "$work/p"
fail() { echo "memory_cli: $*" >&2; exit 1; }

printf -- '---\ndescription: Prefers tabs\n---\nTabs, width 4.\n' > "$AVA_HOME/memory/style.md"
out=$("$ava" memory list --json)
jq -e '.notes | length == 1 and .[0].name == "style" and .[0].scope == "user"' <<<"$out" > /dev/null \
  || fail "list: $out"

[ "$("$ava" memory dream --provider mock)" = "No earlier sessions in $work/p to learn from." ] \
  || fail "dream without sessions"
"$ava" -p "we deploy with make ship" --provider mock > /dev/null
"$ava" -p "never touch vendor/" --provider mock > /dev/null
(cd "$work/other" && "$ava" -p "unrelated project" --provider mock > /dev/null)

"$ava" memory dream --provider mock --output-format stream-json > "$work/dream.jsonl"
init=$(head -n1 "$work/dream.jsonl")
jq -e '.permission_mode == "plan" and (.tools | sort) == ["memory", "read"]' <<<"$init" > /dev/null \
  || fail "dream run: $init"
input=$(jq -rs '[.[] | select(.type == "input")][0].text' "$work/dream.jsonl")
[[ "$input" == "Memory consolidation (ava memory dream): 2 recent sessions"* ]] || fail "input: $input"
[[ "$input" == *"User: never touch vendor/"*"User: we deploy with make ship"* ]] || fail "digests: $input"
[[ "$input" == *"- style (user): Prefers tabs"* ]] || fail "index: $input"
[[ "$input" != *"unrelated project"* ]] || fail "another project's session was read"
[ "$(tail -n1 "$work/dream.jsonl" | jq -r .outcome)" = completed ] || fail "outcome"

# A second dream does not learn from the first; --apply runs in auto.
"$ava" memory dream --provider mock --apply --sessions 3 --output-format stream-json > "$work/again.jsonl"
jq -e '.permission_mode == "auto"' <<<"$(head -n1 "$work/again.jsonl")" > /dev/null || fail "apply mode"
input=$(jq -rs '[.[] | select(.type == "input")][0].text' "$work/again.jsonl")
[[ "$input" == *"dream --apply): 2 recent sessions"* ]] || fail "earlier dream learned from: $input"
set +e
"$ava" memory dream --sessions 0 > /dev/null 2>&1; code=$?
set -e
[ "$code" = 2 ] || fail "--sessions 0 exit $code"
echo ok
