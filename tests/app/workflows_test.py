#!/usr/bin/env python3
"""Black-box tests of the workflow files through ava-backend's API, against
the fake provider in echo mode (which records every request): slash command
templates listed for the composer and expanded in the agent, and the layered
AGENTS.md files shown by the context route.

    workflows_test.py AVA_BACKEND FAKE_PROVIDER [TEST ...]
"""

import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from backend_harness import (EventStream, FakeProvider, Home, Server, check,  # noqa: E402
                             count_turn_ends, run_tests, wait_for)

BACKEND, FAKE = sys.argv[1:3]


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def recorded(record):
    """The requests the fake provider recorded, in order."""
    with open(record) as f:
        return [json.loads(line) for line in f if line.strip()]


def last_user_text(body):
    """The text of a request body's last message."""
    last = body["messages"][-1]
    if isinstance(last["content"], str):
        return last["content"]
    return "".join(block.get("text", "") for block in last["content"])


def test_commands_and_context_through_the_api():
    with tempfile.TemporaryDirectory(prefix="ava-workflows-test-") as tmp:
        record = os.path.join(tmp, "requests.jsonl")
        fake = FakeProvider(FAKE, record=record)
        home = Home(fake)
        server = None
        try:
            project_dir = home.project
            os.makedirs(os.path.join(project_dir, ".git"))
            write(os.path.join(project_dir, "AGENTS.md"), "Use tabs.\n")
            write(os.path.join(home.root, "AGENTS.md"), "Answer briefly.\n")
            write(os.path.join(project_dir, ".ava", "commands", "review.md"),
                  "---\ndescription: Review a file\nargument-hint: FILE\n---\nReview $1 now.")
            write(os.path.join(home.root, "commands", "standup.md"), "Plan my day.")
            server = Server(home, [BACKEND, "--port", "0"])
            project = server.ok("POST", "/api/projects", {"path": project_dir})["id"]
            conversation = server.ok("POST", "/api/conversations", {"projectId": project})["id"]
            base = "/api/conversations/%s" % conversation

            commands = server.ok("GET", base + "/commands")["commands"]
            builtins = [c["name"] for c in commands if c["scope"] == "builtin"]
            check(builtins == ["help", "clear", "compact", "model", "plan", "goal", "memory",
                               "context", "cost"], builtins)
            check([(c["name"], c["description"], c["argumentHint"], c["scope"])
                   for c in commands if c["scope"] != "builtin"] ==
                  [("review", "Review a file", "FILE", "project"),
                   ("standup", "Plan my day.", "", "user")], commands)

            files = server.ok("GET", base + "/context")["contextFiles"]
            check([(os.path.basename(f["path"]), f["scope"], f["bytes"], f["included"])
                   for f in files] == [("AGENTS.md", "project", 10, 10),
                                       ("AGENTS.md", "user", 16, 16)], files)

            stream = EventStream(server, base + "/events")
            before = len(open(record).readlines()) if os.path.exists(record) else 0
            server.ok("POST", base + "/input", {"text": "/review src/main.cpp"}, expect=(202,))
            events = stream.wait_until(count_turn_ends(1), what="turn_end")
            inputs = [data for _, kind, data in events if kind == "input"]
            check(inputs[0]["text"] == "/review src/main.cpp" and inputs[0]["command"] == "review"
                  and inputs[0]["expansion"] == "Review src/main.cpp now.", inputs)
            body = recorded(record)[before]["body"]
            text = last_user_text(body)
            check(text == "Review src/main.cpp now.", body["messages"][-1])
            system = "".join(block["text"] for block in body.get("system", []))
            check(system.find("Use tabs.") < system.find("Answer briefly.") and
                  "Use tabs." in system, system[:400])

            refused = server.request("POST", base + "/input", {"text": "/revue x"})
            check(refused.status == 400 and "unknown command /revue" in
                  refused.json["error"]["message"], refused.raw[:300])
            stream.close()
        except Exception:
            if server:
                sys.stderr.write("--- server log\n" + server.log_text() + "\n")
            raise
        finally:
            if server:
                server.stop()
            fake.stop()
            home.cleanup()


def test_builtins_goal_and_clear_through_the_api():
    with tempfile.TemporaryDirectory(prefix="ava-workflows-test-") as tmp:
        record = os.path.join(tmp, "requests.jsonl")
        fake = FakeProvider(FAKE, record=record)
        home = Home(fake)
        server = None
        try:
            server = Server(home, [BACKEND, "--port", "0"])
            project = server.ok("POST", "/api/projects", {"path": home.project})["id"]
            conversation = server.ok("POST", "/api/conversations", {"projectId": project})["id"]
            base = "/api/conversations/%s" % conversation
            stream = EventStream(server, base + "/events")

            accepted = server.ok("POST", base + "/input", {"text": "/goal ship the parser"},
                                 expect=(202,))
            status = server.ok("GET", base + "/status")
            check(status["goal"] == "ship the parser", status)
            events = stream.wait_until(
                lambda ev: any(kind == "command_output" for _, kind, _ in ev), what="command_output")
            answered = [data for _, kind, data in events if kind == "command_output"]
            check(answered[0]["command"] == "goal" and answered[0]["text"] == "/goal ship the parser"
                  and answered[0]["input_id"] == accepted["inputId"], answered)
            check(any(kind == "goal_set" for _, kind, _ in events), events)

            server.ok("POST", base + "/input", {"text": "hello"}, expect=(202,))
            stream.wait_until(count_turn_ends(1), what="turn_end")
            text = last_user_text(recorded(record)[-1]["body"])
            check("ship the parser" in text and text.endswith("hello"), text)
            stream.close()

            # /clear: a new conversation in the same project; the old one stays.
            cleared = server.request("POST", base + "/input", {"text": "/clear"})
            check(cleared.status == 201, cleared.raw)
            fresh = cleared.json["newConversationId"]
            check(fresh and fresh != conversation, cleared.json)
            listed = server.ok("GET", "/api/conversations")["conversations"]
            check({conversation, fresh} <= {c["id"] for c in listed}, listed)
            check(next(c for c in listed if c["id"] == fresh)["projectId"] == project, listed)
            check(server.ok("GET", "/api/conversations/%s/status" % fresh)["goal"] == "",
                  "the new conversation kept the goal")
        except Exception:
            if server:
                sys.stderr.write("--- server log\n" + server.log_text() + "\n")
            raise
        finally:
            if server:
                server.stop()
            fake.stop()
            home.cleanup()


TESTS = [(name, test) for name, test in globals().items() if name.startswith("test_")]

if __name__ == "__main__":
    sys.exit(run_tests(TESTS, sys.argv[3:]))
