// The ACP agent: JSON-RPC requests from the editor on one thread, one pump
// thread per session turning the conversation's items into session/update
// notifications, permission requests and the prompt's answer.

#include "ava/acp/server.hpp"

#include <atomic>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "ava/acp/mcp_servers.hpp"
#include "ava/acp/options.hpp"
#include "ava/acp/prompt.hpp"
#include "ava/acp/updates.hpp"
#include "ava/base/json.hpp"

namespace ava::acp {

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// JSON-RPC error codes.
constexpr int parse_error = -32700;
constexpr int invalid_request = -32600;
constexpr int method_not_found = -32601;
constexpr int invalid_params = -32602;
constexpr int internal_error = -32603;

class Output {
 public:
  explicit Output(std::ostream& out) : out_(out) {}
  void write(const json& message) {
    const auto line = message.dump(-1, ' ', false, json::error_handler_t::replace);
    std::lock_guard lock(mutex_);
    out_ << line << '\n';
    out_.flush();
  }
  void result(const json& id, json value) {
    write({{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(value)}});
  }
  void error(const json& id, int code, const std::string& message) {
    write({{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}});
  }

 private:
  std::ostream& out_;
  std::mutex mutex_;
};

struct Session {
  std::string id;
  std::unique_ptr<Conversation> conversation;
  std::shared_ptr<EditorLink> editor;  // null: the editor offers no fs or terminal
  std::vector<ModelOption> models;     // offered, read once at open
  std::thread pump;
  std::atomic<bool> stopping{false};

  std::mutex mutex;             // guards what follows
  json prompt_id;               // the running session/prompt's request id; null when none
  bool cancelled = false;       // session/cancel since it started
  std::string end_reason;       // of the last turn_end
  std::string last_error;       // of the last error event
  std::set<std::string> asked;  // approval ids sent to the editor
  std::string mode;             // the permission mode, as last reported
  std::string model;            // "provider:model", as last reported
};

// Our requests to the editor, waiting for its answers. Closed when the
// bridge ends: what still waits is answered cancelled, later requests at
// once.
class Requests final : public EditorChannel {
 public:
  explicit Requests(Output& out) : out_(out) {}

  void request(const std::string& method, json params, Answered answered) override {
    {
      std::lock_guard lock(mutex_);
      if (!closed_) {
        const auto id = next_id_++;
        pending_[id] = std::move(answered);
        // Written under the lock: after close() nothing reaches `out_`.
        out_.write(
            {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}});
        return;
      }
    }
    answered(fail(ErrorCode::cancelled, "the editor is gone"));
  }

  void notify(const std::string& method, json params) override {
    std::lock_guard lock(mutex_);
    if (!closed_)
      out_.write({{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}});
  }

  // An answer from the editor: its result, or its error as `unavailable`.
  void answered(const json& message) {
    const auto id = base::json_value(message, "id", json());
    if (!id.is_number_integer()) return;
    Answered callback;
    {
      std::lock_guard lock(mutex_);
      auto found = pending_.find(id.get<std::int64_t>());
      if (found == pending_.end()) return;
      callback = std::move(found->second);
      pending_.erase(found);
    }
    if (message.contains("result")) {
      callback(message["result"]);
      return;
    }
    const auto error = base::json_value(message, "error", json::object());
    auto text = base::json_value(error, "message", std::string("no result"));
    if (text.size() > 500) text = text.substr(0, 500) + "...";
    callback(fail(ErrorCode::unavailable, "the editor answered: " + text));
  }

  void close() {
    std::map<std::int64_t, Answered> pending;
    {
      std::lock_guard lock(mutex_);
      closed_ = true;
      pending.swap(pending_);
    }
    for (auto& [id, callback] : pending) callback(fail(ErrorCode::cancelled, "the editor is gone"));
  }

 private:
  Output& out_;
  std::mutex mutex_;
  bool closed_ = false;
  std::int64_t next_id_ = 1;
  std::map<std::int64_t, Answered> pending_;
};

// "cancelled", else the turn's end: max_steps is max_turn_requests.
std::string stop_reason(const std::string& end_reason, bool cancelled) {
  if (cancelled || end_reason == "aborted" || end_reason == "interrupted") return "cancelled";
  if (end_reason == "max_steps") return "max_turn_requests";
  return "end_turn";
}

class Bridge {
 public:
  Bridge(std::ostream& out, ConversationOpener& opener, ServerOptions options)
      : out_(out),
        requests_(std::make_shared<Requests>(out_)),
        opener_(opener),
        options_(std::move(options)) {}

  ~Bridge() {
    // Tools waiting for the editor give up first, so the agents can stop.
    requests_->close();
    std::map<std::string, std::shared_ptr<Session>> sessions;
    {
      std::lock_guard lock(sessions_mutex_);
      sessions.swap(sessions_);
    }
    for (auto& [id, session] : sessions) {
      session->stopping = true;
      if (session->pump.joinable()) session->pump.join();
      session->conversation.reset();
    }
  }

  // Not decoded: its id is unknown.
  void too_large() { out_.error(nullptr, parse_error, "message too large"); }

  void handle_line(std::string_view line) {
    auto parsed = base::parse_json(line, {.max_depth = 64, .max_bytes = max_message_bytes});
    if (!parsed || !parsed->is_object()) {
      out_.error(nullptr, parse_error, "not a JSON-RPC message");
      return;
    }
    const json& message = *parsed;
    const json id = message.contains("id") ? message["id"] : json();
    if (!message.contains("method")) {
      requests_->answered(message);
      return;
    }
    if (!message["method"].is_string()) {
      if (!id.is_null()) out_.error(id, invalid_request, "method must be a string");
      return;
    }
    const auto method = message["method"].get<std::string>();
    const json params = message.value("params", json::object());
    if (!params.is_object()) {
      if (!id.is_null()) out_.error(id, invalid_params, "params must be an object");
      return;
    }
    if (!message.contains("id")) {
      notification(method, params);
      return;
    }
    if (!id.is_string() && !id.is_number_integer()) {
      out_.error(nullptr, invalid_request, "id must be a string or an integer");
      return;
    }
    request(id, method, params);
  }

 private:
  void request(const json& id, const std::string& method, const json& params) {
    if (method == "initialize") {
      editor_ = parse_editor_capabilities(params);
      out_.result(id, initialize_result());
    } else if (method == "authenticate") {
      out_.result(id, json::object());  // no auth methods: nothing to do
    } else if (method == "session/new") {
      open_session(id, params, false);
    } else if (method == "session/load") {
      open_session(id, params, true);
    } else if (method == "session/prompt") {
      prompt(id, params);
    } else if (method == "session/set_mode") {
      set_mode(id, params);
    } else if (method == "session/set_config_option") {
      set_config_option(id, params);
    } else {
      out_.error(id, method_not_found, "method not found: " + method.substr(0, 80));
    }
  }

  void notification(const std::string& method, const json& params) {
    if (method != "session/cancel") return;  // others are ignored, as JSON-RPC asks
    auto session = find(base::json_value(params, "sessionId", std::string()));
    if (!session) return;
    {
      std::lock_guard lock(session->mutex);
      if (session->prompt_id.is_null()) return;
      session->cancelled = true;
    }
    (void)session->conversation->abort();
  }

  json initialize_result() const {
    return json{
        {"protocolVersion", protocol_version},
        {"agentCapabilities",
         {{"loadSession", true},
          {"promptCapabilities", {{"image", true}, {"audio", false}, {"embeddedContext", true}}},
          {"mcpCapabilities", {{"http", true}, {"sse", false}}}}},
        {"authMethods", json::array()},
        {"agentInfo", {{"name", "ava"}, {"title", "Ava"}, {"version", options_.version}}}};
  }

  std::shared_ptr<Session> find(const std::string& id) {
    std::lock_guard lock(sessions_mutex_);
    const auto found = sessions_.find(id);
    return found == sessions_.end() ? nullptr : found->second;
  }

  void open_session(const json& id, const json& params, bool load) {
    const auto cwd = base::json_value(params, "cwd", std::string());
    if (cwd.empty() || !fs::path(cwd).is_absolute()) {
      out_.error(id, invalid_params, "cwd must be an absolute path");
      return;
    }
    auto servers = mcp_servers_document(params.value("mcpServers", json::array()));
    if (!servers) {
      out_.error(id, invalid_params, servers.error().message);
      return;
    }
    OpenRequest request{
        .cwd = cwd, .session_id = {}, .mcp_servers = std::move(*servers), .editor = nullptr};
    if (editor_.any()) request.editor = std::make_shared<EditorLink>(requests_, editor_);
    if (load) {
      request.session_id = base::json_value(params, "sessionId", std::string());
      if (request.session_id.empty()) {
        out_.error(id, invalid_params, "sessionId is required");
        return;
      }
      if (find(request.session_id)) {
        out_.error(id, invalid_params, "session " + request.session_id + " is already open");
        return;
      }
      if (request.editor) request.editor->set_session_id(request.session_id);
    }
    auto opened = opener_.open(request);
    if (!opened) {
      out_.error(id, load ? invalid_params : internal_error, opened.error().message);
      return;
    }
    auto session = std::make_shared<Session>();
    session->conversation = std::move(*opened);
    session->id = session->conversation->id();
    session->editor = request.editor;
    if (session->editor) session->editor->set_session_id(session->id);
    session->models = session->conversation->models();
    session->mode = session->conversation->permission_mode();
    session->model = session->conversation->model();
    if (load && !replay(*session)) {
      out_.error(id, internal_error, "the conversation's log could not be read");
      return;
    }
    {
      std::lock_guard lock(sessions_mutex_);
      sessions_[session->id] = session;
    }
    session->pump = std::thread([this, session] { pump(session); });
    json answer{{"modes", session_modes(session->mode)}, {"configOptions", options_of(*session)}};
    if (!load) answer["sessionId"] = session->id;
    out_.result(id, answer);
    notify(session->id, available_commands_update(session->conversation->cwd(), options_.home));
    // Calls that waited for a person before this client came.
    for (const auto& approval : session->conversation->pending_approvals()) ask(session, approval);
  }

  // session/load: the log as updates.
  bool replay(Session& session) {
    auto history = session.conversation->history();
    if (!history) return false;
    UpdateMapper mapper(session.conversation->cwd());
    for (const auto& event : *history) {
      for (auto& update : mapper.on_event(event, true)) notify(session.id, std::move(update));
    }
    return true;
  }

  void prompt(const json& id, const json& params) {
    auto session = find(base::json_value(params, "sessionId", std::string()));
    if (!session) {
      out_.error(id, invalid_params, "unknown sessionId");
      return;
    }
    auto input = prompt_input(params.value("prompt", json()));
    if (!input) {
      out_.error(id, invalid_params, input.error().message);
      return;
    }
    {
      std::lock_guard lock(session->mutex);
      if (!session->prompt_id.is_null()) {
        out_.error(id, invalid_request, "a prompt is already running in this session");
        return;
      }
      session->prompt_id = id;
      session->cancelled = false;
      session->end_reason.clear();
      session->last_error.clear();
    }
    if (auto sent = session->conversation->send(input->text, std::move(input->images)); !sent) {
      {
        std::lock_guard lock(session->mutex);
        session->prompt_id = nullptr;
      }
      out_.error(id, internal_error, sent.error().message);
    }
  }

  // session/set_mode: the permission mode from the next call on; the
  // permission_mode event that records it comes back as current_mode_update.
  void set_mode(const json& id, const json& params) {
    auto session = find(base::json_value(params, "sessionId", std::string()));
    if (!session) {
      out_.error(id, invalid_params, "unknown sessionId");
      return;
    }
    if (auto set = session->conversation->set_permission_mode(
            base::json_value(params, "modeId", std::string()));
        !set) {
      out_.error(id, invalid_params, set.error().message);
      return;
    }
    out_.result(id, json::object());
  }

  // session/set_config_option: "mode" (a permission mode) or "model"
  // ("provider:model"); the answer has every option's value after it.
  void set_config_option(const json& id, const json& params) {
    auto session = find(base::json_value(params, "sessionId", std::string()));
    if (!session) {
      out_.error(id, invalid_params, "unknown sessionId");
      return;
    }
    const auto option = base::json_value(params, "configId", std::string());
    const auto value = base::json_value(params, "value", std::string());
    if (value.empty()) {
      out_.error(id, invalid_params, "value must be a non-empty string");
      return;
    }
    Result<void> set =
        fail(ErrorCode::invalid_argument, "unknown configId: " + option.substr(0, 80));
    if (option == "mode") set = session->conversation->set_permission_mode(value);
    if (option == "model") set = session->conversation->set_model(value);
    if (!set) {
      out_.error(id, invalid_params, set.error().message);
      return;
    }
    {
      std::lock_guard lock(session->mutex);
      (option == "mode" ? session->mode : session->model) = value;
    }
    out_.result(id, {{"configOptions", options_of(*session)}});
  }

  json options_of(Session& session) {
    std::lock_guard lock(session.mutex);
    return config_options(session.mode, session.model, session.models);
  }

  // A mode or model changed (here, in another client, by /model): the
  // options as they are now.
  void options_changed(Session& session, const session::EventBody& body) {
    {
      std::lock_guard lock(session.mutex);
      if (const auto* mode = std::get_if<session::PermissionModeChanged>(&body)) {
        session.mode = mode->mode;
      } else if (const auto* model = std::get_if<session::ModelChanged>(&body)) {
        session.model = model->provider + ":" + model->model;
      } else {
        return;
      }
    }
    notify(session.id,
           {{"sessionUpdate", "config_option_update"}, {"configOptions", options_of(session)}});
  }

  void notify(const std::string& session_id, json update) {
    out_.write({{"jsonrpc", "2.0"},
                {"method", "session/update"},
                {"params", {{"sessionId", session_id}, {"update", std::move(update)}}}});
  }

  void pump(const std::shared_ptr<Session>& owner) {
    Session& session = *owner;
    UpdateMapper mapper(session.conversation->cwd());
    while (!session.stopping) {
      auto item = session.conversation->next(std::chrono::milliseconds(200));
      if (!item) continue;
      if (const auto* event = std::get_if<session::Event>(&*item)) {
        for (auto& update : mapper.on_event(*event, false)) {
          const auto call_id = base::json_value(update, "sessionUpdate", "") == "tool_call"
                                   ? base::json_value(update, "toolCallId", "")
                                   : std::string();
          notify(session.id, std::move(update));
          if (!call_id.empty() && session.editor) session.editor->announced(call_id);
        }
        options_changed(session, event->body);
        if (const auto* asked = std::get_if<session::ApprovalRequested>(&event->body)) {
          ask(owner, *asked);
        } else if (const auto* ended = std::get_if<session::TurnEnded>(&event->body)) {
          std::lock_guard lock(session.mutex);
          session.end_reason = std::string(session::to_string(ended->reason));
        } else if (const auto* error = std::get_if<session::ErrorOccurred>(&event->body)) {
          std::lock_guard lock(session.mutex);
          session.last_error = error->message;
        }
      } else if (const auto* live = std::get_if<agent::LiveEvent>(&*item)) {
        for (auto& update : mapper.on_live(*live)) notify(session.id, std::move(update));
      } else {
        finish_prompt(session);
      }
    }
  }

  void finish_prompt(Session& session) {
    json id;
    std::string reason;
    bool cancelled = false;
    std::string error;
    {
      std::lock_guard lock(session.mutex);
      id = std::exchange(session.prompt_id, nullptr);
      reason = session.end_reason;
      cancelled = session.cancelled;
      error = session.last_error;
    }
    if (id.is_null()) return;
    if (reason == "error" && !cancelled) {
      out_.error(id, internal_error, error.empty() ? "the turn failed" : error);
      return;
    }
    out_.result(id, {{"stopReason", stop_reason(reason, cancelled)}});
  }

  // session/request_permission for a call that waits for a person; the
  // editor's choice becomes the conversation's decision.
  void ask(const std::shared_ptr<Session>& session, const session::ApprovalRequested& approval) {
    {
      std::lock_guard lock(session->mutex);
      if (!session->asked.insert(approval.approval_id).second) return;
    }
    json tool_call = tool_call_update(approval.call_id, approval.tool_name, approval.arguments,
                                      session->conversation->cwd());
    tool_call.erase("sessionUpdate");
    json options =
        json::array({{{"optionId", "allow_once"}, {"name", "Allow"}, {"kind", "allow_once"}}});
    const std::string rule = approval.suggested_rules.empty() ? "" : approval.suggested_rules[0];
    if (!rule.empty()) {
      options.push_back({{"optionId", "allow_always"},
                         {"name", "Always allow " + rule + " in this conversation"},
                         {"kind", "allow_always"}});
    }
    options.push_back({{"optionId", "reject_once"}, {"name", "Deny"}, {"kind", "reject_once"}});
    auto weak = std::weak_ptr<Session>(session);
    auto decided = [weak, approval_id = approval.approval_id, rule](const Result<json>& result) {
      auto owner = weak.lock();
      // The editor went away: the call waits on, for another client.
      if (!owner || (!result && result.error().code == ErrorCode::cancelled)) return;
      // An error answer is a refusal.
      const auto outcome =
          base::json_value(result.value_or(json::object()), "outcome", json::object());
      const auto chosen = base::json_value(outcome, "optionId", std::string());
      agent::ApprovalAnswer answer;
      if (base::json_value(outcome, "outcome", std::string()) == "selected" &&
          (chosen == "allow_once" || chosen == "allow_always")) {
        answer.decision = session::ApprovalDecision::allow;
        if (chosen == "allow_always" && !rule.empty()) {
          answer.scope = session::ApprovalScope::conversation;
          answer.rule = rule;
        }
      } else {
        answer.message = "The user declined this call in the editor.";
      }
      // Decided meanwhile elsewhere (another client, an abort): nothing to do.
      (void)owner->conversation->decide(approval_id, answer);
    };
    requests_->request("session/request_permission",
                       {{"sessionId", session->id}, {"toolCall", tool_call}, {"options", options}},
                       std::move(decided));
  }

  Output out_;
  std::shared_ptr<Requests> requests_;
  ConversationOpener& opener_;
  ServerOptions options_;
  EditorCapabilities editor_;  // from initialize
  std::mutex sessions_mutex_;
  std::map<std::string, std::shared_ptr<Session>> sessions_;
};

// One line, at most `limit` bytes kept (the rest is read and dropped);
// false at the end of the input.
bool read_line(std::istream& in, std::string& line, bool& too_long) {
  line.clear();
  too_long = false;
  char c = 0;
  bool any = false;
  while (in.get(c)) {
    any = true;
    if (c == '\n') return true;
    if (line.size() < max_message_bytes) {
      line += c;
    } else {
      too_long = true;
    }
  }
  return any;
}

}  // namespace

void serve(std::istream& in, std::ostream& out, ConversationOpener& opener,
           const ServerOptions& options) {
  // A tied output (std::cin's is std::cout) would be flushed by every read,
  // on this thread and outside the writers' lock: two threads in one
  // stream's buffer duplicate and interleave lines.
  in.tie(nullptr);
  Bridge bridge(out, opener, options);
  std::string line;
  bool too_long = false;
  while (read_line(in, line, too_long)) {
    if (too_long) {
      bridge.too_large();
      continue;
    }
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    bridge.handle_line(line);
  }
}

}  // namespace ava::acp
