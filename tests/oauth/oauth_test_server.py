#!/usr/bin/env python3
"""A loopback OAuth authorization server and bearer-protected MCP server for
Ava's OAuth tests (tests/oauth/oauth_test.cpp).

It checks what a correct client must do and records every violation in
/control/state "errors" (the test asserts there are none):
- discovery: protected resource metadata at the path-based well-known URI,
  authorization server metadata for an issuer with a path (/as);
- dynamic registration with a loopback redirect URI (any port, RFC 8252);
- authorization code with PKCE S256: the verifier's SHA-256 must match the
  challenge; redirect_uri identical in /authorize and /token;
- the resource parameter (RFC 8707) on /authorize, /token and refresh;
- client_secret_post at the token endpoint;
- tokens advertised as short-lived (expires_in=1) so every use refreshes;
  refresh tokens rotate (the old one stops working).
/control/hold-refresh makes the next refresh wait until /control/release,
so a test can sign out while a refresh is in flight.

Grants without a person: client_credentials (client_secret_post, a token
without a refresh token) and cross-app access (SEP-990): /idp/token is an
identity provider that trades the ID token given with --id-token (for
client idp-client) for an ID-JAG; /as/token takes that ID-JAG with the
jwt-bearer grant only when its audience is this issuer and its resource
this MCP server.

With --preregistered CLIENT_ID:SECRET it knows that client from the start
(with a loopback redirect, any port) and, with --no-registration, offers no
dynamic registration at all: a client must be configured with that id.

Prints "AVA_LISTENING <port>" on stderr once bound to 127.0.0.1.
"""

import base64
import hashlib
import json
import secrets
import sys
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

NO_REGISTRATION = "--no-registration" in sys.argv


def option(name):
    """The value after `name` on the command line, or None."""
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else None


# Hostile metadata for the security tests: an authorization endpoint such as
# javascript:..., or an issuer that is not the one the metadata is for.
AUTHORIZATION_ENDPOINT = option("--authorization-endpoint")
ISSUER = option("--issuer")
ID_TOKEN = option("--id-token")
TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"
ID_JAG = "urn:ietf:params:oauth:token-type:id-jag"
LOCK = threading.Lock()
RELEASE = threading.Event()
STATE = {
    "clients": {},  # client_id -> {secret, redirect_uris}
    "codes": {},  # code -> {client_id, challenge, redirect_uri, resource, scope}
    "access": {},  # token -> {client_id, scope}
    "refresh": {},  # token -> {client_id, scope, resource}
    "registrations": 0,
    "authorizations": 0,
    "code_exchanges": 0,
    "refreshes": 0,
    "client_credentials": 0,
    "idp_exchanges": 0,
    "jwt_bearer": 0,
    "jags": {},  # ID-JAG -> {audience, resource, client_id}
    "hold_refresh": False,
    "refresh_waiting": False,
    "errors": [],
    "issued": [],  # every access and refresh token, so a test can look for leaks
    "token_clients": [],  # the client of every token answer
}


def error(text):
    with LOCK:
        STATE["errors"].append(text)


def loopback_matches(registered, given):
    """RFC 8252 7.3: a loopback redirect matches whatever its port."""
    a = urllib.parse.urlsplit(registered)
    b = urllib.parse.urlsplit(given)
    return (a.scheme, a.hostname, a.path) == (b.scheme, b.hostname, b.path) and b.hostname in (
        "127.0.0.1", "::1")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    @property
    def base(self):
        return "http://127.0.0.1:%d" % self.server.server_address[1]

    def send(self, status, body=None, headers=None):
        data = b"" if body is None else json.dumps(body).encode()
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        if body is not None:
            self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def read_body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length).decode()

    # --- GET ---
    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        query = dict(urllib.parse.parse_qsl(url.query))
        if url.path == "/.well-known/oauth-protected-resource/mcp":
            return self.send(200, {"resource": self.base + "/mcp",
                                   "authorization_servers": [self.base + "/as"],
                                   "scopes_supported": ["mcp:read"]})
        if url.path == "/.well-known/oauth-authorization-server/as":
            issuer = self.base + "/as"
            return self.send(200, {
                "issuer": ISSUER or issuer,
                "authorization_endpoint": AUTHORIZATION_ENDPOINT or issuer + "/authorize",
                "token_endpoint": issuer + "/token",
                **({} if NO_REGISTRATION else {"registration_endpoint": issuer + "/register"}),
                "response_types_supported": ["code"],
                "grant_types_supported": ["authorization_code", "refresh_token",
                                          "client_credentials", JWT_BEARER],
                "code_challenge_methods_supported": ["S256"],
                "token_endpoint_auth_methods_supported": ["client_secret_post"],
            })
        if url.path == "/as/authorize":
            return self.authorize(query)
        if url.path == "/control/state":
            with LOCK:
                view = {k: v for k, v in STATE.items() if isinstance(v, (int, bool, list))}
            return self.send(200, view)
        if url.path == "/mcp":
            return self.send(405)
        return self.send(404, {"error": "not_found"})

    def authorize(self, query):
        client = STATE["clients"].get(query.get("client_id"))
        problems = []
        if client is None:
            problems.append("unknown client_id")
        elif not any(loopback_matches(r, query.get("redirect_uri", ""))
                     for r in client["redirect_uris"]):
            problems.append("redirect_uri not registered: %s" % query.get("redirect_uri"))
        if query.get("response_type") != "code":
            problems.append("response_type is not code")
        if query.get("code_challenge_method") != "S256" or not query.get("code_challenge"):
            problems.append("no S256 code_challenge")
        if query.get("resource") != self.base + "/mcp":
            problems.append("authorize resource is %r" % query.get("resource"))
        if not query.get("state"):
            problems.append("no state")
        if problems:
            for p in problems:
                error("authorize: " + p)
            return self.send(400, {"error": "invalid_request", "error_description": "; ".join(problems)})
        code = secrets.token_urlsafe(16)
        with LOCK:
            STATE["authorizations"] += 1
            STATE["codes"][code] = {"client_id": query["client_id"],
                                    "challenge": query["code_challenge"],
                                    "redirect_uri": query["redirect_uri"],
                                    "resource": query["resource"],
                                    "scope": query.get("scope", "")}
        target = query["redirect_uri"] + "?" + urllib.parse.urlencode(
            {"code": code, "state": query["state"], "iss": self.base + "/as"})
        self.send_response(302)
        self.send_header("Location", target)
        self.send_header("Content-Length", "0")
        self.end_headers()

    # --- POST ---
    def do_POST(self):
        url = urllib.parse.urlsplit(self.path)
        body = self.read_body()
        if url.path == "/as/register":
            return self.register(json.loads(body or "{}"))
        if url.path == "/as/token":
            return self.token(dict(urllib.parse.parse_qsl(body)))
        if url.path == "/idp/token":
            return self.idp_token(dict(urllib.parse.parse_qsl(body)))
        if url.path == "/control/hold-refresh":
            RELEASE.clear()
            with LOCK:
                STATE["hold_refresh"] = True
            return self.send(200, {})
        if url.path == "/control/release":
            RELEASE.set()
            return self.send(200, {})
        if url.path == "/mcp":
            return self.mcp(body)
        return self.send(404, {"error": "not_found"})

    def register(self, request):
        if NO_REGISTRATION:
            error("register: called although no registration endpoint is offered")
            return self.send(404, {"error": "not_found"})
        uris = request.get("redirect_uris") or []
        if not uris or not all(urllib.parse.urlsplit(u).hostname == "127.0.0.1" for u in uris):
            error("register: redirect_uris %r are not loopback" % uris)
            return self.send(400, {"error": "invalid_redirect_uri"})
        client_id = "client-" + secrets.token_hex(4)
        secret = secrets.token_urlsafe(12)
        with LOCK:
            STATE["registrations"] += 1
            STATE["clients"][client_id] = {"secret": secret, "redirect_uris": uris}
        return self.send(201, {"client_id": client_id, "client_secret": secret,
                               "redirect_uris": uris,
                               "token_endpoint_auth_method": "client_secret_post"})

    def token(self, form):
        client = STATE["clients"].get(form.get("client_id"))
        if client is None or form.get("client_secret") != client["secret"]:
            error("token: client authentication (client_secret_post) failed")
            return self.send(401, {"error": "invalid_client"})
        if form.get("resource") != self.base + "/mcp":
            error("token: resource is %r" % form.get("resource"))
            return self.send(400, {"error": "invalid_target"})
        grant = form.get("grant_type")
        if grant == "authorization_code":
            with LOCK:
                issued = STATE["codes"].pop(form.get("code", ""), None)
            if issued is None or issued["client_id"] != form["client_id"]:
                error("token: unknown or reused code")
                return self.send(400, {"error": "invalid_grant"})
            digest = hashlib.sha256(form.get("code_verifier", "").encode()).digest()
            if base64.urlsafe_b64encode(digest).rstrip(b"=").decode() != issued["challenge"]:
                error("token: PKCE verifier does not match the challenge")
                return self.send(400, {"error": "invalid_grant", "error_description": "PKCE"})
            if form.get("redirect_uri") != issued["redirect_uri"]:
                error("token: redirect_uri differs from the authorization request")
                return self.send(400, {"error": "invalid_grant"})
            with LOCK:
                STATE["code_exchanges"] += 1
            return self.issue(form["client_id"], issued["scope"])
        if grant == "refresh_token":
            with LOCK:
                hold = STATE["hold_refresh"]
                if hold:
                    STATE["hold_refresh"] = False
                    STATE["refresh_waiting"] = True
            if hold:
                RELEASE.wait(60)
            with LOCK:
                STATE["refresh_waiting"] = False
                known = STATE["refresh"].pop(form.get("refresh_token", ""), None)
            if known is None or known["client_id"] != form["client_id"]:
                return self.send(400, {"error": "invalid_grant"})
            with LOCK:
                STATE["refreshes"] += 1
            return self.issue(form["client_id"], known["scope"])
        if grant == "client_credentials":
            with LOCK:
                STATE["client_credentials"] += 1
            return self.issue(form["client_id"], form.get("scope", ""), refresh=False)
        if grant == JWT_BEARER:
            with LOCK:
                jag = STATE["jags"].pop(form.get("assertion", ""), None)
            if jag is None:
                error("token: unknown or reused ID-JAG")
                return self.send(400, {"error": "invalid_grant"})
            if jag["audience"] != self.base + "/as" or jag["resource"] != self.base + "/mcp":
                error("token: ID-JAG for %r / %r" % (jag["audience"], jag["resource"]))
                return self.send(400, {"error": "invalid_grant"})
            with LOCK:
                STATE["jwt_bearer"] += 1
            return self.issue(form["client_id"], form.get("scope", ""), refresh=False)
        return self.send(400, {"error": "unsupported_grant_type"})

    def idp_token(self, form):
        """RFC 8693 at the identity provider: the ID token for an ID-JAG."""
        wanted = {"grant_type": TOKEN_EXCHANGE, "requested_token_type": ID_JAG,
                  "subject_token_type": "urn:ietf:params:oauth:token-type:id_token",
                  "client_id": "idp-client"}
        for key, value in wanted.items():
            if form.get(key) != value:
                error("idp: %s is %r" % (key, form.get(key)))
                return self.send(400, {"error": "invalid_request"})
        if ID_TOKEN is None or form.get("subject_token") != ID_TOKEN:
            error("idp: unknown ID token")
            return self.send(400, {"error": "invalid_grant"})
        jag = "jag-" + secrets.token_urlsafe(12)
        with LOCK:
            STATE["idp_exchanges"] += 1
            STATE["jags"][jag] = {"audience": form.get("audience"),
                                  "resource": form.get("resource")}
            STATE["issued"].append(jag)
        return self.send(200, {"access_token": jag, "issued_token_type": ID_JAG,
                               "token_type": "N_A"})

    def issue(self, client_id, scope, refresh=True):
        access = "at-" + secrets.token_urlsafe(12)
        answer = {"access_token": access, "token_type": "Bearer", "expires_in": 1,
                  "scope": scope}
        with LOCK:
            STATE["access"][access] = {"client_id": client_id, "scope": scope}
            STATE["issued"].append(access)
            STATE["token_clients"].append(client_id)
            if refresh:
                answer["refresh_token"] = "rt-" + secrets.token_urlsafe(12)
                STATE["refresh"][answer["refresh_token"]] = {"client_id": client_id,
                                                             "scope": scope}
                STATE["issued"].append(answer["refresh_token"])
        # Advertised as expiring at once so the client refreshes before every
        # use; the resource server keeps accepting it (no clock in the test).
        return self.send(200, answer, {"Cache-Control": "no-store"})

    def mcp(self, body):
        auth = self.headers.get("Authorization", "")
        token = auth[len("Bearer "):] if auth.startswith("Bearer ") else ""
        grant = STATE["access"].get(token)
        if grant is None:
            challenge = 'Bearer error="invalid_token", resource_metadata="%s", scope="mcp:read"' % (
                self.base + "/.well-known/oauth-protected-resource/mcp")
            return self.send(401, {"error": "invalid_token"}, {"WWW-Authenticate": challenge})
        message = json.loads(body)
        method = message.get("method")
        if "id" not in message:
            return self.send(202)
        if method == "initialize":
            result = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                      "serverInfo": {"name": "ava-oauth-test", "version": "1"}}
        elif method == "tools/list":
            result = {"tools": [{"name": "whoami", "inputSchema": {"type": "object"}}]}
        elif method == "tools/call":
            text = "client %s scope %s" % (grant["client_id"], grant["scope"])
            result = {"content": [{"type": "text", "text": text}]}
        else:
            return self.send(200, {"jsonrpc": "2.0", "id": message["id"],
                                   "error": {"code": -32601, "message": "Method not found"}})
        return self.send(200, {"jsonrpc": "2.0", "id": message["id"], "result": result})


def main():
    if "--preregistered" in sys.argv:
        client_id, secret = sys.argv[sys.argv.index("--preregistered") + 1].split(":", 1)
        STATE["clients"][client_id] = {"secret": secret,
                                       "redirect_uris": ["http://127.0.0.1/callback"]}
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    sys.stderr.write("AVA_LISTENING %d\n" % server.server_address[1])
    sys.stderr.flush()
    server.serve_forever()


if __name__ == "__main__":
    main()
