#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ava/protocol/shape.hpp"

// /api/automations (docs/api.md, docs/automations.md).
namespace ava::protocol {

// POST /api/automations, and PATCH (every field may be left out there).
// Exactly one of cron, every and at when creating.
struct AutomationRequest {
  std::optional<std::string> name;
  std::optional<std::string> project;  // an absolute folder
  std::optional<std::string> prompt;
  std::optional<std::string> provider;
  std::optional<std::string> model;
  std::optional<std::string> permission_mode;
  std::optional<std::vector<std::string>> allowed_tools;
  std::optional<std::vector<std::string>> disallowed_tools;
  std::optional<std::string> cron;
  std::optional<std::string> every;
  std::optional<std::string> at;
  std::optional<std::string> time_zone;
  std::optional<bool> enabled;
  std::optional<std::string> overlap;  // skip, queue, allow
  std::optional<std::int64_t> max_running;
  std::optional<std::string> missed;  // skip, run-once
  std::optional<std::int64_t> time_limit_seconds;
  std::optional<std::int64_t> keep_runs;
};
template <>
struct Shape<AutomationRequest> {
  static constexpr std::string_view name = "AutomationRequest";
  static constexpr std::string_view doc =
      "POST /api/automations (name, project, prompt and one of cron/every/at), PATCH "
      "/api/automations/{id}";
  static constexpr auto fields =
      std::tuple{field("name", &AutomationRequest::name),
                 field("project", &AutomationRequest::project),
                 field("prompt", &AutomationRequest::prompt),
                 field("provider", &AutomationRequest::provider),
                 field("model", &AutomationRequest::model),
                 field("permissionMode", &AutomationRequest::permission_mode),
                 field("allowedTools", &AutomationRequest::allowed_tools),
                 field("disallowedTools", &AutomationRequest::disallowed_tools),
                 field("cron", &AutomationRequest::cron),
                 field("every", &AutomationRequest::every),
                 field("at", &AutomationRequest::at),
                 field("timeZone", &AutomationRequest::time_zone),
                 field("enabled", &AutomationRequest::enabled),
                 field("overlap", &AutomationRequest::overlap, "\"skip\" | \"queue\" | \"allow\""),
                 field("maxRunning", &AutomationRequest::max_running),
                 field("missed", &AutomationRequest::missed, "\"skip\" | \"run-once\""),
                 field("timeLimitSeconds", &AutomationRequest::time_limit_seconds),
                 field("keepRuns", &AutomationRequest::keep_runs)};
};

struct OccurrenceView {
  std::int64_t scheduled_ms = 0;
  std::string state;    // claimed (queued), started, finished, failed, interrupted, skipped
  std::string trigger;  // schedule, catch-up, manual
  std::string conversation_id;
  std::int64_t claimed_ms = 0;
  std::int64_t started_ms = 0;
  std::int64_t finished_ms = 0;
  std::string error;
};
template <>
struct Shape<OccurrenceView> {
  static constexpr std::string_view name = "OccurrenceView";
  static constexpr std::string_view doc = "One occurrence of an automation: a run or a skip.";
  static constexpr auto fields =
      std::tuple{field("scheduledMs", &OccurrenceView::scheduled_ms),
                 field("state", &OccurrenceView::state),
                 field("trigger", &OccurrenceView::trigger),
                 field("conversationId", &OccurrenceView::conversation_id),
                 field("claimedMs", &OccurrenceView::claimed_ms),
                 field("startedMs", &OccurrenceView::started_ms),
                 field("finishedMs", &OccurrenceView::finished_ms),
                 field("error", &OccurrenceView::error)};
};

struct AutomationView {
  std::string id;
  std::string name;
  std::string project;
  std::string prompt;
  std::string provider;
  std::string model;
  std::string permission_mode;
  std::vector<std::string> allowed_tools;
  std::vector<std::string> disallowed_tools;
  std::string schedule_kind;  // cron, every, at
  std::string schedule;
  std::string time_zone;
  bool enabled = true;
  std::string overlap;
  std::int64_t max_running = 0;
  std::string missed;
  std::int64_t time_limit_seconds = 0;
  std::int64_t keep_runs = 0;
  std::int64_t created_ms = 0;
  std::int64_t updated_ms = 0;
  std::optional<std::int64_t> next_run_ms;
  std::optional<OccurrenceView> last_run;
};
template <>
struct Shape<AutomationView> {
  static constexpr std::string_view name = "AutomationView";
  static constexpr std::string_view doc = "An automation, its next run and its last occurrence.";
  static constexpr auto fields = std::tuple{
      field("id", &AutomationView::id),
      field("name", &AutomationView::name),
      field("project", &AutomationView::project),
      field("prompt", &AutomationView::prompt),
      field("provider", &AutomationView::provider),
      field("model", &AutomationView::model),
      field("permissionMode", &AutomationView::permission_mode),
      field("allowedTools", &AutomationView::allowed_tools),
      field("disallowedTools", &AutomationView::disallowed_tools),
      field("scheduleKind", &AutomationView::schedule_kind, "\"cron\" | \"every\" | \"at\""),
      field("schedule", &AutomationView::schedule),
      field("timeZone", &AutomationView::time_zone),
      field("enabled", &AutomationView::enabled),
      field("overlap", &AutomationView::overlap),
      field("maxRunning", &AutomationView::max_running),
      field("missed", &AutomationView::missed),
      field("timeLimitSeconds", &AutomationView::time_limit_seconds),
      field("keepRuns", &AutomationView::keep_runs),
      field("createdMs", &AutomationView::created_ms),
      field("updatedMs", &AutomationView::updated_ms),
      field("nextRunMs", &AutomationView::next_run_ms),
      field("lastRun", &AutomationView::last_run)};
};

struct AutomationList {
  std::vector<AutomationView> automations;
};
template <>
struct Shape<AutomationList> {
  static constexpr std::string_view name = "AutomationList";
  static constexpr std::string_view doc = "GET /api/automations";
  static constexpr auto fields = std::tuple{field("automations", &AutomationList::automations)};
};

struct OccurrenceList {
  std::vector<OccurrenceView> occurrences;
};
template <>
struct Shape<OccurrenceList> {
  static constexpr std::string_view name = "OccurrenceList";
  static constexpr std::string_view doc = "GET /api/automations/{id}/history, newest first";
  static constexpr auto fields = std::tuple{field("occurrences", &OccurrenceList::occurrences)};
};

struct SchedulePreview {
  std::vector<std::int64_t> times_ms;
  std::vector<std::string> local;  // each time in the automation's zone
};
template <>
struct Shape<SchedulePreview> {
  static constexpr std::string_view name = "SchedulePreview";
  static constexpr std::string_view doc =
      "GET /api/automations/preview?cron=|every=|at=&timeZone=: the next five runs";
  static constexpr auto fields = std::tuple{field("timesMs", &SchedulePreview::times_ms),
                                            field("local", &SchedulePreview::local)};
};

// Status stream: an automation's run ended (failed ones are notified).
struct AutomationMessage {
  std::string type = "automation";
  std::string automation_id;
  std::string name;
  OccurrenceView occurrence;
};
template <>
struct Shape<AutomationMessage> {
  static constexpr std::string_view name = "AutomationMessage";
  static constexpr std::string_view doc = "status stream: an automation's run ended or was skipped";
  static constexpr auto fields = std::tuple{
      field("type", &AutomationMessage::type, R"("automation")"),
      field("automationId", &AutomationMessage::automation_id),
      field("name", &AutomationMessage::name), field("occurrence", &AutomationMessage::occurrence)};
};

Result<AutomationRequest> parse_automation_request(const nlohmann::json& json);

}  // namespace ava::protocol
