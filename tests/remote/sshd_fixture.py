"""A real "remote machine" for tests: Debian's sshd on a high loopback port
with its own host keys, and a dedicated user with its own home (so a remote
backend there has its own AVA_HOME and machine id). Needs root, to create
the user and to run sshd; the caller skips (exit 77) otherwise.

    with RemoteMachine() as machine:
        client = machine.client("alice")        # a local HOME with keys
        machine.authorize(client.public_key("id_ed25519"))
"""

import os
import pwd
import secrets
import shutil
import socket
import subprocess
import tempfile
import time

SSHD = "/usr/sbin/sshd"


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def keygen(path, kind, passphrase=""):
    args = ["ssh-keygen", "-q", "-t", kind, "-N", passphrase, "-f", path, "-C", "ava-test"]
    if kind == "rsa":
        args[4:4] = ["-b", "2048"]
    subprocess.run(args, check=True)


def fingerprint(public_key_file):
    out = subprocess.run(["ssh-keygen", "-l", "-E", "sha256", "-f", public_key_file],
                         check=True, capture_output=True, text=True).stdout
    return out.split()[1]


class Client:
    """A local user's side: a HOME with ~/.ssh and an AVA_HOME."""

    def __init__(self, root):
        self.home = root
        self.ssh = os.path.join(root, ".ssh")
        os.makedirs(self.ssh, mode=0o700)
        self.ava_home = os.path.join(root, "ava-home")
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("SSH_")}
        self.env.update(HOME=root, AVA_HOME=self.ava_home, no_proxy="*", NO_PROXY="*")

    def key(self, name, kind, passphrase=""):
        path = os.path.join(self.ssh, name)
        keygen(path, kind, passphrase)
        return path

    def public_key(self, name):
        with open(os.path.join(self.ssh, name + ".pub"), encoding="utf-8") as f:
            return f.read()


class RemoteMachine:
    def __init__(self):
        self.root = tempfile.mkdtemp(prefix="ava-sshd-")
        os.chmod(self.root, 0o755)
        self.user = "avat" + secrets.token_hex(4)
        self.remote_home = os.path.join(self.root, "remote-home")
        self.server_dir = os.path.join(self.root, "sshd")
        os.makedirs(self.server_dir)
        self.port = None
        self.process = None
        self.host_keys = {}

    def __enter__(self):
        subprocess.run(["useradd", "-m", "-d", self.remote_home, "-s", "/bin/sh", self.user],
                       check=True)
        # A locked account ("!") is refused by sshd without PAM; "*" is no password.
        subprocess.run(["usermod", "-p", "*", self.user], check=True)
        entry = pwd.getpwnam(self.user)
        self.uid, self.gid = entry.pw_uid, entry.pw_gid
        ssh_dir = os.path.join(self.remote_home, ".ssh")
        os.makedirs(ssh_dir, mode=0o700, exist_ok=True)
        open(os.path.join(ssh_dir, "authorized_keys"), "a", encoding="utf-8").close()
        os.chmod(os.path.join(ssh_dir, "authorized_keys"), 0o600)
        for path in (ssh_dir, os.path.join(ssh_dir, "authorized_keys")):
            os.chown(path, self.uid, self.gid)
        self.new_host_key("first")
        self.start("first")
        return self

    def __exit__(self, *exc):
        self.stop()
        subprocess.run(["pkill", "-KILL", "-u", self.user], check=False)
        subprocess.run(["userdel", "-r", "-f", self.user], check=False,
                       stderr=subprocess.DEVNULL)
        shutil.rmtree(self.root, ignore_errors=True)

    def new_host_key(self, label):
        path = os.path.join(self.server_dir, "host_ed25519_" + label)
        keygen(path, "ed25519")
        self.host_keys[label] = path
        return fingerprint(path + ".pub")

    def host_fingerprint(self, label="first"):
        return fingerprint(self.host_keys[label] + ".pub")

    def authorize(self, public_key):
        with open(os.path.join(self.remote_home, ".ssh", "authorized_keys"), "a",
                  encoding="utf-8") as f:
            f.write(public_key)

    def client(self, name):
        return Client(os.path.join(self.root, "client-" + name))

    def start(self, host_key_label):
        os.makedirs("/run/sshd", mode=0o755, exist_ok=True)
        config = os.path.join(self.server_dir, "sshd_config")
        for _ in range(5):
            port = self.port or free_port()
            with open(config, "w", encoding="utf-8") as f:
                f.write("\n".join([
                    "Port %d" % port, "ListenAddress 127.0.0.1",
                    "HostKey " + self.host_keys[host_key_label],
                    "PidFile " + os.path.join(self.server_dir, "sshd.pid"),
                    "AuthorizedKeysFile .ssh/authorized_keys", "UsePAM no",
                    "PasswordAuthentication no", "KbdInteractiveAuthentication no",
                    "PubkeyAuthentication yes", "PermitRootLogin no", "AllowUsers " + self.user,
                    "StrictModes no", "LogLevel VERBOSE", "Subsystem sftp internal-sftp",
                    "AllowTcpForwarding yes", ""]))
            self.log = open(os.path.join(self.server_dir, "sshd.log"), "ab")
            self.process = subprocess.Popen([SSHD, "-D", "-e", "-f", config],
                                            stdout=self.log, stderr=subprocess.STDOUT)
            if self._wait_listening(port):
                self.port = port
                return
            self.stop()
            self.port = None
        raise RuntimeError("sshd did not start; see " + os.path.join(self.server_dir, "sshd.log"))

    def _wait_listening(self, port):
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                return False
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    return True
            except OSError:
                time.sleep(0.05)
        return False

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None

    def restart(self, host_key_label):
        self.stop()
        self.start(host_key_label)

    def sshd_log(self):
        with open(os.path.join(self.server_dir, "sshd.log"), encoding="utf-8",
                  errors="replace") as f:
            return f.read()[-4000:]
