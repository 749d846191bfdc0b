#include <catch2/catch.hpp>

#include "ava/session/context.hpp"

using namespace ava::session;
namespace content = ava::content;

namespace {

std::vector<Event> number(std::vector<EventBody> bodies) {
  std::vector<Event> events;
  events.reserve(bodies.size());
  Seq seq = 1;
  for (auto& body : bodies)
    events.push_back(Event{.seq = seq++, .ts_ms = 0, .body = std::move(body)});
  return events;
}

}  // namespace

TEST_CASE("acknowledged input stays pending until claimed, in order", "[context]") {
  auto events = number({
      SessionStarted{.session_id = "s", .provider = "mock", .model = "m1", .cwd = "/w"},
      InputAcknowledged{.input_id = "f1", .kind = InputKind::followup, .text = "first"},
      InputAcknowledged{.input_id = "f2", .kind = InputKind::followup, .text = "second"},
      InputAcknowledged{.input_id = "s1", .kind = InputKind::steer, .text = "steer"},
      TurnStarted{.turn_id = "t"},
      StepStarted{.turn_id = "t", .step = 1},
      InputClaimed{.input_ids = {"f1", "s1"}, .turn_id = "t", .step = 1},
  });
  const Context context = rebuild_context(events);
  REQUIRE(context.pending.size() == 1);
  CHECK(context.pending[0].input_id == "f2");
  CHECK(context.pending[0].seq == 3);
  REQUIRE(context.messages.size() == 1);
  CHECK(context.messages[0].role == content::Role::user);
  CHECK(
      context.messages[0].content ==
      std::vector<content::ContentBlock>{content::TextBlock{"first"}, content::TextBlock{"steer"}});
  CHECK(context.open_turn == "t");
  CHECK(context.open_step == 1);
  CHECK(context.model == "m1");
}

TEST_CASE("a blocked input leaves the queue and never becomes a message", "[context]") {
  auto events = number({
      SessionStarted{.session_id = "s", .provider = "mock", .model = "m1", .cwd = "/w"},
      InputAcknowledged{.input_id = "f1", .kind = InputKind::followup, .text = "a secret"},
      InputAcknowledged{.input_id = "f2", .kind = InputKind::followup, .text = "fine"},
      InputBlocked{.input_id = "f1", .reason = "no secrets"},
      TurnStarted{.turn_id = "t"},
      StepStarted{.turn_id = "t", .step = 1},
      // A claim naming the blocked id too (a bug) still adds nothing of it.
      InputClaimed{.input_ids = {"f1", "f2"}, .turn_id = "t", .step = 1},
  });
  const Context context = rebuild_context(events);
  CHECK(context.pending.empty());
  REQUIRE(context.messages.size() == 1);
  CHECK(context.messages[0].content ==
        std::vector<content::ContentBlock>{content::TextBlock{"fine"}});
}

TEST_CASE("tool results of one step travel in one message after the call", "[context]") {
  auto events = number({
      InputAcknowledged{.input_id = "f1", .text = "go"},
      TurnStarted{.turn_id = "t"},
      InputClaimed{.input_ids = {"f1"}, .turn_id = "t", .step = 1},
      AssistantMessage{
          .turn_id = "t",
          .step = 1,
          .content = {content::ToolCallBlock{.id = "a", .name = "bash", .arguments = "{}"},
                      content::ToolCallBlock{.id = "b", .name = "read", .arguments = "{}"}}},
      ToolResult{.call_id = "a", .status = ToolStatus::ok, .content = {content::TextBlock{"ok"}}},
      ToolResult{
          .call_id = "b", .status = ToolStatus::interrupted, .content = {content::TextBlock{"x"}}},
      UsageRecorded{.usage = {.input_tokens = 5, .output_tokens = 7}},
      AssistantMessage{.turn_id = "t", .step = 2, .content = {content::TextBlock{"done"}}},
      UsageRecorded{.usage = {.input_tokens = 11, .output_tokens = 1, .cache_read_tokens = 3}},
      TurnEnded{.turn_id = "t"},
  });
  const Context context = rebuild_context(events);
  REQUIRE(context.messages.size() == 4);
  CHECK(context.messages[1].role == content::Role::assistant);
  REQUIRE(context.messages[2].role == content::Role::tool);
  REQUIRE(context.messages[2].content.size() == 2);
  const auto& second = std::get<content::ToolResultBlock>(context.messages[2].content[1]);
  CHECK(second.call_id == "b");
  CHECK(second.is_error);
  CHECK(context.unpaired_calls.empty());
  CHECK(context.open_turn.empty());
  CHECK(context.usage ==
        content::Usage{.input_tokens = 16, .output_tokens = 8, .cache_read_tokens = 3});
}

TEST_CASE("compaction replaces earlier messages with the summary", "[context]") {
  auto events = number({
      InputAcknowledged{.input_id = "f1", .text = "old question"},                // 1
      InputClaimed{.input_ids = {"f1"}, .turn_id = "t1", .step = 1},              // 2
      AssistantMessage{.turn_id = "t1", .content = {content::TextBlock{"old"}}},  // 3
      InputAcknowledged{.input_id = "f2", .text = "new question"},                // 4
      InputClaimed{.input_ids = {"f2"}, .turn_id = "t2", .step = 1},              // 5
      AssistantMessage{.turn_id = "t2", .content = {content::TextBlock{"new"}}},  // 6
      Compacted{.summary = "asked an old question", .first_kept_seq = 4},         // 7
      InputAcknowledged{.input_id = "f3", .text = "after"},                       // 8
      InputClaimed{.input_ids = {"f3"}, .turn_id = "t3", .step = 1},              // 9
  });
  const Context context = rebuild_context(events);
  REQUIRE(context.messages.size() == 4);
  const auto& summary = std::get<content::TextBlock>(context.messages[0].content[0]).text;
  CHECK(summary == summary_message_text("asked an old question"));
  CHECK(std::get<content::TextBlock>(context.messages[1].content[0]).text == "new question");
  CHECK(std::get<content::TextBlock>(context.messages[3].content[0]).text == "after");

  // The same events applied one by one give the same context.
  ContextBuilder builder;
  for (const auto& event : events) builder.apply(event);
  CHECK(builder.context().messages == context.messages);
}

TEST_CASE("model changes, pauses and unpaired calls are tracked", "[context]") {
  auto events = number({
      SessionStarted{.provider = "anthropic", .model = "a"},
      ModelChanged{.provider = "openai", .model = "b"},
      Paused{},
      AssistantMessage{
          .content = {content::ToolCallBlock{.id = "x", .name = "bash", .arguments = "{}"}}},
  });
  Context context = rebuild_context(events);
  CHECK(context.provider == "openai");
  CHECK(context.model == "b");
  CHECK(context.paused);
  CHECK(context.unpaired_calls == std::vector<std::string>{"x"});
  CHECK(context.last_seq == 4);
}
