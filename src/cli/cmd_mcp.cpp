// `ava mcp add|list|remove|test|import|enable|disable` (login and logout in
// cmd_mcp_login.cpp): the MCP servers in
// AVA_HOME/capabilities.sqlite3 (docs/mcp.md#configuration).

#include <cstdio>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>

#include <fmt/format.h>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <nlohmann/json.hpp>

#include "ava/base/log.hpp"
#include "ava/base/private_file.hpp"
#include "ava/capabilities/capabilities_store.hpp"
#include "ava/capabilities/mcp_hub.hpp"
#include "ava/oauth/jwt.hpp"
#include "ava/proc/sandbox.hpp"
#include "cli/commands.hpp"

namespace ava::cli {
namespace {

namespace asio = boost::asio;
namespace fs = std::filesystem;
using nlohmann::json;

// Messages may quote a server's URL or arguments: no credentials.
constexpr CommandName command_name{.name = "mcp", .redact = true};

Result<capabilities::CapabilitiesStore> open_store() {
  AVA_TRY(auto home, base::Home::resolve());
  return capabilities::CapabilitiesStore::open(home);
}

// A project folder as the store keys it: absolute and canonical.
fs::path project_key(const std::string& folder) {
  std::error_code ec;
  return fs::weakly_canonical(fs::absolute(folder, ec), ec);
}

Result<std::pair<std::string, std::string>> split_pair(const std::string& text, char separator,
                                                       const char* what) {
  const std::size_t at = text.find(separator);
  if (at == std::string::npos || at == 0) {
    return fail(ErrorCode::invalid_argument,
                fmt::format("{} \"{}\" must look like NAME{}VALUE", what, text, separator));
  }
  std::string value = text.substr(at + 1);
  if (separator == ':') value.erase(0, value.find_first_not_of(' '));
  return std::make_pair(text.substr(0, at), value);
}

struct AddFlags {
  std::string name;
  std::vector<std::string> command;
  std::vector<std::string> env;
  std::string cwd;
  std::string url;
  std::vector<std::string> headers;
  std::string client_id;
  std::string client_secret;
  bool client_credentials = false;
  bool cross_app_access = false;
  std::string private_key_file;
  std::string signing_algorithm;
  std::string scope;
  std::string issuer;
  std::string idp_token_endpoint;
  std::string idp_client_id;
  std::string idp_client_secret;
  std::string id_token_file;
  bool disabled = false;
  std::string project;
  bool replace = false;
  std::string sandbox;  // read-only, workspace-write, off
  bool sandbox_network = false;
  std::vector<std::string> writable_roots;
};

// --client-credentials / --cross-app-access and their settings; the key is
// read from its file here and kept in the store like the client secret.
Result<capabilities::McpOAuthGrant> grant_flags(const AddFlags& flags) {
  capabilities::McpOAuthGrant grant;
  if (flags.client_credentials && flags.cross_app_access) {
    return fail(ErrorCode::invalid_argument,
                "give --client-credentials or --cross-app-access, not both");
  }
  if (flags.client_credentials) grant.grant = "client_credentials";
  if (flags.cross_app_access) grant.grant = "cross_app_access";
  if (!flags.private_key_file.empty()) {
    auto key = base::read_file_limited(flags.private_key_file, oauth::max_private_key_bytes);
    if (!key) {
      return fail(ErrorCode::invalid_argument,
                  "--private-key-file " + flags.private_key_file + ": " + key.error().message);
    }
    grant.private_key = std::move(*key);
  }
  grant.signing_algorithm = flags.signing_algorithm;
  grant.scope = flags.scope;
  grant.issuer = flags.issuer;
  grant.idp_token_endpoint = flags.idp_token_endpoint;
  grant.idp_client_id = flags.idp_client_id;
  grant.idp_client_secret = flags.idp_client_secret;
  if (!flags.id_token_file.empty()) {
    std::error_code ec;
    const fs::path absolute = fs::absolute(flags.id_token_file, ec);
    grant.id_token_file = ec ? flags.id_token_file : absolute.lexically_normal().string();
  }
  return grant;
}

// Flags that do not make a server, and a name or value the store refuses,
// are usage errors (exit 2).
Result<int> add(const AddFlags& flags) {
  capabilities::McpServerEntry entry;
  entry.name = flags.name;
  entry.source = "cli";
  if (!flags.url.empty()) {
    if (!flags.command.empty() || !flags.env.empty()) {
      return usage_error(
          command_name, {ErrorCode::invalid_argument, "give either --url or -- COMMAND, not both"});
    }
    entry.transport = "http";
    entry.url = flags.url;
    entry.oauth_client_id = flags.client_id;
    entry.oauth_client_secret = flags.client_secret;
    auto grant = grant_flags(flags);
    if (!grant) return usage_error(command_name, grant.error());
    entry.oauth_grant = std::move(*grant);
    for (const auto& header : flags.headers) {
      auto pair = split_pair(header, ':', "--header");
      if (!pair) return usage_error(command_name, pair.error());
      entry.headers[pair->first] = pair->second;
    }
  } else {
    if (flags.command.empty()) {
      return usage_error(
          command_name,
          {ErrorCode::invalid_argument,
           "a server needs a command (ava mcp add NAME -- COMMAND ARGS...) or --url"});
    }
    if (!flags.client_id.empty() || !flags.client_secret.empty() || flags.client_credentials ||
        flags.cross_app_access) {
      return usage_error(command_name,
                         {ErrorCode::invalid_argument,
                          "--client-id and the OAuth grants are for servers added with --url"});
    }
    entry.command = flags.command.front();
    entry.args.assign(flags.command.begin() + 1, flags.command.end());
    entry.cwd = flags.cwd;
    for (const auto& variable : flags.env) {
      auto pair = split_pair(variable, '=', "--env");
      if (!pair) return usage_error(command_name, pair.error());
      entry.env[pair->first] = pair->second;
    }
  }
  if (!flags.sandbox.empty()) {
    auto mode = proc::parse_sandbox_mode(flags.sandbox);
    if (!mode) return usage_error(command_name, mode.error());
    entry.sandbox = *mode;
  }
  entry.sandbox_network = flags.sandbox_network;
  for (const auto& root : flags.writable_roots) {
    std::error_code ec;
    const fs::path absolute = fs::absolute(root, ec);
    entry.sandbox_writable_roots.push_back(ec ? root : absolute.lexically_normal().string());
  }
  if (!flags.project.empty()) {
    entry.enabled = false;
    entry.projects[project_key(flags.project).string()] = !flags.disabled;
  } else {
    entry.enabled = !flags.disabled;
  }
  AVA_TRY(auto store, open_store());
  if (auto added = store.add_server(entry, flags.replace); !added) {
    if (added.error().code == ErrorCode::invalid_argument)
      return usage_error(command_name, added.error());
    return std::unexpected(std::move(added).error());
  }
  std::printf("Added MCP server %s (%s)\n", entry.name.c_str(), entry.transport.c_str());
  return 0;
}

// For HTTP servers: whether an OAuth sign-in is stored (never the token).
std::optional<bool> signed_in(const capabilities::CapabilitiesStore& store,
                              const capabilities::McpServerEntry& entry) {
  if (entry.transport != "http") return std::nullopt;
  auto row = store.oauth_row(entry.name);
  return row ? std::optional<bool>(!row->data.empty()) : std::nullopt;
}

std::string describe(const capabilities::McpServerEntry& entry, const fs::path* project,
                     std::optional<bool> has_sign_in, bool show_secrets) {
  std::string where;
  if (entry.transport == "stdio") {
    where = entry.command;
    const auto args = show_secrets ? entry.args : base::redact_arguments(entry.args);
    for (const auto& arg : args) where += " " + arg;
    for (const auto& [key, value] : entry.env) where += " [env " + key + "]";
    if (entry.sandbox != proc::SandboxMode::off) {
      where += fmt::format(" [sandbox {}{}", proc::to_string(entry.sandbox),
                           entry.sandbox_network ? ", network" : ", no network");
      for (const auto& root : entry.sandbox_writable_roots) where += ", +" + root;
      where += "]";
    }
  } else {
    where = show_secrets ? entry.url : base::redact_url(entry.url);
    for (const auto& [key, value] : entry.headers) where += " [header " + key + "]";
    if (!entry.oauth_client_id.empty()) {
      where += " [OAuth client " + entry.oauth_client_id;
      if (!entry.oauth_grant.grant.empty()) where += ", " + entry.oauth_grant.grant;
      where += "]";
    }
  }
  std::string state = entry.enabled ? "enabled" : "disabled";
  for (const auto& [folder, on] : entry.projects)
    state += fmt::format(", {} in {}", on ? "enabled" : "disabled", folder);
  if (project != nullptr)
    state = capabilities::enabled_for(entry, *project) ? "enabled here" : "disabled here";
  if (has_sign_in && *has_sign_in) state += ", signed in";
  return fmt::format("{}  {}  {}  ({})\n", entry.name, entry.transport, where, state);
}

Result<int> list(bool as_json, bool show_secrets, const std::string& project) {
  AVA_TRY(auto store, open_store());
  AVA_TRY(auto servers, store.servers());
  const fs::path folder = project.empty() ? fs::path() : project_key(project);
  if (as_json) {
    json out = json::array();
    for (const auto& entry : servers) {
      json item = protocol::to_json(capabilities::server_view(entry, show_secrets));
      if (!project.empty()) item["enabledHere"] = capabilities::enabled_for(entry, folder);
      if (auto in = signed_in(store, entry)) item["signedIn"] = *in;
      out.push_back(std::move(item));
    }
    std::printf("%s\n", json{{"servers", out}}.dump(2).c_str());
    return 0;
  }
  if (servers.empty()) std::puts("No MCP servers configured (ava mcp add NAME -- COMMAND ...)");
  for (const auto& entry : servers) {
    std::fputs(
        describe(entry, project.empty() ? nullptr : &folder, signed_in(store, entry), show_secrets)
            .c_str(),
        stdout);
    if (show_secrets) {
      for (const auto& [key, value] : entry.env)
        std::printf("    env %s=%s\n", key.c_str(), value.c_str());
      for (const auto& [key, value] : entry.headers)
        std::printf("    header %s: %s\n", key.c_str(), value.c_str());
    }
  }
  return 0;
}

Result<int> remove(const std::string& name) {
  AVA_TRY(auto store, open_store());
  AVA_TRY_VOID(store.remove_server(name));
  std::printf("Removed MCP server %s\n", name.c_str());
  return 0;
}

Result<int> set_enabled(const std::string& name, const std::string& project, bool enabled) {
  AVA_TRY(auto store, open_store());
  std::optional<fs::path> folder;
  if (!project.empty()) folder = project_key(project);
  AVA_TRY_VOID(store.set_enabled(name, folder, enabled));
  std::printf("%s %s%s\n", enabled ? "Enabled" : "Disabled", name.c_str(),
              folder ? (" in " + folder->string()).c_str() : "");
  return 0;
}

Result<int> test(const std::string& name, int timeout_ms, bool as_json) {
  AVA_TRY(auto home, base::Home::resolve());
  AVA_TRY(auto store, capabilities::CapabilitiesStore::open(home));
  AVA_TRY(auto entry, store.server(name));
  if (!entry) return fail(ErrorCode::not_found, "no MCP server named " + name);
  asio::io_context io;
  std::optional<Result<capabilities::McpProbe>> outcome;
  asio::co_spawn(io,
                 capabilities::probe_server(io.get_executor(), std::move(*entry), home,
                                            std::chrono::milliseconds(timeout_ms)),
                 [&outcome](const std::exception_ptr& error, Result<capabilities::McpProbe> probe) {
                   if (error) std::rethrow_exception(error);
                   outcome = std::move(probe);
                 });
  io.run();
  if (!outcome) return fail(ErrorCode::internal, "server " + name + ": no outcome");
  if (!*outcome) return std::unexpected(std::move(*outcome).error().with_context("server " + name));
  const capabilities::McpProbe& probe = **outcome;
  if (as_json) {
    std::printf("%s\n", protocol::to_json(capabilities::probe_view(probe)).dump(2).c_str());
    return 0;
  }
  std::printf("Server: %s %s\nProtocol version: %s\nTools (%zu):\n", probe.server.name.c_str(),
              probe.server.version.c_str(), probe.server.protocol_version.c_str(),
              probe.tools.size());
  for (const auto& tool : probe.tools) {
    std::string line = tool.description.substr(0, tool.description.find('\n'));
    if (line.size() > 100) line = line.substr(0, 97) + "...";
    std::printf("  %s  %s\n", tool.name.c_str(), line.c_str());
  }
  return 0;
}

// A file that is not a valid server list is a usage error (exit 2); one
// that cannot be read is not.
Result<int> import(const std::string& file, const std::string& project, bool replace) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return fail(ErrorCode::not_found, "cannot read " + file);
  const std::string text{std::istreambuf_iterator<char>(in), {}};
  auto document = json::parse(text, nullptr, false);
  if (document.is_discarded()) {
    return usage_error(command_name,
                       {ErrorCode::parse, file + " is not valid JSON; nothing was imported"});
  }
  std::optional<fs::path> scope;
  if (!project.empty()) scope = project_key(project);
  auto entries =
      capabilities::parse_mcp_servers(document, "import:" + fs::absolute(file).string(), scope);
  if (!entries) {
    return usage_error(command_name, {entries.error().code, file + ": " + entries.error().message +
                                                                "; nothing was imported"});
  }
  AVA_TRY(auto store, open_store());
  AVA_TRY(auto report, store.import_servers(std::move(*entries), replace));
  for (const auto& name : report.added) std::printf("Added MCP server %s\n", name.c_str());
  for (const auto& name : report.replaced) std::printf("Replaced MCP server %s\n", name.c_str());
  if (report.added.empty() && report.replaced.empty()) std::puts("No servers in the file");
  return 0;
}

}  // namespace

CLI::App& mcp_command(CLI::App& cli) {
  // Whichever command file comes first creates it; the others attach.
  const auto found =
      cli.get_subcommands([](const CLI::App* sub) { return sub->get_name() == "mcp"; });
  if (!found.empty()) return *found.front();
  auto* mcp = cli.add_subcommand("mcp", "Configure the MCP servers agents use");
  mcp->require_subcommand(1);
  return *mcp;
}

void add_mcp_commands(CLI::App& cli, CliContext& context) {
  CLI::App& mcp = mcp_command(cli);

  auto add_flags = std::make_shared<AddFlags>();
  auto* add_command = mcp.add_subcommand(
      "add",
      "Add a server: ava mcp add NAME [--env K=V]... -- COMMAND ARGS..., or ava mcp add NAME "
      "--url URL [--header 'K: V']... [--client-id ID [--client-secret S]]");
  add_command->add_option("name", add_flags->name, "The server's name (A-Z a-z 0-9 _ -)")
      ->required();
  add_command->add_option("command", add_flags->command, "After --: the command and its arguments");
  add_command->add_option("-e,--env", add_flags->env, "An environment variable K=V (secret)");
  add_command->add_option("--cwd", add_flags->cwd, "The server's working directory");
  add_command->add_option("--url", add_flags->url, "A Streamable HTTP endpoint");
  add_command->add_option("-H,--header", add_flags->headers, "An HTTP header 'K: V' (secret)");
  add_command->add_option("--client-id", add_flags->client_id,
                          "A pre-registered OAuth client for `ava mcp login` (default: Ava "
                          "registers itself with the authorization server)");
  add_command->add_option("--client-secret", add_flags->client_secret,
                          "That client's secret, if it has one (secret)");
  add_command->add_flag("--client-credentials", add_flags->client_credentials,
                        "Get tokens with the client's own credentials (no browser): "
                        "--client-id with --client-secret or --private-key-file");
  add_command->add_flag("--cross-app-access", add_flags->cross_app_access,
                        "Get tokens through the enterprise identity provider (SEP-990): "
                        "--idp-token-endpoint, --idp-client-id, --id-token-file");
  add_command->add_option("--private-key-file", add_flags->private_key_file,
                          "A PEM key (EC P-256/P-384 or RSA): the client authenticates with a "
                          "signed JWT (private_key_jwt); kept in the store (secret)");
  add_command->add_option("--signing-alg", add_flags->signing_algorithm,
                          "ES256, ES384, RS256 or PS256 (default: the key's own)");
  add_command->add_option("--scope", add_flags->scope, "The scope to ask for (machine grants)");
  add_command->add_option("--issuer", add_flags->issuer,
                          "The authorization server the client belongs to; any other is refused "
                          "(default: the first one that issues a token)");
  add_command->add_option("--idp-token-endpoint", add_flags->idp_token_endpoint,
                          "The identity provider's token endpoint (cross-app access)");
  add_command->add_option("--idp-client-id", add_flags->idp_client_id,
                          "Ava's client id at the identity provider");
  add_command->add_option("--idp-client-secret", add_flags->idp_client_secret,
                          "That client's secret, if it has one (secret)");
  add_command->add_option("--id-token-file", add_flags->id_token_file,
                          "A file holding the user's ID token from the identity provider, kept "
                          "fresh by your SSO tool; read at every exchange");
  add_command->add_option("--sandbox", add_flags->sandbox,
                          "Run a stdio server in a sandbox: workspace-write (writes only under "
                          "its folder), read-only, or off (the default)");
  add_command->add_flag("--sandbox-network", add_flags->sandbox_network,
                        "Let the sandboxed server use the network (off by default)");
  add_command->add_option("--writable-root", add_flags->writable_roots,
                          "Another folder the sandboxed server may write (repeatable)");
  add_command->add_flag("--disabled", add_flags->disabled, "Add it switched off");
  add_command->add_option("--project", add_flags->project, "Enable it only in this project folder");
  add_command->add_flag("--replace", add_flags->replace, "Replace a server of the same name");
  add_command->callback([&context, add_flags] { finish(context, command_name, add(*add_flags)); });

  auto list_json = std::make_shared<bool>(false);
  auto show_secrets = std::make_shared<bool>(false);
  auto list_project = std::make_shared<std::string>();
  auto* list_command = mcp.add_subcommand("list", "List the configured servers (secrets redacted)");
  list_command->add_flag("--json", *list_json, "Print JSON");
  list_command->add_flag("--show-secrets", *show_secrets,
                         "Print env and header values, arguments and URLs unmasked");
  list_command->add_option("--project", *list_project,
                           "Say whether each is enabled in this folder");
  list_command->callback([&context, list_json, show_secrets, list_project] {
    finish(context, command_name, list(*list_json, *show_secrets, *list_project));
  });

  auto remove_name = std::make_shared<std::string>();
  auto* remove_command = mcp.add_subcommand("remove", "Remove a server");
  remove_command->add_option("name", *remove_name, "The server's name")->required();
  remove_command->callback(
      [&context, remove_name] { finish(context, command_name, remove(*remove_name)); });

  for (const bool enable : {true, false}) {
    auto name = std::make_shared<std::string>();
    auto project = std::make_shared<std::string>();
    auto* command = mcp.add_subcommand(enable ? "enable" : "disable",
                                       enable ? "Switch a server on (everywhere or in a project)"
                                              : "Switch a server off (everywhere or in a project)");
    command->add_option("name", *name, "The server's name")->required();
    command->add_option("--project", *project, "Only in this project folder");
    command->callback([&context, name, project, enable] {
      finish(context, command_name, set_enabled(*name, *project, enable));
    });
  }

  auto test_name = std::make_shared<std::string>();
  auto test_timeout = std::make_shared<int>(30'000);
  auto test_json = std::make_shared<bool>(false);
  auto* test_command = mcp.add_subcommand(
      "test", "Connect to a server and print its name, protocol version and tools");
  test_command->add_option("name", *test_name, "The server's name")->required();
  test_command->add_option("--timeout", *test_timeout, "Milliseconds to wait for initialize")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  test_command->add_flag("--json", *test_json, "Print JSON");
  test_command->callback([&context, test_name, test_timeout, test_json] {
    finish(context, command_name, test(*test_name, *test_timeout, *test_json));
  });

  auto import_file = std::make_shared<std::string>();
  auto import_project = std::make_shared<std::string>();
  auto import_replace = std::make_shared<bool>(false);
  auto* import_command = mcp.add_subcommand(
      "import", "Import the mcpServers of a JSON file (.mcp.json, ~/.claude.json, ...)");
  import_command->add_option("file", *import_file, "The JSON file")->required();
  import_command->add_option("--project", *import_project,
                             "Enable the imported servers only in this project folder");
  import_command->add_flag("--replace", *import_replace, "Replace servers of the same name");
  import_command->callback([&context, import_file, import_project, import_replace] {
    finish(context, command_name, import(*import_file, *import_project, *import_replace));
  });
}

}  // namespace ava::cli
