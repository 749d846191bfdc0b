#!/usr/bin/env python3
"""Black-box tests of the API server: the real ava-backend / `ava --serve`
on an ephemeral loopback port, with the loopback fake provider.

    backend_test.py AVA AVA_BACKEND FAKE_PROVIDER [TEST ...]
"""

import base64
import http.client
import http.server
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from backend_harness import (EventStream, FakeProvider, Home, Server, check,  # noqa: E402
                             check_paired, count_turn_ends, run_tests, turn_ends, wait_for)

AVA, BACKEND, FAKE = sys.argv[1:4]


def with_backend(test):
    """Runs test(server, project_id) against a fresh backend and home."""
    def run():
        fake = FakeProvider(FAKE)
        home = Home(fake)
        server = Server(home, [BACKEND, "--port", "0"])
        try:
            project = server.ok("POST", "/api/projects", {"path": home.project})
            test(server, project["id"])
        except Exception:
            sys.stderr.write("--- server log\n" + server.log_text() + "\n")
            raise
        finally:
            server.stop()
            fake.stop()
            home.cleanup()
    return run


def new_conversation(server, project_id, title=""):
    return server.ok("POST", "/api/conversations", {"projectId": project_id, "title": title})["id"]


def send(server, conversation, text, kind="followup", input_id=None):
    body = {"text": text, "kind": kind}
    if input_id:
        body["inputId"] = input_id
    return server.ok("POST", "/api/conversations/%s/input" % conversation, body, expect=(202,))


def send_json(server, conversation, body):
    return server.ok("POST", "/api/conversations/%s/input" % conversation, body, expect=(202,))


def final_text(events):
    answers = ["".join(block["text"] for block in data["content"] if block["type"] == "text")
               for _, kind, data in events if kind == "assistant"]
    return answers[-1] if answers else None


@with_backend
def test_conversation_with_a_follower(server, project_id):
    conversation = new_conversation(server, project_id)
    stream = EventStream(server, "/api/conversations/%s/events" % conversation)
    accepted = send(server, conversation, "bash: echo hello from bash")
    check(accepted["seq"] > 0 and accepted["inputId"] and not accepted["duplicate"], accepted)
    events = stream.wait_until(count_turn_ends(1), what="turn_end")
    kinds = [e[1] for e in events]
    check(kinds[0] == "session_start", kinds)
    for expected in ("input", "turn_start", "input_claimed", "assistant", "tool_result", "turn_end"):
        check(expected in kinds, "missing %s in %s" % (expected, kinds))
    ids = [int(e[0]) for e in events]
    check(ids == list(range(1, len(ids) + 1)), "ids are not 1..n: %s" % ids)
    check(all(int(e[0]) == e[2]["seq"] for e in events), "SSE id differs from seq")
    check(final_text(events) == "done: hello from bash", final_text(events))
    check(turn_ends(events)[0][2]["reason"] == "completed", turn_ends(events))
    check_paired(events, "live stream")
    stream.close()

    listed = server.ok("GET", "/api/conversations")["conversations"]
    check([c["id"] for c in listed] == [conversation], listed)
    check(listed[0]["title"] == "bash: echo hello from bash", listed[0]["title"])
    usage = server.ok("GET", "/api/conversations/%s/usage" % conversation)
    check(usage["usage"]["inputTokens"] == 20, usage)


@with_backend
def test_resent_input_id_is_acknowledged_once(server, project_id):
    conversation = new_conversation(server, project_id)
    first = send(server, conversation, "hello", input_id="client-retry-1")
    again = send(server, conversation, "hello", input_id="client-retry-1")
    check(first["inputId"] == "client-retry-1" and not first["duplicate"], first)
    check(again["duplicate"] and again["seq"] == first["seq"], again)
    stream = EventStream(server, "/api/conversations/%s/events" % conversation)
    events = stream.wait_until(count_turn_ends(1))
    time.sleep(0.3)
    inputs = [e for e in stream.events if e[1] == "input"]
    check(len(inputs) == 1, "input enqueued %d times" % len(inputs))
    check(len(turn_ends(stream.events)) == 1, "ran %d turns" % len(turn_ends(stream.events)))
    check(final_text(events) == "echo: hello", final_text(events))
    bad = server.request("POST", "/api/conversations/%s/input" % conversation,
                         {"text": "x", "inputId": "has spaces"})
    check(bad.status == 400 and bad.json["error"]["code"] == "invalid_argument", bad.raw)
    stream.close()


@with_backend
def test_images_are_checked_before_they_reach_the_log(server, project_id):
    """One bad image in the log would fail every later request of the conversation."""
    conversation = new_conversation(server, project_id)
    stream = EventStream(server, "/api/conversations/%s/events" % conversation)
    png = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\0" * 32).decode()
    path = "/api/conversations/%s/input" % conversation
    for attachment, status in (({"mediaType": "image/jpeg", "data": png}, 400),
                               ({"mediaType": "image/png", "data": png[:-1]}, 400),
                               ({"mediaType": "image/png", "data": "A" * (7 * 1024 * 1024)}, 413)):
        refused = server.request("POST", path, {"text": "look", "attachments": [attachment]})
        check(refused.status == status, "attachment %s: %d %s" % (attachment["mediaType"], refused.status,
                                                                  refused.raw[:200]))
    accepted = send_json(server, conversation, {"text": "look", "attachments": [{"mediaType": "image/png", "data": png}]})
    events = stream.wait_until(count_turn_ends(1))
    image_inputs = [e for e in events if e[1] == "input" and e[2].get("attachments")]
    check(len(image_inputs) == 1 and image_inputs[0][2]["seq"] == accepted["seq"], image_inputs)
    check(image_inputs[0][2]["attachments"][0]["data"] == png, "the image changed on its way to the log")
    check(len([e for e in events if e[1] == "input"]) == 1, "a refused input reached the log")
    stream.close()


@with_backend
def test_reconnect_with_last_event_id_gets_exactly_the_missed_events(server, project_id):
    conversation = new_conversation(server, project_id)
    path = "/api/conversations/%s/events" % conversation
    send(server, conversation, "first")
    first = EventStream(server, path)
    seen = first.wait_until(count_turn_ends(1))
    first.close()
    cursor = int(seen[-1][0])
    send(server, conversation, "bash: echo missed")
    send(server, conversation, "second")
    complete = EventStream(server, path)
    everything = complete.wait_until(count_turn_ends(3))
    complete.close()
    resumed = EventStream(server, path, last_event_id=cursor)
    missed = resumed.wait_until(lambda events: len(events) >= len(everything) - cursor)
    time.sleep(0.3)
    resumed.close()
    check([e[0] for e in resumed.events] == [e[0] for e in everything[cursor:]],
          "resumed %s, expected %s" % ([e[0] for e in resumed.events], [e[0] for e in everything[cursor:]]))
    check(missed[0][2] == everything[cursor][2], "replayed event differs")
    # ?after= works the same way, and a bad cursor is refused.
    after = EventStream(server, path + "?after=%d" % (len(everything) - 1))
    after.wait_until(lambda events: len(events) >= 1)
    after.close()
    check(after.events[0][0] == str(len(everything)), after.events)
    check(server.request("GET", path + "?after=abc").status == 400, "bad cursor accepted")


@with_backend
def test_two_conversations_at_once(server, project_id):
    a = new_conversation(server, project_id)
    b = new_conversation(server, project_id)
    streams = {c: EventStream(server, "/api/conversations/%s/events" % c) for c in (a, b)}
    status = EventStream(server, "/api/status/events")
    send(server, a, "slow: 40: one two three four five six")
    send(server, b, "slow: 40: seven eight nine ten eleven twelve")
    results = {c: s.wait_until(count_turn_ends(1)) for c, s in streams.items()}
    check(final_text(results[a]) == "one two three four five six", final_text(results[a]))
    check(final_text(results[b]) == "seven eight nine ten eleven twelve", final_text(results[b]))
    # Both ran at the same time: each was running before the other finished.
    def states(events):
        return [(data["conversationId"], data["state"]) for _, kind, data in events if kind == "state"]

    def settled(events):
        order = states(events)
        return all((c, "running") in order and (c, "idle") in order[order.index((c, "running")):] for c in (a, b))
    order = states(status.wait_until(settled, what="both turns running, then idle"))

    def span(conversation):
        start = order.index((conversation, "running"))
        return start, order.index((conversation, "idle"), start)
    (a_start, a_end), (b_start, b_end) = span(a), span(b)
    check(a_start < b_end and b_start < a_end, "the turns did not overlap: %s" % order)
    deltas = "".join(e[2]["text"] for e in status.events if e[1] == "delta" and e[2]["conversationId"] == a)
    check(deltas == "one two three four five six", "live deltas: %r" % deltas)
    for stream in streams.values():
        stream.close()
    status.close()


@with_backend
def test_input_at_turn_end_starts_the_next_turn_without_a_second_driver(server, project_id):
    conversation = new_conversation(server, project_id)
    stream = EventStream(server, "/api/conversations/%s/events" % conversation)
    turns = 15
    for i in range(turns):
        send(server, conversation, "message %d" % i)
        stream.wait_until(count_turn_ends(i + 1), what="turn %d" % i)
    # And a burst acknowledged while turns are ending.
    for i in range(10):
        send(server, conversation, "burst %d" % i)
    events = stream.wait_until(lambda ev: sum(1 for e in ev if e[1] == "input_claimed") >= turns + 10
                               and ev[-1][1] == "turn_end", what="burst claimed")
    open_turn = None
    for _, kind, data in events:
        if kind == "turn_start":
            check(open_turn is None, "turn %s started while %s was open" % (data["turn_id"], open_turn))
            open_turn = data["turn_id"]
        elif kind == "turn_end":
            check(open_turn == data["turn_id"], "turn_end without its start")
            open_turn = None
    claimed = [i for _, kind, data in events if kind == "input_claimed" for i in data["input_ids"]]
    inputs = [data["input_id"] for _, kind, data in events if kind == "input"]
    check(sorted(claimed) == sorted(inputs) and len(set(claimed)) == len(claimed),
          "inputs claimed twice or never")
    stream.close()


@with_backend
def test_controls_and_navigation(server, project_id):
    conversation = new_conversation(server, project_id, title="Named")
    server.ok("POST", "/api/conversations/%s/pause" % conversation)
    send(server, conversation, "held while paused")
    time.sleep(0.3)
    status = server.ok("GET", "/api/conversations/%s/status" % conversation)
    check(status["state"] == "paused" and status["pendingInputs"] == 1, status)
    server.ok("POST", "/api/conversations/%s/resume" % conversation)
    stream = EventStream(server, "/api/conversations/%s/events" % conversation)
    stream.wait_until(count_turn_ends(1))
    stream.close()
    patched = server.ok("PATCH", "/api/conversations/%s" % conversation,
                        {"title": "Renamed", "pinned": True, "reviewedSeq": 3})
    check(patched["title"] == "Renamed" and patched["pinned"] and patched["reviewedSeq"] == 3, patched)
    other = new_conversation(server, project_id)
    listed = [c["id"] for c in server.ok("GET", "/api/conversations")["conversations"]]
    check(listed == [conversation, other], "pinned first: %s" % listed)
    server.ok("PATCH", "/api/conversations/%s" % other, {"archived": True})
    check([c["id"] for c in server.ok("GET", "/api/conversations")["conversations"]] == [conversation],
          "archived conversation still listed")
    check(len(server.ok("GET", "/api/conversations?archived=all")["conversations"]) == 2, "archived=all")
    removal = server.request("DELETE", "/api/projects/%s" % project_id)
    check(removal.status == 409, "project with conversations removed: %d" % removal.status)
    model = server.ok("PUT", "/api/conversations/%s/model" % conversation,
                      {"provider": "anthropic", "model": "claude-haiku-4-5"})
    check(model["model"] == "claude-haiku-4-5", model)
    check(server.request("POST", "/api/conversations/nope/pause").status == 404, "unknown id")
    check(server.request("GET", "/api/nothing-here").status == 404, "unknown route")
    check(server.request("DELETE", "/api/conversations").status == 405, "wrong method")
    health = server.ok("GET", "/api/health")
    check(health["mode"] == "backend" and health["pid"] == server.process.pid and health["machineId"], health)
    check(server.ok("GET", "/api/machine")["machineId"] == health["machineId"], "machine id")
    check(any(p["name"] == "anthropic" and p["configured"] for p in server.ok("GET", "/api/models")["providers"]),
          "models")
    check("test-key" not in server.request("GET", "/api/models").raw.decode(), "a key leaked")
    check("test-key" not in server.request("GET", "/api/settings").raw.decode(), "a key leaked")
    check(server.ok("GET", "/api/usage")["total"]["inputTokens"] == 10, "usage totals")


@with_backend
def test_delete_removes_the_log_its_subagents_and_the_entry(server, project_id):
    conversation = new_conversation(server, project_id, title="Doomed")
    keep = new_conversation(server, project_id, title="Kept")
    status = EventStream(server, "/api/status/events")
    stream = EventStream(server, "/api/conversations/%s/events" % conversation)
    send(server, conversation, 'tool: task {"agent": "explore", "description": "look", '
                               '"prompt": "bash: echo from-child"}')
    events = stream.wait_until(count_turn_ends(1))
    stream.close()
    sessions = os.path.join(server.home.root, "sessions")
    child = sorted({data["details"]["subagent"]["sessionId"] for _, kind, data in events
                    if kind == "tool_result" and "subagent" in (data.get("details") or {})})
    check(len(child) == 1, "one subagent ran: %s" % child)
    child_log = os.path.join(sessions, child[0] + ".jsonl.zst")
    check(os.path.exists(child_log), "the subagent's log exists")
    send(server, keep, "hello")
    # A turn that is running while it is deleted: its tools stop.
    send(server, conversation, "slow: 200: " + " ".join(["word"] * 50))
    server.ok("DELETE", "/api/conversations/%s" % conversation)
    check(not os.path.exists(os.path.join(sessions, conversation + ".jsonl.zst")), "the log is gone")
    check(not os.path.exists(child_log), "the subagent's log is gone")
    check(os.path.exists(os.path.join(sessions, keep + ".jsonl.zst")), "the other log stays")
    listed = [c["id"] for c in server.ok("GET", "/api/conversations?archived=all")["conversations"]]
    check(listed == [keep], "listed after delete: %s" % listed)
    registry = json.load(open(os.path.join(server.home.root, "web.json")))
    check(conversation not in json.dumps(registry), "web.json still names it")
    for method, path in (("DELETE", ""), ("GET", ""), ("POST", "/input"), ("GET", "/events")):
        answer = server.request(method, "/api/conversations/%s%s" % (conversation, path),
                                {"text": "x"} if method == "POST" else None)
        check(answer.status == 404, "%s %s after delete: %d" % (method, path, answer.status))
    status.wait_until(lambda seen: any(kind == "catalog" and data.get("action") == "deleted" and
                                       data["conversation"]["id"] == conversation
                                       for _, kind, data in seen))
    status.close()
    check(server.request("DELETE", "/api/conversations/..%2Fweb").status == 400, "a path as an id")
    check(server.request("DELETE", "/api/conversations/..").status in (400, 404, 405), "dot-dot as an id")
    check(os.path.exists(os.path.join(server.home.root, "web.json")), "web.json is still there")
    # The other conversation is untouched and still answers.
    send(server, keep, "still here")
    kept = EventStream(server, "/api/conversations/%s/events" % keep)
    kept.wait_until(count_turn_ends(2))
    kept.close()


@with_backend
def test_settings_page_adds_a_provider_that_works_without_a_restart(server, project_id):
    fake_url = server.home.env["ANTHROPIC_BASE_URL"]
    path = "/api/settings/providers/house"
    # A provider of one's own needs a kind: refused, and nothing is written.
    missing_kind = server.request("PUT", path, {"baseUrl": fake_url})
    check(missing_kind.status == 400 and "kind" in missing_kind.json["error"]["message"], missing_kind.raw)
    settings_file = os.path.join(server.home.root, "settings.json")
    check("providers" not in json.load(open(settings_file)), "settings.json written")
    pasted = server.request("PUT", path, {"kind": "anthropic", "apiKey": "sk-house\n"})
    check(pasted.status == 400 and "line breaks" in pasted.json["error"]["message"], pasted.raw)
    check(server.request("PUT", path, {}).status == 400, "empty update accepted")
    check(server.request("PUT", path, [1]).status == 400, "non-object accepted")

    added = server.ok("PUT", path, {"kind": "anthropic", "baseUrl": fake_url, "model": "claude-haiku-4-5"})
    check(added["name"] == "house" and added["kind"] == "anthropic" and not added["configured"], added)
    # Without its key the provider cannot run a turn: the turn ends in an error.
    conversation = server.ok("POST", "/api/conversations",
                             {"projectId": project_id, "model": {"provider": "house"}})["id"]
    stream = EventStream(server, "/api/conversations/%s/events" % conversation)
    send(server, conversation, "hello")
    stream.wait_until(lambda events: any(e[1] in ("error", "turn_end") for e in events), what="a failed turn")

    secret = "sk-house-0123456789"
    keyed = server.ok("PUT", path, {"apiKey": secret})
    check(keyed["configured"] and keyed["keySaved"] and keyed["baseUrl"] == fake_url, keyed)
    auth = os.path.join(server.home.root, "auth.json")
    check(os.stat(auth).st_mode & 0o777 == 0o600, "auth.json mode %o" % os.stat(auth).st_mode)
    for route in ("/api/models", "/api/settings", "/api/status"):
        check(secret not in server.request("GET", route).raw.decode(), "the key leaked from " + route)
    check(secret not in server.log_text(), "the key is in the log")
    settings = server.ok("GET", "/api/settings")
    check("house" in settings["savedKeys"], settings)

    # The next conversation on it runs (the fake provider answers any key).
    working = server.ok("POST", "/api/conversations",
                        {"projectId": project_id, "model": {"provider": "house"}})["id"]
    follow = EventStream(server, "/api/conversations/%s/events" % working)
    send(server, working, "hello house")
    events = follow.wait_until(count_turn_ends(1))
    check(final_text(events) == "echo: hello house", final_text(events))
    check(turn_ends(events)[0][2]["reason"] == "completed", turn_ends(events))
    follow.close()
    stream.close()

    forgotten = server.ok("DELETE", path + "/key")
    check(not forgotten["keySaved"] and not forgotten["configured"], forgotten)
    check(server.request("DELETE", path + "/key").status == 404, "forgot twice")
    with open(auth) as f:
        check(secret not in f.read(), "the key is still in auth.json")


def test_a_local_server_is_the_default_when_nothing_is_configured():
    with tempfile.TemporaryDirectory(prefix="ava-local-") as scratch:
        record = os.path.join(scratch, "requests.jsonl")
        local = FakeProvider(FAKE, record=record, wire="openai")  # poses as Ollama
        home = Home(local)
        for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"):
            home.env.pop(name)
        port = urllib.parse.urlsplit(local.url).port
        # An LM Studio that runs with no model loaded: listed, never in use.
        empty = http.server.ThreadingHTTPServer(("127.0.0.1", 0), NoModels)
        threading.Thread(target=empty.serve_forever, daemon=True).start()
        home.env["AVA_LOCAL_PROBE"] = "ollama=127.0.0.1:%d,lmstudio=127.0.0.1:%d" % (
            port, empty.server_address[1])
        server = Server(home, [BACKEND, "--port", "0"])
        try:
            models = wait_for(lambda: (lambda m: m if m["detected"] else None)(
                server.ok("GET", "/api/models")), 20, "the local server to be found")
            check(models["needsSetup"] and models["defaultProvider"] == "ollama", models)
            check(models["detected"] == [
                {"name": "ollama", "kind": "ollama", "baseUrl": "http://127.0.0.1:%d/v1" % port,
                 "models": ["echo-local:1b"], "inUse": True},
                {"name": "lmstudio", "kind": "lmstudio",
                 "baseUrl": "http://127.0.0.1:%d/v1" % empty.server_address[1],
                 "models": [], "inUse": False}], models["detected"])
            project = server.ok("POST", "/api/projects", {"path": home.project})["id"]
            conversation = new_conversation(server, project)
            stream = EventStream(server, "/api/conversations/%s/events" % conversation)
            send(server, conversation, "hello local")
            events = stream.wait_until(count_turn_ends(1))
            stream.close()
            check(final_text(events) == "echo: hello local", final_text(events))
            with open(record) as f:
                sent = [json.loads(line) for line in f]
            check(sent and sent[-1]["target"] == "/v1/chat/completions", sent)
            check(sent[-1]["body"]["model"] == "echo-local:1b", sent[-1]["body"])

            # The first-run panel's "use it": saved as the default, set-up done.
            saved = server.ok("PUT", "/api/settings/providers/ollama",
                              {"baseUrl": "http://127.0.0.1:%d/v1" % port, "model": "echo-local:1b",
                               "makeDefault": True})
            check(saved["configured"] and saved["model"] == "echo-local:1b", saved)
            with open(os.path.join(home.root, "settings.json")) as f:
                check(json.load(f)["provider"] == "ollama", "settings.json provider")
            after = server.ok("GET", "/api/models")
            check(not after["needsSetup"] and after["defaultProvider"] == "ollama", after)
            refused = server.request("PUT", "/api/settings/providers/ollama", {"makeDefault": False})
            check(refused.status == 400 and "nothing to change" in refused.json["error"]["message"],
                  refused.raw)
        except Exception:
            sys.stderr.write("--- server log\n" + server.log_text() + "\n")
            raise
        finally:
            server.stop()
            local.stop()
            empty.shutdown()
            home.cleanup()


class NoModels(http.server.BaseHTTPRequestHandler):
    """An OpenAI-style model listing with nothing in it."""

    def do_GET(self):  # noqa: N802 - the http.server name
        body = b'{"object": "list", "data": []}'
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def test_sigkill_mid_turn_then_restart_recovers():
    fake = FakeProvider(FAKE)
    home = Home(fake)
    server = Server(home, [BACKEND])
    try:
        project = server.ok("POST", "/api/projects", {"path": home.project})
        conversation = new_conversation(server, project["id"])
        done = new_conversation(server, project["id"])
        send(server, done, "finished before the crash")
        stream = EventStream(server, "/api/conversations/%s/events" % done)
        stream.wait_until(count_turn_ends(1))
        stream.close()
        stream = EventStream(server, "/api/conversations/%s/events" % conversation)
        send(server, conversation, "bash: sleep 30")
        stream.wait_until(lambda events: any(e[1] == "assistant" for e in events), what="the tool call")
        time.sleep(0.3)  # the tool is running
        before = list(stream.events)
        server.signal(signal.SIGKILL)
        server.wait()
        stream.close()
        check(home.backend_file() is not None, "backend.json vanished on SIGKILL")

        server = Server(home, [BACKEND])
        listed = {c["id"] for c in server.ok("GET", "/api/conversations")["conversations"]}
        check(listed == {conversation, done}, "conversations after restart: %s" % listed)
        replay = EventStream(server, "/api/conversations/%s/events" % conversation)
        events = replay.wait_until(lambda ev: any(e[1] == "turn_end" for e in ev), what="recovered turn end")
        time.sleep(0.2)
        replay.close()
        check([e[2] for e in events[:len(before)]] == [e[2] for e in before], "history changed")
        results = [e[2] for e in events if e[1] == "tool_result"]
        check(len(results) == 1 and results[0]["status"] == "interrupted", results)
        check(turn_ends(events)[0][2]["reason"] in ("interrupted", "aborted"), turn_ends(events))
        check_paired(events, "after recovery")
        # The conversation carries on.
        send(server, conversation, "still there?")
        follow = EventStream(server, "/api/conversations/%s/events" % conversation,
                             last_event_id=events[-1][0])
        later = follow.wait_until(count_turn_ends(1))
        follow.close()
        check(final_text(later) == "echo: still there?", final_text(later))
        other = EventStream(server, "/api/conversations/%s/events" % done)
        replayed = other.wait_until(count_turn_ends(1))
        other.close()
        check(final_text(replayed) == "echo: finished before the crash", "other conversation")
    except Exception:
        sys.stderr.write("--- server log\n" + server.log_text() + "\n")
        raise
    finally:
        server.stop()
        fake.stop()
        home.cleanup()


def test_sigterm_mid_turn_shuts_down_in_order():
    fake = FakeProvider(FAKE)
    home = Home(fake)
    server = Server(home, [BACKEND])
    try:
        project = server.ok("POST", "/api/projects", {"path": home.project})
        conversation = new_conversation(server, project["id"])
        stream = EventStream(server, "/api/conversations/%s/events" % conversation)
        send(server, conversation, "bash: sleep 30")
        stream.wait_until(lambda events: any(e[1] == "assistant" for e in events), what="the tool call")
        time.sleep(0.3)
        started = time.monotonic()
        server.signal(signal.SIGTERM)
        code = server.wait(timeout=30)
        elapsed = time.monotonic() - started
        check(code == 0, "exit code %s" % code)
        check(elapsed < 10, "shutdown took %.1f s" % elapsed)
        stream.thread.join(timeout=5)
        check(stream.closed, "the event stream was not ended")
        events = list(stream.events)
        check(events[-1][1] == "turn_end", "last streamed event: %s" % events[-1][1])
        check_paired(events, "after SIGTERM")
        check(home.backend_file() is None, "backend.json left behind")
        inspect = subprocess.run([AVA, "session", "inspect", "--json",
                                  os.path.join(home.root, "sessions", conversation + ".jsonl.zst")],
                                 env=home.env, capture_output=True, text=True)
        report = json.loads(inspect.stdout)
        check(report["unpairedCalls"] == [] and report["pendingInput"] == [], report)
        # The home is free again.
        again = Server(home, [BACKEND])
        again.stop()
    except Exception:
        sys.stderr.write("--- server log\n" + server.log_text() + "\n")
        raise
    finally:
        server.stop()
        fake.stop()
        home.cleanup()


def raw_request(port, data, timeout=5):
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(data)
        chunks = []
        while True:
            try:
                chunk = sock.recv(65536)
            except socket.timeout:
                break
            if not chunk:
                break
            chunks.append(chunk)
        return b"".join(chunks)


def read_sse_until_closed(sock, timeout, start=b""):
    """Reads a raw SSE socket to its end (`start`: what was read of it
    already): (events as (id, kind), comments)."""
    deadline = time.monotonic() + timeout
    chunks = [start]
    while True:
        remaining = deadline - time.monotonic()
        check(remaining > 0, "the stream did not end within %d s" % timeout)
        sock.settimeout(remaining)
        chunk = sock.recv(1 << 16)
        if not chunk:
            break
        chunks.append(chunk)
    data = b"".join(chunks)
    body = data.split(b"\r\n\r\n", 1)[1].decode()
    events, comments = [], []
    blocks = body.split("\n\n")
    if not body.endswith("\n\n"):
        blocks = blocks[:-1]  # cut off mid-event: never dispatched
    for block in blocks:
        fields = {}
        for line in block.split("\n"):
            if line.startswith(":"):
                comments.append(line)
            elif ":" in line:
                name, _, value = line.partition(":")
                fields[name] = value.strip()
        if "data" in fields:
            events.append((int(fields["id"]), fields.get("event")))
    return events, comments


@with_backend
def test_a_stalled_subscriber_is_cut_and_resumes_from_its_cursor(server, project_id):
    conversation = new_conversation(server, project_id)
    path = "/api/conversations/%s/events" % conversation
    server.ok("POST", "/api/conversations/%s/pause" % conversation)  # inputs pile up, no turns
    # A subscriber that stops reading, with a small receive window.
    stalled = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    stalled.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    stalled.connect(("127.0.0.1", server.port))
    stalled.sendall(("GET %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nAuthorization: Bearer %s\r\n\r\n"
                     % (path, server.port, server.token)).encode())
    head = b""
    while b"retry: 1000\n\n" not in head:  # following the feed before the flood starts
        chunk = stalled.recv(1)
        check(chunk, "the stalled stream ended before it began")
        head += chunk
    follower = EventStream(server, path)
    # Far more than the feed keeps for a subscriber (8 MiB) plus what the
    # kernel buffers on the connection (tcp_wmem allows up to 4 MiB), in few
    # requests: the stalled subscriber's pending write must not reach the
    # server's 30 s write timeout before the test reads it.
    total = 200
    started = time.monotonic()
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    headers = {"Authorization": "Bearer " + server.token, "Content-Type": "application/json"}
    for i in range(total):
        connection.request("POST", "/api/conversations/%s/input" % conversation,
                           json.dumps({"text": "input %d %s" % (i, "x" * (128 * 1024)), "kind": "followup"}), headers)
        response = connection.getresponse()
        response.read()
        check(response.status == 202, "input %d -> %d" % (i, response.status))
    connection.close()
    sys.stderr.write("%d inputs acknowledged in %.1f s\n" % (total, time.monotonic() - started))
    # A reading subscriber is not held back by the stalled one.
    def saw_last_input(events):
        return events and events[-1][1] == "input" and "input %d " % (total - 1) in json.dumps(events[-1][2])
    followed = follower.wait_until(saw_last_input, timeout=60, what="every input")
    follower.close()
    last = int(followed[-1][0])
    check(len(followed) == last and len(followed) >= total, "follower missed events")
    check(server.ok("GET", "/api/health")["pid"] == server.process.pid, "health after the flood")
    # The stalled one, once it reads, gets a prefix of the log, then is cut.
    events, comments = read_sse_until_closed(stalled, 60, head)
    check(events, "the stalled subscriber got nothing before the cut")
    stalled.close()
    ids = [seq for seq, _ in events]
    check(ids == list(range(1, len(ids) + 1)), "stalled stream is not a gapless prefix: %s" % ids[-5:])
    check(0 < len(ids) < total, "stalled subscriber was not cut (%d events)" % len(ids))
    # Usually the feed says so; on a very slow machine the pending write may
    # instead reach the write timeout, which ends the stream just the same.
    if not any("too far behind" in comment for comment in comments):
        sys.stderr.write("stalled stream ended without the cut comment (write timeout)\n")
    # Reconnecting from its cursor gives exactly the rest.
    resumed = EventStream(server, path, last_event_id=ids[-1])
    rest = resumed.wait_until(lambda got: len(got) >= last - len(ids), timeout=60, what="the rest")
    time.sleep(0.3)
    resumed.close()
    check([int(e[0]) for e in resumed.events] == list(range(len(ids) + 1, last + 1)),
          "resumed stream is not exactly the rest: %d events, %s..%s after %d" % (
              len(resumed.events), resumed.events[0][0], resumed.events[-1][0], ids[-1]))
    check(rest[-1][1] == "input", rest[-1])


@with_backend
def test_security_fence(server, project_id):
    conversation = new_conversation(server, project_id)
    send(server, conversation, "before the attacks")
    stream = EventStream(server, "/api/conversations/%s/events" % conversation)
    baseline = stream.wait_until(count_turn_ends(1))
    stream.close()

    def still_fine(after):
        check(server.request("GET", "/api/health").status == 200, "health after " + after)

    check(server.request("GET", "/api/health", token=False).status == 401, "no token")
    still_fine("no token")
    wrong = server.request("GET", "/api/health", token=False, headers={"Authorization": "Bearer " + "0" * 64})
    check(wrong.status == 401 and wrong.json["error"]["code"] == "unauthorized", wrong.raw)
    check(server.request("GET", "/api/health", token=False,
                         headers={"Authorization": "Basic " + server.token}).status == 401, "wrong scheme")
    still_fine("wrong token")
    for host in ("evil.example:%d" % server.port, "127.0.0.1:%d" % (server.port + 1), "127.0.0.1", "localhost.evil"):
        response = server.request("GET", "/api/health", headers={"Host": host})
        check(response.status == 403 and response.json["error"]["code"] == "forbidden_host",
              "Host %s -> %d" % (host, response.status))
    still_fine("bad Host")
    for origin in ("http://evil.example", "null", "http://127.0.0.1:%d" % (server.port + 1)):
        response = server.request("GET", "/api/health", headers={"Origin": origin})
        check(response.status == 403 and response.json["error"]["code"] == "forbidden_origin",
              "Origin %s -> %d" % (origin, response.status))
    check(server.request("GET", "/api/health", headers={"Origin": "http://127.0.0.1:%d" % server.port}).status == 200,
          "same origin refused")
    check("Access-Control-Allow-Origin" not in server.request("GET", "/api/health").headers, "CORS header")
    still_fine("bad Origin")
    big = server.request("POST", "/api/conversations/%s/input" % conversation,
                         body=json.dumps({"text": "x" * (9 * 1024 * 1024)}),
                         headers={"Content-Type": "application/json"})
    check(big.status == 413 and big.json["error"]["code"] == "body_too_large", big.status)
    still_fine("oversized body")
    declared = raw_request(server.port, ("POST /api/conversations/%s/input HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
                                         "Authorization: Bearer %s\r\nContent-Length: %d\r\n\r\n" % (
                                             conversation, server.port, server.token, 9 * 1024 * 1024)).encode())
    check(declared.startswith(b"HTTP/1.1 413"), "declared length over the limit: %r" % declared[:40])
    # A chunked body without a length is cut at the limit too.
    head = ("POST /api/conversations/%s/input HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nAuthorization: Bearer %s\r\n"
            "Transfer-Encoding: chunked\r\n\r\n" % (conversation, server.port, server.token)).encode()
    chunk = b"x" * (1024 * 1024)
    body = b"".join(b"%x\r\n" % len(chunk) + chunk + b"\r\n" for _ in range(9)) + b"0\r\n\r\n"
    reply = raw_request(server.port, head + body)
    check(reply.startswith(b"HTTP/1.1 413"), reply[:60])
    still_fine("oversized chunked body")
    malformed = server.request("POST", "/api/conversations/%s/input" % conversation, body="{not json",
                               headers={"Content-Type": "application/json"})
    check(malformed.status == 400 and malformed.json["error"]["code"] == "invalid_argument", malformed.raw)
    check(server.request("POST", "/api/conversations/%s/input" % conversation, body={"text": 5}).status == 400,
          "wrong type")
    check(raw_request(server.port, b"NOT HTTP AT ALL\r\n\r\n").startswith(b"HTTP/1.1 400"), "garbage request")
    still_fine("malformed JSON")

    # Slow loris: a header byte a second is cut at the header deadline.
    sock = socket.create_connection(("127.0.0.1", server.port))
    started = time.monotonic()
    closed_after = None
    try:
        for index, byte in enumerate(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 60):
            if index == 3:
                still_fine("a slow client connected")
            sock.sendall(bytes([byte]))
            time.sleep(1)
            if time.monotonic() - started > 25:
                break
    except (BrokenPipeError, ConnectionResetError):
        closed_after = time.monotonic() - started
    if closed_after is None:
        sock.settimeout(5)
        try:
            closed_after = time.monotonic() - started if sock.recv(1) == b"" else None
        except (socket.timeout, ConnectionResetError):
            closed_after = time.monotonic() - started
    sock.close()
    check(closed_after is not None and closed_after < 20, "slow client not cut (%s)" % closed_after)
    still_fine("slow loris")

    # Nothing was lost: the history is the same and the conversation works.
    replay = EventStream(server, "/api/conversations/%s/events" % conversation)
    replay.wait_until(lambda events: len(events) >= len(baseline))
    replay.close()
    check([e[2] for e in replay.events[:len(baseline)]] == [e[2] for e in baseline], "history changed")
    send(server, conversation, "after the attacks")
    follow = EventStream(server, "/api/conversations/%s/events" % conversation, last_event_id=baseline[-1][0])
    check(final_text(follow.wait_until(count_turn_ends(1))) == "echo: after the attacks", "conversation broken")
    follow.close()


def test_backend_cli_and_ownership():
    fake = FakeProvider(FAKE)
    home = Home(fake)
    run = lambda *args: subprocess.run([AVA, *args], env=home.env, capture_output=True, text=True, timeout=60)  # noqa
    try:
        check(run("backend", "status").returncode == 3, "status before start")
        started = run("backend", "start")
        check(started.returncode == 0 and "running at http://127.0.0.1:" in started.stdout,
              started.stdout + started.stderr)
        info = home.backend_file()
        check(info and info["token"] and len(info["token"]) == 64, "backend.json")
        mode = os.stat(os.path.join(home.root, "backend.json")).st_mode & 0o777
        check(mode == 0o600, "backend.json mode %o" % mode)
        check(os.stat(os.path.join(home.root, "machine.json")).st_mode & 0o777 == 0o600, "machine.json mode")
        check(run("backend", "status").returncode == 0, "status while running")
        status = json.loads(run("backend", "status", "--json").stdout)
        check(status["running"] and status["pid"] == info["pid"], status)
        again = run("backend", "start")
        check(again.returncode == 0 and str(info["pid"]) in again.stdout, "second start: " + again.stdout)
        second = subprocess.run([BACKEND], env=home.env, capture_output=True, text=True, timeout=30)
        check(second.returncode != 0 and ("pid %d" % info["pid"]) in second.stderr, second.stderr)
        serve = subprocess.run([AVA, "--serve", "--no-open"], env=home.env, capture_output=True, text=True,
                               timeout=30)
        check(serve.returncode != 0 and ("pid %d" % info["pid"]) in serve.stderr, serve.stderr)
        # A one-shot run must not resume a session the backend owns.
        token = {"Authorization": "Bearer " + info["token"]}
        port = info["port"]
        import http.client
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        connection.request("POST", "/api/projects", body=json.dumps({"path": home.project}),
                           headers=dict(token, **{"Content-Type": "application/json"}))
        project = json.loads(connection.getresponse().read())
        connection.request("POST", "/api/conversations", body=json.dumps({"projectId": project["id"]}),
                           headers=dict(token, **{"Content-Type": "application/json"}))
        conversation = json.loads(connection.getresponse().read())["id"]
        connection.close()
        resumed = run("-p", "hello", "--provider", "mock", "--session", conversation)
        check(resumed.returncode != 0 and str(info["pid"]) in resumed.stderr, "resumed an owned session: %s" % (
            resumed.stdout + resumed.stderr))
        stopped = run("backend", "stop")
        check(stopped.returncode == 0 and "stopped" in stopped.stdout, stopped.stdout + stopped.stderr)
        check(home.backend_file() is None, "backend.json left after stop")
        check(run("backend", "status").returncode == 3, "status after stop")
        machine = json.load(open(os.path.join(home.root, "machine.json")))
        restarted = run("backend", "start")
        check(restarted.returncode == 0, restarted.stderr)
        check(json.load(open(os.path.join(home.root, "machine.json"))) == machine, "machine id changed")
        check(home.backend_file()["token"] != info["token"], "token reused")
        check(run("backend", "stop").returncode == 0, "second stop")
    finally:
        run("backend", "stop")
        fake.stop()
        home.cleanup()


class Running(Server):
    """A backend started by `ava backend start`, read from its backend.json."""

    def __init__(self, home):
        info = home.backend_file()
        check(info, "no backend.json")
        self.home = home
        self.port = info["port"]
        self.token = info["token"]
        self.pid = info["pid"]


def test_backend_restart_when_idle_waits_for_the_running_turn():
    fake = FakeProvider(FAKE)
    home = Home(fake)
    run = lambda *args: subprocess.run([AVA, *args], env=home.env, capture_output=True, text=True, timeout=120)  # noqa
    try:
        check(run("backend", "start").returncode == 0, "start")
        server = Running(home)
        project = server.ok("POST", "/api/projects", {"path": home.project})["id"]
        busy = server.ok("POST", "/api/conversations", {"projectId": project})["id"]
        other = server.ok("POST", "/api/conversations", {"projectId": project})["id"]
        stream = EventStream(server, "/api/conversations/%s/events" % busy)
        words = " ".join("w%d" % i for i in range(10))
        send(server, busy, "slow: 300: " + words, input_id="before-restart")
        stream.wait_until(lambda events: any(e[1] == "input" for e in events), what="the input")

        # Turns outlasting --max-wait: the restart gives up, nothing is cancelled.
        gave_up = run("backend", "restart", "--when-idle", "--max-wait", "1")
        check(gave_up.returncode == 1 and "update stays pending" in gave_up.stderr, gave_up)
        check(Running(home).pid == server.pid, "the old backend keeps running")
        check(not server.ok("GET", "/api/status")["restartPending"], "inputs taken again")

        stream.wait_until(count_turn_ends(1), what="the first turn")
        send(server, busy, "slow: 300: " + words, input_id="second-turn")
        time.sleep(0.5)
        restart = subprocess.Popen([AVA, "backend", "restart", "--when-idle"], env=home.env,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        wait_for(lambda: server.ok("GET", "/api/status")["restartPending"], 10, "restart pending")
        refused = server.request("POST", "/api/conversations/%s/input" % other,
                                 {"text": "during the wait", "inputId": "during-wait"})
        check(refused.status == 503 and "restarts for an update" in refused.raw.decode(),
              (refused.status, refused.raw))
        out, err = restart.communicate(timeout=120)
        check(restart.returncode == 0 and "waited" in out, out + err)
        events = stream.wait_until(count_turn_ends(2), what="both turns")
        stream.close()
        ends = [e[2] for e in events if e[1] == "turn_end"]
        check(all(end.get("reason") == "completed" for end in ends), ends)
        check(final_text(events).strip().endswith("w9"), final_text(events))

        restarted = Running(home)
        check(restarted.pid != server.pid, "a new backend")
        # The refused input goes through now, once.
        accepted = restarted.ok("POST", "/api/conversations/%s/input" % other,
                                {"text": "during the wait", "inputId": "during-wait"},
                                expect=(202,))
        check(not accepted["duplicate"], accepted)
    finally:
        run("backend", "stop")
        fake.stop()
        home.cleanup()


def test_serve_mode():
    fake = FakeProvider(FAKE)
    home = Home(fake)
    server = Server(home, [AVA, "--serve", "--port", "0", "--no-open"], backend=False)
    try:
        page = server.request("GET", "/")
        check(page.status == 200 and b"<html" in page.raw.lower(), page.raw[:200])
        check(page.headers.get("Content-Type", "").startswith("text/html"), page.headers)
        health = server.ok("GET", "/api/health")
        check(health["mode"] == "serve", health)
        check(server.request("GET", "/api/health", headers={"Host": "rebind.example:%d" % server.port}).status
              == 403, "DNS rebinding host accepted")
        check(server.request("GET", "/", headers={"Host": "rebind.example:%d" % server.port}).status == 403,
              "page served to a foreign host")
        check(server.request("POST", "/api/projects", body={"path": home.project},
                             headers={"Origin": "http://evil.example"}).status == 403, "cross-site POST")
        check(server.request("GET", "/../../etc/passwd").status in (403, 404), "path traversal")
        check(server.request("POST", "/api/shutdown").status in (404, 405), "serve mode offers shutdown")
        project = server.ok("POST", "/api/projects", {"path": home.project})
        conversation = new_conversation(server, project["id"])
        send(server, conversation, "served")
        stream = EventStream(server, "/api/conversations/%s/events" % conversation)
        check(final_text(stream.wait_until(count_turn_ends(1))) == "echo: served", "serve conversation")
        stream.close()
        server.signal(signal.SIGINT)
        check(server.wait(timeout=30) == 0, "serve exit code")
        check(not os.path.exists(os.path.join(home.root, "backend.json")), "serve wrote backend.json")
    finally:
        server.stop()
        fake.stop()
        home.cleanup()


def raw_get(port, target, headers=""):
    """One request line as given (curl and http.client would normalize it)."""
    return raw_request(port, ("GET %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n%sConnection: close\r\n\r\n" % (
        target, port, headers)).encode())


def with_serve(test, web_root=None):
    """Runs test(server, home) against a fresh `ava --serve` (logged in)."""
    def run():
        fake = FakeProvider(FAKE)
        home = Home(fake)
        if web_root:
            home.env["AVA_WEB_ROOT"] = web_root(home)
        server = Server(home, [AVA, "--serve", "--port", "0", "--no-open"], backend=False)
        try:
            test(server, home)
        except Exception:
            sys.stderr.write("--- server log\n" + server.log_text() + "\n")
            raise
        finally:
            server.stop()
            fake.stop()
            home.cleanup()
    return run


@with_backend
def test_request_target_is_origin_form_only(server, project_id):
    # Routing used to drop the target's first character whatever it was, and
    # the token was checked only for targets starting with /api/.
    marker = os.path.join(os.path.dirname(server.home.root), "mcp-ran")
    body = json.dumps({"name": "evil", "command": "touch", "args": [marker]})
    for target in ("xapi/mcp/servers", "api/mcp/servers", "%2Fapi/mcp/servers"):
        reply = raw_request(server.port, ("POST %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\n"
                                          "Content-Length: %d\r\nConnection: close\r\n\r\n%s" % (
                                              target, server.port, len(body), body)).encode())
        check(reply.startswith(b"HTTP/1.1 400") and b"bad_request_target" in reply, "%s: %r" % (target, reply[:120]))
    for target in ("xapi/settings", "*", "http://127.0.0.1:%d/api/settings" % server.port, "127.0.0.1:%d" % server.port):
        reply = raw_get(server.port, target)
        check(reply.startswith(b"HTTP/1.1 400"), "%s: %r" % (target, reply[:80]))
    reply = raw_request(server.port, ("POST xapi/mcp/servers/evil/test HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
                                      "Content-Length: 0\r\nConnection: close\r\n\r\n" % server.port).encode())
    check(reply.startswith(b"HTTP/1.1 400"), reply[:80])
    names = [entry["name"] for entry in server.ok("GET", "/api/mcp/servers")["servers"]]
    check("evil" not in names and not os.path.exists(marker), "the bypass added or ran a server: %s" % names)
    # One decoding for the fence and the router: an escaped letter is still /api/.
    check(server.request("GET", "/%61pi/settings", token=False).status == 401, "escaped /api/ without a token")
    check(server.request("GET", "/%61pi/settings").status == 200, "escaped /api/ with the token")
    for target in ("/api%2Fsettings", "/api/settings%00", "/api/settings%5C", "/api/%"):
        check(raw_get(server.port, target, "Authorization: Bearer %s\r\n" % server.token).startswith(b"HTTP/1.1 400"),
              target)
    # The backend's web UI needs the secret as much as its API.
    check(raw_get(server.port, "/").startswith(b"HTTP/1.1 401"), "backend page without a secret")


def web_root_with_escapes(home):
    root = os.path.join(home.dir.name, "web")
    os.makedirs(os.path.join(root, "assets"))
    with open(os.path.join(root, "index.html"), "w") as f:
        f.write("<!doctype html><html><body>the app</body></html>")
    with open(os.path.join(root, "assets", "app.js"), "w") as f:
        f.write("console.log('app')")
    with open(os.path.join(home.dir.name, "secret.html"), "w") as f:
        f.write("<script>SECRET-OUTSIDE</script>")
    os.symlink(os.path.join(home.dir.name, "secret.html"), os.path.join(root, "assets", "out.html"))
    os.symlink(home.dir.name, os.path.join(root, "up"))
    return root


def test_static_files_stay_in_the_web_root():
    def run(server, home):
        cookie = "Cookie: %s\r\n" % server.cookie
        check(b"the app" in raw_get(server.port, "/", cookie), "index")
        js = raw_get(server.port, "/assets/app.js", cookie)
        check(js.startswith(b"HTTP/1.1 200") and b"text/javascript" in js, js[:200])
        check(b"the app" in raw_get(server.port, "/settings/general", cookie), "client-side route")
        escapes = {"//etc/passwd": b"404", "//proc/self/environ": b"404", "/%2Fproc%2Fself%2Fenviron": b"400",
                   "/%2fetc%2fpasswd": b"400", "/assets/out.html": b"404", "/up/secret.html": b"404",
                   "/../secret.html": b"404", "/.%2e/secret.html": b"404", "/assets/..%5C..%5Csecret.html": b"400",
                   "/index.html%00.js": b"400", "//%2E%2E/secret.html": b"404",
                   "/" + home.dir.name.lstrip("/") + "/secret.html": b"404"}
        for target, status in escapes.items():
            reply = raw_get(server.port, target, cookie)
            check(reply.startswith(b"HTTP/1.1 " + status), "%s: %r" % (target, reply[:60]))
            check(b"SECRET-OUTSIDE" not in reply and b"root:" not in reply and b"PATH=" not in reply,
                  "%s leaked a file" % target)
    with_serve(run, web_root=web_root_with_escapes)()


def test_login_model():
    def run(server, home):
        # Without the cookie nothing but the login routes answer.
        for target in ("/", "/api/health", "/assets/app.js", "/index.html"):
            check(raw_get(server.port, target).startswith(b"HTTP/1.1 401"), "%s without a login" % target)
        page = server.request("GET", "/", token=False)
        check(page.status == 401 and "text/html" in page.headers["Content-Type"], page.raw[:100])
        check(server.request("GET", "/?login=" + "0" * 64, token=False).status == 401, "a wrong code")
        check(server.request("POST", "/api/login", {"code": "0" * 64}, token=False).status == 401, "wrong code posted")
        # The printed code was spent by the harness: it works once only.
        check(server.request("GET", "/?login=" + server.login_code, token=False).status == 401, "code reused")
        check(server.request("POST", "/api/login", {"code": server.login_code}, token=False).status == 401,
              "code reused by POST")
        # A new code through the API (what `ava backend open` asks for).
        minted = server.ok("POST", "/api/login-codes", expect=(201,))
        check(minted["url"].startswith("http://127.0.0.1:%d/?login=" % server.port), minted)
        link = server.request("GET", minted["url"].split(str(server.port), 1)[1], token=False)
        check(link.status == 303 and link.headers["Location"] == "/", (link.status, link.headers))
        cookie = link.headers["Set-Cookie"]
        check(cookie.startswith("ava_%d=" % server.port) and "HttpOnly" in cookie and "SameSite=Strict" in cookie, cookie)
        session = cookie.split(";", 1)[0]
        check(server.request("GET", "/api/health", token=False, headers={"Cookie": session}).status == 200, "new session")
        check(server.request("GET", "/api/health", token=False,
                             headers={"Cookie": "ava_%d=%s" % (server.port + 1, session.split("=", 1)[1])}).status
              == 401, "cookie of another port")
        # Headers that keep pages of other origins out.
        for response in (server.request("GET", "/"), server.request("GET", "/api/health")):
            policy = response.headers.get("Content-Security-Policy", "")
            check("default-src 'self'" in policy and "frame-ancestors 'none'" in policy and "script-src 'self'" in policy,
                  policy)
            check(response.headers.get("Referrer-Policy") == "no-referrer", response.headers)
        # Cross-site writes: only exactly application/json, never from another site.
        body = json.dumps({"path": home.project})
        for content_type in ("text/plain;x=application/json", "text/plain", "application/x-www-form-urlencoded",
                             "multipart/form-data; boundary=x", "application/json;x=1"):
            reply = server.request("POST", "/api/projects", body, headers={"Content-Type": content_type})
            check(reply.status == 415, "%s -> %d" % (content_type, reply.status))
        check(server.request("POST", "/api/projects", body).status == 415, "a body without a content type")
        for site in ("cross-site", "same-site"):
            reply = server.request("POST", "/api/projects", {"path": home.project}, headers={"Sec-Fetch-Site": site})
            check(reply.status == 403, "Sec-Fetch-Site %s -> %d" % (site, reply.status))
        check(server.request("GET", "/api/health", headers={"Sec-Fetch-Site": "cross-site"}).status == 403,
              "cross-site GET")
        check(server.request("GET", "/api/health", headers={"Sec-Fetch-Site": "same-origin"}).status == 200,
              "same-origin GET")
        check(server.request("POST", "/api/projects", {"path": home.project}).status in (200, 201), "a plain JSON POST")
        # A body nested far too deep is refused, and the server stays up.
        deep = "[" * 300000 + "]" * 300000
        reply = server.request("POST", "/api/projects", deep, headers={"Content-Type": "application/json"})
        check(reply.status == 400 and reply.json["error"]["code"] == "invalid_argument", reply.raw[:200])
        deep_object = '{"path":' * 200000 + '"x"' + "}" * 200000
        reply = server.request("POST", "/api/projects", deep_object, headers={"Content-Type": "application/json"})
        check(reply.status == 400, reply.raw[:200])
        check(server.request("GET", "/api/health").status == 200, "alive after deep JSON")
    with_serve(run)()


@with_backend
def test_backend_open_gives_a_browser_login(server, project_id):
    opened = subprocess.run([AVA, "backend", "open", "--no-open"], env=server.home.env, capture_output=True,
                            text=True, timeout=30)
    check(opened.returncode == 0, opened.stderr)
    url = urllib.parse.urlsplit(opened.stdout.strip())
    check(url.port == server.port and url.path == "/" and url.query.startswith("login="), opened.stdout)
    link = server.request("GET", "/?" + url.query, token=False)
    check(link.status == 303 and "HttpOnly" in link.headers.get("Set-Cookie", ""), (link.status, link.headers))
    session = link.headers["Set-Cookie"].split(";", 1)[0]
    page = server.request("GET", "/", token=False, headers={"Cookie": session})
    check(page.status == 200 and b"<html" in page.raw.lower(), page.raw[:200])
    health = server.request("GET", "/api/health", token=False, headers={"Cookie": session})
    check(health.status == 200 and health.json["mode"] == "backend", health.raw)
    check(server.request("GET", "/?" + url.query, token=False).status == 401, "the code works once")


@with_backend
def test_tunnel_redirects_and_sign_in_callbacks_are_checked(server, project_id):
    """POST /api/tunnel-ports redirectPort and POST /api/mcp/sign-in-callback
    (remote.md): bad shapes are 400, a redirect no sign-in waits for is 409,
    and neither route answers without the token."""
    for body in ({"port": 70000}, {"port": 5555, "redirectPort": 0},
                 {"port": 5555, "redirectPort": "6666"}, {"port": 5555, "redirectPort": 70000}):
        answer = server.request("POST", "/api/tunnel-ports", body)
        check(answer.status == 400, (body, answer.status, answer.raw))
    check(server.request("POST", "/api/tunnel-ports", {"port": 5555, "redirectPort": 6666}).status
          == 204, "a tunnel with its redirect port")
    check(server.request("POST", "/api/mcp/sign-in-callback", {"query": "code=a&state=b"},
                         token=False).status == 401, "the callback needs the token")
    for body in ({}, {"query": ""}, {"query": 7}, {"query": "x" * 9000}, "not json", "[]"):
        headers = {"Content-Type": "application/json"} if isinstance(body, str) else None
        answer = server.request("POST", "/api/mcp/sign-in-callback", body, headers=headers)
        check(answer.status == 400, (str(body)[:40], answer.status, answer.raw))
    for query in ("code=a&state=nobody-waits", "%zz", "state=", "code=only"):
        answer = server.request("POST", "/api/mcp/sign-in-callback", {"query": query})
        check(answer.status == 409 and answer.json["error"]["code"] == "conflict",
              (query, answer.status, answer.raw))


def cpu_seconds(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_out_of_descriptors_pauses_accepting():
    import resource

    def few_descriptors():
        resource.setrlimit(resource.RLIMIT_NOFILE, (160, 160))

    fake = FakeProvider(FAKE)
    home = Home(fake)
    server = Server(home, [BACKEND, "--port", "0"], preexec_fn=few_descriptors)
    sockets = []
    try:
        check(server.ok("GET", "/api/health")["mode"] == "backend", "health")
        # UBSan (the dev build) checks a virtual call's target the first time
        # it sees it by probing memory through a pipe, which cannot be made
        # while the process is out of descriptors, and reports a false
        # "invalid vptr". So the paths the flood takes are run once first: a
        # refusal, and connections that close before or inside a head.
        check(server.request("GET", "/api/health", token=False).status == 401, "refusal")
        for data in (b"", b"GET /api/he", b"GARBAGE\r\n\r\n"):
            with socket.create_connection(("127.0.0.1", server.port), timeout=5) as sock:
                sock.sendall(data)
                sock.shutdown(socket.SHUT_WR)
                sock.recv(1000)
        # More connections than descriptors: accept fails with EMFILE.
        for _ in range(300):
            sockets.append(socket.create_connection(("127.0.0.1", server.port), timeout=5))
        time.sleep(0.5)
        before = cpu_seconds(server.process.pid)
        time.sleep(3)
        used = cpu_seconds(server.process.pid) - before
        check(used < 1.0, "the server used %.2f s of CPU in 3 s while out of descriptors" % used)
        for sock in sockets:
            sock.close()
        sockets = []
        def healthy():
            try:
                return server.request("GET", "/api/health", timeout=5).status == 200
            except OSError:
                return False
        wait_for(healthy, 30, "health after EMFILE")
    finally:
        for sock in sockets:
            sock.close()
        server.stop()
        fake.stop()
        home.cleanup()


def test_children_get_no_secrets_but_those_kept():
    fake = FakeProvider(FAKE)
    home = Home(fake)
    home.env.update({"FOO_TOKEN": "kept-value", "BAR_TOKEN": "hidden-value", "PLAIN_NAME": "plain"})
    with open(os.path.join(home.root, "settings.json"), "w") as f:
        json.dump({"childEnvironment": {"keep": ["FOO_TOKEN"]}, "permissions": {"defaultMode": "auto"}}, f)
    server = Server(home, [BACKEND, "--port", "0"])
    try:
        project = server.ok("POST", "/api/projects", {"path": home.project})
        conversation = new_conversation(server, project["id"])
        stream = EventStream(server, "/api/conversations/%s/events" % conversation)
        send(server, conversation, "bash: echo [$FOO_TOKEN][$BAR_TOKEN][$PLAIN_NAME][${ANTHROPIC_API_KEY}]")
        text = final_text(stream.wait_until(count_turn_ends(1)))
        stream.close()
        check(text == "done: [kept-value][][plain][]", text)
    finally:
        server.stop()
        fake.stop()
        home.cleanup()


TESTS = [(name, fn) for name, fn in list(globals().items()) if name.startswith("test_")]

if __name__ == "__main__":
    sys.exit(run_tests(TESTS, set(sys.argv[4:])))
