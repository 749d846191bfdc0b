#include "ava/automation/store.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ava/automation/schedule.hpp"
#include "ava/base/id.hpp"
#include "ava/store/sqlite.hpp"

namespace ava::automation {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using store::Statement;

constexpr const char* schema_v1 = R"sql(
CREATE TABLE automations(
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  project TEXT NOT NULL,
  prompt TEXT NOT NULL,
  provider TEXT NOT NULL DEFAULT '',
  model TEXT NOT NULL DEFAULT '',
  permission_mode TEXT NOT NULL,
  allowed_tools TEXT NOT NULL DEFAULT '[]',
  disallowed_tools TEXT NOT NULL DEFAULT '[]',
  schedule_kind TEXT NOT NULL,
  schedule TEXT NOT NULL,
  time_zone TEXT NOT NULL,
  enabled INTEGER NOT NULL,
  overlap TEXT NOT NULL,
  max_running INTEGER NOT NULL,
  missed TEXT NOT NULL,
  time_limit_ms INTEGER NOT NULL,
  keep_runs INTEGER NOT NULL,
  created_ms INTEGER NOT NULL,
  updated_ms INTEGER NOT NULL);
CREATE TABLE occurrences(
  automation_id TEXT NOT NULL REFERENCES automations(id) ON DELETE CASCADE,
  scheduled_ms INTEGER NOT NULL,
  state TEXT NOT NULL,
  trigger TEXT NOT NULL,
  conversation_id TEXT NOT NULL DEFAULT '',
  claimed_ms INTEGER NOT NULL,
  started_ms INTEGER NOT NULL DEFAULT 0,
  finished_ms INTEGER NOT NULL DEFAULT 0,
  error TEXT NOT NULL DEFAULT '',
  PRIMARY KEY(automation_id, scheduled_ms));
CREATE INDEX occurrences_active ON occurrences(state) WHERE state IN ('claimed', 'started');
PRAGMA user_version = 1;
)sql";

constexpr const char* columns =
    "id, name, project, prompt, provider, model, permission_mode, allowed_tools, "
    "disallowed_tools, schedule_kind, schedule, time_zone, enabled, overlap, max_running, missed, "
    "time_limit_ms, keep_runs, created_ms, updated_ms";

constexpr const char* occurrence_columns =
    "automation_id, scheduled_ms, state, trigger, conversation_id, claimed_ms, started_ms, "
    "finished_ms, error";

std::string strings_json(const std::vector<std::string>& values) { return json(values).dump(); }

Result<std::vector<std::string>> strings_of(const std::string& text) {
  const auto value = json::parse(text, nullptr, false);
  if (!value.is_array()) return fail(ErrorCode::corrupt, "automations store: a list is not a list");
  std::vector<std::string> out;
  for (const auto& item : value) {
    if (item.is_string()) out.push_back(item.get<std::string>());
  }
  return out;
}

Result<Automation> read_automation(const Statement& row) {
  Automation a{.id = row.text(0),
               .name = row.text(1),
               .project = row.text(2),
               .prompt = row.text(3),
               .provider = row.text(4),
               .model = row.text(5),
               .permission_mode = row.text(6)};
  AVA_TRY(a.allowed_tools, strings_of(row.text(7)));
  AVA_TRY(a.disallowed_tools, strings_of(row.text(8)));
  a.schedule_kind = row.text(9);
  a.schedule = row.text(10);
  a.time_zone = row.text(11);
  a.enabled = row.integer(12) != 0;
  AVA_TRY(a.overlap, parse_overlap(row.text(13)));
  a.max_running = static_cast<int>(row.integer(14));
  AVA_TRY(a.missed, parse_missed(row.text(15)));
  a.time_limit_ms = row.integer(16);
  a.keep_runs = static_cast<int>(row.integer(17));
  a.created_ms = row.integer(18);
  a.updated_ms = row.integer(19);
  return a;
}

Result<Occurrence> read_occurrence(const Statement& row) {
  Occurrence o{.automation_id = row.text(0), .scheduled_ms = row.integer(1)};
  AVA_TRY(o.state, parse_occurrence_state(row.text(2)));
  o.trigger = row.text(3);
  o.conversation_id = row.text(4);
  o.claimed_ms = row.integer(5);
  o.started_ms = row.integer(6);
  o.finished_ms = row.integer(7);
  o.error = row.text(8);
  return o;
}

Statement& bind_automation(Statement& s, const Automation& a) {
  return s.bind(1, a.id)
      .bind(2, a.name)
      .bind(3, a.project)
      .bind(4, a.prompt)
      .bind(5, a.provider)
      .bind(6, a.model)
      .bind(7, a.permission_mode)
      .bind(8, strings_json(a.allowed_tools))
      .bind(9, strings_json(a.disallowed_tools))
      .bind(10, a.schedule_kind)
      .bind(11, a.schedule)
      .bind(12, a.time_zone)
      .bind(13, std::int64_t{a.enabled ? 1 : 0})
      .bind(14, std::string(to_string(a.overlap)))
      .bind(15, std::int64_t{a.max_running})
      .bind(16, std::string(to_string(a.missed)))
      .bind(17, a.time_limit_ms)
      .bind(18, std::int64_t{a.keep_runs})
      .bind(19, a.created_ms)
      .bind(20, a.updated_ms);
}

bool constraint_failed(sqlite3* db) {
  return (sqlite3_extended_errcode(db) & 0xff) == SQLITE_CONSTRAINT;
}

template <class T, std::size_t N>
Result<T> parse_named(std::string_view text, const std::pair<std::string_view, T> (&names)[N],
                      std::string_view what) {
  for (const auto& [name, value] : names) {
    if (name == text) return value;
  }
  std::string known;
  for (const auto& [name, value] : names) known += (known.empty() ? "" : ", ") + std::string(name);
  return fail(ErrorCode::invalid_argument, fmt::format("{} is one of {}", what, known));
}

template <class T, std::size_t N>
std::string_view name_of(T value, const std::pair<std::string_view, T> (&names)[N]) {
  for (const auto& [name, known] : names) {
    if (known == value) return name;
  }
  return names[0].first;
}

constexpr std::pair<std::string_view, Overlap> overlap_names[] = {
    {"skip", Overlap::skip}, {"queue", Overlap::queue}, {"allow", Overlap::allow}};
constexpr std::pair<std::string_view, Missed> missed_names[] = {{"skip", Missed::skip},
                                                                {"run-once", Missed::run_once}};
constexpr std::pair<std::string_view, OccurrenceState> state_names[] = {
    {"claimed", OccurrenceState::claimed},         {"started", OccurrenceState::started},
    {"finished", OccurrenceState::finished},       {"failed", OccurrenceState::failed},
    {"interrupted", OccurrenceState::interrupted}, {"skipped", OccurrenceState::skipped}};

}  // namespace

std::string_view to_string(Overlap value) { return name_of(value, overlap_names); }
std::string_view to_string(Missed value) { return name_of(value, missed_names); }
std::string_view to_string(OccurrenceState value) { return name_of(value, state_names); }
Result<Overlap> parse_overlap(std::string_view text) {
  return parse_named(text, overlap_names, "overlap");
}
Result<Missed> parse_missed(std::string_view text) {
  return parse_named(text, missed_names, "missed");
}
Result<OccurrenceState> parse_occurrence_state(std::string_view text) {
  return parse_named(text, state_names, "an occurrence's state");
}

Result<void> check_automation(const Automation& a) {
  const bool name_ok = !a.name.empty() && a.name.size() <= 64 && a.name.front() != '.' &&
                       std::ranges::all_of(a.name, [](char c) {
                         return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                                (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
                       });
  if (!name_ok) {
    return fail(ErrorCode::invalid_argument,
                "name: 1-64 of a-z A-Z 0-9 . _ -, not starting with .");
  }
  if (a.project.empty() || !fs::path(a.project).is_absolute()) {
    return fail(ErrorCode::invalid_argument, "project: an absolute folder");
  }
  std::error_code ec;
  if (!fs::is_directory(a.project, ec)) {
    return fail(ErrorCode::not_found, "project: no folder " + a.project);
  }
  if (a.prompt.find_first_not_of(" \t\r\n") == std::string::npos || a.prompt.size() > 64 * 1024) {
    return fail(ErrorCode::invalid_argument, "prompt: 1 to 65,536 bytes of text");
  }
  if (a.permission_mode != "ask" && a.permission_mode != "accept-edits" &&
      a.permission_mode != "plan" && a.permission_mode != "auto") {
    return fail(ErrorCode::invalid_argument, "permissionMode: ask, accept-edits, plan or auto");
  }
  AVA_TRY(const auto zone, TimeZone::load(a.time_zone));
  AVA_TRY(const auto kind, parse_schedule_kind(a.schedule_kind));
  if (auto parsed = parse_schedule(kind, a.schedule, zone); !parsed) {
    return std::unexpected(std::move(parsed).error().with_context("schedule"));
  }
  if (a.max_running < 1 || a.max_running > 20) {
    return fail(ErrorCode::invalid_argument, "maxRunning: 1 to 20");
  }
  if (a.time_limit_ms < 1000 || a.time_limit_ms > std::int64_t{7} * 24 * 3600 * 1000) {
    return fail(ErrorCode::invalid_argument, "timeLimit: 1 second to 7 days");
  }
  if (a.keep_runs < 1 || a.keep_runs > 10000) {
    return fail(ErrorCode::invalid_argument, "keepRuns: 1 to 10,000");
  }
  return {};
}

fs::path AutomationStore::file_of(const base::Home& home) {
  return home.file("automations.sqlite3");
}

Result<AutomationStore> AutomationStore::open(const base::Home& home) {
  return open_file(file_of(home));
}

Result<AutomationStore> AutomationStore::open_file(const fs::path& file) {
  static constexpr const char* migrations[] = {schema_v1};
  static_assert(std::size(migrations) == schema_version);
  AVA_TRY(auto db, store::open_database(file, migrations));
  return AutomationStore(std::move(db));
}

Result<Automation> AutomationStore::add(Automation automation, std::int64_t now_ms) {
  AVA_TRY_VOID(check_automation(automation));
  automation.id = base::new_id();
  automation.created_ms = automation.updated_ms = now_ms;
  AVA_TRY(auto insert,
          Statement::prepare(db_.get(), fmt::format("INSERT INTO automations({}) VALUES(?1, ?2, "
                                                    "?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, "
                                                    "?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20)",
                                                    columns)
                                            .c_str()));
  bind_automation(insert, automation);
  if (auto done = insert.run(); !done) {
    if (constraint_failed(db_.get())) {
      return fail(ErrorCode::already_exists, "an automation named " + automation.name + " exists");
    }
    return std::unexpected(done.error());
  }
  return automation;
}

Result<Automation> AutomationStore::update(const Automation& automation, std::int64_t now_ms) {
  AVA_TRY_VOID(check_automation(automation));
  Automation changed = automation;
  changed.updated_ms = now_ms;
  AVA_TRY(auto query,
          Statement::prepare(
              db_.get(),
              "UPDATE automations SET name = ?2, project = ?3, prompt = ?4, provider = ?5, "
              "model = ?6, permission_mode = ?7, allowed_tools = ?8, disallowed_tools = ?9, "
              "schedule_kind = ?10, schedule = ?11, time_zone = ?12, enabled = ?13, overlap = ?14, "
              "max_running = ?15, missed = ?16, time_limit_ms = ?17, keep_runs = ?18, "
              "created_ms = ?19, updated_ms = ?20 WHERE id = ?1"));
  bind_automation(query, changed);
  if (auto done = query.run(); !done) {
    if (constraint_failed(db_.get())) {
      return fail(ErrorCode::already_exists, "an automation named " + changed.name + " exists");
    }
    return std::unexpected(done.error());
  }
  if (sqlite3_changes(db_.get()) == 0)
    return fail(ErrorCode::not_found, "no automation " + changed.id);
  return changed;
}

Result<void> AutomationStore::remove(const std::string& id) {
  AVA_TRY(auto query, Statement::prepare(db_.get(), "DELETE FROM automations WHERE id = ?1"));
  AVA_TRY_VOID(query.bind(1, id).run());
  if (sqlite3_changes(db_.get()) == 0) return fail(ErrorCode::not_found, "no automation " + id);
  return {};
}

Result<std::optional<Automation>> AutomationStore::find(const std::string& id_or_name) const {
  AVA_TRY(
      auto query,
      Statement::prepare(
          db_.get(),
          fmt::format("SELECT {} FROM automations WHERE id = ?1 OR name = ?1", columns).c_str()));
  query.bind(1, id_or_name);
  AVA_TRY(bool row, query.step());
  if (!row) return std::optional<Automation>();
  AVA_TRY(auto automation, read_automation(query));
  return std::optional<Automation>(std::move(automation));
}

Result<std::vector<Automation>> AutomationStore::list() const {
  AVA_TRY(auto query,
          Statement::prepare(
              db_.get(), fmt::format("SELECT {} FROM automations ORDER BY name", columns).c_str()));
  std::vector<Automation> out;
  for (;;) {
    AVA_TRY(bool row, query.step());
    if (!row) break;
    AVA_TRY(auto automation, read_automation(query));
    out.push_back(std::move(automation));
  }
  return out;
}

Result<bool> AutomationStore::claim(const std::string& automation_id, std::int64_t scheduled_ms,
                                    const std::string& trigger, std::int64_t now_ms) {
  AVA_TRY(auto query, Statement::prepare(db_.get(),
                                         "INSERT OR IGNORE INTO occurrences(automation_id, "
                                         "scheduled_ms, state, trigger, claimed_ms) VALUES(?1, "
                                         "?2, 'claimed', ?3, ?4)"));
  AVA_TRY_VOID(
      query.bind(1, automation_id).bind(2, scheduled_ms).bind(3, trigger).bind(4, now_ms).run());
  return sqlite3_changes(db_.get()) == 1;
}

Result<void> AutomationStore::mark_started(const std::string& automation_id,
                                           std::int64_t scheduled_ms,
                                           const std::string& conversation_id,
                                           std::int64_t now_ms) {
  AVA_TRY(auto query,
          Statement::prepare(db_.get(),
                             "UPDATE occurrences SET state = 'started', conversation_id = ?3, "
                             "started_ms = ?4 WHERE automation_id = ?1 AND scheduled_ms = ?2 AND "
                             "state = 'claimed'"));
  AVA_TRY_VOID(query.bind(1, automation_id)
                   .bind(2, scheduled_ms)
                   .bind(3, conversation_id)
                   .bind(4, now_ms)
                   .run());
  if (sqlite3_changes(db_.get()) == 0) {
    return fail(ErrorCode::conflict, "the occurrence is not claimed (ended or reconciled)");
  }
  return {};
}

Result<void> AutomationStore::mark_ended(const std::string& automation_id,
                                         std::int64_t scheduled_ms, OccurrenceState state,
                                         const std::string& error, std::int64_t now_ms) {
  AVA_TRY(auto query, Statement::prepare(
                          db_.get(),
                          "UPDATE occurrences SET state = ?3, error = ?4, finished_ms = ?5 WHERE "
                          "automation_id = ?1 AND scheduled_ms = ?2 AND state IN ('claimed', "
                          "'started')"));
  AVA_TRY_VOID(query.bind(1, automation_id)
                   .bind(2, scheduled_ms)
                   .bind(3, std::string(to_string(state)))
                   .bind(4, error)
                   .bind(5, now_ms)
                   .run());
  return {};
}

Result<bool> AutomationStore::record_skipped(const std::string& automation_id,
                                             std::int64_t scheduled_ms, const std::string& trigger,
                                             const std::string& reason, std::int64_t now_ms) {
  AVA_TRY(auto query, Statement::prepare(
                          db_.get(),
                          "INSERT OR IGNORE INTO occurrences(automation_id, scheduled_ms, state, "
                          "trigger, claimed_ms, finished_ms, error) VALUES(?1, ?2, 'skipped', ?3, "
                          "?4, ?4, ?5)"));
  AVA_TRY_VOID(query.bind(1, automation_id)
                   .bind(2, scheduled_ms)
                   .bind(3, trigger)
                   .bind(4, now_ms)
                   .bind(5, reason)
                   .run());
  return sqlite3_changes(db_.get()) == 1;
}

Result<int> AutomationStore::reconcile(std::int64_t now_ms) {
  AVA_TRY(auto transaction, store::Transaction::begin(db_.get()));
  AVA_TRY(auto queued,
          Statement::prepare(db_.get(),
                             "UPDATE occurrences SET state = 'skipped', finished_ms = ?1, error = "
                             "'not started: Ava stopped before the run began' WHERE state = "
                             "'claimed'"));
  AVA_TRY_VOID(queued.bind(1, now_ms).run());
  int changed = sqlite3_changes(db_.get());
  AVA_TRY(auto started,
          Statement::prepare(db_.get(),
                             "UPDATE occurrences SET state = 'interrupted', finished_ms = ?1, "
                             "error = 'interrupted: Ava stopped while it ran; not run again' "
                             "WHERE state = 'started'"));
  AVA_TRY_VOID(started.bind(1, now_ms).run());
  changed += sqlite3_changes(db_.get());
  AVA_TRY_VOID(transaction.commit());
  return changed;
}

Result<std::vector<Occurrence>> AutomationStore::history(const std::string& automation_id,
                                                         int limit) const {
  AVA_TRY(auto query, Statement::prepare(
                          db_.get(), fmt::format("SELECT {} FROM occurrences WHERE automation_id "
                                                 "= ?1 ORDER BY scheduled_ms DESC LIMIT ?2",
                                                 occurrence_columns)
                                         .c_str()));
  query.bind(1, automation_id).bind(2, std::int64_t{limit});
  std::vector<Occurrence> out;
  for (;;) {
    AVA_TRY(bool row, query.step());
    if (!row) break;
    AVA_TRY(auto occurrence, read_occurrence(query));
    out.push_back(std::move(occurrence));
  }
  return out;
}

Result<std::unordered_map<std::string, Occurrence>> AutomationStore::latest_occurrences() const {
  // SQLite takes the bare columns from the row that holds the MAX.
  AVA_TRY(auto query,
          Statement::prepare(db_.get(), fmt::format("SELECT {}, MAX(scheduled_ms) FROM occurrences "
                                                    "GROUP BY automation_id",
                                                    occurrence_columns)
                                            .c_str()));
  std::unordered_map<std::string, Occurrence> out;
  for (;;) {
    AVA_TRY(bool row, query.step());
    if (!row) break;
    AVA_TRY(auto occurrence, read_occurrence(query));
    out.emplace(occurrence.automation_id, std::move(occurrence));
  }
  return out;
}

Result<std::vector<Occurrence>> AutomationStore::active(const std::string& automation_id) const {
  AVA_TRY(auto query,
          Statement::prepare(db_.get(),
                             fmt::format("SELECT {} FROM occurrences WHERE automation_id = ?1 AND "
                                         "state IN ('claimed', 'started') ORDER BY scheduled_ms",
                                         occurrence_columns)
                                 .c_str()));
  query.bind(1, automation_id);
  std::vector<Occurrence> out;
  for (;;) {
    AVA_TRY(bool row, query.step());
    if (!row) break;
    AVA_TRY(auto occurrence, read_occurrence(query));
    out.push_back(std::move(occurrence));
  }
  return out;
}

Result<std::vector<std::pair<std::string, std::int64_t>>> AutomationStore::last_scheduled() const {
  AVA_TRY(auto query, Statement::prepare(db_.get(),
                                         "SELECT automation_id, MAX(scheduled_ms) FROM occurrences "
                                         "WHERE trigger != 'manual' GROUP BY automation_id"));
  std::vector<std::pair<std::string, std::int64_t>> out;
  for (;;) {
    AVA_TRY(bool row, query.step());
    if (!row) break;
    out.emplace_back(query.text(0), query.integer(1));
  }
  return out;
}

Result<void> AutomationStore::prune(const std::string& automation_id, int keep) {
  AVA_TRY(auto query,
          Statement::prepare(db_.get(),
                             "DELETE FROM occurrences WHERE automation_id = ?1 AND state NOT IN "
                             "('claimed', 'started') AND scheduled_ms NOT IN (SELECT scheduled_ms "
                             "FROM occurrences WHERE automation_id = ?1 ORDER BY scheduled_ms DESC "
                             "LIMIT ?2)"));
  AVA_TRY_VOID(query.bind(1, automation_id).bind(2, std::int64_t{keep}).run());
  return {};
}

}  // namespace ava::automation
