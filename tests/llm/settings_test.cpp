// settings.json / auth.json parsing, environment precedence and the
// permissions of the credentials file.

#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <vector>

#include <fmt/format.h>

#include "ava/llm/model_list.hpp"
#include "ava/llm/settings.hpp"
#include "llm/ollama_host.hpp"
#include "support/fake_env.hpp"
#include "support/temp_dir.hpp"

namespace llm = ava::llm;
using ava::test::fake_env;

namespace {

struct TestHome {
  ava::test::TempDir dir;
  ava::base::Home home = ava::base::Home::at(dir.path()).value();

  void write(const std::string& name, const std::string& text, mode_t mode = 0600) const {
    auto path = home.file(name);
    std::ofstream(path) << text;
    ::chmod(path.c_str(), mode);
  }
  mode_t mode(const std::string& name) const {
    struct stat info {};
    REQUIRE(::stat(home.file(name).c_str(), &info) == 0);
    return info.st_mode & 0777;
  }
  ava::Result<llm::Settings> load(std::map<std::string, std::string> env = {}) const {
    return llm::load_settings(home, fake_env(std::move(env)));
  }
};

constexpr const char* full_settings = R"({
  "provider": "openrouter",
  "model": "anthropic/claude-sonnet-4.6",
  "providers": {
    "openrouter": {"kind": "openai", "baseUrl": "https://openrouter.ai/api/v1",
                   "headers": {"X-Title": "Ava"}, "apiKeyEnv": "OPENROUTER_API_KEY",
                   "model": "openai/gpt-5.4"},
    "ollama": {"baseUrl": "http://192.168.1.9:11434/v1", "model": "qwen3:8b"},
    "scripted": {"kind": "mock", "mockScript": "scripts/demo.json"}
  },
  "models": {"qwen3:8b": {"contextWindow": 32768, "maxOutput": 4096}}
})";

}  // namespace

TEST_CASE("settings: missing files are empty settings and nothing is configured", "[settings]") {
  TestHome test;
  auto settings = test.load();
  REQUIRE(settings.has_value());
  CHECK(settings->providers.empty());
  CHECK(settings->keys.empty());
  CHECK(llm::default_provider_name(*settings).empty());
}

TEST_CASE("settings: settings.json providers, defaults and model overrides are read",
          "[settings]") {
  TestHome test;
  test.write("settings.json", full_settings);
  auto settings = test.load();
  REQUIRE(settings.has_value());
  CHECK(settings->provider == "openrouter");
  CHECK(settings->model == "anthropic/claude-sonnet-4.6");
  REQUIRE(settings->providers.size() == 3);
  const auto& router = settings->providers.at("openrouter");
  CHECK(router.kind == llm::ProviderKind::openai);
  CHECK(router.base_url == "https://openrouter.ai/api/v1");
  REQUIRE(router.headers.size() == 1);
  CHECK(router.headers[0].name == "X-Title");
  CHECK(router.api_key_env == "OPENROUTER_API_KEY");
  CHECK(settings->providers.at("ollama").kind == llm::ProviderKind::ollama);
  CHECK(settings->providers.at("scripted").mock_script == test.home.root() / "scripts/demo.json");
  CHECK(settings->models.at("qwen3:8b").context_window == 32768);
  CHECK(settings->models.at("qwen3:8b").max_output == 4096);
  CHECK(llm::provider_names(*settings).back() == "scripted");
}

TEST_CASE("settings: malformed settings.json names the file and the problem", "[settings]") {
  TestHome test;
  auto path = test.home.file("settings.json").string();
  struct Case {
    std::string text;
    std::string expected;
  };
  auto cases = GENERATE(
      Case{R"({"provider": "anthropic",)", "not valid JSON: parse error at line 1"},
      Case{"[1, 2]", "must hold a JSON object"},
      Case{R"({"provider": 3})", "provider: must be a string"},
      Case{R"({"providers": {"x": {"baseUrl": "http://a"}}})", "providers.x.kind: missing"},
      Case{R"({"providers": {"x": {"kind": "gemini"}}})",
           "providers.x.kind: unknown provider kind 'gemini'"},
      Case{R"({"providers": {"x": {"kind": "openai", "baseUrl": 7}}})",
           "providers.x.baseUrl: must be a string"},
      Case{R"({"providers": {"x": {"kind": "openai", "baseUrl": "ftp://host"}}})",
           "providers.x.baseUrl: unsupported URL scheme 'ftp'"},
      Case{R"({"providers": {"ollama": {"kind": "openai"}}})",
           "providers.ollama.kind: must be ollama for the built-in provider"},
      Case{R"({"providers": {"bad name": {"kind": "openai"}}})",
           "'bad name' is not a valid provider name"},
      Case{R"({"providers": {"x": {"kind": "openai", "headers": {"a": "b\r\nc: d"}}}})",
           "providers.x.headers: 'a' must be a one-line string"},
      Case{R"({"models": {"m": {"contextWindow": -5}}})",
           "models.m.contextWindow: must be a positive integer"});
  test.write("settings.json", cases.text);
  auto settings = test.load();
  REQUIRE_FALSE(settings.has_value());
  CHECK(settings.error().code == ava::ErrorCode::parse);
  CHECK_THAT(settings.error().message, Catch::StartsWith(path + ": "));
  CHECK_THAT(settings.error().message, Catch::Contains(cases.expected));
}

TEST_CASE("settings: an empty settings.json is accepted", "[settings]") {
  TestHome test;
  test.write("settings.json", "\n");
  CHECK(test.load().has_value());
}

TEST_CASE("settings: the default provider follows AVA_PROVIDER, settings, then keys",
          "[settings]") {
  TestHome test;
  auto name = [&](std::map<std::string, std::string> env) {
    return llm::default_provider_name(test.load(std::move(env)).value());
  };
  CHECK(name({{"OPENAI_API_KEY", "sk-o"}}) == "openai");
  CHECK(name({{"OPENAI_API_KEY", "sk-o"}, {"ANTHROPIC_API_KEY", "sk-a"}}) == "anthropic");
  CHECK(name({{"ANTHROPIC_API_KEY", ""}}).empty());  // set but empty is unset
  test.write("auth.json", R"({"openai": {"apiKey": "sk-saved"}})");
  CHECK(name({}) == "openai");
  test.write("settings.json", R"({"provider": "ollama"})");
  CHECK(name({{"ANTHROPIC_API_KEY", "sk-a"}}) == "ollama");
  CHECK(name({{"ANTHROPIC_API_KEY", "sk-a"}, {"AVA_PROVIDER", "mock"}}) == "mock");
}

TEST_CASE("settings: environment variables take precedence over the files", "[settings]") {
  TestHome test;
  test.write("settings.json", R"({"providers": {
      "anthropic": {"baseUrl": "https://gateway.example/anthropic", "model": "claude-opus-4-6"},
      "openrouter": {"kind": "openai", "baseUrl": "https://openrouter.ai/api/v1"}}})");
  test.write("auth.json",
             R"({"anthropic": {"apiKey": "sk-ant-saved"}, "openrouter": {"apiKey": "sk-or"}})");

  auto settings = test.load({});
  auto plain = llm::resolve_provider(*settings, "anthropic", true).value();
  CHECK(plain.base_url == "https://gateway.example/anthropic");
  CHECK(plain.api_key.reveal() == "sk-ant-saved");
  CHECK(plain.key_variable == "ANTHROPIC_API_KEY");
  CHECK(plain.model == "claude-opus-4-6");

  settings = test.load({{"ANTHROPIC_API_KEY", "sk-ant-env"},
                        {"ANTHROPIC_BASE_URL", "http://127.0.0.1:9/"},
                        {"OPENAI_API_KEY", "sk-openai"},
                        {"OPENAI_BASE_URL", "http://127.0.0.1:10/v1"}});
  auto vendor = llm::resolve_provider(*settings, "anthropic", true).value();
  CHECK(vendor.base_url == "http://127.0.0.1:9/");
  CHECK(vendor.api_key.reveal() == "sk-ant-env");
  CHECK(llm::resolve_provider(*settings, "openai-responses", true)->base_url ==
        "http://127.0.0.1:10/v1");
  // The vendor's variables never reach a provider the user named otherwise.
  auto router = llm::resolve_provider(*settings, "openrouter", true).value();
  CHECK(router.base_url == "https://openrouter.ai/api/v1");
  CHECK(router.api_key.reveal() == "sk-or");

  settings = test.load({{"ANTHROPIC_API_KEY", "sk-ant-env"},
                        {"ANTHROPIC_BASE_URL", "http://127.0.0.1:9/"},
                        {"AVA_BASE_URL", "http://127.0.0.1:11"},
                        {"AVA_API_KEY", "sk-ava"}});
  auto in_use = llm::resolve_provider(*settings, "anthropic", true).value();
  CHECK(in_use.base_url == "http://127.0.0.1:11");
  CHECK(in_use.api_key.reveal() == "sk-ava");
  // AVA_* describe the provider in use only.
  auto other = llm::resolve_provider(*settings, "anthropic", false).value();
  CHECK(other.base_url == "http://127.0.0.1:9/");
  CHECK(other.api_key.reveal() == "sk-ant-env");
}

TEST_CASE("settings: built-in providers have their default base URLs", "[settings]") {
  TestHome test;
  auto settings = test.load().value();
  CHECK(llm::resolve_provider(settings, "ollama", true)->base_url == "http://127.0.0.1:11434/v1");
  CHECK(llm::resolve_provider(settings, "lmstudio", true)->base_url == "http://127.0.0.1:1234/v1");
  CHECK(llm::resolve_provider(settings, "llamacpp", true)->base_url == "http://127.0.0.1:8080/v1");
  CHECK(llm::resolve_provider(settings, "openai", true)->base_url == "https://api.openai.com/v1");
  CHECK(llm::resolve_provider(settings, "anthropic", true)->base_url ==
        "https://api.anthropic.com");
  auto unknown = llm::resolve_provider(settings, "gemini", true);
  REQUIRE_FALSE(unknown.has_value());
  CHECK(unknown.error().code == ava::ErrorCode::not_found);
  CHECK_THAT(unknown.error().message, Catch::Contains("unknown provider 'gemini'"));
}

TEST_CASE("settings: a bad base URL from the environment names the variable", "[settings]") {
  TestHome test;
  auto settings = test.load({{"OPENAI_BASE_URL", "api.openai.com/v1"}}).value();
  auto resolved = llm::resolve_provider(settings, "openai", true);
  REQUIRE_FALSE(resolved.has_value());
  CHECK_THAT(resolved.error().message, Catch::StartsWith("OPENAI_BASE_URL for provider 'openai'"));
}

TEST_CASE("auth: save_api_key writes auth.json 0600 atomically and keeps other keys",
          "[settings][auth]") {
  TestHome test;
  REQUIRE(llm::save_api_key(test.home, "anthropic", ava::base::Secret("sk-ant-one")).has_value());
  CHECK(test.mode("auth.json") == 0600);
  REQUIRE(llm::save_api_key(test.home, "openai", ava::base::Secret("sk-two")).has_value());
  REQUIRE(llm::save_api_key(test.home, "anthropic", ava::base::Secret("sk-ant-three")).has_value());
  CHECK(test.mode("auth.json") == 0600);
  auto settings = test.load().value();
  CHECK(settings.keys.at("anthropic").reveal() == "sk-ant-three");
  CHECK(settings.keys.at("openai").reveal() == "sk-two");
  CHECK(fmt::format("{}", settings.keys.at("openai")) == "[redacted]");
  // Only auth.json is left beside its lock file: no temporary files.
  std::vector<std::string> files;
  for (const auto& file : std::filesystem::directory_iterator(test.dir.path()))
    files.push_back(file.path().filename().string());
  std::ranges::sort(files);
  CHECK(files == std::vector<std::string>{"auth.json", "auth.json.lock"});
  CHECK(test.mode("auth.json.lock") == 0600);
  CHECK_FALSE(llm::save_api_key(test.home, "bad/name", ava::base::Secret("k")).has_value());
  CHECK_FALSE(llm::save_api_key(test.home, "openai", ava::base::Secret()).has_value());
  auto not_text = llm::save_api_key(test.home, "openai", ava::base::Secret("\xff\xfe"));
  REQUIRE_FALSE(not_text.has_value());
  CHECK(not_text.error().code == ava::ErrorCode::invalid_argument);
  // A key becomes a header: no line breaks, spaces or control characters.
  for (const char* bad : {"sk-a\r\nX-Injected: 1", "sk a", "sk-\t", "sk-\x7f"}) {
    auto refused = llm::save_api_key(test.home, "openai", ava::base::Secret(bad));
    REQUIRE_FALSE(refused.has_value());
    CHECK(refused.error().message.find("printable ASCII") != std::string::npos);
  }
  CHECK_FALSE(llm::save_api_key(test.home, "openai", ava::base::Secret(std::string(4097, 'k')))
                  .has_value());
  CHECK(test.load().value().keys.at("openai").reveal() == "sk-two");
}

TEST_CASE("auth: a group- or world-readable auth.json is tightened to 0600", "[settings][auth]") {
  TestHome test;
  test.write("auth.json", R"({"openai": {"apiKey": "sk-loose"}})", 0644);
  auto settings = test.load();
  REQUIRE(settings.has_value());
  CHECK(settings->keys.at("openai").reveal() == "sk-loose");
  CHECK(test.mode("auth.json") == 0600);
}

TEST_CASE("auth: a symlinked auth.json is refused", "[settings][auth]") {
  TestHome test;
  test.write("real.json", R"({"openai": {"apiKey": "sk-x"}})");
  std::filesystem::create_symlink(test.home.file("real.json"), test.home.file("auth.json"));
  auto settings = test.load();
  REQUIRE_FALSE(settings.has_value());
  CHECK_THAT(settings.error().message, Catch::Contains("auth.json"));
}

TEST_CASE("auth: malformed auth.json is reported without quoting the key and is not overwritten",
          "[settings][auth]") {
  TestHome test;
  const std::string broken = R"({"openai": {"apiKey": "sk-secret-value-123)";
  test.write("auth.json", broken);
  auto settings = test.load();
  REQUIRE_FALSE(settings.has_value());
  CHECK(settings.error().code == ava::ErrorCode::parse);
  CHECK_THAT(settings.error().message,
             Catch::StartsWith(test.home.file("auth.json").string() + ": not valid JSON"));
  CHECK_THAT(settings.error().message, !Catch::Contains("sk-secret"));
  CHECK_FALSE(llm::save_api_key(test.home, "anthropic", ava::base::Secret("sk-new")).has_value());
  std::ifstream in(test.home.file("auth.json"));
  std::string kept((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(kept == broken);

  test.write("auth.json", R"({"openai": "sk-plain"})");
  auto wrong_shape = test.load();
  REQUIRE_FALSE(wrong_shape.has_value());
  CHECK_THAT(wrong_shape.error().message, Catch::Contains("\"apiKey\" string"));
  CHECK_THAT(wrong_shape.error().message, !Catch::Contains("sk-plain"));
}

TEST_CASE("settings: OLLAMA_HOST places Ollama as Ollama's own tools read it", "[settings]") {
  CHECK(llm::ollama_base_url("") == "");
  CHECK(llm::ollama_base_url("gpu-box") == "http://gpu-box:11434/v1");
  CHECK(llm::ollama_base_url("gpu-box:8000") == "http://gpu-box:8000/v1");
  CHECK(llm::ollama_base_url("https://ollama.example:443/") == "https://ollama.example:443/v1");
  CHECK(llm::ollama_base_url("0.0.0.0") == "http://127.0.0.1:11434/v1");
  CHECK(llm::ollama_base_url("0.0.0.0:9999") == "http://127.0.0.1:9999/v1");
  CHECK(llm::ollama_base_url("[::1]:7000") == "http://[::1]:7000/v1");
  CHECK(llm::ollama_base_url("::") == "http://[::1]:11434/v1");

  TestHome test;
  auto settings = test.load({{"OLLAMA_HOST", "10.0.0.5:11500"}});
  CHECK(llm::resolve_provider(*settings, "ollama", true).value().base_url ==
        "http://10.0.0.5:11500/v1");
  // AVA_BASE_URL still wins for the provider in use; other providers ignore it.
  settings = test.load({{"OLLAMA_HOST", "10.0.0.5"}, {"AVA_BASE_URL", "http://127.0.0.1:1/v1"}});
  CHECK(llm::resolve_provider(*settings, "ollama", true).value().base_url ==
        "http://127.0.0.1:1/v1");
  CHECK(llm::resolve_provider(*settings, "lmstudio", false).value().base_url ==
        "http://127.0.0.1:1234/v1");
  // The local probe looks there too.
  auto probes = llm::local_probes(fake_env({{"OLLAMA_HOST", "10.0.0.5"}})).value();
  REQUIRE(!probes.empty());
  CHECK(probes.front().base_url == "http://10.0.0.5:11434/v1");
}

TEST_CASE("settings: ANTHROPIC_AUTH_TOKEN is sent as a bearer token", "[settings]") {
  TestHome test;
  auto settings = test.load({{"ANTHROPIC_AUTH_TOKEN", "tok-123"}});
  CHECK(llm::default_provider_name(*settings) == "anthropic");
  auto resolved = llm::resolve_provider(*settings, "anthropic", true).value();
  CHECK(resolved.api_key.empty());
  REQUIRE(resolved.headers.size() == 1);
  CHECK(resolved.headers[0].name == "authorization");
  CHECK(resolved.headers[0].value == "Bearer tok-123");
  // A key wins: no bearer header beside it.
  settings = test.load({{"ANTHROPIC_AUTH_TOKEN", "tok-123"}, {"ANTHROPIC_API_KEY", "sk-a"}});
  resolved = llm::resolve_provider(*settings, "anthropic", true).value();
  CHECK(resolved.api_key.reveal() == "sk-a");
  CHECK(resolved.headers.empty());
}
