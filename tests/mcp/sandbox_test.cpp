// A stdio MCP server started in the sandbox its configuration asks for:
// the npm filesystem server, told it may write two folders, can write the
// one its sandbox allows and is refused by the kernel in the other. ctest
// runs this again without Landlock: then the server does not start at all
// (never unsandboxed), and says why.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include <boost/asio/use_awaitable.hpp>

#include "ava/mcp/adapt.hpp"
#include "ava/mcp/client.hpp"
#include "ava/proc/sandbox.hpp"
#include "mcp/mcp_test_util.hpp"
#include "support/outside_temp_dir.hpp"
#include "support/run_coroutine.hpp"

namespace asio = boost::asio;
namespace fs = std::filesystem;
using ava::test::run_coroutine;
using namespace ava::mcp;
using nlohmann::json;

namespace {

const RequestOptions defaults;
const SessionOptions no_options;

std::string filesystem_entry() {
  return (ava::test::mcp_servers_dir() / "node_modules" / "@modelcontextprotocol" /
          "server-filesystem" / "dist" / "index.js")
      .string();
}

StdioServer sandboxed_filesystem(const fs::path& project, const fs::path& elsewhere) {
  StdioServer server{.command = "node",
                     .args = {filesystem_entry(), project.string(), elsewhere.string()},
                     .cwd = project};
  server.sandbox = {.mode = ava::proc::SandboxMode::workspace_write,
                    .writable_roots = {project},
                    .network = false};
  return server;
}

}  // namespace

TEST_CASE("a sandboxed stdio MCP server writes only where its sandbox lets it",
          "[mcp][stdio][sandbox]") {
  AVA_REQUIRE_MCP_SERVERS();
  ava::test::OutsideTempDir base;
  if (!base.usable()) {
    WARN("skipped: no folder outside the temp folders to test in");
    return;
  }
  const fs::path project = base.path() / "project";
  const fs::path elsewhere = base.path() / "elsewhere";
  fs::create_directories(project);
  fs::create_directories(elsewhere);
  const bool landlock = ava::proc::sandbox_support().filesystem();
  run_coroutine([&](asio::io_context& io) -> asio::awaitable<bool> {
    auto transport = make_stdio_transport(sandboxed_filesystem(project, elsewhere));
    auto session = co_await Session::connect(io.get_executor(), std::move(transport), no_options);
    if (!landlock) {
      // Asked for a sandbox the kernel cannot give: not started, and why.
      REQUIRE_FALSE(session.has_value());
      CHECK(session.error().message.find("workspace-write sandbox") != std::string::npos);
      co_return true;
    }
    REQUIRE(session.has_value());
    const std::string write = "write_file";
    const json inside{{"path", (project / "inside.txt").string()}, {"content", "yes"}};
    auto wrote = co_await call_tool(**session, write, inside, defaults);
    REQUIRE(wrote.has_value());
    CHECK_FALSE(adapt_call_result(*wrote).is_error);
    const json outside{{"path", (elsewhere / "outside.txt").string()}, {"content", "no"}};
    auto refused = co_await call_tool(**session, write, outside, defaults);
    REQUIRE(refused.has_value());
    const auto result = adapt_call_result(*refused);
    CHECK(result.is_error);
    INFO(result.joined_text());
    CHECK((result.joined_text().find("EACCES") != std::string::npos ||
           result.joined_text().find("ermission denied") != std::string::npos));
    co_await (*session)->close();
    co_return true;
  });
  CHECK(fs::exists(project / "inside.txt") == landlock);
  CHECK_FALSE(fs::exists(elsewhere / "outside.txt"));
}
