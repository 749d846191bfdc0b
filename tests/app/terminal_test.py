#!/usr/bin/env python3
"""Black-box tests of interactive terminals: GET /api/projects/{id}/terminal
on a real ava-backend (and `ava --serve`, signed in with the browser's
cookie), a real login shell on a real pty, spoken to as a WebSocket.

    terminal_test.py AVA AVA_BACKEND FAKE_PROVIDER [TEST ...]
"""

import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from backend_harness import FakeProvider, Home, Server, check, run_tests, wait_for  # noqa: E402
from websocket_client import BINARY, CLOSE, TEXT, HandshakeRefused, WebSocket  # noqa: E402

AVA, BACKEND, FAKE = sys.argv[1:4]


class Setup:
    """A backend (or `ava --serve`) with one project."""

    def __init__(self, serve=False):
        self.serve = serve

    def __enter__(self):
        self.fake = FakeProvider(FAKE)
        self.home = Home(self.fake)
        # The shell's profile must not print anything the tests look for.
        self.home.env["HOME"] = self.home.project
        command = [AVA, "--serve", "--port", "0", "--no-open"] if self.serve else [
            BACKEND, "--port", "0"]
        self.server = Server(self.home, command, backend=not self.serve)
        self.project = self.server.ok("POST", "/api/projects", {"path": self.home.project})["id"]
        return self

    def __exit__(self, *_):
        self.server.stop()
        self.fake.stop()
        self.home.cleanup()

    def open(self, query="", headers=None):
        all_headers = self.server.auth_headers()
        all_headers.update(headers or {})
        return WebSocket(self.server.port, "/api/projects/%s/terminal%s" % (self.project, query),
                         all_headers)


class Screen:
    """What a terminal printed, read until something shows up."""

    def __init__(self, socket):
        self.socket = socket
        self.text = ""
        self.control = []

    def until(self, needle, seconds=20):
        deadline = time.monotonic() + seconds
        while needle not in self.text:
            check(time.monotonic() < deadline, "%r never appeared; saw %r" % (needle,
                                                                              self.text[-2000:]))
            opcode, payload = self.socket.receive()
            if opcode == CLOSE:
                check(needle in self.text, "closed before %r; saw %r" % (needle, self.text[-2000:]))
                return
            if opcode == BINARY:
                self.text += payload.decode(errors="replace")
            elif opcode == TEXT:
                self.control.append(json.loads(payload))

    def until_closed(self, seconds=20):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            opcode, payload = self.socket.receive()
            if opcode == CLOSE:
                return
            if opcode == BINARY:
                self.text += payload.decode(errors="replace")
            elif opcode == TEXT:
                self.control.append(json.loads(payload))
        check(False, "the terminal never closed")


def shell_pid(socket):
    """The pid of the shell behind a terminal, as it says itself."""
    screen = Screen(socket)
    socket.send(b"echo \"pid:$$:\"\n")
    screen.until(":\r\n")
    return int(screen.text.split("pid:")[-1].split(":")[0])


def test_a_shell_in_the_project_runs_commands_and_reports_its_exit():
    with Setup() as setup:
        socket = setup.open("?cols=100&rows=30")
        screen = Screen(socket)
        socket.send(b"cd -P .; echo \"at:$(pwd)\"; echo \"sum:$((6*7))\"\n")
        screen.until("sum:42")
        check("at:" + os.path.realpath(setup.home.project) in screen.text, screen.text[-500:])
        socket.send(b"stty size\n")
        screen.until("30 100")
        socket.send(json.dumps({"type": "resize", "cols": 120, "rows": 40}))
        socket.send(b"stty size\n")
        screen.until("40 120")
        socket.send(b"exit 3\n")
        screen.until_closed()
        check(screen.control and screen.control[-1]["type"] == "exit" and
              screen.control[-1]["code"] == 3, "exit message: %r" % screen.control)
        check(socket.close_code == 1000, "close code %r" % socket.close_code)


def test_closing_the_view_ends_the_shell():
    with Setup() as setup:
        socket = setup.open()
        pid = shell_pid(socket)
        check(os.path.exists("/proc/%d" % pid), "the shell is not running")
        socket.close()
        wait_for(lambda: not os.path.exists("/proc/%d" % pid) or
                 open("/proc/%d/stat" % pid).read().split()[2] == "Z", 10, "the shell to end")


def test_a_bad_control_message_closes_with_1008_and_a_reason():
    with Setup() as setup:
        socket = setup.open()
        socket.send(json.dumps({"type": "resize", "cols": 0, "rows": 40}))
        Screen(socket).until_closed()
        check(socket.close_code == 1008, "close code %r" % socket.close_code)
        check("between 1 and 1000" in socket.close_reason, socket.close_reason)
        socket = setup.open()
        socket.send("[" * 100)
        Screen(socket).until_closed()
        check(socket.close_code == 1008, "close code %r" % socket.close_code)


def test_the_route_refuses_what_is_not_a_signed_in_same_origin_websocket():
    with Setup() as setup:
        def refused(status, **kwargs):
            try:
                setup.open(**kwargs).close()
            except HandshakeRefused as refusal:
                check(refusal.status == status, "wanted %d, got %d %s" % (
                    status, refusal.status, refusal.body))
                return
            check(False, "the handshake was accepted: %r" % kwargs)

        refused(403, headers={"Origin": "http://evil.example"})
        refused(400, query="?cols=0")
        refused(400, query="?rows=abc")
        response = setup.server.request("GET", "/api/projects/%s/terminal" % setup.project)
        check(response.status == 400 and "WebSocket" in response.raw.decode(), response.raw)
        try:
            WebSocket(setup.server.port, "/api/projects/%s/terminal" % setup.project)
            check(False, "accepted without the token")
        except HandshakeRefused as refusal:
            check(refusal.status == 401, "without a token: %d" % refusal.status)
        try:
            WebSocket(setup.server.port, "/api/projects/nope/terminal",
                      setup.server.auth_headers())
            check(False, "accepted an unknown project")
        except HandshakeRefused as refusal:
            check(refusal.status == 404, "unknown project: %d" % refusal.status)


def test_serve_mode_takes_the_browser_cookie():
    with Setup(serve=True) as setup:
        socket = setup.open(headers={"Origin": "http://127.0.0.1:%d" % setup.server.port})
        screen = Screen(socket)
        socket.send(b"echo cookie-$((1+1))\n")
        screen.until("cookie-2")
        socket.close()


def test_shutdown_hangs_up_open_terminals():
    with Setup() as setup:
        socket = setup.open()
        pid = shell_pid(socket)
        setup.server.stop()
        check(setup.server.process.returncode == 0, "backend exit %r" %
              setup.server.process.returncode)
        wait_for(lambda: not os.path.exists("/proc/%d" % pid), 10, "the shell to end")


if __name__ == "__main__":
    tests = [(name, test) for name, test in sorted(globals().items()) if name.startswith("test_")]
    sys.exit(run_tests(tests, set(sys.argv[4:])))
