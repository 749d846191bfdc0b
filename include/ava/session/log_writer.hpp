#pragma once

#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ava/base/error.hpp"
#include "ava/base/limits.hpp"
#include "ava/session/event.hpp"
#include "ava/session/log_reader.hpp"

namespace ava::session {

class FrameEncoder;

struct WriterOptions {
  std::size_t max_record = base::Limits::defaults().session_record;
};

// What opening an existing log found and repaired.
struct RecoveryReport {
  std::optional<TornTail> torn_tail;  // cut off and moved to `torn_file`
  std::filesystem::path torn_file;
  std::vector<std::string> notes;  // one line per repair, also in the recovered event
  bool repaired() const { return torn_tail.has_value() || !notes.empty(); }
};

// The single writer of one session log. `append()` returns once the event's
// bytes were written to the kernel: the acknowledgement point. Appends from
// several threads that arrive while a write is in flight share the next
// write (group commit). A failed write or fsync poisons the writer: nothing
// after it is acknowledged, and reopening the log recovers. A failed write is
// cut back off the file first, so the log stays a sequence of complete
// events even on a full disk.
class LogWriter {
 public:
  // Creates a new log (the file must not exist) whose first event is `start`.
  static Result<std::unique_ptr<LogWriter>> create(const std::filesystem::path& path,
                                                   SessionStarted start,
                                                   const WriterOptions& options = {});
  // Opens an existing log: takes the lock, cuts a torn tail (moving its bytes
  // to <log>.torn-<n>), and appends a recovered event plus the closers of any
  // open turn, step and tool call. Complete events are never rewritten.
  static Result<std::unique_ptr<LogWriter>> open(const std::filesystem::path& path,
                                                 const WriterOptions& options = {});

  ~LogWriter();
  LogWriter(const LogWriter&) = delete;
  LogWriter& operator=(const LogWriter&) = delete;

  // Appends one event / several events in one write; returns the last seq.
  Result<Seq> append(EventBody body);
  Result<Seq> append_batch(std::vector<EventBody> bodies);
  // fsync: at turn boundaries and on close.
  Result<void> sync();
  // Syncs and releases the lock; later appends fail. Also run by the destructor.
  Result<void> close();

  // Durable events in seq order, delivered on the writing thread right after
  // their bytes reached the kernel. A subscriber must be quick and must not
  // append (post the work elsewhere instead).
  using Subscriber = std::function<void(const Event&)>;
  std::uint64_t subscribe(Subscriber subscriber);
  void unsubscribe(std::uint64_t id);

  // Events read when the log was opened (and those recovery appended), for
  // rebuilding context; empty for a new log after the first take.
  std::vector<Event> take_history() { return std::move(history_); }
  const RecoveryReport& recovery() const { return recovery_; }
  Seq last_seq() const;
  // A write or fsync failed: appends are refused until the log is reopened.
  bool failed() const;
  const std::filesystem::path& path() const { return path_; }

 private:
  LogWriter(std::filesystem::path path, int fd, const WriterOptions& options, Seq next_seq);
  // `bytes` is the file as scanned; the torn tail is saved from it.
  Result<void> recover(LogScan scan, std::string_view bytes);
  Result<Seq> append_bodies(std::span<EventBody> bodies);
  // Encodes one event into pending_bytes_, bounding its record size; returns
  // the event as stored (truncated if it had to be).
  Result<Event> encode_bounded(Event& event);
  Result<void> write_all(const std::string& bytes);
  // After a failed write: truncates the file to good_size_; returns `failure`.
  std::unexpected<Error> cut_back(Error failure);
  void deliver(const std::vector<Event>& events);

  std::filesystem::path path_;
  int fd_;
  WriterOptions options_;
  std::unique_ptr<FrameEncoder> encoder_;

  mutable std::mutex mutex_;
  std::condition_variable written_;
  Seq next_seq_;
  Seq durable_seq_;
  bool writing_ = false;
  bool closed_ = false;
  std::optional<Error> failure_;
  // The file's size after the last complete write: where a failed write is
  // cut back to. Touched only by the thread with writing_ set.
  std::uint64_t good_size_ = 0;
  std::string pending_bytes_;
  std::vector<Event> pending_events_;
  // What the current leader writes; touched only by the thread with writing_ set.
  std::string flushing_bytes_;
  std::vector<Event> flushing_events_;
  std::string line_;  // encoding scratch, under mutex_

  std::mutex subscribers_mutex_;
  std::map<std::uint64_t, Subscriber> subscribers_;
  std::uint64_t next_subscriber_ = 1;

  std::vector<Event> history_;
  RecoveryReport recovery_;
};

// The closers recovery appends for a log whose last events are `events`:
// results for unpaired tool calls (the first of a step `interrupted`, the
// rest `skipped`: tools run in order), then the open step's and turn's ends.
// A turn paused at a complete step boundary is left open: it resumes later.
std::vector<EventBody> plan_closers(const std::vector<Event>& events,
                                    std::vector<std::string>& notes);

// Cuts the longest strings of an encoded event until its JSON line fits in
// `limit` bytes, each cut ending in an explicit marker. False if it cannot fit.
bool bound_record(nlohmann::json& object, std::size_t limit);

}  // namespace ava::session
