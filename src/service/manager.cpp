// Installing, removing and asking about the service through systemctl or
// launchctl.
#include <unistd.h>

#include <optional>

#include <fmt/format.h>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>

#include "ava/base/private_file.hpp"
#include "ava/proc/run.hpp"
#include "ava/service/service.hpp"

namespace ava::service {
namespace {

namespace asio = boost::asio;
using namespace std::chrono_literals;

struct Ran {
  int code = -1;
  std::string out;
  std::string err;
  bool ok() const { return code == 0; }
  // What the command said, for a message: its stderr, else its stdout.
  std::string said() const {
    std::string text = err.empty() ? out : err;
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    return text;
  }
};

// Runs a manager's command to completion (they answer in well under the
// timeout; a hung bus is not waited on forever).
Result<Ran> run_command(std::vector<std::string> argv, std::chrono::seconds timeout = 60s) {
  asio::io_context io;
  std::optional<Result<proc::RunResult>> outcome;
  const std::string program = argv.empty() ? "" : argv.front();
  proc::RunOptions options;
  options.spawn.argv = std::move(argv);
  options.timeout = timeout;
  asio::co_spawn(io, proc::run(std::move(options)),
                 [&outcome](const std::exception_ptr& error, Result<proc::RunResult> done) {
                   if (error) std::rethrow_exception(error);
                   outcome = std::move(done);
                 });
  io.run();
  if (!outcome) return fail(ErrorCode::internal, "the service command ended without an outcome");
  if (!*outcome) return std::unexpected(std::move(*outcome).error());
  const auto& result = **outcome;
  if (result.timed_out) {
    return fail(ErrorCode::timeout,
                fmt::format("{} did not answer within {} s", program, timeout.count()));
  }
  return Ran{.code = result.status.signal == 0 ? result.status.code : 128 + result.status.signal,
             .out = result.out.text,
             .err = result.err.text};
}

Result<Ran> systemctl(std::vector<std::string> arguments) {
  arguments.insert(arguments.begin(), {"systemctl", "--user", "--no-pager"});
  return run_command(std::move(arguments));
}

Result<void> must(Result<Ran> ran, std::string_view what) {
  if (!ran) return std::unexpected(std::move(ran).error());
  if (!ran->ok()) {
    return fail(ErrorCode::unavailable, fmt::format("{} failed: {}", what, ran->said()));
  }
  return {};
}

std::string unit(const ServiceSpec& spec) { return spec.name + ".service"; }

std::string launchd_domain() { return fmt::format("gui/{}", ::getuid()); }

std::string launchd_target(const ServiceSpec& spec) {
  return launchd_domain() + "/dev.ava." + spec.name;
}

Result<void> write_definition(const ServiceSpec& spec) {
  std::error_code ec;
  std::filesystem::create_directories(spec.definition.parent_path(), ec);
  if (ec) {
    return fail(ErrorCode::io, fmt::format("cannot create {}: {}",
                                           spec.definition.parent_path().string(), ec.message()));
  }
  return base::write_private_file(spec.definition, definition_text(spec));
}

Result<void> start(const ServiceSpec& spec) {
  if (spec.manager == Manager::systemd) {
    AVA_TRY_VOID(must(systemctl({"daemon-reload"}), "systemctl --user daemon-reload"));
    // A unit that failed too often before would refuse to start.
    (void)systemctl({"reset-failed", unit(spec)});
    return must(systemctl({"enable", "--now", unit(spec)}),
                fmt::format("systemctl --user enable --now {}", unit(spec)));
  }
  (void)run_command({"launchctl", "bootout", launchd_target(spec)});
  return must(run_command({"launchctl", "bootstrap", launchd_domain(), spec.definition.string()}),
              "launchctl bootstrap");
}

}  // namespace

Result<void> manager_available(const ServiceSpec& spec) {
  if (spec.manager == Manager::launchd) {
    auto ran = run_command({"launchctl", "print", launchd_domain()}, 10s);
    if (ran && ran->ok()) return {};
    return fail(ErrorCode::unavailable,
                fmt::format("launchd has no session for this user ({}); run `ava backend start` "
                            "instead",
                            ran ? ran->said() : ran.error().message));
  }
  auto ran = systemctl({"show-environment"});
  if (ran && ran->ok()) return {};
  const std::string why = !ran ? ran.error().message : ran->said();
  return fail(ErrorCode::unavailable,
              fmt::format("systemd user services are not available here ({}); a user session "
                          "with its own systemd is needed (log in normally, or `loginctl "
                          "enable-linger $USER` for one that outlives logins). Without it, start "
                          "the backend with `ava backend start`",
                          why.empty() ? "systemctl --user does not answer" : why));
}

Result<InstallOutcome> install(const ServiceSpec& spec, std::chrono::seconds max_wait) {
  AVA_TRY_VOID(manager_available(spec));
  AVA_TRY(auto home, base::Home::at(spec.home));
  InstallOutcome outcome;
  outcome.replaced = std::filesystem::exists(spec.definition);
  AVA_TRY(auto before, status(spec));
  if (!before.active) {
    // A backend started by hand owns the home; the service's would fail.
    if (auto running = machine::find_running_backend(home)) {
      AVA_TRY(auto waited, machine::stop_when_idle(home, *running, max_wait));
      (void)waited;
      outcome.stopped_detached = true;
    }
  }
  AVA_TRY_VOID(write_definition(spec));
  if (before.active && spec.manager == Manager::systemd) {
    // An installed service picks up a changed definition at its next start;
    // an active one keeps running (an update restarts it when idle).
    AVA_TRY_VOID(must(systemctl({"daemon-reload"}), "systemctl --user daemon-reload"));
    AVA_TRY_VOID(must(systemctl({"enable", unit(spec)}), "systemctl --user enable"));
  } else {
    AVA_TRY_VOID(start(spec));
  }
  AVA_TRY(outcome.endpoint, machine::wait_for_backend(home, 15s));
  return outcome;
}

Result<void> uninstall(const ServiceSpec& spec) {
  if (!std::filesystem::exists(spec.definition)) {
    return fail(ErrorCode::not_found, fmt::format("no service is installed ({} does not exist)",
                                                  spec.definition.string()));
  }
  AVA_TRY_VOID(manager_available(spec));
  if (spec.manager == Manager::systemd) {
    AVA_TRY_VOID(must(systemctl({"disable", "--now", unit(spec)}),
                      fmt::format("systemctl --user disable --now {}", unit(spec))));
  } else {
    (void)run_command({"launchctl", "bootout", launchd_target(spec)});
  }
  std::error_code ec;
  std::filesystem::remove(spec.definition, ec);
  if (ec) {
    return fail(ErrorCode::io,
                fmt::format("cannot remove {}: {}", spec.definition.string(), ec.message()));
  }
  if (spec.manager == Manager::systemd) {
    AVA_TRY_VOID(must(systemctl({"daemon-reload"}), "systemctl --user daemon-reload"));
  }
  return {};
}

Result<ServiceStatus> status(const ServiceSpec& spec) {
  ServiceStatus answer;
  answer.installed = std::filesystem::exists(spec.definition);
  if (spec.manager == Manager::launchd) {
    auto ran = run_command({"launchctl", "print", launchd_target(spec)}, 10s);
    answer.active = ran && ran->ok() && ran->out.find("state = running") != std::string::npos;
    answer.enabled = answer.installed;
    answer.detail = answer.active ? "running" : answer.installed ? "not running" : "not installed";
    return answer;
  }
  if (manager_available(spec)) {
    auto active = systemctl({"is-active", unit(spec)});
    auto enabled = systemctl({"is-enabled", unit(spec)});
    answer.active = active && active->ok();
    answer.enabled = enabled && enabled->ok();
    answer.detail = active ? active->said() : active.error().message;
  } else {
    answer.detail = "systemd user services unavailable";
  }
  return answer;
}

Result<machine::RestartOutcome> restart(const ServiceSpec& spec, const base::Home& home,
                                        bool when_idle, std::chrono::seconds max_wait) {
  machine::RestartOutcome outcome;
  auto running = machine::find_running_backend(home);
  outcome.was_running = running.has_value();
  if (running && when_idle) {
    AVA_TRY(outcome.waited, machine::stop_when_idle(home, *running, max_wait));
  }
  if (spec.manager == Manager::systemd) {
    // After a clean stop the unit is inactive and `restart` starts it; for a
    // running one it stops (SIGTERM: the backend's own shutdown) and starts.
    AVA_TRY_VOID(must(systemctl({"restart", unit(spec)}), "systemctl --user restart"));
  } else {
    AVA_TRY_VOID(must(run_command({"launchctl", "kickstart", "-k", launchd_target(spec)}),
                      "launchctl kickstart"));
  }
  AVA_TRY(outcome.started.endpoint, machine::wait_for_backend(home, 15s));
  outcome.started.log = spec.log;
  return outcome;
}

std::vector<std::string> logs_command(const ServiceSpec& spec, int lines, bool follow) {
  if (spec.manager == Manager::systemd) {
    std::vector<std::string> argv{"journalctl", "--user", "--no-pager",         "-u",
                                  unit(spec),   "-n",     std::to_string(lines)};
    if (follow) argv.emplace_back("-f");
    return argv;
  }
  std::vector<std::string> argv{"tail", "-n", std::to_string(lines)};
  if (follow) argv.emplace_back("-f");
  argv.push_back(spec.log.string());
  return argv;
}

}  // namespace ava::service
