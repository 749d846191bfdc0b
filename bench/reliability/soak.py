#!/usr/bin/env python3
"""Soak: one real ava-backend under steady, faulty load for a long time, its
RSS, open descriptors and threads sampled (docs/reliability.md, "Soak").

The load: C conversations, each driven by its own client that sends the next
input when the last turn ends (plain answers, `bash` calls, slow streamed
answers, some aborted mid-stream, calls to an MCP server from npm's SDK that
sometimes exits in the middle of a call and is restarted, and a /compact
every 40 turns so that each conversation's context stays bounded); SSE
subscribers that connect to a random conversation from a random point and
drop after a moment; a fake provider that fails 5 % of requests (half 529
overloaded, half a stream cut after its first bytes).

Checked: every turn ends (none hangs past --turn-timeout); every error a
turn records comes from an injected fault; every API call answers 2xx. The
samples are printed as a table and written to --out as JSON; "flat" compares
the median of the second quarter of the run with that of the last quarter.

    soak.py AVA AVA_BACKEND FAKE_PROVIDER MCP_SERVERS_DIR [--minutes 60]
            [--conversations 20] [--sample-seconds 15] [--seed S] [--out FILE]
"""

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests",
                                "app"))
from backend_harness import EventStream, Home, Server, check  # noqa: E402

# What a turn's error may say when it comes from an injected fault.
INJECTED = ("529", "verloaded", "stream ended", "cut", "closed", "end of stream", "eof",
            "partial message",
            "connection", "exit-now", "exited", "mcp", "aborted", "truncated", "protocol")


class FaultyProvider:
    def __init__(self, binary, percent, seed):
        self.process = subprocess.Popen(
            [binary, "--format", "anthropic", "--echo", "--fail-percent", str(percent),
             "--seed", str(seed)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.url = self.process.stdout.readline().strip()
        check(self.url.startswith("http://"), "fake provider did not start")
        self.injected = 0
        self.reader = threading.Thread(target=self._count, daemon=True)
        self.reader.start()

    def _count(self):
        for line in self.process.stderr:
            if "injected" in line:
                self.injected += 1

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=10)


class Tally:
    def __init__(self):
        self.lock = threading.Lock()
        self.turns = 0
        self.injected_errors = 0
        self.violations = []
        self.inputs = 0

    def add(self, **counts):
        with self.lock:
            for name, value in counts.items():
                setattr(self, name, getattr(self, name) + value)

    def violation(self, message):
        with self.lock:
            self.violations.append(message)
        print("VIOLATION: " + message, flush=True)


def settle(server, conversation, timeout):
    """The status once no turn runs; None when it never settles."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status = server.request("GET", "/api/conversations/%s/status" % conversation)
        if status.status == 200:
            body = status.json
            if body["state"] in ("idle", "closed") and not body["turnId"] \
                    and not body["pendingInputs"]:
                return body
        time.sleep(0.05)
    return None


def drive(server, conversation, rng, stop, tally, turn_timeout):
    number = 0
    last_error = ""
    while not stop.is_set():
        number += 1
        roll = rng.random()
        if number % 40 == 0:
            text = "/compact"
        elif roll < 0.45:
            text = "plain answer %d" % number
        elif roll < 0.65:
            text = "bash: echo soak-%d" % number
        elif roll < 0.80:
            text = "tool: mcp__soak__sleep " + json.dumps({"ms": rng.randint(5, 80)})
        elif roll < 0.83:
            text = "tool: mcp__soak__exit-now {}"
        else:
            text = "slow: 20: " + " ".join("w%d" % i for i in range(rng.randint(5, 30)))
        sent = server.request("POST", "/api/conversations/%s/input" % conversation,
                              {"text": text, "inputId": "soak-%s-%d" % (conversation[:8], number)})
        if sent.status != 202:
            tally.violation("input -> %d %s" % (sent.status, sent.raw[:200]))
            time.sleep(1)
            continue
        tally.add(inputs=1)
        if text.startswith("slow:") and rng.random() < 0.3:
            time.sleep(rng.uniform(0.05, 0.4))
            aborted = server.request("POST", "/api/conversations/%s/abort" % conversation)
            if aborted.status not in (200, 202, 204, 409):
                tally.violation("abort -> %d %s" % (aborted.status, aborted.raw[:200]))
        status = settle(server, conversation, turn_timeout)
        if status is None:
            tally.violation("conversation %s: a turn did not end within %d s" % (
                conversation, turn_timeout))
            continue
        tally.add(turns=1)
        error = status.get("lastError", "")
        if error and error != last_error:
            if any(part in error.lower() for part in (p.lower() for p in INJECTED)):
                tally.add(injected_errors=1)
            else:
                tally.violation("conversation %s: unexpected error: %s" % (conversation, error))
        last_error = error


def churn(server, conversations, rng, stop, tally):
    """SSE subscribers that come and go."""
    while not stop.is_set():
        conversation = rng.choice(conversations)
        status = server.request("GET", "/api/conversations/%s/status" % conversation)
        last = status.json.get("lastSeq", 0) if status.status == 200 else 0
        try:
            path = rng.choice(["/api/conversations/%s/events" % conversation, "/api/status/events"])
            stream = EventStream(server, path, last_event_id=rng.randint(0, max(last, 0)))
            time.sleep(rng.uniform(0.2, 3.0))
            stream.close()
        except Exception as error:  # noqa: BLE001 - every failure is a finding
            tally.violation("SSE subscriber: %s" % error)
            time.sleep(1)


def sample(pid):
    with open("/proc/%d/status" % pid) as f:
        fields = dict(line.split(":", 1) for line in f if ":" in line)
    return {"rss_mib": int(fields["VmRSS"].split()[0]) / 1024.0,
            "threads": int(fields["Threads"]),
            "fds": len(os.listdir("/proc/%d/fd" % pid))}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("ava")
    parser.add_argument("backend")
    parser.add_argument("fake")
    parser.add_argument("mcp_servers")
    parser.add_argument("--minutes", type=float, default=60)
    parser.add_argument("--conversations", type=int, default=20)
    parser.add_argument("--sample-seconds", type=float, default=15)
    parser.add_argument("--turn-timeout", type=int, default=300)
    parser.add_argument("--seed", type=int, default=int(time.time()))
    parser.add_argument("--out")
    args = parser.parse_args()
    print("soak: seed %d, %g min, %d conversations" % (args.seed, args.minutes,
                                                        args.conversations), flush=True)
    rng = random.Random(args.seed)
    fake = FaultyProvider(args.fake, 5, args.seed)
    home = Home(fake)
    server_script = os.path.join(os.path.abspath(args.mcp_servers), "ava-test-server.mjs")
    added = subprocess.run([args.ava, "mcp", "add", "soak", "--", "node", server_script],
                           env=home.env, capture_output=True, text=True)
    check(added.returncode == 0, "ava mcp add: " + added.stderr)
    server = Server(home, [args.backend, "--port", "0"])
    tally = Tally()
    stop = threading.Event()
    samples = []
    try:
        project = server.ok("POST", "/api/projects", {"path": home.project})["id"]
        conversations = [server.ok("POST", "/api/conversations", {"projectId": project})["id"]
                         for _ in range(args.conversations)]
        threads = [threading.Thread(target=drive, daemon=True, args=(
            server, c, random.Random(rng.random()), stop, tally, args.turn_timeout))
            for c in conversations]
        threads.append(threading.Thread(target=churn, daemon=True, args=(
            server, conversations, random.Random(rng.random()), stop, tally)))
        started = time.monotonic()
        for thread in threads:
            thread.start()
        end = started + args.minutes * 60
        print("%8s %9s %7s %5s %7s %8s %8s %10s" % (
        "t (s)", "RSS MiB", "threads", "fds", "turns", "faults", "errors", "violations"),
        flush=True)
        while time.monotonic() < end and server.process.poll() is None:
            time.sleep(min(args.sample_seconds, max(0.0, end - time.monotonic())))
            row = sample(server.process.pid)
            row.update({"t": round(time.monotonic() - started, 1), "turns": tally.turns,
                    "provider_faults": fake.injected,
                        "injected_errors": tally.injected_errors,
                        "violations": len(tally.violations)})
            samples.append(row)
            print("%8.0f %9.1f %7d %5d %7d %8d %8d %10d" % (
                row["t"], row["rss_mib"], row["threads"], row["fds"], row["turns"],
                row["provider_faults"], row["injected_errors"], row["violations"]), flush=True)
        stop.set()
        for thread in threads:
            thread.join(timeout=args.turn_timeout + 30)
        check(server.process.poll() is None, "the backend exited during the soak")
    finally:
        stop.set()
        server.stop()
        fake.stop()
        home.cleanup()

    check(samples, "no samples: the run was shorter than --sample-seconds")
    quarter = max(1, len(samples) // 4)
    summary = {"seed": args.seed, "minutes": args.minutes, "conversations": args.conversations,
               "turns": tally.turns, "inputs": tally.inputs,
               "provider_faults": fake.injected, "turn_errors_from_faults": tally.injected_errors,
               "violations": tally.violations}
    for key in ("rss_mib", "threads", "fds"):
        warm = statistics.median(s[key] for s in samples[quarter:2 * quarter])
        late = statistics.median(s[key] for s in samples[-quarter:])
        summary[key] = {"second_quarter_median": warm, "last_quarter_median": late,
                        "max": max(s[key] for s in samples), "growth": late / warm if warm else 0}
    print(json.dumps(summary, indent=2), flush=True)
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"summary": summary, "samples": samples}, f, indent=1)
    return 1 if tally.violations else 0


if __name__ == "__main__":
    sys.exit(main())
