#!/usr/bin/env python3
"""Disk full and I/O errors: a real ava-backend (and `ava -p`) run with the
faultfs shim (faultfs.cpp) preloaded, which makes writes, fsyncs, renames and
links under the test's AVA_HOME fail on demand. Checked (docs/reliability.md):

- an input that cannot be made durable is refused with 507 and code
  no_space (a CLI message for `ava -p`), never acknowledged;
- the log stays valid: `zstd -t` passes, events numbered without a gap, a
  partly written event cut back off the file;
- the server keeps serving reads (the catalog, a conversation's history);
- writing resumes when space returns: the same inputId is then taken once;
- a turn cut by an I/O error mid-way is closed when the conversation is
  reopened, every call paired;
- the registry is never left half-written, and no temporary file stays.

    disk_full_test.py AVA BACKEND FAKE_PROVIDER FAULTFS_SO [test names...]

Prints the faults injected per call site at the end.
"""

import collections
import json
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "app"))
from backend_harness import (EventStream, FakeProvider, Home, Server, check,  # noqa: E402
                             check_paired, run_tests, wait_for)

AVA, BACKEND, FAKE, FAULTFS = (os.path.abspath(path) for path in sys.argv[1:5])
FAULTS = collections.Counter()


class Faulty:
    """A home whose processes run with the shim, and its fault switch."""

    def __init__(self, fake):
        self.home = Home(fake)
        self.control = os.path.join(self.home.dir.name, "fault-control")
        self.log = os.path.join(self.home.dir.name, "fault-log")
        # The shim loads before the sanitizer runtime of the dev build.
        asan = self.home.env.get("ASAN_OPTIONS", "")
        self.home.env.update({"LD_PRELOAD": FAULTFS, "AVA_FAULT_CONTROL": self.control,
                              "AVA_FAULT_LOG": self.log,
                              "ASAN_OPTIONS": (asan + ":" if asan else "") +
                              "verify_asan_link_order=0"})

    def fail(self, error, mode, under, calls=""):
        """Fails the calls (all when empty) on paths under home/`under`."""
        # Written beside, then renamed (outside the faulted folder), so the
        # shim never reads half a line.
        with open(self.control + ".next", "w") as f:
            f.write("%s %s %s/ %s\n" % (error, mode,
                                         os.path.join(self.home.root, under).rstrip("/"), calls))
        os.rename(self.control + ".next", self.control)

    def heal(self):
        if os.path.exists(self.control):
            os.remove(self.control)

    def injected(self):
        """Faults injected so far, per call site ("write sessions", ...)."""
        counts = collections.Counter()
        if os.path.exists(self.log):
            with open(self.log) as f:
                for line in f:
                    call, _, path = line.rstrip("\n").partition(" ")
                    relative = os.path.relpath(path, self.home.root)
                    place = re.sub(r"\.tmp-\w+$", ".tmp", relative.split(os.sep)[0])
                    counts["%s %s" % (call, place)] += 1
        return counts

    def cleanup(self):
        FAULTS.update(self.injected())
        self.home.cleanup()


def with_backend(test):
    def run():
        fake = FakeProvider(FAKE)
        faulty = Faulty(fake)
        server = Server(faulty.home, [BACKEND, "--port", "0"])
        try:
            project = server.ok("POST", "/api/projects", {"path": faulty.home.project})
            test(server, faulty, project["id"])
        except Exception:
            sys.stderr.write("--- server log\n" + server.log_text() + "\n")
            raise
        finally:
            faulty.heal()
            server.stop()
            fake.stop()
            faulty.cleanup()
    return run


def log_path(faulty, conversation):
    return os.path.join(faulty.home.root, "sessions", conversation + ".jsonl.zst")


def log_events(faulty, conversation):
    """The log's events; fails unless zstd reads it whole and seqs run 1..N."""
    path = log_path(faulty, conversation)
    test = subprocess.run(["zstd", "-t", "-q", path], capture_output=True, text=True)
    check(test.returncode == 0, "zstd -t %s: %s" % (path, test.stderr.strip()))
    out = subprocess.run(["zstd", "-dc", path], capture_output=True, check=True).stdout
    events = [json.loads(line) for line in out.decode().split("\n") if line]
    seqs = [event["seq"] for event in events]
    check(seqs == list(range(1, len(seqs) + 1)), "seqs with a gap: %s" % seqs)
    return events


def acknowledged(events, input_id):
    return [e for e in events if e["type"] == "input" and e.get("input_id") == input_id]


def post_input(server, conversation, text, input_id):
    return server.request("POST", "/api/conversations/%s/input" % conversation,
                          {"text": text, "kind": "followup", "inputId": input_id})


def wait_answer(stream, text):
    stream.wait_until(lambda events: any(
        kind == "assistant" and any(block.get("text") == text for block in data.get("content", []))
        for _, kind, data in events), what=repr(text))


def wait_settled(server, conversation, failed=False):
    """Until the conversation's driver runs no turn (failed: until it stops
    on a turn the log could not close)."""
    def settled():
        status = server.ok("GET", "/api/conversations/%s/status" % conversation)
        if status["state"] not in ("idle", "closed"):
            return None
        return status if (status["lastError"] if failed else not status["turnId"]) else None
    return wait_for(settled, 30, "the turn to end")


@with_backend
def input_refused_on_full_disk(server, faulty, project):
    conversation = server.ok("POST", "/api/conversations", {"projectId": project})["id"]
    stream = EventStream(server, "/api/conversations/%s/events" % conversation)
    check(post_input(server, conversation, "first", "in-1").status == 202, "first input")
    wait_answer(stream, "echo: first")
    wait_settled(server, conversation)
    before = log_events(faulty, conversation)

    faulty.fail("ENOSPC", "partial", "sessions")
    for attempt in range(2):
        refused = post_input(server, conversation, "second", "in-2")
        check(refused.status == 507, "attempt %d on a full disk -> %d %s" % (
            attempt, refused.status, refused.raw[:300]))
        error = refused.json["error"]
        check(error["code"] == "no_space" and "No space left on device" in error["message"], error)
        # Nothing of it reached the log, and the log is whole (the part the
        # full disk took was cut back off).
        check(log_events(faulty, conversation) == before, "the log changed on a full disk")
        # Reads go on: the catalog and the conversation's history.
        listed = server.ok("GET", "/api/conversations")
        check(any(c["id"] == conversation for c in listed["conversations"]), "catalog lost it")
        history = EventStream(server, "/api/conversations/%s/events" % conversation,
                              last_event_id=0)
        history.wait_until(lambda events: len(events) >= len(before), what="the history")
        history.close()
    check(faulty.injected()["write sessions"] >= 2, faulty.injected())

    faulty.heal()
    taken = post_input(server, conversation, "second", "in-2")
    check(taken.status == 202, "after space returned -> %d %s" % (taken.status, taken.raw[:300]))
    stream = EventStream(server, "/api/conversations/%s/events" % conversation,
                         last_event_id=before[-1]["seq"])
    wait_answer(stream, "echo: second")
    again = post_input(server, conversation, "second", "in-2")
    check(again.status == 202 and again.json.get("duplicate"), "resent: %s" % again.raw[:200])
    wait_settled(server, conversation)
    events = log_events(faulty, conversation)
    check(len(acknowledged(events, "in-2")) == 1, "in-2 not in the log exactly once")
    check(events[:len(before)] == before, "an event written before the fault changed")


@with_backend
def io_error_mid_turn_is_recovered(server, faulty, project):
    conversation = server.ok("POST", "/api/conversations", {"projectId": project})["id"]
    stream = EventStream(server, "/api/conversations/%s/events" % conversation)
    check(post_input(server, conversation, "slow: 150: one two three four five six", "in-1")
          .status == 202, "slow input")
    # The step streams (its text is not in the log yet) when the disk fails.
    wait_for(lambda: server.ok("GET", "/api/conversations/%s/status" % conversation)
             ["state"] == "running", 10, "the turn to run")
    stream.wait_until(lambda events: any(kind == "step_start" for _, kind, _ in events),
                      what="step_start")
    faulty.fail("EIO", "whole", "sessions")
    status = wait_settled(server, conversation, failed=True)
    check("Input/output error" in status["lastError"], "last error: %s" % status["lastError"])
    refused = post_input(server, conversation, "meanwhile", "in-2")
    check(refused.status == 500 and refused.json["error"]["code"] == "io",
          "input on a failing disk -> %d %s" % (refused.status, refused.raw[:300]))

    faulty.heal()
    taken = post_input(server, conversation, "after", "in-3")
    check(taken.status == 202, "after the disk healed -> %d %s" % (taken.status, taken.raw[:300]))
    # The reopened conversation's stream: the recovery, then the new turn.
    resumed = EventStream(server, "/api/conversations/%s/events" % conversation, last_event_id=0)
    wait_answer(resumed, "echo: after")
    wait_settled(server, conversation)
    events = log_events(faulty, conversation)
    kinds = [e["type"] for e in events]
    check("recovered" in kinds, "no recovered event: %s" % kinds)
    starts = [e["turn_id"] for e in events if e["type"] == "turn_start"]
    ends = [e["turn_id"] for e in events if e["type"] == "turn_end"]
    check(sorted(starts) == sorted(ends) and len(starts) == 2, "turns %s ends %s" % (starts, ends))
    check(len(acknowledged(events, "in-1")) == 1 and len(acknowledged(events, "in-3")) == 1
          and not acknowledged(events, "in-2"), "inputs: %s" % [
              e.get("input_id") for e in events if e["type"] == "input"])
    check_paired([(str(e["seq"]), e["type"], e) for e in events], "after recovery")
    check(faulty.injected()["write sessions"] >= 1, faulty.injected())


def registry_file(faulty):
    with open(os.path.join(faulty.home.root, "web.json"), "rb") as f:
        return f.read()


@with_backend
def registry_never_half_written(server, faulty, project):
    conversation = server.ok("POST", "/api/conversations", {"projectId": project})["id"]
    before = registry_file(faulty)
    # The registry (web.json) is written to a temporary file, synced, and
    # renamed into place: a fault at each of those calls.
    for error, mode, calls in (("ENOSPC", "partial", "write"), ("EIO", "whole", "fsync"),
                               ("ENOSPC", "whole", "rename")):
        faulty.fail(error, mode, "", calls)
        refused = server.request("PATCH", "/api/conversations/%s" % conversation,
                                 {"title": "renamed"})
        expected = 507 if error == "ENOSPC" else 500
        check(refused.status == expected, "%s at %s -> %d %s" % (
            error, calls, refused.status, refused.raw[:300]))
        faulty.heal()
        check(registry_file(faulty) == before, "the registry changed after %s" % calls)
        leftovers = [name for name in os.listdir(faulty.home.root) if ".tmp-" in name]
        check(not leftovers, "temporary files left after %s: %s" % (calls, leftovers))
        shown = server.ok("GET", "/api/conversations/%s" % conversation)
        check(shown["title"] != "renamed", "the catalog took a change the disk refused")
    # A new conversation on a full disk: its log is written to a temporary
    # file and linked into place; neither log nor registry entry appears.
    for calls in ("write", "link"):
        faulty.fail("ENOSPC", "whole", "", calls)
        refused = server.request("POST", "/api/conversations", {"projectId": project})
        check(refused.status == 507, "create at %s -> %d %s" % (calls, refused.status,
                                                                 refused.raw[:300]))
        faulty.heal()
        check(registry_file(faulty) == before, "the registry changed after create at %s" % calls)
        sessions = os.listdir(os.path.join(faulty.home.root, "sessions"))
        check(sessions == [conversation + ".jsonl.zst"], "session files: %s" % sessions)
    server.ok("PATCH", "/api/conversations/%s" % conversation, {"title": "renamed"})
    titles = [c["title"] for c in json.loads(registry_file(faulty))["conversations"]
              if c["id"] == conversation]
    check(titles == ["renamed"], "after the disk healed: %s" % titles)
    injected = faulty.injected()
    for site in ("write web.json.tmp", "fsync web.json.tmp", "rename web.json",
                 "write sessions", "link sessions"):
        check(injected[site] >= 1, "no fault at %s: %s" % (site, injected))


def cli_reports_full_disk():
    fake = FakeProvider(FAKE)
    faulty = Faulty(fake)
    try:
        faulty.fail("ENOSPC", "whole", "sessions")
        ran = subprocess.run([AVA, "-p", "hello"], cwd=faulty.home.project, env=faulty.home.env,
                             capture_output=True, text=True, timeout=60)
        check(ran.returncode != 0, "ava -p on a full disk exited 0: %s" % ran.stdout)
        check("No space left on device" in ran.stderr, "stderr: %s" % ran.stderr[-500:])
        check("echo: hello" not in ran.stdout, "answered on a full disk: %s" % ran.stdout)
        faulty.heal()
        ran = subprocess.run([AVA, "-p", "hello"], cwd=faulty.home.project, env=faulty.home.env,
                             capture_output=True, text=True, timeout=60)
        check(ran.returncode == 0 and "echo: hello" in ran.stdout,
              "after space returned: %d %s %s" % (ran.returncode, ran.stdout, ran.stderr[-500:]))
    finally:
        faulty.heal()
        fake.stop()
        faulty.cleanup()


TESTS = [
    ("input_refused_on_full_disk", input_refused_on_full_disk),
    ("io_error_mid_turn_is_recovered", io_error_mid_turn_is_recovered),
    ("registry_never_half_written", registry_never_half_written),
    ("cli_reports_full_disk", cli_reports_full_disk),
]

if __name__ == "__main__":
    started = time.monotonic()
    code = run_tests(TESTS, sys.argv[5:])
    print("faults injected per call site: %s" % json.dumps(dict(sorted(FAULTS.items()))))
    print("%.1f s" % (time.monotonic() - started))
    sys.exit(code)
