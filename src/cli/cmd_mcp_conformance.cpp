// `ava mcp conformance-client URL`: the client the official MCP conformance
// runner (@modelcontextprotocol/conformance) drives. The runner starts its
// own server, then this command with the server's URL, the scenario name in
// MCP_CONFORMANCE_SCENARIO and, for some OAuth scenarios, JSON in
// MCP_CONFORMANCE_CONTEXT (a pre-registered client id and secret, a
// private key, an identity provider's ID token). It runs
// Ava's real client: Streamable HTTP, OAuth with a sign-in page opened by a
// plain GET that follows the redirects, initialize, tools/list, and the
// tools/call each scenario checks. Exit status 0 when every step worked.

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <optional>
#include <string>

#include <fmt/format.h>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/this_coro.hpp>
#include <nlohmann/json.hpp>

#include "ava/mcp/client.hpp"
#include "ava/mcp/http_transport.hpp"
#include "ava/mcp/session.hpp"
#include "ava/oauth/oauth.hpp"
#include "cli/commands.hpp"

namespace ava::cli {

namespace {

namespace asio = boost::asio;
using nlohmann::json;

// The client ID metadata document URL the conformance authorization server
// expects (it does not fetch it).
constexpr const char* conformance_client_metadata =
    "https://conformance-test.local/client-metadata.json";

std::string env(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? std::string() : std::string(value);
}

// Arguments for a tool the scenarios call: add_numbers (tools_call) takes
// two numbers, the OAuth scenarios' test-tool none.
json arguments_for(const std::string& tool) {
  if (tool == "add_numbers") return json{{"a", 5}, {"b", 3}};
  return json::object();
}

// elicitation/create (form mode): accepted with each field's default, as
// the elicitation scenario checks (SEP-1034). Only this command answers
// elicitations; an agent has nobody to ask yet.
std::optional<json> answer_server_request(const std::string& method, const json& params) {
  if (method != "elicitation/create") return std::nullopt;
  json content = json::object();
  const auto schema = params.value("requestedSchema", json::object());
  const auto properties = schema.value("properties", json::object());
  for (const auto& [name, field] : properties.items()) {
    if (field.is_object() && field.contains("default")) content[name] = field["default"];
  }
  return json{{"action", "accept"}, {"content", content}};
}

// The extension scenarios: client credentials with a secret
// (auth/client-credentials-basic) or a key (private_key_pem), and
// cross-app access (the IdP's token endpoint and an ID token it issued).
void configure_machine_grant(oauth::OAuthConfig& oauth, const std::string& scenario,
                             const json& context) {
  const auto text = [&context](const char* key) { return context.value(key, std::string()); };
  if (!text("idp_id_token").empty()) {
    oauth.grant = oauth::Grant::cross_app_access;
    oauth.identity_provider.token_endpoint = text("idp_token_endpoint");
    oauth.identity_provider.client_id = text("idp_client_id");
    oauth.identity_provider.id_token = [token = text("idp_id_token")]() -> Result<std::string> {
      return token;
    };
  } else if (!text("private_key_pem").empty()) {
    oauth.grant = oauth::Grant::client_credentials;
    oauth.private_key_pem = text("private_key_pem");
    oauth.signing_algorithm = text("signing_algorithm");
  } else if (scenario.starts_with("auth/client-credentials")) {
    oauth.grant = oauth::Grant::client_credentials;
  }
}

json client_capabilities() { return json{{"elicitation", json::object()}}; }

asio::awaitable<Result<void>> run(std::string url, std::string scenario, json context) {
  auto executor = co_await asio::this_coro::executor;
  oauth::OAuthConfig oauth;
  oauth.server_name = "conformance";
  oauth.server_url = url;
  oauth.client_id = context.value("client_id", std::string());
  oauth.client_secret = context.value("client_secret", std::string());
  configure_machine_grant(oauth, scenario, context);
  oauth.client_metadata_url = conformance_client_metadata;
  oauth.store = std::make_shared<oauth::MemoryCredentialStore>();
  oauth.open_url = oauth::http_get_opener(oauth.http);
  oauth.login_timeout = std::chrono::seconds(20);
  mcp::HttpServer server;
  server.url = url;
  server.oauth = oauth::OAuthClient::create(executor, std::move(oauth));
  mcp::SessionOptions options;
  options.client_name = "ava-conformance-client";
  options.initialize_timeout = std::chrono::seconds(20);
  options.capabilities = client_capabilities();
  options.on_request = answer_server_request;
  auto connected = co_await mcp::Session::connect(executor, mcp::make_http_transport(server),
                                                  std::move(options));
  AVA_CO_TRY(auto session, std::move(connected));
  std::fprintf(stderr, "connected to %s (%s, protocol %s) for %s\n", url.c_str(),
               session->server().name.c_str(), session->server().protocol_version.c_str(),
               scenario.c_str());
  mcp::ListOptions list;
  auto listed = co_await mcp::list_tools(*session, list);
  Result<void> outcome;
  std::vector<mcp::ToolInfo> tools;
  if (listed) {
    tools = std::move(*listed);
  } else {
    outcome = std::unexpected(listed.error());
  }
  for (const auto& tool : tools) {
    mcp::RequestOptions call;
    call.timeout = std::chrono::seconds(20);
    auto result = co_await mcp::call_tool(*session, tool.name, arguments_for(tool.name), call);
    if (!result) {
      outcome = std::unexpected(result.error());
      break;
    }
    std::printf("%s: %s\n", tool.name.c_str(), result->dump().c_str());
  }
  co_await session->close();
  co_return outcome;
}

// The runner's log shows the failure's code too: "ava mcp conformance-client:
// <code>: <message>".
constexpr CommandName command_name{"mcp conformance-client"};

Result<int> conformance_client(const std::string& url) {
  const auto scenario = env("MCP_CONFORMANCE_SCENARIO");
  json context = json::parse(env("MCP_CONFORMANCE_CONTEXT"), nullptr, false);
  if (!context.is_object()) context = json::object();
  asio::io_context io;
  Result<void> outcome = fail(ErrorCode::internal, "did not run");
  asio::co_spawn(io, run(url, scenario, std::move(context)),
                 [&outcome](const std::exception_ptr& failure, Result<void> done) {
                   outcome =
                       failure ? fail(ErrorCode::internal, "the client threw") : std::move(done);
                 });
  io.run();
  if (!outcome) return fail(outcome.error().code, outcome.error().describe());
  return 0;
}

}  // namespace

void add_mcp_conformance_command(CLI::App& mcp, CliContext& context) {
  auto* command =
      mcp.add_subcommand("conformance-client",
                         "Run one MCP conformance scenario against URL (MCP_CONFORMANCE_SCENARIO, "
                         "MCP_CONFORMANCE_CONTEXT), for @modelcontextprotocol/conformance");
  auto url = std::make_shared<std::string>();
  command->add_option("url", *url, "The MCP server's URL")->required();
  command->callback([&context, url] { finish(context, command_name, conformance_client(*url)); });
}

}  // namespace ava::cli
