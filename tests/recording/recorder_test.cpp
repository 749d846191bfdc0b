// The recorder writes what the agent's provider exchanged and what its tools
// answered, line by line, and the outcome once the run finishes.
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <catch2/catch.hpp>

#include "ava/llm/mock_provider.hpp"
#include "ava/recording/recorder.hpp"
#include "support/temp_dir.hpp"

using namespace ava;
namespace asio = boost::asio;
namespace fs = std::filesystem;

TEST_CASE("a recorder writes exchanges, tool responses and the outcome") {
  test::TempDir dir;
  const fs::path folder = dir.path() / "rec";
  auto created = recording::Recorder::create(folder, {.ava_version = "test", .prompt = "hi"});
  REQUIRE(created);
  auto recorder = *created;
  CHECK((fs::status(folder).permissions() & fs::perms::all) == fs::perms::owner_all);

  llm::MockScript script{.responses = {{.steps = {content::TextBlock{"hello"}},
                                        .usage = {.input_tokens = 7, .output_tokens = 1}}}};
  auto provider =
      recorder->wrap(std::make_unique<llm::MockProvider>(script), "mock", "m1", 1000, 64);
  asio::io_context io;
  std::vector<llm::StreamEvent> seen;
  // The coroutine takes the request by reference: it must outlive the call.
  const llm::Request request{.model = "m1", .system = "s"};
  auto future = asio::co_spawn(
      io, provider->stream(request, [&](const llm::StreamEvent& e) { seen.push_back(e); }),
      asio::use_future);
  io.run();
  REQUIRE(future.get());

  recorder->set_session_id("sess");
  recorder->on_event({.seq = 5,
                      .body = session::AssistantMessage{
                          .turn_id = "t",
                          .step = 1,
                          .content = {content::ToolCallBlock{
                              .id = "c1", .name = "read", .arguments = R"({"path":"a"})"}}}});
  recorder->on_event(
      {.seq = 6,
       .body = session::ToolResult{.turn_id = "t",
                                   .step = 1,
                                   .call_id = "c1",
                                   .tool_name = "read",
                                   .status = session::ToolStatus::error,
                                   .content = {content::TextBlock{"no such file"}}}});
  recorder->on_event({.seq = 7,
                      .body = session::AssistantMessage{
                          .turn_id = "t", .step = 2, .content = {content::TextBlock{"bye"}}}});
  recorder->on_event({.seq = 8, .body = session::TurnEnded{.turn_id = "t"}});
  REQUIRE(recorder->finish());

  auto loaded = recording::load(folder);
  REQUIRE(loaded);
  CHECK(loaded->manifest.session_id == "sess");
  CHECK(loaded->manifest.provider == "mock");
  CHECK(loaded->manifest.context_window == 1000);
  CHECK(loaded->manifest.max_output_tokens == 64);
  REQUIRE(loaded->manifest.outcome);
  CHECK(loaded->manifest.outcome->reason == "completed");
  CHECK(loaded->manifest.outcome->text == "bye");
  CHECK(loaded->manifest.outcome->exchanges == 1);
  REQUIRE(loaded->exchanges.size() == 1);
  CHECK(loaded->exchanges[0].request["system"] == "s");
  CHECK(loaded->exchanges[0].events.size() == seen.size());
  REQUIRE(loaded->exchanges[0].response);
  CHECK(loaded->exchanges[0].response->usage.input_tokens == 7);
  REQUIRE(loaded->tools.contains("c1"));
  CHECK(loaded->tools.at("c1").status == "error");
  CHECK(loaded->tools.at("c1").arguments == R"({"path":"a"})");
}

TEST_CASE("a recording needs a new or empty folder, and a damaged one is refused") {
  test::TempDir dir;
  std::ofstream(dir.path() / "keep.txt") << "mine";
  auto created = recording::Recorder::create(dir.path(), {});
  REQUIRE_FALSE(created);
  CHECK(created.error().message.find("is not empty") != std::string::npos);
  CHECK(test::read_text(dir.path() / "keep.txt") == "mine");

  const fs::path folder = dir.path() / "rec";
  REQUIRE(recording::Recorder::create(folder, {.prompt = "p"}));
  std::ofstream(folder / "exchanges.jsonl") << "{\"index\":0,\"request\":{\"model\":1}}\n";
  auto loaded = recording::load(folder);
  REQUIRE_FALSE(loaded);
  CHECK(loaded.error().message == "exchanges.jsonl line 1: model: expected a string");
}
