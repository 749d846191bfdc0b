#!/usr/bin/env bash
# The dev component as an embedder uses it: installed from this build tree
# into a private prefix, examples/embed configured against it with
# find_package(Ava) and linked to Ava::agent, then run: an agent with the
# example's own tool and system prompt, on the mock provider.
#   embed_example.sh BUILD_DIR SOURCE_DIR CXX_COMPILER "CXX_FLAGS"
set -euo pipefail
build=$1 source=$2 compiler=$3 flags=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
prefix="$work/prefix"

cmake --install "$build" --component dev --prefix "$prefix" > "$work/install.log" \
  || fail "install: $(tail -20 "$work/install.log")"
[ -f "$prefix/lib/cmake/Ava/AvaConfig.cmake" ] || fail "no AvaConfig.cmake"
[ -f "$prefix/include/ava/agent/agent.hpp" ] || fail "no agent headers"
ls "$prefix"/lib/ava/libava_agent.a > /dev/null || fail "no libava_agent.a"
# Only the embeddable packages: no server, UI or CLI pieces.
for other in httpd server cli desktop; do
  [ ! -e "$prefix/include/ava/$other" ] || fail "include/ava/$other was installed"
done

launcher=()
command -v ccache > /dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S "$source/examples/embed" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_CXX_COMPILER="$compiler" -DCMAKE_CXX_FLAGS="$flags" \
  -DCMAKE_EXE_LINKER_FLAGS="$flags" "${launcher[@]}" > "$work/configure.log" 2>&1 \
  || fail "configure: $(tail -30 "$work/configure.log")"
cmake --build "$work/build" > "$work/build.log" 2>&1 || fail "build: $(tail -40 "$work/build.log")"

# The mock provider calls the example's tool, then answers with its result.
cat > "$work/script.json" <<'JSON'
{"responses": [
  {"steps": [{"toolCall": {"id": "call_1", "name": "shout", "arguments": {"text": "hello"}}}]},
  {"steps": [{"text": "It says HELLO."}]}
]}
JSON
mkdir -p "$work/home" "$work/project"
out=$(cd "$work/project" && env -u ANTHROPIC_API_KEY -u OPENAI_API_KEY AVA_HOME="$work/home" \
  AVA_PROVIDER=mock AVA_MOCK_SCRIPT="$work/script.json" "$work/build/shout-agent" "make this loud: hello") \
  || fail "shout-agent failed: $out"
echo "$out"
grep -q "^shout -> HELLO$" <<< "$out" || fail "the example's tool did not run"
grep -q "^assistant: It says HELLO.$" <<< "$out" || fail "no answer"
grep -q "^turn ended: completed$" <<< "$out" || fail "the turn did not complete"
ls "$work"/home/embedded/shout-*.jsonl.zst > /dev/null || fail "no session log"
# A durable log like any conversation's, the tool's result in it.
zstdcat "$work"/home/embedded/shout-*.jsonl.zst > "$work/log.jsonl" || fail "the log does not decompress"
grep -q '"session_start"' "$work/log.jsonl" || fail "no session_start in the log"
grep -q '"HELLO"' "$work/log.jsonl" || fail "the tool result is not in the log"
echo "embed_example: ok"
