// Sign-in redirects delivered by a client on the browser's machine
// (oauth/relay.hpp): only the query carrying a waiting sign-in's state is
// taken, from any thread, and a cancel ends the wait.
#include <catch2/catch.hpp>

#include <chrono>
#include <optional>
#include <string>
#include <thread>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "oauth/internal.hpp"
#include "support/run_coroutine.hpp"

namespace asio = boost::asio;
namespace oauth = ava::oauth;
using ava::ErrorCode;
using ava::test::run_coroutine;
using namespace std::chrono_literals;

namespace {

asio::awaitable<void> pause(asio::io_context& io, std::chrono::milliseconds how_long) {
  asio::steady_timer timer(io, how_long);
  co_await timer.async_wait(asio::use_awaitable);
}

}  // namespace

TEST_CASE("OAuth redirect relay: the waiting sign-in takes its own redirect only",
          "[mcp][oauth][relay]") {
  run_coroutine([](asio::io_context& io) -> asio::awaitable<bool> {
    auto relay = std::make_shared<oauth::RedirectRelay>("http://127.0.0.1:4321/callback");
    auto opened = oauth::RedirectListener::relayed(io.get_executor(), relay);
    REQUIRE(opened.has_value());
    auto listener = std::move(*opened);
    CHECK(listener->redirect_uri() == "http://127.0.0.1:4321/callback");
    CHECK_FALSE(relay->deliver("code=x&state=early"));  // nobody waits yet

    std::optional<ava::Result<oauth::Params>> received;
    asio::co_spawn(io, listener->wait("s3cr3t-state"),
                   [&](const std::exception_ptr&, ava::Result<oauth::Params> params) {
                     received = std::move(params);
                   });
    co_await pause(io, 20ms);
    CHECK_FALSE(relay->deliver("code=forged&state=other"));
    CHECK_FALSE(relay->deliver("code=nostate"));
    CHECK_FALSE(relay->deliver("%zz"));
    CHECK_FALSE(received.has_value());
    // From another thread, as the HTTP server's would.
    bool taken = false;
    std::thread([&] { taken = relay->deliver("code=the-code&state=s3cr3t-state&iss=x"); }).join();
    CHECK(taken);
    co_await pause(io, 20ms);
    REQUIRE(received.has_value());
    REQUIRE(received->has_value());
    CHECK(oauth::param(**received, "code") == "the-code");
    CHECK(oauth::param(**received, "iss") == "x");
    // Taken once: the same redirect again finds nobody.
    CHECK_FALSE(relay->deliver("code=the-code&state=s3cr3t-state"));
    co_return true;
  });
}

TEST_CASE("OAuth redirect relay: cancel ends the wait", "[mcp][oauth][relay]") {
  run_coroutine([](asio::io_context& io) -> asio::awaitable<bool> {
    auto relay = std::make_shared<oauth::RedirectRelay>("http://127.0.0.1:4321/callback");
    auto listener = std::move(*oauth::RedirectListener::relayed(io.get_executor(), relay));
    std::optional<ava::Result<oauth::Params>> received;
    asio::co_spawn(io, listener->wait("state"),
                   [&](const std::exception_ptr&, ava::Result<oauth::Params> params) {
                     received = std::move(params);
                   });
    co_await pause(io, 20ms);
    listener->cancel();
    co_await pause(io, 20ms);
    REQUIRE(received.has_value());
    REQUIRE_FALSE(received->has_value());
    CHECK(received->error().code == ErrorCode::cancelled);
    CHECK_FALSE(relay->deliver("code=late&state=state"));
    co_return true;
  });
}
