#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>

#include "ava/base/error.hpp"
#include "ava/mcp/transport.hpp"

namespace ava::mcp {

// Protocol versions this client speaks, newest first; the first is offered.
inline constexpr std::string_view protocol_versions[] = {"2025-11-25", "2025-06-18", "2025-03-26",
                                                         "2024-11-05"};

struct Progress {
  double progress = 0;
  std::optional<double> total;
  std::string message;
};
using ProgressCallback = std::function<void(const Progress&)>;

struct RequestOptions {
  std::chrono::milliseconds timeout{60'000};
  // When set, the request carries a progress token and each
  // notifications/progress for it is passed here (on the session's strand).
  ProgressCallback on_progress;
};

struct SessionOptions {
  std::string client_name = "ava";
  std::string client_version;                            // empty: Ava's version
  std::chrono::milliseconds initialize_timeout{60'000};  // cold npm servers start slowly
  // The server's notifications besides progress and logging
  // (notifications/tools/list_changed, ...): method and params, on the strand.
  std::function<void(const std::string& method, const nlohmann::json& params)> on_notification;
  // What the client advertises in initialize, and the handler of the
  // server's requests that come with it (elicitation/create, roots/list,
  // ...), on the strand: a result, or nullopt for -32601. Nothing by
  // default: Ava's agents implement none of these yet.
  nlohmann::json capabilities = nlohmann::json::object();
  std::function<std::optional<nlohmann::json>(const std::string& method,
                                              const nlohmann::json& params)>
      on_request;
};

// What initialize told us.
struct ServerInfo {
  std::string protocol_version;
  std::string name;
  std::string title;
  std::string version;
  std::string instructions;
  nlohmann::json capabilities = nlohmann::json::object();
  bool has(std::string_view capability) const { return capabilities.contains(capability); }
};

// One initialized MCP session over a transport: request ids and matching,
// the server's requests (ping answered, everything else -32601 since the
// client advertises no capabilities), notifications (progress to their
// request, logging to spdlog, the rest to on_notification), timeouts and
// cancellation (notifications/cancelled when the awaiting coroutine is
// cancelled or times out; a late answer is dropped).
//
// Thread-safe: every member hops onto the session's strand.
//
// The coroutines here take no default arguments on purpose: g++ 12 mishandles
// temporaries inside a co_await expression (a default argument is one), so
// callers pass named values.
class Session : public std::enable_shared_from_this<Session> {
 public:
  // Starts the transport, negotiates the protocol version and completes the
  // initialize / notifications/initialized handshake.
  static boost::asio::awaitable<Result<std::shared_ptr<Session>>> connect(
      boost::asio::any_io_executor executor, std::unique_ptr<Transport> transport,
      SessionOptions options);

  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // The result of one request. A JSON-RPC error answer is ErrorCode::protocol
  // with the server's message; unavailable when the server is gone; timeout;
  // cancelled.
  boost::asio::awaitable<Result<nlohmann::json>> request(std::string method, nlohmann::json params,
                                                         RequestOptions options);
  boost::asio::awaitable<Result<void>> notify(std::string method, nlohmann::json params);

  // Closes the transport (and ends the server). Pending requests fail.
  boost::asio::awaitable<void> close();

  const ServerInfo& server() const { return server_; }
  // False once the server is gone or the session closed.
  bool alive() const { return alive_.load(); }
  std::string describe() const { return description_; }

 private:
  struct Pending;
  Session(const boost::asio::any_io_executor& executor, std::unique_ptr<Transport> transport,
          SessionOptions options);

  boost::asio::awaitable<Result<nlohmann::json>> request_on_strand(std::string method,
                                                                   nlohmann::json params,
                                                                   RequestOptions options);
  boost::asio::awaitable<Result<void>> initialize();
  // Never throws: a message that breaks its handler fails the request it
  // answers (if any) and is logged; the reader goes on.
  void on_message(const nlohmann::json& message);
  void handle_message(const nlohmann::json& message);
  void on_closed(Error reason);
  void on_request_failed(const nlohmann::json& id, Error reason);
  void on_server_request(const std::string& method, const nlohmann::json& id,
                         const nlohmann::json& params);
  void on_server_notification(const std::string& method, const nlohmann::json& params);
  void respond(nlohmann::json message);

  Strand strand_;
  std::unique_ptr<Transport> transport_;
  SessionOptions options_;
  std::string description_;
  ServerInfo server_;
  std::int64_t next_id_ = 1;
  std::map<std::int64_t, std::shared_ptr<Pending>> pending_;
  std::map<std::string, std::int64_t> progress_tokens_;  // token -> request id
  std::optional<Error> closed_;                          // why the session ended
  bool closing_ = false;
  std::atomic<bool> alive_{true};
};

}  // namespace ava::mcp
