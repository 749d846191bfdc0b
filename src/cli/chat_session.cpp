// The agent behind `ava chat`, on its own thread (chat_session.hpp).

#include "cli/chat_session.hpp"

#include <future>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>

#include "ava/policy/policy.hpp"
#include "cli/signals_blocked.hpp"

namespace ava::cli {
namespace {

namespace asio = boost::asio;

}  // namespace

std::expected<std::unique_ptr<ChatBackend>, SetupFailure> ChatSession::open(
    const PromptFlags& flags, std::vector<capabilities::McpServerEntry> session_mcp_servers,
    AgentCustomizer customize) {
  SignalsBlocked blocked;
  auto local = make_local_agent(
      flags, {.permission_defaults = {.sandbox = proc::SandboxMode::workspace_write,
                                      .auto_inside_sandbox = false,
                                      .can_ask = true},
              .customize = customize,
              .session_mcp_servers = session_mcp_servers});
  if (!local) return std::unexpected(std::move(local.error()));
  return std::unique_ptr<ChatBackend>(new ChatSession(
      std::move(*local), flags, std::move(session_mcp_servers), std::move(customize)));
}

ChatSession::ChatSession(std::unique_ptr<LocalAgent> local, PromptFlags flags,
                         std::vector<capabilities::McpServerEntry> session_mcp_servers,
                         AgentCustomizer customize)
    : local_(std::move(local)),
      flags_(std::move(flags)),
      session_mcp_servers_(std::move(session_mcp_servers)),
      customize_(std::move(customize)) {
  local_->agent->subscribe([this](const session::Event& event) { push(event); });
  local_->agent->subscribe_live([this](const agent::LiveEvent& event) {
    // Only what is shown: state changes are read from the events.
    if (!std::holds_alternative<agent::StateChanged>(event)) push(event);
  });
  work_.emplace(local_->io.get_executor());
  thread_ = std::thread([this] { local_->io.run(); });
}

ChatSession::~ChatSession() {
  std::promise<void> closed;
  asio::co_spawn(
      local_->io,
      [this]() -> asio::awaitable<void> {
        (void)co_await local_->agent->close();
        co_await local_->hub->close();
      },
      [&closed](const std::exception_ptr&) { closed.set_value(); });
  closed.get_future().wait();
  work_.reset();
  local_->io.stop();
  thread_.join();
  local_.reset();
}

Result<void> ChatSession::send(const std::string& text, std::vector<content::ImageBlock> images) {
  AVA_TRY(auto receipt, local_->agent->followup(text, std::move(images)));
  (void)receipt;
  (void)local_->agent->resume();  // a paused conversation given input runs
  watch_turn({});
  return {};
}

// In this process the agent itself says when it is idle again.
void ChatSession::watch_turn(const std::string& /*turn_id*/) {
  asio::co_spawn(
      local_->io,
      [this]() -> asio::awaitable<void> {
        co_await local_->agent->wait_idle();
        push(TurnDone{});
      },
      asio::detached);
}

Result<void> ChatSession::abort() { return local_->agent->abort(); }

Result<void> ChatSession::decide(const std::string& approval_id,
                                 const agent::ApprovalAnswer& answer) {
  return local_->agent->decide(approval_id, answer);
}

Result<void> ChatSession::set_permission_mode(const std::string& mode) {
  AVA_TRY(const auto parsed, policy::parse_mode(mode));
  return local_->agent->set_permission_mode(parsed);
}

Result<void> ChatSession::set_model(const agent::ModelChoice& choice) {
  return local_->agent->set_model(choice);
}

ChatBackend::Info ChatSession::info() {
  const auto status = local_->agent->status();
  return {.session_id = status.session_id,
          .provider = status.provider,
          .model = status.model,
          .permission_mode = status.permission_mode,
          .cwd = local_->cwd,
          .existing = local_->existing,
          .host = {}};
}

std::vector<session::ApprovalRequested> ChatSession::pending_approvals() {
  return local_->agent->status().approvals;
}

// The last user text and the last answer in the model's context.
ChatBackend::Recap ChatSession::recap() {
  Recap recap;
  for (const auto& message : local_->agent->next_request().messages) {
    std::string text;
    for (const auto& block : message.content) {
      if (const auto* part = std::get_if<content::TextBlock>(&block)) text += part->text;
    }
    if (text.empty()) continue;
    if (message.role == content::Role::user) recap.input = std::move(text);
    if (message.role == content::Role::assistant) recap.answer = std::move(text);
  }
  return recap;
}

std::expected<std::unique_ptr<ChatBackend>, SetupFailure> ChatSession::start_new() {
  PromptFlags fresh = flags_;
  fresh.session.clear();
  fresh.continue_latest = false;
  return open(fresh, session_mcp_servers_, customize_);
}

}  // namespace ava::cli
