#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "ava/base/error.hpp"
#include "ava/protocol/wire.hpp"

namespace ava::registry {

// web.json: registered projects and each conversation's navigation metadata
// (title, model, pins, archives, review marker, activity, usage). Listing
// reads only this, never the logs, so it stays fast however long the
// histories are. Structural changes are written at once (atomically, 0600);
// activity updates are batched and written by flush(). Thread-safe.
class Registry {
 public:
  static Result<std::unique_ptr<Registry>> load(std::filesystem::path file);

  std::vector<protocol::Project> projects() const;
  std::optional<protocol::Project> project(const std::string& id) const;
  // Registers a folder (canonicalised; it must exist). Registering the same
  // folder again returns the existing project.
  Result<protocol::Project> add_project(const std::filesystem::path& folder, std::string name);
  // conflict while conversations that are not archived belong to it.
  Result<void> remove_project(const std::string& id);

  struct Filter {
    std::optional<std::string> project_id;
    std::optional<bool> archived;
    std::size_t limit = SIZE_MAX;  // the first `limit` in list order
  };
  // Pinned first, then the most recently active.
  std::vector<protocol::Conversation> conversations(const Filter& filter) const;
  std::optional<protocol::Conversation> conversation(const std::string& id) const;
  std::size_t conversation_count() const;
  Result<void> add_conversation(protocol::Conversation conversation);
  // Forgets a conversation (written at once); not_found when unknown. The
  // log is the caller's to remove, after this succeeded.
  Result<protocol::Conversation> remove_conversation(const std::string& id);
  Result<protocol::Conversation> patch_conversation(const std::string& id,
                                                    const protocol::ConversationPatch& patch);
  // Activity (last seq, usage, time): kept in memory until flush().
  void record_activity(const std::string& id, std::int64_t last_seq,
                       const protocol::TokenTotals& usage, std::int64_t now_ms);

  // Input arrived: the conversation moves up the list (batched like activity).
  void touch(const std::string& id, std::int64_t now_ms);

  // Writes pending activity updates, if any.
  Result<void> flush();

 private:
  explicit Registry(std::filesystem::path file) : file_(std::move(file)) {}
  Result<void> save_locked();

  std::filesystem::path file_;
  mutable std::mutex mutex_;
  std::vector<protocol::Project> projects_;
  std::map<std::string, protocol::Conversation, std::less<>> conversations_;
  bool dirty_ = false;
};

}  // namespace ava::registry
