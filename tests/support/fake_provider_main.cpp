// ava-fake-provider: a loopback LLM provider for integration tests and demos.
//
//   ava-fake-provider --format anthropic|openai|openai-responses
//                     (--script SCRIPT.json | --fixture BODY.sse | --echo) [--tls CERT KEY]
//                     [--record REQUESTS.jsonl] [--fail-percent P [--seed S]]
//
// Prints its base URL on the first line of stdout, then serves until
// SIGINT/SIGTERM. Each request gets the next response of the mock script
// rendered in the wire format (past the end: HTTP 500), or the fixture body
// byte for byte, or (--echo) a reply to the last message (support/fake_echo.hpp);
// an echo server also lists one model, "echo-local:1b", at GET /api/tags and
// /v1/models, so it can pose as a local model server.
// --record appends every request answered by --echo or --fixture to a file,
// one JSON line {"target", "body"} each, so a test can read what the client
// sent (system prompt, tools).
// --fail-percent makes P % of the --echo replies fail, chosen at random (seed
// S): half answer 529 "overloaded" (a client retries it), half cut the
// stream after its first bytes; each is reported on stderr. The soak
// (bench/reliability/soak.py) uses it.

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <mutex>
#include <random>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "support/fake_echo.hpp"
#include "support/fake_provider.hpp"
#include "support/wire_sse.hpp"

namespace {

// Appends one request as a JSON line; flushed at once so a test reads it
// while the server runs.
void record(const std::string& file, const ava::test::RecordedRequest& request) {
  if (file.empty()) return;
  auto body = nlohmann::json::parse(request.body, nullptr, false);
  if (body.is_discarded()) body = request.body;
  std::ofstream out(file, std::ios::app | std::ios::binary);
  out << nlohmann::json{{"target", request.target}, {"body", body}}.dump() << '\n';
}

int usage() {
  std::fputs(
      "usage: ava-fake-provider --format anthropic|openai|openai-responses "
      "(--script FILE | --fixture FILE | --echo) [--tls CERT KEY] [--record FILE]\n"
      "       [--fail-percent P [--seed S]]\n",
      stderr);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string format;
  std::string script_path;
  std::string fixture_path;
  std::string record_path;
  bool echo = false;
  int fail_percent = 0;
  unsigned seed = 1;
  ava::test::FakeProviderServer::Options options;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--format" && i + 1 < argc) {
      format = argv[++i];
    } else if (arg == "--script" && i + 1 < argc) {
      script_path = argv[++i];
    } else if (arg == "--fixture" && i + 1 < argc) {
      fixture_path = argv[++i];
    } else if (arg == "--record" && i + 1 < argc) {
      record_path = argv[++i];
    } else if (arg == "--fail-percent" && i + 1 < argc) {
      fail_percent = std::atoi(argv[++i]);
    } else if (arg == "--seed" && i + 1 < argc) {
      seed = static_cast<unsigned>(std::strtoul(argv[++i], nullptr, 10));
    } else if (arg == "--echo") {
      echo = true;
    } else if (arg == "--tls" && i + 2 < argc) {
      options.tls = true;
      options.certificate_chain = argv[++i];
      options.private_key = argv[++i];
    } else {
      return usage();
    }
  }
  auto api = ava::llm::parse_wire_api(format);
  const int sources = int(!script_path.empty()) + int(!fixture_path.empty()) + int(echo);
  if (!api || sources != 1 || fail_percent < 0 || fail_percent > 100) return usage();

  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);  // before the server thread starts

  auto server = ava::test::FakeProviderServer::start(options);
  if (echo) {
    auto random = std::make_shared<std::pair<std::mutex, std::minstd_rand>>();
    random->second.seed(seed);
    server->set_fallback([api = *api, record_path, fail_percent,
                          random](const ava::test::RecordedRequest& request) {
      // A model listing, so the echo server can stand in for a local model
      // server (Ollama's /api/tags, the OpenAI-style /v1/models).
      if (request.method == "GET" && request.target == "/api/tags") {
        return ava::test::FakeReply{.content_type = "application/json",
                                    .chunks = {R"({"models":[{"name":"echo-local:1b"}]})"}};
      }
      if (request.method == "GET" && request.target == "/v1/models") {
        return ava::test::FakeReply{.content_type = "application/json",
                                    .chunks = {R"({"data":[{"id":"echo-local:1b"}]})"}};
      }
      record(record_path, request);
      auto reply = ava::test::echo_reply(api, request);
      int draw = 0;
      {
        std::lock_guard lock(random->first);
        draw = static_cast<int>(random->second() % 200);
      }
      if (draw < 2 * fail_percent) {
        std::fprintf(stderr, "ava-fake-provider: injected %s\n",
                     draw < fail_percent ? "overloaded" : "cut");
      }
      if (draw < fail_percent) {  // half of the failures: overloaded
        return ava::test::FakeReply{
            .status = 529,
            .content_type = "application/json",
            .chunks = {
                R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})"}};
      }
      if (draw < 2 * fail_percent) reply.cut_after_bytes = 40;  // the other half: a cut stream
      return reply;
    });
  } else if (!fixture_path.empty()) {
    std::ifstream in(fixture_path, std::ios::binary);
    std::ostringstream body;
    body << in.rdbuf();
    auto chunks = ava::test::chunks_per_event(body.str());
    server->set_fallback([chunks, record_path](const ava::test::RecordedRequest& request) {
      record(record_path, request);
      return ava::test::FakeReply{.chunks = chunks};
    });
  } else {
    auto script = ava::llm::load_mock_script(script_path);
    if (!script) {
      std::fprintf(stderr, "ava-fake-provider: %s\n", script.error().message.c_str());
      return 1;
    }
    for (const auto& response : script->responses) {
      server->enqueue(ava::test::FakeReply{
          .chunks = ava::test::chunks_per_event(ava::test::render_sse(*api, response))});
    }
  }
  std::printf("%s\n", server->base_url().c_str());
  std::fflush(stdout);
  int signal = 0;
  sigwait(&signals, &signal);
  return 0;
}
