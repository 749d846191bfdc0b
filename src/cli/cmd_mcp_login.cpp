// `ava mcp login NAME` and `ava mcp logout NAME`: OAuth sign-in to a
// configured HTTP server, the credentials kept in capabilities.sqlite3 for
// every process on this home (docs/mcp.md#oauth).

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>

#include "ava/base/log.hpp"
#include "ava/base/open_url.hpp"
#include "ava/capabilities/capabilities_store.hpp"
#include "ava/capabilities/mcp_login.hpp"
#include "ava/capabilities/stored_credentials.hpp"
#include "cli/commands.hpp"

namespace ava::cli {
namespace {

namespace asio = boost::asio;

// An error may quote a sign-in URL or a server's answer: masked.
constexpr CommandName command_name{.name = "mcp", .redact = true};

struct LoginFlags {
  std::string name;
  std::string scope;
  bool no_browser = false;
  int timeout_s = 300;
};

bool has_display() {
  const char* x11 = std::getenv("DISPLAY");
  const char* wayland = std::getenv("WAYLAND_DISPLAY");
  return (x11 != nullptr && *x11 != '\0') || (wayland != nullptr && *wayland != '\0');
}

// The URL always goes to stderr, unmasked: it is the sign-in the person
// running this asked for, and on a machine reached over SSH the only way to
// the page (the redirect then needs the port forwarded). It is never
// logged. The browser (base::open_url) takes only http(s) URLs.
oauth::UrlOpener printing_opener(std::string name, bool browser) {
  return [name, browser](std::string url) -> asio::awaitable<Result<void>> {
    if (auto checked = base::check_browser_url(url); !checked) co_return checked;
    std::fprintf(stderr, "Sign in to MCP server %s at:\n  %s\n", name.c_str(), url.c_str());
    std::fflush(stderr);
    if (browser) {
      if (auto opened = base::open_url(url); !opened) {
        std::fprintf(stderr, "(the browser could not be opened: %s)\n",
                     opened.error().message.c_str());
      }
    }
    co_return Result<void>{};
  };
}

// A server that cannot sign in at all (not HTTP, no client) is a usage
// error (exit 2); a sign-in that fails is not.
Result<int> login(const LoginFlags& flags) {
  AVA_TRY(auto home, base::Home::resolve());
  AVA_TRY(auto store, capabilities::CapabilitiesStore::open(home));
  AVA_TRY(auto entry, store.server(flags.name));
  if (!entry) return fail(ErrorCode::not_found, "no MCP server named " + flags.name);

  asio::io_context io;
  auto client = capabilities::sign_in_client(
      io.get_executor(), *entry, std::make_shared<capabilities::StoredCredentials>(home),
      printing_opener(flags.name, !flags.no_browser && has_display()),
      std::chrono::seconds(flags.timeout_s));
  if (!client) return usage_error(command_name, client.error());
  std::optional<Result<void>> outcome;
  asio::co_spawn(io, (*client)->login(flags.scope),
                 [&outcome](const std::exception_ptr& error, Result<void> done) {
                   if (error) std::rethrow_exception(error);
                   outcome = std::move(done);
                 });
  io.run();
  const std::string failed = "sign-in to " + flags.name + " failed";
  if (!outcome) return fail(ErrorCode::internal, failed + ": no outcome");
  if (!*outcome) return std::unexpected(std::move(*outcome).error().with_context(failed));
  std::printf("Signed in to MCP server %s\n", flags.name.c_str());
  return 0;
}

Result<int> logout(const std::string& name) {
  AVA_TRY(auto home, base::Home::resolve());
  capabilities::StoredCredentials credentials(home);
  AVA_TRY(const bool was, credentials.signed_in(name));
  // Erased even when nothing is stored: the generation still moves on, so
  // a sign-in in flight elsewhere cannot complete.
  AVA_TRY_VOID(credentials.erase(name));
  std::printf(was ? "Signed out of MCP server %s\n" : "MCP server %s had no sign-in\n",
              name.c_str());
  return 0;
}

}  // namespace

void add_mcp_login_commands(CLI::App& mcp, CliContext& context) {
  auto flags = std::make_shared<LoginFlags>();
  auto* login_command =
      mcp.add_subcommand("login", "Sign in to an HTTP server with OAuth (opens the browser)");
  login_command->add_option("name", flags->name, "The server's name")->required();
  login_command->add_option("--scope", flags->scope, "Scopes to ask for (default: as discovered)");
  login_command->add_flag("--no-browser", flags->no_browser,
                          "Only print the sign-in URL (e.g. over SSH)");
  login_command->add_option("--timeout", flags->timeout_s, "Seconds to wait for the sign-in")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  login_command->callback([&context, flags] { finish(context, command_name, login(*flags)); });

  auto name = std::make_shared<std::string>();
  auto* logout_command =
      mcp.add_subcommand("logout", "Forget a server's OAuth credentials (everywhere on this home)");
  logout_command->add_option("name", *name, "The server's name")->required();
  logout_command->callback([&context, name] { finish(context, command_name, logout(*name)); });
}

}  // namespace ava::cli
