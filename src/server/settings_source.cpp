#include "ava/server/settings_source.hpp"

#include "ava/proc/environment.hpp"

#include <utility>

namespace ava::server {

SettingsSource::SettingsSource(base::Home home, llm::Settings initial)
    : home_(std::move(home)),
      env_(initial.env),
      loaded_(std::make_shared<const llm::Settings>(std::move(initial))),
      current_(loaded_) {
  // Children (bash, MCP servers) keep the secret-looking variables the
  // user named in settings.json "childEnvironment".
  proc::set_kept_variables(loaded_->child_environment_keep);
}

std::shared_ptr<const llm::Settings> SettingsSource::current() const {
  std::scoped_lock lock(snapshot_mutex_);
  return current_;
}

bool SettingsSource::needs_setup() const {
  std::scoped_lock lock(snapshot_mutex_);
  return llm::default_provider_name(*loaded_).empty();
}

bool SettingsSource::set_detected(std::vector<llm::ProviderModels> answers) {
  std::scoped_lock lock(snapshot_mutex_);
  // What the panels show: every server that answered, with its models.
  auto shown = [](const std::vector<llm::ProviderModels>& list) {
    std::vector<std::pair<std::string, std::vector<std::string>>> out;
    for (const auto& answer : list)
      if (answer.reachable) out.emplace_back(answer.source.base_url, answer.models);
    return out;
  };
  const bool changed = shown(detected_) != shown(answers);
  detected_ = std::move(answers);
  if (changed) rebuild_locked();
  return changed;
}

std::vector<llm::ProviderModels> SettingsSource::detected() const {
  std::scoped_lock lock(snapshot_mutex_);
  return detected_;
}

void SettingsSource::rebuild_locked() {
  const auto* found = llm::first_serving(detected_);
  if (found == nullptr || !llm::default_provider_name(*loaded_).empty()) {
    current_ = loaded_;
    return;
  }
  current_ = std::make_shared<const llm::Settings>(llm::using_local_server(*loaded_, *found));
}

Result<void> SettingsSource::reload() {
  AVA_TRY(auto loaded, llm::load_settings(home_, env_));
  auto next = std::make_shared<const llm::Settings>(std::move(loaded));
  proc::set_kept_variables(next->child_environment_keep);
  std::scoped_lock lock(snapshot_mutex_);
  loaded_ = std::move(next);
  rebuild_locked();
  return {};
}

Result<void> SettingsSource::save_provider(std::string_view name, const llm::ProviderUpdate& update,
                                           const std::optional<base::Secret>& key) {
  std::scoped_lock lock(write_mutex_);
  if (update.kind || update.base_url || update.model || update.make_default)
    AVA_TRY_VOID(llm::save_provider(home_, name, update));
  if (key) {
    auto saved = llm::save_api_key(home_, name, *key);
    if (!saved) {
      (void)reload();  // the settings.json part may have landed: show it
      return saved;
    }
  }
  return reload();
}

Result<void> SettingsSource::remove_key(std::string_view name) {
  std::scoped_lock lock(write_mutex_);
  AVA_TRY_VOID(llm::remove_api_key(home_, name));
  return reload();
}

}  // namespace ava::server
