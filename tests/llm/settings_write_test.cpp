// Changing settings.json and auth.json from a program (the settings page):
// one provider at a time, the rest of the file kept, bad input refused with
// the file untouched.

#include <catch2/catch.hpp>

#include <fstream>
#include <iterator>

#include <nlohmann/json.hpp>

#include "ava/llm/settings.hpp"
#include "support/fake_env.hpp"
#include "support/temp_dir.hpp"

namespace llm = ava::llm;

namespace {

struct TestHome {
  ava::test::TempDir dir;
  ava::base::Home home = ava::base::Home::at(dir.path()).value();

  void write(const std::string& name, const std::string& text) const {
    std::ofstream(home.file(name)) << text;
  }
  std::string read(const std::string& name) const {
    std::ifstream in(home.file(name));
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }
  llm::Settings load() const { return llm::load_settings(home, ava::test::fake_env({})).value(); }
};

}  // namespace

TEST_CASE("settings: save_provider adds a provider and keeps the rest of settings.json",
          "[settings][write]") {
  TestHome test;
  test.write("settings.json", R"({"model": "m1", "unknownKey": [1, 2],
    "providers": {"ollama": {"model": "qwen3:8b"}}})");
  REQUIRE(
      llm::save_provider(
          test.home, "openrouter",
          {.kind = "openai", .base_url = "https://openrouter.ai/api/v1", .model = "openai/gpt-5.4"})
          .has_value());
  auto settings = test.load();
  CHECK(settings.model == "m1");
  REQUIRE(settings.providers.contains("openrouter"));
  CHECK(settings.providers.at("openrouter").kind == llm::ProviderKind::openai);
  CHECK(settings.providers.at("openrouter").base_url == "https://openrouter.ai/api/v1");
  CHECK(settings.providers.at("ollama").model == "qwen3:8b");
  auto document = nlohmann::json::parse(test.read("settings.json"));
  CHECK(document["unknownKey"] == nlohmann::json::array({1, 2}));

  // Only the fields given change; an empty one goes back to the default.
  REQUIRE(llm::save_provider(test.home, "openrouter", {.model = ""}).has_value());
  settings = test.load();
  CHECK(settings.providers.at("openrouter").model.empty());
  CHECK(settings.providers.at("openrouter").base_url == "https://openrouter.ai/api/v1");
}

TEST_CASE("settings: save_provider creates settings.json when there is none", "[settings][write]") {
  TestHome test;
  REQUIRE(llm::save_provider(test.home, "anthropic", {.model = "claude-haiku-4-5"}).has_value());
  CHECK(test.load().providers.at("anthropic").model == "claude-haiku-4-5");
}

TEST_CASE("settings: save_provider refuses what load_settings would refuse, changing nothing",
          "[settings][write]") {
  TestHome test;
  const std::string original = R"({"providers": {"ollama": {"model": "qwen3:8b"}}})";
  test.write("settings.json", original);

  auto no_kind = llm::save_provider(test.home, "my-server", {.base_url = "http://127.0.0.1:1/v1"});
  REQUIRE_FALSE(no_kind.has_value());
  CHECK(no_kind.error().code == ava::ErrorCode::parse);
  CHECK_THAT(no_kind.error().message, Catch::Contains("kind"));

  auto bad_kind = llm::save_provider(test.home, "x", {.kind = "gopher"});
  REQUIRE_FALSE(bad_kind.has_value());
  CHECK_THAT(bad_kind.error().message, Catch::Contains("providers.x.kind"));

  auto wrong_builtin = llm::save_provider(test.home, "anthropic", {.kind = "openai"});
  REQUIRE_FALSE(wrong_builtin.has_value());

  auto bad_url = llm::save_provider(test.home, "x", {.kind = "openai", .base_url = "not a url"});
  REQUIRE_FALSE(bad_url.has_value());
  CHECK_THAT(bad_url.error().message, Catch::Contains("baseUrl"));

  auto bad_name = llm::save_provider(test.home, "../evil", {.kind = "openai"});
  REQUIRE_FALSE(bad_name.has_value());
  CHECK(bad_name.error().code == ava::ErrorCode::invalid_argument);

  CHECK(test.read("settings.json") == original);
}

TEST_CASE("settings: a malformed settings.json is reported and never overwritten",
          "[settings][write]") {
  TestHome test;
  const std::string broken = R"({"providers": {"ollama": )";
  test.write("settings.json", broken);
  auto saved = llm::save_provider(test.home, "anthropic", {.model = "m"});
  REQUIRE_FALSE(saved.has_value());
  CHECK(saved.error().code == ava::ErrorCode::parse);
  CHECK_THAT(saved.error().message, Catch::Contains("settings.json"));
  CHECK(test.read("settings.json") == broken);
}

TEST_CASE("auth: remove_api_key forgets one key and keeps the others", "[settings][auth]") {
  TestHome test;
  REQUIRE(llm::save_api_key(test.home, "anthropic", ava::base::Secret("sk-a")).has_value());
  REQUIRE(llm::save_api_key(test.home, "openai", ava::base::Secret("sk-o")).has_value());
  REQUIRE(llm::remove_api_key(test.home, "anthropic").has_value());
  auto settings = test.load();
  CHECK_FALSE(settings.keys.contains("anthropic"));
  CHECK(settings.keys.at("openai").reveal() == "sk-o");
  auto again = llm::remove_api_key(test.home, "anthropic");
  REQUIRE_FALSE(again.has_value());
  CHECK(again.error().code == ava::ErrorCode::not_found);
}
