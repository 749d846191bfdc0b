// Reading a log's new events and writing its rows: one log's part of the
// index (log_rows.hpp).
#include "analytics/log_rows.hpp"

#include <time.h>

#include <fmt/format.h>

#include "ava/llm/catalog.hpp"
#include "ava/prompts/project_context.hpp"
#include "ava/session/follower.hpp"

namespace ava::analytics::detail {
namespace fs = std::filesystem;
using store::Statement;

namespace {

constexpr std::size_t read_chunk = std::size_t{1} << 20;

std::string day_of(std::int64_t ms) {
  const std::time_t seconds = static_cast<std::time_t>(ms / 1000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  return fmt::format("{:04}-{:02}-{:02}", utc.tm_year + 1900, utc.tm_mon + 1, utc.tm_mday);
}

constexpr const char* select_state =
    "SELECT file, last_seq, project, provider, model, parent, read_bytes, bytes, session_id "
    "FROM logs";

LogState state_of(Statement& query) {
  return {.session_id = query.text(8),
          .last_seq = query.integer(1),
          .project = query.text(2),
          .provider = query.text(3),
          .model = query.text(4),
          .parent = query.text(5),
          .read_bytes = query.integer(6),
          .bytes = query.integer(7)};
}

std::string session_of(const fs::path& log) {
  const std::string file = log.filename().string();
  return file.substr(0, file.find('.'));
}

}  // namespace

Result<std::map<std::string, LogState>> load_states(sqlite3* db) {
  std::map<std::string, LogState> states;
  AVA_TRY(auto query, Statement::prepare(db, select_state));
  for (;;) {
    AVA_TRY(bool row, query.step());
    if (!row) break;
    states[query.text(0)] = state_of(query);
  }
  return states;
}

Result<LogState> load_state(sqlite3* db, const fs::path& log) {
  AVA_TRY(auto query,
          Statement::prepare(db, (std::string(select_state) + " WHERE session_id = ?1").c_str()));
  query.bind(1, session_of(log));
  AVA_TRY(bool row, query.step());
  if (row) return state_of(query);
  return LogState{.session_id = session_of(log)};
}

Result<LogRead> read_new_events(const fs::path& log, LogState state) {
  std::error_code ec;
  LogRead read{.path = log, .state = std::move(state)};
  const auto bytes = static_cast<std::int64_t>(fs::file_size(log, ec));
  if (ec) return fail(ErrorCode::io, fmt::format("cannot read {}: {}", log.string(), ec.message()));
  auto read_from = [&](std::uint64_t offset) -> Result<void> {
    read.events.clear();
    AVA_TRY(auto follower, session::LogFollower::open_at(
                               log, static_cast<session::Seq>(read.state.last_seq), offset));
    do {
      AVA_TRY(auto more, follower->poll(read_chunk));
      for (auto& event : more) read.events.push_back(std::move(event));
    } while (follower->has_unread());
    read.consumed_bytes = follower->consumed_bytes();
    return {};
  };
  if (auto first = read_from(static_cast<std::uint64_t>(read.state.read_bytes)); !first) {
    if (read.state.read_bytes == 0) return std::unexpected(std::move(first).error());
    AVA_TRY_VOID(read_from(0));
  }
  read.state.bytes = bytes;
  return read;
}

Result<RowWriter> RowWriter::prepare(sqlite3* db) {
  AVA_TRY(auto turn_start,
          Statement::prepare(db,
                             "INSERT OR IGNORE INTO turns(session_id, turn_id, "
                             "project, day, started_ms) VALUES(?1, ?2, ?3, ?4, ?5)"));
  AVA_TRY(auto turn_end, Statement::prepare(db,
                                            "UPDATE turns SET ended_ms = ?3, reason = ?4 WHERE "
                                            "session_id = ?1 AND turn_id = ?2"));
  AVA_TRY(auto step,
          Statement::prepare(
              db,
              "INSERT OR IGNORE INTO steps(session_id, seq, project, day, model, "
              "provider, input, output, cache_read, cache_write, cost_usd, "
              "first_token_ms, turn_id) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, "
              "?12, ?13)"));
  AVA_TRY(auto usage,
          Statement::prepare(
              db,
              "INSERT INTO usage_daily(day, project, model, provider, input, output, cache_read, "
              "cache_write, steps, cost_usd) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 1, ?9) "
              "ON CONFLICT(day, project, model, provider) DO UPDATE SET input = input + ?5, "
              "output = output + ?6, cache_read = cache_read + ?7, cache_write = cache_write + "
              "?8, steps = steps + 1, cost_usd = cost_usd + ?9"));
  AVA_TRY(auto call,
          Statement::prepare(db,
                             "INSERT OR IGNORE INTO tool_calls(session_id, call_id, project, day, "
                             "model, provider, tool, status, called_ms) VALUES(?1, ?2, ?3, ?4, ?5, "
                             "?6, ?7, 'pending', ?8)"));
  AVA_TRY(auto result, Statement::prepare(db,
                                          "UPDATE tool_calls SET status = ?3, ended_ms = ?4, "
                                          "tool = CASE WHEN tool = '' THEN ?5 ELSE tool END "
                                          "WHERE session_id = ?1 AND call_id = ?2"));
  AVA_TRY(auto cursor,
          Statement::prepare(
              db,
              "INSERT INTO logs(session_id, file, bytes, last_seq, project, provider, "
              "model, parent, read_bytes) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9) "
              "ON CONFLICT(session_id) DO UPDATE SET file = ?2, bytes = ?3, last_seq = "
              "?4, project = ?5, provider = ?6, model = ?7, parent = ?8, read_bytes = ?9"));
  return RowWriter(db, std::move(turn_start), std::move(turn_end), std::move(step),
                   std::move(usage), std::move(call), std::move(result), std::move(cursor));
}

Result<int> RowWriter::write(LogRead& read) {
  LogState& state = read.state;
  int indexed = 0;
  for (const auto& event : read.events) {
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
      turn_start_.bind(1, state.session_id)
          .bind(2, started->turn_id)
          .bind(3, state.project)
          .bind(4, day)
          .bind(5, event.ts_ms);
      AVA_TRY_VOID(turn_start_.run());
    } else if (const auto* ended = std::get_if<session::TurnEnded>(&event.body)) {
      turn_end_.bind(1, state.session_id)
          .bind(2, ended->turn_id)
          .bind(3, event.ts_ms)
          .bind(4, std::string(session::to_string(ended->reason)));
      AVA_TRY_VOID(turn_end_.run());
    } else if (const auto* usage = std::get_if<session::UsageRecorded>(&event.body)) {
      // A subagent's tokens are counted from its own log, step by step.
      if (!usage->subagent.empty()) continue;
      if (!usage->model.empty()) state.model = usage->model;
      const double cost = llm::cost_usd(llm::model_info(usage->model), usage->usage);
      step_.bind(1, state.session_id)
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
      AVA_TRY_VOID(step_.run());
      // A step read twice (its log re-read from the start) is counted once.
      if (sqlite3_changes(db_) == 1) {
        usage_.bind(1, day)
            .bind(2, state.project)
            .bind(3, usage->model)
            .bind(4, state.provider)
            .bind(5, usage->usage.input_tokens)
            .bind(6, usage->usage.output_tokens)
            .bind(7, usage->usage.cache_read_tokens)
            .bind(8, usage->usage.cache_write_tokens)
            .bind(9, cost);
        AVA_TRY_VOID(usage_.run());
      }
    } else if (const auto* message = std::get_if<session::AssistantMessage>(&event.body)) {
      for (const auto& block : message->content) {
        const auto* tool_call = std::get_if<content::ToolCallBlock>(&block);
        if (!tool_call) continue;
        call_.bind(1, state.session_id)
            .bind(2, tool_call->id)
            .bind(3, state.project)
            .bind(4, day)
            .bind(5, state.model)
            .bind(6, state.provider)
            .bind(7, tool_call->name)
            .bind(8, event.ts_ms);
        AVA_TRY_VOID(call_.run());
      }
    } else if (const auto* tool_result = std::get_if<session::ToolResult>(&event.body)) {
      result_.bind(1, state.session_id)
          .bind(2, tool_result->call_id)
          .bind(3, std::string(session::to_string(tool_result->status)))
          .bind(4, event.ts_ms)
          .bind(5, tool_result->tool_name);
      AVA_TRY_VOID(result_.run());
    }
  }
  cursor_.bind(1, state.session_id)
      .bind(2, read.path.filename().string())
      .bind(3, state.bytes)
      .bind(4, state.last_seq)
      .bind(5, state.project)
      .bind(6, state.provider)
      .bind(7, state.model)
      .bind(8, state.parent)
      .bind(9, static_cast<std::int64_t>(read.consumed_bytes));
  AVA_TRY_VOID(cursor_.run());
  return indexed;
}

}  // namespace ava::analytics::detail
