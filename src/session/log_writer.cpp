#include "ava/session/log_writer.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "ava/base/clock.hpp"
#include "ava/base/id.hpp"
#include "ava/session/codec.hpp"
#include "session/codec_paths.hpp"
#include "session/frame.hpp"
#include "session/json_writer.hpp"
#include "session/sys.hpp"

namespace ava::session {

namespace {

// Empties a reused buffer, keeping its memory unless one big record grew it:
// a writer should not hold megabytes for the rest of its life.
template <class Buffer>
void clear_keeping_small(Buffer& buffer) {
  constexpr std::size_t kKeepBytes = 256 * base::KiB;
  if (buffer.capacity() * sizeof(buffer[0]) > kKeepBytes) {
    Buffer().swap(buffer);
  } else {
    buffer.clear();
  }
}

}  // namespace

LogWriter::LogWriter(std::filesystem::path path, int fd, const WriterOptions& options, Seq next_seq)
    : path_(std::move(path)),
      fd_(fd),
      options_(options),
      encoder_(std::make_unique<FrameEncoder>()),
      next_seq_(next_seq),
      durable_seq_(next_seq - 1) {}

LogWriter::~LogWriter() { (void)close(); }

Result<std::unique_ptr<LogWriter>> LogWriter::create(const std::filesystem::path& path,
                                                     SessionStarted start,
                                                     const WriterOptions& options) {
  // The log appears under its name only once it holds its first event, so a
  // crash never leaves a log without session_start: write a temporary file,
  // then link it into place (link fails rather than replace an existing log).
  auto temporary = path;
  temporary += ".new-" + base::new_id();
  const int fd = ::open(temporary.c_str(), O_RDWR | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0) return base::fail_errno("create session log " + path.string(), errno);
  if (auto locked = lock_exclusive(fd, path); !locked) {
    ::close(fd);
    ::unlink(temporary.c_str());
    return std::unexpected(std::move(locked).error());
  }
  std::unique_ptr<LogWriter> writer(new LogWriter(path, fd, options, 1));
  auto first = writer->append(std::move(start));
  auto synced = first ? writer->sync() : Result<void>();
  const int linked = first && synced ? ::link(temporary.c_str(), path.c_str()) : -1;
  const int link_error = errno;
  ::unlink(temporary.c_str());
  if (!first) return std::unexpected(std::move(first).error());
  if (!synced) return std::unexpected(std::move(synced).error());
  if (linked != 0) return base::fail_errno("create session log " + path.string(), link_error);
  AVA_TRY_VOID(sync_directory(path.parent_path()));
  return writer;
}

Result<std::unique_ptr<LogWriter>> LogWriter::open(const std::filesystem::path& path,
                                                   const WriterOptions& options) {
  const int fd = ::open(path.c_str(), O_RDWR | O_APPEND | O_CLOEXEC);
  if (fd < 0) return base::fail_errno("open session log " + path.string(), errno);
  if (auto locked = lock_exclusive(fd, path); !locked) {
    ::close(fd);
    return std::unexpected(std::move(locked).error());
  }
  auto bytes = read_fd(fd);
  if (!bytes) {
    ::close(fd);
    return std::unexpected(std::move(bytes).error());
  }
  auto scan = scan_log(*bytes, {.max_record = options.max_record});
  if (!scan) {
    ::close(fd);
    return std::unexpected(std::move(scan).error().with_context(path.string()));
  }
  const Seq next = scan->events.empty() ? 1 : scan->events.back().seq + 1;
  std::unique_ptr<LogWriter> writer(new LogWriter(path, fd, options, next));
  writer->good_size_ = bytes->size();
  AVA_TRY_VOID(writer->recover(std::move(*scan), *bytes));
  return writer;
}

Result<void> LogWriter::recover(LogScan scan, std::string_view bytes) {
  std::string torn_name;
  if (scan.torn_tail) {
    const auto& torn = *scan.torn_tail;
    AVA_TRY(recovery_.torn_file, save_torn_bytes(path_, bytes.substr(torn.offset)));
    if (::ftruncate(fd_, static_cast<off_t>(torn.offset)) != 0) {
      return base::fail_errno("truncate torn tail of " + path_.string(), errno);
    }
    good_size_ = torn.offset;
    AVA_TRY_VOID(sync());
    recovery_.torn_tail = torn;
    torn_name = recovery_.torn_file.filename().string();
    recovery_.notes.push_back(fmt::format("cut {} torn bytes at offset {} ({}), saved to {}",
                                          torn.bytes, torn.offset, torn.reason, torn_name));
  }
  std::vector<EventBody> closers = plan_closers(scan.events, recovery_.notes);
  history_ = std::move(scan.events);
  if (!recovery_.repaired()) return {};

  std::vector<EventBody> repair;
  repair.emplace_back(Recovered{.dropped_bytes = scan.torn_tail ? scan.torn_tail->bytes : 0,
                                .torn_file = torn_name,
                                .notes = recovery_.notes});
  for (auto& closer : closers) repair.push_back(std::move(closer));
  const auto subscriber = subscribe([this](const Event& event) { history_.push_back(event); });
  auto appended = append_batch(std::move(repair));
  unsubscribe(subscriber);
  if (!appended) return std::unexpected(std::move(appended).error());
  return sync();
}

Result<Seq> LogWriter::append(EventBody body) { return append_bodies({&body, 1}); }

Result<Seq> LogWriter::append_batch(std::vector<EventBody> bodies) { return append_bodies(bodies); }

Result<Seq> LogWriter::append_bodies(std::span<EventBody> bodies) {
  if (bodies.empty()) return fail(ErrorCode::invalid_argument, "append of no events");
  std::unique_lock lock(mutex_);
  if (closed_) return fail(ErrorCode::conflict, "session log is closed: " + path_.string());
  if (failure_) return std::unexpected(*failure_);

  // Encode under the lock: seq order and byte order must agree.
  const std::int64_t now = base::unix_ms_now();
  const std::size_t bytes_before = pending_bytes_.size();
  const std::size_t events_before = pending_events_.size();
  Seq mine = 0;
  for (auto& body : bodies) {
    Event event{.seq = next_seq_, .ts_ms = now, .body = std::move(body)};
    auto framed = encode_bounded(event);
    if (!framed) {
      next_seq_ -= pending_events_.size() - events_before;
      pending_bytes_.resize(bytes_before);
      pending_events_.resize(events_before);
      return std::unexpected(std::move(framed).error());
    }
    mine = next_seq_++;
    pending_events_.push_back(std::move(*framed));
  }

  while (durable_seq_ < mine) {
    if (failure_) return std::unexpected(*failure_);
    if (writing_) {
      written_.wait(lock);
      continue;
    }
    // Become the leader: write everything pending, ours and others', at once.
    // Only the leader touches the flushing buffers; swapping keeps both
    // pairs' capacity, so a steady stream of appends allocates nothing here.
    writing_ = true;
    std::swap(pending_bytes_, flushing_bytes_);
    std::swap(pending_events_, flushing_events_);
    lock.unlock();
    auto wrote = write_all(flushing_bytes_);
    if (wrote) deliver(flushing_events_);
    const Seq last = flushing_events_.back().seq;
    if (wrote) {
      good_size_ += flushing_bytes_.size();
    } else {
      wrote = cut_back(std::move(wrote).error());
    }
    clear_keeping_small(flushing_bytes_);
    clear_keeping_small(flushing_events_);
    lock.lock();
    writing_ = false;
    if (wrote) {
      durable_seq_ = last;
    } else {
      failure_ = std::move(wrote).error();
      // What queued behind the failed write is refused with it: none of it
      // was acknowledged, and none of it will be written.
      pending_bytes_.clear();
      pending_events_.clear();
    }
    written_.notify_all();
  }
  return mine;
}

Result<Event> LogWriter::encode_bounded(Event& event) {
  std::string& line = line_;
  line.clear();
  append_event_line(event, line);
  if (line.size() > options_.max_record + 1) {
    nlohmann::json object = encode(event);
    if (!bound_record(object, options_.max_record)) {
      return fail(ErrorCode::limit_exceeded,
                  fmt::format("a {} event cannot be bounded to {} bytes", type_name(event.body),
                              options_.max_record));
    }
    AVA_TRY(auto bounded, decode(object));
    event = std::move(bounded);
    line.clear();
    write_json(object, line);
    line.push_back('\n');
  }
  auto framed = encoder_->encode(line, pending_bytes_);
  clear_keeping_small(line);
  if (!framed) return std::unexpected(std::move(framed).error());
  return std::move(event);
}

Result<void> LogWriter::write_all(const std::string& bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t wrote = ::write(fd_, bytes.data() + done, bytes.size() - done);
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote < 0) return base::fail_errno("write session log " + path_.string(), errno);
    done += static_cast<std::size_t>(wrote);
  }
  return {};
}

std::unexpected<Error> LogWriter::cut_back(Error failure) {
  // A full disk often takes part of a write: cut that part off, so the file
  // ends with the last acknowledged event rather than a torn frame.
  if (::ftruncate(fd_, static_cast<off_t>(good_size_)) != 0) {
    failure.message +=
        fmt::format("; its partial bytes could not be cut off ({}), reopening the log repairs it",
                    std::strerror(errno));
  }
  return std::unexpected(std::move(failure));
}

void LogWriter::deliver(const std::vector<Event>& events) {
  std::lock_guard lock(subscribers_mutex_);
  for (const auto& event : events) {
    for (const auto& [id, subscriber] : subscribers_) subscriber(event);
  }
}

Result<void> LogWriter::sync() {
  if (::fdatasync(fd_) == 0) return {};
  // After a failed fsync the kernel may have dropped the dirty pages: what
  // is on disk is unknown, so nothing more is acknowledged on top of it.
  auto failed = base::fail_errno("fsync session log " + path_.string(), errno);
  std::lock_guard lock(mutex_);
  if (!failure_) failure_ = failed.error();
  return failed;
}

Result<void> LogWriter::close() {
  {
    std::unique_lock lock(mutex_);
    if (closed_) return {};
    // Appends already encoded are written by their own threads first.
    written_.wait(lock, [this] { return !writing_ && pending_events_.empty(); });
    closed_ = true;
  }
  auto synced = sync();
  ::close(fd_);  // releases the flock
  fd_ = -1;
  return synced;
}

std::uint64_t LogWriter::subscribe(Subscriber subscriber) {
  std::lock_guard lock(subscribers_mutex_);
  const auto id = next_subscriber_++;
  subscribers_.emplace(id, std::move(subscriber));
  return id;
}

void LogWriter::unsubscribe(std::uint64_t id) {
  std::lock_guard lock(subscribers_mutex_);
  subscribers_.erase(id);
}

bool LogWriter::failed() const {
  std::lock_guard lock(mutex_);
  return failure_.has_value();
}

Seq LogWriter::last_seq() const {
  std::lock_guard lock(mutex_);
  return durable_seq_;
}

}  // namespace ava::session
