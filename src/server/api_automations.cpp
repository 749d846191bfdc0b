// /api/automations: scheduled prompts (docs/automations.md). Wiring only: the
// automation package holds the schedules, the store and the scheduler.
#include <charconv>

#include <nlohmann/json.hpp>

#include "ava/automation/scheduler.hpp"
#include "ava/base/clock.hpp"
#include "ava/protocol/automations.hpp"
#include "server/api.hpp"

namespace ava::server {
namespace {

using automation::Automation;
using automation::Scheduler;

constexpr int preview_count = 5;

Result<Scheduler*> scheduler_of(const ApiContext& context) {
  if (!context.automations) return fail(ErrorCode::unavailable, "automations are not running here");
  return context.automations.get();
}

protocol::OccurrenceView occurrence_view(const automation::Occurrence& o) {
  return {.scheduled_ms = o.scheduled_ms,
          .state = std::string(automation::to_string(o.state)),
          .trigger = o.trigger,
          .conversation_id = o.conversation_id,
          .claimed_ms = o.claimed_ms,
          .started_ms = o.started_ms,
          .finished_ms = o.finished_ms,
          .error = o.error};
}

// `last` is the automation's newest occurrence when the caller has it (a
// list reads them all in one query); otherwise it is looked up.
protocol::AutomationView view_of(Scheduler& scheduler, const Automation& a,
                                 const automation::Occurrence* last = nullptr) {
  protocol::AutomationView view{.id = a.id,
                                .name = a.name,
                                .project = a.project,
                                .prompt = a.prompt,
                                .provider = a.provider,
                                .model = a.model,
                                .permission_mode = a.permission_mode,
                                .allowed_tools = a.allowed_tools,
                                .disallowed_tools = a.disallowed_tools,
                                .schedule_kind = a.schedule_kind,
                                .schedule = a.schedule,
                                .time_zone = a.time_zone,
                                .enabled = a.enabled,
                                .overlap = std::string(automation::to_string(a.overlap)),
                                .max_running = a.max_running,
                                .missed = std::string(automation::to_string(a.missed)),
                                .time_limit_seconds = a.time_limit_ms / 1000,
                                .keep_runs = a.keep_runs,
                                .created_ms = a.created_ms,
                                .updated_ms = a.updated_ms,
                                .next_run_ms = scheduler.next_due(a.id),
                                .last_run = std::nullopt};
  if (last != nullptr) {
    view.last_run = occurrence_view(*last);
    return view;
  }
  std::lock_guard lock(scheduler.mutex());
  if (auto newest = scheduler.store().history(a.id, 1); newest && !newest->empty()) {
    view.last_run = occurrence_view(newest->front());
  }
  return view;
}

Result<Automation> find(Scheduler& scheduler, const std::string& id_or_name) {
  std::lock_guard lock(scheduler.mutex());
  AVA_TRY(auto found, scheduler.store().find(id_or_name));
  if (!found) return fail(ErrorCode::not_found, "no automation " + id_or_name.substr(0, 64));
  return std::move(*found);
}

// The fields a request gives, onto `a`. Creating needs a name, a project,
// a prompt and one schedule.
Result<void> apply(const protocol::AutomationRequest& r, Automation& a, bool creating,
                   std::int64_t now) {
  if (r.name) a.name = *r.name;
  if (r.project) a.project = *r.project;
  if (r.prompt) a.prompt = *r.prompt;
  if (r.provider) a.provider = *r.provider;
  if (r.model) a.model = *r.model;
  if (r.permission_mode) a.permission_mode = *r.permission_mode;
  if (r.allowed_tools) a.allowed_tools = *r.allowed_tools;
  if (r.disallowed_tools) a.disallowed_tools = *r.disallowed_tools;
  const int schedules = (r.cron ? 1 : 0) + (r.every ? 1 : 0) + (r.at ? 1 : 0);
  if (schedules > 1) return fail(ErrorCode::invalid_argument, "give one of cron, every and at");
  if (creating && schedules == 0) {
    return fail(ErrorCode::invalid_argument, "a schedule is needed: cron, every or at");
  }
  if (r.cron) a.schedule_kind = "cron", a.schedule = *r.cron;
  if (r.every) a.schedule_kind = "every", a.schedule = *r.every;
  if (r.at) a.schedule_kind = "at", a.schedule = *r.at;
  if (r.time_zone) a.time_zone = *r.time_zone;
  if (r.enabled) a.enabled = *r.enabled;
  if (r.overlap) {
    AVA_TRY(a.overlap, automation::parse_overlap(*r.overlap));
  }
  if (r.max_running)
    a.max_running = static_cast<int>(std::clamp<std::int64_t>(*r.max_running, 0, 1000));
  if (r.missed) {
    AVA_TRY(a.missed, automation::parse_missed(*r.missed));
  }
  if (r.time_limit_seconds) {
    a.time_limit_ms = std::clamp<std::int64_t>(*r.time_limit_seconds, 0, 1'000'000'000) * 1000;
  }
  if (r.keep_runs)
    a.keep_runs = static_cast<int>(std::clamp<std::int64_t>(*r.keep_runs, 0, 1'000'000));
  if (creating && (a.name.empty() || a.project.empty() || a.prompt.empty())) {
    return fail(ErrorCode::invalid_argument, "name, project and prompt are needed");
  }
  AVA_TRY_VOID(automation::check_automation(a));
  if (a.schedule_kind == "at" && (r.at || creating)) {
    AVA_TRY(const auto zone, automation::TimeZone::load(a.time_zone));
    AVA_TRY(const auto schedule,
            automation::parse_schedule(automation::ScheduleKind::at, a.schedule, zone));
    if (schedule.at_ms <= now) {
      return fail(ErrorCode::invalid_argument, "at: " + zone.format(schedule.at_ms) + " is past");
    }
  }
  return {};
}

Result<httpd::HttpResponse> list(const ApiContext& context, const httpd::HttpRequest&) {
  AVA_TRY(Scheduler * scheduler, scheduler_of(context));
  std::vector<Automation> all;
  std::unordered_map<std::string, automation::Occurrence> latest;
  {
    std::lock_guard lock(scheduler->mutex());
    AVA_TRY(all, scheduler->store().list());
    AVA_TRY(latest, scheduler->store().latest_occurrences());
  }
  protocol::AutomationList out;
  out.automations.reserve(all.size());
  for (const auto& a : all) {
    const auto found = latest.find(a.id);
    out.automations.push_back(
        view_of(*scheduler, a, found == latest.end() ? nullptr : &found->second));
  }
  return shaped_response(200, out);
}

Result<httpd::HttpResponse> create(const ApiContext& context, const httpd::HttpRequest& request) {
  AVA_TRY(Scheduler * scheduler, scheduler_of(context));
  AVA_TRY(auto body, json_body(request));
  AVA_TRY(auto parsed, protocol::parse_automation_request(body));
  const std::int64_t now = base::unix_ms_now();
  Automation a;
  AVA_TRY_VOID(apply(parsed, a, true, now));
  Automation added;
  {
    std::lock_guard lock(scheduler->mutex());
    AVA_TRY(added, scheduler->store().add(a, now));
  }
  scheduler->changed(added.id);
  return shaped_response(201, view_of(*scheduler, added));
}

Result<httpd::HttpResponse> show(const ApiContext& context, const httpd::HttpRequest& request) {
  AVA_TRY(Scheduler * scheduler, scheduler_of(context));
  AVA_TRY(auto found, find(*scheduler, request.params[0]));
  return shaped_response(200, view_of(*scheduler, found));
}

Result<httpd::HttpResponse> change(const ApiContext& context, const std::string& id,
                                   const protocol::AutomationRequest& parsed) {
  AVA_TRY(Scheduler * scheduler, scheduler_of(context));
  AVA_TRY(auto found, find(*scheduler, id));
  const std::int64_t now = base::unix_ms_now();
  AVA_TRY_VOID(apply(parsed, found, false, now));
  Automation updated;
  {
    std::lock_guard lock(scheduler->mutex());
    AVA_TRY(updated, scheduler->store().update(found, now));
  }
  scheduler->changed(updated.id);
  return shaped_response(200, view_of(*scheduler, updated));
}

Result<httpd::HttpResponse> patch(const ApiContext& context, const httpd::HttpRequest& request) {
  AVA_TRY(auto body, json_body(request));
  AVA_TRY(auto parsed, protocol::parse_automation_request(body));
  return change(context, request.params[0], parsed);
}

Result<httpd::HttpResponse> pause(const ApiContext& context, const httpd::HttpRequest& request) {
  return change(context, request.params[0], {.enabled = false});
}

Result<httpd::HttpResponse> resume(const ApiContext& context, const httpd::HttpRequest& request) {
  return change(context, request.params[0], {.enabled = true});
}

Result<httpd::HttpResponse> remove(const ApiContext& context, const httpd::HttpRequest& request) {
  AVA_TRY(Scheduler * scheduler, scheduler_of(context));
  AVA_TRY(auto found, find(*scheduler, request.params[0]));
  auto view = view_of(*scheduler, found);
  {
    std::lock_guard lock(scheduler->mutex());
    AVA_TRY_VOID(scheduler->store().remove(found.id));
  }
  scheduler->changed(found.id);
  view.next_run_ms.reset();
  return shaped_response(200, view);
}

Result<httpd::HttpResponse> run_now(const ApiContext& context, const httpd::HttpRequest& request) {
  AVA_TRY(Scheduler * scheduler, scheduler_of(context));
  AVA_TRY(auto occurrence, scheduler->run_now(request.params[0]));
  return shaped_response(202, occurrence_view(occurrence));
}

Result<httpd::HttpResponse> history(const ApiContext& context, const httpd::HttpRequest& request) {
  AVA_TRY(Scheduler * scheduler, scheduler_of(context));
  AVA_TRY(auto found, find(*scheduler, request.params[0]));
  int limit = 50;
  if (auto text = request.query_value("limit")) {
    const auto [end, error] = std::from_chars(text->data(), text->data() + text->size(), limit);
    if (error != std::errc() || end != text->data() + text->size() || limit < 1 || limit > 1000) {
      return fail(ErrorCode::invalid_argument, "limit must be a number from 1 to 1000");
    }
  }
  protocol::OccurrenceList out;
  std::lock_guard lock(scheduler->mutex());
  AVA_TRY(auto occurrences, scheduler->store().history(found.id, limit));
  for (const auto& o : occurrences) out.occurrences.push_back(occurrence_view(o));
  return shaped_response(200, out);
}

// The next runs of a schedule before it is saved: the forms' cron helper.
Result<httpd::HttpResponse> preview(const ApiContext&, const httpd::HttpRequest& request) {
  const auto zone_name = request.query_value("timeZone");
  AVA_TRY(const auto zone, automation::TimeZone::load(zone_name ? *zone_name : "UTC"));
  std::optional<automation::ScheduleKind> kind;
  std::string_view text;
  for (const auto& [name, value] : {std::pair{"cron", automation::ScheduleKind::cron},
                                    std::pair{"every", automation::ScheduleKind::every},
                                    std::pair{"at", automation::ScheduleKind::at}}) {
    if (auto given = request.query_value(name)) {
      kind = value;
      text = *given;
    }
  }
  if (!kind) return fail(ErrorCode::invalid_argument, "give cron, every or at");
  AVA_TRY(const auto schedule, automation::parse_schedule(*kind, text, zone));
  const std::int64_t now = base::unix_ms_now();
  protocol::SchedulePreview out;
  out.times_ms = automation::next_runs(schedule, zone, now, now, preview_count);
  for (const auto ms : out.times_ms) out.local.push_back(zone.format(ms));
  return shaped_response(200, out);
}

}  // namespace

void add_automation_routes(httpd::Router& router, const std::shared_ptr<ApiContext>& context) {
  router.add("GET", "/api/automations", answer(with(context, list)));
  router.add("POST", "/api/automations", answer(with(context, create)));
  router.add("GET", "/api/automations/preview", answer(with(context, preview)));
  router.add("GET", "/api/automations/{id}", answer(with(context, show)));
  router.add("PATCH", "/api/automations/{id}", answer(with(context, patch)));
  router.add("DELETE", "/api/automations/{id}", answer(with(context, remove)));
  router.add("POST", "/api/automations/{id}/run", answer(with(context, run_now)));
  router.add("POST", "/api/automations/{id}/pause", answer(with(context, pause)));
  router.add("POST", "/api/automations/{id}/resume", answer(with(context, resume)));
  router.add("GET", "/api/automations/{id}/history", answer(with(context, history)));
}

}  // namespace ava::server
