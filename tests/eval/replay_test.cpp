// Record a real agent run (scripted model, real tools), replay it with no
// provider and no tool, and refuse a changed prompt, a missing exchange and a
// changed outcome with a message that says which.
#include <fstream>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <catch2/catch.hpp>

#include "ava/agent/agent.hpp"
#include "ava/base/json.hpp"
#include "ava/eval/replay.hpp"
#include "ava/llm/mock_provider.hpp"
#include "ava/recording/recorder.hpp"
#include "support/temp_dir.hpp"

using namespace ava;
namespace asio = boost::asio;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr const char* script = R"({"responses": [
  {"steps": [{"toolCall": {"id": "w1", "name": "write",
                           "arguments": {"path": "notes.txt", "content": "one\n"}}}]},
  {"steps": [{"toolCall": {"id": "r1", "name": "read", "arguments": {"path": "missing.txt"}}}]},
  {"steps": [{"text": "Wrote notes.txt."}]}
]})";

// Runs one prompt like `ava -p --record` does and returns the recording.
fs::path record(const fs::path& root) {
  const fs::path project = root / "project";
  fs::create_directories(project);
  const fs::path folder = root / "recording";
  auto created = recording::Recorder::create(
      folder, {.ava_version = "test", .cwd = project.string(), .prompt = "Write notes"});
  REQUIRE(created);
  auto recorder = *created;
  auto parsed = llm::parse_mock_script(script);
  REQUIRE(parsed);

  agent::AgentOptions options;
  options.provider_factory =
      [recorder, parsed = *parsed](const agent::ModelChoice&) -> Result<agent::ProviderBinding> {
    return agent::ProviderBinding{
        .provider = recorder->wrap(std::make_unique<llm::MockProvider>(parsed), "mock", "scripted",
                                   64'000, 2048),
        .provider_name = "mock",
        .model = "scripted",
        .context_window = 64'000,
        .max_output_tokens = 2048};
  };
  options.model = {.provider = "mock", .model = "scripted"};
  options.cwd = project;
  options.subagents = false;
  asio::io_context io;
  auto made = agent::Agent::create(io.get_executor(), root / "s.jsonl.zst", std::move(options));
  REQUIRE(made);
  auto agent = std::move(*made);
  recorder->set_session_id(agent->session_id());
  agent->subscribe([recorder](const session::Event& event) { recorder->on_event(event); });
  asio::co_spawn(
      io,
      [&]() -> asio::awaitable<void> {
        REQUIRE(agent->followup("Write notes"));
        co_await agent->wait_idle();
        REQUIRE(co_await agent->close());
      },
      asio::detached);
  io.run();
  REQUIRE(recorder->finish());
  CHECK(test::read_text(project / "notes.txt") == "one\n");
  return folder;
}

json read_json(const fs::path& file) {
  auto parsed = base::parse_json(test::read_text(file));
  REQUIRE(parsed);
  return *parsed;
}

void write_text(const fs::path& file, const std::string& text) {
  std::ofstream(file, std::ios::binary | std::ios::trunc) << text;
}

}  // namespace

TEST_CASE("a recording replays green without a provider or a real tool") {
  test::TempDir dir;
  const fs::path folder = record(dir.path());
  // A real write would put the file back; the replay only answers from tools.jsonl.
  fs::remove(dir.path() / "project" / "notes.txt");
  auto report = eval::replay(folder);
  REQUIRE(report);
  INFO(report->refusal);
  CHECK(report->passed);
  CHECK(report->exchanges_replayed == 3);
  CHECK(report->tool_calls == 2);
  CHECK(report->outcome == "completed");
  CHECK(report->text == "Wrote notes.txt.");
  CHECK_FALSE(fs::exists(dir.path() / "project" / "notes.txt"));
}

TEST_CASE("a changed prompt is refused with the request's difference") {
  test::TempDir dir;
  const fs::path folder = record(dir.path());
  json manifest = read_json(folder / "recording.json");
  manifest["prompt"] = "Write more notes";
  write_text(folder / "recording.json", manifest.dump());
  auto report = eval::replay(folder);
  REQUIRE(report);
  CHECK_FALSE(report->passed);
  CHECK(report->refusal.starts_with(
      "request 1 differs from the recording at messages[0].content[0].text"));
  CHECK(report->refusal.find("recorded \"Write notes\"") != std::string::npos);
  CHECK(report->refusal.find("now \"Write more notes\"") != std::string::npos);
}

TEST_CASE("a missing exchange is refused") {
  test::TempDir dir;
  const fs::path folder = record(dir.path());
  std::string lines = test::read_text(folder / "exchanges.jsonl");
  lines.erase(lines.rfind('\n', lines.size() - 2) + 1);  // drop the last exchange
  write_text(folder / "exchanges.jsonl", lines);
  auto report = eval::replay(folder);
  REQUIRE(report);
  CHECK_FALSE(report->passed);
  CHECK(report->refusal == "the agent made request 3, but the recording holds 2 exchanges");
}

TEST_CASE("a changed outcome is refused, and an unfinished recording is not replayed") {
  test::TempDir dir;
  const fs::path folder = record(dir.path());
  json manifest = read_json(folder / "recording.json");
  manifest["outcome"]["text"] = "Wrote nothing.";
  write_text(folder / "recording.json", manifest.dump());
  auto report = eval::replay(folder);
  REQUIRE(report);
  CHECK_FALSE(report->passed);
  CHECK(
      report->refusal.starts_with("the final answer changed: (top): recorded \"Wrote nothing.\""));

  manifest["outcome"]["text"] = "Wrote notes.txt.";
  manifest["outcome"]["reason"] = "max_steps";
  write_text(folder / "recording.json", manifest.dump());
  report = eval::replay(folder);
  REQUIRE(report);
  CHECK(report->refusal ==
        "the outcome changed: the recorded turn ended max_steps, the replay completed");

  manifest["outcome"] = nullptr;
  write_text(folder / "recording.json", manifest.dump());
  auto unfinished = eval::replay(folder);
  REQUIRE_FALSE(unfinished);
  CHECK(unfinished.error().message.find("never finished") != std::string::npos);
}

TEST_CASE("a tool response that does not match the call is refused") {
  test::TempDir dir;
  const fs::path folder = record(dir.path());
  std::string tools = test::read_text(folder / "tools.jsonl");
  const auto at = tools.find("notes.txt");
  REQUIRE(at != std::string::npos);
  tools.replace(at, 9, "other.txt");
  write_text(folder / "tools.jsonl", tools);
  auto report = eval::replay(folder);
  REQUIRE(report);
  CHECK_FALSE(report->passed);
  CHECK(report->refusal.find("tool call w1 is write") != std::string::npos);
}
