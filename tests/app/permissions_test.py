#!/usr/bin/env python3
"""Black-box tests of durable approvals in ava-backend: a conversation in
`ask` mode waits for a person, the approval survives a SIGKILL and restart,
stale and duplicate decisions get 409, abort pairs the waiting call, and the
mode and project-scope rules reach the settings. The fake provider in echo
mode turns "bash: CMD" into a bash tool call.

    permissions_test.py AVA AVA_BACKEND FAKE_PROVIDER [TEST ...]
"""

import json
import os
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from backend_harness import (EventStream, FakeProvider, Home, Server, check,  # noqa: E402
                             check_paired, count_turn_ends, run_tests, turn_ends)

AVA, BACKEND, FAKE = sys.argv[1:4]


class Backend:
    """A home with no permission settings (so: ask), its backend and project."""

    def __init__(self, settings=None):
        self.fake = FakeProvider(FAKE)
        self.home = Home(self.fake, permission_mode=None)
        if settings is not None:
            with open(os.path.join(self.home.root, "settings.json"), "w") as f:
                json.dump(settings, f)
        self.server = Server(self.home, [BACKEND])
        self.project = self.server.ok("POST", "/api/projects", {"path": self.home.project})["id"]

    def __enter__(self):
        return self

    def __exit__(self, *_):
        self.server.stop()
        self.fake.stop()
        self.home.cleanup()

    def restart(self):
        self.server = Server(self.home, [BACKEND])

    def conversation(self, **extra):
        body = {"projectId": self.project}
        body.update(extra)
        return self.server.ok("POST", "/api/conversations", body)["id"]

    def send(self, conversation, text):
        self.server.ok("POST", "/api/conversations/%s/input" % conversation,
                       {"text": text, "kind": "followup"}, expect=(202,))

    def status(self, conversation):
        return self.server.ok("GET", "/api/conversations/%s/status" % conversation)

    def decide(self, conversation, approval, body):
        return self.server.request("POST", "/api/conversations/%s/approvals/%s" % (conversation, approval),
                                   body)

    def stream(self, conversation, last_event_id=None):
        return EventStream(self.server, "/api/conversations/%s/events" % conversation, last_event_id)


def approvals_in(events):
    return [data for _, kind, data in events if kind == "approval_requested"]


def results_in(events):
    return [data for _, kind, data in events if kind == "tool_result"]


def wait_for_approval(stream):
    events = stream.wait_until(lambda ev: approvals_in(ev), what="approval_requested")
    return approvals_in(events)[0]


def test_approval_survives_sigkill_and_restart():
    with Backend() as b:
        marker = os.path.join(b.home.project, "marker.txt")
        conversation = b.conversation()
        stream = b.stream(conversation)
        b.send(conversation, "bash: touch marker.txt")
        asked = wait_for_approval(stream)
        stream.close()
        check(asked["tool_name"] == "bash" and asked["category"] == "execute", asked)
        check(asked["arguments"] == {"command": "touch marker.txt"}, asked)
        check(asked["suggested_rules"] == ["bash(touch:*)"], asked)
        status = b.status(conversation)
        check(status["state"] == "waiting" and status["permissionMode"] == "ask", status)
        check([a["approvalId"] for a in status["approvals"]] == [asked["approval_id"]], status)
        listed = b.server.ok("GET", "/api/conversations")["conversations"]
        check(any(c["id"] == conversation for c in listed), listed)
        check(not os.path.exists(marker), "the tool ran before it was approved")

        b.server.signal(signal.SIGKILL)
        b.server.wait()
        b.restart()
        status = b.status(conversation)
        check([a["approvalId"] for a in status["approvals"]] == [asked["approval_id"]],
              "the approval did not survive the restart: %s" % status)
        check(not os.path.exists(marker), "the tool ran on restart")

        unknown = b.decide(conversation, "no-such-approval", {"decision": "allow"})
        check(unknown.status == 409, unknown.raw)
        bad = b.decide(conversation, asked["approval_id"], {"decision": "maybe"})
        check(bad.status == 400, bad.raw)
        decided = b.decide(conversation, asked["approval_id"], {"decision": "allow", "scope": "once"})
        check(decided.status == 200, decided.raw)
        replay = b.stream(conversation)
        events = replay.wait_until(count_turn_ends(1), what="the turn end")
        replay.close()
        again = b.decide(conversation, asked["approval_id"], {"decision": "allow"})
        check(again.status == 409, again.raw)

        check(os.path.exists(marker), "the approved tool did not run")
        results = results_in(events)
        check(len(results) == 1 and results[0]["status"] == "ok", results)
        check(len([e for e in events if e[1] == "approval_decided"]) == 1, "decisions")
        check(turn_ends(events)[0][2]["reason"] == "completed", turn_ends(events))
        check_paired(events, "after the approval")


def test_abort_while_waiting_pairs_the_call():
    with Backend() as b:
        conversation = b.conversation()
        stream = b.stream(conversation)
        b.send(conversation, "bash: touch marker.txt")
        asked = wait_for_approval(stream)
        b.server.ok("POST", "/api/conversations/%s/abort" % conversation, {})
        events = stream.wait_until(count_turn_ends(1), what="the aborted turn")
        stream.close()
        results = results_in(events)
        check(len(results) == 1 and results[0]["status"] == "skipped", results)
        check(turn_ends(events)[0][2]["reason"] == "aborted", turn_ends(events))
        check_paired(events, "after abort")
        stale = b.decide(conversation, asked["approval_id"], {"decision": "allow"})
        check(stale.status == 409, stale.raw)
        check(not os.path.exists(os.path.join(b.home.project, "marker.txt")), "the tool ran")
        check(b.status(conversation)["approvals"] == [], "still pending after abort")


def test_denial_with_a_note_reaches_the_model():
    with Backend() as b:
        conversation = b.conversation()
        stream = b.stream(conversation)
        b.send(conversation, "bash: touch marker.txt")
        asked = wait_for_approval(stream)
        denied = b.decide(conversation, asked["approval_id"],
                          {"decision": "deny", "message": "not in this folder"})
        check(denied.status == 200, denied.raw)
        events = stream.wait_until(count_turn_ends(1))
        stream.close()
        results = results_in(events)
        check(len(results) == 1 and results[0]["status"] == "error", results)
        text = json.dumps(results[0]["content"])
        check("not in this folder" in text, text)
        check(turn_ends(events)[0][2]["reason"] == "completed", "the turn did not go on")
        check(not os.path.exists(os.path.join(b.home.project, "marker.txt")), "the tool ran")


def test_project_scope_writes_a_rule_the_next_conversation_uses():
    with Backend() as b:
        first = b.conversation()
        stream = b.stream(first)
        b.send(first, "bash: touch one.txt")
        asked = wait_for_approval(stream)
        decided = b.decide(first, asked["approval_id"], {"decision": "allow", "scope": "project"})
        check(decided.status == 200, decided.raw)
        stream.wait_until(count_turn_ends(1))
        stream.close()
        local = os.path.join(b.home.project, ".ava", "settings.local.json")
        with open(local) as f:
            check(json.load(f)["permissions"]["allow"] == ["bash(touch:*)"], "settings.local.json")

        second = b.conversation()
        view = b.server.ok("GET", "/api/conversations/%s/permissions" % second)
        check({"list": "allow", "rule": "bash(touch:*)", "source": local} in view["rules"], view)
        stream = b.stream(second)
        b.send(second, "bash: touch two.txt")
        events = stream.wait_until(count_turn_ends(1))
        stream.close()
        check(approvals_in(events) == [], "asked again despite the project rule")
        check(os.path.exists(os.path.join(b.home.project, "two.txt")), "the tool did not run")


def test_mode_is_chosen_per_conversation_and_recorded():
    with Backend(settings={"permissions": {"deny": ["bash(rm:*)"]}}) as b:
        conversation = b.conversation(permissionMode="plan")
        check(b.status(conversation)["permissionMode"] == "plan", "mode at creation")
        bad = b.server.request("PUT", "/api/conversations/%s/permissions" % conversation,
                               {"mode": "yolo"})
        check(bad.status == 400, bad.raw)
        stream = b.stream(conversation)
        b.send(conversation, "bash: touch planned.txt")
        events = stream.wait_until(count_turn_ends(1))
        stream.close()
        results = results_in(events)
        check(len(results) == 1 and results[0]["status"] == "error", results)
        check(results[0]["details"]["permission"]["verdict"] == "deny", results[0])

        switched = b.server.ok("PUT", "/api/conversations/%s/permissions" % conversation,
                               {"mode": "auto"})
        check(switched["permissionMode"] == "auto", switched)
        view = b.server.ok("GET", "/api/conversations/%s/permissions" % conversation)
        check(view["mode"] == "auto" and view["modeSource"] == "this conversation", view)
        check(view["rules"][0]["list"] == "deny" and view["rules"][0]["rule"] == "bash(rm:*)", view)

        b.server.stop()
        b.restart()
        check(b.status(conversation)["permissionMode"] == "auto", "mode after restart")
        last = b.server.ok("GET", "/api/conversations/%s/status" % conversation)["lastSeq"]
        stream = b.stream(conversation, last_event_id=last)
        b.send(conversation, "bash: rm -f x; touch ran.txt")
        events = stream.wait_until(count_turn_ends(1))
        stream.close()
        results = results_in(events)
        check(len(results) == 1 and results[0]["status"] == "error", "a deny rule lost to auto")
        check(not os.path.exists(os.path.join(b.home.project, "ran.txt")), "denied line ran")


TESTS = [(name, fn) for name, fn in list(globals().items()) if name.startswith("test_")]

if __name__ == "__main__":
    sys.exit(run_tests(TESTS, set(sys.argv[4:])))
