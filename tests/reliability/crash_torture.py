#!/usr/bin/env python3
"""Crash torture: a real ava-backend is SIGKILLed at random moments while
several clients keep it busy (follow-ups, steers, pauses, resumes, aborts on
a few conversations, each followed on its SSE stream), then restarted. After
every restart, and before the load resumes:

- every session log decompresses with `zstd -t` and its events are numbered
  1..N without a gap;
- every event a client saw on a stream is in the log byte for byte (a
  complete event is never rewritten);
- every input acknowledged with 202 is in the log exactly once, including
  inputs whose answer was lost to the kill and that were sent again with the
  same inputId;
- once the backend is idle, every tool call is paired with one result;
- with --approvals A, the first A conversations run in `ask` mode and one
  more client answers their approvals (allow or deny, at random): every
  decision acknowledged with 200 is in the log exactly once, as sent, and
  no approval is decided twice.

    crash_torture.py AVA_BACKEND FAKE_PROVIDER [--kills N] [--clients K]
                     [--conversations C] [--approvals A] [--seed S]
                     [--max-load-ms MS] [--fresh-every N] [--minutes M]

With --fresh-every N the clients move to new conversations every N kills,
once the old ones are idle and have passed the full check (pairing
included): each check reads whole logs and histories, so a long run keeps
its conversations short to keep the cost of a kill flat.

Prints one line per 10 kills and a JSON summary; exits 1 at the first
violation (with the seed, to replay it). docs/reliability.md has the figures.
"""

import argparse
import http.client
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "app"))
from backend_harness import FakeProvider, Home, Server  # noqa: E402


class Violation(Exception):
    pass


def violated(condition, message):
    if not condition:
        raise Violation(message)


class Load:
    """The clients of one backend run: inputs and controls from K threads,
    and one raw SSE reader per conversation, until the backend dies."""

    def __init__(self, server, conversations, clients, rng, counter, asking=()):
        self.server = server
        self.conversations = conversations
        self.asking = list(asking)  # conversations in ask mode
        self.decided = {}  # approvalId -> (conversation, decision), acknowledged with 200
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.acknowledged = {}  # inputId -> conversation
        self.unanswered = {}    # inputId -> (conversation, body): the kill took the answer
        self.seen = {c: {} for c in conversations}  # conversation -> seq -> raw data
        self.counter = counter
        self.threads = [threading.Thread(target=self._client, args=(random.Random(rng.random()),),
                                         daemon=True) for _ in range(clients)]
        self.threads += [threading.Thread(target=self._reader, args=(c,), daemon=True)
                         for c in conversations]
        if self.asking:
            self.threads.append(threading.Thread(
                target=self._approver, args=(random.Random(rng.random()),), daemon=True))
        self.readers = []

    def start(self):
        for thread in self.threads:
            thread.start()

    def join(self):
        self.stop.set()
        for connection in list(self.readers):
            try:
                connection.sock and connection.sock.close()
            except OSError:
                pass
        for thread in self.threads:
            thread.join(timeout=30)

    def post(self, path, body):
        connection = http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=10)
        headers = dict(self.server.auth_headers(), **{"Content-Type": "application/json"})
        connection.request("POST", path, body=json.dumps(body), headers=headers)
        response = connection.getresponse()
        payload = response.read()
        connection.close()
        return response.status, payload

    def send_input(self, conversation, body):
        try:
            status, _ = self.post("/api/conversations/%s/input" % conversation, body)
        except (OSError, http.client.HTTPException):
            with self.lock:
                self.unanswered[body["inputId"]] = (conversation, body)
            return False
        with self.lock:
            if status == 202:
                self.acknowledged[body["inputId"]] = conversation
                self.unanswered.pop(body["inputId"], None)
            elif status != 503:  # 503: shutting down; anything else is a bug
                self.unanswered.pop(body["inputId"], None)
                raise Violation("input answered %d" % status)
        return True

    def _client(self, rng):
        prompts = ["bash: echo step-%d", "slow: 30: tick tock %d", "hello %d", "bash: true # %d"]
        try:
            while not self.stop.is_set():
                conversation = rng.choice(self.conversations)
                action = rng.random()
                if action < 0.72:
                    n = next(self.counter)
                    body = {"kind": "steer" if action < 0.12 else "followup",
                            "text": rng.choice(prompts) % n, "inputId": "torture-%d" % n}
                    if not self.send_input(conversation, body):
                        return
                else:
                    control = "pause" if action < 0.8 else "resume" if action < 0.9 else "abort"
                    try:
                        self.post("/api/conversations/%s/%s" % (conversation, control), {})
                    except (OSError, http.client.HTTPException):
                        return
                time.sleep(rng.uniform(0.01, 0.12))
        except Violation as error:
            self.error = error

    def decide(self, conversation, approval, decision):
        """Answers one approval; False when the backend is gone."""
        try:
            status, _ = self.post("/api/conversations/%s/approvals/%s" % (conversation, approval),
                                  {"decision": decision, "scope": "once"})
        except (OSError, http.client.HTTPException):
            return False
        with self.lock:
            if status == 200:
                violated(approval not in self.decided,
                         "approval %s was acknowledged twice" % approval)
                self.decided[approval] = (conversation, decision)
            elif status not in (404, 409, 503):  # decided meanwhile, its call gone, shutting down
                raise Violation("decision answered %d" % status)
        return True

    def pending(self, conversation):
        connection = http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=10)
        connection.request("GET", "/api/conversations/%s/status" % conversation,
                           headers=self.server.auth_headers())
        response = connection.getresponse()
        status = json.loads(response.read() or b"{}")
        connection.close()
        return [a["approvalId"] for a in status.get("approvals", [])]

    def _approver(self, rng):
        try:
            while not self.stop.is_set():
                for conversation in self.asking:
                    for approval in self.pending(conversation):
                        decision = "allow" if rng.random() < 0.7 else "deny"
                        if not self.decide(conversation, approval, decision):
                            return
                time.sleep(rng.uniform(0.01, 0.1))
        except (OSError, http.client.HTTPException, ValueError):
            return
        except Violation as error:
            self.error = error

    def _reader(self, conversation):
        try:
            connection = http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=60)
            self.readers.append(connection)
            connection.request("GET", "/api/conversations/%s/events" % conversation,
                               headers=self.server.auth_headers())
            response = connection.getresponse()
            seq, data = None, None
            while not self.stop.is_set():
                line = response.readline()
                if not line:
                    return
                line = line.decode().rstrip("\r\n")
                if line.startswith("id: "):
                    seq = int(line[4:])
                elif line.startswith("data: "):
                    data = line[6:]
                elif line == "" and seq is not None and data is not None:
                    with self.lock:
                        self.seen[conversation][seq] = data
                    seq, data = None, None
        except (OSError, http.client.HTTPException, ValueError):
            return


def log_lines(path):
    """The log's event lines; a Violation when zstd cannot read it."""
    test = subprocess.run(["zstd", "-t", "-q", path], capture_output=True, text=True)
    violated(test.returncode == 0, "zstd -t %s: %s" % (path, test.stderr.strip()))
    out = subprocess.run(["zstd", "-dc", path], capture_output=True, check=True).stdout
    return [line for line in out.decode().split("\n") if line]


def wait_idle(server, timeout=120, load=None):
    """Until nothing runs; `load` answers the approvals that wait meanwhile."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status = server.ok("GET", "/api/status")
        busy = [c for c in status.get("loaded", [])
                if c.get("state") in ("running", "waiting") or (c.get("pendingInputs", 0) and
                                                                c.get("state") != "paused")]
        if load is not None:
            for conversation in load.asking:
                for approval in load.pending(conversation):
                    load.decide(conversation, approval, "allow")
        if not busy:
            return
        time.sleep(0.1)
    raise Violation("the backend never became idle: %s" % status)


def verify(home, server, conversations, seen, acknowledged, after_idle, decided=None):
    """The invariants, against the logs on disk (the backend is running)."""
    sessions = os.path.join(home.root, "sessions")
    totals = {"events": 0}
    inputs = {}
    for conversation in conversations:
        # Loading it runs its recovery, as any client's first request does.
        server.ok("GET", "/api/conversations/%s/context" % conversation)
        lines = log_lines(os.path.join(sessions, conversation + ".jsonl.zst"))
        events = [json.loads(line) for line in lines]
        seqs = [event["seq"] for event in events]
        violated(seqs == list(range(1, len(seqs) + 1)),
                 "%s: events not numbered 1..N: %s" % (conversation, seqs[-10:]))
        totals["events"] += len(events)
        for seq, data in seen[conversation].items():
            violated(seq <= len(lines), "%s: event %d was seen but is gone" % (conversation, seq))
            violated(lines[seq - 1] == data,
                     "%s: event %d was rewritten:\n saw  %s\n now  %s" % (
                         conversation, seq, data[:300], lines[seq - 1][:300]))
        decisions = {}
        for event in events:
            if event["type"] == "input" and event.get("input_id"):
                inputs.setdefault(event["input_id"], []).append(conversation)
            if event["type"] == "approval_decided":
                violated(event["approval_id"] not in decisions,
                         "%s: approval %s decided twice" % (conversation, event["approval_id"]))
                decisions[event["approval_id"]] = event["decision"]
        for approval, (where, decision) in (decided or {}).items():
            if where == conversation:
                violated(decisions.get(approval) == decision,
                         "%s: approval %s acknowledged as %s, logged as %s" % (
                             conversation, approval, decision, decisions.get(approval)))
        if after_idle:
            calls, results = [], []
            for event in events:
                if event["type"] == "assistant":
                    calls += [b.get("id") for b in event.get("content", [])
                              if b.get("type") == "tool_call"]
                if event["type"] == "tool_result":
                    results.append(event.get("call_id"))
            violated(sorted(calls) == sorted(results),
                     "%s: calls and results do not pair: %s vs %s" % (
                         conversation, sorted(set(calls) - set(results)),
                         sorted(set(results) - set(calls))))
    for input_id, conversation in acknowledged.items():
        found = inputs.get(input_id, [])
        violated(found == [conversation],
                 "acknowledged input %s is in the logs %d times (%s)" % (input_id, len(found), found))
    return totals


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("backend")
    parser.add_argument("fake")
    parser.add_argument("--kills", type=int, default=100)
    parser.add_argument("--clients", type=int, default=3)
    parser.add_argument("--conversations", type=int, default=3)
    parser.add_argument("--approvals", type=int, default=1,
                        help="conversations in ask mode, their approvals answered by a client")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--max-load-ms", type=int, default=800)
    parser.add_argument("--minutes", type=float, default=0,
                        help="stop after this long (the final check still runs); 0: after --kills")
    parser.add_argument("--fresh-every", type=int, default=0,
                        help="new conversations every N kills (0: the same ones throughout)")
    args = parser.parse_args()
    seed = args.seed if args.seed is not None else random.randrange(1 << 31)
    rng = random.Random(seed)
    counter = iter(range(1, 1 << 62))
    fake = FakeProvider(args.fake)
    home = Home(fake)
    started = time.monotonic()
    acknowledged = {}
    decided = {}
    seen = {}
    unanswered = {}
    kills = 0
    earlier = {"acknowledged": 0, "decided": 0, "events": 0, "conversations": 0}

    def open_conversations(server, project):
        conversations = [server.ok("POST", "/api/conversations", {"projectId": project})["id"]
                         for _ in range(args.conversations)]
        for conversation in conversations[:args.approvals]:
            server.ok("PUT", "/api/conversations/%s/permissions" % conversation, {"mode": "ask"})
        return conversations, conversations[:args.approvals]

    try:
        server = Server(home, [args.backend])
        project = server.ok("POST", "/api/projects", {"path": home.project})["id"]
        conversations, asking = open_conversations(server, project)
        seen = {c: {} for c in conversations}
        while True:
            # The answers the last kill took: the same inputIds again, which
            # the backend acknowledges once whether or not they had landed.
            load = Load(server, conversations, args.clients, rng, counter, asking)
            for input_id, (conversation, body) in list(unanswered.items()):
                load.send_input(conversation, body)
            unanswered = {}
            acknowledged.update(load.acknowledged)
            verify(home, server, conversations, seen, acknowledged, False, decided)
            if args.minutes and time.monotonic() - started > args.minutes * 60:
                args.kills = kills  # time is up: the final check, as after the last kill
            if kills == args.kills:
                wait_idle(server, load=load)
                decided.update(load.decided)
                totals = verify(home, server, conversations, seen, acknowledged, True, decided)
                server.stop()
                break
            fresh = args.fresh_every and kills and kills % args.fresh_every == 0
            if kills % 25 == 0 or fresh:
                wait_idle(server, load=load)  # now and then the pairing of every call
                decided.update(load.decided)
                checked = verify(home, server, conversations, seen, acknowledged, True, decided)
            if fresh:  # the old conversations passed the full check and stay idle
                earlier["acknowledged"] += len(acknowledged)
                earlier["decided"] += len(decided)
                earlier["events"] += checked["events"]
                earlier["conversations"] += len(conversations)
                conversations, asking = open_conversations(server, project)
                seen = {c: {} for c in conversations}
                acknowledged, decided = {}, {}
                load = Load(server, conversations, args.clients, rng, counter, asking)
            load.start()
            time.sleep(rng.uniform(0.02, args.max_load_ms / 1000))
            server.signal(signal.SIGKILL)
            server.wait(timeout=30)
            load.join()
            if getattr(load, "error", None):
                raise load.error
            kills += 1
            acknowledged.update(load.acknowledged)
            decided.update(load.decided)
            unanswered = dict(load.unanswered)
            for conversation in conversations:
                seen[conversation].update(load.seen[conversation])
            if kills % 10 == 0:
                print("kills %d, acknowledged inputs %d, %.0f s" % (
                    kills, earlier["acknowledged"] + len(acknowledged),
                    time.monotonic() - started), flush=True)
            server = Server(home, [args.backend])
    except Violation as error:
        print("VIOLATION after %d kills (seed %d): %s" % (kills, seed, error), flush=True)
        return 1
    finally:
        fake.stop()
    summary = {"kills": kills, "violations": 0, "seed": seed,
               "acknowledgedInputs": earlier["acknowledged"] + len(acknowledged),
               "decisions": earlier["decided"] + len(decided),
               "events": earlier["events"] + totals["events"],
               "conversations": earlier["conversations"] + len(conversations),
               "seconds": round(time.monotonic() - started, 1)}
    print(json.dumps(summary), flush=True)
    home.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
