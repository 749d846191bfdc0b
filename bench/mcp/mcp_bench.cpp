#include <benchmark/benchmark.h>

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>

#include "ava/mcp/client.hpp"
#include "ava/mcp/http_transport.hpp"
#include "mcp/http_server_util.hpp"

// Round trip of one tools/call (echo) against the real server-everything:
// encode, write, the server's work, read, decode, match. The server is the
// npm package scripts/setup installs (tests/mcp-servers).

namespace {

namespace asio = boost::asio;
namespace mcp = ava::mcp;
namespace transport = ava::transport;
using nlohmann::json;

// Runs one awaitable on `io` until it finishes; the session's readers may
// keep the context busy for ever, so run_one() is driven until the result is in.
template <class T>
T drive(asio::io_context& io, asio::awaitable<T> task) {
  std::optional<T> out;
  std::exception_ptr failure;
  bool done = false;
  // Asio stops a context whose work ran out (over HTTP without the GET
  // stream nothing is pending between calls); start it again.
  if (io.stopped()) io.restart();
  asio::co_spawn(io, std::move(task), [&](const std::exception_ptr& error, T value) {
    failure = error;
    if (!error) out.emplace(std::move(value));
    done = true;
  });
  while (!done) {
    if (io.run_one() == 0) throw std::runtime_error("the io_context ran out of work");
  }
  if (failure) std::rethrow_exception(failure);
  return std::move(*out);
}

asio::awaitable<bool> close(std::shared_ptr<mcp::Session> session) {
  co_await session->close();
  co_return true;
}

void echo_round_trips(benchmark::State& state, std::unique_ptr<mcp::Transport> transport,
                      asio::io_context& io) {
  const mcp::SessionOptions options;
  auto session = drive(io, mcp::Session::connect(io.get_executor(), std::move(transport), options));
  if (!session) {
    state.SkipWithError(session.error().describe().c_str());
    return;
  }
  const std::string name = "echo";
  const json arguments = {{"message", "ping"}};
  const mcp::RequestOptions defaults;
  for (auto _ : state) {
    auto result = drive(io, mcp::call_tool(**session, name, arguments, defaults));
    if (!result) state.SkipWithError(result.error().describe().c_str());
  }
  drive(io, close(*session));
}

}  // namespace

static void BM_McpEchoRoundTrip_Stdio(benchmark::State& state) {
  if (!ava::test::mcp_servers_installed()) {
    state.SkipWithError("tests/mcp-servers/node_modules is missing (run scripts/setup)");
    return;
  }
  asio::io_context io;
  echo_round_trips(state, mcp::make_stdio_transport(ava::test::everything_stdio()), io);
}
BENCHMARK(BM_McpEchoRoundTrip_Stdio)->Unit(benchmark::kMicrosecond)->UseRealTime();

static void BM_McpEchoRoundTrip_StreamableHttp(benchmark::State& state) {
  if (!ava::test::mcp_servers_installed()) {
    state.SkipWithError("tests/mcp-servers/node_modules is missing (run scripts/setup)");
    return;
  }
  ava::test::EverythingHttp server;
  asio::io_context io;
  echo_round_trips(state, mcp::make_http_transport({.url = server.url(), .listen = false}), io);
}
BENCHMARK(BM_McpEchoRoundTrip_StreamableHttp)->Unit(benchmark::kMicrosecond)->UseRealTime();
