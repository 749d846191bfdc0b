// Model listings: which providers `ava models` asks, the request each one
// understands, and the replies, against the loopback fake provider.

#include <catch2/catch.hpp>

#include <boost/asio/io_context.hpp>

#include "ava/llm/model_list.hpp"
#include "support/fake_env.hpp"
#include "support/fake_provider.hpp"
#include "support/run_coroutine.hpp"

namespace asio = boost::asio;
namespace llm = ava::llm;
using ava::test::fake_env;
using ava::test::FakeProviderServer;
using ava::test::FakeReply;

namespace {

FakeReply json_reply(std::string body, int status = 200) {
  return FakeReply{
      .status = status, .content_type = "application/json", .chunks = {std::move(body)}};
}

llm::ProviderModels query(llm::ModelSource source) {
  return ava::test::run_coroutine(
      [&](asio::io_context& io) -> asio::awaitable<llm::ProviderModels> {
        ava::transport::HttpClientOptions options;
        options.proxy = ava::transport::ProxyConfig{};
        co_return co_await llm::query_models(io.get_executor(), source, options);
      });
}

}  // namespace

TEST_CASE("model list: replies in the OpenAI, Anthropic and Ollama shapes parse", "[models]") {
  auto openai = llm::parse_model_list(
      llm::ProviderKind::openai,
      R"({"object":"list","data":[{"id":"gpt-5","object":"model"},{"id":"gpt-5-mini"}]})");
  REQUIRE(openai.has_value());
  CHECK(*openai == std::vector<std::string>{"gpt-5", "gpt-5-mini"});
  auto anthropic = llm::parse_model_list(
      llm::ProviderKind::anthropic,
      R"({"data":[{"type":"model","id":"claude-sonnet-4-6","display_name":"Claude Sonnet 4.6"}],
          "has_more":false})");
  CHECK(anthropic.value() == std::vector<std::string>{"claude-sonnet-4-6"});
  auto ollama = llm::parse_model_list(llm::ProviderKind::ollama,
                                      R"({"models":[{"name":"qwen3:8b","size":5200000000}]})");
  CHECK(ollama.value() == std::vector<std::string>{"qwen3:8b"});
  CHECK_FALSE(llm::parse_model_list(llm::ProviderKind::openai, "<html>").has_value());
  CHECK_FALSE(llm::parse_model_list(llm::ProviderKind::ollama, R"({"data":[]})").has_value());
}

TEST_CASE("model list: local probes default to the servers' ports and can be redirected",
          "[models]") {
  auto defaults = llm::local_probes(fake_env({}));
  REQUIRE(defaults.has_value());
  REQUIRE(defaults->size() == 3);
  CHECK((*defaults)[0].base_url == "http://127.0.0.1:11434/v1");
  CHECK((*defaults)[1].base_url == "http://127.0.0.1:1234/v1");
  CHECK((*defaults)[2].base_url == "http://127.0.0.1:8080/v1");
  CHECK(llm::local_probes(fake_env({{"AVA_LOCAL_PROBE", "0"}}))->empty());
  auto custom = llm::local_probes(
      fake_env({{"AVA_LOCAL_PROBE", "ollama=127.0.0.1:7001,llamacpp=[::1]:7002"}}));
  REQUIRE(custom.has_value());
  REQUIRE(custom->size() == 2);
  CHECK((*custom)[0].kind == llm::ProviderKind::ollama);
  CHECK((*custom)[0].base_url == "http://127.0.0.1:7001/v1");
  CHECK((*custom)[1].base_url == "http://[::1]:7002/v1");
  CHECK_FALSE(llm::local_probes(fake_env({{"AVA_LOCAL_PROBE", "openai=1.2.3.4:5"}})).has_value());
}

TEST_CASE("model list: sources are the configured providers, then unconfigured local probes",
          "[models]") {
  llm::Settings settings;
  settings.env = fake_env({{"OPENAI_API_KEY", "sk-o"}});
  settings.providers["ollama"] =
      llm::ProviderEntry{.kind = llm::ProviderKind::ollama, .base_url = "http://127.0.0.1:7001/v1"};
  settings.providers["router"] =
      llm::ProviderEntry{.kind = llm::ProviderKind::openai, .base_url = "http://127.0.0.1:7002/v1"};
  auto probes = llm::local_probes(fake_env({})).value();
  auto sources = llm::model_sources(settings, probes);
  std::vector<std::string> names;
  names.reserve(sources.size());
  for (const auto& source : sources) names.push_back(source.provider);
  CHECK(names == std::vector<std::string>{"openai", "ollama", "router", "lmstudio", "llamacpp"});
  CHECK(sources[0].in_use);
  CHECK(sources[0].api_key.reveal() == "sk-o");
  CHECK(sources[0].default_model == "gpt-5.4");
  CHECK(sources[1].configured);
  CHECK(sources[1].base_url == "http://127.0.0.1:7001/v1");
  CHECK_FALSE(sources[3].configured);

  // The provider in use shows the model Ava would pick for it.
  settings.model = "gpt-5-nano";
  CHECK(llm::model_sources(settings, {})[0].default_model == "gpt-5-nano");
  settings.env = fake_env({{"OPENAI_API_KEY", "sk-o"}, {"AVA_MODEL", "gpt-5-mini"}});
  CHECK(llm::model_sources(settings, {})[0].default_model == "gpt-5-mini");

  settings.env = fake_env({{"AVA_PROVIDER", "nope"}});
  auto broken = llm::model_sources(settings, {});
  REQUIRE_FALSE(broken.empty());
  CHECK(broken[0].provider == "nope");
  CHECK_THAT(broken[0].error, Catch::StartsWith("unknown provider 'nope'"));
}

TEST_CASE("model list: Anthropic is asked at /v1/models with its key and version", "[models]") {
  auto server = FakeProviderServer::start();
  server->enqueue(json_reply(R"({"data":[{"id":"claude-opus-4-6"},{"id":"claude-haiku-4-5"}]})"));
  auto listed = query(llm::ModelSource{.provider = "anthropic",
                                       .kind = llm::ProviderKind::anthropic,
                                       .base_url = server->base_url(),
                                       .api_key = ava::base::Secret("sk-ant-list")});
  CHECK(listed.reachable);
  CHECK(listed.error.empty());
  CHECK(listed.models == std::vector<std::string>{"claude-opus-4-6", "claude-haiku-4-5"});
  auto requests = server->requests();
  REQUIRE(requests.size() == 1);
  CHECK(requests[0].method == "GET");
  CHECK(requests[0].target == "/v1/models?limit=1000");
  CHECK(requests[0].header("x-api-key") == "sk-ant-list");
  CHECK(requests[0].header("anthropic-version") == "2023-06-01");
}

TEST_CASE("model list: OpenAI-compatible servers are asked at {base}/models", "[models]") {
  auto server = FakeProviderServer::start();
  server->enqueue(json_reply(R"({"object":"list","data":[{"id":"local-model"}]})"));
  auto listed = query(llm::ModelSource{.provider = "lmstudio",
                                       .kind = llm::ProviderKind::lmstudio,
                                       .base_url = server->base_url() + "/v1",
                                       .api_key = ava::base::Secret("sk-lm")});
  CHECK(listed.models == std::vector<std::string>{"local-model"});
  REQUIRE(server->requests().size() == 1);
  CHECK(server->requests()[0].target == "/v1/models");
  CHECK(server->requests()[0].header("authorization") == "Bearer sk-lm");
}

TEST_CASE("model list: Ollama is asked at /api/tags beside its /v1", "[models]") {
  auto server = FakeProviderServer::start();
  server->enqueue(json_reply(R"({"models":[{"name":"qwen3:8b"},{"name":"llama3.2:latest"}]})"));
  auto listed = query(llm::ModelSource{.provider = "ollama",
                                       .kind = llm::ProviderKind::ollama,
                                       .base_url = server->base_url() + "/v1/"});
  CHECK(listed.models == std::vector<std::string>{"qwen3:8b", "llama3.2:latest"});
  REQUIRE(server->requests().size() == 1);
  CHECK(server->requests()[0].target == "/api/tags");
}

TEST_CASE("model list: a refusal or a dead server is reported, not thrown", "[models]") {
  auto server = FakeProviderServer::start();
  server->enqueue(
      json_reply(R"({"error":{"type":"authentication_error","message":"bad key"}})", 401));
  auto refused = query(llm::ModelSource{.provider = "openai",
                                        .kind = llm::ProviderKind::openai,
                                        .base_url = server->base_url() + "/v1"});
  CHECK_FALSE(refused.reachable);
  CHECK(refused.error == "HTTP 401: bad key");
  std::string dead_url = server->base_url() + "/v1";
  server.reset();
  auto dead = query(llm::ModelSource{.provider = "llamacpp",
                                     .kind = llm::ProviderKind::llamacpp,
                                     .base_url = dead_url,
                                     .configured = false});
  CHECK_FALSE(dead.reachable);
  CHECK_THAT(dead.error, Catch::Contains("connect"));
  auto mock = query(llm::ModelSource{
      .provider = "mock", .kind = llm::ProviderKind::mock, .default_model = "mock"});
  CHECK(mock.reachable);
  CHECK(mock.models == std::vector<std::string>{"mock"});
}
