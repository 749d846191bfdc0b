#!/usr/bin/env python3
"""Interactive terminals, for docs/performance.md: a real ava-backend, a
project, GET /api/projects/{id}/terminal as a WebSocket and the user's login
shell on its pty.

  throughput  `cat` of a SIZE_MB file of text lines through the pty and the
              WebSocket to this client: MB/s of the file, median of ROUNDS
  echo        one typed key to its echo on the screen (the shell's line
              editor echoes it), median and p95 of KEYS keys

    bench/terminal/terminal_bench.py [BUILD_DIR] [throughput|echo ...]
    env: SIZE_MB (default 100), ROUNDS (3), KEYS (500)
"""

import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "app"))
from backend_harness import FakeProvider, Home, Server  # noqa: E402
from websocket_client import BINARY, CLOSE, WebSocket  # noqa: E402

BUILD = sys.argv[1] if len(sys.argv) > 1 and not sys.argv[1].isalpha() else "build/release"
SELECTED = [a for a in sys.argv[1:] if a.isalpha()] or ["throughput", "echo"]
BACKEND = os.path.join(BUILD, "src/app/ava-backend")
FAKE = os.path.join(BUILD, "tests/transport/ava-fake-provider")
SIZE_MB = int(os.environ.get("SIZE_MB", "100"))
ROUNDS = int(os.environ.get("ROUNDS", "3"))
KEYS = int(os.environ.get("KEYS", "500"))


def read_until(socket, marker, budget_s=600):
    """Bytes received until `marker` appears (the tail is searched only)."""
    received = 0
    tail = b""
    deadline = time.monotonic() + budget_s
    while marker not in tail:
        if time.monotonic() > deadline:
            raise TimeoutError("no %r" % marker)
        opcode, payload = socket.receive()
        if opcode == CLOSE:
            raise ConnectionError("the terminal closed")
        if opcode == BINARY:
            received += len(payload)
            tail = (tail + payload)[-4096:]
    return received


def throughput(socket, folder):
    path = os.path.join(folder, "big.txt")
    line = b"".join(b"%d " % i for i in range(20))[:79] + b"\n"
    with open(path, "wb") as f:
        block = line * 1000
        for _ in range(SIZE_MB * 1024 * 1024 // len(block)):
            f.write(block)
    size = os.path.getsize(path)
    rates = []
    for _ in range(ROUNDS):
        started = time.monotonic()
        socket.send(b"cat big.txt; echo DONE-$((40+2))\n")
        received = read_until(socket, b"DONE-42\r\n")
        elapsed = time.monotonic() - started
        rates.append(size / elapsed / 1e6)
        print("  cat %.0f MB: %.2f s, %.0f MB on the socket (CRLF), %.0f MB/s" % (
            size / 1e6, elapsed, received / 1e6, size / elapsed / 1e6), flush=True)
    os.unlink(path)
    print("throughput: median %.0f MB/s of file over %d rounds" % (statistics.median(rates),
                                                                  ROUNDS))


def echo(socket):
    samples = []
    for i in range(KEYS):
        key = b"abcdefghij"[i % 10:i % 10 + 1]
        started = time.monotonic()
        socket.send(key)
        read_until(socket, key, 10)
        samples.append((time.monotonic() - started) * 1000)
        if i % 50 == 49:
            socket.send(b"\x15")  # ^U: clear the line
            time.sleep(0.05)
    samples.sort()
    print("echo: median %.3f ms, p95 %.3f ms over %d keys" % (
        statistics.median(samples), samples[int(len(samples) * 0.95)], KEYS))


def main():
    fake = FakeProvider(FAKE)
    home = Home(fake)
    home.env["HOME"] = home.project
    server = Server(home, [BACKEND, "--port", "0"])
    try:
        project = server.ok("POST", "/api/projects", {"path": home.project})["id"]
        socket = WebSocket(server.port, "/api/projects/%s/terminal?cols=120&rows=40" % project,
                           server.auth_headers())
        socket.send(b"PS1='$ '; stty -ixon; echo READY-$((1+1))\n")
        read_until(socket, b"READY-2\r\n")
        if "throughput" in SELECTED:
            throughput(socket, home.project)
        if "echo" in SELECTED:
            echo(socket)
        socket.close()
    finally:
        server.stop()
        fake.stop()
        home.cleanup()


if __name__ == "__main__":
    main()
