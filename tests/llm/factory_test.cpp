// Provider selection: names, defaults, the one-line errors, mock modes, and
// a selected provider that really talks to the loopback fake server.

#include <catch2/catch.hpp>

#include <fstream>

#include <boost/asio/io_context.hpp>

#include "ava/llm/factory.hpp"
#include "support/fake_env.hpp"
#include "support/fake_provider.hpp"
#include "support/run_coroutine.hpp"
#include "support/temp_dir.hpp"
#include "support/wire_sse.hpp"

namespace asio = boost::asio;
namespace llm = ava::llm;
using ava::test::fake_env;

namespace {

llm::Settings settings_with(std::map<std::string, std::string> env) {
  llm::Settings settings;
  settings.env = fake_env(std::move(env));
  return settings;
}

ava::Result<llm::SelectedProvider> select(const llm::Settings& settings,
                                          const llm::ProviderChoice& choice = {}) {
  asio::io_context io;
  return llm::make_provider(io.get_executor(), settings, choice);
}

// Sends one user message through a freshly selected provider.
llm::Response ask(const llm::Settings& settings, const llm::ProviderChoice& choice,
                  const std::string& text) {
  return ava::test::run_coroutine([&](asio::io_context& io) -> asio::awaitable<llm::Response> {
    auto selected = llm::make_provider(io.get_executor(), settings, choice);
    REQUIRE(selected.has_value());
    llm::Request request{
        .model = selected->model,
        .messages = {llm::Message{.role = llm::Role::user, .content = {llm::TextBlock{text}}}}};
    llm::EventSink sink;
    auto response = co_await selected->provider->stream(request, sink);
    selected->provider->close();
    REQUIRE(response.has_value());
    co_return std::move(*response);
  });
}

std::string text_of(const llm::Response& response) {
  std::string text;
  for (const auto& block : response.message.content) {
    if (const auto* part = std::get_if<llm::TextBlock>(&block)) text += part->text;
  }
  return text;
}

}  // namespace

TEST_CASE("factory: with nothing configured the error is one line that says the fix", "[factory]") {
  auto selected = select(settings_with({}));
  REQUIRE_FALSE(selected.has_value());
  CHECK(selected.error().code == ava::ErrorCode::not_found);
  CHECK(selected.error().message == llm::no_provider_message());
  // It names every way out: a saved key, the vendors' variables, a local
  // server, the mock; and it is one line.
  for (const char* fix : {"ava auth login", "ANTHROPIC_API_KEY", "OPENAI_API_KEY", "Ollama",
                          "LM Studio", "llama.cpp", "--provider mock"}) {
    CHECK(selected.error().message.find(fix) != std::string::npos);
  }
  CHECK(selected.error().message.find('\n') == std::string::npos);
}

TEST_CASE("factory: a vendor key picks its provider and default model", "[factory]") {
  auto anthropic = select(settings_with({{"ANTHROPIC_API_KEY", "sk-ant"}}));
  REQUIRE(anthropic.has_value());
  CHECK(anthropic->provider_name == "anthropic");
  CHECK(anthropic->model == "claude-sonnet-4-6");
  CHECK(anthropic->api == llm::WireApi::anthropic_messages);

  auto openai = select(settings_with({{"OPENAI_API_KEY", "sk-o"}}));
  REQUIRE(openai.has_value());
  CHECK(openai->provider_name == "openai");
  CHECK(openai->model == "gpt-5.4");
  CHECK(openai->api == llm::WireApi::openai_chat);

  auto responses =
      select(settings_with({{"OPENAI_API_KEY", "sk-o"}}), {.provider = "openai-responses"});
  REQUIRE(responses.has_value());
  CHECK(responses->api == llm::WireApi::openai_responses);
}

TEST_CASE("factory: a cloud provider without a key names the variable to set", "[factory]") {
  auto selected = select(settings_with({{"OPENAI_API_KEY", "sk-o"}}), {.provider = "anthropic"});
  REQUIRE_FALSE(selected.has_value());
  CHECK(selected.error().code == ava::ErrorCode::permission_denied);
  CHECK_THAT(selected.error().message,
             Catch::StartsWith("no API key for provider 'anthropic': set ANTHROPIC_API_KEY"));
  CHECK(selected.error().message.find('\n') == std::string::npos);
}

TEST_CASE("factory: local servers need no key, ollama and lmstudio need a model", "[factory]") {
  auto settings = settings_with({});
  auto ollama = select(settings, {.provider = "ollama"});
  REQUIRE_FALSE(ollama.has_value());
  CHECK_THAT(
      ollama.error().message,
      Catch::StartsWith("no model set for provider 'ollama': pass --model or set AVA_MODEL"));
  auto with_model = select(settings, {.provider = "ollama", .model = "qwen3:8b"});
  REQUIRE(with_model.has_value());
  CHECK(with_model->api == llm::WireApi::openai_chat);
  CHECK(with_model->model == "qwen3:8b");
  auto llamacpp = select(settings, {.provider = "llamacpp"});
  REQUIRE(llamacpp.has_value());
  CHECK(llamacpp->model == "default");
  auto lmstudio = select(settings_with({{"AVA_MODEL", "qwen2.5-coder"}}), {.provider = "lmstudio"});
  REQUIRE(lmstudio.has_value());
  CHECK(lmstudio->model == "qwen2.5-coder");
}

TEST_CASE("factory: unknown provider names are refused with the known ones", "[factory]") {
  auto selected = select(settings_with({}), {.provider = "gemini"});
  REQUIRE_FALSE(selected.has_value());
  CHECK_THAT(selected.error().message, Catch::StartsWith("unknown provider 'gemini'"));
}

TEST_CASE("factory: model precedence is choice, AVA_MODEL, settings, provider default",
          "[factory]") {
  auto settings = settings_with({{"ANTHROPIC_API_KEY", "sk-a"}, {"OPENAI_API_KEY", "sk-o"}});
  settings.provider = "anthropic";
  settings.model = "claude-opus-4-6";
  CHECK(select(settings).value().model == "claude-opus-4-6");
  CHECK(select(settings, {.model = "claude-haiku-4-5"}).value().model == "claude-haiku-4-5");
  // settings.json "model" belongs to settings.json "provider".
  CHECK(select(settings, {.provider = "openai"}).value().model == "gpt-5.4");
  settings.providers["openai"] =
      llm::ProviderEntry{.kind = llm::ProviderKind::openai, .model = "gpt-5-mini"};
  CHECK(select(settings, {.provider = "openai"}).value().model == "gpt-5-mini");
  auto env_model = settings_with({{"ANTHROPIC_API_KEY", "sk-a"}, {"AVA_MODEL", "claude-opus-4-7"}});
  env_model.model = "claude-opus-4-6";
  CHECK(select(env_model).value().model == "claude-opus-4-7");
}

TEST_CASE("factory: mock without a script echoes the last user message", "[factory][mock]") {
  auto settings = settings_with({});
  auto selected = select(settings, {.provider = "mock"});
  REQUIRE(selected.has_value());
  CHECK(selected->model == "mock");
  auto response = ask(settings, {.provider = "mock"}, "hello there");
  CHECK(text_of(response) == "mock: you said \"hello there\"");
  CHECK(response.stop.reason == llm::StopReason::end_turn);
  CHECK_FALSE(response.error.has_value());
}

TEST_CASE("factory: mock plays the script named by AVA_MOCK_SCRIPT", "[factory][mock]") {
  ava::test::TempDir dir;
  auto script = dir.path() / "script.json";
  std::ofstream(script) << R"({"responses": [{"steps": [{"text": "scripted reply"}]}]})";
  auto settings = settings_with({{"AVA_MOCK_SCRIPT", script.string()}});
  CHECK(text_of(ask(settings, {.provider = "mock"}, "hi")) == "scripted reply");

  auto missing = select(settings_with({{"AVA_MOCK_SCRIPT", (dir.path() / "nope.json").string()}}),
                        {.provider = "mock"});
  REQUIRE_FALSE(missing.has_value());
  CHECK_THAT(missing.error().message, Catch::Contains("nope.json"));
}

TEST_CASE("factory: the selected provider sends the key, base URL and headers it resolved",
          "[factory]") {
  auto server = ava::test::FakeProviderServer::start();
  auto script = llm::parse_mock_script(R"({"responses":[{"steps":[{"text":"from the fake"}]}]})");
  server->enqueue(
      ava::test::FakeReply{.chunks = ava::test::chunks_per_event(ava::test::render_sse(
                               llm::WireApi::anthropic_messages, script->responses[0]))});
  auto settings = settings_with(
      {{"ANTHROPIC_API_KEY", "sk-ant-factory"}, {"ANTHROPIC_BASE_URL", server->base_url()}});
  settings.providers["anthropic"] =
      llm::ProviderEntry{.kind = llm::ProviderKind::anthropic, .headers = {{"x-team", "ava"}}};
  auto response = ask(settings, {}, "hi");
  CHECK(text_of(response) == "from the fake");
  auto requests = server->requests();
  REQUIRE(requests.size() == 1);
  CHECK(requests[0].target == "/v1/messages");
  CHECK(requests[0].header("x-api-key") == "sk-ant-factory");
  CHECK(requests[0].header("x-team") == "ava");
  CHECK(requests[0].body.find("\"claude-sonnet-4-6\"") != std::string::npos);
}
