#!/usr/bin/env python3
"""Desktop figures for docs/performance.md: startup to the first painted
frame, and resident memory with a 5,000-event conversation open.

    bench/desktop/desktop_perf.py --build build/release [--events 5000] [--runs 5]

A private AVA_HOME and the loopback fake provider; the conversation is made
through the API (bash turns: "bash: seq 1 40" gives a tool card with 40
lines of output and an answer, 13 events per turn). ava-desktop runs under
Xvfb (Mesa's software GL), as in the end-to-end test.
"""

import argparse
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import tempfile
import time
import urllib.request

OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def api(info, method, path, body=None):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request("http://127.0.0.1:%d%s" % (info["port"], path), data=data,
                                     method=method,
                                     headers={"Authorization": "Bearer " + info["token"],
                                              "Content-Type": "application/json"})
    with OPENER.open(request, timeout=60) as response:
        return json.load(response)


def desktop(args, env, extra, binary=None):
    binary = binary or os.path.join(args.build, "src/desktop/ava-desktop")
    command = ["xvfb-run", "-a", "-s", "-screen 0 1280x860x24", binary,
               "--ava", os.path.join(args.build, "src/app/ava")] + extra
    started = time.monotonic()
    result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    wall = (time.monotonic() - started) * 1000
    if result.returncode != 0:
        raise SystemExit("ava-desktop failed: %s %s" % (result.stdout, result.stderr[-2000:]))
    return result.stdout, wall


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default="build/release")
    parser.add_argument("--events", type=int, default=5000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--vs", help="another ava-desktop: first frames of both, runs alternating (an A/B in one run)")
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="ava-desktop-perf-")
    home = os.path.join(work, "home")
    project = os.path.join(work, "project")
    os.makedirs(home)
    os.makedirs(project)
    # The turns run bash: no person is there to approve each call.
    with open(os.path.join(home, "settings.json"), "w") as out:
        json.dump({"permissions": {"defaultMode": "auto"}}, out)
    fake = subprocess.Popen([os.path.join(args.build, "tests/transport/ava-fake-provider"), "--format",
                             "anthropic", "--echo"], stdout=subprocess.PIPE, text=True)
    env = dict(os.environ)
    for name in ("AVA_PROVIDER", "AVA_MODEL", "AVA_BASE_URL", "AVA_API_KEY", "DISPLAY", "QT_QPA_PLATFORM"):
        env.pop(name, None)
    env.update({"AVA_HOME": home, "ANTHROPIC_API_KEY": "test-key",
                "ANTHROPIC_BASE_URL": fake.stdout.readline().strip(), "no_proxy": "*",
                "AVA_LOG": "warn"})
    ava = os.path.join(args.build, "src/app/ava")
    try:
        subprocess.run([ava, "backend", "start"], env=env, check=True, capture_output=True)
        with open(os.path.join(home, "backend.json")) as f:
            info = json.load(f)
        project_id = api(info, "POST", "/api/projects", {"path": project})["id"]
        conversation = api(info, "POST", "/api/conversations", {"projectId": project_id, "title": "perf"})["id"]
        started = time.monotonic()
        turns = (args.events + 12) // 13
        for i in range(turns):
            api(info, "POST", "/api/conversations/%s/input" % conversation,
                {"text": "bash: seq 1 40 | sed 's/^/turn %d line /'" % i, "inputId": "perf-%d" % i})
        while True:
            status = api(info, "GET", "/api/conversations/%s/status" % conversation)
            if status.get("state") == "idle" and status.get("pendingInputs", 0) == 0 and status.get("lastSeq", 0) >= args.events:
                break
            time.sleep(0.5)
        last_seq = status["lastSeq"]
        print("conversation: %d events (%d turns) made in %.1f s" % (last_seq, turns, time.monotonic() - started))

        firsts, walls = [], []
        for _ in range(args.runs):
            out, wall = desktop(args, env, ["--exit-after-first-frame"])
            firsts.append(int(re.search(r"first frame after (\d+) ms", out).group(1)))
            walls.append(wall)
        print("first frame (main() to frameSwapped): median %d ms, runs %s" % (statistics.median(firsts), firsts))
        print("process wall time incl. xvfb-run and exit: median %.0f ms" % statistics.median(walls))
        if args.vs:
            this, other = [], []
            for _ in range(args.runs):
                for binary, into in ((None, this), (args.vs, other)):
                    out, _ = desktop(args, env, ["--exit-after-first-frame"], binary)
                    into.append(int(re.search(r"first frame after (\d+) ms", out).group(1)))
            print("A/B first frame, alternating: this build median %d ms %s, --vs median %d ms %s"
                  % (statistics.median(this), this, statistics.median(other), other))

        loaded = []
        for _ in range(args.runs):
            out, _ = desktop(args, env, ["--open-conversation", conversation, "--report-loaded"])
            match = re.search(r"rows=(\d+) lastSeq=(\d+) rss-kib=(\d+) after (\d+) ms", out)
            loaded.append(tuple(int(x) for x in match.groups()))
        print("with the conversation open: rows=%d lastSeq=%d, RSS median %d KiB (runs %s), loaded after median %d ms"
              % (loaded[0][0], loaded[0][1], statistics.median(x[2] for x in loaded),
                 [x[2] for x in loaded], statistics.median(x[3] for x in loaded)))
        empty = api(info, "POST", "/api/conversations", {"projectId": project_id, "title": "empty"})["id"]
        rss = []
        for _ in range(args.runs):
            out, _ = desktop(args, env, ["--open-conversation", empty, "--report-loaded"])
            rss.append(int(re.search(r"rss-kib=(\d+)", out).group(1)))
        print("with an empty conversation open: RSS median %d KiB (runs %s)" % (statistics.median(rss), rss))
    finally:
        subprocess.run([ava, "backend", "stop"], env=env, capture_output=True)
        fake.send_signal(signal.SIGTERM)
        fake.wait(timeout=10)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
