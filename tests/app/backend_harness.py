"""Shared pieces of the black-box API server tests: start the real binaries,
talk HTTP and SSE to them with nothing but the standard library."""

import http.client
import json
import os
import signal
import socket
import subprocess
import tempfile
import threading
import time
import urllib.parse


class Failure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


def wait_for(predicate, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.02)
    raise Failure("timed out waiting for " + what)


class FakeProvider:
    """ava-fake-provider in echo mode (tests/support/fake_echo.hpp)."""

    def __init__(self, binary, record=None, wire="anthropic"):
        """record: a file that gets every request as a JSON line (--record);
        wire: the format it speaks (anthropic, openai, openai-responses)."""
        extra = ["--record", record] if record else []
        self.process = subprocess.Popen([binary, "--format", wire, "--echo"] + extra,
                                        stdout=subprocess.PIPE, text=True)
        self.url = self.process.stdout.readline().strip()
        check(self.url.startswith("http://"), "fake provider did not start")

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=10)


class Home:
    """A private AVA_HOME and a project folder for one test."""

    def __init__(self, fake, permission_mode="auto"):
        self.dir = tempfile.TemporaryDirectory(prefix="ava-backend-test-")
        self.root = os.path.join(self.dir.name, "home")
        self.project = os.path.join(self.dir.name, "project")
        os.makedirs(self.root)
        os.makedirs(self.project)
        # Tests that are not about permissions run their tools without asking,
        # as a user who chose auto in settings.json would; the permission
        # tests pass None and choose per conversation.
        if permission_mode:
            with open(os.path.join(self.root, "settings.json"), "w") as f:
                json.dump({"permissions": {"defaultMode": permission_mode}}, f)
        self.env = dict(os.environ)
        for name in ("AVA_PROVIDER", "AVA_MODEL", "AVA_BASE_URL", "AVA_API_KEY", "OPENAI_API_KEY",
                     "DISPLAY", "WAYLAND_DISPLAY"):
            self.env.pop(name, None)
        self.env.update({"AVA_HOME": self.root, "ANTHROPIC_API_KEY": "test-key",
                         "ANTHROPIC_BASE_URL": fake.url, "no_proxy": "*", "AVA_LOG": "info",
                         # A model server running on this machine, or a Codex
                         # login of the user's, stays out of the tests.
                         "AVA_LOCAL_PROBE": "0",
                         "CODEX_HOME": os.path.join(self.dir.name, "codex")})

    def backend_file(self):
        try:
            with open(os.path.join(self.root, "backend.json")) as f:
                return json.load(f)
        except (OSError, ValueError):
            return None

    def cleanup(self):
        self.dir.cleanup()


class Response:
    def __init__(self, status, headers, body):
        self.status = status
        self.headers = headers
        self.raw = body
        try:
            self.json = json.loads(body) if body else None
        except ValueError:
            self.json = None


class Server:
    """A running ava-backend (token from backend.json) or `ava --serve`."""

    def __init__(self, home, command, backend=True, preexec_fn=None):
        self.home = home
        self.backend = backend
        self.log = open(os.path.join(home.dir.name, "server.log"), "ab")
        self.process = subprocess.Popen(command, env=home.env, stdout=subprocess.PIPE,
                                        stderr=self.log, text=True, preexec_fn=preexec_fn)
        line = self.process.stdout.readline()
        check(line, "the server printed nothing; log:\n" + self.log_text())
        if backend:
            info = wait_for(lambda: (lambda b: b if b and b["pid"] == self.process.pid else None)(
                home.backend_file()), 10, "backend.json")
            self.port = info["port"]
            self.token = info["token"]
        else:
            # "Ava is serving http://127.0.0.1:PORT/?login=CODE": trade the
            # one-time code for the session cookie, as the browser does.
            url = urllib.parse.urlsplit(line.split()[-1])
            self.port = url.port
            self.token = None
            self.login_code = urllib.parse.parse_qs(url.query)["login"][0]
            self.cookie = self.log_in(self.login_code)

    def log_in(self, code):
        """POST /api/login; returns the "name=value" of the session cookie."""
        response = self.request("POST", "/api/login", {"code": code}, token=False)
        check(response.status == 204, "login -> %d %s" % (response.status, response.raw[:200]))
        set_cookie = response.headers.get("Set-Cookie", "")
        check("HttpOnly" in set_cookie and "SameSite=Strict" in set_cookie, set_cookie)
        return set_cookie.split(";", 1)[0]

    def auth_headers(self):
        if self.token:
            return {"Authorization": "Bearer " + self.token}
        if getattr(self, "cookie", None):
            return {"Cookie": self.cookie}
        return {}

    def log_text(self):
        try:
            with open(os.path.join(self.home.dir.name, "server.log"), errors="replace") as f:
                return f.read()[-4000:]
        except OSError:
            return ""

    def request(self, method, path, body=None, headers=None, token=True, timeout=30):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        all_headers = self.auth_headers() if token else {}
        if body is not None and not isinstance(body, (bytes, str)):
            body = json.dumps(body)
            all_headers["Content-Type"] = "application/json"
        all_headers.update(headers or {})
        connection.request(method, path, body=body, headers=all_headers)
        response = connection.getresponse()
        result = Response(response.status, dict(response.getheaders()), response.read())
        connection.close()
        return result

    def ok(self, method, path, body=None, expect=(200, 201, 202)):
        response = self.request(method, path, body)
        check(response.status in expect,
              "%s %s -> %d %s" % (method, path, response.status, response.raw[:300]))
        return response.json

    def signal(self, number):
        self.process.send_signal(number)

    def wait(self, timeout=60):
        try:
            code = self.process.wait(timeout=timeout)
        finally:
            self.log.close()
        return code

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if not self.log.closed:
            self.log.close()


class EventStream:
    """Follows an SSE route on its own thread, collecting (id, event, data)."""

    def __init__(self, server, path, last_event_id=None):
        self.events = []
        self.comments = []
        self.closed = False
        self.error = None
        self.lock = threading.Condition()
        self.connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=120)
        headers = server.auth_headers()
        if last_event_id is not None:
            headers["Last-Event-ID"] = str(last_event_id)
        self.connection.request("GET", path, headers=headers)
        self.socket = self.connection.sock  # the response takes it over
        self.response = self.connection.getresponse()
        check(self.response.status == 200, "SSE %s -> %d" % (path, self.response.status))
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        fields = {}
        try:
            while True:
                line = self.response.readline()
                if not line:
                    break
                line = line.decode().rstrip("\r\n")
                if line == "":
                    if "data" in fields:
                        data = json.loads(fields["data"])
                        with self.lock:
                            self.events.append((fields.get("id"), fields.get("event"), data))
                            self.lock.notify_all()
                    fields = {}
                elif line.startswith(":"):
                    with self.lock:
                        self.comments.append(line)
                else:
                    name, _, value = line.partition(":")
                    value = value[1:] if value.startswith(" ") else value
                    fields[name] = fields[name] + "\n" + value if name in fields else value
        except (OSError, ValueError, http.client.HTTPException) as error:
            self.error = error
        with self.lock:
            self.closed = True
            self.lock.notify_all()

    def wait_until(self, predicate, timeout=30, what="events"):
        deadline = time.monotonic() + timeout
        with self.lock:
            while not predicate(self.events):
                remaining = deadline - time.monotonic()
                if remaining <= 0 or self.closed:
                    raise Failure("stream: timed out or closed waiting for %s; got %s" % (
                        what, [e[1] for e in self.events][-20:]))
                self.lock.wait(remaining)
            return list(self.events)

    def kinds(self):
        with self.lock:
            return [event[1] for event in self.events]

    def close(self):
        try:
            self.socket.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.connection.close()
        self.thread.join(timeout=10)


def turn_ends(events):
    return [e for e in events if e[1] == "turn_end"]


def count_turn_ends(n):
    return lambda events: len(turn_ends(events)) >= n


def check_paired(events, where):
    """Every tool call in an assistant event has exactly one tool_result."""
    calls = []
    results = []
    for _, kind, data in events:
        if kind == "assistant":
            for block in data.get("content", []):
                if block.get("type") == "tool_call":
                    calls.append(block.get("id"))
        if kind == "tool_result":
            results.append(data.get("call_id"))
    check(sorted(calls) == sorted(results),
          "%s: calls %s but results %s" % (where, calls, results))


def run_tests(tests, selected):
    failures = 0
    for name, test in tests:
        if selected and name not in selected:
            continue
        started = time.monotonic()
        try:
            test()
            print("ok   %-40s %.1f s" % (name, time.monotonic() - started), flush=True)
        except Exception as error:  # noqa: BLE001 - report every kind of failure
            failures += 1
            print("FAIL %-40s %s: %s" % (name, type(error).__name__, error), flush=True)
    return 1 if failures else 0
