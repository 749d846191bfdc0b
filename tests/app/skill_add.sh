#!/usr/bin/env bash
# Skills from where users keep them: `ava skill add` from a folder and from a
# git repository (file:// URL, cloned for real), into the user's or the
# project's skills; ~/.claude/skills and .claude/skills read, and switched off
# by settings.json "skills": {"claudeFolders": false}.
#   skill_add.sh AVA
set -euo pipefail
ava=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export AVA_HOME=$work/home HOME=$work/user
unset AVA_PROFILE
mkdir -p "$AVA_HOME" "$HOME" "$work/p/.git"
cd "$work/p"
fail() { echo "skill_add: $*" >&2; exit 1; }
skill() {  # skill FOLDER NAME DESCRIPTION
  mkdir -p "$1"
  printf -- '---\nname: %s\ndescription: %s\n---\nDo it.\n' "$2" "$3" > "$1/SKILL.md"
}
names() { "$ava" skill list --json | jq -r '[.skills[].name] | join(",")'; }

# One skill from a folder, with a helper file; a link in it is not copied.
skill "$work/src/lint" lint "Lint the code"
echo 'echo lint' > "$work/src/lint/run.sh"
ln -s /etc/passwd "$work/src/lint/passwd"
grep -q "Added skill lint" <<< "$("$ava" skill add "$work/src/lint")" || fail "add folder"
[ -f "$AVA_HOME/skills/lint/run.sh" ] || fail "helper file not copied"
[ ! -e "$AVA_HOME/skills/lint/passwd" ] || fail "a link was copied"
[ "$(names)" = lint ] || fail "list: $(names)"
set +e
message=$("$ava" skill add "$work/src/lint" 2>&1); code=$?
set -e
[ "$code" = 1 ] && [[ "$message" == *"already in"* ]] || fail "second add ($code): $message"
"$ava" skill add --force "$work/src/lint" > /dev/null || fail "--force"

# A repository of skills, cloned from a file:// URL, into the project.
repo=$work/repo
skill "$repo/skills/review" review "Review a change"
skill "$repo/skills/deploy" deploy "Deploy the app"
git -C "$repo" init -q && git -C "$repo" add -A && \
  git -C "$repo" -c user.name=t -c user.email=t@t commit -qm skills
out=$("$ava" skill add --project "file://$repo")
[[ "$out" == *"Added skill deploy"*"Added skill review"* ]] || fail "git add: $out"
[ -f "$work/p/.ava/skills/review/SKILL.md" ] || fail "not in the project"
[ ! -e "$work/p/.ava/skills/review/.git" ] || fail ".git copied"
[ "$(names)" = deploy,lint,review ] || fail "list after git: $(names)"
set +e
message=$("$ava" skill add "file://$work/nothing" 2>&1); code=$?
set -e
[ "$code" = 1 ] && [[ "$message" == *"git clone"* ]] || fail "bad URL ($code): $message"

# Claude Code's folders, and the switch that turns them off.
skill "$HOME/.claude/skills/explain" explain "Explain code"
skill "$work/p/.claude/skills/tidy" tidy "Tidy up"
[ "$(names)" = deploy,explain,lint,review,tidy ] || fail "claude folders: $(names)"
echo '{"skills": {"claudeFolders": false}}' > "$AVA_HOME/settings.json"
[ "$(names)" = deploy,lint,review ] || fail "switched off: $(names)"
echo ok
