#include "ava/capabilities/stored_credentials.hpp"

#include <nlohmann/json.hpp>

namespace ava::capabilities {

using oauth::OAuthCredentials;

Result<CapabilitiesStore*> StoredCredentials::store() {
  if (!store_) {
    AVA_TRY(auto opened, CapabilitiesStore::open(home_));
    store_.emplace(std::move(opened));
  }
  return &*store_;
}

Result<CapabilitiesStore::OAuthRow> StoredCredentials::row(std::string_view server) {
  std::lock_guard lock(mutex_);
  AVA_TRY(auto* opened, store());
  return opened->oauth_row(std::string(server));
}

Result<std::optional<OAuthCredentials>> StoredCredentials::load(std::string_view server) {
  AVA_TRY(const auto found, row(server));
  if (found.data.empty()) return std::optional<OAuthCredentials>();
  const auto document = nlohmann::json::parse(found.data, nullptr, false);
  if (document.is_discarded()) {
    return fail(ErrorCode::corrupt, "capabilities store: the stored credentials of MCP server " +
                                        std::string(server) + " are not JSON");
  }
  AVA_TRY(auto credentials, OAuthCredentials::from_json(document));
  return std::optional<OAuthCredentials>(std::move(credentials));
}

Result<std::uint64_t> StoredCredentials::generation(std::string_view server) {
  AVA_TRY(const auto found, row(server));
  return found.generation;
}

Result<std::uint64_t> StoredCredentials::revision(std::string_view server) {
  AVA_TRY(const auto found, row(server));
  return found.revision;
}

Result<void> StoredCredentials::save(std::string_view server, const OAuthCredentials& credentials,
                                     std::uint64_t generation) {
  std::lock_guard lock(mutex_);
  AVA_TRY(auto* opened, store());
  return opened->save_oauth(std::string(server), credentials.to_json().dump(), generation);
}

Result<void> StoredCredentials::erase(std::string_view server) {
  std::lock_guard lock(mutex_);
  AVA_TRY(auto* opened, store());
  return opened->erase_oauth(std::string(server));
}

Result<bool> StoredCredentials::signed_in(std::string_view server) {
  AVA_TRY(const auto found, row(server));
  return !found.data.empty();
}

}  // namespace ava::capabilities
