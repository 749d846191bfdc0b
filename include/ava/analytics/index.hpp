#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "ava/base/error.hpp"
#include "ava/base/home.hpp"
#include "ava/protocol/analytics.hpp"
#include "ava/store/database.hpp"

// AVA_HOME/analytics.sqlite3 (docs/analytics.md): an index derived from the
// session logs, never a second authority. Each log is read from where the
// index stopped (its last indexed seq) and its rows are written in the same
// transaction as the new cursor, so an update cut short (a SIGKILL, a torn
// tail) leaves the index as it was before it. rebuild() drops everything and
// reads every log again; it gives the same answers.
namespace ava::analytics {
namespace detail {
struct LogState;
}

// YYYY-MM-DD, the form of a filter's days.
bool is_day(std::string_view text);

struct Filter {
  std::optional<std::string> project;  // a project folder, or any folder inside one
  std::optional<std::string> model;
  std::optional<std::string> provider;
  std::optional<std::string> from_day;  // YYYY-MM-DD (UTC), inclusive
  std::optional<std::string> to_day;
};

// The summary is the API's shape (protocol/analytics.hpp) itself: the index
// answers what `GET /api/analytics` and `ava analytics --json` print.
using UsageRow = protocol::UsageBucket;
using ToolRow = protocol::ToolStats;
using Summary = protocol::AnalyticsSummary;

struct UpdateReport {
  int logs_read = 0;  // logs with new events
  int events_indexed = 0;
  int logs_skipped = 0;  // unreadable now (tried again next time)
};

class Index {
 public:
  static constexpr int schema_version = 3;
  static std::filesystem::path file_of(const base::Home& home);
  static Result<Index> open(const base::Home& home);
  static Result<Index> open_file(const std::filesystem::path& file, std::filesystem::path sessions);

  // Reads what is new in every log under the sessions folder.
  Result<UpdateReport> update();
  // Reads what is new in one log (after a turn ends there); the number of
  // events indexed.
  Result<int> update_log(const std::filesystem::path& log);
  // Drops every row and reads every log again.
  Result<UpdateReport> rebuild();
  Result<Summary> summary(const Filter& filter) const;

 private:
  Index(store::Database db, std::filesystem::path sessions)
      : db_(std::move(db)), sessions_(std::move(sessions)) {}
  Result<UpdateReport> index_logs(
      std::vector<std::pair<std::filesystem::path, detail::LogState>> pending);

  store::Database db_;
  std::filesystem::path sessions_;
};

}  // namespace ava::analytics
