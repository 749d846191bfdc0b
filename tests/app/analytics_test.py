#!/usr/bin/env python3
"""Analytics end to end with the real ava-backend and the fake provider in
echo mode (10 input and 5 output tokens a step): turns with a tool call are
counted by GET /api/analytics and by `ava analytics show`, filters narrow
them, `ava analytics rebuild` gives the same answer, bad filters are refused.

    analytics_test.py AVA AVA_BACKEND FAKE_PROVIDER [TEST ...]
"""

import json
import os
import subprocess
import sys
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from backend_harness import (EventStream, FakeProvider, Home, Server, check,  # noqa: E402
                             count_turn_ends, run_tests)

AVA, BACKEND, FAKE = sys.argv[1:4]


def analytics_cli(home, *args, ok=True):
    done = subprocess.run([AVA, "analytics"] + list(args), env=home.env, capture_output=True,
                          text=True, timeout=60)
    if ok:
        check(done.returncode == 0, "ava analytics %s: %s" % (" ".join(args), done.stderr))
    return done


def without_update(summary):
    return {k: v for k, v in summary.items() if k != "update"}


def test_turns_are_counted_by_the_api_and_the_cli():
    fake = FakeProvider(FAKE)
    home = Home(fake)
    server = Server(home, [BACKEND, "--port", "0"])
    try:
        project = server.ok("POST", "/api/projects", {"path": home.project})["id"]
        conversation = server.ok("POST", "/api/conversations", {"projectId": project})["id"]
        base = "/api/conversations/%s" % conversation
        stream = EventStream(server, base + "/events")
        server.ok("POST", base + "/input", {"text": "bash: echo one"}, expect=(202,))
        stream.wait_until(count_turn_ends(1), what="the first turn")
        server.ok("POST", base + "/input", {"text": "just talk"}, expect=(202,))
        stream.wait_until(count_turn_ends(2), what="the second turn")
        stream.close()

        summary = server.ok("GET", "/api/analytics")
        # Turn one: a step calling bash, a step answering; turn two: one step.
        check(summary["sessions"] == 1 and summary["turns"] == 2, summary)
        check(summary["steps"] == 3 and summary["toolCalls"] == 1, summary)
        check(summary["inputTokens"] == 30 and summary["outputTokens"] == 15, summary)
        check(summary["medianFirstTokenMs"] is not None, summary)
        check([(t["tool"], t["calls"], t["errors"]) for t in summary["tools"]] == [("bash", 1, 0)],
              summary["tools"])
        check([b["key"] for b in summary["byProject"]] == [os.path.realpath(home.project)],
              summary["byProject"])
        check(len(summary["byDay"]) == 1 and summary["byDay"][0]["steps"] == 3, summary["byDay"])
        models = [b["key"] for b in summary["byModel"]]
        check(len(models) == 1, models)

        # Filters narrow; a model nobody used counts nothing.
        none = server.ok("GET", "/api/analytics?model=no-such-model")
        check(none["turns"] == 0 and none["inputTokens"] == 0, none)
        same = server.ok("GET", "/api/analytics?model=" + urllib.parse.quote(models[0]))
        check(same["inputTokens"] == 30, same)
        day = summary["byDay"][0]["key"]
        dated = server.ok("GET", "/api/analytics?from=%s&to=%s" % (day, day))
        check(dated["steps"] == 3, dated)
        later = server.ok("GET", "/api/analytics?from=2999-01-01")
        check(later["steps"] == 0, later)
        for bad in ["from=yesterday", "to=2026-13-01", "from=2026-01-01%27%3B"]:
            answer = server.request("GET", "/api/analytics?" + bad)
            check(answer.status == 400 and b"YYYY-MM-DD" in answer.raw, (bad, answer.raw))

        # The CLI reads the same index (the backend still running) and agrees.
        shown = json.loads(analytics_cli(home, "show", "--json").stdout)
        check(without_update(shown) == summary, (shown, summary))
        inside = os.path.join(home.project, "src")
        os.makedirs(inside)
        scoped = json.loads(analytics_cli(home, "show", "--json", "--project", inside).stdout)
        check(scoped["inputTokens"] == 30, scoped)
        rebuilt = json.loads(analytics_cli(home, "rebuild", "--json").stdout)
        check(rebuilt["update"]["logsRead"] == 1, rebuilt["update"])
        check(without_update(rebuilt) == summary, (rebuilt, summary))
        text = analytics_cli(home, "show").stdout
        check("1 sessions, 2 turns, 3 steps, 1 tool calls" in text and "bash" in text, text)
        refused = analytics_cli(home, "show", "--from", "soon", ok=False)
        check(refused.returncode != 0 and "YYYY-MM-DD" in refused.stderr, refused.stderr)
    except Exception:
        sys.stderr.write("--- server log\n" + server.log_text() + "\n")
        raise
    finally:
        server.stop()
        fake.stop()
        home.cleanup()


TESTS = [(name, test) for name, test in globals().items() if name.startswith("test_")]

if __name__ == "__main__":
    sys.exit(run_tests(TESTS, sys.argv[4:]))
