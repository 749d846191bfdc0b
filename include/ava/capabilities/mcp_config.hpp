#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "ava/base/error.hpp"
#include "ava/proc/sandbox.hpp"
#include "ava/protocol/capabilities.hpp"

// A configured MCP server as the capabilities store keeps it, and the
// common `mcpServers` JSON shape (.mcp.json, ~/.claude.json, Claude
// Desktop's config) it is imported from. See docs/mcp.md#configuration.
namespace ava::capabilities {

// How an HTTP server's tokens are obtained when no person signs in
// (docs/mcp.md#machine-to-machine-and-enterprise-sign-in). All empty: the
// browser sign-in.
struct McpOAuthGrant {
  std::string grant;              // "", "client_credentials" or "cross_app_access"
  std::string private_key;        // PEM: private_key_jwt instead of the secret (secret)
  std::string signing_algorithm;  // ES256, ES384, RS256, PS256; empty: the key's own
  std::string scope;              // asked for; empty: what the server names
  std::string issuer;             // the only authorization server the client is used with
  // cross_app_access: the enterprise identity provider (RFC 8693 exchange)
  std::string idp_token_endpoint;
  std::string idp_client_id;
  std::string idp_client_secret;  // secret
  std::string id_token_file;      // absolute; the user's ID token, kept fresh by an SSO tool

  bool empty() const;
  bool operator==(const McpOAuthGrant&) const = default;
};

struct McpServerEntry {
  std::string name;  // [A-Za-z0-9_-], at most 48, no "__": the middle of the tool names
  std::string transport = "stdio";  // "stdio" or "http"
  // stdio
  std::string command;
  std::vector<std::string> args;
  std::map<std::string, std::string> env;  // secret values: never printed or logged
  std::string cwd;                         // empty: the agent's working directory
  // Asked for per server ("sandbox" in its entry): the server's process and
  // everything it starts write only under its folder and writable_roots
  // (workspace-write) or only the temp folders (read-only); the network is
  // off unless `network`. Off: the user's full rights, as before.
  proc::SandboxMode sandbox = proc::SandboxMode::off;
  bool sandbox_network = false;
  std::vector<std::string> sandbox_writable_roots;
  // http (Streamable HTTP)
  std::string url;
  std::map<std::string, std::string> headers;  // secret values, as env
  // A pre-registered OAuth client, for authorization servers without
  // dynamic registration; empty: Ava registers itself at sign-in.
  std::string oauth_client_id;
  std::string oauth_client_secret;  // secret, as env; empty for a public client
  McpOAuthGrant oauth_grant;
  // Offered to agents in every project unless a project says otherwise.
  bool enabled = true;
  std::map<std::string, bool> projects;  // canonical project folder -> enabled there
  std::string source;                    // "cli", "api", "import:<file>"
  std::int64_t created_ms = 0;
  std::int64_t updated_ms = 0;
};

// The name and the transport's fields: invalid_argument naming what is wrong.
Result<void> validate(const McpServerEntry& entry);
// Whether agents working in `project` get this server's tools.
bool enabled_for(const McpServerEntry& entry, const std::filesystem::path& project);
// An HTTP entry with an Authorization header of its own does not use OAuth.
bool has_own_authorization(const McpServerEntry& entry);
// The sandbox to start a stdio server in, its folder being `cwd`; mode off
// when none was asked for.
proc::Sandbox sandbox_for(const McpServerEntry& entry, const std::filesystem::path& cwd);
// Identifies the transport configuration: a change means a new connection.
std::string fingerprint(const McpServerEntry& entry);

// For `ava mcp list` and the API: env and header values are replaced by
// "<redacted>", and the credentials in args and the url are masked
// (base::redact_arguments, base::redact_url), unless show_secrets.
protocol::McpServer server_view(const McpServerEntry& entry, bool show_secrets);
// The API's POST body (also the mcpServers entry shape plus "name").
Result<McpServerEntry> entry_from_json(const std::string& name, const nlohmann::json& json);

// The machine-grant fields of an entry's "oauth" object (grant, privateKey,
// signingAlgorithm, scope, issuer, idpTokenEndpoint, idpClientId,
// idpClientSecret, idTokenFile), empty ones left out; secrets included.
nlohmann::json grant_json(const McpOAuthGrant& grant);
// invalid_argument naming a field that is not a string.
Result<McpOAuthGrant> grant_from_json(const nlohmann::json& oauth);

// Every server of an mcpServers document: {"mcpServers": {...}} at the top,
// and, as ~/.claude.json has them, {"projects": {DIR: {"mcpServers": ...}}}
// (those are enabled only in DIR). `project` scopes all of them to one
// folder instead. Any malformed entry fails the whole document, naming it.
Result<std::vector<McpServerEntry>> parse_mcp_servers(
    const nlohmann::json& document, const std::string& source,
    const std::optional<std::filesystem::path>& project);

}  // namespace ava::capabilities
