// Gates 2 and 3: every persisted tool call has one result after completion
// or abort; pause/resume and a provider failure leave a log from which a
// reopened agent sends the identical next request.

#include <random>

#include <catch2/catch.hpp>

#include "agent_test_util.hpp"
#include "ava/llm/encode.hpp"
#include "ava/session/log_writer.hpp"

using namespace ava;

namespace {

// Two tool-calling steps, then an answer; delays give abort places to land.
constexpr std::string_view three_steps = R"({"responses": [
  {"steps": [{"text": "Looking."}, {"delayMs": 40},
             {"toolCall": {"id": "a1", "name": "bash", "arguments": {"command": "sleep 0.15; echo one"}}},
             {"toolCall": {"id": "a2", "name": "bash", "arguments": {"command": "echo two"}}}],
   "usage": {"inputTokens": 100, "outputTokens": 10}},
  {"steps": [{"delayMs": 40},
             {"toolCall": {"id": "b1", "name": "bash", "arguments": {"command": "sleep 0.1; echo three"}}}],
   "usage": {"inputTokens": 150, "outputTokens": 10}},
  {"steps": [{"text": "All "}, {"delayMs": 40}, {"text": "done."}],
   "usage": {"inputTokens": 200, "outputTokens": 5}}
]})";

// Blocks until the live stream shows the first tool starting.
struct ToolStartLatch {
  std::promise<void> started;
  std::atomic<bool> fired{false};
  void attach(agent::Agent& agent) {
    agent.subscribe_live([this](const agent::LiveEvent& event) {
      const auto* activity = std::get_if<agent::ToolActivity>(&event);
      if (activity && !activity->finished && !fired.exchange(true)) started.set_value();
    });
  }
  void wait() { started.get_future().wait(); }
};

std::vector<std::string> encoded_all_ways(const llm::Request& request) {
  return {llm::encode_request(llm::WireApi::anthropic_messages, request),
          llm::encode_request(llm::WireApi::openai_chat, request),
          llm::encode_request(llm::WireApi::openai_responses, request)};
}

}  // namespace

TEST_CASE("abort at random points pairs every tool call and closes the turn", "[agent][abort]") {
  std::mt19937 random(20261202);
  for (int iteration = 0; iteration < 12; ++iteration) {
    test::TempDir dir;
    test::Runtime runtime;
    auto journal = std::make_shared<test::ProviderJournal>();
    auto agent = agent::Agent::create(
        runtime.executor(), dir.path() / "s.jsonl.zst",
        test::basic_options(test::scripted_factory(test::script_from(three_steps), journal),
                            dir.path()));
    REQUIRE(agent);
    REQUIRE((*agent)->followup("work"));
    std::this_thread::sleep_for(std::chrono::milliseconds(random() % 500));
    REQUIRE((*agent)->abort());
    runtime.wait_idle(**agent);
    const auto status = (*agent)->status();
    CHECK(status.turn_id.empty());
    runtime.close(**agent);

    const auto events = test::read_events((*agent)->log_path());
    INFO("iteration " << iteration);
    CHECK(test::check_calls_paired(events) == "");
    const auto ends = test::events_of<session::TurnEnded>(events);
    REQUIRE(ends.size() == 1);
    CHECK((ends[0].reason == session::EndReason::aborted ||
           ends[0].reason == session::EndReason::completed));
    // Steps are closed too, and nothing follows the turn's end.
    CHECK(test::events_of<session::StepStarted>(events).size() ==
          test::events_of<session::StepEnded>(events).size());
    CHECK(std::holds_alternative<session::TurnEnded>(events.back().body));
  }
}

TEST_CASE("abort during a tool interrupts it and skips the calls after it", "[agent][abort]") {
  test::TempDir dir;
  test::Runtime runtime;
  auto journal = std::make_shared<test::ProviderJournal>();
  auto agent = agent::Agent::create(
      runtime.executor(), dir.path() / "s.jsonl.zst",
      test::basic_options(test::scripted_factory(test::script_from(three_steps), journal),
                          dir.path()));
  REQUIRE(agent);
  ToolStartLatch latch;
  latch.attach(**agent);
  REQUIRE((*agent)->followup("work"));
  latch.wait();
  REQUIRE((*agent)->abort());
  runtime.wait_idle(**agent);
  runtime.close(**agent);
  const auto results =
      test::events_of<session::ToolResult>(test::read_events((*agent)->log_path()));
  REQUIRE(results.size() == 2);
  CHECK(results[0].call_id == "a1");
  CHECK(results[0].status == session::ToolStatus::interrupted);
  CHECK(results[1].call_id == "a2");
  CHECK(results[1].status == session::ToolStatus::skipped);
}

TEST_CASE("abort while streaming keeps the text shown so far", "[agent][abort]") {
  test::TempDir dir;
  test::Runtime runtime;
  auto journal = std::make_shared<test::ProviderJournal>();
  auto script = test::script_from(R"({"responses": [
    {"steps": [{"text": "Half an answer"}, {"delayMs": 5000}, {"text": " never sent"}]}]})");
  auto agent = agent::Agent::create(
      runtime.executor(), dir.path() / "s.jsonl.zst",
      test::basic_options(test::scripted_factory(script, journal), dir.path()));
  REQUIRE(agent);
  std::promise<void> streaming;
  std::atomic<bool> fired{false};
  (*agent)->subscribe_live([&](const agent::LiveEvent& event) {
    if (std::holds_alternative<agent::StreamProgress>(event) && !fired.exchange(true)) {
      streaming.set_value();
    }
  });
  REQUIRE((*agent)->followup("talk"));
  streaming.get_future().wait();
  const auto before = std::chrono::steady_clock::now();
  REQUIRE((*agent)->abort());
  runtime.wait_idle(**agent);
  CHECK(std::chrono::steady_clock::now() - before < std::chrono::seconds(4));
  runtime.close(**agent);
  const auto events = test::read_events((*agent)->log_path());
  const auto messages = test::events_of<session::AssistantMessage>(events);
  REQUIRE(messages.size() == 1);
  CHECK(std::get<llm::TextBlock>(messages[0].content.at(0)).text == "Half an answer");
  CHECK(test::events_of<session::TurnEnded>(events).at(0).reason == session::EndReason::aborted);
}

TEST_CASE("pause holds at a step boundary, a reopened log resumes with the same request",
          "[agent][pause]") {
  test::TempDir dir;
  test::Runtime runtime;
  auto journal = std::make_shared<test::ProviderJournal>();
  const auto log = dir.path() / "a.jsonl.zst";
  auto agent = agent::Agent::create(
      runtime.executor(), log,
      test::basic_options(test::scripted_factory(test::script_from(three_steps), journal),
                          dir.path()));
  REQUIRE(agent);
  ToolStartLatch latch;
  latch.attach(**agent);
  REQUIRE((*agent)->followup("work"));
  latch.wait();
  REQUIRE((*agent)->pause());
  runtime.wait_idle(**agent);
  auto status = (*agent)->status();
  CHECK(status.state == agent::DriverState::paused);
  CHECK_FALSE(status.turn_id.empty());  // the turn stays open while paused
  const auto expected = (*agent)->next_request();

  // A copy of the paused log, as a crash or a restart would leave it.
  const auto copy = dir.path() / "b.jsonl.zst";
  std::filesystem::copy_file(log, copy);

  REQUIRE((*agent)->resume());
  runtime.wait_idle(**agent);
  runtime.close(**agent);
  const auto sent = journal->snapshot();
  REQUIRE(sent.size() == 3);
  CHECK(encoded_all_ways(sent[1]) == encoded_all_ways(expected));

  // The reopened agent starts paused, in the same turn, and continues it.
  auto script = test::script_from(three_steps);
  script.responses.erase(script.responses.begin());
  auto reopened_journal = std::make_shared<test::ProviderJournal>();
  auto reopened = agent::Agent::create_at(
      runtime.executor(), copy,
      test::basic_options(test::scripted_factory(script, reopened_journal), dir.path()));
  REQUIRE(reopened);
  CHECK((*reopened)->status().state == agent::DriverState::paused);
  CHECK((*reopened)->status().turn_id == status.turn_id);
  REQUIRE((*reopened)->resume());
  runtime.wait_idle(**reopened);
  runtime.close(**reopened);
  const auto resent = reopened_journal->snapshot();
  REQUIRE(resent.size() == 2);
  CHECK(encoded_all_ways(resent[0]) == encoded_all_ways(sent[1]));
  CHECK(encoded_all_ways(resent[1]) == encoded_all_ways(sent[2]));

  const auto events = test::read_events(copy);
  CHECK(test::check_calls_paired(events) == "");
  CHECK(test::events_of<session::TurnStarted>(events).size() == 1);
  CHECK(test::events_of<session::TurnEnded>(events).at(0).reason == session::EndReason::completed);
}

TEST_CASE("after a provider failure a reopened log sends the same next request",
          "[agent][failure]") {
  test::TempDir dir;
  test::Runtime runtime;
  auto journal = std::make_shared<test::ProviderJournal>();
  auto script = test::script_from(R"({"responses": [
    {"steps": [{"toolCall": {"id": "x1", "name": "bash", "arguments": {"command": "echo ran"}}}]},
    {"steps": [{"text": "partial"}, {"error": {"kind": "network", "message": "connection reset"}}]},
    {"steps": [{"text": "recovered answer"}]}
  ]})");
  const auto log = dir.path() / "a.jsonl.zst";
  auto agent = agent::Agent::create(
      runtime.executor(), log,
      test::basic_options(test::scripted_factory(script, journal), dir.path()));
  REQUIRE(agent);
  REQUIRE((*agent)->followup("first"));
  runtime.wait_idle(**agent);             // the turn failed mid-stream in step 2
  REQUIRE((*agent)->followup("second"));  // releases the hold and runs
  runtime.wait_idle(**agent);
  runtime.close(**agent);
  const auto sent = journal->snapshot();
  REQUIRE(sent.size() == 3);

  // Rebuild the log as it stood before "second" ran: replay it into a copy
  // up to the failed turn's end, plus the acknowledgement of "second".
  const auto events = test::read_events(log);
  const auto copy = dir.path() / "b.jsonl.zst";
  {
    auto start = std::get<session::SessionStarted>(events.front().body);
    auto writer = session::LogWriter::create(copy, start);
    REQUIRE(writer);
    int turns = 0;
    for (std::size_t i = 1; i < events.size(); ++i) {
      if (std::holds_alternative<session::TurnStarted>(events[i].body) && ++turns == 2) break;
      REQUIRE((*writer)->append(events[i].body));
    }
    REQUIRE((*writer)->close());
  }
  auto reopened_journal = std::make_shared<test::ProviderJournal>();
  auto rest = test::script_from(R"({"responses": [{"steps": [{"text": "recovered answer"}]}]})");
  auto reopened = agent::Agent::create_at(
      runtime.executor(), copy,
      test::basic_options(test::scripted_factory(rest, reopened_journal), dir.path()));
  REQUIRE(reopened);
  runtime.wait_idle(**reopened);  // pending "second" runs on open
  runtime.close(**reopened);
  const auto resent = reopened_journal->snapshot();
  REQUIRE(resent.size() == 1);
  CHECK(encoded_all_ways(resent[0]) == encoded_all_ways(sent[2]));
}

TEST_CASE("pause while idle holds new input until resume", "[agent][pause]") {
  test::TempDir dir;
  test::Runtime runtime;
  auto agent = agent::Agent::create(runtime.executor(), dir.path() / "s.jsonl.zst",
                                    test::basic_options(test::echo_factory(), dir.path()));
  REQUIRE(agent);
  REQUIRE((*agent)->pause());
  REQUIRE((*agent)->followup("wait for it"));
  runtime.wait_idle(**agent);
  CHECK((*agent)->status().state == agent::DriverState::paused);
  CHECK((*agent)->status().pending_inputs == 1);
  REQUIRE((*agent)->resume());
  runtime.wait_idle(**agent);
  CHECK((*agent)->status().pending_inputs == 0);
  runtime.close(**agent);
  const auto events = test::read_events((*agent)->log_path());
  CHECK(test::events_of<session::Paused>(events).size() == 1);
  CHECK(test::events_of<session::Resumed>(events).size() == 1);
}

TEST_CASE("abort while paused mid-turn closes the turn and keeps the pause", "[agent][pause]") {
  test::TempDir dir;
  test::Runtime runtime;
  auto journal = std::make_shared<test::ProviderJournal>();
  auto agent = agent::Agent::create(
      runtime.executor(), dir.path() / "s.jsonl.zst",
      test::basic_options(test::scripted_factory(test::script_from(three_steps), journal),
                          dir.path()));
  REQUIRE(agent);
  ToolStartLatch latch;
  latch.attach(**agent);
  REQUIRE((*agent)->followup("work"));
  latch.wait();
  REQUIRE((*agent)->pause());
  runtime.wait_idle(**agent);
  REQUIRE_FALSE((*agent)->status().turn_id.empty());
  REQUIRE((*agent)->abort());
  runtime.wait_idle(**agent);
  const auto status = (*agent)->status();
  CHECK(status.state == agent::DriverState::paused);
  CHECK(status.turn_id.empty());
  runtime.close(**agent);
  const auto events = test::read_events((*agent)->log_path());
  CHECK(test::check_calls_paired(events) == "");
  CHECK(test::events_of<session::TurnEnded>(events).at(0).reason == session::EndReason::aborted);
  CHECK(journal->snapshot().size() == 1);  // nothing ran after the pause
}
