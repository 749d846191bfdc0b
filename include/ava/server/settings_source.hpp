#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string_view>
#include <vector>

#include "ava/base/error.hpp"
#include "ava/base/home.hpp"
#include "ava/base/log.hpp"
#include "ava/llm/model_list.hpp"
#include "ava/llm/settings.hpp"

namespace ava::server {

// The server's settings: an immutable snapshot that readers take and keep
// for as long as they need it, replaced as a whole when the settings page
// changes a provider. New conversations (and new turns choosing a provider)
// see the change without a restart; a request already under way keeps the
// snapshot it started with.
class SettingsSource {
 public:
  SettingsSource(base::Home home, llm::Settings initial);

  // With nothing configured and a local model server found, the snapshot
  // uses that server (llm::using_local_server).
  std::shared_ptr<const llm::Settings> current() const;

  // Whether no provider is configured (settings.json, auth.json and the
  // environment name none): the UIs then show their first-run panel, with
  // a detected local server as a choice.
  bool needs_setup() const;

  // What the last look for local model servers found (llm::query_local_servers);
  // true when that changes a server found or its models (and so, maybe,
  // what current() gives).
  bool set_detected(std::vector<llm::ProviderModels> answers);
  std::vector<llm::ProviderModels> detected() const;

  // Writes the provider's settings.json entry (when `update` changes a
  // field) and its key in auth.json (when given), then reloads both files.
  // A failing step changes nothing of its own; what an earlier step wrote
  // stays written and is in the snapshot.
  Result<void> save_provider(std::string_view name, const llm::ProviderUpdate& update,
                             const std::optional<base::Secret>& key);
  // Forgets the provider's saved key (auth.json) and reloads.
  Result<void> remove_key(std::string_view name);

 private:
  Result<void> reload();
  // Under snapshot_mutex_: current_ from loaded_ and detected_.
  void rebuild_locked();

  base::Home home_;
  base::EnvLookup env_;
  std::mutex write_mutex_;  // one settings change at a time
  mutable std::mutex snapshot_mutex_;
  std::shared_ptr<const llm::Settings> loaded_;  // the files and the environment
  std::vector<llm::ProviderModels> detected_;
  std::shared_ptr<const llm::Settings> current_;  // loaded_, or it using a detected server
};

}  // namespace ava::server
