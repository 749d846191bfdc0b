#include "ava/registry/registry.hpp"

#include "registry/registry_reader.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "ava/base/clock.hpp"
#include "ava/base/id.hpp"
#include "ava/base/private_file.hpp"

namespace ava::registry {
namespace {

constexpr std::size_t registry_file_limit = std::size_t{256} * 1024 * 1024;

}  // namespace

Result<std::unique_ptr<Registry>> Registry::load(std::filesystem::path file) {
  std::unique_ptr<Registry> registry(new Registry(std::move(file)));
  auto contents = read_registry(registry->file_, registry_file_limit);
  if (!contents) {
    if (contents.error().code == ErrorCode::not_found) return registry;
    return std::unexpected(contents.error());
  }
  registry->projects_ = std::move(contents->projects);
  registry->conversations_ = std::move(contents->conversations);
  return registry;
}

std::vector<protocol::Project> Registry::projects() const {
  std::lock_guard lock(mutex_);
  return projects_;
}

std::optional<protocol::Project> Registry::project(const std::string& id) const {
  std::lock_guard lock(mutex_);
  for (const auto& project : projects_) {
    if (project.id == id) return project;
  }
  return std::nullopt;
}

Result<protocol::Project> Registry::add_project(const std::filesystem::path& folder,
                                                std::string name) {
  std::error_code ec;
  if (!folder.is_absolute())
    return fail(ErrorCode::invalid_argument, "a project path must be absolute");
  const auto canonical = std::filesystem::canonical(folder, ec);
  if (ec || !std::filesystem::is_directory(canonical, ec)) {
    return fail(ErrorCode::not_found, "no such folder: " + folder.string());
  }
  std::lock_guard lock(mutex_);
  for (const auto& project : projects_) {
    if (project.path == canonical.string()) return project;
  }
  protocol::Project project{.id = base::new_id(),
                            .path = canonical.string(),
                            .name = name.empty() ? canonical.filename().string() : std::move(name),
                            .created_ms = base::unix_ms_now()};
  projects_.push_back(project);
  if (auto saved = save_locked(); !saved) {
    projects_.pop_back();
    return std::unexpected(saved.error());
  }
  return project;
}

Result<void> Registry::remove_project(const std::string& id) {
  std::lock_guard lock(mutex_);
  auto it =
      std::find_if(projects_.begin(), projects_.end(), [&](const auto& p) { return p.id == id; });
  if (it == projects_.end()) return fail(ErrorCode::not_found, "no project " + id);
  for (const auto& [conversation_id, conversation] : conversations_) {
    if (conversation.project_id == id && !conversation.archived) {
      return fail(ErrorCode::conflict, "the project still has conversations; archive them first");
    }
  }
  const protocol::Project removed = *it;
  projects_.erase(it);
  if (auto saved = save_locked(); !saved) {
    projects_.push_back(removed);
    return saved;
  }
  return {};
}

std::vector<protocol::Conversation> Registry::conversations(const Filter& filter) const {
  std::lock_guard lock(mutex_);
  // Order pointers, copy only what is returned.
  std::vector<const protocol::Conversation*> matches;
  matches.reserve(conversations_.size());
  for (const auto& [id, conversation] : conversations_) {
    if (filter.project_id && conversation.project_id != *filter.project_id) continue;
    if (filter.archived && conversation.archived != *filter.archived) continue;
    matches.push_back(&conversation);
  }
  const auto first = [](const protocol::Conversation* a, const protocol::Conversation* b) {
    if (a->pinned != b->pinned) return a->pinned;
    if (a->updated_ms != b->updated_ms) return a->updated_ms > b->updated_ms;
    return a->id > b->id;
  };
  const std::size_t count = std::min(filter.limit, matches.size());
  std::partial_sort(matches.begin(), matches.begin() + static_cast<std::ptrdiff_t>(count),
                    matches.end(), first);
  std::vector<protocol::Conversation> list;
  list.reserve(count);
  for (std::size_t i = 0; i < count; ++i) list.push_back(*matches[i]);
  return list;
}

std::optional<protocol::Conversation> Registry::conversation(const std::string& id) const {
  std::lock_guard lock(mutex_);
  auto it = conversations_.find(id);
  if (it == conversations_.end()) return std::nullopt;
  return it->second;
}

std::size_t Registry::conversation_count() const {
  std::lock_guard lock(mutex_);
  return conversations_.size();
}

Result<void> Registry::add_conversation(protocol::Conversation conversation) {
  std::lock_guard lock(mutex_);
  const std::string id = conversation.id;
  auto [it, inserted] = conversations_.emplace(id, std::move(conversation));
  if (!inserted) return fail(ErrorCode::already_exists, "conversation " + id + " exists");
  if (auto saved = save_locked(); !saved) {
    conversations_.erase(it);
    return saved;
  }
  return {};
}

Result<protocol::Conversation> Registry::remove_conversation(const std::string& id) {
  std::lock_guard lock(mutex_);
  auto it = conversations_.find(id);
  if (it == conversations_.end()) return fail(ErrorCode::not_found, "no conversation " + id);
  protocol::Conversation removed = std::move(it->second);
  conversations_.erase(it);
  if (auto saved = save_locked(); !saved) {
    conversations_.emplace(id, removed);
    return fail(saved.error().code, saved.error().message);
  }
  return removed;
}

Result<protocol::Conversation> Registry::patch_conversation(
    const std::string& id, const protocol::ConversationPatch& patch) {
  std::lock_guard lock(mutex_);
  auto it = conversations_.find(id);
  if (it == conversations_.end()) return fail(ErrorCode::not_found, "no conversation " + id);
  const protocol::Conversation before = it->second;
  auto& conversation = it->second;
  if (patch.title) conversation.title = *patch.title;
  if (patch.pinned) conversation.pinned = *patch.pinned;
  if (patch.archived) conversation.archived = *patch.archived;
  // The marker only moves forward: two windows cannot take it back.
  if (patch.reviewed_seq)
    conversation.reviewed_seq = std::max(conversation.reviewed_seq, *patch.reviewed_seq);
  if (patch.model) conversation.model = *patch.model;
  if (auto saved = save_locked(); !saved) {
    conversation = before;
    return std::unexpected(saved.error());
  }
  return conversation;
}

void Registry::record_activity(const std::string& id, std::int64_t last_seq,
                               const protocol::TokenTotals& usage, std::int64_t now_ms) {
  std::lock_guard lock(mutex_);
  auto it = conversations_.find(id);
  if (it == conversations_.end()) return;
  it->second.last_seq = std::max(it->second.last_seq, last_seq);
  it->second.usage = usage;
  it->second.updated_ms = now_ms;
  dirty_ = true;
}

void Registry::touch(const std::string& id, std::int64_t now_ms) {
  std::lock_guard lock(mutex_);
  auto it = conversations_.find(id);
  if (it == conversations_.end()) return;
  it->second.updated_ms = now_ms;
  dirty_ = true;
}

Result<void> Registry::flush() {
  std::lock_guard lock(mutex_);
  if (!dirty_) return {};
  return save_locked();
}

Result<void> Registry::save_locked() {
  nlohmann::json projects = nlohmann::json::array();
  for (const auto& project : projects_) projects.push_back(protocol::to_json(project));
  nlohmann::json conversations = nlohmann::json::array();
  for (const auto& [id, conversation] : conversations_)
    conversations.push_back(protocol::to_json(conversation));
  const nlohmann::json document{{"version", 1},
                                {"projects", std::move(projects)},
                                {"conversations", std::move(conversations)}};
  AVA_TRY_VOID(base::write_private_file(
      file_, document.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n"));
  dirty_ = false;
  return {};
}

}  // namespace ava::registry
