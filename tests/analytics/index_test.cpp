// The analytics index over real session logs: what it counts, incremental
// updates equal to a rebuild, a torn tail, subagents counted once, and an
// update killed at random moments leaving an index that catches up.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <random>

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include "ava/analytics/index.hpp"
#include "ava/session/log_writer.hpp"
#include "ava/store/database.hpp"
#include "ava/store/sqlite.hpp"
#include "support/temp_dir.hpp"

using namespace ava;
using namespace ava::session;
namespace fs = std::filesystem;

namespace {

struct Homes {
  test::TempDir dir;
  fs::path sessions = dir.path() / "sessions";
  fs::path project_a = dir.path() / "a";
  fs::path project_b = dir.path() / "b";
  Homes() {
    fs::create_directories(sessions);
    fs::create_directories(project_a / ".git");
    fs::create_directories(project_b / ".git");
  }
  analytics::Index index() {
    auto opened = analytics::Index::open_file(dir.path() / "analytics.sqlite3", sessions);
    REQUIRE(opened);
    return std::move(*opened);
  }
};

// One turn: a bash call (ok or error), its result, the usage of two steps.
std::vector<EventBody> turn(const std::string& id, const std::string& model, ToolStatus status,
                            std::int64_t input) {
  const std::string call = "call-" + id;
  return {
      TurnStarted{.turn_id = id},
      StepStarted{.turn_id = id, .step = 1, .model = model},
      AssistantMessage{.turn_id = id,
                       .step = 1,
                       .content = {content::ToolCallBlock{
                           .id = call, .name = "bash", .arguments = R"({"command":"ls"})"}}},
      UsageRecorded{.turn_id = id,
                    .step = 1,
                    .model = model,
                    .usage = {.input_tokens = input, .output_tokens = 10, .cache_read_tokens = 30},
                    .first_token_ms = 120},
      ToolResult{.turn_id = id, .step = 1, .call_id = call, .tool_name = "bash", .status = status},
      StepEnded{.turn_id = id, .step = 1},
      StepStarted{.turn_id = id, .step = 2, .model = model},
      AssistantMessage{.turn_id = id, .step = 2, .content = {content::TextBlock{"done"}}},
      UsageRecorded{.turn_id = id,
                    .step = 2,
                    .model = model,
                    .usage = {.input_tokens = input, .output_tokens = 5},
                    .first_token_ms = 80},
      StepEnded{.turn_id = id, .step = 2},
      TurnEnded{.turn_id = id}};
}

std::unique_ptr<LogWriter> log_in(const Homes& h, const std::string& id, const fs::path& cwd,
                                  const std::string& model, const std::string& parent = {}) {
  auto writer = LogWriter::create(h.sessions / (id + ".jsonl.zst"),
                                  SessionStarted{.session_id = id,
                                                 .provider = "anthropic",
                                                 .model = model,
                                                 .cwd = cwd.string(),
                                                 .version = "test",
                                                 .parent_session_id = parent});
  REQUIRE(writer);
  return std::move(*writer);
}

// The index's file opened as it is (no migration), to take it back in time.
store::Database raw_database(const Homes& h) {
  sqlite3* raw = nullptr;
  REQUIRE(sqlite3_open((h.dir.path() / "analytics.sqlite3").c_str(), &raw) == SQLITE_OK);
  return store::Database(raw);
}

std::string json_of(const analytics::Summary& summary) { return protocol::to_json(summary).dump(); }

}  // namespace

TEST_CASE("the index counts turns, steps, tokens, cost and tools by project and model",
          "[analytics]") {
  Homes h;
  auto one = log_in(h, "s1", h.project_a, "claude-sonnet-4-5");
  REQUIRE(one->append_batch(turn("t1", "claude-sonnet-4-5", ToolStatus::ok, 100)));
  REQUIRE(one->append_batch(turn("t2", "claude-sonnet-4-5", ToolStatus::error, 100)));
  REQUIRE(one->close());
  auto two = log_in(h, "s2", h.project_b, "gpt-5");
  REQUIRE(two->append_batch(turn("t3", "gpt-5", ToolStatus::interrupted, 50)));
  REQUIRE(two->close());

  auto index = h.index();
  auto updated = index.update();
  REQUIRE(updated);
  CHECK(updated->logs_read == 2);
  auto all = index.summary({});
  REQUIRE(all);
  CHECK(all->sessions == 2);
  CHECK(all->turns == 3);
  CHECK(all->steps == 6);
  CHECK(all->input_tokens == 500);
  CHECK(all->output_tokens == 45);
  CHECK(all->cache_read_tokens == 90);
  CHECK(all->cache_hit_ratio == Approx(90.0 / 590.0));
  CHECK(all->median_first_token_ms == 120);
  CHECK(all->cost_usd > 0);
  REQUIRE(all->by_model.size() == 2);
  CHECK(all->by_model[0].key == "claude-sonnet-4-5");
  CHECK(all->by_model[0].input_tokens == 400);
  REQUIRE(all->tools.size() == 1);
  CHECK(all->tools[0].tool == "bash");
  CHECK(all->tools[0].calls == 3);
  CHECK(all->tools[0].errors == 1);
  CHECK(all->tools[0].interrupted == 1);

  auto only_b = index.summary({.project = fs::weakly_canonical(h.project_b).string()});
  REQUIRE(only_b);
  CHECK(only_b->turns == 1);
  CHECK(only_b->input_tokens == 100);
  // A folder inside a project counts as the project; a sibling whose name
  // starts the same does not.
  const auto b = fs::weakly_canonical(h.project_b).string();
  CHECK(index.summary({.project = b + "/src/deep"})->turns == 1);
  CHECK(index.summary({.project = b + "x"})->turns == 0);
  CHECK(index.summary({.project = b.substr(0, b.size() - 1)})->turns == 0);
  auto only_gpt = index.summary({.model = "gpt-5"});
  REQUIRE(only_gpt);
  CHECK(only_gpt->steps == 2);
  CHECK(only_gpt->turns == 1);
  CHECK(only_gpt->sessions == 1);
  auto nobody = index.summary({.model = "no-such-model"});
  REQUIRE(nobody);
  CHECK(nobody->turns == 0);
  CHECK(nobody->sessions == 0);
  CHECK(index.summary({.from_day = "2000-01-01", .to_day = "2000-01-02"})->steps == 0);
}

TEST_CASE("incremental updates equal a rebuild, across a torn tail", "[analytics]") {
  Homes h;
  auto writer = log_in(h, "s1", h.project_a, "claude-sonnet-4-5");
  REQUIRE(writer->append_batch(turn("t1", "claude-sonnet-4-5", ToolStatus::ok, 100)));
  auto index = h.index();
  REQUIRE(index.update());
  REQUIRE(writer->append_batch(turn("t2", "claude-sonnet-4-5", ToolStatus::ok, 70)));
  REQUIRE(index.update());
  const auto incremental = json_of(*index.summary({}));
  // A torn frame at the end: left for later, never half read.
  writer.reset();
  {
    std::ofstream torn(h.sessions / "s1.jsonl.zst", std::ios::binary | std::ios::app);
    torn << std::string("\x28\xb5\x2f\xfd\x00\x48garbage", 14);
  }
  REQUIRE(index.update());
  CHECK(json_of(*index.summary({})) == incremental);
  REQUIRE(index.rebuild());
  CHECK(json_of(*index.summary({})) == incremental);
  CHECK(index.summary({})->turns == 2);
}

TEST_CASE("a log read again from its start counts its steps once in the daily usage",
          "[analytics]") {
  Homes h;
  auto writer = log_in(h, "s1", h.project_a, "claude-sonnet-4-5");
  REQUIRE(writer->append_batch(turn("t1", "claude-sonnet-4-5", ToolStatus::ok, 100)));
  auto index = h.index();
  REQUIRE(index.update());
  const auto once = json_of(*index.summary({}));
  {
    // The cursor's byte offset lost (as after a version-1 index): the log is
    // read from its first frame and every step comes again.
    auto db = raw_database(h);
    REQUIRE(store::exec(db.get(), "UPDATE logs SET last_seq = 0, read_bytes = 0, bytes = 0"));
  }
  REQUIRE(index.update());
  CHECK(json_of(*index.summary({})) == once);
  CHECK(index.summary({})->steps == 2);
}

TEST_CASE("an index of schema 2 gains its daily usage from the steps it holds", "[analytics]") {
  Homes h;
  auto writer = log_in(h, "s1", h.project_a, "claude-sonnet-4-5");
  REQUIRE(writer->append_batch(turn("t1", "claude-sonnet-4-5", ToolStatus::error, 100)));
  std::string before;
  {
    auto index = h.index();
    REQUIRE(index.update());
    before = json_of(*index.summary({}));
  }
  {
    auto db = raw_database(h);
    REQUIRE(store::exec(db.get(), "DROP TABLE usage_daily; PRAGMA user_version = 2;"));
  }
  auto index = h.index();
  CHECK(json_of(*index.summary({})) == before);
  CHECK(index.summary({})->input_tokens == 200);
}

TEST_CASE("a subagent's tokens are counted once, from its own log", "[analytics]") {
  Homes h;
  auto parent = log_in(h, "p", h.project_a, "claude-sonnet-4-5");
  REQUIRE(parent->append_batch(turn("t1", "claude-sonnet-4-5", ToolStatus::ok, 100)));
  // The parent's copy of the child's usage is marked with the child.
  REQUIRE(parent->append(UsageRecorded{.turn_id = "t1",
                                       .step = 1,
                                       .model = "claude-sonnet-4-5",
                                       .usage = {.input_tokens = 50, .output_tokens = 5},
                                       .subagent = "c"}));
  REQUIRE(parent->close());
  auto child = log_in(h, "c", h.project_a, "claude-sonnet-4-5", "p");
  REQUIRE(child->append(UsageRecorded{.turn_id = "x",
                                      .step = 1,
                                      .model = "claude-sonnet-4-5",
                                      .usage = {.input_tokens = 50, .output_tokens = 5}}));
  REQUIRE(child->close());
  auto index = h.index();
  REQUIRE(index.update());
  CHECK(index.summary({})->input_tokens == 250);
}

TEST_CASE("an update killed at any moment leaves an index that catches up", "[analytics][crash]") {
  Homes h;
  for (int i = 0; i < 60; ++i) {
    auto writer = log_in(h, "s" + std::to_string(i), i % 2 ? h.project_a : h.project_b, "gpt-5");
    for (int t = 0; t < 5; ++t) {
      REQUIRE(writer->append_batch(turn(fmt::format("t{}", t), "gpt-5", ToolStatus::ok, 10 + t)));
    }
    REQUIRE(writer->close());
  }
  std::string expected;
  {
    auto clean = analytics::Index::open_file(h.dir.path() / "clean.sqlite3", h.sessions);
    REQUIRE(clean);
    REQUIRE(clean->update());
    expected = json_of(*clean->summary({}));
  }
  std::mt19937 random(7);
  for (int round = 0; round < 8; ++round) {
    const pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
      auto index = analytics::Index::open_file(h.dir.path() / "analytics.sqlite3", h.sessions);
      if (index) (void)(round % 2 ? index->rebuild() : index->update());
      ::_exit(0);
    }
    ::usleep(static_cast<useconds_t>(random() % 60'000));
    ::kill(child, SIGKILL);
    int status = 0;
    ::waitpid(child, &status, 0);
  }
  auto index = h.index();
  REQUIRE(index.update());
  CHECK(json_of(*index.summary({})) == expected);
}

TEST_CASE("a day filter is a calendar day", "[analytics]") {
  CHECK(analytics::is_day("2026-12-05"));
  CHECK(analytics::is_day("2028-02-29"));
  CHECK_FALSE(analytics::is_day("2026-02-29"));
  CHECK_FALSE(analytics::is_day("2026-13-01"));
  CHECK_FALSE(analytics::is_day("2026-00-10"));
  CHECK_FALSE(analytics::is_day("2026-1-01"));
  CHECK_FALSE(analytics::is_day("2026-01-01'"));
  CHECK_FALSE(analytics::is_day(""));
}
