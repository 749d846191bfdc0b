// The codex provider with the Codex CLI's login, against a loopback fake of
// its two endpoints (the OpenAI token endpoint and the Codex backend's
// /responses): tokens refreshed when due or refused, the rotated tokens
// written back, one refresh for conversations sharing a login.

#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <atomic>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <boost/asio/detached.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <nlohmann/json.hpp>

#include "ava/base/base64.hpp"
#include "ava/base/clock.hpp"
#include "ava/llm/codex_login.hpp"
#include "ava/llm/factory.hpp"
#include "support/fake_echo.hpp"
#include "support/fake_env.hpp"
#include "support/fake_provider.hpp"
#include "support/run_coroutine.hpp"
#include "support/temp_dir.hpp"

namespace asio = boost::asio;
namespace llm = ava::llm;
using ava::test::FakeProviderServer;
using ava::test::FakeReply;
using ava::test::RecordedRequest;
using nlohmann::json;

namespace {

// A JWT whose payload says it expires `exp` (Unix seconds); unsigned, as
// only its timing is read.
std::string jwt(std::int64_t exp, const std::string& tag) {
  return ava::base::base64url_encode(R"({"alg":"none"})") + "." +
         ava::base::base64url_encode(json{{"exp", exp}, {"tag", tag}}.dump()) + ".sig";
}

std::int64_t now_s() { return ava::base::unix_ms_now() / 1000; }

json read_json(const std::filesystem::path& path) {
  std::ifstream in(path);
  return json::parse(in);
}

void write_login(const std::filesystem::path& path, const std::string& access,
                 const std::string& refresh, const std::string& last_refresh) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path) << json{
      {"OPENAI_API_KEY", nullptr},
      {"tokens",
       {{"id_token", "id-old"},
        {"access_token", access},
        {"refresh_token", refresh},
        {"account_id", "acct-42"}}},
      {"last_refresh", last_refresh},
      {"kept",
       {{"by", "codex"}}}}.dump(2);
  ::chmod(path.c_str(), 0600);
}

std::string rfc3339(std::int64_t unix_s) {
  std::time_t t = static_cast<std::time_t>(unix_s);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.123456Z", tm.tm_year + 1900,
                     tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

// The fake: /oauth/token trades "refresh-old" for new tokens (once: the
// token is single-use), /backend-api/codex/responses answers the echo when
// the bearer is `accepted`, else 401.
struct FakeOpenAi {
  std::unique_ptr<FakeProviderServer> server = FakeProviderServer::start();
  std::atomic<int> refreshes{0};
  std::string accepted;
  std::string new_access = jwt(now_s() + 3600, "new");
  bool refuse_refresh = false;

  FakeOpenAi() {
    server->set_fallback([this](const RecordedRequest& request) {
      if (request.target == "/oauth/token") {
        auto body = json::parse(request.body);
        if (refuse_refresh || body["refresh_token"] != "refresh-old" || refreshes++ > 0) {
          return FakeReply{
              .status = 400,
              .content_type = "application/json",
              .chunks = {
                  R"({"error":"invalid_grant","error_description":"refresh token already used"})"}};
        }
        return FakeReply{.content_type = "application/json",
                         .chunks = {json{
                             {"access_token", new_access},
                             {"refresh_token", "refresh-new"},
                             {"id_token",
                              "id-new"}}.dump()}};
      }
      if (request.header("authorization") != "Bearer " + accepted) {
        return FakeReply{.status = 401,
                         .content_type = "application/json",
                         .chunks = {R"({"error":{"message":"token expired"}})"}};
      }
      return ava::test::echo_reply(llm::WireApi::openai_responses, request);
    });
  }

  std::vector<RecordedRequest> to(const std::string& target) const {
    std::vector<RecordedRequest> out;
    for (auto& request : server->requests())
      if (request.target == target) out.push_back(request);
    return out;
  }
};

struct Turn {
  llm::Response response;
};

llm::Settings codex_settings(const FakeOpenAi& fake, const std::filesystem::path& login) {
  llm::Settings settings;
  settings.env = ava::test::fake_env(
      {{"CODEX_REFRESH_TOKEN_URL_OVERRIDE", fake.server->base_url() + "/oauth/token"}});
  settings.codex_login = login;
  settings.providers["codex"].kind = llm::ProviderKind::codex;
  settings.providers["codex"].base_url = fake.server->base_url() + "/backend-api/codex";
  return settings;
}

llm::Request hello(const std::string& text = "hello codex") {
  llm::Request request;
  request.model = "gpt-5.4";
  request.system = "be brief";
  request.max_output_tokens = 1000;
  request.messages.push_back(
      llm::Message{.role = llm::Role::user, .content = {llm::TextBlock{text}}});
  return request;
}

std::vector<llm::Response> run_turns(const llm::Settings& settings, int count) {
  return ava::test::run_coroutine(
      [&](asio::io_context& io) -> asio::awaitable<std::vector<llm::Response>> {
        std::vector<std::unique_ptr<llm::Provider>> providers;
        for (int i = 0; i < count; ++i) {
          auto selected = llm::make_provider(io.get_executor(), settings, {.provider = "codex"});
          REQUIRE(selected.has_value());
          providers.push_back(std::move(selected->provider));
        }
        std::vector<llm::Response> out(static_cast<std::size_t>(count));
        std::atomic<int> left = count;
        for (int i = 0; i < count; ++i) {
          asio::co_spawn(
              io,
              [&, i]() -> asio::awaitable<void> {
                auto result = co_await providers[static_cast<std::size_t>(i)]->stream(
                    hello(fmt::format("hello {}", i)), {});
                REQUIRE(result.has_value());
                out[static_cast<std::size_t>(i)] = std::move(*result);
                --left;
              },
              asio::detached);
        }
        asio::steady_timer tick(io);
        while (left > 0) {
          tick.expires_after(std::chrono::milliseconds(10));
          co_await tick.async_wait(asio::use_awaitable);
        }
        co_return out;
      });
}

std::string text_of(const llm::Response& response) {
  std::string text;
  for (const auto& block : response.message.content)
    if (const auto* part = std::get_if<llm::TextBlock>(&block)) text += part->text;
  return text;
}

}  // namespace

TEST_CASE("the Codex login is read, and its timing decides a refresh", "[llm][codex]") {
  ava::test::TempDir dir;
  const auto path = dir.path() / ".codex" / "auth.json";
  CHECK(llm::codex_auth_path(ava::test::fake_env({{"HOME", dir.path().string()}})) == path);
  CHECK(llm::codex_auth_path(ava::test::fake_env({{"HOME", "/h"}, {"CODEX_HOME", "/c"}})) ==
        "/c/auth.json");
  CHECK(llm::read_codex_auth(path).error().code == ava::ErrorCode::not_found);

  write_login(path, jwt(now_s() + 3600, "a"), "refresh-old", rfc3339(now_s() - 60));
  auto auth = llm::read_codex_auth(path);
  REQUIRE(auth.has_value());
  REQUIRE(auth->tokens.has_value());
  CHECK(!auth->api_key.has_value());
  CHECK(auth->tokens->account_id == "acct-42");
  CHECK(std::abs(auth->tokens->last_refresh_ms / 1000 - (now_s() - 60)) <= 1);
  CHECK_FALSE(llm::codex_needs_refresh(*auth->tokens, ava::base::unix_ms_now()));
  // Expiring within the minute, or refreshed more than 8 days ago: due.
  auth->tokens->access_token = ava::base::Secret(jwt(now_s() + 30, "b"));
  CHECK(llm::codex_needs_refresh(*auth->tokens, ava::base::unix_ms_now()));
  auth->tokens->access_token = ava::base::Secret(jwt(now_s() + 3600, "c"));
  auth->tokens->last_refresh_ms = (now_s() - 9 * 24 * 3600) * 1000;
  CHECK(llm::codex_needs_refresh(*auth->tokens, ava::base::unix_ms_now()));
  CHECK(llm::jwt_expiry_ms("not-a-jwt") == std::nullopt);
  CHECK(llm::jwt_expiry_ms("a.!!!.c") == std::nullopt);

  std::ofstream(path) << "{not json";
  CHECK(llm::read_codex_auth(path).error().code == ava::ErrorCode::parse);
  std::ofstream(path) << R"({"OPENAI_API_KEY": "sk-from-codex"})";
  auto keyed = llm::read_codex_auth(path);
  REQUIRE(keyed.has_value());
  CHECK(keyed->api_key->reveal() == "sk-from-codex");
  CHECK(!keyed->tokens.has_value());
}

TEST_CASE("an expired Codex token is refreshed, written back, and the request sent with it",
          "[llm][codex]") {
  FakeOpenAi fake;
  fake.accepted = fake.new_access;
  ava::test::TempDir dir;
  const auto login = dir.path() / "codex" / "auth.json";
  write_login(login, jwt(now_s() - 10, "old"), "refresh-old", rfc3339(now_s() - 3600));

  auto turns = run_turns(codex_settings(fake, login), 1);
  CHECK(text_of(turns[0]) == "echo: hello 0");
  CHECK(!turns[0].error.has_value());

  auto refreshes = fake.to("/oauth/token");
  REQUIRE(refreshes.size() == 1);
  CHECK(json::parse(refreshes[0].body) == json{{"client_id", "app_EMoamEEZ73f0CkXaXp7hrann"},
                                               {"grant_type", "refresh_token"},
                                               {"refresh_token", "refresh-old"},
                                               {"scope", "openid profile email"}});
  auto sent = fake.to("/backend-api/codex/responses");
  REQUIRE(sent.size() == 1);
  CHECK(sent[0].header("authorization") == "Bearer " + fake.new_access);
  CHECK(sent[0].header("chatgpt-account-id") == "acct-42");
  CHECK(sent[0].header("openai-beta") == "responses=experimental");
  const auto body = json::parse(sent[0].body);
  CHECK(!body.contains("max_output_tokens"));  // the Codex backend refuses it
  CHECK(body["store"] == false);
  CHECK(body["instructions"] == "be brief");

  // Written back for Codex and Ava alike: rotated tokens, the rest kept, 0600.
  const auto stored = read_json(login);
  CHECK(stored["tokens"]["access_token"] == fake.new_access);
  CHECK(stored["tokens"]["refresh_token"] == "refresh-new");
  CHECK(stored["tokens"]["id_token"] == "id-new");
  CHECK(stored["tokens"]["account_id"] == "acct-42");
  CHECK(stored["kept"] == json{{"by", "codex"}});
  CHECK(stored["OPENAI_API_KEY"].is_null());
  auto again = llm::read_codex_auth(login);
  REQUIRE(again.has_value());
  CHECK(std::abs(again->tokens->last_refresh_ms - ava::base::unix_ms_now()) < 60'000);
  struct stat info {};
  REQUIRE(::stat(login.c_str(), &info) == 0);
  CHECK((info.st_mode & 0777) == 0600);
}

TEST_CASE("a token the backend refuses is refreshed once and the request sent again",
          "[llm][codex]") {
  FakeOpenAi fake;
  fake.accepted = fake.new_access;  // the stored one looks fresh but was revoked
  ava::test::TempDir dir;
  const auto login = dir.path() / "auth.json";
  write_login(login, jwt(now_s() + 3600, "revoked"), "refresh-old", rfc3339(now_s() - 60));

  auto turns = run_turns(codex_settings(fake, login), 1);
  CHECK(text_of(turns[0]) == "echo: hello 0");
  CHECK(fake.to("/oauth/token").size() == 1);
  auto sent = fake.to("/backend-api/codex/responses");
  REQUIRE(sent.size() == 2);
  CHECK(sent[0].header("authorization") != sent[1].header("authorization"));
  CHECK(sent[1].header("authorization") == "Bearer " + fake.new_access);
}

TEST_CASE("a refused refresh ends the turn with what to do", "[llm][codex]") {
  FakeOpenAi fake;
  fake.refuse_refresh = true;
  ava::test::TempDir dir;
  const auto login = dir.path() / "auth.json";
  const auto old_access = jwt(now_s() - 10, "old");
  write_login(login, old_access, "refresh-old", rfc3339(now_s() - 3600));

  auto turns = run_turns(codex_settings(fake, login), 1);
  REQUIRE(turns[0].error.has_value());
  CHECK(turns[0].error->kind == llm::ErrorKind::authentication);
  CHECK_THAT(turns[0].error->message, Catch::Contains("run `codex login` again"));
  CHECK_THAT(turns[0].error->message, Catch::Contains("refresh token already used"));
  CHECK(fake.to("/backend-api/codex/responses").empty());
  CHECK(read_json(login)["tokens"]["access_token"] == old_access);  // left as it was
}

TEST_CASE("conversations sharing a Codex login refresh its single-use token once", "[llm][codex]") {
  FakeOpenAi fake;
  fake.accepted = fake.new_access;
  ava::test::TempDir dir;
  const auto login = dir.path() / "auth.json";
  write_login(login, jwt(now_s() - 10, "old"), "refresh-old", rfc3339(now_s() - 3600));

  auto turns = run_turns(codex_settings(fake, login), 4);
  for (int i = 0; i < 4; ++i)
    CHECK(text_of(turns[static_cast<std::size_t>(i)]) == fmt::format("echo: hello {}", i));
  CHECK(fake.to("/oauth/token").size() == 1);
  CHECK(fake.to("/backend-api/codex/responses").size() == 4);
}

TEST_CASE("without a Codex login the codex provider says how to get one", "[llm][codex]") {
  llm::Settings settings;
  asio::io_context io;
  auto selected = llm::make_provider(io.get_executor(), settings, {.provider = "codex"});
  REQUIRE(!selected.has_value());
  CHECK_THAT(selected.error().message, Catch::Contains("run `codex login`"));
  // With one, it is the default when nothing else is configured.
  settings.codex_login = "/somewhere/auth.json";
  CHECK(llm::default_provider_name(settings) == "codex");
  settings.keys["anthropic"] = ava::base::Secret("sk-ant");
  CHECK(llm::default_provider_name(settings) == "anthropic");
  llm::Settings key_only;
  key_only.codex_api_key = ava::base::Secret("sk-codex-key");
  CHECK(llm::default_provider_name(key_only) == "openai");
  auto openai = llm::resolve_provider(key_only, "openai", true);
  REQUIRE(openai.has_value());
  CHECK(openai->api_key.reveal() == "sk-codex-key");
}
