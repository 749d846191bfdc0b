#!/usr/bin/env python3
"""`ava machine add|list|test|remove` against Debian's real sshd on a high
loopback port (sshd_fixture.py): first contact needs an explicit accept of
the exact fingerprint, a changed host key is refused with both
fingerprints, an RSA-only user gets the clear libssh2 message and works
with the openssh transport, ssh-agent keys, ssh_config aliases and
encrypted keys without a terminal.

    machine_cli_test.py AVA [TEST ...]
"""

import json
import os
import platform
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "app"))
from backend_harness import check, run_tests  # noqa: E402
from sshd_fixture import RemoteMachine  # noqa: E402

AVA = sys.argv[1]
MACHINE = None


def ava(client, *args, ok=True):
    done = subprocess.run([AVA, *args], env=client.env, capture_output=True, text=True,
                          timeout=120, stdin=subprocess.DEVNULL)
    if ok:
        check(done.returncode == 0, "ava %s: exit %d\n%s\n%s\n-- sshd --\n%s" % (
            " ".join(args), done.returncode, done.stdout, done.stderr, MACHINE.sshd_log()))
    return done


def destination():
    return "%s@127.0.0.1:%d" % (MACHINE.user, MACHINE.port)


def ed25519_client(name):
    client = MACHINE.client(name)
    client.key("id_ed25519", "ed25519")
    MACHINE.authorize(client.public_key("id_ed25519"))
    return client


def test_first_contact_needs_the_exact_fingerprint():
    client = ed25519_client("first")
    fp = MACHINE.host_fingerprint()
    added = ava(client, "machine", "add", "box", destination(), ok=False)
    check(added.returncode == 1, added)
    check("is not known yet" in added.stderr and fp in added.stderr, added.stderr)
    check("saved" in added.stderr, added.stderr)
    listed = json.loads(ava(client, "machine", "list", "--json").stdout)
    check([m["name"] for m in listed] == ["box"], listed)

    wrong = ava(client, "machine", "test", "box", "--accept-host-key",
                "SHA256:" + "A" * 43, ok=False)
    check(wrong.returncode == 1 and "is not known yet" in wrong.stderr, wrong.stderr)
    check(not os.path.exists(os.path.join(client.ssh, "known_hosts")), "nothing recorded")
    # connect --json ends with a JSON line naming the key (what the desktop shows).
    connect = ava(client, "machine", "connect", "box", "--json", ok=False)
    failed = json.loads(connect.stdout.strip().splitlines()[-1])
    check(connect.returncode == 1 and failed["event"] == "failed", connect)
    check(failed["code"] == "permission_denied" and "is not known yet" in failed["message"], failed)
    check(failed["hostKey"]["fingerprint"] == fp and failed["hostKey"]["type"] == "ssh-ed25519",
          failed)
    check(not os.path.exists(os.path.join(client.ssh, "known_hosts")), "nothing recorded")

    accepted = ava(client, "machine", "test", "box", "--accept-host-key", fp)
    check("Linux" in accepted.stdout and fp in accepted.stdout, accepted.stdout)
    with open(os.path.join(client.ssh, "known_hosts"), encoding="utf-8") as f:
        known = f.read()
    check(known.startswith("|1|") and "127.0.0.1" not in known, known)

    again = json.loads(ava(client, "machine", "test", "box", "--json").stdout)
    check(again["os"] == platform.system() and again["arch"] == platform.machine(), again)
    check(again["hostKey"]["fingerprint"] == fp and again["user"] == MACHINE.user, again)
    check(again["signedInWith"].endswith("id_ed25519 (ssh-ed25519)"), again)
    check(again["ava"] is None, again)

    ava(client, "machine", "remove", "box")
    check(json.loads(ava(client, "machine", "list", "--json").stdout) == [], "removed")
    gone = ava(client, "machine", "test", "box", ok=False)
    check(gone.returncode == 1 and "no machine named" in gone.stderr, gone.stderr)


def test_a_changed_host_key_is_refused():
    client = ed25519_client("changed")
    old = MACHINE.host_fingerprint()
    ava(client, "machine", "add", "box", destination(), "--accept-host-key", old)
    new = MACHINE.new_host_key("second")
    MACHINE.restart("second")
    try:
        for transport in ("libssh2", "openssh"):
            if transport == "openssh":
                ava(client, "machine", "add", "box-ossh", destination(), "--transport",
                    "openssh", "--no-test")
            refused = ava(client, "machine", "test",
                          "box" if transport == "libssh2" else "box-ossh",
                          "--accept-host-key", new, ok=False)
            check(refused.returncode == 1, refused)
            check("HAS CHANGED" in refused.stderr, transport + ": " + refused.stderr)
            check(old in refused.stderr and new in refused.stderr, refused.stderr)
    finally:
        MACHINE.restart("first")
    ava(client, "machine", "test", "box")


def test_an_rsa_only_user_gets_the_clear_message_and_openssh_works():
    client = MACHINE.client("rsa")
    client.key("id_rsa", "rsa")
    MACHINE.authorize(client.public_key("id_rsa"))
    fp = MACHINE.host_fingerprint()
    # The openssh transport keeps the same host-key rules: unknown first.
    unknown = ava(client, "machine", "add", "rsa-ossh", destination(), "--transport", "openssh",
                  ok=False)
    check(unknown.returncode == 1 and "is not known yet" in unknown.stderr
          and fp in unknown.stderr, unknown.stderr)
    check(not os.path.exists(os.path.join(client.ssh, "known_hosts")), "nothing recorded")

    refused = ava(client, "machine", "add", "rsa", destination(), "--accept-host-key", fp,
                  ok=False)
    check(refused.returncode == 1, refused)
    check("signs RSA keys only with SHA-1" in refused.stderr, refused.stderr)
    check("--transport openssh" in refused.stderr, refused.stderr)

    works = ava(client, "machine", "test", "rsa-ossh", "--json")
    found = json.loads(works.stdout)
    check(found["transport"] == "openssh" and found["os"] == platform.system(), found)


def test_ssh_agent_keys_and_config_aliases():
    client = MACHINE.client("agent")
    agent_key = client.key("agent_only", "ed25519")
    MACHINE.authorize(client.public_key("agent_only"))
    sock = os.path.join(client.home, "agent.sock")
    agent = subprocess.Popen(["ssh-agent", "-D", "-a", sock], stdout=subprocess.DEVNULL)
    try:
        env = dict(client.env, SSH_AUTH_SOCK=sock)
        for _ in range(100):
            if os.path.exists(sock):
                break
            subprocess.run(["sleep", "0.05"], check=True)
        subprocess.run(["ssh-add", "-q", agent_key], env=env, check=True)
        os.rename(agent_key, agent_key + ".moved")  # only the agent has it now
        with open(os.path.join(client.ssh, "config"), "w", encoding="utf-8") as f:
            f.write("Host lab\n  HostName 127.0.0.1\n  Port %d\n  User %s\n"
                    "Host *\n  ServerAliveInterval 20\n" % (MACHINE.port, MACHINE.user))
        client.env = env
        added = ava(client, "machine", "add", "lab", "lab", "--accept-host-key",
                    MACHINE.host_fingerprint(), "--json")
        found = json.loads(added.stdout)
        check(found["signedInWith"].startswith("ssh-agent key ssh-ed25519 SHA256:"), found)
        check(found["host"] == "127.0.0.1" and found["port"] == MACHINE.port, found)
    finally:
        agent.terminate()
        agent.wait()


def test_an_encrypted_key_without_a_terminal_is_skipped_with_a_reason():
    client = MACHINE.client("encrypted")
    client.key("id_ed25519", "ed25519", passphrase="secret words")
    MACHINE.authorize(client.public_key("id_ed25519"))
    refused = ava(client, "machine", "add", "enc", destination(), "--accept-host-key",
                  MACHINE.host_fingerprint(), ok=False)
    check(refused.returncode == 1, refused)
    check("encrypted and no passphrase given" in refused.stderr, refused.stderr)


def test_bad_input_is_refused_before_connecting():
    client = MACHINE.client("bad")
    for args in (["add", "local", "host"], ["add", "x", "-oProxyCommand=evil"],
                 ["add", "x", "host:99999"], ["add", "x", "host", "--transport", "telnet"]):
        done = ava(client, "machine", *args, ok=False)
        check(done.returncode == 2, "%s: %s" % (args, done))
    check(json.loads(ava(client, "machine", "list", "--json").stdout) == [], "nothing saved")


TESTS = [(name, fn) for name, fn in sorted(globals().items()) if name.startswith("test_")]

if __name__ == "__main__":
    if os.geteuid() != 0:
        print("skipped: needs root to create the test user and run sshd")
        sys.exit(77)
    with RemoteMachine() as machine:
        MACHINE = machine
        sys.exit(run_tests(TESTS, sys.argv[2:]))
