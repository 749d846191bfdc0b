#include <catch2/catch.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <random>
#include <thread>

#include "ava/session/follower.hpp"
#include "ava/session/log_reader.hpp"
#include "ava/session/log_writer.hpp"
#include "session/log_support.hpp"
#include "support/temp_dir.hpp"

using namespace ava::session;
using ava::test::TempDir;
namespace asio = boost::asio;

namespace {

std::vector<Seq> seqs(const std::vector<Event>& events) {
  std::vector<Seq> out;
  out.reserve(events.size());
  for (const auto& event : events) out.push_back(event.seq);
  return out;
}

}  // namespace

TEST_CASE("a follower replays from a seq and then sees new events", "[follower]") {
  TempDir tmp;
  const auto path = tmp.path() / "s.jsonl.zst";
  auto writer = LogWriter::create(path, ava::test::sample_start());
  REQUIRE(writer);
  for (int i = 0; i < 4; ++i) REQUIRE((*writer)->append(Paused{}));  // seqs 2..5

  auto follower = LogFollower::open(path, 3);
  REQUIRE(follower);
  auto first = (*follower)->poll();
  REQUIRE(first);
  CHECK(seqs(*first) == std::vector<Seq>{4, 5});
  auto nothing = (*follower)->poll();
  REQUIRE(nothing);
  CHECK(nothing->empty());

  REQUIRE((*writer)->append_batch({Resumed{}, Paused{}}));
  auto more = (*follower)->poll();
  REQUIRE(more);
  CHECK(seqs(*more) == std::vector<Seq>{6, 7});
  CHECK((*follower)->last_seq() == 7);
}

TEST_CASE("a frame still being written waits for its end", "[follower]") {
  TempDir tmp;
  const auto source = tmp.path() / "source.jsonl.zst";
  {
    auto writer = LogWriter::create(source, ava::test::sample_start());
    REQUIRE(writer);
    REQUIRE((*writer)->append(TurnStarted{.turn_id = "t"}));
  }
  auto bytes = read_file_bytes(source);
  REQUIRE(bytes);
  auto scan = scan_log(*bytes);
  REQUIRE(scan);
  const auto second = scan->frames[1];

  const auto path = tmp.path() / "growing.jsonl.zst";
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  REQUIRE(fd >= 0);
  const std::size_t half = second.offset + second.size / 2;
  REQUIRE(::write(fd, bytes->data(), half) == static_cast<ssize_t>(half));
  auto follower = LogFollower::open(path, 0);
  REQUIRE(follower);
  auto partial = (*follower)->poll();
  REQUIRE(partial);
  CHECK(seqs(*partial) == std::vector<Seq>{1});
  const std::size_t rest = bytes->size() - half;
  REQUIRE(::write(fd, bytes->data() + half, rest) == static_cast<ssize_t>(rest));
  ::close(fd);
  auto complete = (*follower)->poll();
  REQUIRE(complete);
  CHECK(seqs(*complete) == std::vector<Seq>{2});
}

TEST_CASE("a torn tail cut by recovery is skipped and reading resumes", "[follower]") {
  TempDir tmp;
  const auto path = tmp.path() / "s.jsonl.zst";
  {
    auto writer = LogWriter::create(path, ava::test::sample_start());
    REQUIRE(writer);
  }
  auto follower = LogFollower::open(path, 0);
  REQUIRE(follower);
  REQUIRE((*follower)->poll());
  {
    const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND);
    REQUIRE(::write(fd, "\x28\xb5\x2f\xfd\x20", 5) == 5);  // the start of a frame
    ::close(fd);
  }
  auto waiting = (*follower)->poll();
  REQUIRE(waiting);
  CHECK(waiting->empty());
  auto writer = LogWriter::open(path);  // cuts the 5 bytes, appends `recovered`
  REQUIRE(writer);
  auto resumed = (*follower)->poll();
  REQUIRE(resumed);
  REQUIRE(resumed->size() == 1);
  CHECK(std::holds_alternative<Recovered>(resumed->front().body));
}

TEST_CASE("next() waits for the writer without polling", "[follower]") {
  TempDir tmp;
  const auto path = tmp.path() / "s.jsonl.zst";
  auto writer = LogWriter::create(path, ava::test::sample_start());
  REQUIRE(writer);
  auto follower = LogFollower::open(path, 1);
  REQUIRE(follower);

  asio::io_context io;
  std::vector<Seq> received;
  asio::co_spawn(
      io,
      [&]() -> asio::awaitable<void> {
        while (received.size() < 3) {
          auto events = co_await (*follower)->next();
          REQUIRE(events);
          for (const auto& event : *events) received.push_back(event.seq);
        }
      },
      asio::detached);
  std::thread appender([&] {
    for (int i = 0; i < 3; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      REQUIRE((*writer)->append(Paused{}));
    }
  });
  io.run_for(std::chrono::seconds(10));
  appender.join();
  CHECK(received == std::vector<Seq>{2, 3, 4});
}

TEST_CASE("a bounded poll reads a long history in pieces, each event once and in order",
          "[follower]") {
  TempDir tmp;
  const auto path = tmp.path() / "s.jsonl.zst";
  auto writer = LogWriter::create(path, ava::test::sample_start());
  REQUIRE(writer);
  // Random letters compress little: 300 frames of 1 to 2 KiB each.
  std::mt19937 random(7);
  for (int i = 0; i < 300; ++i) {
    std::string text(2048, ' ');
    for (auto& c : text) c = static_cast<char>('a' + random() % 26);
    REQUIRE((*writer)->append(InputAcknowledged{.input_id = std::to_string(i), .text = text}));
  }
  auto follower = LogFollower::open(path, 10);
  REQUIRE(follower);
  std::vector<Seq> seen;
  int polls = 0;
  do {
    auto events = (*follower)->poll(16 * 1024);
    REQUIRE(events);
    CHECK(events->size() <= 16);  // 16 KiB holds at most 16 of these frames
    for (const auto& event : *events) seen.push_back(event.seq);
    ++polls;
  } while ((*follower)->has_unread());
  // Each poll read about 16 KiB, not the whole file.
  CHECK(polls >= static_cast<int>(std::filesystem::file_size(path) / (18 * 1024)));
  std::vector<Seq> expected;
  for (Seq seq = 11; seq <= 301; ++seq) expected.push_back(seq);
  CHECK(seen == expected);
  CHECK_FALSE((*follower)->has_unread());

  // A budget smaller than one frame still reads whole frames, one at a time.
  auto small = LogFollower::open(path, 0);
  REQUIRE(small);
  auto first = (*small)->poll(16);
  REQUIRE(first);
  REQUIRE(first->size() == 1);
  CHECK(first->front().seq == 1);
  CHECK((*small)->has_unread());
}
