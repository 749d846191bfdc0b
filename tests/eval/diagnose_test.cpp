// Diagnose finds what was planted in a real log, at the seqs it was planted.
#include <fstream>

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include "ava/eval/diagnose.hpp"
#include "ava/session/log_writer.hpp"
#include "support/temp_dir.hpp"

using namespace ava;
using namespace ava::session;
namespace fs = std::filesystem;

namespace {

std::vector<const eval::Finding*> of_kind(const eval::SessionDiagnosis& d, eval::FindingKind kind) {
  std::vector<const eval::Finding*> out;
  for (const auto& f : d.findings) {
    if (f.kind == kind) out.push_back(&f);
  }
  return out;
}

AssistantMessage call(const std::string& turn, int step, const std::string& id,
                      const std::string& arguments) {
  return {.turn_id = turn,
          .step = step,
          .content = {content::ToolCallBlock{.id = id, .name = "bash", .arguments = arguments}}};
}

ToolResult result(const std::string& turn, int step, const std::string& id, ToolStatus status,
                  std::string text) {
  return {.turn_id = turn,
          .step = step,
          .call_id = id,
          .tool_name = "bash",
          .status = status,
          .content = {content::TextBlock{std::move(text)}}};
}

}  // namespace

TEST_CASE("planted repeats, errors, truncations and compactions are found at their seqs") {
  test::TempDir dir;
  const fs::path log = dir.path() / "s1.jsonl.zst";
  auto writer = LogWriter::create(log, {.session_id = "s1", .model = "m", .cwd = "/tmp"});
  REQUIRE(writer);
  auto& w = **writer;
  REQUIRE(w.append(TurnStarted{.turn_id = "t1"}));                                         // 2
  REQUIRE(w.append(StepStarted{.turn_id = "t1", .step = 1}));                              // 3
  const auto first = *w.append(call("t1", 1, "c1", R"({"command": "make"})"));             // 4
  REQUIRE(w.append(result("t1", 1, "c1", ToolStatus::error, "make: *** No rule\nmore")));  // 5
  REQUIRE(w.append(StepEnded{.turn_id = "t1", .step = 1}));                                // 6
  REQUIRE(w.append(StepStarted{.turn_id = "t1", .step = 2}));                              // 7
  // The same call again, keys in another order is not needed: same text.
  const auto repeat = *w.append(call("t1", 2, "c2", R"({"command":"make"})"));  // 8
  const auto errored =
      *w.append(result("t1", 2, "c2", ToolStatus::error, "make: *** No rule"));  // 9
  const auto no_progress = *w.append(StepEnded{.turn_id = "t1", .step = 2});     // 10
  REQUIRE(w.append(StepStarted{.turn_id = "t1", .step = 3}));                    // 11
  REQUIRE(w.append(call("t1", 3, "c3", R"({"command":"cat big.log"})")));        // 12
  const std::string cut = "head\n[... 5000 bytes omitted ...]\ntail";
  const auto truncated = *w.append(result("t1", 3, "c3", ToolStatus::ok, cut));  // 13
  const auto length =
      *w.append(StepEnded{.turn_id = "t1", .step = 3, .stop_reason = "max_tokens"});         // 14
  const auto ended = *w.append(TurnEnded{.turn_id = "t1", .reason = EndReason::max_steps});  // 15
  const auto compacted =
      *w.append(Compacted{.summary = "we ran make", .first_kept_seq = 12, .tokens_before = 900});
  REQUIRE(w.append(TurnStarted{.turn_id = "t2"}));
  REQUIRE(w.append(StepStarted{.turn_id = "t2", .step = 1}));
  const auto unpaired = *w.append(call("t2", 1, "c4", R"({"command":"sleep 100"})"));
  REQUIRE(w.close());

  auto diagnosed = eval::diagnose_log(log);
  REQUIRE(diagnosed);
  const auto& d = *diagnosed;
  CHECK(d.session_id == "s1");
  CHECK(d.tool_calls == 4);
  CHECK(d.turns == 2);

  auto repeats = of_kind(d, eval::FindingKind::repeated_call);
  REQUIRE(repeats.size() == 1);
  CHECK(repeats[0]->seq == repeat);
  CHECK(repeats[0]->related == std::vector<Seq>{first});
  CHECK(repeats[0]->call_id == "c2");
  CHECK(repeats[0]->chars == 18);  // {"command":"make"}
  CHECK(repeats[0]->detail.find("2nd time") != std::string::npos);

  auto errors = of_kind(d, eval::FindingKind::error_result);
  REQUIRE(errors.size() == 2);
  CHECK(errors[0]->detail == "make: *** No rule …");
  CHECK(errors[0]->chars == 22);
  CHECK(errors[1]->seq == errored);

  auto stalls = of_kind(d, eval::FindingKind::no_progress_step);
  REQUIRE(stalls.size() == 2);  // step 1 failed, step 2 failed and repeated
  CHECK(stalls[1]->seq == no_progress);

  auto cuts = of_kind(d, eval::FindingKind::truncated_output);
  REQUIRE(cuts.size() == 1);
  CHECK(cuts[0]->seq == truncated);
  CHECK(cuts[0]->chars == cut.size());
  CHECK(cuts[0]->detail == "[... 5000 bytes omitted ...]");

  auto responses = of_kind(d, eval::FindingKind::truncated_response);
  REQUIRE(responses.size() == 1);
  CHECK(responses[0]->seq == length);

  auto turns = of_kind(d, eval::FindingKind::turn_not_completed);
  REQUIRE(turns.size() == 1);
  CHECK(turns[0]->seq == ended);

  auto compactions = of_kind(d, eval::FindingKind::compaction);
  REQUIRE(compactions.size() == 1);
  CHECK(compactions[0]->seq == compacted);
  CHECK(compactions[0]->chars == 11);

  auto open = of_kind(d, eval::FindingKind::unpaired_call);
  REQUIRE(open.size() == 1);
  CHECK(open[0]->seq == unpaired);
  CHECK(d.counts.at("error_result") == 2);

  const auto json = eval::to_json({d});
  CHECK(json["sessions"][0]["findings"].size() == d.findings.size());
  CHECK(json["sessions"][0]["findings"][0]["seq"] == d.findings[0].seq);
  const std::string text = eval::to_text({d});
  CHECK(text.find(fmt::format("seq {:<6} repeated_call", repeat)) != std::string::npos);
  // Facts only: no verdicts and no invented token counts.
  CHECK(text.find("wasteful") == std::string::npos);
}

TEST_CASE("diagnose reads the complete events before a torn tail and leaves the log alone") {
  test::TempDir dir;
  const fs::path log = dir.path() / "s2.jsonl.zst";
  {
    auto writer = LogWriter::create(log, {.session_id = "s2"});
    REQUIRE(writer);
    REQUIRE((*writer)->append(TurnStarted{.turn_id = "t"}));
    REQUIRE((*writer)->append(call("t", 1, "c", "{}")));
  }
  std::ofstream(log, std::ios::app | std::ios::binary) << "\x28\xb5\x2f\xfd garbage";
  const auto before = fs::file_size(log);
  auto diagnosed = eval::diagnose_log(log);
  REQUIRE(diagnosed);
  CHECK(diagnosed->torn_tail);
  CHECK(diagnosed->tool_calls == 1);
  CHECK(fs::file_size(log) == before);
  CHECK_FALSE(eval::diagnose_log(dir.path() / "missing.jsonl.zst"));
}
