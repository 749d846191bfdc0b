#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "ava/base/error.hpp"
#include "ava/session/event.hpp"
#include "ava/store/sqlite.hpp"

// One log's part of the index: reading what is new in it (no database, so
// it can run on another thread) and writing its rows and cursor (inside the
// caller's transaction).
namespace ava::analytics::detail {

// Where one log's indexing stands, kept in `logs`.
struct LogState {
  std::string session_id;
  std::int64_t last_seq = 0;
  std::string project;
  std::string provider;
  std::string model;  // the latest step's, for tool calls
  std::string parent;
  std::int64_t read_bytes = 0;  // end of the last complete frame read
  std::int64_t bytes = 0;       // the file's size when it was read
};

// Every log's state, by file name.
Result<std::map<std::string, LogState>> load_states(sqlite3* db);
// One log's state (a fresh one, named after the file, if it has none yet).
Result<LogState> load_state(sqlite3* db, const std::filesystem::path& log);

// A log's events after its cursor.
struct LogRead {
  std::filesystem::path path;
  LogState state;  // as it was before these events
  std::vector<session::Event> events;
  std::uint64_t consumed_bytes = 0;
};

// Reads from the cursor's byte offset; should that place be gone (the log
// was replaced by a shorter one), from the start: seqs already indexed are
// skipped either way.
Result<LogRead> read_new_events(const std::filesystem::path& log, LogState state);

// The index's insert statements, prepared once for many logs.
class RowWriter {
 public:
  static Result<RowWriter> prepare(sqlite3* db);
  // The log's rows and its new cursor; the number of events indexed.
  Result<int> write(LogRead& read);

 private:
  RowWriter(sqlite3* db, store::Statement turn_start, store::Statement turn_end,
            store::Statement step, store::Statement usage, store::Statement call,
            store::Statement result, store::Statement cursor)
      : db_(db),
        turn_start_(std::move(turn_start)),
        turn_end_(std::move(turn_end)),
        step_(std::move(step)),
        usage_(std::move(usage)),
        call_(std::move(call)),
        result_(std::move(result)),
        cursor_(std::move(cursor)) {}
  sqlite3* db_;
  store::Statement turn_start_, turn_end_, step_, usage_, call_, result_, cursor_;
};

}  // namespace ava::analytics::detail
