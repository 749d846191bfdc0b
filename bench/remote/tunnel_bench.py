#!/usr/bin/env python3
"""The SSH tunnel's cost, for docs/performance.md: Debian's sshd on a
loopback port as a dedicated user (tests/remote/sshd_fixture.py, needs
root), `ava machine connect` to it, then

  latency     GET /api/health on a kept-alive connection, direct to the
              machine's backend vs through the tunnel: medians and the
              added time per request
  sse         a conversation's whole event log (TURNS turns) read as SSE,
              direct vs through the tunnel: MB/s and events/s
  reconnect   every SSH connection cut (the sshd children killed): time
              until the tunnel answers again, median of ROUNDS

    bench/remote/tunnel_bench.py [BUILD_DIR] [latency|sse|reconnect ...]
    env: REQUESTS (default 2000), TURNS (200), ROUNDS (10),
         TRANSPORT (libssh2, or openssh: the system ssh client)
"""

import http.client
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "app"))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "remote"))
from backend_harness import EventStream, Server, count_turn_ends  # noqa: E402
from machine_connect_test import TunnelClient  # noqa: E402
import machine_connect_test  # noqa: E402
from sshd_fixture import RemoteMachine  # noqa: E402

BUILD = sys.argv[1] if len(sys.argv) > 1 and not sys.argv[1].isalpha() else "build/release"
SELECTED = [a for a in sys.argv[1:] if a.isalpha()] or ["latency", "sse", "reconnect"]
AVA = os.path.join(BUILD, "src/app/ava")
FAKE = os.path.join(BUILD, "tests/transport/ava-fake-provider")
REQUESTS = int(os.environ.get("REQUESTS", "2000"))
TURNS = int(os.environ.get("TURNS", "200"))
ROUNDS = int(os.environ.get("ROUNDS", "10"))
TRANSPORT = os.environ.get("TRANSPORT", "libssh2")


class Direct(Server):
    """The machine's backend on its own port, with its token."""

    def __init__(self, port, token):
        self.port = port
        self.token = token


def timed_requests(port, headers, count):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    times = []
    for _ in range(count):
        started = time.perf_counter()
        connection.request("GET", "/api/health", headers=headers)
        response = connection.getresponse()
        response.read()
        times.append(time.perf_counter() - started)
        assert response.status == 200, response.status
    connection.close()
    return times


def read_stream(port, headers, path, expected_events):
    """Reads SSE until `expected_events` events came; bytes and seconds."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    started = time.perf_counter()
    connection.request("GET", path, headers=headers)
    response = connection.getresponse()
    assert response.status == 200, response.status
    events = 0
    size = 0
    while events < expected_events:
        line = response.readline()
        if not line:
            break
        size += len(line)
        if line.startswith(b"data:"):
            events += 1
    elapsed = time.perf_counter() - started
    connection.close()
    return size, events, elapsed


def main():
    machine_connect_test.AVA = AVA
    machine_connect_test.FAKE = FAKE
    results = {}
    with RemoteMachine() as machine:
        machine_connect_test.MACHINE = machine
        fake = machine_connect_test.provider()
        try:
            project = machine_connect_test.prepare_remote_home(fake)
            client, _ = machine_connect_test.added_client("bench", transport=TRANSPORT)
            connection = machine_connect_test.Connection(client, "box")
            info = connection.info
            tunnel = TunnelClient(info["localPort"], info["url"])
            with open(os.path.join(machine.remote_home, ".ava", "backend.json")) as f:
                backend = json.load(f)
            direct = Direct(backend["port"], backend["token"])
            results["uploadedBuild"] = info["uploaded"]
            results["transport"] = TRANSPORT

            if "latency" in SELECTED:
                timed_requests(direct.port, direct.auth_headers(), 200)  # warm-up
                timed_requests(tunnel.port, tunnel.auth_headers(), 200)
                direct_ms = statistics.median(timed_requests(direct.port, direct.auth_headers(),
                                                             REQUESTS)) * 1000
                tunnel_ms = statistics.median(timed_requests(tunnel.port, tunnel.auth_headers(),
                                                             REQUESTS)) * 1000
                results["latency"] = {"requests": REQUESTS, "directMedianMs": round(direct_ms, 3),
                                      "tunnelMedianMs": round(tunnel_ms, 3),
                                      "addedMs": round(tunnel_ms - direct_ms, 3)}
                print(json.dumps({"latency": results["latency"]}), flush=True)

            if "sse" in SELECTED:
                project_id = direct.ok("POST", "/api/projects", {"path": project})["id"]
                conversation = direct.ok("POST", "/api/conversations",
                                         {"projectId": project_id})["id"]
                base = "/api/conversations/" + conversation
                stream = EventStream(direct, base + "/events")
                for turn in range(TURNS):
                    direct.ok("POST", base + "/input",
                              {"text": "turn %d " % turn + "x" * 2000}, expect=(202,))
                    stream.wait_until(count_turn_ends(turn + 1), timeout=60, what="turn")
                count = len(stream.events)
                stream.close()
                size_d, events_d, secs_d = read_stream(direct.port, direct.auth_headers(),
                                                       base + "/events", count)
                size_t, events_t, secs_t = read_stream(tunnel.port, tunnel.auth_headers(),
                                                       base + "/events", count)
                results["sse"] = {
                    "events": events_t, "bytes": size_t,
                    "directMBps": round(size_d / secs_d / 1e6, 1),
                    "tunnelMBps": round(size_t / secs_t / 1e6, 1),
                    "directEventsPerS": round(events_d / secs_d),
                    "tunnelEventsPerS": round(events_t / secs_t)}
                print(json.dumps({"sse": results["sse"]}), flush=True)

            if "reconnect" in SELECTED:
                times = []
                for _ in range(ROUNDS):
                    machine_connect_test.cut_ssh_connections()
                    started = time.perf_counter()
                    while True:
                        try:
                            timed_requests(tunnel.port, tunnel.auth_headers(), 1)
                            break
                        except (OSError, http.client.HTTPException, AssertionError):
                            time.sleep(0.01)
                    times.append(time.perf_counter() - started)
                results["reconnect"] = {"rounds": ROUNDS,
                                        "medianS": round(statistics.median(times), 3),
                                        "maxS": round(max(times), 3)}
                print(json.dumps({"reconnect": results["reconnect"]}), flush=True)
            connection.close()
        finally:
            fake.stop()
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
