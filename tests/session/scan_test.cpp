// Decoding a log on several threads must read exactly as decoding it on one:
// the same events, frames and torn tail, or the same first error.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include "ava/session/codec.hpp"
#include "ava/session/log_reader.hpp"
#include "ava/session/log_writer.hpp"
#include "session/frame.hpp"
#include "session/log_support.hpp"
#include "session/samples.hpp"
#include "support/temp_dir.hpp"

using namespace ava::session;

namespace {

// A log of a few hundred events of every kind, as bytes.
std::string sample_log() {
  ava::test::TempDir tmp;
  const auto path = tmp.path() / "s.jsonl.zst";
  {
    auto writer = LogWriter::create(path, ava::test::sample_start());
    REQUIRE(writer);
    for (int round = 0; round < 20; ++round) {
      for (const auto& body : ava::test::every_kind()) REQUIRE((*writer)->append(body));
    }
    REQUIRE((*writer)->close());
  }
  auto bytes = read_file_bytes(path);
  REQUIRE(bytes);
  return *bytes;
}

// Everything a scan says, as text to compare.
std::string describe(const ava::Result<LogScan>& scan) {
  if (!scan)
    return fmt::format("error {}: {}", ava::base::to_string(scan.error().code),
                       scan.error().message);
  std::string out = fmt::format("file {} valid {}", scan->file_bytes, scan->valid_bytes);
  if (scan->torn_tail) {
    out += fmt::format(" torn {}+{} ({})", scan->torn_tail->offset, scan->torn_tail->bytes,
                       scan->torn_tail->reason);
  }
  out += fmt::format(" events {} frames {}\n", scan->events.size(), scan->frames.size());
  for (std::size_t i = 0; i < scan->events.size(); ++i) {
    out += fmt::format("{}+{} ", scan->frames[i].offset, scan->frames[i].size);
    out += encode_line(scan->events[i]);
  }
  return out;
}

void check_threads_agree(std::string_view bytes) {
  const std::string one = describe(scan_log(bytes, {.max_threads = 1}));
  for (const std::size_t threads : {2, 3, 4, 7}) {
    INFO(threads << " threads");
    CHECK(describe(scan_log(bytes, {.parallel_min_bytes = 0, .max_threads = threads})) == one);
  }
}

std::string frame_of(std::string_view content) {
  FrameEncoder encoder;
  std::string frame;
  REQUIRE(encoder.encode(content, frame));
  return frame;
}

}  // namespace

TEST_CASE("a log decoded on several threads reads as on one", "[scan]") {
  const std::string log = sample_log();
  auto scan = scan_log(log, {.parallel_min_bytes = 0, .max_threads = 4});
  REQUIRE(scan);
  CHECK(scan->events.size() == 1 + 20 * ava::test::every_kind().size());
  CHECK_FALSE(scan->torn_tail);
  check_threads_agree(log);
  check_threads_agree("");
  check_threads_agree(std::string_view(log).substr(0, scan->frames[0].size));
}

TEST_CASE("damage is reported the same on several threads as on one", "[scan]") {
  const std::string log = sample_log();
  auto scan = scan_log(log);
  REQUIRE(scan);
  const auto& frames = scan->frames;
  const std::size_t n = frames.size();

  SECTION("torn tails, cut anywhere") {
    for (const std::size_t frame : {std::size_t{1}, n / 3, n / 2, n - 1}) {
      const auto& f = frames[frame];
      for (const std::uint64_t cut : {f.offset, f.offset + 1, f.offset + f.size / 2}) {
        INFO("cut at " << cut);
        check_threads_agree(std::string_view(log).substr(0, cut));
      }
    }
    check_threads_agree(log + "garbage after the last frame");
  }
  SECTION("a corrupt byte in a frame in each share") {
    for (const std::size_t frame : {std::size_t{0}, n / 4, n / 2, 3 * n / 4, n - 1}) {
      for (const std::uint64_t at :
           {frames[frame].offset + 2, frames[frame].offset + frames[frame].size - 2}) {
        INFO("frame " << frame << " byte " << at);
        std::string damaged = log;
        damaged[at] = static_cast<char>(damaged[at] ^ 0x5A);
        check_threads_agree(damaged);
      }
    }
  }
  SECTION("a missing frame breaks the sequence") {
    for (const std::size_t frame : {std::size_t{1}, n / 2, n - 2}) {
      std::string damaged = log;
      damaged.erase(frames[frame].offset, frames[frame].size);
      check_threads_agree(damaged);
    }
  }
  SECTION("a frame that is valid zstd but not an event, and two bad frames") {
    for (const std::size_t frame : {std::size_t{1}, n / 2, n - 1}) {
      std::string damaged = log;
      damaged.insert(frames[frame].offset, frame_of("{\"not\":\"an event\"}\n"));
      check_threads_agree(damaged);
      damaged.insert(frames[n / 4].offset, frame_of("no newline"));
      check_threads_agree(damaged);
    }
  }
}

TEST_CASE("frames holding several events decode the same on several threads", "[scan]") {
  // Written by zstd itself (like the golden log): lines share frames.
  std::string log;
  std::string lines;
  Seq seq = 1;
  for (int frame = 0; frame < 30; ++frame) {
    lines.clear();
    for (int k = 0; k <= frame % 4; ++k) {
      lines += encode_line({.seq = seq++, .ts_ms = 5, .body = TurnStarted{.turn_id = "t"}});
    }
    log += frame_of(lines);
  }
  auto scan = scan_log(log, {.parallel_min_bytes = 0, .max_threads = 3});
  REQUIRE(scan);
  CHECK(scan->events.size() == seq - 1);
  check_threads_agree(log);
}
