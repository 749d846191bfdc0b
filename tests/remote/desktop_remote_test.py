#!/usr/bin/env python3
"""ava-desktop on a remote machine, under Xvfb, against Debian's real sshd
(sshd_fixture.py): the machine is added through the Add-a-machine dialog,
its unknown host key is shown in the host-key dialog and accepted there
(the automation compares the fingerprint shown with the server's first),
the encrypted key's passphrase is typed into its dialog,
the desktop's `ava machine connect` installs Ava on the machine and tunnels
to its backend, and a prompt typed into the composer runs there: the
session log is the remote user's, nothing of it is stored on the client,
and closing the window ends the tunnel.

    desktop_remote_test.py AVA_DESKTOP AVA FAKE_PROVIDER OUT_DIR
"""

import glob
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "app"))
from backend_harness import FakeProvider, check  # noqa: E402
from sshd_fixture import RemoteMachine  # noqa: E402
import machine_connect_test as remote_helpers  # noqa: E402


def tunnels_of(home):
    """The `ava machine connect` processes a desktop with this HOME started."""
    found = []
    for status in glob.glob("/proc/[0-9]*/environ"):
        try:
            with open(status, "rb") as f:
                environ = f.read().split(b"\0")
            with open(status.replace("environ", "cmdline"), "rb") as f:
                command = f.read().split(b"\0")
        except OSError:
            continue
        if (b"HOME=" + home.encode()) in environ and b"connect" in command and b"machine" in command:
            found.append(status.split("/")[2])
    return found


def main():
    if len(sys.argv) != 5:
        print(__doc__)
        return 2
    desktop, ava, fake_binary, out = sys.argv[1:]
    if os.geteuid() != 0 or not os.path.exists("/usr/sbin/sshd"):
        print("skipped: needs root and Debian's sshd for a test user and its server")
        return 77
    os.makedirs(out, exist_ok=True)
    shot = os.path.join(out, "remote-conversation.png")
    if os.path.exists(shot):
        os.remove(shot)
    fake = FakeProvider(fake_binary)
    try:
        with RemoteMachine() as machine:
            remote_helpers.MACHINE = machine
            project = remote_helpers.prepare_remote_home(fake)
            client = machine.client("desktop")
            # An encrypted key and no ssh-agent: the passphrase dialog asks.
            client.key("id_ed25519", "ed25519", passphrase="correct horse battery")
            machine.authorize(client.public_key("id_ed25519"))
            env = dict(client.env)
            for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM", "AVA_BACKEND_BIN"):
                env.pop(name, None)
            env.update({"QT_QUICK_CONTROLS_STYLE": "Basic",
                        "CODEX_HOME": os.path.join(client.home, "codex"),
                        "ASAN_OPTIONS": "detect_leaks=0:abort_on_error=1"})
            destination = "%s@127.0.0.1:%d" % (machine.user, machine.port)
            started = time.monotonic()
            run = subprocess.run(
                ["xvfb-run", "-a", "-s", "-screen 0 1280x860x24", desktop, "--ava", ava,
                 "--no-autostart", "--e2e-machine", "box=" + destination,
                 "--e2e-host-key", machine.host_fingerprint(),
                 "--e2e-passphrase", "correct horse battery", "--e2e-project", project,
                 "--e2e-prompt", "bash: echo hello from the remote machine",
                 "--e2e-screenshot", shot],
                env=env, capture_output=True, text=True, timeout=400)
            print(run.stdout, end="")
            check(run.returncode == 0, "ava-desktop exited %d\nstdout: %s\nstderr: %s\n-- sshd --\n%s" % (
                run.returncode, run.stdout, run.stderr[-4000:], machine.sshd_log()))
            check("machine box added, host key %s accepted" % machine.host_fingerprint() in run.stdout,
                  run.stdout)
            check(", passphrase given; answered;" in run.stdout, run.stdout)
            print("desktop on the remote machine: %.1f s" % (time.monotonic() - started))

            # The accepted key is remembered where ssh finds it too.
            with open(os.path.join(client.ssh, "known_hosts"), encoding="utf-8") as f:
                check(f.read().startswith("|1|"), "a hashed known_hosts entry")
            # The machine was saved with the id its backend reported.
            with open(os.path.join(client.ava_home, "machines.json"), encoding="utf-8") as f:
                check('"machineId"' in f.read(), "machines.json has no machine id")
            # The conversation ran on the machine: its log is the remote user's.
            logs = glob.glob(os.path.join(machine.remote_home, ".ava", "sessions", "*.jsonl.zst"))
            check(logs, "no session log on the machine")
            text = "".join(subprocess.run(["zstdcat", log], capture_output=True, text=True,
                                          check=True).stdout for log in logs)
            check("hello from the remote machine" in text, text[-2000:])
            check(not os.path.exists(os.path.join(client.ava_home, "sessions")),
                  "the client keeps no session storage of the machine")
            # Closing the window ended its tunnel.
            deadline = time.monotonic() + 10
            while tunnels_of(client.home) and time.monotonic() < deadline:
                time.sleep(0.1)
            check(not tunnels_of(client.home), "a tunnel outlived the desktop")
            size = os.path.getsize(shot) if os.path.exists(shot) else 0
            check(size > 10000, "no screenshot of the remote conversation")
            print("screenshot: %s" % shot)
    finally:
        fake.stop()
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
