#!/usr/bin/env python3
"""Black-box tests of MCP in the API server: the /api/mcp routes and
conversations sharing one connection to @modelcontextprotocol/server-filesystem
(installed by scripts/setup under tests/mcp-servers; exit 77 = skipped).

    backend_mcp_test.py AVA AVA_BACKEND FAKE_PROVIDER MCP_SERVERS_DIR [TEST ...]
"""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from backend_harness import (EventStream, FakeProvider, Home, Server, check,  # noqa: E402
                             check_paired, count_turn_ends, run_tests, wait_for)

AVA, BACKEND, FAKE, SERVERS = sys.argv[1:5]
FS_SERVER = os.path.join(SERVERS, "node_modules", "@modelcontextprotocol", "server-filesystem",
                         "dist", "index.js")
CHANGING_SERVER = os.path.join(SERVERS, "changing-tools-server.mjs")
SECRET = "fs-token-hunter2"


def server_processes(project):
    """Running server-filesystem processes serving `project`."""
    found = subprocess.run(["pgrep", "-f", "%s %s" % (FS_SERVER, project)],
                           capture_output=True, text=True)
    return [line for line in found.stdout.split() if line]


def final_text(events):
    answers = ["".join(block["text"] for block in data["content"] if block["type"] == "text")
               for _, kind, data in events if kind == "assistant"]
    return answers[-1] if answers else None


def with_fs_backend(test):
    def run():
        fake = FakeProvider(FAKE)
        home = Home(fake)
        with open(os.path.join(home.project, "notes.txt"), "w") as f:
            f.write("shared connection works\nline two\n")
        added = subprocess.run([AVA, "mcp", "add", "fs", "--env", "FS_TOKEN=" + SECRET, "--",
                                "node", FS_SERVER, home.project],
                               env=home.env, capture_output=True, text=True)
        check(added.returncode == 0, "ava mcp add: " + added.stderr)
        server = Server(home, [BACKEND, "--port", "0"])
        try:
            project = server.ok("POST", "/api/projects", {"path": home.project})
            test(server, home, project["id"])
        except Exception:
            sys.stderr.write("--- server log\n" + server.log_text() + "\n")
            raise
        finally:
            server.stop()
            fake.stop()
            home.cleanup()
    return run


@with_fs_backend
def test_mcp_routes(server, home, project_id):
    listed = server.request("GET", "/api/mcp/servers")
    check(listed.status == 200, listed.raw)
    check(SECRET.encode() not in listed.raw, "the secret was listed")
    (fs,) = listed.json["servers"]
    check(fs["name"] == "fs" and fs["transport"] == "stdio" and fs["command"] == "node", fs)
    check(fs["env"] == {"FS_TOKEN": "<redacted>"}, fs)

    tested = server.ok("POST", "/api/mcp/servers/fs/test")
    check(tested["serverName"] == "secure-filesystem-server", tested)
    check(tested["protocolVersion"].startswith("20"), tested)
    check("read_text_file" in [t["name"] for t in tested["tools"]], tested)

    remote = {"name": "remote", "url": "http://127.0.0.1:9/mcp",
              "headers": {"Authorization": "Bearer header-secret"}}
    created = server.request("POST", "/api/mcp/servers", remote)
    check(created.status == 201, created.raw)
    check(created.json["transport"] == "http" and created.json["headers"] == {
        "Authorization": "<redacted>"}, created.json)
    check(b"header-secret" not in created.raw, "the header was echoed")
    check(server.request("POST", "/api/mcp/servers", remote).status == 409, "duplicate accepted")
    bad = server.request("POST", "/api/mcp/servers", {"name": "a b", "command": "x"})
    check(bad.status == 400 and "may only use" in bad.json["error"]["message"], bad.raw)
    # Credentials on the command line or in a URL are masked in listings.
    leaky = {"name": "leaky", "command": "node",
             "args": ["server.js", "--api-key", "sk-leaky-0123456789abcdefgh",
                      "--db=postgres://admin:db-pass-secret@db.example/x", "--token=tok-secret-1",
                      "plain-arg"]}
    leaky_url = {"name": "leakyurl",
                 "url": "https://mcp.example.com/mcp?api_key=url-key-secret&team=a"}
    for body in (leaky, leaky_url):
        added = server.request("POST", "/api/mcp/servers", body)
        check(added.status == 201, added.raw)
    listing = server.request("GET", "/api/mcp/servers")
    for secret in (b"sk-leaky", b"db-pass-secret", b"tok-secret-1", b"url-key-secret"):
        check(secret not in listing.raw, "listed: %s" % secret)
    by_name = {s["name"]: s for s in listing.json["servers"]}
    check(by_name["leaky"]["args"] == ["server.js", "--api-key", "[redacted]",
                                       "--db=postgres://[redacted]@db.example/x",
                                       "--token=[redacted]", "plain-arg"], by_name["leaky"])
    check(by_name["leakyurl"]["url"] == "https://mcp.example.com/mcp?api_key=[redacted]&team=a",
          by_name["leakyurl"])
    for name in ("leaky", "leakyurl"):
        server.ok("DELETE", "/api/mcp/servers/" + name)
    failed = server.request("POST", "/api/mcp/servers/remote/test")
    check(failed.status == 502 and failed.json["error"]["code"] == "mcp_server_failed", failed.raw)
    check(server.request("POST", "/api/mcp/servers/nothere/test").status == 404, "unknown test")

    switched = server.ok("PUT", "/api/mcp/servers/remote/projects/" + project_id, {"enabled": False})
    check(switched["enabledHere"] is False and switched["projects"] == {home.project: False},
          switched)
    here = server.ok("GET", "/api/mcp/servers?project=" + project_id)["servers"]
    check({s["name"]: s["enabledHere"] for s in here} == {"fs": True, "remote": False}, here)
    cleared = server.ok("DELETE", "/api/mcp/servers/remote/projects/" + project_id)
    check(cleared["enabledHere"] is True and cleared["projects"] == {}, cleared)
    off = server.ok("PATCH", "/api/mcp/servers/remote", {"enabled": False})
    check(off["enabled"] is False, off)
    check(server.ok("DELETE", "/api/mcp/servers/remote") == {"removed": True}, "delete")
    check(server.request("DELETE", "/api/mcp/servers/remote").status == 404, "second delete")
    names = [s["name"] for s in server.ok("GET", "/api/mcp/servers")["servers"]]
    check(names == ["fs"], names)


@with_fs_backend
def test_conversations_share_one_connection(server, home, project_id):
    notes = os.path.join(home.project, "notes.txt")
    prompt = "tool: mcp__fs__read_text_file " + json.dumps({"path": notes})
    conversations = []
    for title in ("first", "second"):
        conversation = server.ok("POST", "/api/conversations",
                                 {"projectId": project_id, "title": title})["id"]
        conversations.append(conversation)
    for conversation in conversations:
        stream = EventStream(server, "/api/conversations/%s/events" % conversation)
        server.ok("POST", "/api/conversations/%s/input" % conversation, {"text": prompt},
                  expect=(202,))
        events = stream.wait_until(count_turn_ends(1), what="turn_end")
        stream.close()
        results = [data for _, kind, data in events if kind == "tool_result"]
        check([(r["tool_name"], r["status"]) for r in results] ==
              [("mcp__fs__read_text_file", "ok")], results)
        check(final_text(events) == "done: shared connection works", final_text(events))
        check_paired(events, conversation)
    running = server_processes(home.project)
    check(len(running) == 1, "server-filesystem processes: %s" % running)

    server.signal(signal.SIGTERM)
    check(server.wait(timeout=60) == 0, "exit code")
    check(server_processes(home.project) == [], "the shared server outlived the backend")
    check(SECRET not in server.log_text(), "the secret is in the server log")
    for conversation in conversations:
        log = os.path.join(home.root, "sessions", conversation + ".jsonl.zst")
        text = subprocess.run(["zstd", "-dc", log], capture_output=True).stdout
        check(SECRET.encode() not in text, "the secret is in a session log")


def test_loaded_conversation_follows_tools_list_changed():
    """A server adds and removes a tool (notifications/tools/list_changed)
    while a conversation is loaded: its next turn offers the new list."""
    fake = None
    home = None
    server = None
    fake_dir = tempfile.TemporaryDirectory(prefix="ava-list-changed-")
    record = os.path.join(fake_dir.name, "requests.jsonl")
    try:
        fake = FakeProvider(FAKE, record=record)
        home = Home(fake)
        added = subprocess.run([AVA, "mcp", "add", "dyn", "--", "node", CHANGING_SERVER],
                               env=home.env, capture_output=True, text=True)
        check(added.returncode == 0, "ava mcp add: " + added.stderr)
        server = Server(home, [BACKEND, "--port", "0"])
        project = server.ok("POST", "/api/projects", {"path": home.project})["id"]
        conversation = server.ok("POST", "/api/conversations", {"projectId": project})["id"]
        stream = EventStream(server, "/api/conversations/%s/events" % conversation)

        def requests():
            if not os.path.exists(record):
                return []
            with open(record) as f:
                return [json.loads(line) for line in f if line.strip()]

        def cached_tools():
            db = sqlite3.connect(os.path.join(home.root, "capabilities.sqlite3"))
            try:
                row = db.execute("SELECT tools FROM mcp_tool_cache WHERE server = 'dyn'").fetchone()
            finally:
                db.close()
            return [t["name"] for t in json.loads(row[0])] if row else []

        def turn(text, turns):
            """Runs one turn; the tool names of its first request and its final answer."""
            before = len(requests())
            server.ok("POST", "/api/conversations/%s/input" % conversation, {"text": text},
                      expect=(202,))
            events = stream.wait_until(count_turn_ends(turns), what="turn %d" % turns)
            tools = [t["name"] for t in requests()[before]["body"]["tools"]]
            return tools, final_text(events)

        base = ["read", "write", "edit", "bash", "memory", "task"]
        tools, answer = turn("tool: mcp__dyn__add-tool {}", 1)
        check(tools == base + ["mcp__dyn__add-tool", "mcp__dyn__remove-tool"], tools)
        check(answer == "done: added late", answer)
        # The hub lists the server again and caches the list after its agents' version moved.
        wait_for(lambda: "late" in cached_tools(), 10, "the new list")

        tools, answer = turn("tool: mcp__dyn__late {}", 2)
        check(tools == base + ["mcp__dyn__add-tool", "mcp__dyn__remove-tool", "mcp__dyn__late"],
              tools)
        check(answer == "done: late tool ran", answer)

        tools, answer = turn("tool: mcp__dyn__remove-tool {}", 3)
        check(answer == "done: removed late", answer)
        wait_for(lambda: "late" not in cached_tools(), 10, "the list without late")
        tools, answer = turn("tool: mcp__dyn__late {}", 4)
        check(tools == base + ["mcp__dyn__add-tool", "mcp__dyn__remove-tool"], tools)
        events = stream.wait_until(count_turn_ends(4))
        results = [data for _, kind, data in events if kind == "tool_result"]
        check(results[-1]["status"] == "error", results[-1])  # no such tool any more
        check_paired(events, conversation)
        stream.close()
    except Exception:
        if server:
            sys.stderr.write("--- server log\n" + server.log_text() + "\n")
        raise
    finally:
        if server:
            server.stop()
        if fake:
            fake.stop()
        if home:
            home.cleanup()
        fake_dir.cleanup()


TESTS = [(name, test) for name, test in globals().items() if name.startswith("test_")]

if __name__ == "__main__":
    if not os.path.isfile(FS_SERVER):
        print("skipped: %s is not installed (run scripts/setup)" % FS_SERVER)
        sys.exit(77)
    sys.exit(run_tests(TESTS, sys.argv[5:]))
