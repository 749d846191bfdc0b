// GET /api/projects/{id}/terminal: an interactive shell in a project's folder,
// carried over a WebSocket (docs/api.md, "Terminals").
#include <charconv>
#include <filesystem>
#include <string>

#include <boost/asio/this_coro.hpp>

#include "server/api.hpp"
#include "server/terminal_bridge.hpp"

namespace ava::server {
namespace {

namespace asio = boost::asio;

// A message from the viewer: a paste can be large, but not unbounded.
constexpr std::size_t max_terminal_message = std::size_t{1} << 20;

Result<std::int64_t> cells(const httpd::HttpRequest& request, std::string_view name,
                           std::int64_t fallback) {
  const auto text = request.query_value(name);
  if (!text) return fallback;
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text->data(), text->data() + text->size(), value);
  if (error != std::errc() || end != text->data() + text->size() || value < 1 ||
      value > protocol::max_terminal_cells) {
    return fail(ErrorCode::invalid_argument,
                std::string(name) + " must be a whole number between 1 and 1000");
  }
  return value;
}

// Where and how big the terminal starts.
Result<terminal::Options> terminal_options(const ApiContext& context,
                                           const httpd::HttpRequest& request) {
  auto project = context.registry->project(request.params[0]);
  if (!project) return fail(ErrorCode::not_found, "no such project");
  std::error_code ec;
  if (!std::filesystem::is_directory(project->path, ec)) {
    return fail(ErrorCode::not_found, "the project's folder is gone: " + project->path);
  }
  AVA_TRY(const auto cols, cells(request, "cols", 80));
  AVA_TRY(const auto rows, cells(request, "rows", 24));
  if (!httpd::is_websocket_upgrade(request)) {
    return fail(ErrorCode::invalid_argument, "this route is a WebSocket: send an upgrade request");
  }
  return terminal::Options{.cwd = project->path,
                           .size = {.rows = static_cast<unsigned short>(rows),
                                    .cols = static_cast<unsigned short>(cols)}};
}

asio::awaitable<void> open_terminal(std::shared_ptr<ApiContext> context,
                                    httpd::Exchange& exchange) {
  const auto executor = co_await asio::this_coro::executor;
  auto options = terminal_options(*context, exchange.request());
  Result<std::unique_ptr<terminal::Session>> session = std::unexpected(Error{});
  if (options) {
    session = context->terminals->start(executor, *options);
  } else {
    session = std::unexpected(std::move(options).error());
  }
  if (!session) {
    httpd::HttpResponse reply = respond_to(std::unexpected(std::move(session).error()));
    co_await exchange.respond(std::move(reply));
    co_return;
  }
  auto socket = co_await exchange.accept_websocket(max_terminal_message);
  if (!socket) co_return;  // the handshake failed: the shell ends with the session
  co_await bridge_terminal(**socket, **session);
}

}  // namespace

void add_terminal_routes(httpd::Router& router, const std::shared_ptr<ApiContext>& context) {
  router.add("GET", "/api/projects/{id}/terminal",
             [context](httpd::Exchange& exchange) { return open_terminal(context, exchange); });
}

}  // namespace ava::server
