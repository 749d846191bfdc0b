#!/usr/bin/env python3
"""Automations end to end with the real ava-backend, the `ava automation`
CLI and the fake provider in echo mode: a two-second interval runs, each run
is a conversation marked with its automation, history lists each occurrence
once; a run past its time limit fails and the status stream says so; a
SIGKILL while a run runs leaves it interrupted, never run again.

    automations_test.py AVA AVA_BACKEND FAKE_PROVIDER [TEST ...]
"""

import json
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from backend_harness import (EventStream, FakeProvider, Home, Server, check,  # noqa: E402
                             count_turn_ends, run_tests, wait_for)

AVA, BACKEND, FAKE = sys.argv[1:4]


class Setup:
    def __init__(self):
        self.fake = FakeProvider(FAKE)
        self.home = Home(self.fake)
        self.server = Server(self.home, [BACKEND, "--port", "0"])

    def __enter__(self):
        return self

    def __exit__(self, *failure):
        if failure[0] is not None:
            sys.stderr.write("--- server log\n" + self.server.log_text() + "\n")
        self.server.stop()
        self.fake.stop()
        self.home.cleanup()

    def cli(self, *args):
        done = subprocess.run([AVA, "automation"] + list(args), env=self.home.env,
                              capture_output=True, text=True, timeout=60)
        check(done.returncode == 0, "ava automation %s: %s" % (" ".join(args), done.stderr))
        return json.loads(done.stdout) if "--json" in args else done.stdout

    def history(self, name):
        return self.cli("history", name, "--json")["occurrences"]


def test_an_interval_runs_each_time_once_as_a_conversation():
    with Setup() as s:
        added = s.cli("add", "tick", "--project", s.home.project, "--prompt",
                      "bash: echo scheduled", "--every", "2s", "--json")
        check(added["scheduleKind"] == "every" and added["nextRunMs"], added)
        runs = wait_for(lambda: [o for o in s.history("tick") if o["state"] == "finished"] or None,
                        30, "a finished run")
        run = runs[-1]
        check(run["trigger"] == "schedule" and run["conversationId"], run)
        listed = s.server.ok("GET", "/api/conversations")["conversations"]
        mine = [c for c in listed if c["id"] == run["conversationId"]]
        check(mine and mine[0]["automationId"] == added["id"], listed)
        check(mine[0]["title"].startswith("tick · "), mine)
        stream = EventStream(s.server, "/api/conversations/%s/events" % run["conversationId"])
        events = stream.wait_until(count_turn_ends(1), what="the run's turn")
        stream.close()
        inputs = [d for _, kind, d in events if kind == "input"]
        check(inputs[0]["text"] == "bash: echo scheduled", inputs)
        results = [d for _, kind, d in events if kind == "tool_result"]
        check(results and results[0]["status"] == "ok", results)

        s.cli("pause", "tick")
        time.sleep(0.5)
        before = s.history("tick")
        time.sleep(4.5)
        after = s.history("tick")
        # Paused: nothing new (a run already started may only finish).
        check(len(after) == len(before), (before, after))
        times = [o["scheduledMs"] for o in after]
        check(len(times) == len(set(times)), "an occurrence twice: %s" % after)
        shown = s.cli("show", "tick", "--json")
        check(shown["enabled"] is False and shown.get("nextRunMs") is None, shown)
        text = s.cli("list")
        check("tick" in text and "[paused]" in text, text)


def test_a_run_past_its_time_limit_fails_and_is_notified():
    with Setup() as s:
        status = EventStream(s.server, "/api/status/events")
        s.cli("add", "slow", "--project", s.home.project, "--prompt", "bash: sleep 30",
              "--cron", "0 0 1 1 *", "--time-limit", "2")
        started = s.cli("run-now", "slow", "--json")
        check(started["trigger"] == "manual" and started["state"] == "started", started)
        failed = wait_for(lambda: [o for o in s.history("slow") if o["state"] == "failed"] or None,
                          30, "the failed run")
        check("time limit" in failed[0]["error"], failed)
        events = status.wait_until(
            lambda ev: any(kind == "automation" and d["occurrence"]["state"] == "failed"
                           for _, kind, d in ev), what="the automation message")
        status.close()
        message = [d for _, kind, d in events if kind == "automation"][-1]
        check(message["name"] == "slow" and message["occurrence"]["conversationId"], message)


def test_sigkill_while_running_leaves_it_interrupted():
    with Setup() as s:
        s.cli("add", "long", "--project", s.home.project, "--prompt", "bash: sleep 30",
              "--cron", "0 0 1 1 *")
        started = s.cli("run-now", "long", "--json")
        time.sleep(1.0)
        s.server.signal(signal.SIGKILL)
        s.server.wait()
        s.server = Server(s.home, [BACKEND, "--port", "0"])
        occurrences = wait_for(
            lambda: [o for o in s.history("long") if o["state"] == "interrupted"] or None, 15,
            "the interrupted run")
        check(occurrences[0]["scheduledMs"] == started["scheduledMs"], occurrences)
        time.sleep(1.0)
        history = s.history("long")
        check(len(history) == 1, "it ran again: %s" % history)
        # Its conversation shows the recovery.
        stream = EventStream(s.server, "/api/conversations/%s/events" %
                             occurrences[0]["conversationId"])
        events = stream.wait_until(lambda ev: any(kind == "recovered" for _, kind, _ in ev),
                                   what="the recovered event")
        stream.close()
        check(any(kind == "turn_end" for _, kind, _ in events), "the turn was not closed")


def test_bad_input_is_refused_with_the_reason():
    with Setup() as s:
        for body, words in [
            ({"name": "x", "project": s.home.project, "prompt": "p"}, "schedule"),
            ({"name": "x", "project": s.home.project, "prompt": "p", "cron": "61 * * * *"},
             "minute"),
            ({"name": "x", "project": s.home.project, "prompt": "p", "every": "1m",
              "cron": "* * * * *"}, "one of"),
            ({"name": "../x", "project": s.home.project, "prompt": "p", "every": "1m"}, "name"),
            ({"name": "x", "project": "/no/such/folder", "prompt": "p", "every": "1m"},
             "no folder"),
            ({"name": "x", "project": s.home.project, "prompt": "p", "every": "1m",
              "timeZone": "Mars/Base"}, "time zone"),
            ({"name": "x", "project": s.home.project, "prompt": "p",
              "at": "2001-01-01 00:00"}, "past"),
        ]:
            answer = s.server.request("POST", "/api/automations", body)
            check(answer.status in (400, 404) and words in answer.raw.decode(), (body, answer.raw))
        preview = s.server.ok("GET", "/api/automations/preview?cron=0%209%20*%20*%20mon-fri"
                              "&timeZone=Europe/Berlin")
        check(len(preview["timesMs"]) == 5 and preview["local"][0].endswith(("CET", "CEST")),
              preview)
        missing = s.server.request("GET", "/api/automations/nothing")
        check(missing.status == 404, missing.raw)


TESTS = [(name, test) for name, test in globals().items() if name.startswith("test_")]

if __name__ == "__main__":
    sys.exit(run_tests(TESTS, sys.argv[4:]))
