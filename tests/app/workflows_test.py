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
            check([(c["name"], c["description"], c["argumentHint"], c["scope"]) for c in commands] ==
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
            with open(record) as f:
                requests = [json.loads(line) for line in f if line.strip()][before:]
            body = requests[0]["body"]
            last = body["messages"][-1]
            text = last["content"] if isinstance(last["content"], str) else "".join(
                block.get("text", "") for block in last["content"])
            check(text == "Review src/main.cpp now.", last)
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


TESTS = [(name, test) for name, test in globals().items() if name.startswith("test_")]

if __name__ == "__main__":
    sys.exit(run_tests(TESTS, sys.argv[3:]))
