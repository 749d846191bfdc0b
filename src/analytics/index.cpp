#include "ava/analytics/index.hpp"

#include <time.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>

#include <fmt/format.h>

#include "analytics/log_rows.hpp"
#include "ava/store/sqlite.hpp"

namespace ava::analytics {
namespace {

namespace fs = std::filesystem;
using store::Statement;

constexpr const char* schema_v1 = R"sql(
CREATE TABLE logs(
  session_id TEXT PRIMARY KEY,
  file TEXT NOT NULL,
  bytes INTEGER NOT NULL,
  last_seq INTEGER NOT NULL,
  project TEXT NOT NULL DEFAULT '',
  provider TEXT NOT NULL DEFAULT '',
  model TEXT NOT NULL DEFAULT '',
  parent TEXT NOT NULL DEFAULT '');
CREATE TABLE turns(
  session_id TEXT NOT NULL,
  turn_id TEXT NOT NULL,
  project TEXT NOT NULL,
  day TEXT NOT NULL,
  started_ms INTEGER NOT NULL,
  ended_ms INTEGER NOT NULL DEFAULT 0,
  reason TEXT NOT NULL DEFAULT '',
  PRIMARY KEY(session_id, turn_id));
CREATE TABLE steps(
  session_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  turn_id TEXT NOT NULL,
  project TEXT NOT NULL,
  day TEXT NOT NULL,
  model TEXT NOT NULL,
  provider TEXT NOT NULL,
  input INTEGER NOT NULL,
  output INTEGER NOT NULL,
  cache_read INTEGER NOT NULL,
  cache_write INTEGER NOT NULL,
  cost_usd REAL NOT NULL,
  first_token_ms INTEGER NOT NULL,
  PRIMARY KEY(session_id, seq));
CREATE TABLE tool_calls(
  session_id TEXT NOT NULL,
  call_id TEXT NOT NULL,
  project TEXT NOT NULL,
  day TEXT NOT NULL,
  model TEXT NOT NULL,
  provider TEXT NOT NULL,
  tool TEXT NOT NULL,
  status TEXT NOT NULL,
  called_ms INTEGER NOT NULL,
  ended_ms INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY(session_id, call_id));
PRAGMA user_version = 1;
)sql";

// Logs read on the reader thread, waiting to be written: bounded, so a
// fast reader does not hold every log's events at once.
class ReadQueue {
 public:
  using Item = Result<detail::LogRead>;
  // false once the writer has stopped taking logs.
  bool push(Item item) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return items_.size() < capacity || cancelled_; });
    if (cancelled_) return false;
    items_.push_back(std::move(item));
    changed_.notify_all();
    return true;
  }
  void close() {
    std::lock_guard lock(mutex_);
    closed_ = true;
    changed_.notify_all();
  }
  void cancel() {
    std::lock_guard lock(mutex_);
    cancelled_ = true;
    changed_.notify_all();
  }
  // The next log; nullopt when the reader has read them all.
  std::optional<Item> pop() {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return !items_.empty() || closed_; });
    if (items_.empty()) return std::nullopt;
    Item item = std::move(items_.front());
    items_.pop_front();
    changed_.notify_all();
    return item;
  }

 private:
  static constexpr std::size_t capacity = 64;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Item> items_;
  bool closed_ = false;
  bool cancelled_ = false;
};

constexpr int batch_max_logs = 256;
constexpr int batch_max_events = 100'000;

// One filter as bound SQL: the fragment is fixed text, the values bound.
struct Where {
  std::string sql;
  std::vector<std::string> values;
  void add(const char* column, const std::optional<std::string>& value, const char* op = "=") {
    if (!value) return;
    sql += fmt::format(" AND {} {} ?{}", column, op, values.size() + 1);
    values.push_back(*value);
  }
  // The project a folder belongs to: its own row, or the project whose
  // folder holds it, compared whole path components at a time.
  void add_folder(const std::optional<std::string>& folder) {
    if (!folder) return;
    const auto n = values.size() + 1;
    sql += fmt::format(
        " AND (project = ?{0} OR substr(?{0}, 1, length(project) + 1) = project || '/')", n);
    values.push_back(*folder);
  }
};

Where where_of(const Filter& filter, bool has_model) {
  Where where{.sql = " WHERE 1 = 1"};
  where.add_folder(filter.project);
  if (has_model) {
    where.add("model", filter.model);
    where.add("provider", filter.provider);
  }
  where.add("day", filter.from_day, ">=");
  where.add("day", filter.to_day, "<=");
  return where;
}

Result<Statement> prepared(sqlite3* db, const std::string& sql, const Where& where) {
  AVA_TRY(auto query, Statement::prepare(db, sql.c_str()));
  for (std::size_t i = 0; i < where.values.size(); ++i) {
    query.bind(static_cast<int>(i + 1), where.values[i]);
  }
  return query;
}

Result<std::vector<UsageRow>> usage_by(sqlite3* db, const char* column, const Where& where) {
  AVA_TRY(auto query,
          prepared(db,
                   fmt::format(
                       "SELECT {0}, SUM(input), SUM(output), SUM(cache_read), "
                       "SUM(cache_write), SUM(steps), SUM(cost_usd) FROM usage_daily{1} GROUP BY "
                       "{0} ORDER BY {0}",
                       column, where.sql),
                   where));
  std::vector<UsageRow> rows;
  for (;;) {
    AVA_TRY(bool row, query.step());
    if (!row) break;
    rows.push_back({.key = query.text(0),
                    .input_tokens = query.integer(1),
                    .output_tokens = query.integer(2),
                    .cache_read_tokens = query.integer(3),
                    .cache_write_tokens = query.integer(4),
                    .steps = query.integer(5),
                    .cost_usd = query.real(6)});
  }
  return rows;
}

}  // namespace

bool is_day(std::string_view text) {
  if (text.size() != 10 || text[4] != '-' || text[7] != '-') return false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (i != 4 && i != 7 && (text[i] < '0' || text[i] > '9')) return false;
  }
  const auto number = [&](std::size_t at, std::size_t length) {
    int value = 0;
    for (std::size_t i = at; i < at + length; ++i) value = value * 10 + (text[i] - '0');
    return value;
  };
  const std::chrono::year_month_day day{std::chrono::year{number(0, 4)},
                                        std::chrono::month{static_cast<unsigned>(number(5, 2))},
                                        std::chrono::day{static_cast<unsigned>(number(8, 2))}};
  return day.ok();
}

// Where each log's reading stopped, in bytes, so an update decodes only the
// new frames (version 1 decoded every log from its start).
constexpr const char* schema_v2 = R"sql(
ALTER TABLE logs ADD COLUMN read_bytes INTEGER NOT NULL DEFAULT 0;
PRAGMA user_version = 2;
)sql";

// Usage by day, project, model and provider, kept beside the steps as they
// are written: the summary reads a few thousand rows instead of grouping
// every step four times (docs/performance.md).
constexpr const char* schema_v3 = R"sql(
CREATE TABLE usage_daily(
  day TEXT NOT NULL,
  project TEXT NOT NULL,
  model TEXT NOT NULL,
  provider TEXT NOT NULL,
  input INTEGER NOT NULL,
  output INTEGER NOT NULL,
  cache_read INTEGER NOT NULL,
  cache_write INTEGER NOT NULL,
  steps INTEGER NOT NULL,
  cost_usd REAL NOT NULL,
  PRIMARY KEY(day, project, model, provider));
INSERT INTO usage_daily SELECT day, project, model, provider, SUM(input), SUM(output),
  SUM(cache_read), SUM(cache_write), COUNT(*), SUM(cost_usd) FROM steps
  GROUP BY day, project, model, provider;
PRAGMA user_version = 3;
)sql";

fs::path Index::file_of(const base::Home& home) { return home.file("analytics.sqlite3"); }

Result<Index> Index::open(const base::Home& home) {
  return open_file(file_of(home), home.sessions());
}

Result<Index> Index::open_file(const fs::path& file, fs::path sessions) {
  static constexpr const char* migrations[] = {schema_v1, schema_v2, schema_v3};
  static_assert(std::size(migrations) == schema_version);
  AVA_TRY(auto db, store::open_database(file, migrations));
  return Index(std::move(db), std::move(sessions));
}

Result<UpdateReport> Index::update() {
  AVA_TRY(auto states, detail::load_states(db_.get()));
  std::vector<std::pair<fs::path, detail::LogState>> pending;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(sessions_, ec)) {
    const std::string name = entry.path().filename().string();
    if (!name.ends_with(".jsonl.zst") || !entry.is_regular_file(ec)) continue;
    // What each log held when it was last read: an unchanged size is skipped.
    const auto size = static_cast<std::int64_t>(entry.file_size(ec));
    const auto known = states.find(name);
    if (known != states.end() && known->second.bytes == size) continue;
    pending.emplace_back(entry.path(),
                         known != states.end()
                             ? std::move(known->second)
                             : detail::LogState{.session_id = name.substr(0, name.find('.'))});
  }
  return index_logs(std::move(pending));
}

Result<UpdateReport> Index::index_logs(std::vector<std::pair<fs::path, detail::LogState>> pending) {
  UpdateReport report;
  if (pending.empty()) return report;
  // Decoding a log (zstd, JSON) and inserting its rows take about as long as
  // each other, so a second thread reads the next logs while this one writes.
  ReadQueue queue;
  std::jthread reader([&queue, pending = std::move(pending)]() mutable {
    for (auto& [path, state] : pending) {
      if (!queue.push(detail::read_new_events(path, std::move(state)))) return;
    }
    queue.close();
  });
  struct Stop {
    ReadQueue& queue;
    ~Stop() { queue.cancel(); }  // before the reader is joined: it may wait to push
  } stop{queue};

  AVA_TRY(auto writer, detail::RowWriter::prepare(db_.get()));
  std::optional<store::Transaction> transaction;
  int batch_logs = 0, batch_events = 0;
  while (auto read = queue.pop()) {
    if (!*read) {
      ++report.logs_skipped;  // unreadable now, tried again next time
      continue;
    }
    if (!transaction) {
      AVA_TRY(auto begun, store::Transaction::begin(db_.get()));
      transaction.emplace(std::move(begun));
    }
    AVA_TRY(const int indexed, writer.write(**read));
    if (indexed > 0) ++report.logs_read;
    report.events_indexed += indexed;
    batch_events += indexed;
    // Each log's rows and cursor commit together; several logs share a
    // commit, which is the cost of a write.
    if (++batch_logs >= batch_max_logs || batch_events >= batch_max_events) {
      AVA_TRY_VOID(transaction->commit());
      transaction.reset();
      batch_logs = batch_events = 0;
    }
  }
  if (transaction) AVA_TRY_VOID(transaction->commit());
  return report;
}

Result<UpdateReport> Index::rebuild() {
  AVA_TRY(auto transaction, store::Transaction::begin(db_.get()));
  AVA_TRY_VOID(store::exec(db_.get(),
                           "DELETE FROM logs; DELETE FROM turns; DELETE FROM steps; DELETE FROM "
                           "tool_calls; DELETE FROM usage_daily;"));
  AVA_TRY_VOID(transaction.commit());
  return update();
}

Result<int> Index::update_log(const fs::path& log) {
  AVA_TRY(auto state, detail::load_state(db_.get(), log));
  AVA_TRY(auto read, detail::read_new_events(log, std::move(state)));
  AVA_TRY(auto writer, detail::RowWriter::prepare(db_.get()));
  AVA_TRY(auto transaction, store::Transaction::begin(db_.get()));
  AVA_TRY(const int indexed, writer.write(read));
  AVA_TRY_VOID(transaction.commit());
  return indexed;
}

Result<Summary> Index::summary(const Filter& filter) const {
  Summary out;
  const Where with_model = where_of(filter, true);
  const Where without_model = where_of(filter, false);
  AVA_TRY(out.by_day, usage_by(db_.get(), "day", with_model));
  AVA_TRY(out.by_project, usage_by(db_.get(), "project", with_model));
  AVA_TRY(out.by_model, usage_by(db_.get(), "model", with_model));
  AVA_TRY(out.by_provider, usage_by(db_.get(), "provider", with_model));
  for (const auto& row : out.by_day) {
    out.input_tokens += row.input_tokens;
    out.output_tokens += row.output_tokens;
    out.cache_read_tokens += row.cache_read_tokens;
    out.cache_write_tokens += row.cache_write_tokens;
    out.steps += row.steps;
    out.cost_usd += row.cost_usd;
  }
  const auto read = out.input_tokens + out.cache_read_tokens;
  out.cache_hit_ratio = read > 0 ? static_cast<double>(out.cache_read_tokens) / read : 0;
  {
    // Turns know no model (one may change it midway): with a model or
    // provider chosen, a turn counts when one of its steps used it.
    const bool by_model = filter.model || filter.provider;
    AVA_TRY(auto query, by_model
                            ? prepared(db_.get(),
                                       "SELECT COUNT(DISTINCT session_id || ' ' || turn_id), "
                                       "COUNT(DISTINCT session_id) FROM steps" +
                                           with_model.sql,
                                       with_model)
                            : prepared(db_.get(),
                                       "SELECT COUNT(*), COUNT(DISTINCT session_id) FROM turns" +
                                           without_model.sql,
                                       without_model));
    AVA_TRY(bool row, query.step());
    if (row) {
      out.turns = query.integer(0);
      out.sessions = query.integer(1);
    }
  }
  {
    AVA_TRY(auto query, prepared(db_.get(),
                                 "SELECT first_token_ms FROM steps" + with_model.sql +
                                     " AND first_token_ms > 0 ORDER BY first_token_ms",
                                 with_model));
    std::vector<std::int64_t> times;
    for (;;) {
      AVA_TRY(bool row, query.step());
      if (!row) break;
      times.push_back(query.integer(0));
    }
    if (!times.empty()) out.median_first_token_ms = times[times.size() / 2];
  }
  {
    AVA_TRY(auto query,
            prepared(db_.get(),
                     "SELECT tool, COUNT(*), SUM(status = 'error'), SUM(status IN ('interrupted', "
                     "'skipped')), AVG(CASE WHEN ended_ms > 0 THEN ended_ms - called_ms END) "
                     "FROM tool_calls" +
                         with_model.sql + " GROUP BY tool ORDER BY COUNT(*) DESC, tool",
                     with_model));
    for (;;) {
      AVA_TRY(bool row, query.step());
      if (!row) break;
      out.tools.push_back({.tool = query.text(0),
                           .calls = query.integer(1),
                           .errors = query.integer(2),
                           .interrupted = query.integer(3),
                           .mean_ms = query.real(4)});
      out.tool_calls += out.tools.back().calls;
    }
  }
  return out;
}

}  // namespace ava::analytics
