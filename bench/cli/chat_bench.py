#!/usr/bin/env python3
"""`ava chat` start-up and first streamed character, on a pseudo-terminal.

For each run: start `ava chat --provider mock --no-mcp --in-process` in a
fresh AVA_HOME on a PTY, measure the wall time from exec to the prompt
("› "), type a line, and measure the time from Enter to the first character
of the answer (the mock streams its echo at once, so this is Ava's own
overhead: the input made durable, the turn started, the delta rendered),
then Ctrl-D. Prints medians and quartiles over RUNS runs.

    bench/cli/chat_bench.py [AVA_BINARY] [RUNS]      (default build/release/src/app/ava, 20)
"""
import os
import pty
import select
import shutil
import statistics
import sys
import tempfile
import time

ava = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build/release/src/app/ava")
runs = int(sys.argv[2]) if len(sys.argv) > 2 else 20
PROMPT = "› ".encode()
ANSWER = b"zebra-42"


def read_until(fd, needle, times, deadline):
    """Reads until `needle` has appeared `times` times; returns the time."""
    seen = b""
    while time.perf_counter() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.05)
        if not ready:
            continue
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
        if seen.count(needle) >= times:
            return time.perf_counter()
    raise SystemExit(f"timed out waiting for {needle!r}; saw {seen[-400:]!r}")


def one_run():
    home = tempfile.mkdtemp(prefix="ava-chat-bench-")
    project = os.path.join(home, "project")
    os.mkdir(project)
    env = dict(os.environ, AVA_HOME=os.path.join(home, "home"), TERM="xterm-256color")
    for name in ("AVA_PROVIDER", "AVA_MODEL", "AVA_MOCK_SCRIPT", "NO_COLOR"):
        env.pop(name, None)
    started = time.perf_counter()
    pid, fd = pty.fork()
    if pid == 0:
        os.chdir(project)
        os.execve(ava, [ava, "chat", "--provider", "mock", "--no-mcp", "--in-process"], env)
    try:
        at_prompt = read_until(fd, PROMPT, 1, started + 10)
        sent = time.perf_counter()
        os.write(fd, b"say " + ANSWER + b"\r")
        # The terminal echoes the typed line first; the answer (the mock's
        # echo of it) is the second time the word shows.
        first = read_until(fd, ANSWER, 2, sent + 10)
        read_until(fd, PROMPT, 1, sent + 10)  # the turn is over: Ctrl-D at the prompt
        os.write(fd, b"\x04")
        os.waitpid(pid, 0)
    finally:
        os.close(fd)
        shutil.rmtree(home, ignore_errors=True)
    return (at_prompt - started) * 1000, (first - sent) * 1000


def summary(name, values):
    q = statistics.quantiles(values, n=4)
    print(f"{name}: median {statistics.median(values):.1f} ms "
          f"(quartiles {q[0]:.1f}-{q[2]:.1f}, {len(values)} runs)")


one_run()  # warm the page cache
results = [one_run() for _ in range(runs)]
summary("ava chat start-up to prompt", [r[0] for r in results])
summary("Enter to first streamed character", [r[1] for r in results])
