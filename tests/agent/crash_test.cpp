// Gate 2 under SIGKILL: a child runs an agent through many tool-calling
// steps; the parent kills it at random moments, recovers the log and checks
// that every persisted tool call has exactly one result and that every step
// and turn is closed.
//
//   ava_agent_crash [--iterations N]      (the parent; default 40)
//   ava_agent_crash --child LOG           (runs one agent until killed)

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <thread>

#include "agent_test_util.hpp"
#include "ava/session/context.hpp"
#include "ava/session/log_writer.hpp"

using namespace ava;

namespace {

std::string busy_script() {
  std::string responses;
  for (int i = 0; i < 200; ++i) {
    responses += std::string(i ? "," : "") + R"({"steps": [{"text": "step"},
      {"toolCall": {"name": "bash", "arguments": {"command": "sleep 0.00$((RANDOM % 9)); echo a"}}},
      {"toolCall": {"name": "bash", "arguments": {"command": "echo b"}}}]})";
  }
  return R"({"responses": [)" + responses + "]}";
}

int run_child(const std::filesystem::path& log) {
  test::Runtime runtime;
  auto journal = std::make_shared<test::ProviderJournal>();
  auto options = test::basic_options(
      test::scripted_factory(test::script_from(busy_script()), journal), log.parent_path());
  auto agent = agent::Agent::create(runtime.executor(), log, std::move(options));
  if (!agent) {
    std::fprintf(stderr, "child: %s\n", agent.error().message.c_str());
    return 1;
  }
  (void)(*agent)->followup("keep going");
  (void)(*agent)->followup("and again");
  std::this_thread::sleep_for(std::chrono::seconds(60));  // killed long before
  return 0;
}

std::string check(const std::filesystem::path& log) {
  // A tool process the child was starting when it died may hold the log's
  // descriptor (and so its lock) until it reaches exec; give it a moment.
  auto writer = session::LogWriter::open(log);  // recovery
  for (int attempt = 0; !writer && writer.error().code == ErrorCode::conflict && attempt < 40;
       ++attempt) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    writer = session::LogWriter::open(log);
  }
  if (!writer) return "open: " + writer.error().message;
  (void)(*writer)->close();
  const auto events = test::read_events(log);
  if (auto unpaired = test::check_calls_paired(events); !unpaired.empty()) return unpaired;
  const auto context = session::rebuild_context(events);
  if (!context.open_turn.empty()) return "turn left open";
  if (test::events_of<session::StepStarted>(events).size() !=
      test::events_of<session::StepEnded>(events).size()) {
    return "a step left open";
  }
  return {};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::strcmp(argv[1], "--child") == 0) return run_child(argv[2]);
  int iterations = 40;
  if (argc == 3 && std::strcmp(argv[1], "--iterations") == 0) iterations = std::atoi(argv[2]);
  std::mt19937 random(std::random_device{}());
  int failures = 0;
  for (int i = 0; i < iterations; ++i) {
    test::TempDir dir;
    const auto log = dir.path() / "s.jsonl.zst";
    const pid_t child = ::fork();
    if (child == 0) {
      ::execl("/proc/self/exe", argv[0], "--child", log.c_str(), nullptr);
      ::_exit(127);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(30 + random() % 400));
    ::kill(child, SIGKILL);
    int status = 0;
    ::waitpid(child, &status, 0);
    if (!std::filesystem::exists(log)) continue;  // killed before the log existed
    if (auto problem = check(log); !problem.empty()) {
      std::fprintf(stderr, "iteration %d: %s\n", i, problem.c_str());
      ++failures;
    }
  }
  std::printf("%d iterations, %d failures\n", iterations, failures);
  return failures == 0 ? 0 : 1;
}
