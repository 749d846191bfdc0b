#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ava::test {

// What the fake provider received, for tests that check the wire request.
struct RecordedRequest {
  std::string method;
  std::string target;
  std::vector<std::pair<std::string, std::string>> headers;  // names lower-cased
  std::string body;
  std::string header(const std::string& lower_name) const;
};

// One scripted HTTP response. The body goes out chunk by chunk
// (Transfer-Encoding: chunked), so a stream arrives as a real one does.
struct FakeReply {
  int status = 200;
  std::string content_type = "text/event-stream";
  std::vector<std::pair<std::string, std::string>> headers;  // e.g. {"retry-after", "1"}
  std::vector<std::string> chunks;
  std::chrono::milliseconds first_byte_delay{0};  // before the response head
  std::chrono::milliseconds chunk_delay{0};       // between chunks
  // Close the connection after this many body bytes, mid-stream.
  std::optional<std::size_t> cut_after_bytes;
  // Send this many chunks, then nothing more with the connection left open
  // (a stalled stream), until the client gives up.
  std::optional<std::size_t> stall_after_chunks;
};

// A loopback HTTP/1.1 server (plain or TLS) on an ephemeral port, on its own
// thread. Replies are served in the order enqueued; with the queue empty the
// fallback decides, and without one the reply is a 500.
class FakeProviderServer {
 public:
  struct Options {
    bool tls = false;
    std::filesystem::path certificate_chain;  // PEM, when tls
    std::filesystem::path private_key;        // PEM, when tls
  };

  // Throws std::runtime_error when it cannot listen (test support, not product code).
  static std::unique_ptr<FakeProviderServer> start(Options options);
  static std::unique_ptr<FakeProviderServer> start() { return start(Options{}); }
  virtual ~FakeProviderServer() = default;

  virtual std::uint16_t port() const = 0;
  // "http://127.0.0.1:<port>" (or https://localhost:<port> with TLS).
  virtual std::string base_url() const = 0;
  virtual void enqueue(FakeReply reply) = 0;
  virtual void set_fallback(std::function<FakeReply(const RecordedRequest&)> fallback) = 0;
  virtual std::vector<RecordedRequest> requests() const = 0;
  virtual std::size_t connections_accepted() const = 0;
};

// A whole SSE body cut into one chunk per event (split at blank lines).
std::vector<std::string> chunks_per_event(const std::string& body);

// A JSON error reply as the providers send it before any SSE, optionally
// with retry-after (seconds).
FakeReply http_error_reply(int status, std::optional<int> retry_after_seconds = std::nullopt);

}  // namespace ava::test
