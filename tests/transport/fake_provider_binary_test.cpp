// Black-box check of the ava-fake-provider binary that later integration
// tests start: it prints its URL, serves a fixture byte for byte, and stops
// on SIGTERM.

#include <catch2/catch.hpp>

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <csignal>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "ava/transport/http_client.hpp"
#include "support/fixture.hpp"
#include "support/run_coroutine.hpp"

namespace asio = boost::asio;

TEST_CASE("ava-fake-provider serves a fixture body and stops on SIGTERM", "[fake-provider]") {
  const std::string relative = "providers/anthropic/anthropic-sdk-python__tool_use_response.txt";
  const std::string expected = ava::test::read_fixture(relative);
  std::string fixture = ava::test::fixture_path(relative);
  int out[2];
  REQUIRE(::pipe(out) == 0);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, out[0]);
  std::string binary = AVA_FAKE_PROVIDER_BIN;
  std::string format_flag = "--format";
  std::string format = "anthropic";
  std::string fixture_flag = "--fixture";
  char* argv[] = {binary.data(),       format_flag.data(), format.data(),
                  fixture_flag.data(), fixture.data(),     nullptr};
  pid_t pid = 0;
  REQUIRE(posix_spawn(&pid, binary.c_str(), &actions, nullptr, argv, environ) == 0);
  posix_spawn_file_actions_destroy(&actions);
  ::close(out[1]);

  std::string url;
  char c = 0;
  while (::read(out[0], &c, 1) == 1 && c != '\n') url.push_back(c);
  ::close(out[0]);
  REQUIRE(url.starts_with("http://127.0.0.1:"));

  std::string body =
      ava::test::run_coroutine([&](asio::io_context& io) -> asio::awaitable<std::string> {
        auto client = std::move(ava::transport::HttpClient::create(io.get_executor()).value());
        ava::transport::HttpRequest request{.url = url + "/v1/messages", .body = "{}"};
        std::string streamed;
        ava::transport::BodyHandler on_body = [&](std::string_view chunk) -> ava::Result<void> {
          streamed.append(chunk);
          return {};
        };
        auto response = co_await client->send(request, on_body);
        REQUIRE(response.has_value());
        CHECK(response->status == 200);
        co_return streamed;
      });
  CHECK(body == expected);

  REQUIRE(::kill(pid, SIGTERM) == 0);
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}
