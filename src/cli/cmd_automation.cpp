// `ava automation add|list|show|pause|resume|run-now|remove|history`
// (docs/automations.md): the backend runs automations, this talks to it
// (/api/automations), starting it when none runs on this home.

#include <cstdio>
#include <memory>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ava/base/home.hpp"
#include "ava/base/json.hpp"
#include "ava/base/url_encoding.hpp"
#include "ava/machine/backend.hpp"
#include "ava/machine/loopback_client.hpp"
#include "cli/commands.hpp"

namespace ava::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr CommandName command_name{.name = "automation"};

struct AutomationFlags {
  std::string name;
  std::string project;
  std::string prompt;
  std::string cron;
  std::string every;
  std::string at;
  std::string time_zone;
  std::string provider;
  std::string model;
  std::string permission_mode;
  std::vector<std::string> allowed_tools;
  std::vector<std::string> disallowed_tools;
  std::string overlap;
  std::string missed;
  int max_running = 0;
  int time_limit = 0;
  int keep_runs = 0;
  int limit = 20;
  bool json = false;
};

// The backend's answer to one request, JSON; an error status is an Error
// carrying the backend's message.
Result<json> call(std::string_view method, const std::string& path, const json& body = nullptr) {
  AVA_TRY(auto home, base::Home::resolve());
  auto backend = machine::find_running_backend(home);
  if (!backend) {
    std::fputs("ava: starting the backend for automations (ava backend stop ends it)\n", stderr);
    AVA_TRY(auto started, machine::start_backend(home, 0));
    backend = started.endpoint;
  }
  AVA_TRY(auto reply, machine::loopback_request(
                          static_cast<std::uint16_t>(backend->port), method, path, backend->token,
                          body.is_null() ? "" : body.dump(), std::chrono::seconds(30)));
  auto parsed = base::parse_json(reply.body);
  if (reply.status < 200 || reply.status >= 300) {
    std::string message = fmt::format("the backend answered {}", reply.status);
    if (parsed && parsed->is_object() && parsed->contains("error")) {
      message = (*parsed)["error"].value("message", message);
    }
    return fail(reply.status == 404 ? ErrorCode::not_found : ErrorCode::invalid_argument, message);
  }
  if (!parsed) return fail(ErrorCode::protocol, "the backend's answer is not JSON");
  return std::move(*parsed);
}

std::string encode(const std::string& segment) { return base::percent_encode(segment); }

std::string when(const json& ms) {
  if (!ms.is_number_integer()) return "-";
  const auto seconds = static_cast<std::time_t>(ms.get<std::int64_t>() / 1000);
  std::tm local{};
  localtime_r(&seconds, &local);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M", &local);
  return text;
}

void print(const json& value, bool as_json) {
  if (as_json) std::printf("%s\n", value.dump(2).c_str());
}

void print_automation(const json& a) {
  std::printf("%s  %s %s (%s)%s\n", a.value("name", "").c_str(),
              a.value("scheduleKind", "").c_str(), a.value("schedule", "").c_str(),
              a.value("timeZone", "").c_str(), a.value("enabled", true) ? "" : "  [paused]");
  std::printf("  project  %s\n  prompt   %s\n  next     %s\n", a.value("project", "").c_str(),
              a.value("prompt", "").substr(0, 100).c_str(),
              when(a.value("nextRunMs", json())).c_str());
  if (const auto last = a.value("lastRun", json()); last.is_object()) {
    std::printf("  last     %s %s %s\n", when(last.value("scheduledMs", json())).c_str(),
                last.value("state", "").c_str(), last.value("error", "").c_str());
  }
}

Result<int> add(const AutomationFlags& f) {
  std::error_code ec;
  json body{
      {"name", f.name},
      {"project",
       fs::weakly_canonical(fs::absolute(f.project.empty() ? "." : f.project, ec), ec).string()},
      {"prompt", f.prompt}};
  const int schedules = !f.cron.empty() + !f.every.empty() + !f.at.empty();
  if (schedules != 1) {
    return usage_error(command_name,
                       {ErrorCode::invalid_argument, "give one of --cron, --every and --at"});
  }
  if (!f.cron.empty()) body["cron"] = f.cron;
  if (!f.every.empty()) body["every"] = f.every;
  if (!f.at.empty()) body["at"] = f.at;
  if (!f.time_zone.empty()) body["timeZone"] = f.time_zone;
  if (!f.provider.empty()) body["provider"] = f.provider;
  if (!f.model.empty()) body["model"] = f.model;
  if (!f.permission_mode.empty()) body["permissionMode"] = f.permission_mode;
  if (!f.allowed_tools.empty()) body["allowedTools"] = f.allowed_tools;
  if (!f.disallowed_tools.empty()) body["disallowedTools"] = f.disallowed_tools;
  if (!f.overlap.empty()) body["overlap"] = f.overlap;
  if (!f.missed.empty()) body["missed"] = f.missed;
  if (f.max_running > 0) body["maxRunning"] = f.max_running;
  if (f.time_limit > 0) body["timeLimitSeconds"] = f.time_limit;
  if (f.keep_runs > 0) body["keepRuns"] = f.keep_runs;
  AVA_TRY(auto added, call("POST", "/api/automations", body));
  if (f.json) {
    print(added, true);
  } else {
    std::printf("Added automation %s; next run %s\n", added.value("name", "").c_str(),
                when(added.value("nextRunMs", json())).c_str());
  }
  return 0;
}

Result<int> list(const AutomationFlags& f) {
  AVA_TRY(auto listed, call("GET", "/api/automations"));
  if (f.json) {
    print(listed, true);
    return 0;
  }
  const auto& all = listed["automations"];
  if (all.empty())
    std::puts("No automations. Add one: ava automation add NAME --prompt ... --cron ...");
  for (const auto& a : all) print_automation(a);
  return 0;
}

Result<int> show(const AutomationFlags& f) {
  AVA_TRY(auto found, call("GET", "/api/automations/" + encode(f.name)));
  if (f.json) {
    print(found, true);
  } else {
    print_automation(found);
  }
  return 0;
}

Result<int> act(const AutomationFlags& f, std::string_view method, const std::string& suffix,
                const char* done) {
  AVA_TRY(auto answer, call(method, "/api/automations/" + encode(f.name) + suffix, json::object()));
  if (f.json) {
    print(answer, true);
  } else {
    std::printf("%s %s\n", done, f.name.c_str());
  }
  return 0;
}

Result<int> run_now(const AutomationFlags& f) {
  AVA_TRY(auto occurrence,
          call("POST", "/api/automations/" + encode(f.name) + "/run", json::object()));
  if (f.json) {
    print(occurrence, true);
  } else {
    std::printf("Started %s: %s, conversation %s\n", f.name.c_str(),
                occurrence.value("state", "").c_str(),
                occurrence.value("conversationId", "").c_str());
  }
  return occurrence.value("state", "") == "failed" ? 1 : 0;
}

Result<int> history(const AutomationFlags& f) {
  AVA_TRY(auto listed, call("GET", fmt::format("/api/automations/{}/history?limit={}",
                                               encode(f.name), f.limit)));
  if (f.json) {
    print(listed, true);
    return 0;
  }
  for (const auto& o : listed["occurrences"]) {
    std::printf("%s  %-11s %-8s %s %s\n", when(o.value("scheduledMs", json())).c_str(),
                o.value("state", "").c_str(), o.value("trigger", "").c_str(),
                o.value("conversationId", "").c_str(), o.value("error", "").c_str());
  }
  return 0;
}

}  // namespace

void add_automation_commands(CLI::App& cli, CliContext& context) {
  auto* automation = cli.add_subcommand("automation", "Scheduled prompts the backend runs");
  automation->require_subcommand(1);
  auto run = [&context](CLI::App* command, std::shared_ptr<AutomationFlags> flags,
                        std::function<Result<int>(const AutomationFlags&)> body) {
    command->add_flag("--json", flags->json, "Print JSON");
    command->callback([&context, flags, body] { finish(context, command_name, body(*flags)); });
  };

  auto flags = std::make_shared<AutomationFlags>();
  auto* add_command = automation->add_subcommand("add", "Add an automation");
  add_command->add_option("name", flags->name, "Its name (a-z A-Z 0-9 . _ -)")->required();
  add_command->add_option("--project", flags->project, "The project folder (default: this one)");
  add_command->add_option("--prompt", flags->prompt, "What to ask, or a /command")->required();
  add_command->add_option("--cron", flags->cron, "A cron expression: \"0 9 * * mon-fri\"");
  add_command->add_option("--every", flags->every, "An interval: 10m, 2h, 1d");
  add_command->add_option("--at", flags->at, "One time: \"2026-12-24 18:00\"");
  add_command->add_option("--tz", flags->time_zone, "IANA time zone (default UTC)");
  add_command->add_option("--provider", flags->provider, "Provider (default: settings)");
  add_command->add_option("--model", flags->model, "Model (default: settings)");
  add_command->add_option("--permission-mode", flags->permission_mode,
                          "ask, accept-edits, plan or auto (default auto, in the sandbox)");
  add_command->add_option("--allowed-tools", flags->allowed_tools, "Rules to allow");
  add_command->add_option("--disallowed-tools", flags->disallowed_tools, "Rules to deny");
  add_command->add_option("--overlap", flags->overlap, "skip (default), queue or allow");
  add_command->add_option("--max-running", flags->max_running, "With --overlap allow: at most");
  add_command->add_option("--missed", flags->missed, "skip (default) or run-once");
  add_command->add_option("--time-limit", flags->time_limit, "Seconds a run may take (1800)");
  add_command->add_option("--keep-runs", flags->keep_runs, "Occurrences kept (100)");
  run(add_command, flags, add);

  auto list_flags = std::make_shared<AutomationFlags>();
  run(automation->add_subcommand("list", "List automations, their next and last runs"), list_flags,
      list);

  struct Verb {
    const char* name;
    const char* help;
    std::function<Result<int>(const AutomationFlags&)> body;
  };
  const std::vector<Verb> verbs = {
      {"show", "Show one automation", show},
      {"pause", "Stop scheduling it (runs started go on)",
       [](const AutomationFlags& f) { return act(f, "POST", "/pause", "Paused"); }},
      {"resume", "Schedule it again (missed runs are not caught up)",
       [](const AutomationFlags& f) { return act(f, "POST", "/resume", "Resumed"); }},
      {"remove", "Remove it and its history (conversations stay)",
       [](const AutomationFlags& f) { return act(f, "DELETE", "", "Removed"); }},
      {"run-now", "Run it now, whatever its schedule", run_now},
      {"history", "Its occurrences, newest first", history},
  };
  for (const auto& verb : verbs) {
    auto verb_flags = std::make_shared<AutomationFlags>();
    auto* command = automation->add_subcommand(verb.name, verb.help);
    command->add_option("name", verb_flags->name, "The automation's name or id")->required();
    if (std::string_view(verb.name) == "history") {
      command->add_option("--limit", verb_flags->limit, "How many (1-1000)")->capture_default_str();
    }
    run(command, verb_flags, verb.body);
  }
}

}  // namespace ava::cli
