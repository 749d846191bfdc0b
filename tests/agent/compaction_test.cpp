#include <catch2/catch.hpp>

#include "agent_test_util.hpp"
#include "ava/session/context.hpp"

using namespace ava;

TEST_CASE("a request over the threshold compacts older turns into a summary",
          "[agent][compaction]") {
  test::TempDir dir;
  test::Runtime runtime;
  auto journal = std::make_shared<test::ProviderJournal>();
  // Turns 1-3 answer; the 4th request is over the threshold, so a summary
  // request comes first, then the 4th turn's request.
  auto script = test::script_from(R"({"responses": [
    {"steps": [{"text": "one"}]}, {"steps": [{"text": "two"}]}, {"steps": [{"text": "three"}]},
    {"steps": [{"text": "SUMMARY: the user sent three long messages."}], "usage": {"inputTokens": 900, "outputTokens": 40}},
    {"steps": [{"text": "four"}]}
  ]})");
  auto base_factory = test::scripted_factory(script, journal);
  auto options = test::basic_options(
      [base_factory](const agent::ModelChoice& choice) -> Result<agent::ProviderBinding> {
        auto binding = base_factory(choice);
        if (binding) binding->context_window = 3000;  // tokens
        return binding;
      },
      dir.path());
  options.system_prompt = "short";
  options.tools = tool::ToolRegistry{};
  auto agent =
      agent::Agent::create(runtime.executor(), dir.path() / "s.jsonl.zst", std::move(options));
  REQUIRE(agent);
  const std::string long_text(3000, 'a');  // ~750 tokens each
  for (int i = 0; i < 4; ++i) {
    REQUIRE((*agent)->followup(long_text + std::to_string(i)));
    runtime.wait_idle(**agent);
  }
  const auto report = (*agent)->context_report();
  CHECK(report.compactions == 1);
  const auto expected_next = (*agent)->next_request();
  runtime.close(**agent);

  const auto requests = journal->snapshot();
  REQUIRE(requests.size() == 5);
  // The summary request: history plus the instruction, no pending input.
  CHECK(requests[3].system.find("handoff summaries") != std::string::npos);
  // The 4th turn's request starts with the summary and keeps the recent turn.
  const auto& after = requests[4];
  REQUIRE(after.messages.size() >= 2);
  const auto& first = std::get<llm::TextBlock>(after.messages[0].content.at(0)).text;
  CHECK(first.find("SUMMARY: the user sent three long messages.") != std::string::npos);
  CHECK(after.messages.size() < requests[2].messages.size() + 2);

  // Replay rebuilds the same context from the log alone.
  const auto events = test::read_events((*agent)->log_path());
  const auto rebuilt = session::rebuild_context(events);
  CHECK(rebuilt.messages == expected_next.messages);
  const auto compacted = test::events_of<session::Compacted>(events);
  REQUIRE(compacted.size() == 1);
  CHECK(compacted[0].tokens_before > 2400);
}
