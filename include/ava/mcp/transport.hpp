#pragma once

#include <functional>
#include <string>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/strand.hpp>
#include <nlohmann/json.hpp>

#include "ava/base/error.hpp"

namespace ava::mcp {

using Strand = boost::asio::strand<boost::asio::any_io_executor>;

// What a transport reports to its session, on the session's strand.
// on_closed comes at most once, and nothing follows it.
struct TransportEvents {
  std::function<void(nlohmann::json message)> on_message;
  // The exchange that carried the request with this id failed before its
  // answer came (HTTP: an error status, a stream that could not be resumed).
  std::function<void(const nlohmann::json& id, Error reason)> on_request_failed;
  std::function<void(Error reason)> on_closed;
};

// Moves JSON-RPC messages between the session and one server. The session
// does the protocol (ids, matching, lifecycle); a transport only carries
// messages and says when the peer is gone. Every member is called from a
// coroutine running on the strand given to start().
class Transport {
 public:
  Transport() = default;
  virtual ~Transport() = default;
  Transport(const Transport&) = delete;
  Transport& operator=(const Transport&) = delete;

  // Starts the transport on the session's strand (stdio: spawns the server).
  virtual boost::asio::awaitable<Result<void>> start(Strand strand, TransportEvents events) = 0;

  // Hands one message over. Returns when the message is queued (stdio), or
  // for HTTP when a request's POST is under way or a notification's or
  // response's POST was accepted; answers arrive through on_message, and a
  // request whose exchange fails through on_request_failed.
  virtual boost::asio::awaitable<Result<void>> send(nlohmann::json message) = 0;

  // The session gave up on a request (cancelled, timed out) and told the
  // server; the transport stops whatever still waits for its answer.
  virtual void cancel_request(const nlohmann::json& id) = 0;

  // After initialize: the negotiated version (HTTP sends it as a header)
  // and the point where HTTP may open its stream for server messages.
  virtual void initialized(const std::string& protocol_version) = 0;

  // Stops the transport and releases the server (stdio: closes stdin, then
  // TERM/KILL to the process group; HTTP: DELETE of the session). Waits for
  // background work to end. on_closed is not called for a close.
  virtual boost::asio::awaitable<void> close() = 0;

  // A short name for logs and errors ("stdio:npx", "http://host/mcp").
  virtual std::string describe() const = 0;
};

}  // namespace ava::mcp
