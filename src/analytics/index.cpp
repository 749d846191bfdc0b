#include "ava/analytics/index.hpp"

#include <time.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <system_error>

#include <fmt/format.h>

#include "ava/llm/catalog.hpp"
#include "ava/prompts/project_context.hpp"
#include "ava/session/follower.hpp"
#include "ava/store/sqlite.hpp"

namespace ava::analytics {
namespace {

namespace fs = std::filesystem;
using store::Statement;

constexpr std::size_t read_chunk = std::size_t{1} << 20;

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

std::string day_of(std::int64_t ms) {
  const std::time_t seconds = static_cast<std::time_t>(ms / 1000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  return fmt::format("{:04}-{:02}-{:02}", utc.tm_year + 1900, utc.tm_mon + 1, utc.tm_mday);
}

// Where one log's indexing stands, kept in `logs`.
struct LogState {
  std::string session_id;
  std::int64_t last_seq = 0;
  std::string project;
  std::string provider;
  std::string model;  // the latest step's, for tool calls
  std::string parent;
  std::int64_t read_bytes = 0;  // end of the last complete frame read
};

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
                   fmt::format("SELECT {0}, SUM(input), SUM(output), SUM(cache_read), "
                               "SUM(cache_write), COUNT(*), SUM(cost_usd) FROM steps{1} GROUP BY "
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

fs::path Index::file_of(const base::Home& home) { return home.file("analytics.sqlite3"); }

Result<Index> Index::open(const base::Home& home) {
  return open_file(file_of(home), home.sessions());
}

Result<Index> Index::open_file(const fs::path& file, fs::path sessions) {
  static constexpr const char* migrations[] = {schema_v1, schema_v2};
  static_assert(std::size(migrations) == schema_version);
  AVA_TRY(auto db, store::open_database(file, migrations));
  return Index(std::move(db), std::move(sessions));
}

Result<UpdateReport> Index::update() {
  UpdateReport report;
  std::error_code ec;
  // What each log held when it was last read: an unchanged size is skipped.
  std::map<std::string, std::int64_t> known;
  {
    AVA_TRY(auto query, Statement::prepare(db_.get(), "SELECT file, bytes FROM logs"));
    for (;;) {
      AVA_TRY(bool row, query.step());
      if (!row) break;
      known[query.text(0)] = query.integer(1);
    }
  }
  for (const auto& entry : fs::directory_iterator(sessions_, ec)) {
    const std::string name = entry.path().filename().string();
    if (!name.ends_with(".jsonl.zst") || !entry.is_regular_file(ec)) continue;
    const auto size = static_cast<std::int64_t>(entry.file_size(ec));
    if (const auto it = known.find(name); it != known.end() && it->second == size) continue;
    auto indexed = index_log(entry.path());
    if (!indexed) {
      ++report.logs_skipped;
      continue;
    }
    if (*indexed > 0) ++report.logs_read;
    report.events_indexed += *indexed;
  }
  return report;
}

Result<UpdateReport> Index::rebuild() {
  AVA_TRY(auto transaction, store::Transaction::begin(db_.get()));
  AVA_TRY_VOID(store::exec(db_.get(),
                           "DELETE FROM logs; DELETE FROM turns; DELETE FROM steps; DELETE FROM "
                           "tool_calls;"));
  AVA_TRY_VOID(transaction.commit());
  return update();
}

Result<int> Index::index_log(const fs::path& log) {
  std::error_code ec;
  const auto bytes = static_cast<std::int64_t>(fs::file_size(log, ec));
  const std::string file = log.filename().string();
  LogState state{.session_id = file.substr(0, file.find('.'))};
  {
    AVA_TRY(auto query,
            Statement::prepare(db_.get(),
                               "SELECT last_seq, project, provider, model, parent, read_bytes "
                               "FROM logs WHERE session_id = ?1"));
    query.bind(1, state.session_id);
    AVA_TRY(bool row, query.step());
    if (row) {
      state.last_seq = query.integer(0);
      state.project = query.text(1);
      state.provider = query.text(2);
      state.model = query.text(3);
      state.parent = query.text(4);
      state.read_bytes = query.integer(5);
    }
  }
  // From where the last update stopped; should that place be gone (the log
  // was replaced by a shorter one), from the start: seqs already indexed are
  // skipped either way.
  std::unique_ptr<session::LogFollower> follower;
  std::vector<session::Event> events;
  auto read_new = [&](std::uint64_t offset) -> Result<void> {
    events.clear();
    AVA_TRY(follower,
            session::LogFollower::open_at(log, static_cast<session::Seq>(state.last_seq), offset));
    do {
      AVA_TRY(auto more, follower->poll(read_chunk));
      for (auto& event : more) events.push_back(std::move(event));
    } while (follower->has_unread());
    return {};
  };
  if (auto read = read_new(static_cast<std::uint64_t>(state.read_bytes)); !read) {
    if (state.read_bytes == 0) return std::unexpected(std::move(read).error());
    AVA_TRY_VOID(read_new(0));
  }

  // The new rows and the cursor in one transaction: all or nothing.
  AVA_TRY(auto transaction, store::Transaction::begin(db_.get()));
  AVA_TRY(auto turn_start,
          Statement::prepare(db_.get(),
                             "INSERT OR IGNORE INTO turns(session_id, turn_id, "
                             "project, day, started_ms) VALUES(?1, ?2, ?3, ?4, ?5)"));
  AVA_TRY(auto turn_end, Statement::prepare(db_.get(),
                                            "UPDATE turns SET ended_ms = ?3, reason = ?4 WHERE "
                                            "session_id = ?1 AND turn_id = ?2"));
  AVA_TRY(auto step,
          Statement::prepare(
              db_.get(),
              "INSERT OR IGNORE INTO steps(session_id, seq, project, day, model, "
              "provider, input, output, cache_read, cache_write, cost_usd, "
              "first_token_ms, turn_id) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, "
              "?12, ?13)"));
  AVA_TRY(auto call,
          Statement::prepare(db_.get(),
                             "INSERT OR IGNORE INTO tool_calls(session_id, call_id, project, day, "
                             "model, provider, tool, status, called_ms) VALUES(?1, ?2, ?3, ?4, ?5, "
                             "?6, ?7, 'pending', ?8)"));
  AVA_TRY(auto result, Statement::prepare(db_.get(),
                                          "UPDATE tool_calls SET status = ?3, ended_ms = ?4, "
                                          "tool = CASE WHEN tool = '' THEN ?5 ELSE tool END "
                                          "WHERE session_id = ?1 AND call_id = ?2"));
  int indexed = 0;
  for (const auto& event : events) {
    ++indexed;
    state.last_seq = static_cast<std::int64_t>(event.seq);
    const std::string day = day_of(event.ts_ms);
    if (const auto* start = std::get_if<session::SessionStarted>(&event.body)) {
      if (!start->session_id.empty()) state.session_id = start->session_id;
      state.project = prompts::repository_root(start->cwd).string();
      state.provider = start->provider;
      state.model = start->model;
      state.parent = start->parent_session_id;
    } else if (const auto* changed = std::get_if<session::ModelChanged>(&event.body)) {
      if (!changed->provider.empty()) state.provider = changed->provider;
      state.model = changed->model;
    } else if (const auto* started = std::get_if<session::TurnStarted>(&event.body)) {
      turn_start.bind(1, state.session_id)
          .bind(2, started->turn_id)
          .bind(3, state.project)
          .bind(4, day)
          .bind(5, event.ts_ms);
      AVA_TRY_VOID(turn_start.run());
    } else if (const auto* ended = std::get_if<session::TurnEnded>(&event.body)) {
      turn_end.bind(1, state.session_id)
          .bind(2, ended->turn_id)
          .bind(3, event.ts_ms)
          .bind(4, std::string(session::to_string(ended->reason)));
      AVA_TRY_VOID(turn_end.run());
    } else if (const auto* usage = std::get_if<session::UsageRecorded>(&event.body)) {
      // A subagent's tokens are counted from its own log, step by step.
      if (!usage->subagent.empty()) continue;
      if (!usage->model.empty()) state.model = usage->model;
      const double cost = llm::cost_usd(llm::model_info(usage->model), usage->usage);
      step.bind(1, state.session_id)
          .bind(2, static_cast<std::int64_t>(event.seq))
          .bind(3, state.project)
          .bind(4, day)
          .bind(5, usage->model)
          .bind(6, state.provider)
          .bind(7, usage->usage.input_tokens)
          .bind(8, usage->usage.output_tokens)
          .bind(9, usage->usage.cache_read_tokens)
          .bind(10, usage->usage.cache_write_tokens)
          .bind(11, cost)
          .bind(12, usage->first_token_ms)
          .bind(13, usage->turn_id);
      AVA_TRY_VOID(step.run());
    } else if (const auto* message = std::get_if<session::AssistantMessage>(&event.body)) {
      for (const auto& block : message->content) {
        const auto* tool_call = std::get_if<content::ToolCallBlock>(&block);
        if (!tool_call) continue;
        call.bind(1, state.session_id)
            .bind(2, tool_call->id)
            .bind(3, state.project)
            .bind(4, day)
            .bind(5, state.model)
            .bind(6, state.provider)
            .bind(7, tool_call->name)
            .bind(8, event.ts_ms);
        AVA_TRY_VOID(call.run());
      }
    } else if (const auto* tool_result = std::get_if<session::ToolResult>(&event.body)) {
      result.bind(1, state.session_id)
          .bind(2, tool_result->call_id)
          .bind(3, std::string(session::to_string(tool_result->status)))
          .bind(4, event.ts_ms)
          .bind(5, tool_result->tool_name);
      AVA_TRY_VOID(result.run());
    }
  }
  AVA_TRY(auto cursor,
          Statement::prepare(
              db_.get(),
              "INSERT INTO logs(session_id, file, bytes, last_seq, project, provider, "
              "model, parent, read_bytes) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9) "
              "ON CONFLICT(session_id) DO UPDATE SET file = ?2, bytes = ?3, last_seq = "
              "?4, project = ?5, provider = ?6, model = ?7, parent = ?8, read_bytes = ?9"));
  cursor.bind(1, state.session_id)
      .bind(2, log.filename().string())
      .bind(3, bytes)
      .bind(4, state.last_seq)
      .bind(5, state.project)
      .bind(6, state.provider)
      .bind(7, state.model)
      .bind(8, state.parent)
      .bind(9, static_cast<std::int64_t>(follower->consumed_bytes()));
  AVA_TRY_VOID(cursor.run());
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
