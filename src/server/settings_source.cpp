#include "ava/server/settings_source.hpp"

#include "ava/proc/environment.hpp"

#include <utility>

namespace ava::server {

SettingsSource::SettingsSource(base::Home home, llm::Settings initial)
    : home_(std::move(home)),
      env_(initial.env),
      current_(std::make_shared<const llm::Settings>(std::move(initial))) {
  // Children (bash, MCP servers) keep the secret-looking variables the
  // user named in settings.json "childEnvironment".
  proc::set_kept_variables(current_->child_environment_keep);
}

std::shared_ptr<const llm::Settings> SettingsSource::current() const {
  std::scoped_lock lock(snapshot_mutex_);
  return current_;
}

Result<void> SettingsSource::reload() {
  AVA_TRY(auto loaded, llm::load_settings(home_, env_));
  auto next = std::make_shared<const llm::Settings>(std::move(loaded));
  proc::set_kept_variables(next->child_environment_keep);
  std::scoped_lock lock(snapshot_mutex_);
  current_ = std::move(next);
  return {};
}

Result<void> SettingsSource::save_provider(std::string_view name, const llm::ProviderUpdate& update,
                                           const std::optional<base::Secret>& key) {
  std::scoped_lock lock(write_mutex_);
  if (update.kind || update.base_url || update.model)
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
