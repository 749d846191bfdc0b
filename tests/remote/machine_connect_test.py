#!/usr/bin/env python3
"""`ava machine connect` against Debian's real sshd (sshd_fixture.py), the
test user's machine having no Ava: the build is uploaded by SFTP and
verified, the remote backend started under the remote user's own AVA_HOME,
and a conversation runs through the tunnel with its SSE stream (the
provider is the fake one, on this loopback). A second connect uploads
nothing and finds the same backend; a machine id that changed is refused.

A newer client finds the machine running an older build: it installs its
own beside it and the backend restarts into it only after the running turn
ended, the client's tunnel following it. The same connect over the openssh
transport (the system ssh client) installs and tunnels too.

    machine_connect_test.py AVA AVA_BACKEND FAKE_PROVIDER [TEST ...]
"""

import hashlib
import json
import os
import select
import shutil
import signal
import tempfile
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "app"))
from backend_harness import (EventStream, FakeProvider, Server, check,  # noqa: E402
                             count_turn_ends, run_tests)
from sshd_fixture import RemoteMachine  # noqa: E402

# Set from the command line, or by a script that imports the helpers
# (bench/remote/tunnel_bench.py).
AVA, BACKEND, FAKE = sys.argv[1:4] if __name__ == "__main__" else (None, None, None)
MACHINE = None
PROVIDER = None  # one fake provider for the file: the machine's backend outlives a test


def provider():
    global PROVIDER
    if PROVIDER is None:
        PROVIDER = FakeProvider(FAKE)
    return PROVIDER


class TunnelClient(Server):
    """The harness's HTTP helpers, pointed at a tunnel's local port and
    signed in the way a browser is: the one-time code for a cookie."""

    def __init__(self, port, login_url):
        self.port = port
        self.token = None
        self.cookie = None
        self.cookie = self.log_in(login_url.split("login=")[1])


class Connection:
    """A running `ava machine connect NAME --json`."""

    def __init__(self, client, name, *extra, ava=None):
        self.process = subprocess.Popen([ava or AVA, "machine", "connect", name, "--json", *extra],
                                        env=client.env, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True,
                                        stdin=subprocess.DEVNULL)
        self.pending = b""
        line = self.read_line(300)
        if not line:
            self.process.kill()
            raise AssertionError("connect printed nothing: exit %s\n%s\n-- sshd --\n%s" % (
                self.process.wait(), self.process.stderr.read(), MACHINE.sshd_log()))
        self.info = json.loads(line)

    def read_line(self, timeout):
        """The next line, or "" after `timeout` s (its own buffer: select on a
        file object misses lines its reader has already taken in)."""
        deadline = time.monotonic() + timeout
        fd = self.process.stdout.fileno()
        while b"\n" not in self.pending:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([fd], [], [], max(left, 0))
            if not ready:
                return ""
            chunk = os.read(fd, 65536)
            if not chunk:
                return ""
            self.pending += chunk
        line, self.pending = self.pending.split(b"\n", 1)
        return line.decode()

    def next_line(self, timeout):
        line = self.read_line(timeout)
        check(line, "connect printed nothing more in %d s" % timeout)
        return json.loads(line)

    def close(self):
        self.process.send_signal(signal.SIGINT)
        code = self.process.wait(timeout=30)
        check(code == 0, "connect ended with %d: %s" % (code, self.process.stderr.read()))


def remote_path(*parts):
    return os.path.join(MACHINE.remote_home, *parts)


def as_remote_user(path, mode):
    os.chown(path, MACHINE.uid, MACHINE.gid)
    os.chmod(path, mode)


def prepare_remote_home(fake):
    """The remote user's own settings: the fake provider, tools without asking."""
    home = remote_path(".ava")
    os.makedirs(home, exist_ok=True)
    as_remote_user(home, 0o700)
    files = {"settings.json": {"provider": "anthropic",
                               "providers": {"anthropic": {"baseUrl": fake.url}},
                               "permissions": {"defaultMode": "auto"}},
             "auth.json": {"anthropic": {"apiKey": "test-key"}}}
    for name, content in files.items():
        with open(os.path.join(home, name), "w", encoding="utf-8") as f:
            json.dump(content, f)
        as_remote_user(os.path.join(home, name), 0o600)
    project = remote_path("project")
    os.makedirs(project, exist_ok=True)
    as_remote_user(project, 0o755)
    return project


def sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def added_client(name, transport="libssh2"):
    """A client with its own key, and the machine added as "box"."""
    client = MACHINE.client(name)
    client.key("id_ed25519", "ed25519")
    MACHINE.authorize(client.public_key("id_ed25519"))
    added = subprocess.run([AVA, "machine", "add", "box", "%s@127.0.0.1:%d" % (
        MACHINE.user, MACHINE.port), "--transport", transport, "--accept-host-key",
        MACHINE.host_fingerprint(), "--json"], env=client.env, capture_output=True, text=True,
        timeout=60)
    check(added.returncode == 0, added)
    return client, json.loads(added.stdout)


def cut_ssh_connections():
    """Kills the sshd children serving the test user: every SSH connection
    to the machine drops at once; the listening sshd stays."""
    subprocess.run(["pkill", "-KILL", "-f", "^sshd: %s" % MACHINE.user], check=False)


def reopened_stream(api, path, last_id, deadline=60):
    """A new SSE stream from the last event seen, once the tunnel answers again
    (what a browser's EventSource does after the connection dropped)."""
    limit = time.monotonic() + deadline
    while True:
        try:
            return EventStream(api, path, last_event_id=last_id)
        except Exception:  # noqa: BLE001 - the tunnel is still reconnecting
            if time.monotonic() > limit:
                raise
            time.sleep(0.2)


def turn_through_tunnel(api, project, text, input_id):
    """A conversation in `project` on the machine, one turn followed on its
    SSE stream through the tunnel; the conversation's id."""
    project_id = api.ok("POST", "/api/projects", {"path": project})["id"]
    conversation = api.ok("POST", "/api/conversations", {"projectId": project_id})["id"]
    base = "/api/conversations/" + conversation
    stream = EventStream(api, base + "/events")
    api.ok("POST", base + "/input", {"text": text, "inputId": input_id}, expect=(202,))
    events = stream.wait_until(count_turn_ends(1), timeout=60, what="the turn")
    stream.close()
    texts = json.dumps([e[2] for e in events if e[1] == "assistant"])
    check(text in texts, texts[:500])
    return conversation


def test_connect_installs_starts_and_tunnels_a_conversation():
    fake = provider()
    project = prepare_remote_home(fake)
    client, found = added_client("connect")
    check(found["ava"] is None, found)

    started = time.monotonic()
    first = Connection(client, "box")
    info = first.info
    check(info["uploaded"] and not info["updatePending"], info)
    installed = info["installed"]
    check(installed.startswith(remote_path(".local/share/ava/versions/")), installed)
    check(sha256(os.path.join(installed, "ava")) == sha256(AVA), "the uploaded ava differs")
    check(os.stat(os.path.join(installed, "ava")).st_uid == MACHINE.uid, "owned by the user")
    check(os.readlink(remote_path(".local/share/ava/current")) ==
          os.path.relpath(installed, remote_path(".local/share/ava")), "current")
    check(not [n for n in os.listdir(installed) if n.startswith(".upload-")], "no leftovers")
    with open(remote_path(".ava", "backend.json"), encoding="utf-8") as f:
        remote_backend = json.load(f)
    check(remote_backend["pid"] == info["pid"] and remote_backend["port"] == info["remotePort"],
          (remote_backend, info))
    print("connect with upload: %.1f s" % (time.monotonic() - started), flush=True)

    api = TunnelClient(info["localPort"], info["url"])
    conversation = turn_through_tunnel(api, project, "hello through the tunnel", "tunnel-input-1")
    # The log is the remote user's, under the remote AVA_HOME.
    check(os.listdir(remote_path(".ava", "sessions")), "the session log is on the machine")
    check(not os.path.exists(os.path.join(client.ava_home, "sessions")), "nothing local")
    first.close()

    with open(os.path.join(client.ava_home, "machines.json"), encoding="utf-8") as f:
        machines = json.load(f)
    check(machines["machines"][0]["machineId"] == info["machineId"], machines)

    second = Connection(client, "box")
    check(not second.info["uploaded"], second.info)
    check(second.info["pid"] == info["pid"], "the running backend is found, not restarted")
    api = TunnelClient(second.info["localPort"], second.info["url"])
    listed = api.ok("GET", "/api/conversations")
    check(conversation in json.dumps(listed), listed)
    second.close()

    machines["machines"][0]["machineId"] = "0000-not-this-machine"
    with open(os.path.join(client.ava_home, "machines.json"), "w", encoding="utf-8") as f:
        json.dump(machines, f)
    refused = subprocess.run([AVA, "machine", "connect", "box", "--json"], env=client.env,
                             capture_output=True, text=True, timeout=120,
                             stdin=subprocess.DEVNULL)
    check(refused.returncode == 1 and "another machine" in refused.stderr, refused)


def test_a_cut_tunnel_reconnects_and_the_turn_resumes_once():
    fake = provider()
    project = prepare_remote_home(fake)
    client, _ = added_client("reconnect")
    connection = Connection(client, "box")
    port = connection.info["localPort"]
    api = TunnelClient(port, connection.info["url"])
    project_id = api.ok("POST", "/api/projects", {"path": project})["id"]
    base = "/api/conversations/" + api.ok("POST", "/api/conversations",
                                          {"projectId": project_id})["id"]
    stream = EventStream(api, base + "/events")
    words = " ".join("w%d" % i for i in range(12))
    api.ok("POST", base + "/input", {"text": "slow: 300: " + words,
                                     "inputId": "cut-tunnel-1"}, expect=(202,))
    stream.wait_until(lambda events: any(e[1] == "input" for e in events), timeout=30,
                      what="the input")
    time.sleep(1)  # the answer is streaming now (12 words, 300 ms apart)
    seen = [e[0] for e in stream.events if e[0]][-1]
    started = time.monotonic()
    cut_ssh_connections()
    stream.close()
    resumed = reopened_stream(api, base + "/events", seen)
    print("tunnel back after a cut: %.2f s" % (time.monotonic() - started), flush=True)
    events = resumed.wait_until(count_turn_ends(1), timeout=60, what="the turn's end")
    resumed.close()
    check(all(int(e[0]) > int(seen) for e in events if e[0]), "resumed after the cursor")

    everything = EventStream(api, base + "/events")
    events = everything.wait_until(count_turn_ends(1), timeout=30, what="the whole log")
    everything.close()
    inputs = [e for e in events if e[1] == "input"]
    check(len(inputs) == 1 and inputs[0][2]["input_id"] == "cut-tunnel-1", inputs)
    check(len([e for e in events if e[1] == "turn_end"]) == 1, "one turn end")
    text = json.dumps([e[2] for e in events if e[1] == "assistant"])
    check("w11" in text, "the whole answer arrived: %s %s" % (
        text[:300], [(e[1], e[2].get("reason")) for e in events]))
    check(connection.process.poll() is None, "connect kept running")
    # What a program following --json (the desktop) was told, in order.
    lost = connection.next_line(30)
    check(lost["event"] == "reconnecting" and lost["machine"] == "box", lost)
    back = lost
    while back["event"] == "reconnecting":
        back = connection.next_line(30)
    check(back["event"] == "reconnected" and back["pid"] == connection.info["pid"], back)
    connection.close()


def newer_build(folder):
    """This build with one more byte: another build id (the version is the
    same), as a newer client would be."""
    os.makedirs(folder)
    shutil.copy(AVA, os.path.join(folder, "ava"))
    with open(os.path.join(folder, "ava"), "ab") as f:
        f.write(b"\n")
    shutil.copy(BACKEND, os.path.join(folder, "ava-backend"))
    return os.path.join(folder, "ava")


def test_an_update_waits_for_the_running_turn():
    fake = provider()
    scratch = tempfile.mkdtemp(prefix="ava-newer-build-")
    try:
        project = prepare_remote_home(fake)
        client, _ = added_client("update")
        old = Connection(client, "box")
        api = TunnelClient(old.info["localPort"], old.info["url"])
        project_id = api.ok("POST", "/api/projects", {"path": project})["id"]
        base = "/api/conversations/" + api.ok("POST", "/api/conversations",
                                              {"projectId": project_id})["id"]
        stream = EventStream(api, base + "/events")
        # Long enough to outlast uploading the newer build (two large binaries):
        # 20 words, each three stream events 800 ms apart.
        words = " ".join("u%d" % i for i in range(20))
        api.ok("POST", base + "/input", {"text": "slow: 800: " + words,
                                         "inputId": "during-update"}, expect=(202,))
        stream.wait_until(lambda events: any(e[1] == "input" for e in events), what="the input")
        old_pid = old.info["pid"]

        newer = Connection(client, "box", ava=newer_build(os.path.join(scratch, "b")))
        check(newer.info["uploaded"] and newer.info["updatePending"], newer.info)
        check(newer.info["pid"] == old_pid, "the running backend is used meanwhile")
        # The running turn goes on; new inputs wait for the restart.
        wait_for_status = time.monotonic() + 20
        while not api.ok("GET", "/api/status")["restartPending"]:
            check(time.monotonic() < wait_for_status, "restart never became pending")
            time.sleep(0.1)
        refused = api.request("POST", base + "/input", {"text": "x", "inputId": "refused-1"})
        check(refused.status == 503, (refused.status, refused.raw))

        restarted = newer.next_line(120)
        check(restarted["event"] == "backendRestarted" and restarted["pid"] != old_pid, restarted)
        check(not restarted["updatePending"], restarted)
        stream.close()
        api = TunnelClient(newer.info["localPort"], restarted["url"])
        log = EventStream(api, base + "/events")
        events = log.wait_until(count_turn_ends(1), timeout=30, what="the turn in the log")
        log.close()
        ends = [e[2] for e in events if e[1] == "turn_end"]
        check(len(ends) == 1 and ends[0]["reason"] == "completed", ends)
        text = json.dumps([e[2] for e in events if e[1] == "assistant"])
        check("u19" in text, "the whole answer: " + text[:300])
        exe = os.readlink("/proc/%d/exe" % restarted["pid"])
        check(exe == os.path.join(newer.info["installed"], "ava-backend"), exe)
        newer.close()
        old.close()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


OAUTH_SERVER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "oauth",
                            "oauth_test_server.py")


def fetch(url):
    """GET as a browser does (redirects followed): the final status and page."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(url, timeout=30) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as refused:
        return refused.code, refused.read().decode()


def test_an_mcp_sign_in_on_the_machine_redirects_to_the_client():
    """An OAuth sign-in of an MCP server configured on the machine, started
    through the tunnel: the browser is sent to connect's own loopback
    listener on the client's machine, which hands the redirect to the
    machine's backend through the tunnel; no listener on the machine is
    involved, and a forged redirect is refused."""
    fake = provider()
    prepare_remote_home(fake)
    auth = subprocess.Popen([sys.executable, OAUTH_SERVER], stderr=subprocess.PIPE, text=True)
    try:
        line = auth.stderr.readline()
        check(line.startswith("AVA_LISTENING "), "oauth server: " + line)
        auth_base = "http://127.0.0.1:%d" % int(line.split()[1])
        client, _ = added_client("sign-in")
        connection = Connection(client, "box")
        relay = connection.info["redirectPort"]
        check(relay > 0, connection.info)
        url = connection.info["url"]
        if connection.info["updatePending"]:  # the machine runs the update test's build
            restarted = connection.next_line(120)
            check(restarted["event"] == "backendRestarted", restarted)
            url = restarted["url"]
        api = TunnelClient(connection.info["localPort"], url)
        api.ok("POST", "/api/mcp/servers", {"name": "secure", "type": "http",
                                            "url": auth_base + "/mcp"}, expect=(201,))
        page = api.ok("POST", "/api/mcp/servers/secure/login", {})["authorizationUrl"]
        query = urllib.parse.parse_qs(urllib.parse.urlparse(page).query)
        check(query["redirect_uri"] == ["http://127.0.0.1:%d/callback" % relay], query)

        status, text = fetch("http://127.0.0.1:%d/callback?code=x&state=forged" % relay)
        check(status == 400 and "not one Ava is waiting for" in text, (status, text))
        status, _ = fetch("http://127.0.0.1:%d/elsewhere" % relay)
        check(status == 404, status)

        status, text = fetch(page)  # the browser: the server's page, then the redirect
        check(status == 200 and "passed the sign-in on" in text, (status, text))
        deadline = time.monotonic() + 30
        while True:
            servers = api.ok("GET", "/api/mcp/servers")["servers"]
            if [s for s in servers if s["name"] == "secure" and s.get("signedIn")]:
                break
            check(time.monotonic() < deadline, "never signed in: %s" % servers)
            time.sleep(0.2)
        with urllib.request.urlopen(auth_base + "/control/state", timeout=10) as answer:
            state = json.load(answer)
        check(not state["errors"], state["errors"])
        connection.close()
    finally:
        auth.terminate()
        auth.wait(timeout=10)


def ssh_masters():
    """Control masters of the openssh transport still running (their
    ControlPath is in a private ava-ssh-* folder)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % entry, "rb") as f:
                command = f.read()
        except OSError:
            continue
        if command.startswith(b"ssh") and b"/ava-ssh-" in command:
            found.append(entry)
    return found


def test_the_openssh_transport_installs_and_tunnels():
    """The machine as `--transport openssh` (the system ssh client): the
    same install (a fresh one: the builds are removed first), backend and
    tunnel, and nothing of ssh left once connect ends."""
    fake = provider()
    project = prepare_remote_home(fake)
    subprocess.run(["pkill", "-KILL", "-u", MACHINE.user, "-f", "ava-backend"], check=False)
    shutil.rmtree(remote_path(".local", "share", "ava"), ignore_errors=True)
    client, _ = added_client("openssh", transport="openssh")

    started = time.monotonic()
    connection = Connection(client, "box")
    info = connection.info
    check(info["uploaded"] and not info["updatePending"], info)
    check(sha256(os.path.join(info["installed"], "ava")) == sha256(AVA), "the uploaded ava differs")
    check(os.stat(os.path.join(info["installed"], "ava")).st_mode & 0o777 == 0o755, "mode")
    print("openssh connect with upload: %.1f s" % (time.monotonic() - started), flush=True)

    api = TunnelClient(info["localPort"], info["url"])
    turn_through_tunnel(api, project, "hello through openssh", "openssh-input-1")
    check(ssh_masters(), "one control master carries the runs")
    connection.close()
    deadline = time.monotonic() + 10
    while ssh_masters() and time.monotonic() < deadline:
        time.sleep(0.1)
    check(not ssh_masters(), "an ssh control master outlived connect")


TESTS = [(name, fn) for name, fn in list(globals().items()) if name.startswith("test_")]  # in order

if __name__ == "__main__":
    if os.geteuid() != 0:
        print("skipped: needs root to create the test user and run sshd")
        sys.exit(77)
    with RemoteMachine() as machine:
        MACHINE = machine
        try:
            code = run_tests(TESTS, sys.argv[4:])
        finally:
            if PROVIDER:
                PROVIDER.stop()
        sys.exit(code)
