// The capabilities store (AVA_HOME/capabilities.sqlite3) and the mcpServers
// import, on real SQLite files.
#include <sys/stat.h>

#include <chrono>
#include <fstream>
#include <thread>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "ava/capabilities/capabilities_store.hpp"
#include "ava/capabilities/stored_credentials.hpp"
#include "support/temp_dir.hpp"

using namespace ava;
using nlohmann::json;

namespace {

capabilities::McpServerEntry stdio_entry(std::string name) {
  capabilities::McpServerEntry entry;
  entry.name = std::move(name);
  entry.command = "node";
  entry.args = {"server.js", "--flag"};
  entry.env = {{"API_TOKEN", "s3cret"}};
  entry.source = "cli";
  return entry;
}

capabilities::McpServerEntry http_entry(std::string name) {
  capabilities::McpServerEntry entry;
  entry.name = std::move(name);
  entry.transport = "http";
  entry.url = "https://mcp.example/mcp";
  entry.headers = {{"Authorization", "Bearer hunter2"}};
  return entry;
}

// An HTTP server without an Authorization header of its own: it signs in.
capabilities::McpServerEntry oauth_entry(std::string name) {
  auto entry = http_entry(std::move(name));
  entry.headers.clear();
  return entry;
}

unsigned mode_of(const std::filesystem::path& file) {
  struct stat info {};
  REQUIRE(::stat(file.c_str(), &info) == 0);
  return info.st_mode & 0777;
}

}  // namespace

TEST_CASE("the store keeps servers across opens, owner-only", "[capabilities][capabilities]") {
  test::TempDir dir;
  const auto file = dir.path() / "capabilities.sqlite3";
  {
    auto store = capabilities::CapabilitiesStore::open_file(file);
    REQUIRE(store);
    REQUIRE(store->add_server(stdio_entry("fs"), false));
    REQUIRE(store->add_server(http_entry("remote"), false));
    auto again = store->add_server(stdio_entry("fs"), false);
    REQUIRE_FALSE(again);
    CHECK(again.error().code == ErrorCode::already_exists);
    // While open, the write-ahead log beside it is as private.
    CHECK(mode_of(file.string() + "-wal") == 0600);
  }
  CHECK(mode_of(file) == 0600);
  auto store = capabilities::CapabilitiesStore::open_file(file);
  REQUIRE(store);
  auto servers = store->servers();
  REQUIRE(servers);
  REQUIRE(servers->size() == 2);
  const auto& fs = (*servers)[0];
  CHECK(fs.name == "fs");
  CHECK(fs.args == std::vector<std::string>{"server.js", "--flag"});
  CHECK(fs.env.at("API_TOKEN") == "s3cret");
  CHECK(fs.enabled);
  CHECK((*servers)[1].headers.at("Authorization") == "Bearer hunter2");

  REQUIRE(store->remove_server("fs"));
  auto missing = store->remove_server("fs");
  REQUIRE_FALSE(missing);
  CHECK(missing.error().code == ErrorCode::not_found);
  CHECK(store->servers()->size() == 1);
}

TEST_CASE("a newer schema is refused rather than misread", "[capabilities][capabilities]") {
  test::TempDir dir;
  const auto file = dir.path() / "capabilities.sqlite3";
  REQUIRE(capabilities::CapabilitiesStore::open_file(file));
  const std::string bump = "python3 -c \"import sqlite3; c = sqlite3.connect('" + file.string() +
                           "'); c.execute('PRAGMA user_version = 9'); c.commit()\"";
  REQUIRE(std::system(bump.c_str()) == 0);
  auto reopened = capabilities::CapabilitiesStore::open_file(file);
  REQUIRE_FALSE(reopened);
  CHECK(reopened.error().code == ErrorCode::unsupported);
}

TEST_CASE("servers are switched per project", "[capabilities][capabilities]") {
  test::TempDir dir;
  auto store = capabilities::CapabilitiesStore::open_file(dir.path() / "c.sqlite3");
  REQUIRE(store);
  REQUIRE(store->add_server(stdio_entry("fs"), false));
  auto off = store->set_enabled("fs", std::filesystem::path("/work/a"), false);
  REQUIRE(off);
  CHECK_FALSE(capabilities::enabled_for(*off, "/work/a"));
  CHECK(capabilities::enabled_for(*off, "/work/b"));
  auto global_off = store->set_enabled("fs", std::nullopt, false);
  REQUIRE(global_off);
  auto on_in_b = store->set_enabled("fs", std::filesystem::path("/work/b"), true);
  REQUIRE(on_in_b);
  CHECK(capabilities::enabled_for(*on_in_b, "/work/b"));
  CHECK_FALSE(capabilities::enabled_for(*on_in_b, "/work/c"));
  auto cleared = store->set_enabled("fs", std::filesystem::path("/work/a"), std::nullopt);
  REQUIRE(cleared);
  CHECK(cleared->projects.count("/work/a") == 0);
  // Replacing a server keeps its switches.
  REQUIRE(store->add_server(stdio_entry("fs"), true));
  CHECK(store->server("fs")->value().projects.at("/work/b"));
  CHECK(store->set_enabled("nope", std::nullopt, true).error().code == ErrorCode::not_found);
}

TEST_CASE("tool lists are cached per configuration", "[capabilities][capabilities]") {
  test::TempDir dir;
  auto store = capabilities::CapabilitiesStore::open_file(dir.path() / "c.sqlite3");
  REQUIRE(store);
  auto entry = stdio_entry("fs");
  REQUIRE(store->add_server(entry, false));
  const json tools = json::array({{{"name", "read_text_file"}}});
  REQUIRE(store->cache_tools("fs", capabilities::fingerprint(entry), tools));
  CHECK(store->cached_tools("fs", capabilities::fingerprint(entry))->value() == tools);
  entry.args.push_back("/other");
  CHECK_FALSE(store->cached_tools("fs", capabilities::fingerprint(entry))->has_value());
  // Removing the server drops its cache; caching for an unknown server does nothing.
  REQUIRE(store->remove_server("fs"));
  REQUIRE(store->cache_tools("fs", "x", tools));
  CHECK_FALSE(store->cached_tools("fs", "x")->has_value());
}

TEST_CASE("skill availability is kept per project", "[capabilities][capabilities]") {
  test::TempDir dir;
  auto store = capabilities::CapabilitiesStore::open_file(dir.path() / "c.sqlite3");
  REQUIRE(store);
  CHECK_FALSE(store->skill_enabled("pdf", "")->has_value());
  REQUIRE(store->set_skill_enabled("pdf", "", false));
  REQUIRE(store->set_skill_enabled("pdf", "/work/a", true));
  CHECK(store->skill_enabled("pdf", "")->value() == false);
  CHECK(store->skill_enabled("pdf", "/work/a")->value() == true);
  REQUIRE(store->set_skill_enabled("pdf", "", std::nullopt));
  CHECK_FALSE(store->skill_enabled("pdf", "")->has_value());
}

TEST_CASE("two writers at once both land", "[capabilities][capabilities]") {
  test::TempDir dir;
  const auto file = dir.path() / "c.sqlite3";
  REQUIRE(capabilities::CapabilitiesStore::open_file(file));
  auto writer = [&](int base) {
    auto store = capabilities::CapabilitiesStore::open_file(file);
    REQUIRE(store);
    for (int i = 0; i < 20; ++i)
      REQUIRE(store->add_server(stdio_entry("s" + std::to_string(base + i)), false));
  };
  std::thread first(writer, 0);
  std::thread second(writer, 100);
  first.join();
  second.join();
  CHECK(capabilities::CapabilitiesStore::open_file(file)->servers()->size() == 40);
}

TEST_CASE("mcpServers documents are imported", "[capabilities][capabilities]") {
  const json document = json::parse(R"({
    "mcpServers": {
      "fs": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"],
             "env": {"DEBUG": "1"}},
      "remote": {"type": "http", "url": "https://mcp.example/mcp",
                 "headers": {"Authorization": "Bearer x"}},
      "plain": {"url": "http://127.0.0.1:9/mcp"}
    },
    "projects": {"/work/p": {"mcpServers": {"local": {"type": "stdio", "command": "./srv"}}}}
  })");
  auto entries = capabilities::parse_mcp_servers(document, "import:x.json", std::nullopt);
  REQUIRE(entries);
  REQUIRE(entries->size() == 4);
  CHECK((*entries)[0].name == "fs");
  CHECK((*entries)[0].env.at("DEBUG") == "1");
  CHECK((*entries)[1].transport == "http");
  CHECK((*entries)[2].transport == "http");
  const auto& local = (*entries)[3];
  CHECK(local.name == "local");
  CHECK_FALSE(local.enabled);
  CHECK(capabilities::enabled_for(local, "/work/p"));
  CHECK_FALSE(capabilities::enabled_for(local, "/work/q"));

  auto scoped =
      capabilities::parse_mcp_servers(json::parse(R"({"mcpServers": {"a": {"command": "x"}}})"),
                                      "import:.mcp.json", std::filesystem::path("/work/r"));
  REQUIRE(scoped);
  CHECK_FALSE((*scoped)[0].enabled);
  CHECK((*scoped)[0].projects.at("/work/r"));
}

TEST_CASE("a malformed document names the problem and imports nothing",
          "[capabilities][capabilities]") {
  test::TempDir dir;
  auto store = capabilities::CapabilitiesStore::open_file(dir.path() / "c.sqlite3");
  REQUIRE(store);
  REQUIRE(store->add_server(stdio_entry("keep"), false));
  auto check_refused = [&](const char* text, const std::string& says) {
    INFO(text);
    auto entries =
        capabilities::parse_mcp_servers(json::parse(text), "import:bad.json", std::nullopt);
    REQUIRE_FALSE(entries);
    CHECK_THAT(entries.error().message, Catch::Contains(says));
  };
  check_refused(R"({"servers": {}})", "no \"mcpServers\"");
  check_refused(R"({"mcpServers": []})", "mcpServers must be an object");
  check_refused(R"({"mcpServers": {"a": {"command": "x"}, "b": {"args": ["y"]}}})",
                "server b: a stdio server needs a command");
  check_refused(R"({"mcpServers": {"a": {"command": "x", "args": "y"}}})", "args must be an array");
  check_refused(R"({"mcpServers": {"a": {"command": "x", "env": {"K": 1}}}})",
                "env.K must be a string");
  check_refused(R"({"mcpServers": {"a": {"type": "sse", "url": "http://x/sse"}}})",
                "legacy HTTP+SSE");
  check_refused(R"({"mcpServers": {"bad name": {"command": "x"}}})", "may only use");
  check_refused(R"({"mcpServers": {"a__b": {"command": "x"}}})", "must not contain \"__\"");
  check_refused(R"({"mcpServers": {"a": {"type": "http", "url": "ftp://x"}}})",
                "http:// or https://");

  // A clash with what is configured fails the whole import.
  auto entries = capabilities::parse_mcp_servers(
      json::parse(R"({"mcpServers": {"new": {"command": "x"}, "keep": {"command": "y"}}})"), "i",
      std::nullopt);
  REQUIRE(entries);
  auto clash = store->import_servers(*entries, false);
  REQUIRE_FALSE(clash);
  CHECK_THAT(clash.error().message, Catch::Contains("keep"));
  auto after = store->servers();
  REQUIRE(after->size() == 1);
  CHECK(after->front().command == "node");
  auto replaced = store->import_servers(*entries, true);
  REQUIRE(replaced);
  CHECK(replaced->added == std::vector<std::string>{"new"});
  CHECK(replaced->replaced == std::vector<std::string>{"keep"});
  CHECK(store->server("keep")->value().command == "y");
}

TEST_CASE("listing redacts secrets unless asked", "[capabilities][capabilities]") {
  const auto shown = protocol::to_json(capabilities::server_view(stdio_entry("fs"), false));
  CHECK(shown["env"]["API_TOKEN"] == "<redacted>");
  CHECK(shown.dump().find("s3cret") == std::string::npos);
  CHECK(protocol::to_json(capabilities::server_view(stdio_entry("fs"), true))["env"]["API_TOKEN"] ==
        "s3cret");
  const auto remote = protocol::to_json(capabilities::server_view(http_entry("r"), false));
  CHECK(remote["headers"]["Authorization"] == "<redacted>");
  CHECK(remote.dump().find("hunter2") == std::string::npos);
}

namespace {

oauth::OAuthCredentials signed_in_as(std::string token) {
  oauth::OAuthCredentials credentials;
  credentials.client_id = "client-1";
  credentials.access_token = std::move(token);
  credentials.refresh_token = "refresh-1";
  credentials.expires_at = std::chrono::system_clock::now() + std::chrono::hours(1);
  credentials.resource = "https://mcp.example/mcp";
  return credentials;
}

}  // namespace

TEST_CASE("stored OAuth credentials are fenced across processes",
          "[capabilities][capabilities][oauth]") {
  test::TempDir dir;
  auto home = base::Home::at(dir.path());
  REQUIRE(home);
  // Two instances stand for two processes (the backend and `ava mcp`).
  capabilities::StoredCredentials backend(*home);
  capabilities::StoredCredentials cli(*home);
  CHECK(backend.generation("remote").value() == 0);
  CHECK_FALSE(backend.load("remote").value().has_value());

  REQUIRE(cli.save("remote", signed_in_as("at-1"), 0));
  const auto loaded = backend.load("remote").value();
  REQUIRE(loaded.has_value());
  CHECK(loaded->access_token == "at-1");
  CHECK(loaded->expires_at.has_value());
  CHECK(backend.signed_in("remote").value());

  // A save keeps the generation but moves the revision on: the other
  // process knows to load again.
  const auto revision = backend.revision("remote").value();
  REQUIRE(cli.save("remote", signed_in_as("at-2"), 0));
  CHECK(backend.revision("remote").value() > revision);
  CHECK(backend.generation("remote").value() == 0);

  // A sign-out elsewhere fences off a refresh that read generation 0.
  REQUIRE(cli.erase("remote"));
  CHECK(backend.generation("remote").value() == 1);
  auto stale = backend.save("remote", signed_in_as("at-3"), 0);
  REQUIRE_FALSE(stale);
  CHECK(stale.error().code == ErrorCode::conflict);
  CHECK_FALSE(backend.load("remote").value().has_value());
  CHECK_FALSE(backend.signed_in("remote").value());
  REQUIRE(backend.save("remote", signed_in_as("at-4"), 1));
  CHECK(cli.load("remote").value()->access_token == "at-4");
}

TEST_CASE("removing or re-pointing a server ends its sign-in for good",
          "[capabilities][capabilities][oauth]") {
  test::TempDir dir;
  auto home = base::Home::at(dir.path());
  REQUIRE(home);
  auto store = capabilities::CapabilitiesStore::open(*home);
  REQUIRE(store);
  auto entry = oauth_entry("remote");
  REQUIRE(store->add_server(entry, false));
  capabilities::StoredCredentials credentials(*home);
  REQUIRE(credentials.save("remote", signed_in_as("at-1"), 0));

  // Replaced with the same URL: the sign-in stays.
  REQUIRE(store->add_server(entry, true));
  CHECK(credentials.signed_in("remote").value());
  // Another endpoint: it goes, and the generation moves on.
  entry.url = "https://other.example/mcp";
  REQUIRE(store->add_server(entry, true));
  CHECK_FALSE(credentials.signed_in("remote").value());
  CHECK(credentials.generation("remote").value() == 1);

  // Removed, with a sign-in in flight that read generation 1: it cannot
  // come back when the server is added again under the same name.
  REQUIRE(store->remove_server("remote"));
  REQUIRE(store->add_server(entry, false));
  auto late = credentials.save("remote", signed_in_as("at-2"), 1);
  REQUIRE_FALSE(late);
  CHECK(late.error().code == ErrorCode::conflict);
}

TEST_CASE("a schema 1 store is upgraded in place", "[capabilities][capabilities][oauth]") {
  test::TempDir dir;
  const auto file = dir.path() / "capabilities.sqlite3";
  // Two tables as schema 1 made them, with a row each.
  const std::string old =
      "python3 -c \"import sqlite3; c = sqlite3.connect('" + file.string() +
      "'); c.executescript('CREATE TABLE oauth_credentials(server TEXT PRIMARY KEY, generation "
      "INTEGER NOT NULL DEFAULT 0, data TEXT NOT NULL, updated_ms INTEGER NOT NULL); INSERT INTO "
      "oauth_credentials VALUES(\\\"remote\\\", 3, \\\"{}\\\", 0); CREATE TABLE mcp_servers(name "
      "TEXT PRIMARY KEY, transport TEXT NOT NULL, command TEXT NOT NULL DEFAULT \\\"\\\", args "
      "TEXT "
      "NOT NULL DEFAULT \\\"[]\\\", env TEXT NOT NULL DEFAULT \\\"{}\\\", cwd TEXT NOT NULL "
      "DEFAULT "
      "\\\"\\\", url TEXT NOT NULL DEFAULT \\\"\\\", headers TEXT NOT NULL DEFAULT \\\"{}\\\", "
      "enabled "
      "INTEGER NOT NULL DEFAULT 1, source TEXT NOT NULL DEFAULT \\\"\\\", created_ms INTEGER NOT "
      "NULL, updated_ms INTEGER NOT NULL); CREATE TABLE mcp_server_projects(server TEXT NOT NULL, "
      "project TEXT NOT NULL, enabled INTEGER NOT NULL, PRIMARY KEY(server, project)); INSERT "
      "INTO mcp_servers(name, transport, url, created_ms, updated_ms) VALUES(\\\"remote\\\", "
      "\\\"http\\\", \\\"https://mcp.example/mcp\\\", 1, 1); PRAGMA user_version = 1;')\"";
  REQUIRE(std::system(old.c_str()) == 0);
  auto store = capabilities::CapabilitiesStore::open_file(file);
  REQUIRE(store);
  const auto row = store->oauth_row("remote");
  REQUIRE(row);
  CHECK(row->generation == 3);
  CHECK(row->revision == 0);
  CHECK(row->data == "{}");
  REQUIRE(store->save_oauth("remote", "{\"x\":1}", 3));
  CHECK(store->oauth_row("remote")->revision == 1);
  // v3: the server has no pre-registered client until one is configured.
  auto server = store->server("remote");
  REQUIRE(server);
  REQUIRE(server->has_value());
  CHECK((*server)->url == "https://mcp.example/mcp");
  CHECK((*server)->oauth_client_id.empty());
  // v4: nor a sandbox.
  CHECK((*server)->sandbox == proc::SandboxMode::off);
}

TEST_CASE("a pre-registered OAuth client is kept, redacted, and owns its sign-in",
          "[capabilities][capabilities][oauth]") {
  test::TempDir dir;
  auto home = base::Home::at(dir.path());
  REQUIRE(home);
  auto store = capabilities::CapabilitiesStore::open(*home);
  REQUIRE(store);
  auto entry = oauth_entry("remote");
  entry.oauth_client_id = "ava-house";
  entry.oauth_client_secret = "client-s3cret";
  REQUIRE(store->add_server(entry, false));
  auto stored = store->server("remote");
  REQUIRE(stored);
  REQUIRE(stored->has_value());
  CHECK((*stored)->oauth_client_id == "ava-house");
  CHECK((*stored)->oauth_client_secret == "client-s3cret");

  const auto shown = protocol::to_json(capabilities::server_view(**stored, false));
  CHECK(shown["oauth"] == json{{"clientId", "ava-house"}, {"clientSecret", "<redacted>"}});
  CHECK(shown.dump().find("client-s3cret") == std::string::npos);
  CHECK(protocol::to_json(capabilities::server_view(**stored, true))["oauth"]["clientSecret"] ==
        "client-s3cret");
  auto parsed = capabilities::entry_from_json("remote", shown);
  REQUIRE(parsed);
  CHECK(parsed->oauth_client_id == "ava-house");

  capabilities::StoredCredentials credentials(*home);
  REQUIRE(credentials.save("remote", signed_in_as("at-1"), 0));
  // The same client: the sign-in stays; another client: it goes.
  REQUIRE(store->add_server(entry, true));
  CHECK(credentials.signed_in("remote").value());
  entry.oauth_client_id = "another";
  REQUIRE(store->add_server(entry, true));
  CHECK_FALSE(credentials.signed_in("remote").value());

  // Only HTTP servers have one, and a secret needs its id.
  auto local = stdio_entry("local");
  local.oauth_client_id = "x";
  CHECK(capabilities::validate(local).error().code == ErrorCode::invalid_argument);
  entry.oauth_client_id.clear();
  CHECK(capabilities::validate(entry).error().message.find("needs its client id") !=
        std::string::npos);
}

TEST_CASE("machine grants are read from mcpServers JSON, kept, redacted and checked",
          "[capabilities][capabilities][oauth]") {
  test::TempDir dir;
  auto home = base::Home::at(dir.path());
  REQUIRE(home);
  auto store = capabilities::CapabilitiesStore::open(*home);
  REQUIRE(store);
  const json xaa = {{"url", "https://mcp.example/mcp"},
                    {"oauth",
                     {{"clientId", "ava"},
                      {"clientSecret", "as-s3cret"},
                      {"grant", "cross_app_access"},
                      {"scope", "mcp:read"},
                      {"issuer", "https://as.example"},
                      {"idpTokenEndpoint", "https://idp.example/token"},
                      {"idpClientId", "ava-at-idp"},
                      {"idpClientSecret", "idp-s3cret"},
                      {"idTokenFile", "/run/user/1000/id-token"}}}};
  auto entry = capabilities::entry_from_json("xaa", xaa);
  REQUIRE(entry);
  CHECK(entry->oauth_grant.grant == "cross_app_access");
  CHECK(entry->oauth_grant.idp_client_secret == "idp-s3cret");
  REQUIRE(store->add_server(*entry, false));
  auto stored = store->server("xaa");
  REQUIRE(stored);
  REQUIRE(stored->has_value());
  CHECK((*stored)->oauth_grant == entry->oauth_grant);
  const auto shown = protocol::to_json(capabilities::server_view(**stored, false));
  CHECK(shown["oauth"]["idpClientSecret"] == "<redacted>");
  CHECK(shown["oauth"]["idTokenFile"] == "/run/user/1000/id-token");
  CHECK(shown.dump().find("s3cret") == std::string::npos);
  CHECK(protocol::to_json(capabilities::server_view(**stored, true))["oauth"] == xaa["oauth"]);

  // Another grant or authorization server drops the tokens kept.
  capabilities::StoredCredentials credentials(*home);
  REQUIRE(credentials.save("xaa", signed_in_as("at-1"), 0));
  auto same = **stored;
  same.oauth_grant.scope = "mcp:write";
  REQUIRE(store->add_server(same, true));
  CHECK(credentials.signed_in("xaa").value());
  same.oauth_grant.issuer = "https://other.example";
  REQUIRE(store->add_server(same, true));
  CHECK_FALSE(credentials.signed_in("xaa").value());
  CHECK(capabilities::fingerprint(same) != capabilities::fingerprint(**stored));

  // What each grant needs, and nothing of one grant in another.
  auto refused = [&](json oauth, std::string_view said) {
    auto changed = xaa;
    changed["oauth"] = std::move(oauth);
    auto parsed = capabilities::entry_from_json("bad", changed);
    REQUIRE_FALSE(parsed);
    INFO(parsed.error().message);
    CHECK(parsed.error().message.find(said) != std::string::npos);
  };
  refused({{"clientId", "ava"}, {"grant", "password"}}, "not supported");
  refused({{"clientId", "ava"}, {"grant", 7}}, "grant must be a string");
  refused({{"grant", "client_credentials"}, {"clientSecret", "s"}}, "needs its client id");
  refused({{"clientId", "ava"}, {"grant", "client_credentials"}}, "secret or a private key");
  refused({{"clientId", "ava"}, {"clientSecret", "s"}, {"scope", "x"}}, "are for the");
  refused({{"clientId", "ava"},
           {"clientSecret", "s"},
           {"grant", "client_credentials"},
           {"idTokenFile", "/x"}},
          "cross_app_access grant");
  refused({{"clientId", "ava"},
           {"clientSecret", "s"},
           {"grant", "client_credentials"},
           {"privateKey", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"}},
          "not both");
  refused({{"clientId", "ava"},
           {"grant", "client_credentials"},
           {"privateKey", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"}},
          "not an unencrypted PEM");
  refused({{"clientId", "ava"},
           {"clientSecret", "s"},
           {"grant", "client_credentials"},
           {"issuer", "javascript:alert(1)"}},
          "https URL");
  refused({{"clientId", "ava"},
           {"grant", "cross_app_access"},
           {"idpTokenEndpoint", "https://idp.example/token"},
           {"idpClientId", "c"},
           {"idTokenFile", "relative/token"}},
          "absolute path");
  refused({{"clientId", "ava"},
           {"clientSecret", "s"},
           {"grant", "client_credentials"},
           {"scope", "a\r\nb"}},
          "single lines");
  auto stdio = stdio_entry("local");
  stdio.oauth_grant.grant = "client_credentials";
  CHECK_FALSE(capabilities::validate(stdio));
}

TEST_CASE("a stdio server's sandbox is read, kept, shown and part of its configuration",
          "[capabilities][capabilities][sandbox]") {
  test::TempDir dir;
  auto store = capabilities::CapabilitiesStore::open_file(dir.path() / "capabilities.sqlite3");
  REQUIRE(store);
  auto entry = capabilities::entry_from_json(
      "files", json::parse(R"({"command": "node", "args": ["fs.js"], "cwd": "/work/p",
                               "sandbox": {"mode": "workspace-write", "network": true,
                                           "writableRoots": ["/data/cache"]}})"));
  REQUIRE(entry);
  CHECK(entry->sandbox == proc::SandboxMode::workspace_write);
  CHECK(entry->sandbox_network);
  REQUIRE(store->add_server(*entry, false));
  auto stored = store->server("files");
  REQUIRE(stored);
  REQUIRE(stored->has_value());
  CHECK((*stored)->sandbox == proc::SandboxMode::workspace_write);
  CHECK((*stored)->sandbox_network);
  CHECK((*stored)->sandbox_writable_roots == std::vector<std::string>{"/data/cache"});
  CHECK(protocol::to_json(capabilities::server_view(**stored, false))["sandbox"] ==
        json{{"mode", "workspace-write"}, {"network", true}, {"writableRoots", {"/data/cache"}}});
  // The server's folder and the extra roots are what it may write.
  const auto sandbox = capabilities::sandbox_for(**stored, "/work/p");
  CHECK(sandbox.mode == proc::SandboxMode::workspace_write);
  CHECK(sandbox.network);
  CHECK(sandbox.writable_roots == std::vector<std::filesystem::path>{"/work/p", "/data/cache"});
  // A changed sandbox is a new connection.
  auto plain = **stored;
  plain.sandbox = proc::SandboxMode::off;
  plain.sandbox_network = false;
  plain.sandbox_writable_roots.clear();
  CHECK(capabilities::fingerprint(plain) != capabilities::fingerprint(**stored));
  CHECK_FALSE(protocol::to_json(capabilities::server_view(plain, false)).contains("sandbox"));

  auto short_form = capabilities::entry_from_json(
      "ro", json::parse(R"({"command": "x", "sandbox": "read-only"})"));
  REQUIRE(short_form);
  CHECK(short_form->sandbox == proc::SandboxMode::read_only);
  CHECK_FALSE(short_form->sandbox_network);  // the network is off unless asked for
  CHECK(capabilities::sandbox_for(*short_form, "/work/p").writable_roots.empty());
}

TEST_CASE("a malformed sandbox is refused with what is wrong",
          "[capabilities][capabilities][sandbox]") {
  for (const auto& [text, expected] : std::vector<std::pair<std::string, std::string>>{
           {R"({"command": "x", "sandbox": "yolo"})", "unknown sandbox mode"},
           {R"({"command": "x", "sandbox": 3})", "must be"},
           {R"({"command": "x", "sandbox": {"network": true}})", "needs a mode"},
           {R"({"command": "x", "sandbox": {"mode": "read-only", "net": true}})", "unknown field"},
           {R"({"command": "x", "sandbox": {"mode": "read-only", "network": "yes"}})", "network"},
           {R"({"command": "x", "sandbox": {"mode": "workspace-write", "writableRoots": ["rel"]}})",
            "absolute"},
           {R"({"command": "x", "sandbox": {"mode": "off", "network": true}})",
            "need a sandbox mode"},
           {R"({"url": "https://mcp.example/mcp", "sandbox": "read-only"})", "stdio servers"},
       }) {
    INFO(text);
    auto entry = capabilities::entry_from_json("s", json::parse(text));
    REQUIRE_FALSE(entry);
    CHECK(entry.error().code == ErrorCode::invalid_argument);
    CHECK(entry.error().message.find(expected) != std::string::npos);
  }
}
