#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include "ava/base/error.hpp"
#include "ava/transport/http_client.hpp"

namespace ava::llm {

// One line of Ollama's pull stream: a phase ("pulling manifest",
// "downloading sha256:…", "verifying sha256 digest", "success") and, while a
// layer downloads, its byte counts.
struct PullProgress {
  std::string status;
  std::string digest;  // the layer being downloaded, when there is one
  std::int64_t completed = 0;
  std::int64_t total = 0;  // 0 when the server did not say
};

using PullObserver = std::function<void(const PullProgress&)>;

// A name Ollama can pull: [namespace/]model[:tag] of letters, digits and
// ._-, at most 200 bytes. Anything else (a path, a URL, spaces, control
// bytes) is refused before a request is made.
Result<void> check_pull_name(std::string_view name);

// Asks the Ollama server at `base_url` (its OpenAI-compatible base, as the
// settings hold it; /v1 is dropped) to download `name` with POST /api/pull,
// reading its NDJSON progress as it streams and passing each line to
// `observe`. Succeeds when the stream ends with status "success". The
// server's refusal (an {"error": …} line or an HTTP error, in its own words)
// is invalid_argument; a server not reached is the transport's unavailable
// or timeout; a stream that ends early is protocol.
boost::asio::awaitable<Result<void>> pull_ollama_model(boost::asio::any_io_executor executor,
                                                       std::string base_url, std::string name,
                                                       transport::HttpClientOptions options,
                                                       PullObserver observe);

}  // namespace ava::llm
