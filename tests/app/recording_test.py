#!/usr/bin/env python3
"""A conversation recorded through the API (POST /api/conversations with
"record": true) with the real ava-backend and the fake provider in echo
mode: two turns, one with a bash call, then `ava replay` of the recording
with the backend and the provider gone, and an edited second prompt refused.

    recording_test.py AVA AVA_BACKEND FAKE_PROVIDER [TEST ...]
"""

import json
import os
import shutil
import stat
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from backend_harness import (EventStream, FakeProvider, Home, Server, check,  # noqa: E402
                             count_turn_ends, run_tests)

AVA, BACKEND, FAKE = sys.argv[1:4]


def replay(home, folder, ok=True):
    done = subprocess.run([AVA, "replay", "--json", folder], env=home.env, capture_output=True,
                          text=True, timeout=120)
    if ok:
        check(done.returncode == 0, "ava replay: %s %s" % (done.stdout, done.stderr))
    return done


def test_a_recorded_conversation_replays_turn_by_turn():
    fake = FakeProvider(FAKE)
    home = Home(fake)
    server = Server(home, [BACKEND, "--port", "0"])
    try:
        project = server.ok("POST", "/api/projects", {"path": home.project})["id"]
        plain = server.ok("POST", "/api/conversations", {"projectId": project})
        check("recording" not in plain or plain["recording"] == "", plain)
        created = server.ok("POST", "/api/conversations", {"projectId": project, "record": True})
        folder = created["recording"]
        check(folder == os.path.join(home.root, "recordings", created["id"]), created)
        check(stat.S_IMODE(os.stat(folder).st_mode) == 0o700, oct(os.stat(folder).st_mode))
        base = "/api/conversations/%s" % created["id"]
        listed = server.ok("GET", base)
        check(listed["recording"] == folder, listed)

        stream = EventStream(server, base + "/events")
        server.ok("POST", base + "/input", {"text": "bash: echo one"}, expect=(202,))
        stream.wait_until(count_turn_ends(1), what="the first turn")
        server.ok("POST", base + "/input", {"text": "just talk"}, expect=(202,))
        stream.wait_until(count_turn_ends(2), what="the second turn")
        stream.close()

        with open(os.path.join(folder, "recording.json")) as f:
            manifest = json.load(f)
        check([t["prompt"] for t in manifest["turns"]] == ["bash: echo one", "just talk"], manifest)
        check(all(t["outcome"]["reason"] == "completed" for t in manifest["turns"]), manifest)
        check(manifest["sessionId"] == created["id"] and manifest["prompt"] == "bash: echo one", manifest)
        # The recording is beside the log, not in it.
        check(not folder.startswith(os.path.join(home.root, "sessions")), folder)
    except Exception:
        sys.stderr.write("--- server log\n" + server.log_text() + "\n")
        raise
    finally:
        server.stop()
        fake.stop()

    try:
        # Nothing to answer now: the backend and the provider are gone.
        report = json.loads(replay(home, folder).stdout)
        check(report["passed"] and report["turns"] == 2 and report["exchangesReplayed"] == 3, report)
        check(report["toolCalls"] == 1, report)

        # The second prompt edited: the second turn's request differs.
        edited = folder + "-edited"
        shutil.copytree(folder, edited)
        path = os.path.join(edited, "recording.json")
        with open(path) as f:
            manifest = json.load(f)
        manifest["turns"][1]["prompt"] = "say something else"
        with open(path, "w") as f:
            json.dump(manifest, f)
        refused = replay(home, edited, ok=False)
        check(refused.returncode == 1, refused.stdout + refused.stderr)
        check(json.loads(refused.stdout)["refusal"].startswith("request 3 differs from the recording"),
              refused.stdout)
    finally:
        home.cleanup()


TESTS = [(name, test) for name, test in globals().items() if name.startswith("test_")]

if __name__ == "__main__":
    sys.exit(run_tests(TESTS, sys.argv[4:]))
