#include <catch2/catch.hpp>

#include <fstream>

#include "ava/session/context.hpp"
#include "ava/session/log_reader.hpp"
#include "ava/session/log_writer.hpp"
#include "session/log_support.hpp"
#include "support/temp_dir.hpp"

using namespace ava::session;
using ava::test::TempDir;

namespace {

void write_bytes(const std::filesystem::path& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string read_bytes(const std::filesystem::path& path) {
  auto bytes = read_file_bytes(path);
  REQUIRE(bytes);
  return *bytes;
}

// A log whose last turn is open with three tool calls, one answered.
std::string log_with_open_turn(const std::filesystem::path& path) {
  auto writer = LogWriter::create(path, ava::test::sample_start());
  REQUIRE(writer);
  auto& w = **writer;
  REQUIRE(w.append(InputAcknowledged{.input_id = "in-1", .text = "go"}));
  REQUIRE(w.append(TurnStarted{.turn_id = "t1"}));
  REQUIRE(w.append(StepStarted{.turn_id = "t1", .step = 1}));
  REQUIRE(w.append(InputClaimed{.input_ids = {"in-1"}, .turn_id = "t1", .step = 1}));
  REQUIRE(w.append(AssistantMessage{
      .turn_id = "t1",
      .step = 1,
      .content = {ava::content::ToolCallBlock{.id = "a", .name = "bash", .arguments = "{}"},
                  ava::content::ToolCallBlock{.id = "b", .name = "edit", .arguments = "{}"},
                  ava::content::ToolCallBlock{.id = "c", .name = "read", .arguments = "{}"}}}));
  REQUIRE(w.append(ToolResult{.turn_id = "t1", .step = 1, .call_id = "a", .tool_name = "bash"}));
  REQUIRE(w.close());
  return read_bytes(path);
}

}  // namespace

TEST_CASE("a torn tail at every byte offset of the last frame recovers", "[recovery]") {
  TempDir tmp;
  const auto source = tmp.path() / "source.jsonl.zst";
  const std::string original = log_with_open_turn(source);
  auto scan = scan_log(original);
  REQUIRE(scan);
  const auto last = scan->frames.back();
  REQUIRE(last.offset + last.size == original.size());

  for (std::uint64_t cut = last.offset; cut < original.size(); ++cut) {
    INFO("file cut to " << cut << " bytes");
    const auto path = tmp.path() / ("cut-" + std::to_string(cut) + ".jsonl.zst");
    write_bytes(path, std::string_view(original).substr(0, cut));
    auto writer = LogWriter::open(path);
    REQUIRE(writer);
    const auto& report = (*writer)->recovery();
    CHECK(report.torn_tail.has_value() == (cut > last.offset));
    REQUIRE((*writer)->close());

    const std::string after = read_bytes(path);
    // Complete events are byte-identical; only appended after them.
    REQUIRE(after.compare(0, last.offset, original, 0, last.offset) == 0);
    if (cut > last.offset) {
      CHECK(read_bytes(report.torn_file) == original.substr(last.offset, cut - last.offset));
      CHECK(report.torn_file.filename() == "cut-" + std::to_string(cut) + ".torn-1");
    }
    CHECK(ava::test::zstd_accepts(path));
    auto recovered = read_log(path);
    REQUIRE(recovered);
    CHECK_FALSE(recovered->torn_tail);
    const Context context = rebuild_context(recovered->events);
    CHECK(context.unpaired_calls.empty());
    CHECK(context.open_turn.empty());
    // The cut removed the last event; the recovered note takes its place.
    const auto* note = std::get_if<Recovered>(&recovered->events[scan->events.size() - 1].body);
    REQUIRE(note != nullptr);
    CHECK(note->dropped_bytes == cut - last.offset);
  }
}

TEST_CASE("recovery closes open calls, step and turn in order", "[recovery]") {
  TempDir tmp;
  const auto path = tmp.path() / "s.jsonl.zst";
  const std::string original = log_with_open_turn(path);
  auto writer = LogWriter::open(path);
  REQUIRE(writer);
  auto history = (*writer)->take_history();
  REQUIRE((*writer)->close());
  CHECK(read_bytes(path).compare(0, original.size(), original) == 0);

  auto scan = read_log(path);
  REQUIRE(scan);
  CHECK(scan->events.size() == history.size());
  const auto& events = scan->events;
  REQUIRE(events.size() == 7 + 5);
  CHECK(std::holds_alternative<Recovered>(events[7].body));
  const auto& b = std::get<ToolResult>(events[8].body);
  CHECK(b.call_id == "b");
  CHECK(b.status == ToolStatus::interrupted);
  const auto& c = std::get<ToolResult>(events[9].body);
  CHECK(c.call_id == "c");
  CHECK(c.status == ToolStatus::skipped);
  CHECK(std::get<StepEnded>(events[10].body).reason == EndReason::interrupted);
  CHECK(std::get<TurnEnded>(events[11].body).reason == EndReason::interrupted);

  // A second open finds nothing to repair.
  auto again = LogWriter::open(path);
  REQUIRE(again);
  CHECK_FALSE((*again)->recovery().repaired());
}

TEST_CASE("a turn paused at a step boundary is left open for resume", "[recovery]") {
  std::vector<Event> events;
  Seq seq = 0;
  auto add = [&](EventBody body) {
    events.push_back(Event{.seq = ++seq, .body = std::move(body)});
  };
  add(TurnStarted{.turn_id = "t"});
  add(StepStarted{.turn_id = "t", .step = 1});
  add(StepEnded{.turn_id = "t", .step = 1});
  add(Paused{});
  std::vector<std::string> notes;
  CHECK(plan_closers(events, notes).empty());
  CHECK(notes.empty());

  // Resumed, then stopped between steps: no longer paused, so it is closed.
  add(Resumed{});
  const auto closers = plan_closers(events, notes);
  REQUIRE(closers.size() == 1);
  CHECK(std::get<TurnEnded>(closers[0]).reason == EndReason::interrupted);
}

TEST_CASE("a corrupt frame in the middle is reported with its offset, not repaired", "[recovery]") {
  TempDir tmp;
  const auto path = tmp.path() / "s.jsonl.zst";
  std::string bytes = log_with_open_turn(path);
  auto scan = scan_log(bytes);
  REQUIRE(scan);
  const auto victim = scan->frames[2];
  bytes[victim.offset + victim.size / 2] ^= 0x5a;
  write_bytes(path, bytes);

  auto read = read_log(path);
  REQUIRE_FALSE(read);
  CHECK(read.error().code == ava::ErrorCode::corrupt);
  CHECK(read.error().message.find("byte " + std::to_string(victim.offset)) != std::string::npos);

  auto writer = LogWriter::open(path);
  REQUIRE_FALSE(writer);
  CHECK(writer.error().code == ava::ErrorCode::corrupt);
  CHECK(read_bytes(path) == bytes);
}

TEST_CASE("zeros after the last frame are a torn tail", "[recovery]") {
  TempDir tmp;
  const auto path = tmp.path() / "s.jsonl.zst";
  const std::string original = log_with_open_turn(path);
  write_bytes(path, original + std::string(4096, '\0'));
  auto writer = LogWriter::open(path);
  REQUIRE(writer);
  REQUIRE((*writer)->recovery().torn_tail);
  CHECK((*writer)->recovery().torn_tail->offset == original.size());
  CHECK((*writer)->recovery().torn_tail->bytes == 4096);
  REQUIRE((*writer)->close());
  CHECK(ava::test::zstd_accepts(path));
}

TEST_CASE("each recovery keeps its own torn file", "[recovery]") {
  TempDir tmp;
  const auto path = tmp.path() / "s.jsonl.zst";
  const std::string original = log_with_open_turn(path);
  for (int round = 1; round <= 2; ++round) {
    const std::string current = read_bytes(path);
    write_bytes(path, current + "torn!");
    auto writer = LogWriter::open(path);
    REQUIRE(writer);
    CHECK((*writer)->recovery().torn_file.filename() == "s.torn-" + std::to_string(round));
    CHECK(read_bytes((*writer)->recovery().torn_file) == "torn!");
  }
  auto scan = read_log(path);
  REQUIRE(scan);
  CHECK(read_bytes(path).compare(0, original.size(), original) == 0);
}

TEST_CASE("a call waiting for a person is left open, a denied one is closed as skipped",
          "[recovery]") {
  std::vector<Event> events;
  Seq seq = 0;
  auto add = [&](EventBody body) {
    events.push_back(Event{.seq = ++seq, .body = std::move(body)});
  };
  add(TurnStarted{.turn_id = "t"});
  add(StepStarted{.turn_id = "t", .step = 1});
  add(AssistantMessage{
      .turn_id = "t",
      .step = 1,
      .content = {ava::content::ToolCallBlock{.id = "a", .name = "bash", .arguments = "{}"},
                  ava::content::ToolCallBlock{.id = "b", .name = "bash", .arguments = "{}"}}});
  add(ApprovalRequested{.approval_id = "ap-a", .turn_id = "t", .step = 1, .call_id = "a"});
  std::vector<std::string> notes;
  CHECK(plan_closers(events, notes).empty());  // the approval is still answerable
  CHECK(notes.empty());

  // Decided (allow) but the tool never reported: it may have run, so the
  // usual closers apply.
  add(ApprovalDecided{.approval_id = "ap-a", .call_id = "a", .decision = ApprovalDecision::allow});
  auto closers = plan_closers(events, notes);
  REQUIRE(closers.size() == 4);
  CHECK(std::get<ToolResult>(closers[0]).status == ToolStatus::interrupted);
  CHECK(std::get<ToolResult>(closers[1]).status == ToolStatus::skipped);

  // Denied: the call never ran.
  events.pop_back();
  add(ApprovalDecided{.approval_id = "ap-a", .call_id = "a", .decision = ApprovalDecision::deny});
  closers = plan_closers(events, notes);
  REQUIRE(closers.size() == 4);
  CHECK(std::get<ToolResult>(closers[0]).status == ToolStatus::skipped);
}
