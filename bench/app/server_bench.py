#!/usr/bin/env python3
"""API server figures for docs/performance.md, against the release build:

  idle    idle RSS of a fresh ava-backend
  startup start-up time (exec -> /api/health answers) and RSS with 0, 1,000
          and 10,000 conversations on disk
  many    100 conversations streaming at once from the fake provider
  fanout  1,000 SSE subscribers on one conversation: delivery latency
          (FANOUT_SUBSCRIBERS, FANOUT_ROUNDS; FANOUT_PAUSED=1: no turns)
  wrk     requests/s on GET /api/health
  automations  start-up time with 0 and 10,000 automations in the store, and
          how long after it the scheduler has planned them all

    bench/app/server_bench.py [BUILD_DIR] [idle|startup|many|fanout|wrk|automations ...]
"""

import http.client
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
import uuid

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "app"))
from backend_harness import EventStream, FakeProvider, Home, Server, wait_for  # noqa: E402

BUILD = sys.argv[1] if len(sys.argv) > 1 and not sys.argv[1].isalpha() else "build/release"
SELECTED = [a for a in sys.argv[1:] if a.isalpha()] or ["idle", "startup", "many", "fanout", "wrk"]
BACKEND = os.path.join(BUILD, "src/app/ava-backend")
FAKE = os.path.join(BUILD, "tests/transport/ava-fake-provider")
FANOUT = os.path.join(BUILD, "bench/app/ava_sse_fanout")


def status_kib(pid, field):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def cpu_seconds(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks


def start_backend(home):
    return Server(home, [BACKEND, "--log-level", "warn"])


def idle(fake):
    home = Home(fake)
    figures = []
    for _ in range(5):
        server = start_backend(home)
        server.ok("GET", "/api/health")
        time.sleep(1)
        figures.append(status_kib(server.process.pid, "VmRSS"))
        server.stop()
    home.cleanup()
    print("idle RSS: median %.1f MiB (runs: %s KiB)" % (statistics.median(figures) / 1024, figures))


def populate(home, fake, count):
    """`count` conversations: one real log copied under new ids, all in web.json."""
    server = start_backend(home)
    project = server.ok("POST", "/api/projects", {"path": home.project})
    conversation = server.ok("POST", "/api/conversations", {"projectId": project["id"]})
    server.ok("POST", "/api/conversations/%s/input" % conversation["id"], {"text": "hello"})
    stream = EventStream(server, "/api/conversations/%s/events" % conversation["id"])
    stream.wait_until(lambda events: any(e[1] == "turn_end" for e in events))
    stream.close()
    server.stop()
    sessions = os.path.join(home.root, "sessions")
    source = os.path.join(sessions, conversation["id"] + ".jsonl.zst")
    with open(os.path.join(home.root, "web.json")) as f:
        registry = json.load(f)
    template = registry["conversations"][0]
    for i in range(count - 1):
        new_id = str(uuid.uuid4())
        shutil.copyfile(source, os.path.join(sessions, new_id + ".jsonl.zst"))
        entry = dict(template, id=new_id, title="conversation %d" % i, updatedMs=template["updatedMs"] + i)
        registry["conversations"].append(entry)
    with open(os.path.join(home.root, "web.json"), "w") as f:
        json.dump(registry, f)
    return os.path.getsize(os.path.join(home.root, "web.json"))


def startup(fake):
    for count in (0, 1000, 10000):
        home = Home(fake)
        size = populate(home, fake, count) if count else 0
        times = []
        rss = []
        for _ in range(7):
            started = time.perf_counter()
            process = subprocess.Popen([BACKEND, "--log-level", "warn"], env=home.env,
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            info = None
            while info is None:  # poll every 0.5 ms: the figure is in milliseconds
                candidate = home.backend_file()
                info = candidate if candidate and candidate["pid"] == process.pid else None
                if info is None:
                    time.sleep(0.0005)
            while True:
                try:
                    connection = http.client.HTTPConnection("127.0.0.1", info["port"], timeout=5)
                    connection.request("GET", "/api/conversations?limit=1",
                                       headers={"Authorization": "Bearer " + info["token"]})
                    if connection.getresponse().status == 200:
                        break
                except OSError:
                    time.sleep(0.0005)
            times.append((time.perf_counter() - started) * 1000)
            rss.append(status_kib(process.pid, "VmRSS"))
            process.terminate()
            process.wait()
        home.cleanup()
        print("start-up with %5d conversations (web.json %7d bytes): median %.1f ms, RSS %.1f MiB (runs ms: %s)" % (
            count, size, statistics.median(times), statistics.median(rss) / 1024,
            ", ".join("%.1f" % t for t in times)))


def time_to_answer(home):
    """Starts ava-backend; ms until GET /api/conversations answers, and the process."""
    started = time.perf_counter()
    process = subprocess.Popen([BACKEND, "--log-level", "warn"], env=home.env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    info = None
    while info is None:
        candidate = home.backend_file()
        info = candidate if candidate and candidate["pid"] == process.pid else None
        if info is None:
            time.sleep(0.0005)
    while True:
        try:
            connection = http.client.HTTPConnection("127.0.0.1", info["port"], timeout=5)
            connection.request("GET", "/api/conversations?limit=1",
                               headers={"Authorization": "Bearer " + info["token"]})
            if connection.getresponse().status == 200:
                break
        except OSError:
            time.sleep(0.0005)
    return (time.perf_counter() - started) * 1000, process, info


def automations(fake):
    import sqlite3
    for count in (0, 10000):
        home = Home(fake)
        server = start_backend(home)  # creates automations.sqlite3 with its schema
        server.stop()
        if count:
            db = sqlite3.connect(os.path.join(home.root, "automations.sqlite3"))
            now = int(time.time() * 1000)
            rows = [(str(uuid.uuid4()), "a%d" % i, home.project, "check", "auto",
                     "cron" if i % 2 == 0 else "every",
                     "%d * * * *" % (i % 60) if i % 2 == 0 else "%dm" % (60 + i % 600),
                     "Europe/Berlin" if i % 3 == 0 else "UTC", now, now) for i in range(count)]
            db.executemany(
                "INSERT INTO automations(id, name, project, prompt, permission_mode, schedule_kind, "
                "schedule, time_zone, enabled, overlap, max_running, missed, time_limit_ms, "
                "keep_runs, created_ms, updated_ms) VALUES(?, ?, ?, ?, ?, ?, ?, ?, 1, 'skip', 3, "
                "'skip', 1800000, 100, ?, ?)", rows)
            db.commit()
            db.close()
        times = []
        planned = []
        listed = []
        size = 0
        for _ in range(7):
            ms, process, info = time_to_answer(home)
            times.append(ms)
            # Planned: the list answers with every automation's next run.
            started = time.perf_counter()
            while True:
                connection = http.client.HTTPConnection("127.0.0.1", info["port"], timeout=30)
                connection.request("GET", "/api/automations",
                                   headers={"Authorization": "Bearer " + info["token"]})
                body = json.loads(connection.getresponse().read())
                if all("nextRunMs" in a for a in body["automations"]):
                    break
                time.sleep(0.001)
            planned.append((time.perf_counter() - started) * 1000)
            # The list once planned: the server's answer, without the JSON parse.
            started = time.perf_counter()
            connection = http.client.HTTPConnection("127.0.0.1", info["port"], timeout=30)
            connection.request("GET", "/api/automations",
                               headers={"Authorization": "Bearer " + info["token"]})
            size = len(connection.getresponse().read())
            listed.append((time.perf_counter() - started) * 1000)
            process.terminate()
            process.wait()
        home.cleanup()
        print("start-up with %5d automations: median %.1f ms (runs ms: %s); list with every next run "
              "after a further median %.0f ms; GET /api/automations (%d KiB) median %.0f ms" % (
                  count, statistics.median(times), ", ".join("%.1f" % t for t in times),
                  statistics.median(planned), size // 1024, statistics.median(listed)))


def many(fake):
    home = Home(fake)
    server = start_backend(home)
    project = server.ok("POST", "/api/projects", {"path": home.project})
    conversations = [server.ok("POST", "/api/conversations", {"projectId": project["id"]})["id"]
                     for _ in range(100)]
    status = EventStream(server, "/api/status/events")
    pid = server.process.pid
    cpu_before = cpu_seconds(pid)
    words = " ".join("word%d" % i for i in range(40))
    started = time.perf_counter()
    for conversation in conversations:
        server.ok("POST", "/api/conversations/%s/input" % conversation, {"text": "slow: 5: " + words})
    status.wait_until(lambda events: sum(1 for e in events if e[1] == "summary") >= 100, timeout=120)
    wall = time.perf_counter() - started
    cpu = cpu_seconds(pid) - cpu_before
    deltas = sum(1 for e in status.events if e[1] == "delta")
    status.close()
    peak = status_kib(pid, "VmHWM")
    rss = status_kib(pid, "VmRSS")
    server.stop()
    home.cleanup()
    print("100 conversations x 40 streamed words (5 ms apart): wall %.2f s (one alone: ~%.2f s), backend CPU %.2f s, "
          "%d live deltas delivered, RSS %.1f MiB (peak %.1f MiB)" % (
              wall, 40 * 0.005, cpu, deltas, rss / 1024, peak / 1024))


def fanout(fake):
    home = Home(fake)
    server = start_backend(home)
    project = server.ok("POST", "/api/projects", {"path": home.project})
    conversation = server.ok("POST", "/api/conversations",
                             {"projectId": project["id"], "model": {"provider": "mock"}})["id"]
    if os.environ.get("FANOUT_PAUSED"):
        # Inputs are durable and fanned out, but no turn runs: each round is
        # the input event alone, without the mock turn's burst behind it.
        server.ok("POST", "/api/conversations/%s/pause" % conversation, {})
    subscribers = os.environ.get("FANOUT_SUBSCRIBERS", "1000")
    rounds = os.environ.get("FANOUT_ROUNDS", "50")
    client = subprocess.Popen([FANOUT, str(server.port), server.token, conversation, subscribers, rounds, "50"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # The backend's CPU over the rounds only (the client prints a line once
    # every stream is open): robust to a busy machine, unlike latency. Each
    # round fans out the input event and then the mock turn's events.
    connected = client.stdout.readline()
    cpu_before = cpu_seconds(server.process.pid)
    rest, errors = client.communicate(timeout=300)
    cpu = cpu_seconds(server.process.pid) - cpu_before
    rss = status_kib(server.process.pid, "VmHWM")
    per_round = cpu * 1e3 / int(rounds)
    server.stop()
    home.cleanup()
    print((connected + rest).strip().replace("\n", "; ") +
          "; backend CPU over the rounds %.2f s (%.2f ms per round, %.1f us per subscriber and round); "
          "backend peak RSS %.1f MiB" % (cpu, per_round, per_round * 1e3 / int(subscribers), rss / 1024))
    if client.returncode != 0:
        print(errors)


def wrk(fake):
    home = Home(fake)
    server = start_backend(home)
    url = "http://127.0.0.1:%d/api/health" % server.port
    for connections in (1, 32):
        result = subprocess.run(["wrk", "-t", "1" if connections == 1 else "2", "-c", str(connections), "-d", "10s",
                                 "--latency", "-H", "Authorization: Bearer " + server.token, url],
                                capture_output=True, text=True, timeout=60)
        lines = [line.strip() for line in result.stdout.splitlines()
                 if "Requests/sec" in line or line.strip().startswith(("50%", "99%"))]
        print("wrk GET /api/health, %d connection(s): %s" % (connections, "; ".join(lines)))
    server.stop()
    home.cleanup()


if __name__ == "__main__":
    fake_provider = FakeProvider(FAKE)
    try:
        for name in SELECTED:
            globals()[name](fake_provider)
    finally:
        fake_provider.stop()
