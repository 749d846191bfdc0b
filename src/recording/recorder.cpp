#include "ava/recording/recorder.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <system_error>

#include <fmt/format.h>

#include "ava/base/private_file.hpp"
#include "ava/recording/json.hpp"

namespace ava::recording {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

template <class... Fs>
struct Overload : Fs... {
  using Fs::operator()...;
};

Result<std::FILE*> create_private(const fs::path& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    return fail(ErrorCode::io,
                fmt::format("cannot create {}: {}", path.string(), std::strerror(errno)));
  }
  std::FILE* file = ::fdopen(fd, "w");
  if (!file) {
    ::close(fd);
    return fail(ErrorCode::io,
                fmt::format("cannot open {}: {}", path.string(), std::strerror(errno)));
  }
  return file;
}

// The agent's provider with every exchange copied to the recorder.
class RecordingProvider final : public llm::Provider {
 public:
  RecordingProvider(std::unique_ptr<llm::Provider> inner, std::weak_ptr<Recorder> recorder)
      : inner_(std::move(inner)), recorder_(std::move(recorder)) {}

  boost::asio::awaitable<Result<llm::Response>> stream(const llm::Request& request,
                                                       llm::EventSink on_event) override {
    std::vector<llm::StreamEvent> events;
    auto streamed = co_await inner_->stream(request, [&](const llm::StreamEvent& event) {
      events.push_back(event);
      if (on_event) on_event(event);
    });
    if (auto recorder = recorder_.lock()) {
      recorder->record_exchange(request, events,
                                streamed ? std::optional<llm::Response>(*streamed) : std::nullopt);
    }
    co_return streamed;
  }

  void close() override { inner_->close(); }

 private:
  std::unique_ptr<llm::Provider> inner_;
  std::weak_ptr<Recorder> recorder_;
};

}  // namespace

Result<std::shared_ptr<Recorder>> Recorder::create(const fs::path& dir, Manifest manifest) {
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_empty(dir, ec)) {
    return fail(
        ErrorCode::already_exists,
        fmt::format("{} is not empty: a recording needs a new or empty folder", dir.string()));
  }
  fs::create_directories(dir, ec);
  if (ec)
    return fail(ErrorCode::io, fmt::format("cannot create {}: {}", dir.string(), ec.message()));
  fs::permissions(dir, fs::perms::owner_all, ec);
  std::shared_ptr<Recorder> recorder(new Recorder(dir, std::move(manifest)));
  AVA_TRY(recorder->exchanges_, create_private(dir / "exchanges.jsonl"));
  AVA_TRY(recorder->tools_, create_private(dir / "tools.jsonl"));
  {
    std::lock_guard lock(recorder->mutex_);
    AVA_TRY_VOID(recorder->write_manifest());
  }
  return recorder;
}

Recorder::Recorder(fs::path dir, Manifest manifest)
    : dir_(std::move(dir)), manifest_(std::move(manifest)) {}

Recorder::~Recorder() {
  if (exchanges_) std::fclose(exchanges_);
  if (tools_) std::fclose(tools_);
}

std::unique_ptr<llm::Provider> Recorder::wrap(std::unique_ptr<llm::Provider> provider,
                                              const std::string& provider_name,
                                              const std::string& model, std::int64_t context_window,
                                              std::optional<std::int64_t> max_output_tokens) {
  std::lock_guard lock(mutex_);
  if (!open_tasks_.empty()) return provider;
  if (!bound_) {
    // The binding the agent starts with is the one replay rebuilds.
    bound_ = true;
    manifest_.provider = provider_name;
    manifest_.model = model;
    manifest_.context_window = context_window;
    manifest_.max_output_tokens = max_output_tokens;
    if (auto written = write_manifest(); !written && !failure_) failure_ = written.error();
  }
  return std::make_unique<RecordingProvider>(std::move(provider), weak_from_this());
}

void Recorder::record_exchange(const llm::Request& request,
                               const std::vector<llm::StreamEvent>& events,
                               const std::optional<llm::Response>& response) {
  json line{{"index", 0}, {"request", encode_request(request)}, {"events", json::array()}};
  for (const auto& event : events) line["events"].push_back(encode_event(event));
  line["response"] = response ? encode_response(*response) : json();
  std::lock_guard lock(mutex_);
  line["index"] = exchange_count_++;
  append_line(exchanges_, line);
}

void Recorder::on_event(const session::Event& event) {
  std::lock_guard lock(mutex_);
  std::visit(
      Overload{[&](const session::SessionStarted& started) {
                 manifest_.session_id = started.session_id;
                 if (manifest_.cwd.empty()) manifest_.cwd = started.cwd;
               },
               [&](const session::AssistantMessage& message) {
                 std::string text;
                 for (const auto& block : message.content) {
                   if (const auto* t = std::get_if<content::TextBlock>(&block)) text += t->text;
                   if (const auto* call = std::get_if<content::ToolCallBlock>(&block)) {
                     calls_[call->id] = {call->name, call->arguments};
                     if (call->name == "task") open_tasks_.insert(call->id);
                   }
                 }
                 if (!text.empty()) {
                   turn_text_ = text;
                   last_text_ = std::move(text);
                 }
               },
               [&](const session::ToolResult& result) {
                 open_tasks_.erase(result.call_id);
                 const auto call = calls_.find(result.call_id);
                 json line{
                     {"callId", result.call_id},
                     {"name", result.tool_name},
                     {"arguments", call != calls_.end() ? call->second.second : std::string()},
                     {"status", session::to_string(result.status)},
                     {"content", encode_tool_content(result.content)},
                     {"details", result.details}};
                 ++tool_count_;
                 append_line(tools_, line);
               },
               [&](const session::InputAcknowledged& input) {
                 if (input.kind == session::InputKind::steer) {
                   not_replayable("input arrived during a turn (a steer); replay cannot say when");
                 } else if (!input.attachments.empty()) {
                   not_replayable("a follow-up carries an image");
                 } else if (!input.command.empty()) {
                   not_replayable("a follow-up is a slash command (/" + input.command + ")");
                 }
                 if (input.kind == session::InputKind::followup)
                   queued_prompts_.push_back(input.text);
               },
               [&](const session::TurnStarted&) {
                 std::string prompt;
                 if (!queued_prompts_.empty()) {
                   prompt = std::move(queued_prompts_.front());
                   queued_prompts_.pop_front();
                 }
                 manifest_.turns.push_back({.prompt = std::move(prompt)});
                 turn_text_.clear();
               },
               [&](const session::TurnEnded& ended) {
                 end_reason_ = session::to_string(ended.reason);
                 const Outcome outcome{.reason = end_reason_,
                                       .text = turn_text_,
                                       .exchanges = exchange_count_,
                                       .tool_calls = tool_count_};
                 if (!manifest_.turns.empty()) manifest_.turns.back().outcome = outcome;
                 if (manifest_.prompt.empty() && !manifest_.turns.empty())
                   manifest_.prompt = manifest_.turns.front().prompt;
                 manifest_.outcome = outcome;
                 if (auto written = write_manifest(); !written && !failure_)
                   failure_ = written.error();
               },
               [](const auto&) {}},
      event.body);
}

void Recorder::set_session_id(std::string id) {
  std::lock_guard lock(mutex_);
  manifest_.session_id = std::move(id);
}

Result<void> Recorder::finish() {
  std::lock_guard lock(mutex_);
  if (failure_) return std::unexpected(*failure_);
  manifest_.outcome = Outcome{.reason = end_reason_.empty() ? "open" : end_reason_,
                              .text = last_text_,
                              .exchanges = exchange_count_,
                              .tool_calls = tool_count_};
  return write_manifest();
}

void Recorder::not_replayable(std::string why) {
  if (manifest_.not_replayable.empty()) manifest_.not_replayable = std::move(why);
}

Result<void> Recorder::write_manifest() {
  return base::write_private_file(dir_ / "recording.json", to_json(manifest_).dump(2) + "\n");
}

void Recorder::append_line(std::FILE* file, const json& line) {
  if (failure_) return;
  const std::string text = line.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
  if (std::fwrite(text.data(), 1, text.size(), file) != text.size() || std::fflush(file) != 0) {
    failure_ = Error{ErrorCode::io, fmt::format("cannot write the recording in {}: {}",
                                                dir_.string(), std::strerror(errno))};
  }
}

}  // namespace ava::recording
