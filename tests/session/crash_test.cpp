// Crash test for the session log. A child process appends conversation-shaped
// events and reports every acknowledged seq over a pipe right after append()
// returns; the parent SIGKILLs it at a random moment, then recovers the log
// and checks: every acknowledged event is present, every complete event is
// byte-identical to before recovery, `zstd -t` accepts the file, and every
// tool call has exactly one result. The same log is reused across iterations,
// so recovery also runs on logs that earlier recoveries produced.
//
//   ava_session_crash [--iterations N | --long] [--seed S]

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <csignal>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <set>
#include <string>
#include <thread>

#include "ava/session/context.hpp"
#include "ava/session/log_reader.hpp"
#include "ava/session/log_writer.hpp"

namespace fs = std::filesystem;
using namespace ava::session;
namespace content = ava::content;

namespace {

[[noreturn]] void die(const std::string& message) {
  std::fprintf(stderr, "crash test: %s\n", message.c_str());
  std::exit(1);
}

void report(int fd, Seq seq) {
  if (::write(fd, &seq, sizeof seq) != sizeof seq) std::_Exit(3);
}

int run_child(const fs::path& log, int fd, unsigned seed) {
  auto writer = fs::exists(log) ? LogWriter::open(log)
                                : LogWriter::create(log, {.session_id = "crash", .model = "m"});
  if (!writer) {
    std::fprintf(stderr, "child: %s\n", writer.error().message.c_str());
    return 2;
  }
  auto& w = **writer;
  std::mt19937 random(seed);
  auto ack = [&](ava::Result<Seq> seq) {
    if (!seq) std::_Exit(4);
    report(fd, *seq);
  };
  for (int turn = 0;; ++turn) {
    const std::string turn_id = std::to_string(seed) + "-" + std::to_string(turn);
    ack(w.append(InputAcknowledged{.input_id = turn_id, .text = "do something"}));
    ack(w.append_batch({TurnStarted{.turn_id = turn_id}, StepStarted{.turn_id = turn_id, .step = 1},
                        InputClaimed{.input_ids = {turn_id}, .turn_id = turn_id, .step = 1}}));
    AssistantMessage message{.turn_id = turn_id, .step = 1};
    const int calls = 1 + static_cast<int>(random() % 3);
    for (int c = 0; c < calls; ++c) {
      message.content.emplace_back(content::ToolCallBlock{.id = turn_id + "/" + std::to_string(c),
                                                          .name = "bash",
                                                          .arguments = R"({"command":"ls"})"});
    }
    ack(w.append(std::move(message)));
    for (int c = 0; c < calls; ++c) {
      const std::string output(random() % 1024, static_cast<char>('a' + c));
      ack(w.append(ToolResult{.turn_id = turn_id,
                              .step = 1,
                              .call_id = turn_id + "/" + std::to_string(c),
                              .tool_name = "bash",
                              .content = {content::TextBlock{output}}}));
    }
    ack(w.append_batch({StepEnded{.turn_id = turn_id, .step = 1}, TurnEnded{.turn_id = turn_id}}));
    if (turn % 8 == 7) (void)w.sync();
  }
}

// posix_spawn, not system(): forking this (sanitized, large) process for a
// shell would cost more than the rest of an iteration.
bool zstd_accepts(const fs::path& log) {
  const char* argv[] = {"zstd", "-q", "-t", log.c_str(), nullptr};
  pid_t pid = 0;
  if (::posix_spawnp(&pid, "zstd", nullptr, nullptr, const_cast<char* const*>(argv), environ) !=
      0) {
    die("cannot run zstd");
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

struct Totals {
  std::uint64_t acknowledged = 0;
  std::uint64_t torn = 0;
  std::uint64_t repaired = 0;
};

void run_iteration(const fs::path& log, unsigned seed, std::mt19937& random, Totals& totals) {
  int fds[2];
  if (::pipe(fds) != 0) die("pipe");
  const pid_t pid = ::fork();
  if (pid < 0) die("fork");
  if (pid == 0) {
    // The parent is single-threaded, so the forked child may run normally;
    // it never returns and is ended by SIGKILL.
    ::close(fds[0]);
    std::_Exit(run_child(log, fds[1], seed));
  }
  ::close(fds[1]);
  // Half the kills may land during start-up and recovery; the other half
  // wait for a first acknowledgement so they land while appending.
  std::set<Seq> acknowledged;
  if (random() % 2 == 0) {
    Seq first = 0;
    if (::read(fds[0], &first, sizeof first) == sizeof first) acknowledged.insert(first);
  }
  std::this_thread::sleep_for(std::chrono::microseconds(random() % 30'000));
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);

  Seq seq = 0;
  while (::read(fds[0], &seq, sizeof seq) == sizeof seq) acknowledged.insert(seq);
  ::close(fds[0]);
  totals.acknowledged += acknowledged.size();

  if (!fs::exists(log)) {
    // Killed while creating: the log appears only with its first event.
    if (!acknowledged.empty()) die("acknowledged events but no log");
    return;
  }
  auto before = read_file_bytes(log);
  if (!before) die(before.error().message);
  auto scan_before = scan_log(*before);
  if (!scan_before) die("before recovery: " + scan_before.error().message);
  if (scan_before->torn_tail) ++totals.torn;

  auto writer = LogWriter::open(log);
  if (!writer) die("recovery: " + writer.error().message);
  if ((*writer)->recovery().repaired()) ++totals.repaired;
  if (auto closed = (*writer)->close(); !closed) die(closed.error().message);

  auto after = read_file_bytes(log);
  if (!after) die(after.error().message);
  if (after->compare(0, scan_before->valid_bytes, *before, 0, scan_before->valid_bytes) != 0) {
    die("a complete event changed during recovery");
  }
  auto scan_after = scan_log(*after);
  if (!scan_after) die("after recovery: " + scan_after.error().message);
  if (scan_after->torn_tail) die("torn tail left after recovery");
  std::set<Seq> present;
  for (const auto& event : scan_after->events) present.insert(event.seq);
  for (Seq acked : acknowledged) {
    if (!present.contains(acked)) die("acknowledged seq " + std::to_string(acked) + " lost");
  }
  const Context context = rebuild_context(scan_after->events);
  if (!context.unpaired_calls.empty()) die("unpaired tool call " + context.unpaired_calls.front());
  if (!context.open_turn.empty()) die("open turn " + context.open_turn);
  std::set<std::string> results;
  for (const auto& event : scan_after->events) {
    if (const auto* result = std::get_if<ToolResult>(&event.body)) {
      if (!results.insert(result->call_id).second) die("two results for " + result->call_id);
    }
  }
  if (!zstd_accepts(log)) die("zstd -t rejects the log");
}

}  // namespace

int main(int argc, char** argv) {
  int iterations = 200;
  unsigned seed = std::random_device{}();
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--long")
      iterations = 5000;
    else if (arg == "--iterations" && i + 1 < argc)
      iterations = std::atoi(argv[++i]);
    else if (arg == "--seed" && i + 1 < argc)
      seed = static_cast<unsigned>(std::strtoul(argv[++i], nullptr, 10));
    else
      die("usage: ava_session_crash [--iterations N | --long] [--seed S]");
  }
  std::printf("crash test: seed %u, %d iterations\n", seed, iterations);
  std::mt19937 random(seed);
  char pattern[] = "/tmp/ava-crash-XXXXXX";
  if (::mkdtemp(pattern) == nullptr) die("mkdtemp");
  const fs::path dir = pattern;
  const fs::path log = dir / "crash.jsonl.zst";
  Totals totals;
  for (int i = 0; i < iterations; ++i) {
    // A fresh log every 25 kills keeps each recovery's scan short while still
    // recovering logs that earlier recoveries wrote.
    if (i % 25 == 0) fs::remove(log);
    run_iteration(log, random(), random, totals);
  }
  std::printf(
      "crash test: %llu acknowledged events checked, %llu recoveries repaired, %llu torn tails\n",
      static_cast<unsigned long long>(totals.acknowledged),
      static_cast<unsigned long long>(totals.repaired),
      static_cast<unsigned long long>(totals.torn));
  std::printf("%d passed, 0 failed\n", iterations);
  fs::remove_all(dir);
  return 0;
}
