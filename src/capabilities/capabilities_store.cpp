#include "ava/capabilities/capabilities_store.hpp"

#include <map>

#include <fmt/format.h>

#include "ava/base/clock.hpp"
#include "ava/store/database.hpp"
#include "ava/store/sqlite.hpp"

namespace ava::capabilities {
namespace {

using store::exec;
using store::Statement;
using store::Transaction;

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* schema_v1 = R"sql(
CREATE TABLE mcp_servers(
  name TEXT PRIMARY KEY,
  transport TEXT NOT NULL,
  command TEXT NOT NULL DEFAULT '',
  args TEXT NOT NULL DEFAULT '[]',
  env TEXT NOT NULL DEFAULT '{}',
  cwd TEXT NOT NULL DEFAULT '',
  url TEXT NOT NULL DEFAULT '',
  headers TEXT NOT NULL DEFAULT '{}',
  enabled INTEGER NOT NULL DEFAULT 1,
  source TEXT NOT NULL DEFAULT '',
  created_ms INTEGER NOT NULL,
  updated_ms INTEGER NOT NULL);
CREATE TABLE mcp_server_projects(
  server TEXT NOT NULL REFERENCES mcp_servers(name) ON DELETE CASCADE,
  project TEXT NOT NULL,
  enabled INTEGER NOT NULL,
  PRIMARY KEY(server, project));
CREATE TABLE mcp_tool_cache(
  server TEXT PRIMARY KEY REFERENCES mcp_servers(name) ON DELETE CASCADE,
  fingerprint TEXT NOT NULL,
  tools TEXT NOT NULL,
  listed_ms INTEGER NOT NULL);
CREATE TABLE skill_availability(
  skill TEXT NOT NULL,
  project TEXT NOT NULL,
  enabled INTEGER NOT NULL,
  PRIMARY KEY(skill, project));
CREATE TABLE oauth_credentials(
  server TEXT PRIMARY KEY,
  generation INTEGER NOT NULL DEFAULT 0,
  data TEXT NOT NULL,
  updated_ms INTEGER NOT NULL);
PRAGMA user_version = 1;
)sql";

// v2: a revision per credentials row that every save and erase moves on
// (the generation moves only on erase), so another process's sign-in is seen.
constexpr const char* schema_v2 = R"sql(
ALTER TABLE oauth_credentials ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;
PRAGMA user_version = 2;
)sql";

// v3: a pre-registered OAuth client per server ({"clientId", "clientSecret"},
// later also the machine-grant fields of grant_json, all strings).
constexpr const char* schema_v3 = R"sql(
ALTER TABLE mcp_servers ADD COLUMN oauth_client TEXT NOT NULL DEFAULT '{}';
PRAGMA user_version = 3;
)sql";

// v4: the sandbox a stdio server asked for ({"mode", "network",
// "writableRoots"}; {} for none).
constexpr const char* schema_v4 = R"sql(
ALTER TABLE mcp_servers ADD COLUMN sandbox TEXT NOT NULL DEFAULT '{}';
PRAGMA user_version = 4;
)sql";

Result<std::map<std::string, std::string>> parse_map(const std::string& text) {
  auto value = json::parse(text, nullptr, false);
  if (!value.is_object())
    return fail(ErrorCode::corrupt, "capabilities store: a stored map is not an object");
  std::map<std::string, std::string> out;
  for (const auto& [key, item] : value.items()) {
    if (item.is_string()) out[key] = item.get<std::string>();
  }
  return out;
}

constexpr const char* select_servers =
    "SELECT name, transport, command, args, env, cwd, url, headers, enabled, source, created_ms, "
    "updated_ms, oauth_client, sandbox FROM mcp_servers";

Result<McpServerEntry> read_server(const store::Statement& row) {
  McpServerEntry entry;
  entry.name = row.text(0);
  entry.transport = row.text(1);
  entry.command = row.text(2);
  auto args = json::parse(row.text(3), nullptr, false);
  if (!args.is_array())
    return fail(ErrorCode::corrupt, "capabilities store: args of " + entry.name);
  for (const auto& arg : args) {
    if (arg.is_string()) entry.args.push_back(arg.get<std::string>());
  }
  AVA_TRY(entry.env, parse_map(row.text(4)));
  entry.cwd = row.text(5);
  entry.url = row.text(6);
  AVA_TRY(entry.headers, parse_map(row.text(7)));
  entry.enabled = row.integer(8) != 0;
  entry.source = row.text(9);
  entry.created_ms = row.integer(10);
  entry.updated_ms = row.integer(11);
  AVA_TRY(auto oauth_client, parse_map(row.text(12)));
  entry.oauth_client_id = oauth_client["clientId"];
  entry.oauth_client_secret = oauth_client["clientSecret"];
  AVA_TRY(entry.oauth_grant, grant_from_json(json::parse(row.text(12), nullptr, false)));
  const auto sandbox = json::parse(row.text(13), nullptr, false);
  if (!sandbox.is_object())
    return fail(ErrorCode::corrupt, "capabilities store: sandbox of " + entry.name);
  if (sandbox.contains("mode")) {
    // A mode this version cannot read keeps the server from starting rather
    // than starting it with more rights than it was given.
    auto mode = sandbox["mode"].is_string()
                    ? proc::parse_sandbox_mode(sandbox["mode"].get<std::string>())
                    : Result<proc::SandboxMode>(fail(ErrorCode::corrupt, "not a string"));
    if (!mode) return fail(ErrorCode::corrupt, "capabilities store: sandbox mode of " + entry.name);
    entry.sandbox = *mode;
    entry.sandbox_network = sandbox.value("network", false);
    for (const auto& root : sandbox.value("writableRoots", json::array())) {
      if (root.is_string()) entry.sandbox_writable_roots.push_back(root.get<std::string>());
    }
  }
  return entry;
}

}  // namespace

void CapabilitiesStore::Closer::operator()(sqlite3* db) const { sqlite3_close_v2(db); }

CapabilitiesStore::~CapabilitiesStore() = default;

fs::path CapabilitiesStore::file_of(const base::Home& home) {
  return home.file("capabilities.sqlite3");
}

Result<CapabilitiesStore> CapabilitiesStore::open(const base::Home& home) {
  return open_file(file_of(home));
}

Result<CapabilitiesStore> CapabilitiesStore::open_file(const fs::path& file) {
  static constexpr const char* migrations[] = {schema_v1, schema_v2, schema_v3, schema_v4};
  static_assert(std::size(migrations) == schema_version);
  AVA_TRY(auto db, store::open_database(file, migrations));
  return CapabilitiesStore(std::unique_ptr<sqlite3, Closer>(db.release()));
}

Result<std::vector<McpServerEntry>> CapabilitiesStore::servers() const {
  std::vector<McpServerEntry> entries;
  AVA_TRY(auto query, store::Statement::prepare(
                          db_.get(), (std::string(select_servers) + " ORDER BY name").c_str()));
  for (;;) {
    AVA_TRY(bool row, query.step());
    if (!row) break;
    AVA_TRY(auto entry, read_server(query));
    entries.push_back(std::move(entry));
  }
  AVA_TRY(auto projects,
          store::Statement::prepare(db_.get(),
                                    "SELECT server, project, enabled FROM mcp_server_projects"));
  for (;;) {
    AVA_TRY(bool row, projects.step());
    if (!row) break;
    const std::string server = projects.text(0);
    for (auto& entry : entries) {
      if (entry.name == server) entry.projects[projects.text(1)] = projects.integer(2) != 0;
    }
  }
  return entries;
}

Result<std::optional<McpServerEntry>> CapabilitiesStore::server(const std::string& name) const {
  AVA_TRY(auto all, servers());
  for (auto& entry : all) {
    if (entry.name == name) return std::optional<McpServerEntry>(std::move(entry));
  }
  return std::optional<McpServerEntry>();
}

Result<void> CapabilitiesStore::write_server(const McpServerEntry& entry) {
  AVA_TRY(auto existing,
          store::Statement::prepare(
              db_.get(), "SELECT created_ms, url, oauth_client FROM mcp_servers WHERE name = ?"));
  existing.bind(1, entry.name);
  AVA_TRY(bool found, existing.step());
  const std::int64_t now = base::unix_ms_now();
  const std::int64_t created = found ? existing.integer(0) : now;
  // A sign-in belongs to the endpoint and the client it was made for.
  json oauth_client = grant_json(entry.oauth_grant);
  oauth_client["clientId"] = entry.oauth_client_id;
  oauth_client["clientSecret"] = entry.oauth_client_secret;
  // ... and to the way it was obtained, and the authorization server.
  const auto stored = json::parse(found ? existing.text(2) : "{}", nullptr, false);
  auto stored_text = [&stored](const char* key) {
    return stored.is_object() ? stored.value(key, std::string()) : std::string();
  };
  if (found && (existing.text(1) != entry.url || stored_text("clientId") != entry.oauth_client_id ||
                stored_text("grant") != entry.oauth_grant.grant ||
                stored_text("issuer") != entry.oauth_grant.issuer))
    AVA_TRY_VOID(erase_credentials(entry.name));
  AVA_TRY(auto upsert,
          store::Statement::prepare(
              db_.get(),
              "INSERT INTO mcp_servers(name, transport, command, args, env, cwd, url, headers, "
              "enabled, source, created_ms, updated_ms, oauth_client, sandbox) "
              "VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?) "
              "ON CONFLICT(name) DO UPDATE SET transport = excluded.transport, command = "
              "excluded.command, args = excluded.args, env = excluded.env, cwd = excluded.cwd, "
              "url = excluded.url, headers = excluded.headers, enabled = excluded.enabled, "
              "source = excluded.source, updated_ms = excluded.updated_ms, "
              "oauth_client = excluded.oauth_client, sandbox = excluded.sandbox"));
  upsert.bind(1, entry.name)
      .bind(2, entry.transport)
      .bind(3, entry.command)
      .bind(4, json(entry.args).dump())
      .bind(5, json(entry.env).dump())
      .bind(6, entry.cwd)
      .bind(7, entry.url)
      .bind(8, json(entry.headers).dump())
      .bind(9, std::int64_t{entry.enabled ? 1 : 0})
      .bind(10, entry.source)
      .bind(11, created)
      .bind(12, now)
      .bind(13, oauth_client.dump())
      .bind(14, entry.sandbox == proc::SandboxMode::off
                    ? std::string("{}")
                    : json{{"mode", proc::to_string(entry.sandbox)},
                           {"network", entry.sandbox_network},
                           {"writableRoots", entry.sandbox_writable_roots}}
                          .dump());
  AVA_TRY_VOID(upsert.run());
  for (const auto& [project, enabled] : entry.projects) {
    AVA_TRY(auto scoped,
            store::Statement::prepare(db_.get(),
                                      "INSERT OR REPLACE INTO mcp_server_projects(server, "
                                      "project, enabled) VALUES(?,?,?)"));
    scoped.bind(1, entry.name).bind(2, project).bind(3, std::int64_t{enabled ? 1 : 0});
    AVA_TRY_VOID(scoped.run());
  }
  return {};
}

Result<void> CapabilitiesStore::add_server(McpServerEntry entry, bool replace) {
  AVA_TRY_VOID(validate(entry));
  AVA_TRY(auto transaction, store::Transaction::begin(db_.get()));
  AVA_TRY(auto existing,
          store::Statement::prepare(db_.get(), "SELECT 1 FROM mcp_servers WHERE name = ?"));
  existing.bind(1, entry.name);
  AVA_TRY(bool found, existing.step());
  if (found && !replace) {
    return fail(ErrorCode::already_exists,
                "an MCP server named " + entry.name + " is already configured (remove it first)");
  }
  AVA_TRY_VOID(write_server(entry));
  return transaction.commit();
}

Result<void> CapabilitiesStore::remove_server(const std::string& name) {
  AVA_TRY(auto transaction, store::Transaction::begin(db_.get()));
  AVA_TRY(auto removal,
          store::Statement::prepare(db_.get(), "DELETE FROM mcp_servers WHERE name = ?"));
  removal.bind(1, name);
  AVA_TRY_VOID(removal.run());
  if (sqlite3_changes(db_.get()) == 0)
    return fail(ErrorCode::not_found, "no MCP server named " + name);
  // Erased, not deleted: the row keeps the generation that fences off a
  // sign-in or refresh still in flight for the removed server.
  AVA_TRY_VOID(erase_credentials(name));
  return transaction.commit();
}

Result<McpServerEntry> CapabilitiesStore::set_enabled(const std::string& name,
                                                      const std::optional<fs::path>& project,
                                                      std::optional<bool> enabled) {
  {
    AVA_TRY(auto transaction, store::Transaction::begin(db_.get()));
    if (!project) {
      AVA_TRY(auto update,
              store::Statement::prepare(
                  db_.get(), "UPDATE mcp_servers SET enabled = ?, updated_ms = ? WHERE name = ?"));
      update.bind(1, std::int64_t{enabled.value_or(true) ? 1 : 0})
          .bind(2, base::unix_ms_now())
          .bind(3, name);
      AVA_TRY_VOID(update.run());
      if (sqlite3_changes(db_.get()) == 0)
        return fail(ErrorCode::not_found, "no MCP server named " + name);
    } else {
      AVA_TRY(auto exists,
              store::Statement::prepare(db_.get(), "SELECT 1 FROM mcp_servers WHERE name = ?"));
      exists.bind(1, name);
      AVA_TRY(bool found, exists.step());
      if (!found) return fail(ErrorCode::not_found, "no MCP server named " + name);
      const std::string folder = project->lexically_normal().string();
      if (enabled) {
        AVA_TRY(auto set,
                store::Statement::prepare(db_.get(),
                                          "INSERT OR REPLACE INTO mcp_server_projects(server, "
                                          "project, enabled) VALUES(?,?,?)"));
        set.bind(1, name).bind(2, folder).bind(3, std::int64_t{*enabled ? 1 : 0});
        AVA_TRY_VOID(set.run());
      } else {
        AVA_TRY(auto clear,
                store::Statement::prepare(
                    db_.get(), "DELETE FROM mcp_server_projects WHERE server = ? AND project = ?"));
        clear.bind(1, name).bind(2, folder);
        AVA_TRY_VOID(clear.run());
      }
    }
    AVA_TRY_VOID(transaction.commit());
  }
  AVA_TRY(auto entry, server(name));
  if (!entry) return fail(ErrorCode::not_found, "no MCP server named " + name);
  return std::move(*entry);
}

Result<CapabilitiesStore::ImportReport> CapabilitiesStore::import_servers(
    std::vector<McpServerEntry> entries, bool replace) {
  for (const auto& entry : entries) AVA_TRY_VOID(validate(entry));
  AVA_TRY(auto transaction, store::Transaction::begin(db_.get()));
  ImportReport report;
  std::vector<std::string> clashes;
  for (const auto& entry : entries) {
    AVA_TRY(auto existing,
            store::Statement::prepare(db_.get(), "SELECT 1 FROM mcp_servers WHERE name = ?"));
    existing.bind(1, entry.name);
    AVA_TRY(bool found, existing.step());
    (found ? report.replaced : report.added).push_back(entry.name);
    if (found) clashes.push_back(entry.name);
  }
  if (!clashes.empty() && !replace) {
    std::string names;
    for (const auto& name : clashes) names += (names.empty() ? "" : ", ") + name;
    return fail(
        ErrorCode::already_exists,
        "already configured: " + names + "; nothing was imported (--replace overwrites them)");
  }
  for (const auto& entry : entries) AVA_TRY_VOID(write_server(entry));
  AVA_TRY_VOID(transaction.commit());
  return report;
}

Result<void> CapabilitiesStore::cache_tools(const std::string& name, const std::string& print,
                                            const json& tools) {
  AVA_TRY(auto upsert,
          store::Statement::prepare(db_.get(),
                                    "INSERT OR REPLACE INTO mcp_tool_cache(server, "
                                    "fingerprint, tools, listed_ms) SELECT ?,?,?,? WHERE "
                                    "EXISTS (SELECT 1 FROM mcp_servers WHERE name = ?)"));
  upsert.bind(1, name)
      .bind(2, print)
      .bind(3, tools.dump())
      .bind(4, base::unix_ms_now())
      .bind(5, name);
  return upsert.run();
}

Result<std::optional<json>> CapabilitiesStore::cached_tools(const std::string& name,
                                                            const std::string& print) const {
  AVA_TRY(auto query,
          store::Statement::prepare(
              db_.get(), "SELECT tools FROM mcp_tool_cache WHERE server = ? AND fingerprint = ?"));
  query.bind(1, name).bind(2, print);
  AVA_TRY(bool found, query.step());
  if (!found) return std::optional<json>();
  auto tools = json::parse(query.text(0), nullptr, false);
  if (!tools.is_array()) return std::optional<json>();
  return std::optional<json>(std::move(tools));
}

Result<void> CapabilitiesStore::set_skill_enabled(const std::string& skill,
                                                  const std::string& project,
                                                  std::optional<bool> enabled) {
  if (enabled) {
    AVA_TRY(
        auto set,
        store::Statement::prepare(
            db_.get(),
            "INSERT OR REPLACE INTO skill_availability(skill, project, enabled) VALUES(?,?,?)"));
    set.bind(1, skill).bind(2, project).bind(3, std::int64_t{*enabled ? 1 : 0});
    return set.run();
  }
  AVA_TRY(auto clear,
          store::Statement::prepare(
              db_.get(), "DELETE FROM skill_availability WHERE skill = ? AND project = ?"));
  clear.bind(1, skill).bind(2, project);
  return clear.run();
}

Result<std::optional<bool>> CapabilitiesStore::skill_enabled(const std::string& skill,
                                                             const std::string& project) const {
  AVA_TRY(auto query,
          store::Statement::prepare(
              db_.get(), "SELECT enabled FROM skill_availability WHERE skill = ? AND project = ?"));
  query.bind(1, skill).bind(2, project);
  AVA_TRY(bool found, query.step());
  if (!found) return std::optional<bool>();
  return std::optional<bool>(query.integer(0) != 0);
}

Result<std::vector<CapabilitiesStore::SkillSwitch>> CapabilitiesStore::skill_switches(
    const std::string& project) const {
  AVA_TRY(auto query,
          store::Statement::prepare(db_.get(),
                                    "SELECT skill, project, enabled FROM skill_availability "
                                    "WHERE project = '' OR project = ? ORDER BY skill, project"));
  query.bind(1, project);
  std::vector<SkillSwitch> switches;
  for (;;) {
    AVA_TRY(bool row, query.step());
    if (!row) break;
    switches.push_back(
        {.skill = query.text(0), .project = query.text(1), .enabled = query.integer(2) != 0});
  }
  return switches;
}

}  // namespace ava::capabilities
