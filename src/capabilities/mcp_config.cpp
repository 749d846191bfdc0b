#include "ava/capabilities/mcp_config.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ava/base/log.hpp"
#include "ava/base/text.hpp"
#include "ava/oauth/jwt.hpp"
#include "ava/oauth/oauth.hpp"

namespace ava::capabilities {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr std::size_t max_name = 48;  // leaves room for the tool name in the 64 providers accept
constexpr std::string_view redacted = "<redacted>";

bool name_character(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-';
}

Result<std::map<std::string, std::string>> string_map(const json& value, std::string_view what) {
  std::map<std::string, std::string> out;
  if (value.is_null()) return out;
  if (!value.is_object())
    return fail(ErrorCode::invalid_argument, fmt::format("{} must be an object", what));
  for (const auto& [key, item] : value.items()) {
    if (!item.is_string()) {
      return fail(ErrorCode::invalid_argument, fmt::format("{}.{} must be a string", what, key));
    }
    out[key] = item.get<std::string>();
  }
  return out;
}

Result<std::string> optional_string(const json& object, const char* key) {
  if (!object.contains(key) || object[key].is_null()) return std::string();
  if (!object[key].is_string())
    return fail(ErrorCode::invalid_argument, fmt::format("{} must be a string", key));
  return object[key].get<std::string>();
}

std::map<std::string, std::string> secret_map(const std::map<std::string, std::string>& values,
                                              bool show) {
  std::map<std::string, std::string> out;
  for (const auto& [key, value] : values) out[key] = show ? value : std::string(redacted);
  return out;
}

// "sandbox": "workspace-write", or {"mode": ..., "network": true,
// "writableRoots": [...]}.
Result<void> read_sandbox(McpServerEntry& entry, const json& value) {
  auto bad = [&](std::string what) {
    return fail(ErrorCode::invalid_argument, "server " + entry.name + ": sandbox " + what);
  };
  const json* mode = &value;
  if (value.is_object()) {
    for (const auto& [key, item] : value.items()) {
      if (key != "mode" && key != "network" && key != "writableRoots")
        return bad("has an unknown field \"" + key.substr(0, 64) +
                   "\" (mode, network, writableRoots)");
    }
    const auto found = value.find("mode");
    if (found == value.end()) return bad("needs a mode");
    mode = &*found;
    if (const auto network = value.find("network"); network != value.end()) {
      if (!network->is_boolean()) return bad("network must be true or false");
      entry.sandbox_network = network->get<bool>();
    }
    if (const auto roots = value.find("writableRoots"); roots != value.end()) {
      if (!roots->is_array()) return bad("writableRoots must be an array of paths");
      for (const auto& root : *roots) {
        if (!root.is_string()) return bad("writableRoots must be an array of paths");
        entry.sandbox_writable_roots.push_back(root.get<std::string>());
      }
    }
  }
  if (!mode->is_string())
    return bad("must be \"read-only\", \"workspace-write\", \"off\" or an object with a mode");
  auto parsed = proc::parse_sandbox_mode(mode->get<std::string>());
  if (!parsed) return bad(parsed.error().message);
  entry.sandbox = *parsed;
  return {};
}

bool http_url(std::string_view url) {
  return url.starts_with("https://") || url.starts_with("http://");
}

// The machine grants: what each needs, and nothing of one in another.
Result<void> validate_grant(const McpServerEntry& entry) {
  const auto& grant = entry.oauth_grant;
  auto bad = [&](std::string_view what) {
    return fail(ErrorCode::invalid_argument, fmt::format("server {}: {}", entry.name, what));
  };
  AVA_TRY(const auto kind, oauth::parse_grant(grant.grant));
  for (const std::string* text : {&grant.grant, &grant.signing_algorithm, &grant.scope,
                                  &grant.issuer, &grant.idp_token_endpoint, &grant.idp_client_id,
                                  &grant.idp_client_secret, &grant.id_token_file}) {
    if (text->find_first_of("\r\n") != std::string::npos)
      return bad("the OAuth settings are single lines (except the private key)");
  }
  const bool idp = !grant.idp_token_endpoint.empty() || !grant.idp_client_id.empty() ||
                   !grant.idp_client_secret.empty() || !grant.id_token_file.empty();
  if (kind == oauth::Grant::authorization_code) {
    if (!grant.private_key.empty() || !grant.signing_algorithm.empty() || idp ||
        !grant.scope.empty() || !grant.issuer.empty())
      return bad(
          "privateKey, signingAlgorithm, scope, issuer and the identity provider are for the "
          "client_credentials and cross_app_access grants");
    return {};
  }
  if (entry.oauth_client_id.empty()) return bad("the " + grant.grant + " grant needs a client id");
  if (!grant.issuer.empty() && !http_url(grant.issuer))
    return bad("the OAuth issuer must be an https URL");
  if (!grant.private_key.empty()) {
    if (!entry.oauth_client_secret.empty())
      return bad("give the OAuth client a secret or a private key, not both");
    auto algorithm = oauth::signing_algorithm(grant.private_key, grant.signing_algorithm);
    if (!algorithm) return bad(algorithm.error().message);
  } else if (!grant.signing_algorithm.empty()) {
    return bad("signingAlgorithm needs a privateKey");
  }
  if (kind == oauth::Grant::client_credentials) {
    if (idp) return bad("the identity provider settings are for the cross_app_access grant");
    if (entry.oauth_client_secret.empty() && grant.private_key.empty())
      return bad("the client_credentials grant needs a client secret or a private key");
    return {};
  }
  if (!http_url(grant.idp_token_endpoint))
    return bad("cross_app_access needs the identity provider's token endpoint (idpTokenEndpoint)");
  if (grant.idp_client_id.empty())
    return bad("cross_app_access needs Ava's client id at the identity provider (idpClientId)");
  if (grant.id_token_file.empty() || grant.id_token_file.front() != '/' ||
      grant.id_token_file.find('\0') != std::string::npos)
    return bad("cross_app_access needs the absolute path of the ID token's file (idTokenFile)");
  return {};
}

}  // namespace

bool McpOAuthGrant::empty() const { return *this == McpOAuthGrant{}; }

Result<void> validate(const McpServerEntry& entry) {
  const std::string& name = entry.name;
  if (name.empty() || name.size() > max_name) {
    return fail(ErrorCode::invalid_argument,
                fmt::format("server name \"{}\" must have 1 to {} characters", name, max_name));
  }
  for (const char c : name) {
    if (!name_character(c)) {
      return fail(ErrorCode::invalid_argument,
                  fmt::format("server name \"{}\" may only use A-Z a-z 0-9 _ -", name));
    }
  }
  if (name.find("__") != std::string::npos) {
    return fail(ErrorCode::invalid_argument,
                fmt::format("server name \"{}\" must not contain \"__\" (it separates the parts "
                            "of mcp__<server>__<tool>)",
                            name));
  }
  if (entry.transport == "stdio") {
    if (entry.command.empty())
      return fail(ErrorCode::invalid_argument,
                  "server " + name + ": a stdio server needs a command");
    if (!entry.url.empty() || !entry.headers.empty() || !entry.oauth_client_id.empty() ||
        !entry.oauth_client_secret.empty() || !entry.oauth_grant.empty())
      return fail(ErrorCode::invalid_argument,
                  "server " + name + ": url, headers and an OAuth client are for HTTP servers");
  } else if (entry.transport == "http") {
    if (entry.url.rfind("http://", 0) != 0 && entry.url.rfind("https://", 0) != 0) {
      return fail(ErrorCode::invalid_argument,
                  "server " + name + ": an HTTP server needs an http:// or https:// url");
    }
    if (!entry.command.empty() || !entry.args.empty() || !entry.env.empty())
      return fail(ErrorCode::invalid_argument,
                  "server " + name + ": command, args and env are for stdio servers");
    if (entry.oauth_client_id.empty() && !entry.oauth_client_secret.empty())
      return fail(ErrorCode::invalid_argument,
                  "server " + name + ": an OAuth client secret needs its client id");
    if (entry.oauth_client_id.find_first_of("\r\n") != std::string::npos ||
        entry.oauth_client_secret.find_first_of("\r\n") != std::string::npos)
      return fail(ErrorCode::invalid_argument,
                  "server " + name + ": the OAuth client id and secret are single lines");
    AVA_TRY_VOID(validate_grant(entry));
  } else {
    return fail(ErrorCode::invalid_argument,
                fmt::format("server {}: transport \"{}\" is not supported (stdio or http)", name,
                            entry.transport));
  }
  for (const auto& [header, value] : entry.headers) {
    if (header.empty() || header.find_first_of(":\r\n ") != std::string::npos ||
        value.find_first_of("\r\n") != std::string::npos) {
      return fail(ErrorCode::invalid_argument,
                  fmt::format("server {}: header \"{}\" is not a valid header", name, header));
    }
  }
  if (entry.sandbox != proc::SandboxMode::off || entry.sandbox_network ||
      !entry.sandbox_writable_roots.empty()) {
    if (entry.transport != "stdio")
      return fail(ErrorCode::invalid_argument,
                  "server " + name + ": a sandbox is for stdio servers (Ava starts those)");
    if (entry.sandbox == proc::SandboxMode::off)
      return fail(ErrorCode::invalid_argument,
                  "server " + name + ": sandbox network or writableRoots need a sandbox mode");
  }
  for (const auto& root : entry.sandbox_writable_roots) {
    if (root.empty() || root.front() != '/' || root.find('\0') != std::string::npos)
      return fail(ErrorCode::invalid_argument,
                  fmt::format("server {}: sandbox writable root \"{}\" must be an absolute path",
                              name, root));
  }
  for (const auto& [key, value] : entry.env) {
    if (key.empty() || key.find('=') != std::string::npos) {
      return fail(ErrorCode::invalid_argument,
                  fmt::format("server {}: env name \"{}\" is not valid", name, key));
    }
  }
  return {};
}

bool enabled_for(const McpServerEntry& entry, const fs::path& project) {
  auto it = entry.projects.find(project.lexically_normal().string());
  return it == entry.projects.end() ? entry.enabled : it->second;
}

namespace {

// The machine-grant fields in the "oauth" object, by their JSON names.
constexpr std::pair<const char*, std::string McpOAuthGrant::*> grant_fields[] = {
    {"grant", &McpOAuthGrant::grant},
    {"privateKey", &McpOAuthGrant::private_key},
    {"signingAlgorithm", &McpOAuthGrant::signing_algorithm},
    {"scope", &McpOAuthGrant::scope},
    {"issuer", &McpOAuthGrant::issuer},
    {"idpTokenEndpoint", &McpOAuthGrant::idp_token_endpoint},
    {"idpClientId", &McpOAuthGrant::idp_client_id},
    {"idpClientSecret", &McpOAuthGrant::idp_client_secret},
    {"idTokenFile", &McpOAuthGrant::id_token_file},
};

void view_grant(protocol::McpOAuthClient& out, const McpOAuthGrant& grant, bool show_secrets) {
  auto set = [](std::optional<std::string>& field, const std::string& value, bool secret) {
    if (!value.empty()) field = secret ? std::string(redacted) : value;
  };
  set(out.grant, grant.grant, false);
  set(out.private_key, grant.private_key, !show_secrets);
  set(out.signing_algorithm, grant.signing_algorithm, false);
  set(out.scope, grant.scope, false);
  set(out.issuer, grant.issuer, false);
  set(out.idp_token_endpoint, grant.idp_token_endpoint, false);
  set(out.idp_client_id, grant.idp_client_id, false);
  set(out.idp_client_secret, grant.idp_client_secret, !show_secrets);
  set(out.id_token_file, grant.id_token_file, false);
}

}  // namespace

json grant_json(const McpOAuthGrant& grant) {
  json out = json::object();
  for (const auto& [name, member] : grant_fields) {
    if (!(grant.*member).empty()) out[name] = grant.*member;
  }
  return out;
}

Result<McpOAuthGrant> grant_from_json(const json& oauth) {
  McpOAuthGrant grant;
  for (const auto& [name, member] : grant_fields) {
    auto value = optional_string(oauth, name);
    if (!value) return fail(ErrorCode::invalid_argument, "oauth." + value.error().message);
    grant.*member = std::move(*value);
  }
  return grant;
}

bool has_own_authorization(const McpServerEntry& entry) {
  for (const auto& [name, value] : entry.headers) {
    if (base::ascii_lower(name) == "authorization") return true;
  }
  return false;
}

std::string fingerprint(const McpServerEntry& entry) {
  return json{
      {"transport", entry.transport},
      {"command", entry.command},
      {"args", entry.args},
      {"env", entry.env},
      {"cwd", entry.cwd},
      {"url", entry.url},
      {"headers", entry.headers},
      {"oauthClient", {entry.oauth_client_id, entry.oauth_client_secret}},
      {"oauthGrant", grant_json(entry.oauth_grant)},
      {"sandbox",
       {proc::to_string(entry.sandbox), entry.sandbox_network, entry.sandbox_writable_roots}}}
      .dump();
}

proc::Sandbox sandbox_for(const McpServerEntry& entry, const fs::path& cwd) {
  proc::Sandbox sandbox{.mode = entry.sandbox, .network = entry.sandbox_network};
  if (entry.sandbox != proc::SandboxMode::workspace_write) return sandbox;
  if (!cwd.empty()) sandbox.writable_roots.push_back(cwd);
  for (const auto& root : entry.sandbox_writable_roots) sandbox.writable_roots.emplace_back(root);
  return sandbox;
}

protocol::McpServer server_view(const McpServerEntry& entry, bool show_secrets) {
  protocol::McpServer out{.name = entry.name,
                          .transport = entry.transport,
                          .enabled = entry.enabled,
                          .projects = entry.projects,
                          .source = entry.source,
                          .created_ms = entry.created_ms,
                          .updated_ms = entry.updated_ms};
  if (entry.transport == "stdio") {
    out.command = entry.command;
    // Servers are often given their key or a database URL on the command
    // line: flags naming a secret, key-looking values and URL credentials
    // are masked like env values.
    out.args = show_secrets ? entry.args : base::redact_arguments(entry.args);
    out.env = secret_map(entry.env, show_secrets);
    out.cwd = entry.cwd;
    if (entry.sandbox != proc::SandboxMode::off) {
      out.sandbox = protocol::McpSandbox{.mode = std::string(proc::to_string(entry.sandbox)),
                                         .network = entry.sandbox_network,
                                         .writable_roots = entry.sandbox_writable_roots};
    }
  } else {
    out.url = show_secrets ? entry.url : base::redact_url(entry.url);
    out.headers = secret_map(entry.headers, show_secrets);
    if (!entry.oauth_client_id.empty()) {
      out.oauth = protocol::McpOAuthClient{.client_id = entry.oauth_client_id};
      if (!entry.oauth_client_secret.empty()) {
        out.oauth->client_secret = show_secrets ? entry.oauth_client_secret : std::string(redacted);
      }
      view_grant(*out.oauth, entry.oauth_grant, show_secrets);
    }
  }
  return out;
}

Result<McpServerEntry> entry_from_json(const std::string& name, const json& value) {
  auto bad = [&name](const Error& error) {
    return fail(ErrorCode::invalid_argument, "server " + name + ": " + error.message);
  };
  if (!value.is_object())
    return fail(ErrorCode::invalid_argument, "server " + name + ": must be an object");
  McpServerEntry entry;
  entry.name = name;
  auto type = optional_string(value, "type");
  if (!type) return bad(type.error());
  auto transport = optional_string(value, "transport");
  if (!transport) return bad(transport.error());
  std::string kind = !transport->empty() ? *transport : *type;
  auto url = optional_string(value, "url");
  if (!url) return bad(url.error());
  if (kind.empty()) kind = url->empty() ? "stdio" : "http";
  if (kind == "streamable-http" || kind == "streamableHttp") kind = "http";
  if (kind == "sse") {
    return fail(ErrorCode::unsupported,
                "server " + name +
                    ": the legacy HTTP+SSE transport is not supported; use the server's "
                    "Streamable HTTP endpoint (type \"http\")");
  }
  entry.transport = kind;
  entry.url = *url;
  auto command = optional_string(value, "command");
  if (!command) return bad(command.error());
  entry.command = *command;
  auto cwd = optional_string(value, "cwd");
  if (!cwd) return bad(cwd.error());
  entry.cwd = *cwd;
  if (value.contains("args") && !value["args"].is_null()) {
    if (!value["args"].is_array())
      return fail(ErrorCode::invalid_argument, "server " + name + ": args must be an array");
    for (const auto& arg : value["args"]) {
      if (!arg.is_string())
        return fail(ErrorCode::invalid_argument, "server " + name + ": args must be strings");
      entry.args.push_back(arg.get<std::string>());
    }
  }
  auto env = string_map(value.value("env", json()), "env");
  if (!env) return bad(env.error());
  entry.env = std::move(*env);
  auto headers = string_map(value.value("headers", json()), "headers");
  if (!headers) return bad(headers.error());
  entry.headers = std::move(*headers);
  if (value.contains("oauth") && !value["oauth"].is_null()) {
    const json& oauth = value["oauth"];
    if (!oauth.is_object())
      return fail(ErrorCode::invalid_argument, "server " + name + ": oauth must be an object");
    auto client_id = optional_string(oauth, "clientId");
    if (!client_id) return bad(client_id.error());
    auto client_secret = optional_string(oauth, "clientSecret");
    if (!client_secret) return bad(client_secret.error());
    entry.oauth_client_id = *client_id;
    entry.oauth_client_secret = *client_secret;
    auto grant = grant_from_json(oauth);
    if (!grant) return bad(grant.error());
    entry.oauth_grant = std::move(*grant);
  }
  if (value.contains("sandbox") && !value["sandbox"].is_null()) {
    AVA_TRY_VOID(read_sandbox(entry, value["sandbox"]));
  }
  if (value.contains("enabled")) {
    if (!value["enabled"].is_boolean())
      return fail(ErrorCode::invalid_argument,
                  "server " + name + ": enabled must be true or false");
    entry.enabled = value["enabled"].get<bool>();
  }
  AVA_TRY_VOID(validate(entry));
  return entry;
}

Result<std::vector<McpServerEntry>> parse_mcp_servers(const json& document,
                                                      const std::string& source,
                                                      const std::optional<fs::path>& project) {
  if (!document.is_object())
    return fail(ErrorCode::invalid_argument, "the document is not a JSON object");
  std::vector<McpServerEntry> entries;
  auto take = [&](const json& servers, const std::optional<fs::path>& scope,
                  const std::string& where) -> Result<void> {
    if (!servers.is_object())
      return fail(ErrorCode::invalid_argument, where + "mcpServers must be an object");
    for (const auto& [name, value] : servers.items()) {
      auto entry = entry_from_json(name, value);
      if (!entry)
        return std::unexpected(std::move(entry).error().with_context(where + "mcpServers"));
      entry->source = source;
      if (scope) {
        entry->enabled = false;
        entry->projects[scope->lexically_normal().string()] = true;
      }
      // The same name twice (two projects of ~/.claude.json): one entry if
      // they agree, else the import cannot choose.
      bool merged = false;
      for (auto& existing : entries) {
        if (existing.name != entry->name) continue;
        if (fingerprint(existing) != fingerprint(*entry)) {
          return fail(ErrorCode::conflict,
                      fmt::format("server \"{}\" is defined twice with different settings; "
                                  "import one of them with --project DIR",
                                  entry->name));
        }
        existing.enabled = existing.enabled || entry->enabled;
        existing.projects.insert(entry->projects.begin(), entry->projects.end());
        merged = true;
      }
      if (!merged) entries.push_back(std::move(*entry));
    }
    return {};
  };
  const bool top = document.contains("mcpServers");
  if (top) AVA_TRY_VOID(take(document["mcpServers"], project, ""));
  bool nested = false;
  if (document.contains("projects") && document["projects"].is_object()) {
    for (const auto& [folder, settings] : document["projects"].items()) {
      if (!settings.is_object() || !settings.contains("mcpServers")) continue;
      nested = true;
      const fs::path scope = project ? *project : fs::path(folder);
      AVA_TRY_VOID(take(settings["mcpServers"], scope, "projects[" + folder + "]."));
    }
  }
  if (!top && !nested)
    return fail(ErrorCode::invalid_argument, "the document has no \"mcpServers\" object");
  return entries;
}

}  // namespace ava::capabilities
