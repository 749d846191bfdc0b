#include "ava/machine/loopback_client.hpp"

#include <optional>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>

#include "ava/transport/http_client.hpp"

namespace ava::machine {

namespace asio = boost::asio;

Result<LoopbackReply> loopback_request(std::uint16_t port, std::string_view method,
                                       std::string_view path, std::string_view token,
                                       std::chrono::milliseconds timeout) {
  return loopback_request(port, method, path, token, {}, timeout);
}

Result<LoopbackReply> loopback_request(std::uint16_t port, std::string_view method,
                                       std::string_view path, std::string_view token,
                                       std::string_view json_body,
                                       std::chrono::milliseconds timeout) {
  // The CLI's commands block on this one answer, so a private io_context
  // runs the client's coroutine to completion right here.
  asio::io_context io;
  transport::HttpClientOptions options;
  options.timeouts = {.connect = timeout, .first_byte = timeout, .idle = timeout};
  options.proxy = transport::ProxyConfig{};  // a loopback backend is never behind a proxy
  options.max_body_bytes = std::size_t{1024} * 1024;
  AVA_TRY(auto client, transport::HttpClient::create(io.get_executor(), std::move(options)));
  transport::HttpRequest request{
      .method = std::string(method),
      .url = "http://127.0.0.1:" + std::to_string(port) + std::string(path),
      .headers = {},
      .body = std::string(json_body)};
  if (!json_body.empty()) request.headers.push_back({"Content-Type", "application/json"});
  if (!token.empty()) request.headers.push_back({"Authorization", "Bearer " + std::string(token)});
  std::optional<Result<transport::HttpResponse>> answer;
  asio::co_spawn(
      io,
      [&]() -> asio::awaitable<void> {
        answer = co_await client->send(request, transport::BodyHandler{});
      },
      asio::detached);
  io.run();
  if (!answer) return fail(ErrorCode::internal, "the loopback request did not finish");
  if (!*answer) return std::unexpected(std::move(*answer).error());
  return LoopbackReply{.status = (*answer)->status, .body = std::move((*answer)->body)};
}

}  // namespace ava::machine
