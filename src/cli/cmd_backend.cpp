// `ava backend start|stop|status`: the persistent backend of this AVA_HOME.
#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>

#include <nlohmann/json.hpp>

#include "ava/base/open_url.hpp"
#include "ava/machine/backend.hpp"
#include "ava/service/service.hpp"
#include "cli/commands.hpp"
#include "cli/progress_line.hpp"

namespace ava::cli {
namespace {

// Failures print as "ava: <message>".
constexpr CommandName command_name{};

Result<int> start(const base::Home& home, int port) {
  auto started_or = [&] {
    ProgressLine progress("starting the backend");
    return machine::start_backend(home, port);
  }();
  AVA_TRY(auto started, std::move(started_or));
  const auto& endpoint = started.endpoint;
  if (started.already_running) {
    std::printf("ava-backend is running at %s (pid %d)\n", endpoint.url().c_str(),
                static_cast<int>(endpoint.pid));
  } else {
    std::printf("ava-backend is running at %s (pid %d, log %s)\n", endpoint.url().c_str(),
                static_cast<int>(endpoint.pid), started.log.c_str());
  }
  return 0;
}

Result<int> stop(const base::Home& home) {
  AVA_TRY(auto stopped, machine::stop_backend(home));
  switch (stopped) {
    case machine::StopOutcome::stopped: std::printf("ava-backend stopped\n"); break;
    case machine::StopOutcome::not_running: std::printf("ava-backend is not running\n"); break;
    case machine::StopOutcome::removed_stale_file:
      std::printf("ava-backend is not running (removed a stale backend.json)\n");
      break;
  }
  return 0;
}

// Not running is an answer, not a failure: exit 3, for scripts.
Result<int> status(const base::Home& home, bool json) {
  auto running = machine::find_running_backend(home);
  if (json) {
    nlohmann::json out{{"running", running.has_value()}, {"home", home.root().string()}};
    if (running) {
      out["url"] = running->url();
      out["pid"] = running->pid;
      out["version"] = running->version;
      out["machineId"] = running->machine_id;
      out["startedMs"] = running->started_ms;
    }
    std::printf("%s\n", out.dump(2).c_str());
  } else if (running) {
    std::printf("ava-backend is running at %s (pid %d, version %s)\n", running->url().c_str(),
                static_cast<int>(running->pid), running->version.c_str());
  } else {
    std::printf("ava-backend is not running\n");
  }
  return running ? 0 : 3;
}

// Prints a one-time login URL for the running backend's web UI (and opens
// it in a browser unless told not to), so a browser can work on the same
// home as the desktop.
Result<int> open_ui(const base::Home& home, bool open_browser) {
  auto running = machine::find_running_backend(home);
  if (!running) {
    return fail(ErrorCode::unavailable,
                "ava-backend is not running (start it with `ava backend start`)");
  }
  AVA_TRY(auto url, machine::backend_login_url(*running));
  std::printf("%s\n", url.c_str());
  std::fflush(stdout);
  // The URL is printed: a browser that does not open is only a note.
  if (open_browser) {
    if (auto opened = base::open_url(url); !opened) {
      std::fprintf(stderr, "ava: %s\n", opened.error().message.c_str());
    }
  }
  return 0;
}

// An update's restart: the ava-backend beside this binary replaces the
// running one; with --when-idle only once no turn runs (exit 1, the old
// backend still serving, when turns outlast --max-wait).
// Under an active service (`ava service install`) its manager starts the new
// backend, so it stays the service's process.
Result<machine::RestartOutcome> restart_any(const base::Home& home, bool when_idle,
                                            std::chrono::seconds max_wait, int port) {
  auto spec = service::service_spec(home, machine::backend_binary(), service::native_manager());
  if (spec) {
    if (auto state = service::status(*spec); state && state->active) {
      return service::restart(*spec, home, when_idle, max_wait);
    }
  }
  ProgressLine progress(when_idle ? "restarting the backend when its turns end"
                                  : "restarting the backend");
  return machine::restart_backend(home, when_idle, max_wait, port);
}

Result<int> restart(const base::Home& home, bool when_idle, int max_wait_s, int port) {
  AVA_TRY(auto outcome, restart_any(home, when_idle, std::chrono::seconds(max_wait_s), port));
  const auto& endpoint = outcome.started.endpoint;
  if (!outcome.was_running) std::printf("ava-backend was not running; started it\n");
  if (when_idle && outcome.was_running) {
    std::printf("waited %.1f s for the running turns to end\n",
                static_cast<double>(outcome.waited.count()) / 1000.0);
  }
  std::printf("ava-backend %s is running at %s (pid %d)\n", endpoint.version.c_str(),
              endpoint.url().c_str(), static_cast<int>(endpoint.pid));
  return 0;
}

}  // namespace

void add_backend_commands(CLI::App& cli, CliContext& context) {
  auto* backend = cli.add_subcommand("backend", "Start, stop or check the persistent backend");
  backend->require_subcommand(1);
  auto port = std::make_shared<int>(0);
  auto json = std::make_shared<bool>(false);
  auto* start_cmd =
      backend->add_subcommand("start", "Start ava-backend detached and wait until it is healthy");
  start_cmd->add_option("--port", *port, "Port (default: any free one)")
      ->check(CLI::Range(0, 65535));
  auto* stop_cmd = backend->add_subcommand("stop", "Stop the backend gracefully");
  auto* status_cmd =
      backend->add_subcommand("status", "Report whether the backend runs (exit 3 when not)");
  status_cmd->add_flag("--json", *json, "Machine-readable output");
  auto when_idle = std::make_shared<bool>(false);
  auto max_wait = std::make_shared<int>(600);
  auto* restart_cmd = backend->add_subcommand(
      "restart", "Restart into the ava-backend beside this ava (an update)");
  restart_cmd->add_flag("--when-idle", *when_idle,
                        "Wait until no turn runs; new inputs are refused meanwhile");
  restart_cmd
      ->add_option("--max-wait", *max_wait,
                   "With --when-idle: give up after this many seconds (default 600)")
      ->check(CLI::Range(1, 86400));
  restart_cmd->add_option("--port", *port, "Port for the new backend (default: any free one)")
      ->check(CLI::Range(0, 65535));
  auto no_open = std::make_shared<bool>(false);
  auto* open_cmd = backend->add_subcommand(
      "open", "Print (and open) a one-time login URL for the backend's web UI");
  open_cmd->add_flag("--no-open", *no_open, "Only print the URL");

  auto with_home = [&context](const std::function<Result<int>(const base::Home&)>& run) {
    auto home = base::Home::resolve();
    finish(context, command_name, home ? run(*home) : std::unexpected(std::move(home).error()));
  };
  start_cmd->callback(
      [with_home, port] { with_home([&](const base::Home& home) { return start(home, *port); }); });
  stop_cmd->callback([with_home] { with_home(stop); });
  restart_cmd->callback([with_home, when_idle, max_wait, port] {
    with_home([&](const base::Home& home) { return restart(home, *when_idle, *max_wait, *port); });
  });
  status_cmd->callback([with_home, json] {
    with_home([&](const base::Home& home) { return status(home, *json); });
  });
  open_cmd->callback([with_home, no_open] {
    with_home([&](const base::Home& home) { return open_ui(home, !*no_open); });
  });
}

}  // namespace ava::cli
