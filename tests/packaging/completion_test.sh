#!/usr/bin/env bash
# The bash completion offers every command `ava --help` lists, and every
# subcommand of each: a command added without its completion fails here.
#   completion_test.sh AVA COMPLETION_FILE
set -euo pipefail
ava=$1 completion=$2
export AVA_HOME=$(mktemp -d)
trap 'rm -rf "$AVA_HOME"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
subcommands() { "$@" --help | sed -n '/^Subcommands:/,/^$/p' | awk 'NR > 1 && /^  [a-z]/ {sub(/,$/, "", $1); print $1}'; }

# shellcheck source=/dev/null
source "$completion"
complete_words() {  # WORDS...: what the completion offers after them
  COMP_WORDS=(ava "$@" "")
  COMP_CWORD=${#COMP_WORDS[@]}
  COMP_CWORD=$((COMP_CWORD - 1))
  COMPREPLY=()
  _ava
  printf '%s\n' "${COMPREPLY[@]}"
}

top=$(subcommands "$ava")
[ -n "$top" ] || fail "ava --help lists no commands"
offered=$(complete_words)
for command in $top; do
  grep -qx "$command" <<< "$offered" || fail "the completion does not offer 'ava $command'"
  offered_sub=$(complete_words "$command")
  for sub in $(subcommands "$ava" "$command"); do
    grep -qx "$sub" <<< "$offered_sub" ||
      fail "the completion does not offer 'ava $command $sub'"
  done
done
echo "completion: ok ($(wc -w <<< "$top") commands)"
