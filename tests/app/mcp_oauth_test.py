#!/usr/bin/env python3
"""OAuth for configured MCP servers, end to end with the real binaries and
the loopback authorization server of tests/oauth/oauth_test_server.py
(discovery, registration, PKCE, rotating refresh tokens; it records every
rule a client breaks and the test requires none):

- `ava mcp test` on a server that needs a sign-in fails and names
  `ava mcp login`; `ava mcp login --no-browser` prints the page, the test
  "is the browser" (a GET that follows the redirect to Ava's listener);
  then `ava mcp test` and `ava mcp list` see the sign-in, no token printed.
- ava-backend's conversations call the server with the stored sign-in;
  `ava mcp logout` from another process cuts them off at the next call
  (the generation fence across processes, no backend restart); a sign-in
  through POST /api/mcp/servers/{name}/login restores them; the logout
  route signs out again.
- No token in any log, listing or session log; the store is 0600.

With `preregistered` as the scenario, the authorization server offers no
dynamic registration and knows one client: `ava mcp login` says a client id
is needed until the server is added with `--client-id`/`--client-secret`,
then signs in as that client (the secret never printed); changing the
client id drops the sign-in.

With `machine_grants`, servers get their tokens without a person: the
client_credentials grant (`--client-credentials`), refused before anything
is sent when the authorization server is not the configured `--issuer`,
and cross-app access (`--cross-app-access`: the ID token from a file,
exchanged at the identity provider for an ID-JAG, then for a token), used
by `ava mcp test` and by the backend's agents; bad settings are usage
errors.

    mcp_oauth_test.py AVA AVA_BACKEND FAKE_PROVIDER OAUTH_SERVER_PY [sign_in|preregistered|hostile_metadata|machine_grants]
"""

import json
import os
import re
import stat
import subprocess
import sys
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from backend_harness import (EventStream, FakeProvider, Home, Server, check,  # noqa: E402
                             check_paired, count_turn_ends, wait_for)

AVA, BACKEND, FAKE, OAUTH_SERVER = sys.argv[1:5]
SCENARIO = sys.argv[5] if len(sys.argv) > 5 else "sign_in"


class AuthServer:
    def __init__(self, *options):
        self.process = subprocess.Popen([sys.executable, OAUTH_SERVER, *options],
                                        stderr=subprocess.PIPE, text=True)
        line = self.process.stderr.readline()
        check(line.startswith("AVA_LISTENING "), "oauth server: " + line)
        self.base = "http://127.0.0.1:%d" % int(line.split()[1])

    def state(self):
        with urllib.request.urlopen(self.base + "/control/state", timeout=10) as answer:
            return json.load(answer)

    def tokens(self):
        return self.state()["issued"]

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=10)


def browse(url):
    """What the browser does: load the page and follow its redirects."""
    with urllib.request.urlopen(url, timeout=30) as answer:
        check(answer.status == 200, "the redirect page answered %d" % answer.status)


def ava(home, *args, timeout=60):
    return subprocess.run([AVA, *args], env=home.env, capture_output=True, text=True,
                          timeout=timeout)


def cli_login(home, name="secure"):
    login = subprocess.Popen([AVA, "mcp", "login", name, "--no-browser", "--timeout", "60"],
                             env=home.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
    # The page is printed for the person under "Sign in to MCP server NAME
    # at:"; the log line before it (AVA_LOG=info) has its state masked.
    url = None
    announced = False
    for line in login.stderr:
        check("state=" not in line or "[redacted]" in line or announced,
              "a log line holds the sign-in URL: " + line)
        if line.startswith("Sign in to MCP server %s at:" % name):
            announced = True
            continue
        found = re.search(r"(http://\S+/authorize\S*)", line)
        if announced and found:
            url = found.group(1)
            break
    check(url is not None, "ava mcp login printed no sign-in page")
    check("[redacted]" not in url, "the printed sign-in page is masked: " + url)
    browse(url)
    out, err = login.communicate(timeout=60)
    check(login.returncode == 0, "ava mcp login: " + err)
    check("Signed in to MCP server %s" % name in out, out)


def call_whoami(server, conversation, turns, name="secure"):
    stream = EventStream(server, "/api/conversations/%s/events" % conversation)
    server.ok("POST", "/api/conversations/%s/input" % conversation,
              {"text": "tool: mcp__%s__whoami {}" % name}, expect=(202,))
    events = stream.wait_until(count_turn_ends(turns), what="turn_end %d" % turns)
    stream.close()
    check_paired(events, conversation)
    results = [data for _, kind, data in events if kind == "tool_result"]
    return results[-1]


def result_text(result):
    return "".join(block.get("text", "") for block in result.get("content", [])
                   if block.get("type") == "text")


def preregistered():
    auth = AuthServer("--preregistered", "ava-house:pre-s3cret", "--no-registration")
    fake = FakeProvider(FAKE)
    home = Home(fake)
    try:
        url = auth.base + "/mcp"
        check(ava(home, "mcp", "add", "bare", "--url", url).returncode == 0, "add bare")
        bare = ava(home, "mcp", "login", "bare", "--no-browser", "--timeout", "10")
        check(bare.returncode != 0 and "client id" in bare.stderr, bare.stdout + bare.stderr)

        added = ava(home, "mcp", "add", "pre", "--url", url, "--client-id", "ava-house",
                    "--client-secret", "pre-s3cret")
        check(added.returncode == 0, added.stderr)
        listed = ava(home, "mcp", "list", "--json")
        entry = [s for s in json.loads(listed.stdout)["servers"] if s["name"] == "pre"][0]
        check(entry["oauth"] == {"clientId": "ava-house", "clientSecret": "<redacted>"}, entry)
        plain = ava(home, "mcp", "list").stdout
        check("OAuth client ava-house" in plain and "pre-s3cret" not in plain + listed.stdout,
              plain)

        cli_login(home, "pre")
        tested = ava(home, "mcp", "test", "pre", "--json")
        check(tested.returncode == 0, tested.stderr)
        state = auth.state()
        check(state["errors"] == [], "the authorization server saw: %s" % state["errors"])
        check(state["registrations"] == 0, state)
        check(state["token_clients"] and set(state["token_clients"]) == {"ava-house"}, state)

        # Tokens belong to the client they were issued to: another one drops them.
        changed = ava(home, "mcp", "add", "pre", "--url", url, "--client-id", "other",
                      "--replace")
        check(changed.returncode == 0, changed.stderr)
        entry = [s for s in json.loads(ava(home, "mcp", "list", "--json").stdout)["servers"]
                 if s["name"] == "pre"][0]
        check(entry["signedIn"] is False, entry)
        stdio = ava(home, "mcp", "add", "local", "--client-id", "x", "--", "true")
        check(stdio.returncode == 2, stdio.stderr)
        print("ok   mcp_oauth preregistered")
        return 0
    finally:
        fake.stop()
        auth.stop()
        home.cleanup()


def hostile_metadata():
    """Metadata from an authorization server is a peer's: a javascript:
    sign-in page, a plain-http one on another host or a foreign issuer stops
    the sign-in, through the CLI and through the real backend's login route,
    and no sign-in page is handed on."""
    cases = [("--authorization-endpoint", "javascript:alert(document.cookie)", "authorization_endpoint"),
             ("--authorization-endpoint", "http://evil.example/authorize", "authorization_endpoint"),
             ("--issuer", "https://elsewhere.example/as", "issuer")]
    for flag, value, field in cases:
        auth = AuthServer(flag, value)
        fake = FakeProvider(FAKE)
        home = Home(fake)
        server = None
        try:
            check(ava(home, "mcp", "add", "evil", "--url", auth.base + "/mcp").returncode == 0, "add")
            login = ava(home, "mcp", "login", "evil", "--no-browser", "--timeout", "10")
            said = login.stdout + login.stderr
            check(login.returncode != 0, "ava mcp login accepted %s %s: %s" % (flag, value, said))
            check("Sign in to MCP server" not in said, "a sign-in page was offered: " + said)
            check(field in said, "the refusal does not name %s: %s" % (field, said))
            server = Server(home, [BACKEND, "--port", "0"])
            reply = server.request("POST", "/api/mcp/servers/evil/login", {})
            check(reply.status >= 400 and reply.json and "authorizationUrl" not in reply.json,
                  "the login route answered %d: %s" % (reply.status, reply.raw[:300]))
            check(field in reply.json["error"]["message"], reply.raw[:300])
        finally:
            if server:
                server.stop()
            fake.stop()
            auth.stop()
            home.cleanup()
    print("ok   mcp_oauth hostile_metadata")
    return 0


def machine_grants():
    id_token = "idt-" + os.urandom(8).hex()
    auth = AuthServer("--preregistered", "m2m-client:m2m-s3cret", "--no-registration",
                      "--id-token", id_token)
    fake = FakeProvider(FAKE)
    home = Home(fake)
    server = None
    try:
        url = auth.base + "/mcp"
        client = ["--url", url, "--client-id", "m2m-client", "--client-secret", "m2m-s3cret"]
        garbage_key = os.path.join(home.root, "garbage.pem")
        with open(garbage_key, "w") as f:
            f.write("-----BEGIN PRIVATE KEY-----\nnot a key\n-----END PRIVATE KEY-----\n")
        # Settings that cannot work are refused when added.
        for bad, said in [(["--client-credentials", "--url", url, "--client-id", "x"],
                           "secret or a private key"),
                          (["--cross-app-access", *client], "idpTokenEndpoint"),
                          (["--client-credentials", "--cross-app-access", *client], "not both"),
                          (["--scope", "mcp:read", *client], "client_credentials"),
                          (["--client-credentials", "--private-key-file", garbage_key, "--url",
                            url, "--client-id", "x"], "not an unencrypted PEM private key"),
                          (["--client-credentials", "--private-key-file", FAKE, "--url", url,
                            "--client-id", "x"], "--private-key-file")]:
            refused = ava(home, "mcp", "add", "bad", *bad)
            check(refused.returncode == 2 and said in refused.stderr,
                  "%s: %d %s" % (bad, refused.returncode, refused.stderr))

        added = ava(home, "mcp", "add", "m2m", *client, "--client-credentials",
                    "--scope", "mcp:read")
        check(added.returncode == 0, added.stderr)
        tested = ava(home, "mcp", "test", "m2m", "--json")
        check(tested.returncode == 0, tested.stdout + tested.stderr)
        check([t["name"] for t in json.loads(tested.stdout)["tools"]] == ["whoami"], tested.stdout)
        state = auth.state()
        check(state["client_credentials"] >= 1 and state["authorizations"] == 0, state)
        entry = [s for s in json.loads(ava(home, "mcp", "list", "--json").stdout)["servers"]
                 if s["name"] == "m2m"][0]
        check(entry["oauth"] == {"clientId": "m2m-client", "clientSecret": "<redacted>",
                                 "grant": "client_credentials", "scope": "mcp:read"}, entry)
        check("client_credentials" in ava(home, "mcp", "list").stdout, "plain list")

        # The client's secret goes to no authorization server but its own.
        before = auth.state()["client_credentials"]
        pinned = ava(home, "mcp", "add", "pinned", *client, "--client-credentials",
                     "--issuer", "https://login.example.com")
        check(pinned.returncode == 0, pinned.stderr)
        refused = ava(home, "mcp", "test", "pinned", "--timeout", "10000")
        check(refused.returncode != 0 and "login.example.com" in refused.stderr,
              refused.stdout + refused.stderr)
        check(auth.state()["client_credentials"] == before, "a token was requested anyway")

        # Cross-app access: the ID token is read from its file at each exchange.
        token_file = os.path.join(home.root, "id-token")
        added = ava(home, "mcp", "add", "xaa", *client, "--cross-app-access",
                    "--idp-token-endpoint", auth.base + "/idp/token", "--idp-client-id",
                    "idp-client", "--id-token-file", token_file)
        check(added.returncode == 0, added.stderr)
        missing = ava(home, "mcp", "test", "xaa", "--timeout", "10000")
        check(missing.returncode != 0 and "id-token" in missing.stderr, missing.stderr)
        with open(token_file, "w") as f:
            f.write(id_token + "\n")
        tested = ava(home, "mcp", "test", "xaa", "--json")
        check(tested.returncode == 0, tested.stdout + tested.stderr)
        state = auth.state()
        check(state["idp_exchanges"] >= 1 and state["jwt_bearer"] >= 1, state)

        # The backend's agents get tokens the same way, with nobody to ask.
        server = Server(home, [BACKEND, "--port", "0"])
        project = server.ok("POST", "/api/projects", {"path": home.project})
        conversation = server.ok("POST", "/api/conversations",
                                 {"projectId": project["id"], "title": "m2m"})["id"]
        first = call_whoami(server, conversation, 1, "m2m")
        check(first["status"] == "ok" and "client m2m-client scope mcp:read" in result_text(first),
              first)
        second = call_whoami(server, conversation, 2, "xaa")
        check(second["status"] == "ok" and "client m2m-client" in result_text(second), second)
        state = auth.state()
        check(state["errors"] == [], "the authorization server saw: %s" % state["errors"])
        check(state["authorizations"] == 0 and state["registrations"] == 0, state)
        server.stop()
        logs = server.log_text()
        for secret in [id_token, "m2m-s3cret", *auth.tokens()]:
            check(secret not in logs, "a secret is in the backend's log")
        print("ok   mcp_oauth machine_grants")
        return 0
    except Exception:
        if server is not None:
            sys.stderr.write("--- server log\n" + server.log_text() + "\n")
        raise
    finally:
        if server is not None:
            server.stop()
        fake.stop()
        auth.stop()
        home.cleanup()


def main():
    if SCENARIO == "machine_grants":
        return machine_grants()
    if SCENARIO == "preregistered":
        return preregistered()
    if SCENARIO == "hostile_metadata":
        return hostile_metadata()
    auth = AuthServer()
    fake = FakeProvider(FAKE)
    home = Home(fake)
    server = None
    try:
        added = ava(home, "mcp", "add", "secure", "--url", auth.base + "/mcp")
        check(added.returncode == 0, added.stderr)

        before = ava(home, "mcp", "test", "secure", "--timeout", "10000")
        check(before.returncode != 0, "test passed without a sign-in")
        check("ava mcp login secure" in before.stderr, before.stderr)

        cli_login(home)
        tested = ava(home, "mcp", "test", "secure", "--json")
        check(tested.returncode == 0, tested.stderr)
        check([t["name"] for t in json.loads(tested.stdout)["tools"]] == ["whoami"], tested.stdout)
        listed = ava(home, "mcp", "list", "--json")
        (entry,) = json.loads(listed.stdout)["servers"]
        check(entry["signedIn"] is True, entry)
        check("signed in" in ava(home, "mcp", "list").stdout, "plain list")
        store = os.path.join(home.root, "capabilities.sqlite3")
        check(stat.S_IMODE(os.stat(store).st_mode) == 0o600, "store mode")

        server = Server(home, [BACKEND, "--port", "0"])
        project = server.ok("POST", "/api/projects", {"path": home.project})
        conversation = server.ok("POST", "/api/conversations",
                                 {"projectId": project["id"], "title": "oauth"})["id"]
        listed = server.ok("GET", "/api/mcp/servers")["servers"]
        check(listed[0]["signedIn"] is True, listed)

        first = call_whoami(server, conversation, 1)
        check(first["status"] == "ok" and "scope mcp:read" in result_text(first), first)

        # Signed out by another process: the backend's next call has no token.
        out = ava(home, "mcp", "logout", "secure")
        check(out.returncode == 0 and "Signed out" in out.stdout, out.stdout + out.stderr)
        second = call_whoami(server, conversation, 2)
        check(second["status"] == "error", second)
        check("ava mcp login secure" in result_text(second), second)

        # A sign-in through the API: the page comes back, the browser is redirected
        # to the backend's listener, and the same conversation works again.
        page = server.ok("POST", "/api/mcp/servers/secure/login", {})
        check(page["authorizationUrl"].startswith(auth.base + "/as/authorize?"), page)
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(page["authorizationUrl"]).query)
        sign_in_secrets = [query["state"][0], query["code_challenge"][0]]
        browse(page["authorizationUrl"])
        wait_for(lambda: server.ok("GET", "/api/mcp/servers")["servers"][0]["signedIn"], 20,
                 "signedIn after the API sign-in")
        third = call_whoami(server, conversation, 3)
        check(third["status"] == "ok", third)

        stdio = server.request("POST", "/api/mcp/servers/nothere/login", {})
        check(stdio.status == 404, stdio.raw)
        check(server.ok("POST", "/api/mcp/servers/secure/logout") == {"signedOut": True}, "logout")
        check(server.ok("GET", "/api/mcp/servers")["servers"][0]["signedIn"] is False, "listed")

        state = auth.state()
        check(state["errors"] == [], "the authorization server saw: %s" % state["errors"])
        check(state["code_exchanges"] == 2, state["code_exchanges"])

        server.stop()
        secrets = auth.tokens()
        logs = [server.log_text()]
        logs_dir = os.path.join(home.root, "logs")
        for name in os.listdir(logs_dir) if os.path.isdir(logs_dir) else []:
            with open(os.path.join(logs_dir, name), errors="replace") as f:
                logs.append(f.read())
        session = os.path.join(home.root, "sessions", conversation + ".jsonl.zst")
        logs.append(subprocess.run(["zstd", "-dc", session], capture_output=True,
                                   text=True).stdout)
        for token in secrets:
            check(all(token not in text for text in logs), "a token is in a log")
        # The sign-in page's state and PKCE challenge are the sign-in itself.
        for value in sign_in_secrets:
            check(all(value not in text for text in logs), "the sign-in URL is in a log")
        print("ok   mcp_oauth")
        return 0
    except Exception:
        if server is not None:
            sys.stderr.write("--- server log\n" + server.log_text() + "\n")
        raise
    finally:
        if server is not None:
            server.stop()
        fake.stop()
        auth.stop()
        home.cleanup()


if __name__ == "__main__":
    sys.exit(main())
