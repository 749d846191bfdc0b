// OAuth against a loopback authorization server written for these tests
// (oauth_test_server.py): discovery, dynamic registration, PKCE S256, the
// resource parameter, refresh, and the sign-out fence against a late
// callback and an in-flight refresh.

#include <poll.h>
#include <unistd.h>

#include <array>
#include <csignal>
#include <filesystem>
#include <stdexcept>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "ava/mcp/client.hpp"
#include "ava/mcp/http_transport.hpp"
#include "ava/mcp/session.hpp"
#include "ava/oauth/oauth.hpp"
#include "ava/proc/spawn.hpp"

namespace {

namespace asio = boost::asio;
namespace mcp = ava::mcp;
namespace oauth = ava::oauth;
namespace transport = ava::transport;
using ava::ErrorCode;
using ava::Result;
using nlohmann::json;

// The Python server, on an ephemeral loopback port.
class AuthServer {
 public:
  AuthServer() {
    const auto script =
        std::filesystem::path(AVA_SOURCE_DIR) / "tests" / "oauth" / "oauth_test_server.py";
    ava::proc::SpawnOptions options{.argv = {"python3", script.string()},
                                    .stdout_mode = ava::proc::OutputMode::null,
                                    .stderr_mode = ava::proc::StderrMode::pipe};
    auto child = ava::proc::spawn(options);
    if (!child) throw std::runtime_error(child.error().describe());
    child_ = std::move(*child);
    port_ = wait_for_port();
  }
  ~AuthServer() {
    std::ignore = ava::proc::signal_group(child_.pid, SIGKILL);
    std::ignore = ava::proc::reap(child_.pid);
  }
  AuthServer(const AuthServer&) = delete;
  AuthServer& operator=(const AuthServer&) = delete;

  std::string base() const { return "http://127.0.0.1:" + port_; }
  std::string url() const { return base() + "/mcp"; }

 private:
  std::string wait_for_port() {
    const std::string marker = "AVA_LISTENING ";
    std::string seen;
    for (int polls = 0; polls < 300; ++polls) {
      pollfd fd{.fd = child_.stderr_pipe.get(), .events = POLLIN, .revents = 0};
      if (::poll(&fd, 1, 100) <= 0) continue;
      std::array<char, 1024> buffer{};
      const auto count = ::read(child_.stderr_pipe.get(), buffer.data(), buffer.size());
      if (count <= 0) break;
      seen.append(buffer.data(), static_cast<std::size_t>(count));
      const auto at = seen.find(marker);
      const auto end = at == std::string::npos ? at : seen.find('\n', at);
      if (end != std::string::npos)
        return seen.substr(at + marker.size(), end - at - marker.size());
    }
    throw std::runtime_error("the OAuth test server did not start: " + seen);
  }

  ava::proc::Child child_;
  std::string port_;
};

template <class T>
T run(asio::io_context& io, asio::awaitable<T> task) {
  std::optional<T> out;
  asio::co_spawn(io, std::move(task), [&](const std::exception_ptr& error, T value) {
    if (error) std::rethrow_exception(error);
    out = std::move(value);
  });
  io.restart();
  io.run();
  REQUIRE(out.has_value());
  return std::move(*out);
}

asio::awaitable<Result<ava::transport::HttpResponse>> http(std::string method, std::string url) {
  auto executor = co_await asio::this_coro::executor;
  auto client = ava::transport::HttpClient::create(executor, {});
  if (!client) co_return std::unexpected(client.error());
  ava::transport::HttpRequest request{.method = method, .url = url, .headers = {}, .body = {}};
  const ava::transport::BodyHandler none;
  co_return co_await (*client)->send(request, none);
}

json server_state(asio::io_context& io, const AuthServer& server) {
  auto response = run(io, http("GET", server.base() + "/control/state"));
  REQUIRE(response);
  return json::parse(response->body);
}

oauth::OAuthConfig config_for(const AuthServer& server,
                              const std::shared_ptr<oauth::CredentialStore>& store) {
  oauth::OAuthConfig config;
  config.server_name = "guarded";
  config.server_url = server.url();
  config.store = store;
  config.open_url = oauth::http_get_opener({});
  config.login_timeout = std::chrono::seconds(30);
  return config;
}

// initialize, tools/list and one tools/call, all with the bearer token.
asio::awaitable<Result<std::string>> call_whoami(std::shared_ptr<oauth::OAuthClient> oauth,
                                                 std::string url) {
  auto executor = co_await asio::this_coro::executor;
  mcp::HttpServer server;
  server.url = std::move(url);
  server.listen = false;
  server.oauth = std::move(oauth);
  mcp::SessionOptions options;
  auto connected =
      co_await mcp::Session::connect(executor, mcp::make_http_transport(server), options);
  if (!connected) co_return std::unexpected(connected.error());
  auto session = *connected;
  mcp::ListOptions list;
  auto tools = co_await mcp::list_tools(*session, list);
  if (!tools) co_return std::unexpected(tools.error());
  mcp::RequestOptions call;
  auto result = co_await mcp::call_tool(*session, "whoami", json::object(), call);
  co_await session->close();
  if (!result) co_return std::unexpected(result.error());
  co_return (*result)["content"][0].value("text", "");
}

}  // namespace

TEST_CASE("OAuth: discovery, registration, PKCE, resource and refresh", "[mcp][oauth]") {
  AuthServer server;
  asio::io_context io;
  auto store = std::make_shared<oauth::MemoryCredentialStore>();
  auto oauth = oauth::OAuthClient::create(io.get_executor(), config_for(server, store));

  // The first request is refused (401), which runs the whole sign-in.
  auto text = run(io, call_whoami(oauth, server.url()));
  REQUIRE(text);
  CHECK(text->find("scope mcp:read") != std::string::npos);
  CHECK(oauth->logins() == 1);

  auto saved = store->load("guarded");
  REQUIRE(saved);
  REQUIRE(saved->has_value());
  const auto& credentials = **saved;
  CHECK(text->find(credentials.client_id) != std::string::npos);
  CHECK(!credentials.client_secret.empty());
  CHECK(credentials.auth_method == "client_secret_post");
  CHECK(credentials.resource == server.url());
  CHECK(credentials.server_metadata.value("issuer", "") == server.base() + "/as");
  CHECK(credentials.resource_metadata.value("resource", "") == server.url());
  REQUIRE(credentials.expires_at.has_value());
  CHECK(!credentials.refresh_token.empty());

  // Tokens are advertised as expiring in one second: every later use
  // refreshes first, with the rotated refresh token.
  auto again = run(io, call_whoami(oauth, server.url()));
  REQUIRE(again);
  CHECK(oauth->refreshes() >= 1);
  CHECK(oauth->logins() == 1);
  auto state = server_state(io, server);
  CHECK(state["registrations"] == 1);
  CHECK(state["code_exchanges"] == 1);
  CHECK(state["refreshes"].get<int>() == oauth->refreshes());
  CHECK(state["errors"] == json::array());

  // The store survives the client: a new client on it needs no sign-in.
  auto second = oauth::OAuthClient::create(io.get_executor(), config_for(server, store));
  auto third = run(io, call_whoami(second, server.url()));
  REQUIRE(third);
  CHECK(second->logins() == 0);
  CHECK(server_state(io, server)["registrations"] == 1);
}

TEST_CASE("OAuth: a callback after sign-out does not restore credentials", "[mcp][oauth]") {
  AuthServer server;
  asio::io_context io;
  auto store = std::make_shared<oauth::MemoryCredentialStore>();
  auto config = config_for(server, store);
  std::shared_ptr<oauth::OAuthClient> oauth;

  SECTION("the server is removed while the browser is on the sign-in page") {
    // The opener follows the redirects, but the credentials are erased (as
    // `ava mcp remove` in another process would) before it does.
    auto follow = oauth::http_get_opener({});
    config.open_url = [store, follow](std::string url) -> asio::awaitable<Result<void>> {
      std::ignore = store->erase("guarded");
      co_return co_await follow(std::move(url));
    };
    oauth = oauth::OAuthClient::create(io.get_executor(), config);
    auto login = run(io, oauth->login(""));
    REQUIRE(!login);
    CHECK(login.error().code == ErrorCode::cancelled);
    // The code was exchanged: the token came, and was not kept.
    CHECK(server_state(io, server)["code_exchanges"] == 1);
  }
  SECTION("the user signs out before the redirect reaches the listener") {
    std::string callback;
    config.open_url = [&](std::string url) -> asio::awaitable<Result<void>> {
      auto answer = co_await http("GET", std::move(url));
      if (!answer) co_return std::unexpected(answer.error());
      callback = answer->header("location");
      std::ignore = oauth->sign_out();
      // The late redirect: the listener is gone, nothing takes the code.
      auto late = co_await http("GET", callback);
      CHECK(!late);
      co_return Result<void>{};
    };
    oauth = oauth::OAuthClient::create(io.get_executor(), config);
    auto login = run(io, oauth->login(""));
    REQUIRE(!login);
    CHECK(login.error().code == ErrorCode::cancelled);
    CHECK(!callback.empty());
    CHECK(server_state(io, server)["code_exchanges"] == 0);
  }
  auto saved = store->load("guarded");
  REQUIRE(saved);
  CHECK(!saved->has_value());
  auto header = run(io, oauth->authorization());
  REQUIRE(header);
  CHECK(header->empty());
}

TEST_CASE("OAuth: a refresh in flight at sign-out does not restore credentials", "[mcp][oauth]") {
  AuthServer server;
  asio::io_context io;
  auto store = std::make_shared<oauth::MemoryCredentialStore>();
  auto oauth = oauth::OAuthClient::create(io.get_executor(), config_for(server, store));
  auto signed_in = run(io, oauth->login(""));
  REQUIRE(signed_in);

  // Signing out through this client, or erasing in the store as another
  // process would (`ava mcp remove`): either way the fence holds.
  bool through_client = false;
  SECTION("sign_out() on the client") { through_client = true; }
  SECTION("erase() in the store") { through_client = false; }

  REQUIRE(run(io, http("POST", server.base() + "/control/hold-refresh")));
  auto race = [](std::shared_ptr<oauth::OAuthClient> client,
                 std::shared_ptr<oauth::CredentialStore> shared, bool sign_out,
                 std::string base) -> asio::awaitable<Result<std::string>> {
    auto executor = co_await asio::this_coro::executor;
    // The token is about to expire, so this refresh starts and the server
    // holds it.
    auto outcome = std::make_shared<std::optional<Result<std::string>>>();
    asio::co_spawn(executor, client->authorization(),
                   [outcome](const std::exception_ptr&, Result<std::string> value) {
                     *outcome = std::move(value);
                   });
    asio::steady_timer pause(executor);
    for (int polls = 0; polls < 600; ++polls) {
      auto state = co_await http("GET", base + "/control/state");
      if (state && json::parse(state->body).value("refresh_waiting", false)) break;
      pause.expires_after(std::chrono::milliseconds(50));
      co_await pause.async_wait(asio::use_awaitable);
    }
    if (sign_out) {
      std::ignore = client->sign_out();
    } else {
      std::ignore = shared->erase("guarded");
    }
    std::ignore = co_await http("POST", base + "/control/release");
    while (!outcome->has_value()) {
      pause.expires_after(std::chrono::milliseconds(20));
      co_await pause.async_wait(asio::use_awaitable);
    }
    co_return std::move(**outcome);
  };
  auto header = run(io, race(oauth, store, through_client, server.base()));
  // The refresh got its answer, which was not kept.
  CHECK(server_state(io, server)["refreshes"] == 1);
  if (header) CHECK(header->empty());
  auto saved = store->load("guarded");
  REQUIRE(saved);
  CHECK(!saved->has_value());
  auto after = run(io, oauth->authorization());
  REQUIRE(after);
  CHECK(after->empty());
}

TEST_CASE("OAuth: an agent's request does not wait for the sign-in", "[mcp][oauth]") {
  AuthServer server;
  asio::io_context io;
  auto store = std::make_shared<oauth::MemoryCredentialStore>();
  auto config = config_for(server, store);
  config.wait_for_login = false;
  auto oauth = oauth::OAuthClient::create(io.get_executor(), config);

  // The refused request fails at once; the sign-in goes on in the
  // background (run() returns once the io_context has nothing left to do,
  // so it has finished by then).
  auto first = run(io, call_whoami(oauth, server.url()));
  REQUIRE(!first);
  CHECK(first.error().code == ErrorCode::permission_denied);
  CHECK(first.error().message.find("needs a sign-in") != std::string::npos);
  CHECK(oauth->logins() == 1);

  auto second = run(io, call_whoami(oauth, server.url()));
  REQUIRE(second);
  CHECK(second->find("scope mcp:read") != std::string::npos);
}

TEST_CASE("OAuth: a sign-in page that cannot be opened ends the sign-in at once", "[mcp][oauth]") {
  AuthServer server;
  asio::io_context io;
  auto config = config_for(server, std::make_shared<oauth::MemoryCredentialStore>());
  config.open_url = [](std::string) -> asio::awaitable<Result<void>> {
    co_return ava::fail(ErrorCode::unavailable, "no browser here");
  };
  config.login_timeout = std::chrono::hours(1);  // not what ends it
  auto oauth = oauth::OAuthClient::create(io.get_executor(), config);
  auto login = run(io, oauth->login(""));
  REQUIRE(!login);
  CHECK(login.error().code == ErrorCode::unavailable);
  CHECK(login.error().message.find("no browser here") != std::string::npos);
}
