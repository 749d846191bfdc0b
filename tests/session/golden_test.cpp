#include <catch2/catch.hpp>

#include "ava/session/context.hpp"
#include "ava/session/inspect.hpp"
#include "ava/session/log_reader.hpp"
#include "ava/session/log_writer.hpp"
#include "session/log_support.hpp"
#include "support/temp_dir.hpp"

using namespace ava::session;

namespace {

const std::filesystem::path kGolden =
    std::filesystem::path(AVA_SOURCE_DIR) / "tests/session/golden/conversation.jsonl";

}  // namespace

// The golden log is plain JSONL compressed by the zstd tool itself (one frame
// holding every line): logs edited with zstdcat/jq/zstd stay readable.
TEST_CASE("a golden log compressed by zstd itself reads and inspects", "[golden]") {
  ava::test::TempDir tmp;
  const auto path = tmp.path() / "golden.jsonl.zst";
  REQUIRE(ava::test::run_command("zstd -q -c '" + kGolden.string() + "' > '" + path.string() + "'")
              .status == 0);
  auto report = inspect_log(path);
  REQUIRE(report);
  CHECK(report->events == 16);
  CHECK(report->counts.at("future_kind") == 1);
  REQUIRE(report->turns.size() == 1);
  CHECK(report->turns[0].outcome == "open");
  CHECK(report->turns[0].steps == 2);
  CHECK(report->turns[0].tool_calls == 3);
  CHECK(report->unpaired_calls == std::vector<std::string>{"toolu_03"});
  REQUIRE(report->pending.size() == 1);
  CHECK(report->pending[0].input_id == "in-3");
  CHECK(report->usage.cache_read_tokens == 1800);
}

TEST_CASE("recovering the golden log closes its open turn after the last event", "[golden]") {
  ava::test::TempDir tmp;
  const auto path = tmp.path() / "golden.jsonl.zst";
  REQUIRE(ava::test::run_command("zstd -q -c '" + kGolden.string() + "' > '" + path.string() + "'")
              .status == 0);
  auto writer = LogWriter::open(path);
  REQUIRE(writer);
  const auto history = (*writer)->take_history();
  REQUIRE((*writer)->close());
  REQUIRE(history.size() == 16 + 4);  // recovered, toolu_03 interrupted, step end, turn end
  const auto& closer = std::get<ToolResult>(history[17].body);
  CHECK(closer.call_id == "toolu_03");
  CHECK(closer.status == ToolStatus::interrupted);
  const Context context = rebuild_context(history);
  CHECK(context.unpaired_calls.empty());
  CHECK(context.pending.size() == 1);
  CHECK(ava::test::zstd_accepts(path));
  const auto lines = ava::test::zstdcat_lines(path);
  CHECK(lines.size() == 20);
  CHECK(lines[14].find("future_kind") != std::string::npos);
}
