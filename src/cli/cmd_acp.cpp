// `ava acp`: the Agent Client Protocol agent on stdin/stdout (docs/acp.md).
// Each ACP session is a conversation opened as `ava chat` opens one: in
// the backend that owns the home when one runs (the editor is then one
// more client of it, next to the web UI and the desktop), else in this
// process (--in-process always).

#include <iostream>
#include <memory>
#include <string>

#include "ava/acp/server.hpp"
#include "ava/base/home.hpp"
#include "ava/base/version.hpp"
#include "ava/session/log_reader.hpp"
#include "cli/chat_backend.hpp"
#include "cli/commands.hpp"

namespace ava::cli {

namespace {

constexpr CommandName command_name{"acp"};

struct AcpFlags {
  std::string provider;
  std::string model;
  std::string permission_mode;
  bool in_process = false;
};

// A ChatBackend seen through the bridge's interface.
class ChatConversation final : public acp::Conversation {
 public:
  ChatConversation(std::unique_ptr<ChatBackend> chat, std::filesystem::path sessions)
      : chat_(std::move(chat)), info_(chat_->info()), sessions_(std::move(sessions)) {}

  std::string id() override { return info_.session_id; }
  std::filesystem::path cwd() override { return info_.cwd; }
  Result<std::vector<session::Event>> history() override {
    AVA_TRY(auto scan, session::read_log(sessions_ / (info_.session_id + ".jsonl.zst")));
    return std::move(scan.events);
  }
  Result<void> send(const std::string& text, std::vector<content::ImageBlock> images) override {
    return chat_->send(text, std::move(images));
  }
  Result<void> abort() override { return chat_->abort(); }
  Result<void> decide(const std::string& approval_id,
                      const agent::ApprovalAnswer& answer) override {
    return chat_->decide(approval_id, answer);
  }
  std::vector<session::ApprovalRequested> pending_approvals() override {
    return chat_->pending_approvals();
  }
  std::string permission_mode() override { return chat_->info().permission_mode; }
  Result<void> set_permission_mode(const std::string& mode) override {
    return chat_->set_permission_mode(mode);
  }
  std::optional<acp::ConversationItem> next(std::chrono::milliseconds timeout) override {
    auto item = chat_->next(timeout);
    if (!item) return std::nullopt;
    if (auto* event = std::get_if<session::Event>(&*item)) return std::move(*event);
    if (auto* live = std::get_if<agent::LiveEvent>(&*item)) return std::move(*live);
    return acp::TurnDone{};
  }

 private:
  std::unique_ptr<ChatBackend> chat_;
  ChatBackend::Info info_;
  std::filesystem::path sessions_;
};

class ChatOpener final : public acp::ConversationOpener {
 public:
  ChatOpener(AcpFlags flags, std::filesystem::path sessions)
      : flags_(std::move(flags)), sessions_(std::move(sessions)) {}

  Result<std::unique_ptr<acp::Conversation>> open(const acp::OpenRequest& request) override {
    PromptFlags flags;
    flags.cwd = request.cwd.string();
    flags.session = request.session_id;
    flags.provider = flags_.provider;
    flags.model = flags_.model;
    flags.permission_mode = flags_.permission_mode;
    auto chat = open_chat_backend(flags, flags_.in_process, request.mcp_servers);
    if (!chat) return std::unexpected(std::move(chat.error().error));
    return std::unique_ptr<acp::Conversation>(
        std::make_unique<ChatConversation>(std::move(*chat), sessions_));
  }

 private:
  AcpFlags flags_;
  std::filesystem::path sessions_;
};

Result<int> run_acp(const AcpFlags& flags) {
  AVA_TRY(auto home, base::Home::resolve());
  // stdout is the protocol's: nothing else may write there.
  std::ios::sync_with_stdio(false);
  ChatOpener opener(flags, home.sessions());
  acp::serve(std::cin, std::cout, opener,
             {.version = std::string(base::version()), .home = home.root()});
  return 0;
}

}  // namespace

void add_acp_commands(CLI::App& cli, CliContext& context) {
  auto flags = std::make_shared<AcpFlags>();
  auto* command = cli.add_subcommand(
      "acp", "Serve the Agent Client Protocol on stdin/stdout, for editors (Zed, JetBrains, ...)");
  command->add_option("--provider", flags->provider,
                      "Provider of new sessions (default: settings; a running backend's own)");
  command->add_option("--model", flags->model, "Model of new sessions (default: settings)");
  command->add_option("--permission-mode", flags->permission_mode,
                      "ask, accept-edits, plan or auto (default: settings, else ask)");
  command->add_flag("--in-process", flags->in_process,
                    "Run the sessions' agents in this process even when a backend runs");
  command->callback([&context, flags] { finish(context, command_name, run_acp(*flags)); });
}

}  // namespace ava::cli
