#include <catch2/catch.hpp>

#include <string>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>

#include "ava/proc/pty.hpp"
#include "support/run_awaitable.hpp"

namespace asio = boost::asio;
using ava::proc::PtyProcess;

namespace {

// Reads the terminal until `needle` shows up or the output ends.
asio::awaitable<std::string> read_until(PtyProcess& pty, std::string needle) {
  std::string seen;
  std::array<char, 1024> buffer{};
  while (seen.find(needle) == std::string::npos) {
    auto [error, count] = co_await pty.terminal().async_read_some(
        asio::buffer(buffer), asio::as_tuple(asio::use_awaitable));
    seen.append(buffer.data(), count);
    if (error) break;
  }
  co_return seen;
}

asio::awaitable<std::string> converse(std::string script, std::string input, std::string needle,
                                      std::optional<ava::proc::PtySize> resize_to) {
  auto executor = co_await asio::this_coro::executor;
  ava::proc::SpawnOptions options;
  options.argv = {"sh", "-c", script};
  auto pty = PtyProcess::spawn(executor, options);
  if (!pty) co_return "spawn failed: " + pty.error().message;
  if (resize_to) (void)pty->resize(*resize_to);
  co_await asio::async_write(pty->terminal(), asio::buffer(input), asio::use_awaitable);
  std::string seen = co_await read_until(*pty, needle);
  auto status = co_await pty->wait();
  if (!status || !status->success()) seen += "\n[bad exit]";
  co_return seen;
}

}  // namespace

TEST_CASE("a pty child reads typed input and its output comes back", "[proc][pty]") {
  const auto seen = ava::test::run_awaitable(
      converse("read line; echo \"got:$line\"", "hello\n", "got:hello", std::nullopt));
  CHECK(seen.find("got:hello") != std::string::npos);
  CHECK(seen.find("[bad exit]") == std::string::npos);
}

TEST_CASE("a pty child sees the terminal size it was resized to", "[proc][pty]") {
  const auto seen = ava::test::run_awaitable(
      converse("read x; stty size", "\n", "40 120", ava::proc::PtySize{.rows = 40, .cols = 120}));
  CHECK(seen.find("40 120") != std::string::npos);
}
