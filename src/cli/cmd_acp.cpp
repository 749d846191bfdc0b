// `ava acp`: the Agent Client Protocol agent on stdin/stdout (docs/acp.md).
// Each ACP session is a conversation opened as `ava chat` opens one: in
// the backend that owns the home when one runs (the editor is then one
// more client of it, next to the web UI and the desktop), else in this
// process (--in-process always).

#include <iostream>
#include <memory>
#include <string>

#include "ava/acp/editor_tools.hpp"
#include "ava/acp/server.hpp"
#include "ava/base/home.hpp"
#include "ava/base/version.hpp"
#include "ava/llm/catalog.hpp"
#include "ava/llm/factory.hpp"
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

constexpr std::size_t max_model_options = 60;

// A provider the model menu offers: one with a key or a login, one the
// user defined, or the default one. The built-in local servers (ollama,
// llama.cpp, ...) and the mock are always "usable" but rarely running.
bool offered(const llm::ResolvedProvider& provider, const std::string& default_provider) {
  if (provider.name == default_provider || !provider.builtin) return true;
  return !provider.api_key.empty() || !provider.login_file.empty();
}

// The models an editor's model menu offers: for each provider that can be
// used, its default model, then the catalog's models of its kind.
std::vector<acp::ModelOption> model_options(const base::Home& home) {
  std::vector<acp::ModelOption> out;
  auto settings = llm::load_settings(home);
  if (!settings) return out;  // the session's own model is still offered
  auto add = [&out](const std::string& provider, const std::string& model, std::string note) {
    const auto value = provider + ":" + model;
    for (const auto& known : out) {
      if (known.value == value) return;
    }
    if (out.size() < max_model_options) {
      out.push_back({.value = value, .name = model + " (" + provider + ")", .description = note});
    }
  };
  const auto default_provider = llm::default_provider_name(*settings);
  for (const auto& name : llm::provider_names(*settings)) {
    auto resolved = llm::resolve_provider(*settings, name, false);
    if (!resolved || !offered(*resolved, default_provider)) continue;
    llm::ProviderChoice choice;
    choice.provider = name;
    if (auto model = llm::choose_model(*settings, choice, *resolved); !model.empty()) {
      add(name, model, "The provider's default");
    }
    for (const auto& model : llm::model_catalog()) {
      if (model.provider_kind == llm::to_string(resolved->kind)) add(name, model.id, {});
    }
  }
  return out;
}

// A ChatBackend seen through the bridge's interface.
class ChatConversation final : public acp::Conversation {
 public:
  ChatConversation(std::unique_ptr<ChatBackend> chat, std::filesystem::path sessions,
                   std::vector<acp::ModelOption> models)
      : chat_(std::move(chat)),
        info_(chat_->info()),
        sessions_(std::move(sessions)),
        models_(std::move(models)) {}

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
  std::string model() override { return info_.provider + ":" + info_.model; }
  std::vector<acp::ModelOption> models() override { return models_; }
  Result<void> set_model(const std::string& value) override {
    // "provider:model"; a model name alone keeps the provider.
    const auto colon = value.find(':');
    agent::ModelChoice choice;
    if (colon == std::string::npos) {
      choice.model = value;
    } else {
      choice.provider = value.substr(0, colon);
      choice.model = value.substr(colon + 1);
    }
    if (choice.model.empty()) {
      return fail(ErrorCode::invalid_argument, "a model is \"provider:model\"");
    }
    return chat_->set_model(choice);
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
  std::vector<acp::ModelOption> models_;
};

class ChatOpener final : public acp::ConversationOpener {
 public:
  ChatOpener(AcpFlags flags, base::Home home) : flags_(std::move(flags)), home_(std::move(home)) {}

  Result<std::unique_ptr<acp::Conversation>> open(const acp::OpenRequest& request) override {
    PromptFlags flags;
    flags.cwd = request.cwd.string();
    flags.session = request.session_id;
    flags.provider = flags_.provider;
    flags.model = flags_.model;
    flags.permission_mode = flags_.permission_mode;
    // The editor's files and terminal, for an agent in this process.
    AgentCustomizer customize;
    if (request.editor) {
      customize = [editor = request.editor](agent::AgentOptions& options, bool) -> Result<void> {
        std::error_code error;
        auto self = std::filesystem::read_symlink("/proc/self/exe", error);
        options.tools = acp::editor_tools(editor, {.ava_executable = error ? "" : self});
        return {};
      };
    }
    auto chat = open_chat_backend(flags, flags_.in_process, request.mcp_servers, customize);
    if (!chat) return std::unexpected(std::move(chat.error().error));
    return std::unique_ptr<acp::Conversation>(std::make_unique<ChatConversation>(
        std::move(*chat), home_.sessions(), model_options(home_)));
  }

 private:
  AcpFlags flags_;
  base::Home home_;
};

Result<int> run_acp(const AcpFlags& flags) {
  AVA_TRY(auto home, base::Home::resolve());
  // stdout is the protocol's: nothing else may write there.
  std::ios::sync_with_stdio(false);
  ChatOpener opener(flags, home);
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
