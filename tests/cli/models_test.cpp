// Black-box tests of `ava models`: the built binary, run with its own
// AVA_HOME and environment, against loopback fake servers standing in for
// /v1/models and Ollama's /api/tags. Nothing here reaches the real network:
// every base URL points at loopback and local probing is redirected.

#include <catch2/catch.hpp>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "support/fake_provider.hpp"
#include "support/temp_dir.hpp"

using ava::test::FakeProviderServer;
using ava::test::FakeReply;
using nlohmann::json;

namespace {

struct Run {
  int exit_code = -1;
  std::string out;
  std::string err;
};

std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Runs the ava binary with exactly `env` (plus the sanitizer options).
Run run_ava(const std::vector<std::string>& args, std::map<std::string, std::string> env,
            const ava::test::TempDir& dir) {
  for (const char* keep : {"ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS"}) {
    if (const char* value = std::getenv(keep))
      env.emplace(keep, value);  // NOLINT(concurrency-mt-unsafe)
  }
  std::vector<std::string> argv_text = {AVA_BIN};
  argv_text.insert(argv_text.end(), args.begin(), args.end());
  std::vector<char*> argv;
  argv.reserve(argv_text.size() + 1);
  for (auto& arg : argv_text) argv.push_back(arg.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_text;
  env_text.reserve(env.size());
  for (const auto& [name, value] : env) env_text.push_back(fmt::format("{}={}", name, value));
  std::vector<char*> envp;
  envp.reserve(env_text.size() + 1);
  for (auto& entry : env_text) envp.push_back(entry.data());
  envp.push_back(nullptr);

  auto out_path = dir.path() / "stdout";
  auto err_path = dir.path() / "stderr";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0600);
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0600);
  pid_t pid = 0;
  int spawned = posix_spawn(&pid, AVA_BIN, &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  REQUIRE(spawned == 0);
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  Run run;
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  run.out = slurp(out_path);
  run.err = slurp(err_path);
  return run;
}

FakeReply json_reply(const std::string& body, int status = 200) {
  return FakeReply{.status = status, .content_type = "application/json", .chunks = {body}};
}

const json& provider_named(const json& listing, const std::string& name) {
  for (const auto& provider : listing["providers"]) {
    if (provider["name"] == name) return provider;
  }
  FAIL("no provider " << name << " in " << listing.dump());
  throw std::logic_error("unreachable");
}

}  // namespace

TEST_CASE("ava models lists configured providers, detected local servers and failures",
          "[models]") {
  auto anthropic = FakeProviderServer::start();
  anthropic->set_fallback([](const ava::test::RecordedRequest&) {
    return json_reply(R"({"data":[{"id":"claude-sonnet-4-6"},{"id":"claude-new-model"}]})");
  });
  auto ollama = FakeProviderServer::start();
  ollama->set_fallback([](const ava::test::RecordedRequest&) {
    return json_reply(R"({"models":[{"name":"qwen3:8b"}]})");
  });
  auto router = FakeProviderServer::start();
  router->set_fallback([](const ava::test::RecordedRequest&) {
    return json_reply(R"({"error":{"message":"invalid key"}})", 401);
  });
  std::string closed_port;
  {
    auto gone = FakeProviderServer::start();
    closed_port = std::to_string(gone->port());
  }

  ava::test::TempDir dir;
  auto home = dir.path() / "home";
  std::filesystem::create_directories(home);
  std::ofstream(home / "settings.json") << fmt::format(
      R"({{"providers": {{"router": {{"kind": "openai", "baseUrl": "{}/v1"}}}},
          "models": {{"qwen3:8b": {{"contextWindow": 40960}}}}}})",
      router->base_url());

  auto run = run_ava({"models", "--json"},
                     {{"AVA_HOME", home.string()},
                      {"ANTHROPIC_API_KEY", "sk-ant-models"},
                      {"ANTHROPIC_BASE_URL", anthropic->base_url()},
                      {"AVA_LOCAL_PROBE", fmt::format("ollama=127.0.0.1:{},lmstudio=127.0.0.1:{}",
                                                      ollama->port(), closed_port)}},
                     dir);
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  json listing = json::parse(run.out);

  const json& claude = provider_named(listing, "anthropic");
  CHECK(claude["configured"] == true);
  CHECK(claude["inUse"] == true);
  CHECK(claude["reachable"] == true);
  CHECK(claude["defaultModel"] == "claude-sonnet-4-6");
  REQUIRE(claude["models"].size() == 2);
  CHECK(claude["models"][0]["id"] == "claude-sonnet-4-6");
  CHECK(claude["models"][0]["known"] == true);
  CHECK(claude["models"][0]["contextWindow"] == 1'000'000);
  CHECK(claude["models"][1]["known"] == false);
  REQUIRE(anthropic->requests().size() == 1);
  CHECK(anthropic->requests()[0].target == "/v1/models?limit=1000");
  CHECK(anthropic->requests()[0].header("x-api-key") == "sk-ant-models");
  CHECK(anthropic->requests()[0].header("anthropic-version") == "2023-06-01");

  const json& local = provider_named(listing, "ollama");
  CHECK(local["configured"] == false);
  CHECK(local["detected"] == true);
  CHECK(local["models"][0]["id"] == "qwen3:8b");
  CHECK(local["models"][0]["contextWindow"] == 40960);  // the settings.json override
  REQUIRE(ollama->requests().size() == 1);
  CHECK(ollama->requests()[0].target == "/api/tags");

  const json& studio = provider_named(listing, "lmstudio");
  CHECK(studio["detected"] == false);
  CHECK(studio["models"].empty());

  const json& failing = provider_named(listing, "router");
  CHECK(failing["reachable"] == false);
  CHECK(failing["error"] == "HTTP 401: invalid key");

  CHECK(listing["catalog"].size() > 10);
  CHECK(run.out.find("sk-ant-models") == std::string::npos);
}

TEST_CASE("ava models as text reports each provider on its own line", "[models]") {
  auto router = FakeProviderServer::start();
  router->set_fallback([](const ava::test::RecordedRequest&) {
    return json_reply(R"({"data":[{"id":"gpt-5-mini"}]})");
  });
  ava::test::TempDir dir;
  auto run = run_ava({"models"},
                     {{"AVA_HOME", (dir.path() / "home").string()},
                      {"OPENAI_API_KEY", "sk-o"},
                      {"OPENAI_BASE_URL", router->base_url() + "/v1"},
                      {"AVA_LOCAL_PROBE", "0"}},
                     dir);
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  CHECK_THAT(run.out, Catch::StartsWith(fmt::format("openai (openai, in use) {}/v1\n"
                                                    "  gpt-5-mini  400k context, 128k output, "
                                                    "$0.25/$2.00 per MTok\n",
                                                    router->base_url())));
  CHECK_THAT(run.out, Catch::Contains("\ncatalog:\n  claude-opus-4-7 (anthropic)"));
}

TEST_CASE("ava models with nothing configured says how to configure", "[models]") {
  ava::test::TempDir dir;
  auto run = run_ava({"models"},
                     {{"AVA_HOME", (dir.path() / "home").string()}, {"AVA_LOCAL_PROBE", "0"}}, dir);
  REQUIRE(run.exit_code == 0);
  CHECK_THAT(run.out, Catch::StartsWith("no model provider configured: `ava auth login` saves a "
                                        "key"));
  CHECK_THAT(run.out, Catch::Contains("--provider ollama|lmstudio|llamacpp"));
}

TEST_CASE("ava models refuses a malformed settings.json, naming it", "[models]") {
  ava::test::TempDir dir;
  auto home = dir.path() / "home";
  std::filesystem::create_directories(home);
  std::ofstream(home / "settings.json") << R"({"providers": )";
  auto run = run_ava({"models"}, {{"AVA_HOME", home.string()}, {"AVA_LOCAL_PROBE", "0"}}, dir);
  CHECK(run.exit_code == 1);
  CHECK_THAT(run.err, Catch::StartsWith("ava models: " + (home / "settings.json").string() +
                                        ": not valid JSON"));
}

TEST_CASE("with nothing configured, a local server that serves a model answers -p", "[models]") {
  auto ollama = FakeProviderServer::start();
  ollama->set_fallback([](const ava::test::RecordedRequest& request) {
    if (request.target == "/api/tags") return json_reply(R"({"models": [{"name": "qwen3:8b"}]})");
    return FakeReply{
        .chunks = {
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"local hello\"}}]}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n",
            "data: [DONE]\n\n"}};
  });
  ava::test::TempDir dir;
  const std::map<std::string, std::string> env{
      {"AVA_HOME", (dir.path() / "home").string()},
      {"AVA_LOCAL_PROBE", "ollama=127.0.0.1:" + std::to_string(ollama->port())}};
  auto run = run_ava(
      {"-p", "hi", "--output-format", "json", "--no-mcp", "--cwd", dir.path().string()}, env, dir);
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  const auto result = json::parse(run.out);
  CHECK(result["result"] == "local hello");
  CHECK_THAT(run.err,
             Catch::Contains("no provider is configured; using ollama at http://127.0.0.1:"));
  CHECK_THAT(run.err, Catch::Contains("with qwen3:8b"));
  bool chatted = false;
  for (const auto& request : ollama->requests()) {
    if (request.target == "/v1/chat/completions") {
      chatted = true;
      CHECK(json::parse(request.body)["model"] == "qwen3:8b");
    }
  }
  CHECK(chatted);

  // Nothing up: the message that says what to do, as before.
  auto none =
      run_ava({"-p", "hi", "--no-mcp", "--cwd", dir.path().string()},
              {{"AVA_HOME", (dir.path() / "home2").string()}, {"AVA_LOCAL_PROBE", "0"}}, dir);
  CHECK(none.exit_code == 2);
  CHECK_THAT(none.err, Catch::Contains("a local model server works too"));
}

TEST_CASE("ava models pull streams Ollama's progress and says when it is done", "[models]") {
  auto ollama = FakeProviderServer::start();
  // The stream as Ollama sends it, cut mid-line to check the reassembly.
  ollama->enqueue(FakeReply{
      .content_type = "application/x-ndjson",
      .chunks = {"{\"status\":\"pulling manifest\"}\n{\"status\":\"pulling 6a0746a1ec1a\",",
                 "\"digest\":\"sha256:6a0746a1ec1a\",\"total\":4000,\"completed\":1000}\n",
                 "{\"status\":\"pulling 6a0746a1ec1a\",\"digest\":\"sha256:6a0746a1ec1a\","
                 "\"total\":4000,\"completed\":4000}\n",
                 "{\"status\":\"verifying sha256 digest\"}\n{\"status\":\"writing manifest\"}\n",
                 "{\"status\":\"success\"}\n"}});
  ava::test::TempDir dir;
  auto run = run_ava({"models", "pull", "qwen2.5-coder:7b"},
                     {{"AVA_HOME", (dir.path() / "home").string()},
                      {"OLLAMA_HOST", fmt::format("127.0.0.1:{}", ollama->port())}},
                     dir);
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  CHECK_THAT(run.out,
             Catch::StartsWith("pulled qwen2.5-coder:7b into Ollama at http://127.0.0.1:"));
  // Not a terminal: each phase once, in order, no byte counts.
  CHECK(run.err ==
        "ava: pulling manifest\nava: pulling 6a0746a1ec1a\nava: verifying sha256 digest\n"
        "ava: writing manifest\nava: success\n");
  const auto requests = ollama->requests();
  REQUIRE(requests.size() == 1);
  const auto& request = requests[0];
  CHECK(request.method == "POST");
  CHECK(request.target == "/api/pull");
  CHECK(json::parse(request.body) == json{{"model", "qwen2.5-coder:7b"}, {"stream", true}});
}

TEST_CASE("ava models pull reports Ollama's refusal, a stream cut short and bad names",
          "[models]") {
  auto ollama = FakeProviderServer::start();
  ollama->enqueue(FakeReply{.content_type = "application/x-ndjson",
                            .chunks = {"{\"status\":\"pulling manifest\"}\n",
                                       "{\"error\":\"pull model manifest: file does not "
                                       "exist\"}\n"}});
  ollama->enqueue(FakeReply{.content_type = "application/x-ndjson",
                            .chunks = {"{\"status\":\"pulling manifest\"}\n"}});
  ollama->enqueue(FakeReply{.content_type = "application/x-ndjson",
                            .chunks = {"{\"status\":\"pulling manifest\"}\n", "<html>\n"}});
  ava::test::TempDir dir;
  std::map<std::string, std::string> env = {
      {"AVA_HOME", (dir.path() / "home").string()},
      {"OLLAMA_HOST", fmt::format("127.0.0.1:{}", ollama->port())}};

  auto refused = run_ava({"models", "pull", "nosuch"}, env, dir);
  CHECK(refused.exit_code == 1);
  CHECK_THAT(refused.err, Catch::Contains("ava models pull: Ollama could not pull nosuch: pull "
                                          "model manifest: file does not exist"));
  CHECK(refused.out.empty());

  auto cut = run_ava({"models", "pull", "llama3.2"}, env, dir);
  CHECK(cut.exit_code == 1);
  CHECK_THAT(cut.err, Catch::Contains("Ollama ended the download before it was done"));

  auto garbage = run_ava({"models", "pull", "llama3.2"}, env, dir);
  CHECK(garbage.exit_code == 1);
  CHECK_THAT(garbage.err, Catch::Contains("not a JSON object"));

  for (const char* name : {"../etc/passwd", "http://evil/x", "a b", "/abs", "x\x1b[2J"}) {
    auto bad = run_ava({"models", "pull", name}, env, dir);
    INFO(name);
    CHECK(bad.exit_code == 1);
    CHECK_THAT(bad.err, Catch::Contains("a model name is [namespace/]model[:tag]"));
  }
  CHECK(ollama->requests().size() == 3);  // the bad names never reached the server

  std::string closed_port;
  {
    auto gone = FakeProviderServer::start();
    closed_port = std::to_string(gone->port());
  }
  env["OLLAMA_HOST"] = "127.0.0.1:" + closed_port;
  auto down = run_ava({"models", "pull", "llama3.2"}, env, dir);
  CHECK(down.exit_code == 1);
  CHECK_THAT(down.err, Catch::Contains("Ollama is not running at http://127.0.0.1:" + closed_port));

  env["AVA_PROVIDER"] = "anthropic";
  auto other = run_ava({"models", "pull", "--provider", "anthropic", "llama3.2"}, env, dir);
  CHECK(other.exit_code == 1);
  CHECK_THAT(other.err, Catch::Contains("'anthropic' is not an Ollama server"));
}
