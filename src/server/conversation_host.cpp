#include "server/conversation_host.hpp"

#include <algorithm>

#include <spdlog/spdlog.h>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <nlohmann/json.hpp>

#include "ava/agent/prompt.hpp"
#include "ava/base/clock.hpp"
#include "ava/base/id.hpp"
#include "ava/base/version.hpp"
#include "ava/capabilities/capabilities_store.hpp"
#include "ava/capabilities/mcp_tool_source.hpp"
#include "ava/capabilities/skill_availability.hpp"
#include "ava/recording/recorder.hpp"
#include "ava/server/permissions.hpp"
#include "ava/server/providers.hpp"
#include "ava/session/codec.hpp"
#include "ava/transport/sse.hpp"
#include "server/subagent_logs.hpp"

namespace ava::server {
namespace {

namespace asio = boost::asio;

// Per-conversation backlog: what a subscriber may lag before it is cut.
constexpr std::size_t event_backlog_frames = 4096;
constexpr std::size_t status_backlog_bytes = std::size_t{1024} * 1024;
constexpr std::size_t status_backlog_frames = 8192;

}  // namespace

protocol::TokenTotals totals_of(const llm::Usage& usage) {
  return {.input = usage.input_tokens,
          .output = usage.output_tokens,
          .cache_read = usage.cache_read_tokens,
          .cache_write = usage.cache_write_tokens};
}

nlohmann::json live_message(const std::string& id, const agent::LiveEvent& event) {
  if (const auto* state = std::get_if<agent::StateChanged>(&event)) {
    return protocol::to_json(protocol::StateMessage{
        .conversation_id = id, .state = std::string(agent::to_string(state->state))});
  }
  if (const auto* tool = std::get_if<agent::ToolActivity>(&event)) {
    return protocol::to_json(protocol::ToolMessage{.conversation_id = id,
                                                   .turn_id = tool->turn_id,
                                                   .call_id = tool->call_id,
                                                   .tool_name = tool->tool_name,
                                                   .label = tool->label,
                                                   .finished = tool->finished});
  }
  const auto& progress = std::get<agent::StreamProgress>(event);
  const auto delta = [&](std::string type, const std::string& text) {
    return protocol::to_json(
        protocol::DeltaMessage{.type = std::move(type),
                               .conversation_id = id,
                               .turn_id = progress.turn_id,
                               .step = static_cast<std::int64_t>(progress.step),
                               .text = text});
  };
  if (const auto* text = std::get_if<llm::TextDelta>(&progress.event)) {
    return delta("delta", text->text);
  }
  if (const auto* thinking = std::get_if<llm::ThinkingDelta>(&progress.event)) {
    return delta("thinking", thinking->text);
  }
  return nullptr;  // tool-argument deltas and the like: not shown live
}

std::string event_frame(const session::Event& event) {
  std::string line = session::encode_line(event);
  if (!line.empty() && line.back() == '\n') line.pop_back();
  const std::string id = std::to_string(event.seq);
  auto frame =
      transport::encode_sse({.event = session::type_name(event.body), .data = line, .id = id},
                            std::max(base::Limits::defaults().sse_frame, line.size() + 256));
  return frame ? std::move(*frame) : std::string();
}

StatusFeed::StatusFeed(const boost::asio::any_io_executor& executor)
    : feed_(std::make_shared<httpd::EventFeed>(executor, status_backlog_bytes,
                                               status_backlog_frames, 0)) {}

void StatusFeed::publish(const nlohmann::json& message) {
  if (message.is_null()) return;
  const std::string data = message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::lock_guard lock(mutex_);
  const std::int64_t seq = ++next_seq_;
  const std::string id = std::to_string(seq);
  auto frame =
      transport::encode_sse({.event = message.value("type", "status"), .data = data, .id = id});
  if (frame) feed_->publish(seq, std::move(*frame));
}

ConversationHost::ConversationHost(Options options) : options_(std::move(options)) {}

ConversationHost::~ConversationHost() = default;

std::filesystem::path ConversationHost::log_path(const std::string& id) const {
  return options_.home.sessions() / (id + ".jsonl.zst");
}

Result<protocol::Conversation> ConversationHost::create(
    const protocol::CreateConversation& request, const std::optional<Unattended>& unattended) {
  auto project = options_.registry->project(request.project_id);
  if (!project) return fail(ErrorCode::not_found, "no project " + request.project_id);
  {
    std::lock_guard lock(mutex_);
    if (closing_) return fail(ErrorCode::unavailable, "the server is shutting down");
  }
  std::optional<policy::Mode> mode;
  if (!request.permission_mode.empty()) {
    AVA_TRY(mode, policy::parse_mode(request.permission_mode));
  }
  AVA_TRY(auto permissions,
          unattended ? load_conversation_permissions(options_.home, project->path,
                                                     unattended->flags, unattended->defaults)
                     : load_conversation_permissions(options_.home, project->path, {}, {}));
  AVA_TRY_VOID(options_.home.ensure_dir("sessions"));
  const std::string id = base::new_id();
  agent::AgentOptions agent_options;
  agent_options.provider_factory = options_.provider_factory;
  agent_options.model = {.provider = request.model.provider, .model = request.model.model};
  agent_options.cwd = project->path;
  agent_options.skill_roots = capabilities::skill_roots(options_.home, project->path);
  agent_options.home = options_.home.root();
  agent_options.disabled_skills = capabilities::disabled_skills_for(options_.home, project->path);
  agent_options.memory = true;
  agent_options.subagents = true;
  std::shared_ptr<capabilities::McpHub> own_mcp;
  if (!request.mcp_servers.empty()) {
    AVA_TRY(own_mcp, own_mcp_hub(request.mcp_servers, project->path));
  }
  // Closed again if the conversation does not come to be.
  struct CloseUnused {
    asio::any_io_executor executor;
    std::shared_ptr<capabilities::McpHub>* hub;
    ~CloseUnused() {
      if (!*hub) return;
      asio::co_spawn(
          executor, [unused = *hub]() -> asio::awaitable<void> { co_await unused->close(); },
          asio::detached);
    }
  } close_unused{options_.executor, &own_mcp};
  agent_options.tool_source =
      own_mcp
          ? capabilities::mcp_tool_source({options_.mcp, own_mcp}, project->path,
                                          [](const std::string& note) { spdlog::info("{}", note); })
          : tool_source_for(project->path);
  agent_options.limits = options_.limits;
  agent_options.permissions = std::move(permissions.options);
  // A recording (docs/eval.md) beside the session log, from the first
  // request on, for as long as this process keeps the conversation loaded.
  std::shared_ptr<recording::Recorder> recorder;
  std::filesystem::path recording_dir;
  if (request.record) {
    AVA_TRY_VOID(options_.home.ensure_dir("recordings"));
    recording_dir = options_.home.root() / "recordings" / id;
    AVA_TRY(recorder,
            recording::Recorder::create(recording_dir, {.ava_version = std::string(base::version()),
                                                        .cwd = project->path,
                                                        .created_ms = base::unix_ms_now()}));
    agent_options.provider_factory =
        recording_provider_factory(recorder, std::move(agent_options.provider_factory));
  }
  AVA_TRY(auto created,
          agent::Agent::create(options_.executor, log_path(id), std::move(agent_options)));
  if (recorder) {
    recorder->set_session_id(created->session_id());
    created->subscribe([recorder](const session::Event& event) { recorder->on_event(event); });
  }
  // Recorded in the log, so the conversation keeps it when it is reopened.
  if (mode) AVA_TRY_VOID(created->set_permission_mode(*mode));
  const auto status = created->status();
  const std::int64_t now = base::unix_ms_now();
  protocol::Conversation conversation{
      .id = id,
      .project_id = project->id,
      .title = request.title,
      .model = {.provider = status.provider, .model = status.model},
      .created_ms = now,
      .updated_ms = now,
      .last_seq = static_cast<std::int64_t>(status.last_seq),
      .automation_id = unattended ? unattended->automation_id : std::string(),
      .recording = recording_dir.string()};
  if (auto added = options_.registry->add_conversation(conversation); !added) {
    // No registry entry: the log stays on disk but the conversation is not listed.
    return std::unexpected(added.error());
  }
  AVA_TRY_VOID(attach(id, std::move(created), std::exchange(own_mcp, nullptr)));
  // Just attached, so loaded and idle.
  options_.status->publish(protocol::CatalogMessage{
      .action = "created",
      .conversation = protocol::ConversationView{.conversation = conversation, .loaded = true}});
  return conversation;
}

Result<std::shared_ptr<LiveConversation>> ConversationHost::open(const std::string& id) {
  if (auto live = find_loaded(id)) return live;
  if (!options_.registry->conversation(id))
    return fail(ErrorCode::not_found, "no conversation " + id);
  // Loading reads the log; one load at a time keeps two threads from opening
  // the same log twice.
  std::lock_guard load_lock(load_mutex_);
  if (auto live = find_loaded(id)) return live;
  {
    std::lock_guard lock(mutex_);
    if (closing_) return fail(ErrorCode::unavailable, "the server is shutting down");
    if (removing_.contains(id))
      return fail(ErrorCode::not_found, "conversation " + id + " is being deleted");
    if (reopening_.contains(id)) {
      return fail(ErrorCode::unavailable,
                  "conversation " + id +
                      " is reopening after its log refused a write; send again in a moment"
                      " (the same inputId keeps it exactly once)");
    }
  }
  agent::AgentOptions agent_options;
  agent_options.provider_factory = options_.provider_factory;
  agent_options.limits = options_.limits;
  if (auto conversation = options_.registry->conversation(id)) {
    if (auto project = options_.registry->project(conversation->project_id)) {
      agent_options.skill_roots = capabilities::skill_roots(options_.home, project->path);
      agent_options.home = options_.home.root();
      agent_options.disabled_skills =
          capabilities::disabled_skills_for(options_.home, project->path);
      agent_options.memory = true;
      agent_options.subagents = true;
      agent_options.tool_source = tool_source_for(project->path);
      auto permissions = load_conversation_permissions(options_.home, project->path, {}, {});
      if (!permissions) {
        return fail(permissions.error().code,
                    "cannot open conversation " + id + ": " + permissions.error().message);
      }
      agent_options.permissions = std::move(permissions->options);
    }
  }
  auto opened = agent::Agent::create_at(options_.executor, log_path(id), std::move(agent_options));
  if (!opened) {
    return fail(opened.error().code,
                "cannot open conversation " + id + ": " + opened.error().message);
  }
  return attach(id, std::move(*opened));
}

Result<std::shared_ptr<capabilities::McpHub>> ConversationHost::own_mcp_hub(
    const nlohmann::json& servers, const std::filesystem::path& project) {
  AVA_TRY(auto entries, capabilities::parse_mcp_servers(nlohmann::json{{"mcpServers", servers}},
                                                        "conversation", std::nullopt));
  std::error_code ec;
  if (std::filesystem::exists(capabilities::CapabilitiesStore::file_of(options_.home), ec)) {
    AVA_TRY(auto store, capabilities::CapabilitiesStore::open(options_.home));
    AVA_TRY(const auto configured, store.servers());
    for (const auto& entry : entries) {
      if (std::ranges::any_of(configured,
                              [&](const auto& known) { return known.name == entry.name; })) {
        return fail(ErrorCode::already_exists,
                    "an MCP server named " + entry.name +
                        " is configured already; give this conversation's server another name");
      }
    }
  }
  auto hub = capabilities::McpHub::create({.executor = options_.executor,
                                           .home = options_.home,
                                           .default_cwd = project,
                                           .configured = std::move(entries)});
  hub->warm();
  return hub;
}

Result<std::shared_ptr<LiveConversation>> ConversationHost::attach(
    const std::string& id, std::unique_ptr<agent::Agent> agent,
    std::shared_ptr<capabilities::McpHub> own_mcp) {
  auto live = std::make_shared<LiveConversation>();
  live->id = id;
  live->own_mcp = std::move(own_mcp);
  live->events = std::make_shared<httpd::EventFeed>(
      options_.executor, options_.limits.sse_subscriber_backlog, event_backlog_frames, 0);
  std::weak_ptr<LiveConversation> weak = live;
  auto feed = live->events;
  agent->subscribe([this, feed, weak, id](const session::Event& event) {
    feed->publish(static_cast<std::int64_t>(event.seq), event_frame(event));
    if (std::holds_alternative<session::TurnEnded>(event.body)) on_turn_end(weak);
    if (const auto* changed = std::get_if<session::ModelChanged>(&event.body)) {
      on_model_changed(id, *changed);
    }
  });
  // Everything up to here is in the log; the feed holds what comes after.
  feed->start_after(static_cast<std::int64_t>(agent->status().last_seq));
  StatusFeed* status = options_.status;
  agent->subscribe_live(
      [status, id](const agent::LiveEvent& event) { status->publish(live_message(id, event)); });
  live->agent = std::move(agent);
  std::lock_guard lock(mutex_);
  loaded_[id] = live;
  return live;
}

// The catalog shows the model the log says (a /model command changes it
// without the model route); not on the writing thread.
void ConversationHost::on_model_changed(const std::string& id,
                                        const session::ModelChanged& changed) {
  asio::post(options_.executor, [this, id, changed] {
    protocol::ConversationPatch patch;
    patch.model = protocol::ModelRef{.provider = changed.provider, .model = changed.model};
    (void)options_.registry->patch_conversation(id, patch);
  });
}

void ConversationHost::on_turn_end(const std::weak_ptr<LiveConversation>& weak) {
  // Not on the agent's writing thread: status() must not be called from a
  // durable-event callback.
  asio::post(options_.executor, [this, weak] {
    auto live = weak.lock();
    if (!live || !live->agent) return;
    const auto status = live->agent->status();
    const std::int64_t now = base::unix_ms_now();
    const auto usage = totals_of(status.usage);
    options_.registry->record_activity(live->id, static_cast<std::int64_t>(status.last_seq), usage,
                                       now);
    options_.status->publish(
        protocol::SummaryMessage{.conversation_id = live->id,
                                 .updated_ms = now,
                                 .last_seq = static_cast<std::int64_t>(status.last_seq),
                                 .usage = usage,
                                 .last_error = status.last_error});
  });
}

std::shared_ptr<tool::ToolSource> ConversationHost::tool_source_for(
    const std::filesystem::path& project) const {
  if (!options_.mcp) return nullptr;
  return capabilities::mcp_tool_source(options_.mcp, project,
                                       [](const std::string& note) { spdlog::info("{}", note); });
}

std::shared_ptr<LiveConversation> ConversationHost::find_loaded(const std::string& id) const {
  std::lock_guard lock(mutex_);
  auto it = loaded_.find(id);
  return it == loaded_.end() ? nullptr : it->second;
}

std::vector<std::shared_ptr<LiveConversation>> ConversationHost::loaded() const {
  std::lock_guard lock(mutex_);
  std::vector<std::shared_ptr<LiveConversation>> list;
  for (const auto& [id, live] : loaded_) list.push_back(live);
  return list;
}

asio::awaitable<void> ConversationHost::reopen_if_failed(const std::string& id) {
  auto live = find_loaded(id);
  if (!live) co_return;
  const auto status = live->agent->status();
  if (!status.log_failed) co_return;
  {
    std::lock_guard lock(mutex_);
    auto found = loaded_.find(id);
    // Another request is reopening it already.
    if (found == loaded_.end() || found->second != live) co_return;
    loaded_.erase(found);
    reopening_.insert(id);
  }
  spdlog::warn("conversation {}: its log refused a write ({}); reopening it", id,
               status.last_error);
  auto closed = co_await live->agent->close();
  if (!closed) spdlog::warn("conversation {}: close: {}", id, closed.error().message);
  // Subscribers reconnect (Last-Event-ID) to the reopened conversation.
  live->events->close();
  if (live->own_mcp) co_await live->own_mcp->close();
  std::lock_guard lock(mutex_);
  reopening_.erase(id);
}

asio::awaitable<Result<ConversationHost::Removal>> ConversationHost::remove(const std::string& id) {
  if (!options_.registry->conversation(id))
    co_return fail(ErrorCode::not_found, "no conversation " + id);
  std::shared_ptr<LiveConversation> live;
  {
    // Under the load lock: no load of it is half-way while it is marked.
    std::lock_guard load_lock(load_mutex_);
    std::lock_guard lock(mutex_);
    if (closing_) co_return fail(ErrorCode::unavailable, "the server is shutting down");
    if (reopening_.contains(id) || !removing_.insert(id).second) {
      co_return fail(ErrorCode::conflict,
                     "conversation " + id + " is busy being reopened or deleted");
    }
    if (auto found = loaded_.find(id); found != loaded_.end()) {
      live = found->second;
      loaded_.erase(found);
    }
  }
  if (live) {
    auto closed = co_await live->agent->close();
    if (!closed)
      spdlog::warn("conversation {}: close before delete: {}", id, closed.error().message);
    live->events->close();
    if (live->own_mcp) co_await live->own_mcp->close();
  }
  const auto log = log_path(id);
  auto family = subagent_logs(log);  // read before the log goes
  auto forgotten = options_.registry->remove_conversation(id);
  Removal removal;
  if (forgotten) {
    removal.conversation = std::move(*forgotten);
    family.insert(family.begin(), log);
    for (const auto& path : family) {
      std::error_code error;
      if (std::filesystem::remove(path, error)) {
        removal.deleted.push_back(path);
      } else if (error) {
        spdlog::warn("conversation {}: delete {}: {}", id, path.string(), error.message());
        removal.leftover.push_back(path);
      }
    }
  }
  {
    std::lock_guard lock(mutex_);
    removing_.erase(id);
  }
  if (!forgotten) co_return fail(forgotten.error().code, forgotten.error().message);
  co_return removal;
}

asio::awaitable<void> ConversationHost::close_all() {
  std::map<std::string, std::shared_ptr<LiveConversation>, std::less<>> closing;
  {
    std::lock_guard lock(mutex_);
    closing_ = true;
    closing.swap(loaded_);
  }
  // Start every close first so running tools stop in parallel, then wait.
  // (Closing, unlike an abort, leaves a call that waits for an approval
  // pending in the log: the next backend asks again.)
  for (auto& [id, live] : closing) live->agent->begin_close();
  for (auto& [id, live] : closing) {
    auto closed = co_await live->agent->close();
    if (!closed) spdlog::error("conversation {}: close failed: {}", id, closed.error().message);
    live->events->close();
    if (live->own_mcp) co_await live->own_mcp->close();
  }
}

}  // namespace ava::server
