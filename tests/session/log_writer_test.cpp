#include <catch2/catch.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <set>
#include <string>
#include <thread>

#include "ava/session/codec.hpp"
#include "ava/session/log_reader.hpp"
#include "ava/session/log_writer.hpp"
#include "session/log_support.hpp"
#include "session/samples.hpp"
#include "support/temp_dir.hpp"

using namespace ava::session;
using ava::test::TempDir;

TEST_CASE("a new log holds session_start and reads back as zstd JSONL", "[log]") {
  TempDir tmp;
  const auto path = tmp.path() / "s1.jsonl.zst";
  auto writer = LogWriter::create(path, ava::test::sample_start());
  REQUIRE(writer);
  for (const auto& body : ava::test::every_kind()) REQUIRE((*writer)->append(body));
  REQUIRE((*writer)->close());

  auto scan = read_log(path);
  REQUIRE(scan);
  CHECK(scan->events.size() == 1 + ava::test::every_kind().size());
  CHECK_FALSE(scan->torn_tail);
  CHECK(std::holds_alternative<SessionStarted>(scan->events.front().body));
  for (std::size_t i = 0; i < scan->events.size(); ++i) CHECK(scan->events[i].seq == i + 1);

  CHECK(ava::test::zstd_accepts(path));
  const auto lines = ava::test::zstdcat_lines(path);
  REQUIRE(lines.size() == scan->events.size());
  for (const auto& line : lines) {
    auto event = decode_line(line);
    REQUIRE(event);
    CHECK(encode_line(*event) == line + "\n");
  }
}

TEST_CASE("one writer per log: a second create or open is refused", "[log]") {
  TempDir tmp;
  const auto path = tmp.path() / "s.jsonl.zst";
  auto first = LogWriter::create(path, ava::test::sample_start());
  REQUIRE(first);
  auto again = LogWriter::create(path, ava::test::sample_start());
  REQUIRE_FALSE(again);
  CHECK(again.error().code == ava::ErrorCode::already_exists);
  auto second = LogWriter::open(path);
  REQUIRE_FALSE(second);
  CHECK(second.error().code == ava::ErrorCode::conflict);
  REQUIRE((*first)->close());
  auto reopened = LogWriter::open(path);
  REQUIRE(reopened);
  CHECK((*reopened)->last_seq() == 1);
  CHECK_FALSE((*reopened)->recovery().repaired());
}

TEST_CASE("appends from many threads get unique, contiguous, ordered seqs", "[log]") {
  TempDir tmp;
  const auto path = tmp.path() / "s.jsonl.zst";
  auto writer = LogWriter::create(path, ava::test::sample_start());
  REQUIRE(writer);
  std::vector<Seq> delivered;
  (*writer)->subscribe([&delivered](const Event& event) { delivered.push_back(event.seq); });

  constexpr std::size_t threads = 4;
  constexpr std::size_t per_thread = 500;
  std::vector<std::vector<Seq>> acked(threads);
  std::vector<std::thread> workers;
  workers.reserve(threads);
  for (std::size_t t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      for (std::size_t i = 0; i < per_thread; ++i) {
        auto seq = (*writer)->append(TurnStarted{.turn_id = std::to_string(t * per_thread + i)});
        if (seq) acked[t].push_back(*seq);
      }
    });
  }
  for (auto& worker : workers) worker.join();

  std::set<Seq> all;
  for (const auto& seqs : acked) {
    CHECK(seqs.size() == per_thread);
    CHECK(std::ranges::is_sorted(seqs));
    all.insert(seqs.begin(), seqs.end());
  }
  CHECK(all.size() == threads * per_thread);
  CHECK(*all.begin() == 2);
  CHECK(*all.rbegin() == 1 + threads * per_thread);
  REQUIRE(delivered.size() == threads * per_thread);
  CHECK(std::ranges::is_sorted(delivered));
  REQUIRE((*writer)->close());
  auto scan = read_log(path);
  REQUIRE(scan);
  CHECK(scan->events.size() == 1 + threads * per_thread);
}

TEST_CASE("subscribers see an event only once it is in the file", "[log]") {
  TempDir tmp;
  const auto path = tmp.path() / "s.jsonl.zst";
  auto writer = LogWriter::create(path, ava::test::sample_start());
  REQUIRE(writer);
  std::vector<std::size_t> events_in_file;
  (*writer)->subscribe([&](const Event& event) {
    auto scan = read_log(path);
    events_in_file.push_back(scan ? scan->events.size() : 0);
    CHECK(scan->events.size() >= event.seq);
  });
  REQUIRE((*writer)->append(Paused{}));
  REQUIRE((*writer)->append_batch({Resumed{}, Paused{}}));
  CHECK(events_in_file == std::vector<std::size_t>{2, 4, 4});
}

TEST_CASE("an oversized record is truncated with a marker, not dropped", "[log]") {
  TempDir tmp;
  const auto path = tmp.path() / "s.jsonl.zst";
  auto writer = LogWriter::create(path, ava::test::sample_start(), {.max_record = 4096});
  REQUIRE(writer);
  Event seen;
  (*writer)->subscribe([&seen](const Event& event) { seen = event; });
  const std::string huge(100'000, 'x');
  REQUIRE((*writer)->append(ToolResult{.turn_id = "t",
                                       .step = 1,
                                       .call_id = "c",
                                       .tool_name = "bash",
                                       .content = {ava::content::TextBlock{huge}},
                                       .details = {{"note", std::string(5000, 'y')}}}));
  REQUIRE((*writer)->close());
  auto scan = read_log(path, {.max_record = 4096});
  REQUIRE(scan);
  REQUIRE(scan->events.size() == 2);
  const auto& result = std::get<ToolResult>(scan->events[1].body);
  const auto& text = std::get<ava::content::TextBlock>(result.content[0]).text;
  CHECK(text.size() < 4096);
  CHECK(text.find("bytes truncated by Ava") != std::string::npos);
  CHECK(text.starts_with("xxxx"));
  CHECK(encode_line(scan->events[1]).size() <= 4097);
  // Subscribers get the event as stored.
  CHECK(std::get<ToolResult>(seen.body).content == result.content);
}

TEST_CASE("a closed writer refuses appends", "[log]") {
  TempDir tmp;
  auto writer = LogWriter::create(tmp.path() / "s.jsonl.zst", ava::test::sample_start());
  REQUIRE(writer);
  REQUIRE((*writer)->close());
  auto appended = (*writer)->append(Paused{});
  REQUIRE_FALSE(appended);
  CHECK(appended.error().code == ava::ErrorCode::conflict);
}

TEST_CASE("bound_record cuts the longest strings until the line fits", "[log]") {
  nlohmann::json object = {
      {"a", std::string(3000, 'a')}, {"b", std::string(2000, 'b')}, {"c", "keep"}};
  REQUIRE(bound_record(object, 1500));
  CHECK(object.dump().size() <= 1500);
  CHECK(object["c"] == "keep");
  nlohmann::json tiny = {{"k", std::string(10, 'z')}};
  CHECK_FALSE(bound_record(tiny, 5));
}

namespace {

// The descriptor this process holds open on `path`, or -1. A new log is
// written under a temporary name and linked into place, so the descriptor's
// link names that temporary file ("<path>.new-<id> (deleted)").
int descriptor_of(const std::filesystem::path& path) {
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
    std::error_code ec;
    if (std::filesystem::read_symlink(entry.path(), ec).string().starts_with(path.string()))
      return std::stoi(entry.path().filename().string());
  }
  return -1;
}

}  // namespace

TEST_CASE("a write the disk refuses is not acknowledged and stops the writer until reopened",
          "[log]") {
  TempDir tmp;
  const auto path = tmp.path() / "full.jsonl.zst";
  auto writer = LogWriter::create(path, ava::test::sample_start());
  REQUIRE(writer);
  REQUIRE((*writer)->append(Paused{}));
  const Seq last = (*writer)->last_seq();
  // The disk fills up: the log's descriptor now writes to /dev/full (ENOSPC).
  const int fd = descriptor_of(path);
  REQUIRE(fd >= 0);
  const int full = ::open("/dev/full", O_WRONLY | O_CLOEXEC);
  REQUIRE(full >= 0);
  REQUIRE(::dup2(full, fd) == fd);
  ::close(full);

  auto refused = (*writer)->append(Resumed{});
  REQUIRE_FALSE(refused);
  CHECK(refused.error().code == ava::ErrorCode::no_space);
  CHECK((*writer)->failed());
  CHECK((*writer)->last_seq() == last);
  // Nothing after a failed write is acknowledged, even once it would fit.
  auto again = (*writer)->append(Resumed{});
  REQUIRE_FALSE(again);
  CHECK(again.error().code == ava::ErrorCode::no_space);
  (void)(*writer)->close();  // returns: nothing refused stays queued

  auto reopened = LogWriter::open(path);
  REQUIRE(reopened);
  CHECK_FALSE((*reopened)->failed());
  CHECK((*reopened)->last_seq() == last);
  auto appended = (*reopened)->append(Resumed{});
  REQUIRE(appended);
  CHECK(*appended == last + 1);
}
