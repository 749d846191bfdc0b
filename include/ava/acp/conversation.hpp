#pragma once

#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "ava/acp/editor.hpp"
#include "ava/agent/agent.hpp"
#include "ava/base/error.hpp"
#include "ava/session/event.hpp"

// One Ava conversation as the ACP bridge drives it, wherever its agent
// runs: in this process, or in the backend that owns the home (the entry
// point decides, as `ava chat` does). What the conversation reports is
// queued; the bridge takes it with next().
namespace ava::acp {

// A model the user may switch a session to: `value` is "provider:model".
struct ModelOption {
  std::string value;
  std::string name;
  std::string description;
};

// What input started is over (its turn ended, or a command was answered).
struct TurnDone {};
using ConversationItem = std::variant<session::Event, agent::LiveEvent, TurnDone>;

class Conversation {
 public:
  virtual ~Conversation() = default;

  virtual std::string id() = 0;
  virtual std::filesystem::path cwd() = 0;
  // The durable log so far (session/load replays it).
  virtual Result<std::vector<session::Event>> history() = 0;
  // Sends input; a TurnDone is queued once what it started is over.
  virtual Result<void> send(const std::string& text, std::vector<content::ImageBlock> images) = 0;
  virtual Result<void> abort() = 0;
  virtual Result<void> decide(const std::string& approval_id,
                              const agent::ApprovalAnswer& answer) = 0;
  // Calls waiting for a person now, in request order.
  virtual std::vector<session::ApprovalRequested> pending_approvals() = 0;
  // The permission mode calls are checked in (ask, accept-edits, plan,
  // auto): ACP's session modes.
  virtual std::string permission_mode() = 0;
  virtual Result<void> set_permission_mode(const std::string& mode) = 0;
  // The model answering now, as "provider:model", and the ones offered
  // (ACP's model config option).
  virtual std::string model() = 0;
  virtual std::vector<ModelOption> models() = 0;
  // Switches from the next step on ("provider:model"); a model_changed
  // event records it.
  virtual Result<void> set_model(const std::string& value) = 0;
  // The next item, or nullopt after `timeout`.
  virtual std::optional<ConversationItem> next(std::chrono::milliseconds timeout) = 0;
};

struct OpenRequest {
  std::filesystem::path cwd;  // absolute, from the client
  std::string session_id;     // empty: a new conversation
  // The client's MCP servers for this session, as an mcpServers object
  // (mcp_servers.hpp); empty when it gave none.
  nlohmann::json mcp_servers = nlohmann::json::object();
  // The editor's file system and terminal, when it offers them: the
  // conversation's read, write, edit and bash go through it where its
  // agent runs in this process (editor_tools.hpp). Null: it offers none.
  std::shared_ptr<EditorLink> editor;
};

// Opens conversations for the bridge; an error is answered to the client.
class ConversationOpener {
 public:
  virtual ~ConversationOpener() = default;
  virtual Result<std::unique_ptr<Conversation>> open(const OpenRequest& request) = 0;
};

}  // namespace ava::acp
