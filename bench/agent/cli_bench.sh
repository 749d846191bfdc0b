#!/usr/bin/env bash
# `ava` process figures: start-up (`ava --version`, `ava -p --version`) and a
# two-step tool scenario (the model calls bash, then answers) against the
# loopback fake provider over HTTP. Prints medians of wall time, CPU time
# (user+sys, the bash child included) and peak RSS over RUNS runs. Needs
# python3 (microsecond rusage) and GNU time (peak RSS).
#   bench/agent/cli_bench.sh [BUILD_DIR] [RUNS]
set -euo pipefail
build=${1:-build/release} runs=${2:-20}
ava=$build/src/app/ava fake=$build/tests/transport/ava-fake-provider
work=$(mktemp -d)
trap 'kill "${fake_pid:-}" 2>/dev/null || true; rm -rf "$work"' EXIT

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
# Runs a command; writes "wall_s user_s sys_s maxrss_kib" to the file $1
# (getrusage of the child: microsecond CPU times, unlike GNU time's 10 ms).
timed() {
  local out=$1; shift
  python3 - "$out" "$@" <<'PY'
import os, resource, subprocess, sys, time
out, cmd = sys.argv[1], sys.argv[2:]
start = time.perf_counter()
with open(os.devnull, "w") as null:
    # GNU time measures the peak RSS: a child forked from Python would
    # count Python's own pages until its exec.
    rss_file = out + ".rss"
    pid = subprocess.Popen(["/usr/bin/time", "-f", "%M", "-o", rss_file] + cmd,
                           stdout=null if os.environ.get("BENCH_KEEP_STDOUT") is None else None).pid
    _, status, usage = os.wait4(pid, 0)
wall = time.perf_counter() - start
rss = open(rss_file).read().split()[-1]
open(out, "w").write(f"{wall} {usage.ru_utime} {usage.ru_stime} {rss}\n")
sys.exit(os.waitstatus_to_exitcode(status))
PY
}
measure() {  # label, command...
  local label=$1; shift
  : > "$work/times"
  for _ in $(seq "$runs"); do
    timed "$work/t" "$@" 2>> "$work/stderr"
    cat "$work/t" >> "$work/times"
  done
  local wall cpu rss
  wall=$(awk '{print $1*1000}' "$work/times" | median)
  cpu=$(awk '{print ($2+$3)*1000}' "$work/times" | median)
  rss=$(awk '{print $4/1024}' "$work/times" | median)
  printf '%-28s wall %6.1f ms   cpu %6.1f ms   peak RSS %5.1f MiB\n' "$label" "$wall" "$cpu" "$rss"
}

cat > "$work/script.json" <<'JSON'
{"responses": [
  {"steps": [{"toolCall": {"id": "c1", "name": "bash", "arguments": {"command": "echo hi"}}}],
   "usage": {"inputTokens": 1000, "outputTokens": 10}},
  {"steps": [{"text": "It printed hi."}], "usage": {"inputTokens": 1100, "outputTokens": 5}}
]}
JSON
export AVA_HOME=$work/home NO_PROXY='*' no_proxy='*'
mkdir -p "$work/project"
measure "ava --version" "$ava" --version
measure "ava -p --version" "$ava" -p --version

# A fresh fake provider per run: each serves the two scripted responses.
: > "$work/times"
for _ in $(seq "$runs"); do
  "$fake" --format anthropic --script "$work/script.json" > "$work/fake.out" &
  fake_pid=$!
  for _ in $(seq 100); do [ -s "$work/fake.out" ] && break; sleep 0.02; done
  ANTHROPIC_API_KEY=bench ANTHROPIC_BASE_URL=$(head -n1 "$work/fake.out") BENCH_KEEP_STDOUT=1 \
    timed "$work/t" "$ava" -p "run echo hi" --provider anthropic --cwd "$work/project" \
    > "$work/answer" 2>> "$work/stderr"
  grep -q "It printed hi." "$work/answer" || { echo "scenario failed"; cat "$work/stderr"; exit 1; }
  cat "$work/t" >> "$work/times"
  kill "$fake_pid"; wait "$fake_pid" 2>/dev/null || true
done
wall=$(awk '{print $1*1000}' "$work/times" | median)
cpu=$(awk '{print ($2+$3)*1000}' "$work/times" | median)
rss=$(awk '{print $4/1024}' "$work/times" | median)
printf '%-28s wall %6.1f ms   cpu %6.1f ms   peak RSS %5.1f MiB\n' "ava -p two-step (bash)" "$wall" "$cpu" "$rss"
