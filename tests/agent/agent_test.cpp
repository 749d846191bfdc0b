#include <fstream>

#include <catch2/catch.hpp>

#include "agent_test_util.hpp"

using namespace ava;
using test::events_of;

namespace {

std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), {}};
}

}  // namespace

TEST_CASE("a follow-up runs a turn: tool call, result, final answer", "[agent]") {
  test::TempDir dir;
  test::Runtime runtime;
  auto journal = std::make_shared<test::ProviderJournal>();
  auto script = test::script_from(R"({"responses": [
    {"steps": [{"toolCall": {"id": "c1", "name": "bash", "arguments": {"command": "echo hi > out.txt && echo done"}}}]},
    {"steps": [{"text": "Wrote out.txt."}], "usage": {"inputTokens": 50, "outputTokens": 5}}
  ]})");
  auto agent = agent::Agent::create(
      runtime.executor(), dir.path() / "s1.jsonl.zst",
      test::basic_options(test::scripted_factory(script, journal), dir.path()));
  REQUIRE(agent);
  std::vector<agent::LiveEvent> live;
  std::mutex live_mutex;
  (*agent)->subscribe_live([&](const agent::LiveEvent& event) {
    std::lock_guard lock(live_mutex);
    live.push_back(event);
  });

  auto receipt = (*agent)->followup("write hi to out.txt");
  REQUIRE(receipt);
  CHECK(receipt->seq == 2);
  runtime.wait_idle(**agent);
  CHECK(slurp(dir.path() / "out.txt") == "hi\n");

  const auto status = (*agent)->status();
  CHECK(status.state == agent::DriverState::idle);
  CHECK(status.pending_inputs == 0);
  CHECK(status.usage.input_tokens == 50);
  CHECK((*agent)->session_id() == "s1");
  runtime.close(**agent);

  const auto events = test::read_events(dir.path() / "s1.jsonl.zst");
  std::vector<std::string> kinds;
  for (const auto& event : events) kinds.emplace_back(session::type_name(event.body));
  CHECK(kinds == std::vector<std::string>{"session_start", "input", "turn_start", "input_claimed",
                                          "step_start", "assistant", "usage", "tool_result",
                                          "step_end", "step_start", "assistant", "usage",
                                          "step_end", "turn_end"});
  const auto results = events_of<session::ToolResult>(events);
  REQUIRE(results.size() == 1);
  CHECK(results[0].status == session::ToolStatus::ok);
  CHECK(results[0].details["exit_code"] == 0);
  CHECK(events_of<session::TurnEnded>(events).at(0).reason == session::EndReason::completed);
  CHECK(test::check_calls_paired(events).empty());

  // The second request carried the call and its result; tools were offered.
  const auto requests = journal->snapshot();
  REQUIRE(requests.size() == 2);
  CHECK(requests[1].messages.size() == 3);
  CHECK(requests[0].tools.size() == 4);
  CHECK(requests[0].system.find("Working directory: " + dir.path().string()) != std::string::npos);
  CHECK(journal->closed >= 1);  // close() released the provider client

  bool saw_activity = false;
  for (const auto& event : live) {
    if (const auto* activity = std::get_if<agent::ToolActivity>(&event)) {
      saw_activity =
          saw_activity || activity->label == "Running bash: echo hi > out.txt && echo done";
    }
  }
  CHECK(saw_activity);
}

TEST_CASE("unknown tools and malformed arguments come back as readable errors", "[agent]") {
  test::TempDir dir;
  test::Runtime runtime;
  auto journal = std::make_shared<test::ProviderJournal>();
  auto script = test::script_from(R"({"responses": [
    {"steps": [{"toolCall": {"id": "c1", "name": "teleport", "arguments": {}}},
               {"toolCall": {"id": "c2", "name": "read", "arguments": "{\"path\": "}}]},
    {"steps": [{"text": "Sorry."}]}
  ]})");
  auto agent = agent::Agent::create(
      runtime.executor(), dir.path() / "s.jsonl.zst",
      test::basic_options(test::scripted_factory(script, journal), dir.path()));
  REQUIRE(agent);
  REQUIRE((*agent)->followup("go"));
  runtime.wait_idle(**agent);
  runtime.close(**agent);
  const auto results = events_of<session::ToolResult>(test::read_events((*agent)->log_path()));
  REQUIRE(results.size() == 2);
  CHECK(results[0].status == session::ToolStatus::error);
  CHECK(
      std::get<llm::TextBlock>(results[0].content.at(0)).text.starts_with("Unknown tool teleport"));
  CHECK(results[1].status == session::ToolStatus::error);
  CHECK(std::get<llm::TextBlock>(results[1].content.at(0)).text.find("not a JSON object") !=
        std::string::npos);
}

TEST_CASE("a call the output limit cut off is never run, and the model is told", "[agent]") {
  test::TempDir dir;
  test::Runtime runtime;
  auto journal = std::make_shared<test::ProviderJournal>();
  // Arguments that happen to be valid JSON: still not run, the response was cut.
  auto script = test::script_from(R"({"responses": [
    {"steps": [{"text": "Writing it."},
               {"toolCall": {"id": "c1", "name": "write",
                             "arguments": {"path": "out.txt", "content": "half"}}}],
     "stopReason": "max_tokens"},
    {"steps": [{"text": "I will write it in parts."}]}
  ]})");
  auto agent = agent::Agent::create(
      runtime.executor(), dir.path() / "s.jsonl.zst",
      test::basic_options(test::scripted_factory(script, journal), dir.path()));
  REQUIRE(agent);
  REQUIRE((*agent)->followup("write out.txt"));
  runtime.wait_idle(**agent);
  runtime.close(**agent);
  CHECK_FALSE(std::filesystem::exists(dir.path() / "out.txt"));
  const auto events = test::read_events((*agent)->log_path());
  CHECK(test::check_calls_paired(events).empty());
  const auto results = events_of<session::ToolResult>(events);
  REQUIRE(results.size() == 1);
  CHECK(results[0].call_id == "c1");
  CHECK(results[0].status == session::ToolStatus::error);
  const auto text = std::get<llm::TextBlock>(results[0].content.at(0)).text;
  CHECK(text.starts_with("Not run: the output limit (max_tokens) cut off the response"));
  // The turn went on: the model's next request carries the call and its result.
  const auto requests = journal->snapshot();
  REQUIRE(requests.size() == 2);
  bool told = false;
  for (const auto& message : requests[1].messages) {
    for (const auto& block : message.content) {
      if (const auto* result = std::get_if<llm::ToolResultBlock>(&block)) {
        told = told || result->call_id == "c1";
      }
    }
  }
  CHECK(told);
  const auto ends = events_of<session::TurnEnded>(events);
  REQUIRE(ends.size() == 1);
}

TEST_CASE("a provider failure ends the turn, keeps pending input and holds", "[agent]") {
  test::TempDir dir;
  test::Runtime runtime;
  auto journal = std::make_shared<test::ProviderJournal>();
  auto script = test::script_from(R"({"responses": [
    {"steps": [{"text": "Let me"}, {"error": {"kind": "overloaded", "message": "Overloaded"}}],
     "usage": {"inputTokens": 7, "outputTokens": 1}},
    {"steps": [{"text": "second"}]}
  ]})");
  auto options = test::basic_options(test::scripted_factory(script, journal), dir.path());
  auto agent =
      agent::Agent::create(runtime.executor(), dir.path() / "s.jsonl.zst", std::move(options));
  REQUIRE(agent);
  // Both inputs are acknowledged before the driver can claim the second.
  REQUIRE((*agent)->pause());
  REQUIRE((*agent)->followup("first"));
  REQUIRE((*agent)->followup("second"));
  REQUIRE((*agent)->resume());
  runtime.wait_idle(**agent);
  auto status = (*agent)->status();
  CHECK(status.state == agent::DriverState::idle);
  CHECK(status.pending_inputs == 1);
  CHECK(status.last_error == "overloaded error: Overloaded");
  CHECK(status.usage.input_tokens == 7);  // the failed attempt was billed

  // resume() releases the hold and the pending input runs.
  REQUIRE((*agent)->resume());
  runtime.wait_idle(**agent);
  CHECK((*agent)->status().pending_inputs == 0);
  runtime.close(**agent);

  const auto events = test::read_events((*agent)->log_path());
  const auto ends = events_of<session::TurnEnded>(events);
  REQUIRE(ends.size() == 2);
  CHECK(ends[0].reason == session::EndReason::error);
  CHECK(ends[1].reason == session::EndReason::completed);
  CHECK(events_of<session::ErrorOccurred>(events).at(0).code == "overloaded");
  // The failed response's partial text never entered the context.
  const auto requests = journal->snapshot();
  REQUIRE(requests.size() == 2);
  CHECK(requests[1].messages.size() == 2);  // "first", "second"
}

TEST_CASE("the per-turn step cap ends a turn that keeps calling tools", "[agent]") {
  test::TempDir dir;
  test::Runtime runtime;
  auto journal = std::make_shared<test::ProviderJournal>();
  std::string responses;
  for (int i = 0; i < 5; ++i) {
    responses += std::string(i ? "," : "") +
                 R"({"steps": [{"toolCall": {"name": "bash", "arguments": {"command": "true"}}}]})";
  }
  auto options = test::basic_options(
      test::scripted_factory(test::script_from(R"({"responses": [)" + responses + "]}"), journal),
      dir.path());
  options.max_steps = 3;
  auto agent =
      agent::Agent::create(runtime.executor(), dir.path() / "s.jsonl.zst", std::move(options));
  REQUIRE(agent);
  REQUIRE((*agent)->followup("loop"));
  runtime.wait_idle(**agent);
  runtime.close(**agent);
  const auto events = test::read_events((*agent)->log_path());
  const auto ends = events_of<session::TurnEnded>(events);
  REQUIRE(ends.size() == 1);
  CHECK(ends[0].reason == session::EndReason::max_steps);
  CHECK(events_of<session::StepStarted>(events).size() == 3);
  CHECK(test::check_calls_paired(events).empty());
}

TEST_CASE("a model override switches the provider and closes the old client", "[agent]") {
  test::TempDir dir;
  test::Runtime runtime;
  auto journal = std::make_shared<test::ProviderJournal>();
  auto script = test::script_from(
      R"({"responses": [{"steps": [{"text": "a"}]}, {"steps": [{"text": "b"}]}]})");
  auto agent = agent::Agent::create(
      runtime.executor(), dir.path() / "s.jsonl.zst",
      test::basic_options(test::scripted_factory(script, journal), dir.path()));
  REQUIRE(agent);
  REQUIRE((*agent)->followup("one"));
  runtime.wait_idle(**agent);
  REQUIRE((*agent)->set_model({.provider = "other", .model = "bigger"}));
  CHECK((*agent)->status().model == "bigger");
  REQUIRE((*agent)->followup("two"));
  runtime.wait_idle(**agent);
  CHECK(journal->closed == 1);
  runtime.close(**agent);
  const auto requests = journal->snapshot();
  REQUIRE(requests.size() == 2);
  CHECK(requests[0].model == "mock-model");
  CHECK(requests[1].model == "bigger");
  const auto changes = events_of<session::ModelChanged>(test::read_events((*agent)->log_path()));
  REQUIRE(changes.size() == 1);
  CHECK(changes[0].provider == "other");
}

TEST_CASE("input without text or attachments is refused, nothing logged", "[agent]") {
  test::TempDir dir;
  test::Runtime runtime;
  auto agent = agent::Agent::create(runtime.executor(), dir.path() / "s.jsonl.zst",
                                    test::basic_options(test::echo_factory(), dir.path()));
  REQUIRE(agent);
  auto refused = (*agent)->followup("");
  REQUIRE_FALSE(refused);
  CHECK(refused.error().code == ErrorCode::invalid_argument);
  runtime.close(**agent);
  CHECK(test::read_events((*agent)->log_path()).size() == 1);
  CHECK_FALSE((*agent)->followup("late"));
}

TEST_CASE("an agent needs a provider factory and an existing working directory", "[agent]") {
  test::TempDir dir;
  test::Runtime runtime;
  agent::AgentOptions options;
  auto missing =
      agent::Agent::create(runtime.executor(), dir.path() / "a.jsonl.zst", std::move(options));
  REQUIRE_FALSE(missing);
  CHECK(missing.error().message.find("provider factory") != std::string::npos);
  auto bad_cwd =
      agent::Agent::create(runtime.executor(), dir.path() / "b.jsonl.zst",
                           test::basic_options(test::echo_factory(), dir.path() / "nope"));
  REQUIRE_FALSE(bad_cwd);
  CHECK(bad_cwd.error().code == ErrorCode::not_found);
}

TEST_CASE("a resent client input id returns the first receipt, across a reopen", "[agent][input]") {
  test::TempDir dir;
  test::Runtime runtime;
  const auto log = dir.path() / "s1.jsonl.zst";
  auto agent = agent::Agent::create(runtime.executor(), log,
                                    test::basic_options(test::echo_factory(), dir.path()));
  REQUIRE(agent);
  REQUIRE((*agent)->pause());  // keep the input pending: a duplicate must not add a second one

  auto first = (*agent)->followup(agent::Input{.text = "hello", .input_id = "client-1"});
  REQUIRE(first);
  CHECK(first->input_id == "client-1");
  CHECK_FALSE(first->duplicate);
  auto again = (*agent)->followup(agent::Input{.text = "hello", .input_id = "client-1"});
  REQUIRE(again);
  CHECK(again->duplicate);
  CHECK(again->seq == first->seq);
  CHECK((*agent)->status().pending_inputs == 1);

  auto bad = (*agent)->followup(agent::Input{.text = "x", .input_id = "has space"});
  REQUIRE_FALSE(bad);
  CHECK(bad.error().code == ErrorCode::invalid_argument);
  runtime.close(**agent);

  auto reopened = agent::Agent::create_at(runtime.executor(), log,
                                          test::basic_options(test::echo_factory(), dir.path()));
  REQUIRE(reopened);
  auto after_reopen = (*reopened)->steer(agent::Input{.text = "hello", .input_id = "client-1"});
  REQUIRE(after_reopen);
  CHECK(after_reopen->duplicate);
  CHECK(after_reopen->seq == first->seq);
  runtime.wait_idle(**reopened);
  runtime.close(**reopened);

  const auto inputs = events_of<session::InputAcknowledged>(test::read_events(log));
  CHECK(inputs.size() == 1);
}

TEST_CASE("input ids are remembered for the last 1024 inputs, in memory and after a reopen",
          "[agent][input]") {
  test::TempDir dir;
  test::Runtime runtime;
  const auto log = dir.path() / "window.jsonl.zst";
  auto agent = agent::Agent::create(runtime.executor(), log,
                                    test::basic_options(test::echo_factory(), dir.path()));
  REQUIRE(agent);
  REQUIRE((*agent)->pause());
  const auto send = [](agent::Agent& to, int n) {
    return to.followup(agent::Input{.text = "x", .input_id = "in-" + std::to_string(n)});
  };
  for (int n = 0; n <= 1024; ++n) REQUIRE(send(**agent, n));
  auto newest = send(**agent, 1024);
  REQUIRE(newest);
  CHECK(newest->duplicate);
  auto oldest_kept = send(**agent, 1);
  REQUIRE(oldest_kept);
  CHECK(oldest_kept->duplicate);
  // in-0 is 1025 inputs back: out of the window, so it is a new input now.
  auto forgotten = send(**agent, 0);
  REQUIRE(forgotten);
  CHECK_FALSE(forgotten->duplicate);
  runtime.close(**agent);

  auto reopened = agent::Agent::create_at(runtime.executor(), log,
                                          test::basic_options(test::echo_factory(), dir.path()));
  REQUIRE(reopened);
  REQUIRE((*reopened)->pause());
  auto after_reopen = send(**reopened, 1024);
  REQUIRE(after_reopen);
  CHECK(after_reopen->duplicate);
  CHECK(after_reopen->seq == newest->seq);
  auto out_of_window = send(**reopened, 1);  // in-0's second input pushed in-1 out
  REQUIRE(out_of_window);
  CHECK_FALSE(out_of_window->duplicate);
  runtime.close(**reopened);
}
