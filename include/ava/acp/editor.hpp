#pragma once

#include <chrono>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>

#include "ava/base/error.hpp"

// Requests from the agent to the editor: ACP's client methods (fs/...,
// terminal/...), which an editor offers in initialize's clientCapabilities.
namespace ava::acp {

// What the editor said it can do.
struct EditorCapabilities {
  bool read_text_file = false;
  bool write_text_file = false;
  bool terminal = false;
  bool any() const { return read_text_file || write_text_file || terminal; }
};
// From initialize's params; anything malformed counts as not offered.
EditorCapabilities parse_editor_capabilities(const nlohmann::json& initialize_params);

// The bridge's end: sends a JSON-RPC request to the editor and calls
// `answered` once with its result, its error (unavailable, with the
// editor's message) or, when the bridge closes first, cancelled.
class EditorChannel {
 public:
  using Answered = std::function<void(Result<nlohmann::json>)>;
  virtual ~EditorChannel() = default;
  virtual void request(const std::string& method, nlohmann::json params, Answered answered) = 0;
  virtual void notify(const std::string& method, nlohmann::json params) = 0;
};

// One session's link to the editor, shared by the bridge and the tools
// that use it (any thread).
class EditorLink {
 public:
  EditorLink(std::shared_ptr<EditorChannel> channel, EditorCapabilities capabilities)
      : channel_(std::move(channel)), capabilities_(capabilities) {}

  const EditorCapabilities& capabilities() const { return capabilities_; }
  // The ACP session the requests name; set once the conversation is open
  // (no tool runs before that).
  void set_session_id(std::string session_id);
  std::string session_id() const;

  // Sends `method` with `params` (and the session id) and waits, on the
  // caller's executor, for the answer: timeout after `timeout`, cancelled
  // when the caller's cancellation fires (the answer is then dropped).
  boost::asio::awaitable<Result<nlohmann::json>> call(std::string method, nlohmann::json params,
                                                      std::chrono::milliseconds timeout);
  // Sends a request nobody waits for (terminal/release).
  void send(const std::string& method, nlohmann::json params);

  // Runs `action` once the editor has been told about tool call `call_id`
  // (the bridge reports calls from the conversation's events, which may
  // come later than a running tool's own updates): at once if it was,
  // else in order when announced() names it.
  void after_announced(const std::string& call_id, std::function<void()> action);
  // A session/update about this session, sent now.
  void update(nlohmann::json update);
  // The bridge reported tool call `call_id`.
  void announced(const std::string& call_id);

 private:
  std::shared_ptr<EditorChannel> channel_;
  EditorCapabilities capabilities_;
  mutable std::mutex mutex_;
  std::string session_id_;
  std::deque<std::string> announced_;  // the latest ids, bounded
  std::map<std::string, std::vector<std::function<void()>>> waiting_;
};

}  // namespace ava::acp
