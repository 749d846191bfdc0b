#include "server/terminal_bridge.hpp"

#include <chrono>
#include <cstdint>
#include <string>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "ava/base/json.hpp"
#include "ava/protocol/responses.hpp"
#include "ava/protocol/wire.hpp"

namespace ava::server {
namespace {

namespace asio = boost::asio;
using namespace asio::experimental::awaitable_operators;

constexpr std::uint16_t close_normal = 1000;
constexpr std::uint16_t close_refused = 1008;  // policy violation: a message we do not take
constexpr std::chrono::milliseconds exit_grace{2000};

// How the socket should close when the viewer's side ends it.
struct Ending {
  std::uint16_t code = close_normal;
  std::string reason;
};

// What the two sides share. Both run on the connection's strand, so plain
// members do; the timer is only a signal, cancelled to wake the output side.
struct Flow {
  explicit Flow(const asio::any_io_executor& executor)
      : wake(executor, asio::steady_timer::time_point::max()) {}
  bool paused = false;    // the viewer is behind
  bool stopping = false;  // the viewer's side has ended
  Ending ending;
  asio::steady_timer wake;
};

// Terminal to viewer. When the shell ends, the viewer gets a TerminalExit
// and the socket closes; when the viewer's side ends first, it closes with
// the viewer side's reason.
asio::awaitable<void> output_side(httpd::WebSocket& socket, terminal::Session& session,
                                  Flow& flow) {
  for (;;) {
    // Paused, the terminal is not read: the shell blocks on a full pty, and
    // nothing builds up here or in the viewer.
    while (flow.paused && !flow.stopping) {
      co_await flow.wake.async_wait(asio::as_tuple(asio::use_awaitable));
    }
    if (flow.stopping) break;
    auto output = co_await session.read();
    if (!output && !flow.stopping) {
      const proc::ExitStatus status = co_await session.finish(exit_grace);
      const protocol::TerminalExit exit{
          .code = status.code, .signal = status.signal, .message = status.describe()};
      const std::string text = protocol::to_json(exit).dump();
      if (co_await socket.write(text, /*binary=*/false)) {
        co_await socket.close(close_normal, "the shell exited");
      }
      co_return;
    }
    if (!output) break;
    // A write that waits is the flow control of a viewer that does not
    // pause: the shell blocks on a full terminal meanwhile.
    if (!co_await socket.write(*output, /*binary=*/true)) {
      session.cancel();  // the viewer is gone: an input write waiting on the shell ends too
      co_return;
    }
  }
  if (flow.ending.code != close_normal) co_await socket.close(flow.ending.code, flow.ending.reason);
}

Result<void> apply_control(terminal::Session& session, Flow& flow, std::string_view text) {
  AVA_TRY(auto json, base::parse_json(text, {.max_depth = 4, .max_bytes = 4096}));
  AVA_TRY(auto control,
          protocol::from_json<protocol::TerminalControl>(json, "the control message"));
  if (control.type == "pause" || control.type == "resume") {
    flow.paused = control.type == "pause";
    flow.wake.cancel();
    return {};
  }
  return session.resize({.rows = static_cast<unsigned short>(*control.rows),
                         .cols = static_cast<unsigned short>(*control.cols)});
}

// Viewer to terminal, until the viewer leaves (or the closing handshake the
// output side started completes) or sends something this route refuses.
asio::awaitable<void> input_side(httpd::WebSocket& socket, terminal::Session& session, Flow& flow) {
  for (;;) {
    auto message = co_await socket.read();
    if (!message) break;
    if (message->binary) {
      if (!co_await session.write(message->data)) break;
      continue;
    }
    if (auto applied = apply_control(session, flow, message->data); !applied) {
      flow.ending = Ending{close_refused, applied.error().message};
      break;
    }
  }
  flow.stopping = true;
  flow.wake.cancel();
  session.cancel();
}

}  // namespace

asio::awaitable<void> bridge_terminal(httpd::WebSocket& socket, terminal::Session& session) {
  // Neither side is cancelled from outside: a WebSocket read cancelled
  // midway leaves the socket unusable, and the exit message still has to go
  // out. The input side ends the output side through `flow` instead.
  Flow flow(co_await asio::this_coro::executor);
  co_await (output_side(socket, session, flow) && input_side(socket, session, flow));
  // As when a terminal window closes; destroying the session then kills
  // whatever of the shell's group is left.
  session.hang_up();
}

}  // namespace ava::server
