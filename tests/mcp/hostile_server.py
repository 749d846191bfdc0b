"""An MCP server over stdio that answers the way a broken or hostile one
would: wrong-typed fields, an id that is an object, a result that is a
number, a message nested 300000 levels deep. Between those it behaves, so a
test can check that the client reports the bad answer and keeps working.

Tools (tools/call name):
  echo        {"text": ...} -> a text block with it
  deep        a line nested 300000 levels deep, then nothing
  wrong-id    an answer with "id": {}, then the real answer with "result": 5
  bad-error   an error answer whose code and message have the wrong types
  bad-notes   progress and log notifications with wrong-typed fields, then
              a good answer
  env         the values of the variables named in {"names": [...]}
"""

import json
import os
import sys


def send(message):
    sys.stdout.write(message if isinstance(message, str) else json.dumps(message))
    sys.stdout.write("\n")
    sys.stdout.flush()


def text_result(request_id, text):
    send({"jsonrpc": "2.0", "id": request_id,
          "result": {"content": [{"type": "text", "text": text}]}})


def call(request_id, params):
    name = params.get("name")
    arguments = params.get("arguments") or {}
    if name == "echo":
        text_result(request_id, arguments.get("text", ""))
    elif name == "deep":
        depth = 300000
        send('{"jsonrpc":"2.0","id":%d,"result":%s%s}' % (request_id, "[" * depth, "]" * depth))
    elif name == "wrong-id":
        send({"jsonrpc": "2.0", "id": {}, "result": {}})
        send({"jsonrpc": "2.0", "id": request_id, "result": 5})
    elif name == "bad-error":
        send({"jsonrpc": "2.0", "id": request_id, "error": {"code": "x", "message": 5}})
    elif name == "bad-notes":
        token = (params.get("_meta") or {}).get("progressToken")
        send({"jsonrpc": "2.0", "method": "notifications/progress",
              "params": {"progressToken": token, "progress": "half", "total": [],
                         "message": 7}})
        send({"jsonrpc": "2.0", "method": "notifications/message",
              "params": {"level": 5, "logger": {}, "data": {"nested": [1, 2]}}})
        text_result(request_id, "after the notes")
    elif name == "env":
        values = {key: os.environ.get(key) for key in arguments.get("names", [])}
        text_result(request_id, json.dumps(values, sort_keys=True))
    else:
        send({"jsonrpc": "2.0", "id": request_id,
              "error": {"code": -32602, "message": "unknown tool"}})


def main():
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        message = json.loads(line)
        method = message.get("method")
        request_id = message.get("id")
        if method == "initialize":
            # Every optional field of the wrong type.
            send({"jsonrpc": "2.0", "id": request_id,
                  "result": {"protocolVersion": "2025-11-25", "capabilities": "none",
                             "serverInfo": {"name": 5, "title": [], "version": {}},
                             "instructions": 42}})
        elif method == "tools/call":
            call(request_id, message.get("params") or {})
        elif method == "ping":
            send({"jsonrpc": "2.0", "id": request_id, "result": {}})
        elif request_id is not None and method is not None:
            send({"jsonrpc": "2.0", "id": request_id,
                  "error": {"code": -32601, "message": "not here"}})


if __name__ == "__main__":
    main()
