// Peer data that used to throw or overflow (deeply nested JSON, fields of
// the wrong type, huge numbers), the childEnvironment switch of
// settings.json, and auth.json changes from several writers at once.

#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <atomic>
#include <fstream>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "ava/llm/decoder.hpp"
#include "ava/llm/model_list.hpp"
#include "ava/llm/settings.hpp"
#include "llm/stream_builder.hpp"
#include "support/fake_env.hpp"
#include "support/temp_dir.hpp"

namespace llm = ava::llm;
using ava::test::decode;
using ava::test::SseBody;
using nlohmann::json;

namespace {

const std::string deep = std::string(300000, '[') + std::string(300000, ']');

json text_chunk(const std::string& text) {
  return {{"object", "chat.completion.chunk"},
          {"choices", json::array({{{"index", 0}, {"delta", {{"content", text}}}}})}};
}

}  // namespace

TEST_CASE("hardening: a stream event nested 300000 levels deep is skipped", "[hardening]") {
  const auto body =
      SseBody{}
          .data(text_chunk("before "))
          .raw("data: " + deep + "\n\n")
          .data(text_chunk("after"))
          .data(json{{"object", "chat.completion.chunk"},
                     {"choices",
                      json::array(
                          {{{"index", 0}, {"delta", json::object()}, {"finish_reason", "stop"}}})}})
          .raw("data: [DONE]\n\n")
          .str();
  auto decoded = decode(llm::WireApi::openai_chat, body);
  CHECK_FALSE(decoded.response.error.has_value());
  REQUIRE(decoded.response.message.content.size() == 1);
  CHECK(std::get<llm::TextBlock>(decoded.response.message.content[0]).text == "before after");
}

TEST_CASE("hardening: usage counts of the wrong type or size do not overflow", "[hardening]") {
  const auto body =
      SseBody{}
          .data(text_chunk("x"))
          .data(json{
              {"object", "chat.completion.chunk"},
              {"choices",
               json::array({{{"index", 0}, {"delta", json::object()}, {"finish_reason", "stop"}}})},
              {"usage",
               {{"prompt_tokens", 1e300},
                {"completion_tokens", "12"},
                {"prompt_tokens_details", {{"cached_tokens", -9223372036854775807LL}}},
                {"completion_tokens_details", {{"reasoning_tokens", {{"x", 1}}}}}}}})
          .raw("data: [DONE]\n\n")
          .str();
  auto decoded = decode(llm::WireApi::openai_chat, body);
  CHECK_FALSE(decoded.response.error.has_value());
  CHECK(decoded.response.usage.output_tokens == 0);
  CHECK(decoded.response.usage.reasoning_tokens == 0);
  CHECK(decoded.response.usage.input_tokens > 0);
}

TEST_CASE("hardening: a model list with deep nesting or wrong types is an error or skipped",
          "[hardening][models]") {
  auto nested = llm::parse_model_list(llm::ProviderKind::openai, R"({"data":)" + deep + "}");
  REQUIRE_FALSE(nested.has_value());
  CHECK(nested.error().code == ava::ErrorCode::protocol);
  auto mixed = llm::parse_model_list(llm::ProviderKind::openai,
                                     R"({"data":[{"id":5},{"id":{}},"x",{"id":"ok"}]})");
  CHECK(mixed.value() == std::vector<std::string>{"ok"});
  CHECK_FALSE(llm::parse_model_list(llm::ProviderKind::openai, R"({"data":5})").has_value());
}

TEST_CASE("hardening: settings.json childEnvironment.keep names variables to pass on",
          "[hardening][settings]") {
  llm::Settings settings;
  REQUIRE(
      llm::parse_settings_json(R"({"childEnvironment": {"keep": ["GITHUB_TOKEN", "PGPASSWORD"]}})",
                               "settings.json", settings)
          .has_value());
  CHECK(settings.child_environment_keep == std::vector<std::string>{"GITHUB_TOKEN", "PGPASSWORD"});
  for (const char* bad :
       {R"({"childEnvironment": []})", R"({"childEnvironment": {"keep": "X"}})",
        R"({"childEnvironment": {"keep": [5]}})", R"({"childEnvironment": {"keep": ["A=B"]}})"}) {
    CAPTURE(bad);
    llm::Settings ignored;
    auto parsed = llm::parse_settings_json(bad, "settings.json", ignored);
    REQUIRE_FALSE(parsed.has_value());
    CHECK_THAT(parsed.error().message, Catch::Contains("childEnvironment"));
  }
}

TEST_CASE("hardening: a settings.json nested too deeply is refused, not crashed on",
          "[hardening][settings]") {
  llm::Settings settings;
  auto parsed = llm::parse_settings_json(R"({"models": )" + deep + "}", "settings.json", settings);
  REQUIRE_FALSE(parsed.has_value());
  CHECK(parsed.error().code == ava::ErrorCode::parse);
  CHECK_THAT(parsed.error().message, Catch::Contains("settings.json: not valid JSON"));
}

TEST_CASE("hardening: two writers saving keys at once lose neither", "[hardening][auth]") {
  ava::test::TempDir dir;
  const auto home = ava::base::Home::at(dir.path()).value();
  constexpr int per_writer = 40;
  // Catch2's assertions are not thread-safe: the threads count failures.
  std::atomic<int> failures{0};
  auto writer = [&home, &failures](const std::string& prefix) {
    for (int i = 0; i < per_writer; ++i) {
      const auto saved = llm::save_api_key(home, fmt::format("{}{}", prefix, i),
                                           ava::base::Secret(fmt::format("key-{}-{}", prefix, i)));
      if (!saved) ++failures;
    }
  };
  std::thread first(writer, "alpha");
  std::thread second(writer, "beta");
  first.join();
  second.join();
  CHECK(failures == 0);
  auto settings = llm::load_settings(home, ava::test::fake_env({}));
  REQUIRE(settings.has_value());
  CHECK(settings->keys.size() == 2 * per_writer);
  for (int i = 0; i < per_writer; ++i) {
    CHECK(settings->keys.at(fmt::format("alpha{}", i)).reveal() == fmt::format("key-alpha-{}", i));
    CHECK(settings->keys.at(fmt::format("beta{}", i)).reveal() == fmt::format("key-beta-{}", i));
  }
  struct stat lock {};
  REQUIRE(::stat(home.file("auth.json.lock").c_str(), &lock) == 0);
  CHECK((lock.st_mode & 0777) == 0600);

  // Removals take the same lock: removing one while the other writer adds.
  std::thread remover([&home, &failures] {
    for (int i = 0; i < per_writer; ++i) {
      if (!llm::remove_api_key(home, fmt::format("alpha{}", i))) ++failures;
    }
  });
  std::thread adder(writer, "gamma");
  remover.join();
  adder.join();
  CHECK(failures == 0);
  auto after = llm::load_settings(home, ava::test::fake_env({}));
  REQUIRE(after.has_value());
  CHECK(after->keys.size() == 2 * per_writer);
  CHECK(after->keys.contains("gamma0"));
  CHECK_FALSE(after->keys.contains("alpha0"));
}

TEST_CASE("hardening: two writers saving providers at once lose neither", "[hardening][settings]") {
  ava::test::TempDir dir;
  const auto home = ava::base::Home::at(dir.path()).value();
  constexpr int per_writer = 30;
  std::atomic<int> failures{0};
  auto writer = [&home, &failures](const std::string& prefix) {
    for (int i = 0; i < per_writer; ++i) {
      llm::ProviderUpdate update{.kind = "openai", .base_url = "http://127.0.0.1:9/v1"};
      if (!llm::save_provider(home, fmt::format("{}{}", prefix, i), update)) ++failures;
    }
  };
  std::thread first(writer, "alpha");
  std::thread second(writer, "beta");
  first.join();
  second.join();
  CHECK(failures == 0);
  auto settings = llm::load_settings(home, ava::test::fake_env({}));
  REQUIRE(settings.has_value());
  CHECK(settings->providers.size() == 2 * per_writer);
  struct stat lock {};
  REQUIRE(::stat(home.file("settings.json.lock").c_str(), &lock) == 0);
  CHECK((lock.st_mode & 0777) == 0600);
}
