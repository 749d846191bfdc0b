// `ava models pull`: Ollama's POST /api/pull, its NDJSON progress read as it
// streams.

#include "ava/llm/model_pull.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ava/base/json.hpp"
#include "ava/transport/url.hpp"

#include "ollama_host.hpp"

namespace ava::llm {

namespace asio = boost::asio;

namespace {

// A progress line is a small object; anything longer is not Ollama talking.
constexpr std::size_t max_line_bytes = 64 * 1024;
constexpr std::size_t max_name_bytes = 200;

bool name_byte(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == '-' || c == ':' || c == '/';
}

// Splits the stream into lines and turns each into progress; remembers
// whether "success" came and the first error.
class PullStream {
 public:
  explicit PullStream(PullObserver observe) : observe_(std::move(observe)) {}

  Result<void> feed(std::string_view chunk) {
    pending_.append(chunk);
    std::size_t start = 0;
    for (auto end = pending_.find('\n'); end != std::string::npos;
         end = pending_.find('\n', start)) {
      AVA_TRY_VOID(line(std::string_view(pending_).substr(start, end - start)));
      start = end + 1;
    }
    pending_.erase(0, start);
    if (pending_.size() > max_line_bytes)
      return fail(ErrorCode::limit_exceeded, "a progress line from Ollama is over 64 KiB");
    return {};
  }

  Result<void> finish() {
    if (!pending_.empty()) AVA_TRY_VOID(line(pending_));
    pending_.clear();
    if (!succeeded_)
      return fail(ErrorCode::protocol, "Ollama ended the download before it was done");
    return {};
  }

 private:
  Result<void> line(std::string_view text) {
    while (!text.empty() && (text.back() == '\r' || text.back() == ' ')) text.remove_suffix(1);
    if (text.empty()) return {};
    auto document = base::parse_json(text, {.max_depth = 8, .max_bytes = max_line_bytes});
    if (!document || !document->is_object())
      return fail(ErrorCode::protocol, "Ollama sent a progress line that is not a JSON object");
    if (auto error = base::json_field<std::string>(*document, "error"))
      return fail(ErrorCode::invalid_argument, *error);
    PullProgress progress{.status = base::json_value(*document, "status", std::string()),
                          .digest = base::json_value(*document, "digest", std::string())};
    progress.completed = base::json_field<std::int64_t>(*document, "completed").value_or(0);
    progress.total = base::json_field<std::int64_t>(*document, "total").value_or(0);
    if (progress.completed < 0 || progress.total < 0) progress.completed = progress.total = 0;
    if (progress.status == "success") succeeded_ = true;
    if (observe_) observe_(progress);
    return {};
  }

  PullObserver observe_;
  std::string pending_;
  bool succeeded_ = false;
};

}  // namespace

Result<void> check_pull_name(std::string_view name) {
  if (name.empty()) return fail(ErrorCode::invalid_argument, "name the model to pull");
  if (name.size() > max_name_bytes)
    return fail(ErrorCode::invalid_argument, "a model name is at most 200 bytes");
  for (char c : name) {
    if (!name_byte(c))
      return fail(ErrorCode::invalid_argument,
                  "a model name is [namespace/]model[:tag] of letters, digits and ._-");
  }
  if (name.front() == '/' || name.front() == '.' || name.find("..") != std::string_view::npos ||
      name.find("//") != std::string_view::npos)
    return fail(ErrorCode::invalid_argument,
                "a model name is [namespace/]model[:tag] of letters, digits and ._-");
  return {};
}

asio::awaitable<Result<void>> pull_ollama_model(asio::any_io_executor executor,
                                                std::string base_url, std::string name,
                                                transport::HttpClientOptions options,
                                                PullObserver observe) {
  AVA_CO_TRY_VOID(check_pull_name(name));
  AVA_CO_TRY(auto client, transport::HttpClient::create(std::move(executor), std::move(options)));
  transport::HttpRequest request{
      .method = "POST",
      .url = transport::join_url(ollama_root(base_url), "/api/pull"),
      .headers = {{"content-type", "application/json"}, {"accept", "application/x-ndjson"}},
      .body = nlohmann::json{{"model", name}, {"stream", true}}.dump()};
  PullStream stream(std::move(observe));
  // A named handler: GCC 12 mishandles temporaries inside co_await.
  const transport::BodyHandler on_body = [&stream](std::string_view chunk) {
    return stream.feed(chunk);
  };
  auto reply = co_await client->send(request, on_body);
  if (!reply) co_return std::unexpected(reply.error());
  if (reply->status < 200 || reply->status >= 300) {
    const auto body = base::parse_json(reply->body).value_or(nlohmann::json());
    std::string message = base::json_value(body, "error", std::string());
    co_return fail(ErrorCode::invalid_argument,
                   fmt::format("HTTP {}{}{}", reply->status, message.empty() ? "" : ": ", message));
  }
  co_return stream.finish();
}

}  // namespace ava::llm
