#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string_view>

#include "ava/base/home.hpp"
#include "ava/capabilities/capabilities_store.hpp"
#include "ava/oauth/oauth.hpp"

namespace ava::capabilities {

// The OAuth credentials of configured HTTP servers, in the
// oauth_credentials table of AVA_HOME/capabilities.sqlite3 (0600). Shared
// by every process on the home: the generation fence holds across them (a
// `ava mcp logout` stops the backend's refresh in flight), and the
// revision lets the backend see a sign-in made by `ava mcp login`. Never
// logged. Thread-safe: one connection behind a mutex, opened on first use.
class StoredCredentials final : public oauth::CredentialStore {
 public:
  explicit StoredCredentials(base::Home home) : home_(std::move(home)) {}

  Result<std::optional<oauth::OAuthCredentials>> load(std::string_view server) override;
  Result<std::uint64_t> generation(std::string_view server) override;
  Result<void> save(std::string_view server, const oauth::OAuthCredentials& credentials,
                    std::uint64_t generation) override;
  Result<void> erase(std::string_view server) override;
  Result<std::uint64_t> revision(std::string_view server) override;

  // Whether `server` holds credentials (for listings; nothing secret).
  Result<bool> signed_in(std::string_view server);

 private:
  Result<CapabilitiesStore*> store();  // mutex_ held
  Result<CapabilitiesStore::OAuthRow> row(std::string_view server);

  base::Home home_;
  std::mutex mutex_;
  std::optional<CapabilitiesStore> store_;
};

}  // namespace ava::capabilities
