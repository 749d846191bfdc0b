#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "ava/protocol/shape.hpp"

// MCP servers and skills as the API (/api/mcp/servers, /api/skills) and the
// CLI's --json output show them, each from its Shape table (shape.hpp). The
// capabilities package fills them; secrets arrive here already redacted.
namespace ava::protocol {

// A pre-registered OAuth client of an HTTP server.
struct McpOAuthClient {
  std::string client_id;
  std::optional<std::string> client_secret;  // "<redacted>" unless shown on purpose
  // Machine grants (docs/mcp.md#machine-to-machine-and-enterprise-sign-in).
  std::optional<std::string> grant;        // "client_credentials" | "cross_app_access"
  std::optional<std::string> private_key;  // "<redacted>" unless shown on purpose
  std::optional<std::string> signing_algorithm;
  std::optional<std::string> scope;
  std::optional<std::string> issuer;
  std::optional<std::string> idp_token_endpoint;
  std::optional<std::string> idp_client_id;
  std::optional<std::string> idp_client_secret;  // "<redacted>" unless shown on purpose
  std::optional<std::string> id_token_file;
};
template <>
struct Shape<McpOAuthClient> {
  static constexpr std::string_view name = "McpOAuthClient";
  static constexpr std::string_view doc =
      "A pre-registered OAuth client of an HTTP server, and how it gets tokens without a person "
      "(the secrets and the key read \"<redacted>\")";
  static constexpr auto fields = std::tuple{
      field("clientId", &McpOAuthClient::client_id),
      field("clientSecret", &McpOAuthClient::client_secret),
      field("grant", &McpOAuthClient::grant, R"("client_credentials" | "cross_app_access")"),
      field("privateKey", &McpOAuthClient::private_key),
      field("signingAlgorithm", &McpOAuthClient::signing_algorithm),
      field("scope", &McpOAuthClient::scope),
      field("issuer", &McpOAuthClient::issuer),
      field("idpTokenEndpoint", &McpOAuthClient::idp_token_endpoint),
      field("idpClientId", &McpOAuthClient::idp_client_id),
      field("idpClientSecret", &McpOAuthClient::idp_client_secret),
      field("idTokenFile", &McpOAuthClient::id_token_file)};
};

// The sandbox a stdio server runs in (docs/permissions.md#mcp-servers).
struct McpSandbox {
  std::string mode;  // "read-only" or "workspace-write"
  bool network = false;
  std::vector<std::string> writable_roots;  // besides the server's folder
};
template <>
struct Shape<McpSandbox> {
  static constexpr std::string_view name = "McpSandbox";
  static constexpr std::string_view doc =
      "The sandbox a stdio server runs in: writes only under its folder (workspace-write) or "
      "nowhere but the temp folders (read-only); no network unless network is true";
  static constexpr auto fields = std::tuple{
      field("mode", &McpSandbox::mode, R"("read-only" | "workspace-write")"),
      field("network", &McpSandbox::network), field("writableRoots", &McpSandbox::writable_roots)};
};

struct McpServer {
  std::string name;
  std::string transport;  // "stdio" or "http"
  bool enabled = true;
  std::map<std::string, bool> projects;  // canonical project folder -> enabled there
  std::string source;
  std::int64_t created_ms = 0;
  std::int64_t updated_ms = 0;
  // stdio
  std::optional<std::string> command;
  std::optional<std::vector<std::string>> args;
  std::optional<std::map<std::string, std::string>> env;
  std::optional<std::string> cwd;
  std::optional<McpSandbox> sandbox;  // absent: not sandboxed
  // http
  std::optional<std::string> url;
  std::optional<std::map<std::string, std::string>> headers;
  std::optional<McpOAuthClient> oauth;
  // The API adds these.
  std::optional<bool> enabled_here;  // ?project=: enabled in that project
  std::optional<bool> signed_in;     // http: OAuth credentials are stored
};
template <>
struct Shape<McpServer> {
  static constexpr std::string_view name = "McpServer";
  static constexpr std::string_view doc =
      "A configured MCP server; env and header values read \"<redacted>\".";
  static constexpr auto fields =
      std::tuple{field("name", &McpServer::name),
                 field("transport", &McpServer::transport, R"("stdio" | "http")"),
                 field("enabled", &McpServer::enabled),
                 field("projects", &McpServer::projects),
                 field("source", &McpServer::source),
                 field("createdMs", &McpServer::created_ms),
                 field("updatedMs", &McpServer::updated_ms),
                 field("command", &McpServer::command),
                 field("args", &McpServer::args),
                 field("env", &McpServer::env),
                 field("cwd", &McpServer::cwd),
                 field("sandbox", &McpServer::sandbox),
                 field("url", &McpServer::url),
                 field("headers", &McpServer::headers),
                 field("enabledHere", &McpServer::enabled_here),
                 field("signedIn", &McpServer::signed_in),
                 field("oauth", &McpServer::oauth)};
};

struct McpServerList {
  std::vector<McpServer> servers;
};
template <>
struct Shape<McpServerList> {
  static constexpr std::string_view name = "McpServerList";
  static constexpr std::string_view doc = "GET /api/mcp/servers";
  static constexpr auto fields = std::tuple{field("servers", &McpServerList::servers)};
};

struct McpToolSummary {
  std::string name;
  std::string description;
};
template <>
struct Shape<McpToolSummary> {
  static constexpr std::string_view name = "McpToolSummary";
  static constexpr std::string_view doc = "A tool a server lists.";
  static constexpr auto fields = std::tuple{field("name", &McpToolSummary::name),
                                            field("description", &McpToolSummary::description)};
};

struct McpServerTest {
  std::string server_name;
  std::string server_version;
  std::string protocol_version;
  std::vector<McpToolSummary> tools;
};
template <>
struct Shape<McpServerTest> {
  static constexpr std::string_view name = "McpServerTest";
  static constexpr std::string_view doc =
      "POST /api/mcp/servers/{name}/test: a fresh connection's answer";
  static constexpr auto fields =
      std::tuple{field("serverName", &McpServerTest::server_name),
                 field("serverVersion", &McpServerTest::server_version),
                 field("protocolVersion", &McpServerTest::protocol_version),
                 field("tools", &McpServerTest::tools)};
};

// PATCH /api/mcp/servers/{name}, PUT /api/mcp/servers/{name}/projects/{id}
struct McpSwitch {
  std::optional<bool> enabled;
};
template <>
struct Shape<McpSwitch> {
  static constexpr std::string_view name = "McpSwitch";
  static constexpr std::string_view doc =
      "PATCH /api/mcp/servers/{name}, PUT /api/mcp/servers/{name}/projects/{projectId}";
  static constexpr auto fields = std::tuple{required("enabled", &McpSwitch::enabled, "boolean")};
  static Result<void> check(const McpSwitch& value);
};

struct McpLoginStarted {
  std::string authorization_url;
  std::int64_t timeout_ms = 0;
};
template <>
struct Shape<McpLoginStarted> {
  static constexpr std::string_view name = "McpLoginStarted";
  static constexpr std::string_view doc =
      "POST /api/mcp/servers/{name}/login: the page to open; the sign-in ends in the background";
  static constexpr auto fields =
      std::tuple{field("authorizationUrl", &McpLoginStarted::authorization_url),
                 field("timeoutMs", &McpLoginStarted::timeout_ms)};
};

struct McpSignedOut {
  bool signed_out = false;  // whether credentials were stored
};
template <>
struct Shape<McpSignedOut> {
  static constexpr std::string_view name = "McpSignedOut";
  static constexpr std::string_view doc = "POST /api/mcp/servers/{name}/logout";
  static constexpr auto fields = std::tuple{field("signedOut", &McpSignedOut::signed_out)};
};

struct SkillInfo {
  std::string name;
  std::string description;
  std::string source;  // "user" or "project"
  std::string path;
  bool enabled = false;
  std::string setting;  // the switch that decided: "project", "user" or "default"
};
template <>
struct Shape<SkillInfo> {
  static constexpr std::string_view name = "SkillInfo";
  static constexpr std::string_view doc =
      "A skill agents find, and whether they may use it (setting: the switch that decided).";
  static constexpr auto fields =
      std::tuple{field("name", &SkillInfo::name),
                 field("description", &SkillInfo::description),
                 field("source", &SkillInfo::source, R"("user" | "project")"),
                 field("path", &SkillInfo::path),
                 field("enabled", &SkillInfo::enabled),
                 field("setting", &SkillInfo::setting, R"("project" | "user" | "default")")};
};

struct SkillList {
  std::vector<SkillInfo> skills;
  std::optional<std::string> project_id;  // the API: the project asked about
};
template <>
struct Shape<SkillList> {
  static constexpr std::string_view name = "SkillList";
  static constexpr std::string_view doc =
      "GET /api/skills[?projectId=], and the answer of PUT /api/skills/{name}";
  static constexpr auto fields =
      std::tuple{field("skills", &SkillList::skills), field("projectId", &SkillList::project_id)};
};

}  // namespace ava::protocol
