// Interactive terminals: a real shell on a real pty.
#include <catch2/catch.hpp>

#include <csignal>
#include <cstdlib>
#include <string>

#include <boost/asio/this_coro.hpp>

#include "ava/terminal/session.hpp"
#include "support/run_awaitable.hpp"
#include "support/temp_dir.hpp"

namespace asio = boost::asio;
using namespace std::chrono_literals;
using ava::terminal::Options;
using ava::terminal::Session;
using ava::terminal::Terminals;

namespace {

// Reads until `needle` shows up or the terminal ends; everything read.
asio::awaitable<std::string> read_until(Session& session, std::string needle) {
  std::string seen;
  while (seen.find(needle) == std::string::npos) {
    auto chunk = co_await session.read();
    if (!chunk) break;
    CHECK(chunk->size() <= Session::max_chunk);
    seen += *chunk;
  }
  co_return seen;
}

Options sh(std::string script) {
  return Options{.cwd = {}, .size = {}, .command = {"sh", "-c", std::move(script)}};
}

}  // namespace

TEST_CASE("a terminal runs in its folder, takes typed input and reports how the shell ended",
          "[terminal]") {
  ava::test::TempDir dir;
  auto options = sh("pwd; read line; echo \"got:$line\"; exit 3");
  options.cwd = dir.path();
  auto result = ava::test::run_awaitable([&]() -> asio::awaitable<std::string> {
    auto session = Session::start(co_await asio::this_coro::executor, options);
    REQUIRE(session);
    std::string seen = co_await read_until(**session, dir.path().filename().string());
    CHECK(co_await (*session)->write("hello\n"));
    seen += co_await read_until(**session, "got:hello");
    seen += co_await read_until(**session, "never printed");  // to the end
    const auto status = co_await (*session)->finish(5s);
    co_return seen + "|" + status.describe();
  }());
  CHECK(result.find(dir.path().filename().string()) != std::string::npos);
  CHECK(result.find("got:hello") != std::string::npos);
  CHECK(result.ends_with("|exit code 3"));
}

TEST_CASE("a terminal is an xterm with the size asked for and without the server's credentials",
          "[terminal]") {
  ::setenv("ANTHROPIC_API_KEY", "sk-from-the-server", 1);
  auto result = ava::test::run_awaitable([]() -> asio::awaitable<std::string> {
    auto options = sh("read go; stty size; echo \"term=$TERM key=${ANTHROPIC_API_KEY:-none}\"");
    options.size = {.rows = 30, .cols = 90};
    auto session = Session::start(co_await asio::this_coro::executor, options);
    REQUIRE(session);
    REQUIRE((*session)->resize({.rows = 40, .cols = 120}));
    CHECK(co_await (*session)->write("\n"));
    co_return co_await read_until(**session, "key=");
  }());
  ::unsetenv("ANTHROPIC_API_KEY");
  CHECK(result.find("40 120") != std::string::npos);
  CHECK(result.find("term=xterm-256color key=none") != std::string::npos);
}

TEST_CASE("the login shell is an absolute path started as a login shell", "[terminal]") {
  const auto command = ava::terminal::login_shell_command();
  REQUIRE(command.size() == 2);
  CHECK(command[0].starts_with("/"));
  CHECK(command[1] == "-l");
}

TEST_CASE("terminals are bounded, and hanging them all up ends their shells", "[terminal]") {
  Terminals terminals(1);
  auto result = ava::test::run_awaitable([&]() -> asio::awaitable<std::string> {
    const auto executor = co_await asio::this_coro::executor;
    auto first = terminals.start(executor, sh("echo ready; sleep 600"));
    REQUIRE(first);
    auto second = terminals.start(executor, sh("true"));
    REQUIRE_FALSE(second);
    CHECK(second.error().code == ava::ErrorCode::unavailable);
    CHECK(terminals.open() == 1);
    co_await read_until(**first, "ready");
    terminals.hang_up_all();
    co_await read_until(**first, "never printed");
    const auto status = co_await (*first)->finish(5s);
    first->reset();
    CHECK(terminals.open() == 0);
    auto third = terminals.start(executor, sh("true"));
    CHECK(third);
    co_return status.describe();
  }());
  CHECK(result.find("HUP") != std::string::npos);
}

TEST_CASE("a shell that ignores its hang-up is killed after the grace period", "[terminal]") {
  auto result = ava::test::run_awaitable([]() -> asio::awaitable<std::string> {
    auto session = Session::start(co_await asio::this_coro::executor,
                                  sh("trap '' HUP; exec 0<&- 1>&- 2>&-; sleep 600"));
    REQUIRE(session);
    co_await read_until(**session, "never printed");  // the shell closed its side
    (*session)->hang_up();
    const auto status = co_await (*session)->finish(200ms);
    co_return status.describe();
  }());
  CHECK(result.find("KILL") != std::string::npos);
}
