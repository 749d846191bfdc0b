#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ava/base/error.hpp"
#include "ava/base/home.hpp"
#include "ava/capabilities/mcp_config.hpp"

struct sqlite3;

namespace ava::capabilities {

// AVA_HOME/capabilities.sqlite3 (0600; the home is 0700): configured MCP
// servers with their per-project switches, the last tool list each server
// gave, skill availability, and a table reserved for OAuth credentials of
// HTTP servers. WAL journal and a busy timeout, so the backend and a CLI
// command can use it at once; every change is one transaction. Schema
// version in PRAGMA user_version. One thread at a time per instance (a
// transaction spans calls); other threads and processes open their own.
class CapabilitiesStore {
 public:
  static constexpr int schema_version = 4;
  static Result<CapabilitiesStore> open(const base::Home& home);
  static Result<CapabilitiesStore> open_file(const std::filesystem::path& file);
  static std::filesystem::path file_of(const base::Home& home);

  CapabilitiesStore(CapabilitiesStore&&) noexcept = default;
  CapabilitiesStore& operator=(CapabilitiesStore&&) noexcept = default;
  ~CapabilitiesStore();

  Result<std::vector<McpServerEntry>> servers() const;  // by name
  Result<std::optional<McpServerEntry>> server(const std::string& name) const;
  // already_exists unless replace; a replaced server keeps its project switches.
  Result<void> add_server(McpServerEntry entry, bool replace);
  // not_found when there is no such server.
  Result<void> remove_server(const std::string& name);
  // enabled: the server's switch in one project; nullopt removes it (the
  // server's default applies again).
  Result<McpServerEntry> set_enabled(const std::string& name,
                                     const std::optional<std::filesystem::path>& project,
                                     std::optional<bool> enabled);
  // All or nothing: a name already configured fails the import (naming
  // every clash) unless replace.
  struct ImportReport {
    std::vector<std::string> added;
    std::vector<std::string> replaced;
  };
  Result<ImportReport> import_servers(std::vector<McpServerEntry> entries, bool replace);

  // The tool list a server gave for a configuration (its fingerprint), so an
  // agent can offer the tools of a server that is slow to start.
  Result<void> cache_tools(const std::string& name, const std::string& fingerprint,
                           const nlohmann::json& tools);
  Result<std::optional<nlohmann::json>> cached_tools(const std::string& name,
                                                     const std::string& fingerprint) const;

  // Skill availability: a skill switched off everywhere ("" project) or in
  // one project folder; nullopt removes the switch.
  Result<void> set_skill_enabled(const std::string& skill, const std::string& project,
                                 std::optional<bool> enabled);
  Result<std::optional<bool>> skill_enabled(const std::string& skill,
                                            const std::string& project) const;
  struct SkillSwitch {
    std::string skill;
    std::string project;  // "" for the user-wide switch
    bool enabled = true;
  };
  // The switches that bear on `project`: the user-wide ones and the
  // project's own (only the user-wide ones for ""), by skill. One query,
  // so an agent's start-up pays for one statement however many skills.
  Result<std::vector<SkillSwitch>> skill_switches(const std::string& project) const;

  // OAuth credentials of HTTP servers (capabilities_oauth.cpp), for
  // StoredCredentials: the JSON document (empty when signed out), the
  // sign-out generation and a revision that moves on with every change.
  struct OAuthRow {
    std::string data;
    std::uint64_t generation = 0;
    std::uint64_t revision = 0;
  };
  Result<OAuthRow> oauth_row(const std::string& server) const;
  // conflict when the generation is no longer `generation`.
  Result<void> save_oauth(const std::string& server, const std::string& data,
                          std::uint64_t generation);
  // Clears the credentials and moves the generation on.
  Result<void> erase_oauth(const std::string& server);

 private:
  struct Closer {
    void operator()(sqlite3* db) const;
  };
  explicit CapabilitiesStore(std::unique_ptr<sqlite3, Closer> db) : db_(std::move(db)) {}
  Result<void> write_server(const McpServerEntry& entry);
  Result<void> erase_credentials(const std::string& server);  // inside a transaction
  std::unique_ptr<sqlite3, Closer> db_;
};

}  // namespace ava::capabilities
