#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "ava/base/error.hpp"
#include "ava/base/home.hpp"
#include "ava/store/database.hpp"

// AVA_HOME/automations.sqlite3 (0600, WAL, versioned schema): automations
// and their occurrences (docs/automations.md). An occurrence is keyed by
// (automation, scheduled time) and claimed in one statement before anything
// starts, so no restart, second scheduler or clock jump starts it twice.
namespace ava::automation {

// A run that comes due while another runs: skip it, queue it (at most one
// waiting), or allow it (up to `max_running` at once).
enum class Overlap { skip, queue, allow };
// Runs missed while the backend was down or the machine asleep: skip them
// (one skipped row says how many), or run the latest once.
enum class Missed { skip, run_once };
enum class OccurrenceState { claimed, started, finished, failed, interrupted, skipped };

std::string_view to_string(Overlap value);
std::string_view to_string(Missed value);
std::string_view to_string(OccurrenceState value);
Result<Overlap> parse_overlap(std::string_view text);
Result<Missed> parse_missed(std::string_view text);
Result<OccurrenceState> parse_occurrence_state(std::string_view text);

struct Automation {
  std::string id;
  std::string name;     // 1-64 of a-z A-Z 0-9 . _ -
  std::string project;  // the folder its conversations work in
  std::string prompt;   // text, or a slash command ("/review")
  std::string provider;
  std::string model;
  std::string permission_mode = "auto";  // runs never wait on a person
  std::vector<std::string> allowed_tools;
  std::vector<std::string> disallowed_tools;
  std::string schedule_kind = "cron";  // cron, every, at
  std::string schedule;                // as written
  std::string time_zone = "UTC";
  bool enabled = true;
  Overlap overlap = Overlap::skip;
  int max_running = 3;  // allow: at most this many at once
  Missed missed = Missed::skip;
  std::int64_t time_limit_ms = 30 * 60 * 1000;
  int keep_runs = 100;  // history kept per automation
  std::int64_t created_ms = 0;
  std::int64_t updated_ms = 0;
};

struct Occurrence {
  std::string automation_id;
  std::int64_t scheduled_ms = 0;
  OccurrenceState state = OccurrenceState::claimed;
  std::string trigger;  // schedule, catch-up, manual
  std::string conversation_id;
  std::int64_t claimed_ms = 0;
  std::int64_t started_ms = 0;
  std::int64_t finished_ms = 0;
  std::string error;
};

class AutomationStore {
 public:
  static constexpr int schema_version = 1;
  static std::filesystem::path file_of(const base::Home& home);
  static Result<AutomationStore> open(const base::Home& home);
  static Result<AutomationStore> open_file(const std::filesystem::path& file);

  // add: a new id and times are given; a taken name is already_exists.
  Result<Automation> add(Automation automation, std::int64_t now_ms);
  Result<Automation> update(const Automation& automation, std::int64_t now_ms);
  Result<void> remove(const std::string& id);
  // By id or by name.
  Result<std::optional<Automation>> find(const std::string& id_or_name) const;
  Result<std::vector<Automation>> list() const;

  // Claims (automation, scheduled time) for a run: false if it was claimed
  // (or recorded) before, by anyone. The one way a run begins.
  Result<bool> claim(const std::string& automation_id, std::int64_t scheduled_ms,
                     const std::string& trigger, std::int64_t now_ms);
  Result<void> mark_started(const std::string& automation_id, std::int64_t scheduled_ms,
                            const std::string& conversation_id, std::int64_t now_ms);
  Result<void> mark_ended(const std::string& automation_id, std::int64_t scheduled_ms,
                          OccurrenceState state, const std::string& error, std::int64_t now_ms);
  // A skipped occurrence (its own row, for the history); false if one exists.
  Result<bool> record_skipped(const std::string& automation_id, std::int64_t scheduled_ms,
                              const std::string& trigger, const std::string& reason,
                              std::int64_t now_ms);

  // Start-up: claimed but never started becomes skipped, started but never
  // confirmed finished becomes interrupted. Never run again. How many.
  Result<int> reconcile(std::int64_t now_ms);

  // Newest first.
  Result<std::vector<Occurrence>> history(const std::string& automation_id, int limit) const;
  // Each automation's newest occurrence, by automation id (one query for a list).
  Result<std::unordered_map<std::string, Occurrence>> latest_occurrences() const;
  // Claimed (queued) and started occurrences of one automation, oldest first.
  Result<std::vector<Occurrence>> active(const std::string& automation_id) const;
  // The latest scheduled time the scheduler handled for each automation
  // (runs, catch-ups and skips; manual runs do not count).
  Result<std::vector<std::pair<std::string, std::int64_t>>> last_scheduled() const;
  // Keeps the newest `keep` ended occurrences.
  Result<void> prune(const std::string& automation_id, int keep);

 private:
  explicit AutomationStore(store::Database db) : db_(std::move(db)) {}
  store::Database db_;
};

// Names, projects, schedules and limits as the API and the CLI take them;
// invalid_argument naming the field.
Result<void> check_automation(const Automation& automation);

}  // namespace ava::automation
