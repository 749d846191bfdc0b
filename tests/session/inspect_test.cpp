#include <catch2/catch.hpp>

#include <fstream>

#include "ava/session/inspect.hpp"
#include "ava/session/log_writer.hpp"
#include "session/log_support.hpp"
#include "support/temp_dir.hpp"

using namespace ava::session;
using ava::test::TempDir;
namespace content = ava::content;

namespace {

std::filesystem::path sample_log(const std::filesystem::path& dir) {
  const auto path = dir / "s1.jsonl.zst";
  auto writer = LogWriter::create(path, ava::test::sample_start("s1"));
  REQUIRE(writer);
  auto& w = **writer;
  REQUIRE(w.append(InputAcknowledged{.input_id = "i1", .text = "do it"}));
  REQUIRE(w.append(TurnStarted{.turn_id = "t1"}));
  REQUIRE(w.append(StepStarted{.turn_id = "t1", .step = 1}));
  REQUIRE(w.append(InputClaimed{.input_ids = {"i1"}, .turn_id = "t1", .step = 1}));
  REQUIRE(w.append(AssistantMessage{
      .turn_id = "t1",
      .step = 1,
      .content = {content::ToolCallBlock{.id = "c1", .name = "bash", .arguments = "{}"}}}));
  REQUIRE(w.append(ToolResult{.turn_id = "t1", .step = 1, .call_id = "c1", .tool_name = "bash"}));
  REQUIRE(w.append(UsageRecorded{
      .turn_id = "t1", .step = 1, .usage = {.input_tokens = 100, .output_tokens = 9}}));
  REQUIRE(w.append(StepEnded{.turn_id = "t1", .step = 1}));
  REQUIRE(w.append(TurnEnded{.turn_id = "t1"}));
  REQUIRE(
      w.append(InputAcknowledged{.input_id = "i2", .kind = InputKind::followup, .text = "later"}));
  REQUIRE(w.append(TurnStarted{.turn_id = "t2"}));
  REQUIRE(w.append(AssistantMessage{
      .turn_id = "t2",
      .step = 1,
      .content = {content::ToolCallBlock{.id = "c2", .name = "edit", .arguments = "{}"}}}));
  return path;
}

}  // namespace

TEST_CASE("inspect reports counts, turns, calls, usage and pending input", "[inspect]") {
  TempDir tmp;
  const auto path = sample_log(tmp.path());
  auto report = inspect_log(path);
  REQUIRE(report);
  CHECK(report->session_id == "s1");
  CHECK(report->events == 13);
  CHECK(report->counts.at("tool_result") == 1);
  CHECK(report->counts.at("input") == 2);
  REQUIRE(report->turns.size() == 2);
  CHECK(report->turns[0].outcome == "completed");
  CHECK(report->turns[0].steps == 1);
  CHECK(report->turns[1].outcome == "open");
  REQUIRE(report->tool_calls.size() == 2);
  CHECK(report->tool_calls[0].status == "ok");
  CHECK(report->tool_calls[1].status == "unpaired");
  CHECK(report->unpaired_calls == std::vector<std::string>{"c2"});
  REQUIRE(report->pending.size() == 1);
  CHECK(report->pending[0].input_id == "i2");
  CHECK(report->usage.input_tokens == 100);

  const auto json = to_json(*report);
  CHECK(json["toolCalls"][1]["status"] == "unpaired");
  CHECK(json["tornTail"].is_null());
  const std::string text = to_text(*report);
  CHECK(text.find("unpaired c2") != std::string::npos);
}

TEST_CASE("inspect reports a torn tail and never modifies the file", "[inspect]") {
  TempDir tmp;
  const auto path = sample_log(tmp.path());
  { std::ofstream(path, std::ios::app | std::ios::binary) << "\x28\xb5\x2f\xfdtorn"; }
  auto before = read_file_bytes(path);
  REQUIRE(before);
  auto report = inspect_log(path);
  REQUIRE(report);
  REQUIRE(report->torn_tail);
  CHECK(report->torn_tail->bytes == 8);
  CHECK(report->events == 13);
  auto after = read_file_bytes(path);
  REQUIRE(after);
  CHECK(*after == *before);
  CHECK_FALSE(std::filesystem::exists(tmp.path() / "s1.torn-1"));
}
