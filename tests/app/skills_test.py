#!/usr/bin/env python3
"""Black-box tests of skill availability: `ava skill`, `ava -p` and the
/api/skills routes of ava-backend, against the fake provider in echo mode,
which records every request (so the test reads the system prompt and the
tools the agent sent).

    skills_test.py AVA AVA_BACKEND FAKE_PROVIDER [TEST ...]
"""

import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from backend_harness import (EventStream, FakeProvider, Home, Server, check,  # noqa: E402
                             count_turn_ends, run_tests, wait_for)

AVA, BACKEND, FAKE = sys.argv[1:4]


def write_skill(root, name, description):
    os.makedirs(os.path.join(root, name), exist_ok=True)
    with open(os.path.join(root, name, "SKILL.md"), "w") as f:
        f.write("---\nname: %s\ndescription: %s\n---\nThe steps of %s.\n" % (
            name, description, name))


class Setup:
    """A home with a user skill (deploy) and a project with its own (lint)."""

    def __enter__(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="ava-skills-test-")
        self.record = os.path.join(self.tmp.name, "requests.jsonl")
        self.fake = FakeProvider(FAKE, record=self.record)
        self.home = Home(self.fake)
        os.makedirs(os.path.join(self.home.project, ".git"))
        write_skill(os.path.join(self.home.root, "skills"), "deploy", "Ship a release")
        write_skill(os.path.join(self.home.project, ".ava", "skills"), "lint", "Check the style")
        return self

    def __exit__(self, *_):
        self.fake.stop()
        self.home.cleanup()
        self.tmp.cleanup()

    def ava(self, *args, code=0):
        done = subprocess.run([AVA] + list(args), env=self.home.env, capture_output=True,
                              text=True, cwd=self.home.project, timeout=60)
        check(done.returncode == code, "ava %s -> %d (wanted %d)\n%s%s" % (
            " ".join(args), done.returncode, code, done.stdout, done.stderr))
        return done

    def requests(self):
        try:
            with open(self.record) as f:
                return [json.loads(line) for line in f if line.strip()]
        except OSError:
            return []


def offered(request):
    """(skills in the system prompt's index, names the skill tool accepts)."""
    body = request["body"]
    system = "".join(block["text"] for block in body.get("system", []))
    index = sorted(name for name in ("deploy", "lint") if "- %s: " % name in system)
    enum = None
    for tool in body.get("tools", []):
        if tool["name"] == "skill":
            enum = sorted(tool["input_schema"]["properties"]["name"]["enum"])
    return index, enum


def listed(setup, *extra):
    out = json.loads(setup.ava("skill", "list", "--json", *extra).stdout)
    return {s["name"]: (s["source"], s["enabled"], s["setting"]) for s in out["skills"]}


def test_cli_switches_reach_ava_p():
    with Setup() as setup:
        check(listed(setup) == {"deploy": ("user", True, "default"),
                                "lint": ("project", True, "default")}, listed(setup))
        # Names are checked against what agents here find.
        unknown = setup.ava("skill", "disable", "delpoy", code=1)
        check("no skill named delpoy" in unknown.stderr and "known: deploy, lint" in
              unknown.stderr, unknown.stderr)
        setup.ava("skill", "disable", "elsewhere", "--force")
        setup.ava("skill", "reset", "elsewhere")
        setup.ava("skill", "reset", "elsewhere", code=1)  # no setting left, not a skill here

        setup.ava("skill", "disable", "deploy")  # for every project
        setup.ava("skill", "disable", "lint", "--project", setup.home.project)
        check(listed(setup) == {"deploy": ("user", False, "user"),
                                "lint": ("project", False, "project")}, listed(setup))

        before = len(setup.requests())
        setup.ava("-p", "hello", "--no-mcp")
        (first,) = setup.requests()[before:]
        check(offered(first) == ([], None), offered(first))

        # A project's switch overrides the user-wide one.
        # A folder inside the project names the project (the one holding .git).
        inside = os.path.join(setup.home.project, "src")
        os.makedirs(inside)
        setup.ava("skill", "enable", "deploy", "--project", inside)
        setup.ava("skill", "reset", "lint", "--project", setup.home.project)
        check(listed(setup) == {"deploy": ("user", True, "project"),
                                "lint": ("project", True, "default")}, listed(setup))
        before = len(setup.requests())
        done = setup.ava("-p", 'tool: skill {"name": "deploy"}', "--no-mcp")
        check("done: Skill deploy" in done.stdout, done.stdout)
        first = setup.requests()[before]
        check(offered(first) == (["deploy", "lint"], ["deploy", "lint"]), offered(first))
        # Elsewhere the user-wide switch still holds.
        elsewhere = os.path.join(setup.tmp.name, "elsewhere")
        os.makedirs(elsewhere)
        check(listed(setup, "--project", elsewhere) == {"deploy": ("user", False, "user")},
              listed(setup, "--project", elsewhere))


def test_api_switches_reach_new_conversations():
    with Setup() as setup:
        setup.ava("skill", "disable", "deploy")
        server = Server(setup.home, [BACKEND, "--port", "0"])
        try:
            project = server.ok("POST", "/api/projects", {"path": setup.home.project})["id"]

            user_wide = server.ok("GET", "/api/skills")
            check("projectId" not in user_wide, user_wide)
            (deploy,) = user_wide["skills"]
            check((deploy["name"], deploy["source"], deploy["enabled"], deploy["setting"]) ==
                  ("deploy", "user", False, "user"), deploy)
            here = server.ok("GET", "/api/skills?projectId=" + project)
            check(here["projectId"] == project, here)
            check({s["name"]: s["enabled"] for s in here["skills"]} ==
                  {"deploy": False, "lint": True}, here)

            # Errors: unknown project or skill, malformed bodies.
            for method, path, body, status in [
                    ("GET", "/api/skills?projectId=nope", None, 404),
                    ("PUT", "/api/skills/deploy", {"enabled": True, "projectId": "nope"}, 404),
                    ("PUT", "/api/skills/nothere", {"enabled": False}, 404),
                    ("PUT", "/api/skills/lint", {"enabled": False}, 404),  # not a user skill
                    ("PUT", "/api/skills/deploy", {}, 400),
                    ("PUT", "/api/skills/deploy", {"enabled": "no"}, 400),
                    ("PUT", "/api/skills/deploy", "not json", 400),
                    # A body must say it is JSON (the fence, docs/security.md).
                    ("PUT", "/api/skills/deploy", "not json", 415)]:
                # The malformed body is sent as JSON once, then without a type.
                typed = isinstance(body, str) and status == 400
                answer = server.request(method, path, body,
                                        headers={"Content-Type": "application/json"} if typed else None)
                check(answer.status == status and answer.json["error"]["code"] and
                      answer.json["error"]["message"], "%s %s -> %d %s" % (
                          method, path, answer.status, answer.raw[:200]))

            old = server.ok("POST", "/api/conversations", {"projectId": project})["id"]

            changed = server.ok("PUT", "/api/skills/deploy", {"enabled": True,
                                                             "projectId": project})
            check({s["name"]: (s["enabled"], s["setting"]) for s in changed["skills"]} ==
                  {"deploy": (True, "project"), "lint": (True, "default")}, changed)
            check(listed(setup) == {"deploy": ("user", True, "project"),
                                    "lint": ("project", True, "default")}, listed(setup))

            def first_request(conversation):
                before = len(setup.requests())
                stream = EventStream(server, "/api/conversations/%s/events" % conversation)
                server.ok("POST", "/api/conversations/%s/input" % conversation,
                          {"text": "hello"}, expect=(202,))
                stream.wait_until(count_turn_ends(1), what="turn_end")
                stream.close()
                return wait_for(lambda: setup.requests()[before:], 10, "a request")[0]

            new = server.ok("POST", "/api/conversations", {"projectId": project})["id"]
            check(offered(first_request(new)) == (["deploy", "lint"], ["deploy", "lint"]),
                  "the new conversation")
            # A conversation loaded before the change keeps what it started with.
            check(offered(first_request(old)) == (["lint"], ["lint"]), "the loaded conversation")

            # null removes the setting: the user-wide switch applies again.
            reset = server.ok("PUT", "/api/skills/deploy", {"enabled": None,
                                                           "projectId": project})
            check({s["name"]: s["setting"] for s in reset["skills"]} ==
                  {"deploy": "user", "lint": "default"}, reset)
            again = server.ok("PUT", "/api/skills/deploy", {"enabled": None})
            check(again["skills"][0]["setting"] == "default", again)
        except Exception:
            sys.stderr.write("--- server log\n" + server.log_text() + "\n")
            raise
        finally:
            server.stop()


TESTS = [(name, test) for name, test in globals().items() if name.startswith("test_")]

if __name__ == "__main__":
    sys.exit(run_tests(TESTS, sys.argv[4:]))
