#!/usr/bin/env python3
"""A loopback model listing for the CLI's tests of `ava auth` and `ava doctor`.

    fake_models_server.py KEY

Answers GET /v1/models (Anthropic style, only with `x-api-key: KEY`, else
401 as Anthropic does) and GET /api/tags (Ollama style, no key). Prints its
port on the first line of stdout, then serves until killed.
"""
import http.server
import json
import sys

KEY = sys.argv[1]


class Models(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        path = self.path.split("?", 1)[0]
        if path == "/api/tags":
            status, body = 200, {"models": [{"name": "llama3.2:1b"}]}
        elif path == "/v1/models" and self.headers.get("x-api-key") == KEY:
            status, body = 200, {"data": [{"id": "claude-a"}, {"id": "claude-b"}]}
        else:
            status, body = 401, {"type": "error", "error": {
                "type": "authentication_error", "message": "invalid x-api-key"}}
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


server = http.server.HTTPServer(("127.0.0.1", 0), Models)
print(server.server_address[1], flush=True)
server.serve_forever()
