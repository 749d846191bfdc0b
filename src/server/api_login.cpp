// Browser logins (docs/security.md): a one-time code in a URL traded for a
// session cookie, and new codes for clients that already hold a secret.
#include <nlohmann/json.hpp>

#include "ava/httpd/login_gate.hpp"
#include "server/api.hpp"

namespace ava::server {
namespace {

namespace asio = boost::asio;

httpd::HttpResponse with_cookie(const httpd::LoginGate& gate, const std::string& session,
                                httpd::HttpResponse response) {
  response.headers.emplace_back("Set-Cookie", gate.set_cookie(session));
  return response;
}

httpd::HttpResponse to_app() {
  return httpd::HttpResponse{.status = 303,
                             .content_type = "text/plain; charset=utf-8",
                             .body = "signed in\n",
                             .headers = {{"Location", "/"}}};
}

httpd::HttpResponse spent_link() {
  return httpd::HttpResponse{
      .status = 401,
      .content_type = "text/html; charset=utf-8",
      .body = httpd::sign_in_page("This login link was already used or has expired.")};
}

// GET /?login=CODE: the browser's side of the trade, answered with a
// redirect so the code leaves the address bar and the history.
httpd::HttpResponse login_link(httpd::LoginGate& gate, const httpd::HttpRequest& request) {
  if (auto session = gate.redeem(request.query.at("login"))) {
    return with_cookie(gate, *session, to_app());
  }
  if (gate.admits(request.header("cookie"))) return to_app();
  return spent_link();
}

// POST /api/login {"code"}: the same trade for a script. A spent code is
// 401 "unauthorized", which no error code maps to: a response, not an error.
Result<httpd::HttpResponse> login(httpd::LoginGate& gate, const httpd::HttpRequest& request) {
  AVA_TRY(auto body, json_body(request));
  AVA_TRY(const auto login, protocol::from_json<protocol::LoginRequest>(body));
  auto session = gate.redeem(login.code);
  if (!session) {
    return httpd::error_response(401, "unauthorized",
                                 "the login code was already used or has expired");
  }
  return with_cookie(gate, *session, httpd::HttpResponse{.status = 204});
}

// POST /api/login-codes: a new code for a client holding the token or a
// session, such as `ava backend open` giving a browser the backend's UI.
Result<httpd::HttpResponse> new_code(httpd::LoginGate& gate) {
  AVA_TRY(auto code, gate.issue_code());
  const auto lifetime = std::chrono::milliseconds(httpd::LoginGate::code_lifetime);
  return shaped_response(
      201, protocol::LoginCode{
               .code = code, .url = gate.login_url(code), .expires_in_ms = lifetime.count()});
}

// POST /api/tunnel-ports {"port"}: a client that reaches this server
// through an SSH tunnel (`ava machine connect`) names the tunnel's local
// port, so a browser there passes the Host and Origin checks.
// With redirectPort, sign-ins started through that tunnel send the browser
// to the client's machine, which hands the redirect back here.
Result<httpd::HttpResponse> add_tunnel_port(httpd::LoginGate& gate, SignInRelays& relays,
                                            const httpd::HttpRequest& request) {
  AVA_TRY(auto body, json_body(request));
  AVA_TRY(const auto tunnel, protocol::from_json<protocol::TunnelPortRequest>(body));
  gate.add_tunnel_port(static_cast<std::uint16_t>(tunnel.port));
  if (tunnel.redirect_port) {
    relays.set(static_cast<std::uint16_t>(tunnel.port),
               static_cast<std::uint16_t>(*tunnel.redirect_port));
  }
  return httpd::HttpResponse{.status = 204};
}

}  // namespace

void add_login_routes(httpd::Router& router, const std::shared_ptr<ApiContext>& context,
                      httpd::Handler static_files) {
  std::shared_ptr<httpd::LoginGate> gate = context->logins;
  router.add("GET", "/",
             [gate, static_files = std::move(static_files)](
                 httpd::Exchange& exchange) -> asio::awaitable<void> {
               // The fence let `/` through without a secret only as the login link.
               if (httpd::is_login_request(exchange.request())) {
                 httpd::HttpResponse reply = login_link(*gate, exchange.request());
                 co_await exchange.respond(std::move(reply));
               } else {
                 co_await static_files(exchange);
               }
             });
  router.add("POST", "/api/login",
             answer([gate](const httpd::HttpRequest& request) { return login(*gate, request); }));
  router.add("POST", "/api/login-codes",
             answer([gate](const httpd::HttpRequest&) { return new_code(*gate); }));
  router.add("POST", "/api/tunnel-ports",
             answer([gate, relays = context->sign_in_relays](const httpd::HttpRequest& request) {
               return add_tunnel_port(*gate, *relays, request);
             }));
}

}  // namespace ava::server
