// `ava chat` attached to the backend that owns the home (chat_remote.hpp).

#include "cli/chat_remote.hpp"

#include <map>
#include <set>

#include <fmt/format.h>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "ava/base/id.hpp"
#include "ava/base/json.hpp"
#include "ava/base/url_encoding.hpp"
#include "ava/machine/backend.hpp"
#include "ava/machine/loopback_client.hpp"
#include "ava/session/codec.hpp"
#include "ava/session/log_reader.hpp"
#include "ava/transport/http_client.hpp"
#include "ava/transport/sse.hpp"
#include "cli/chat_session.hpp"
#include "cli/signals_blocked.hpp"

namespace ava::cli {
namespace {

namespace asio = boost::asio;
namespace fs = std::filesystem;
using nlohmann::json;

std::unexpected<SetupFailure> usage(Error error) {
  return std::unexpected(SetupFailure{std::move(error), true});
}
std::unexpected<SetupFailure> failed(Error error) {
  return std::unexpected(SetupFailure{std::move(error), false});
}

std::string string_field(const json& object, std::string_view key) {
  return base::json_field<std::string>(object, key).value_or("");
}

ErrorCode code_of(int status) {
  switch (status) {
    case 400: return ErrorCode::invalid_argument;
    case 401:
    case 403: return ErrorCode::permission_denied;
    case 404: return ErrorCode::not_found;
    case 409: return ErrorCode::conflict;
    default: return ErrorCode::unavailable;
  }
}

// Text of the answer's content blocks.
std::string text_of(const std::vector<content::ContentBlock>& blocks) {
  std::string text;
  for (const auto& block : blocks) {
    if (const auto* part = std::get_if<content::TextBlock>(&block)) text += part->text;
  }
  return text;
}

// The agent options only an agent in this process takes: attached, the
// backend's settings decide, and a flag that would do nothing is refused.
std::optional<std::string> local_only_flag(const PromptFlags& flags) {
  if (flags.system_prompt) return "--system-prompt";
  if (!flags.append_system_prompt.empty()) return "--append-system-prompt";
  if (!flags.allowed_tools.empty()) return "--allowed-tools";
  if (!flags.disallowed_tools.empty()) return "--disallowed-tools";
  if (!flags.sandbox.empty()) return "--sandbox";
  if (flags.max_steps > 0) return "--max-steps";
  if (flags.no_mcp) return "--no-mcp";
  return std::nullopt;
}

// A session id as given to --resume: an id, or the path of its log.
std::string conversation_id_of(const std::string& given) {
  if (given.find('/') == std::string::npos && !given.ends_with(".zst")) return given;
  std::string name = fs::path(given).filename().string();
  if (name.ends_with(".jsonl.zst"))
    name.resize(name.size() - std::string_view(".jsonl.zst").size());
  return name;
}

}  // namespace

std::expected<std::unique_ptr<ChatBackend>, SetupFailure> open_chat_backend(
    const PromptFlags& flags, bool in_process, const json& session_mcp_servers,
    const AgentCustomizer& customize) {
  auto home = base::Home::resolve();
  if (!home) return failed(home.error());
  if (!in_process) {
    if (auto backend = machine::find_running_backend(*home)) {
      return RemoteChat::open(*home, *backend, flags, session_mcp_servers);
    }
  }
  std::vector<capabilities::McpServerEntry> servers;
  if (!session_mcp_servers.empty()) {
    auto parsed = capabilities::parse_mcp_servers(json{{"mcpServers", session_mcp_servers}},
                                                  "conversation", std::nullopt);
    if (!parsed) return usage(parsed.error());
    servers = std::move(*parsed);
  }
  // In this process; continuing a conversation the backend runs is refused
  // there (make_local_agent checks the owner).
  return ChatSession::open(flags, std::move(servers), customize);
}

RemoteChat::RemoteChat(base::Home home, machine::BackendEndpoint backend, PromptFlags flags)
    : home_(std::move(home)), backend_(std::move(backend)), flags_(std::move(flags)) {}

Result<json> RemoteChat::call(std::string_view method, const std::string& path, const json& body,
                              std::chrono::milliseconds timeout) {
  const std::string text = body.is_null() ? std::string() : body.dump();
  AVA_TRY(auto reply,
          machine::loopback_request(backend_.port, method, path, backend_.token, text, timeout));
  json parsed;
  if (!reply.body.empty()) parsed = base::parse_json(reply.body).value_or(json());
  if (reply.status < 200 || reply.status >= 300) {
    std::string message =
        string_field(base::json_field<json>(parsed, "error").value_or(json()), "message");
    if (message.empty()) message = fmt::format("the backend answered {} {}", reply.status, path);
    return fail(code_of(reply.status), message);
  }
  return parsed;
}

std::expected<std::unique_ptr<ChatBackend>, SetupFailure> RemoteChat::open(
    const base::Home& home, const machine::BackendEndpoint& backend, const PromptFlags& flags,
    const json& session_mcp_servers) {
  if (!session_mcp_servers.empty() && (!flags.session.empty() || flags.continue_latest)) {
    return usage({ErrorCode::unsupported,
                  fmt::format("the backend (pid {}) runs this conversation with the tools it "
                              "has; MCP servers can only be given for a new one",
                              backend.pid)});
  }
  if (auto flag = local_only_flag(flags)) {
    return usage({ErrorCode::invalid_argument,
                  fmt::format("{} does not apply when ava chat attaches to the backend (pid {}), "
                              "whose settings decide; add --in-process to run a new conversation "
                              "in this process instead",
                              *flag, backend.pid)});
  }
  std::unique_ptr<RemoteChat> chat(new RemoteChat(home, backend, flags));
  auto cwd = working_folder(flags);
  if (!cwd) return usage(cwd.error());
  chat->cwd_ = *cwd;

  auto project = chat->call("POST", "/api/projects", json{{"path", cwd->string()}});
  if (!project) return failed(project.error());
  const std::string project_id = string_field(*project, "id");

  Result<json> conversation = json();
  if (!flags.session.empty()) {
    chat->existing_ = true;
    conversation = chat->call(
        "GET", "/api/conversations/" + base::percent_encode(conversation_id_of(flags.session)),
        json());
    if (!conversation && conversation.error().code == ErrorCode::not_found) {
      return usage({ErrorCode::not_found,
                    fmt::format("the backend has no conversation {} (one `ava -p` or ava chat "
                                "--in-process ran is continued in this process: stop the "
                                "backend, or use ava -p --session)",
                                flags.session)});
    }
  } else if (flags.continue_latest) {
    chat->existing_ = true;
    auto list = chat->call(
        "GET", "/api/conversations?project=" + base::percent_encode(project_id) + "&limit=200",
        json());
    if (!list) return failed(list.error());
    json rows = base::json_field<json>(*list, "conversations").value_or(json::array());
    if (!rows.is_array()) rows = json::array();
    const json* latest = nullptr;
    for (const auto& row : rows) {
      const auto updated = base::json_field<std::int64_t>(row, "updatedMs").value_or(0);
      if (latest == nullptr ||
          updated > base::json_field<std::int64_t>(*latest, "updatedMs").value_or(0)) {
        latest = &row;
      }
    }
    if (latest == nullptr) {
      return usage({ErrorCode::not_found,
                    "the backend has no conversation in " + cwd->string() + " to continue"});
    }
    conversation = *latest;
  } else {
    json body{{"projectId", project_id},
              {"model", {{"provider", flags.provider}, {"model", flags.model}}}};
    if (!flags.permission_mode.empty()) body["permissionMode"] = flags.permission_mode;
    if (!session_mcp_servers.empty()) body["mcpServers"] = session_mcp_servers;
    conversation = chat->call("POST", "/api/conversations", body, std::chrono::seconds(30));
  }
  if (!conversation) return failed(conversation.error());
  chat->id_ = string_field(*conversation, "id");
  if (chat->id_.empty()) {
    return failed({ErrorCode::protocol, "the backend's conversation has no id"});
  }
  const json model = base::json_field<json>(*conversation, "model").value_or(json::object());
  chat->provider_ = string_field(model, "provider");
  chat->model_ = string_field(model, "model");
  if (auto status = chat->call("GET", "/api/conversations/" + chat->id_ + "/status", json())) {
    if (auto provider = string_field(*status, "provider"); !provider.empty()) {
      chat->provider_ = provider;
    }
    if (auto name = string_field(*status, "model"); !name.empty()) chat->model_ = name;
    chat->permission_mode_ = string_field(*status, "permissionMode");
  }
  chat->read_history();
  chat->start_streams();
  return std::unique_ptr<ChatBackend>(std::move(chat));
}

void RemoteChat::read_history() {
  auto scan = session::read_log(home_.sessions() / (id_ + ".jsonl.zst"));
  if (!scan) return;  // a new conversation's log may not exist yet: start at 0
  std::map<std::string, session::ApprovalRequested> waiting;
  for (const auto& event : scan->events) {
    after_seq_ = static_cast<std::int64_t>(event.seq);
    if (const auto* input = std::get_if<session::InputAcknowledged>(&event.body)) {
      if (input->command.empty()) recap_.input = input->text;
    } else if (const auto* message = std::get_if<session::AssistantMessage>(&event.body)) {
      if (auto text = text_of(message->content); !text.empty()) recap_.answer = std::move(text);
    } else if (const auto* asked = std::get_if<session::ApprovalRequested>(&event.body)) {
      waiting[asked->approval_id] = *asked;
    } else if (const auto* decided = std::get_if<session::ApprovalDecided>(&event.body)) {
      waiting.erase(decided->approval_id);
    } else if (const auto* result = std::get_if<session::ToolResult>(&event.body)) {
      std::erase_if(waiting,
                    [&](const auto& entry) { return entry.second.call_id == result->call_id; });
    }
  }
  for (auto& [id, request] : waiting) pending_.push_back(std::move(request));
}

void RemoteChat::start_streams() {
  const SignalsBlocked blocked;  // the stream thread leaves them to the terminal's
  const std::string events = fmt::format("/api/conversations/{}/events?after={}", id_, after_seq_);
  streams_ = 2;
  asio::co_spawn(io_, follow(events, false),
                 asio::bind_cancellation_slot(stop_events_.slot(), asio::detached));
  asio::co_spawn(io_, follow("/api/status/events", true),
                 asio::bind_cancellation_slot(stop_status_.slot(), asio::detached));
  thread_ = std::thread([this] { io_.run(); });
}

RemoteChat::~RemoteChat() {
  asio::post(io_, [this] {
    stop_events_.emit(asio::cancellation_type::terminal);
    stop_status_.emit(asio::cancellation_type::terminal);
  });
  for (int i = 0; i < 100 && streams_ > 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  io_.stop();
  if (thread_.joinable()) thread_.join();
}

// One SSE stream, followed until cancelled; a dropped connection is picked
// up again after a second (the events stream from its cursor, so nothing is
// shown twice or missed).
asio::awaitable<void> RemoteChat::follow(std::string path, bool status_stream) {
  struct Done {
    std::atomic<int>& count;
    ~Done() { --count; }
  } done{streams_};
  auto client = transport::HttpClient::create(io_.get_executor(),
                                              {.timeouts = {.connect = std::chrono::seconds(5),
                                                            .first_byte = std::chrono::seconds(30),
                                                            .idle = std::chrono::seconds(60)},
                                               .proxy = transport::ProxyConfig{}});
  if (!client) co_return;
  for (;;) {
    transport::SseParser parser;
    std::vector<transport::SseEvent> frames;
    transport::HttpRequest request{
        .method = "GET",
        .url = backend_.url() + path,
        .headers = {{"authorization", "Bearer " + backend_.token}, {"accept", "text/event-stream"}},
        .body = {}};
    auto sent = co_await (*client)->send(request, [&](std::string_view chunk) -> Result<void> {
      AVA_TRY_VOID(parser.feed(chunk, frames));
      for (const auto& frame : frames) {
        if (!status_stream) {
          if (auto event = session::decode_line(frame.data)) on_event(*event);
          continue;
        }
        if (auto data = base::parse_json(frame.data)) on_status(frame.event, *data);
      }
      frames.clear();
      return {};
    });
    if (!sent && sent.error().code == ErrorCode::cancelled) co_return;
    asio::steady_timer pause(io_, std::chrono::seconds(1));
    auto [ec] = co_await pause.async_wait(asio::as_tuple(asio::use_awaitable));
    if (ec) co_return;
    if (!status_stream) {
      std::lock_guard lock(mutex_);
      path = fmt::format("/api/conversations/{}/events?after={}", id_, after_seq_);
    }
  }
}

void RemoteChat::on_event(const session::Event& event) {
  bool turn_done = false;
  {
    std::lock_guard lock(mutex_);
    if (static_cast<std::int64_t>(event.seq) <= after_seq_) return;  // seen before a reconnect
    after_seq_ = static_cast<std::int64_t>(event.seq);
    if (const auto* message = std::get_if<session::AssistantMessage>(&event.body)) {
      answered_.insert({message->turn_id, message->step});
    }
    if (const auto* claimed = std::get_if<session::InputClaimed>(&event.body)) {
      if (std::ranges::find(claimed->input_ids, waiting_input_) != claimed->input_ids.end()) {
        waiting_turn_ = claimed->turn_id;
      }
    } else if (const auto* ended = std::get_if<session::TurnEnded>(&event.body)) {
      turn_done = !waiting_turn_.empty() && ended->turn_id == waiting_turn_;
    } else if (const auto* output = std::get_if<session::CommandOutput>(&event.body)) {
      turn_done = !waiting_input_.empty() && output->input_id == waiting_input_;
    } else if (const auto* blocked = std::get_if<session::InputBlocked>(&event.body)) {
      turn_done = !waiting_input_.empty() && blocked->input_id == waiting_input_;
    }
    if (turn_done) {
      waiting_input_.clear();
      waiting_turn_.clear();
    }
  }
  push(event);
  if (turn_done) push(TurnDone{});
}

// The status stream's live part for this conversation: answer text as it
// streams and tool activity.
void RemoteChat::on_status(const std::string& kind, const json& data) {
  if (string_field(data, "conversationId") != id_) return;
  const std::string turn = string_field(data, "turnId");
  const int step = base::json_field<int>(data, "step").value_or(0);
  // This stream and the events' are two connections: a delta may come after
  // its step's whole message, which the view has shown already.
  if ((kind == "delta" || kind == "thinking") && answered_.contains({turn, step})) return;
  if (kind == "delta") {
    push(agent::LiveEvent{agent::StreamProgress{
        .turn_id = turn, .step = step, .event = llm::TextDelta{string_field(data, "text")}}});
  } else if (kind == "thinking") {
    push(agent::LiveEvent{agent::StreamProgress{
        .turn_id = turn, .step = step, .event = llm::ThinkingDelta{string_field(data, "text")}}});
  } else if (kind == "tool") {
    push(agent::LiveEvent{
        agent::ToolActivity{.turn_id = turn,
                            .call_id = string_field(data, "callId"),
                            .tool_name = string_field(data, "toolName"),
                            .label = string_field(data, "label"),
                            .finished = base::json_field<bool>(data, "finished").value_or(false)}});
  }
}

ChatBackend::Info RemoteChat::info() {
  return {.session_id = id_,
          .provider = provider_,
          .model = model_,
          .permission_mode = permission_mode_,
          .cwd = cwd_,
          .existing = existing_,
          .host = fmt::format("the backend (pid {})", backend_.pid)};
}

Result<void> RemoteChat::send(const std::string& text, std::vector<content::ImageBlock> images) {
  const std::string input_id = "chat-" + base::new_id();
  {
    std::lock_guard lock(mutex_);
    waiting_input_ = input_id;  // events may arrive before the answer does
    waiting_turn_.clear();
  }
  json body{{"kind", "followup"}, {"text", text}, {"inputId", input_id}};
  if (!images.empty()) {
    body["attachments"] = json::array();
    for (auto& image : images) {
      body["attachments"].push_back(
          {{"mediaType", image.media_type}, {"data", std::move(image.data)}});
    }
  }
  auto sent = call("POST", "/api/conversations/" + id_ + "/input", body);
  if (!sent) {
    std::lock_guard lock(mutex_);
    waiting_input_.clear();
    return std::unexpected(sent.error());
  }
  return {};
}

void RemoteChat::watch_turn(const std::string& turn_id) {
  std::lock_guard lock(mutex_);
  waiting_turn_ = turn_id;
}

Result<void> RemoteChat::abort() {
  AVA_TRY(auto status, call("POST", "/api/conversations/" + id_ + "/abort", json::object()));
  (void)status;
  return {};
}

Result<void> RemoteChat::set_permission_mode(const std::string& mode) {
  AVA_TRY(auto status,
          call("PUT", "/api/conversations/" + id_ + "/permissions", json{{"mode", mode}}));
  permission_mode_ = string_field(status, "permissionMode");
  return {};
}

Result<void> RemoteChat::set_model(const agent::ModelChoice& choice) {
  AVA_TRY(auto status, call("PUT", "/api/conversations/" + id_ + "/model",
                            json{{"provider", choice.provider}, {"model", choice.model}}));
  (void)status;
  return {};
}

Result<void> RemoteChat::decide(const std::string& approval_id,
                                const agent::ApprovalAnswer& answer) {
  const json body{{"decision", std::string(session::to_string(answer.decision))},
                  {"scope", std::string(session::to_string(answer.scope))},
                  {"rule", answer.rule},
                  {"message", answer.message}};
  AVA_TRY(
      auto status,
      call("POST", "/api/conversations/" + id_ + "/approvals/" + base::percent_encode(approval_id),
           body));
  (void)status;
  return {};
}

// /clear through the backend: it starts the new conversation in the same
// project and names it.
std::expected<std::unique_ptr<ChatBackend>, SetupFailure> RemoteChat::start_new() {
  auto cleared = call("POST", "/api/conversations/" + id_ + "/input",
                      json{{"kind", "followup"}, {"text", "/clear"}}, std::chrono::seconds(30));
  if (!cleared) return failed(cleared.error());
  const std::string next = string_field(*cleared, "newConversationId");
  if (next.empty()) return failed({ErrorCode::protocol, "the backend started no new conversation"});
  PromptFlags flags = flags_;
  flags.session = next;
  flags.continue_latest = false;
  auto opened = open(home_, backend_, flags);
  if (opened) {
    // A new conversation, not one continued.
    static_cast<RemoteChat&>(**opened).existing_ = false;
  }
  return opened;
}

}  // namespace ava::cli
