// `ava service install|uninstall|status|logs`: ava-backend as a user service
// (systemd on Linux, launchd on macOS), started at login, restarted on failure.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>

#include <nlohmann/json.hpp>

#include "ava/machine/backend.hpp"
#include "ava/service/service.hpp"
#include "cli/commands.hpp"

namespace ava::cli {
namespace {

constexpr CommandName command_name{.name = "service"};

Result<service::ServiceSpec> spec_for(const base::Home& home, std::string_view manager = "") {
  auto chosen = service::native_manager();
  if (manager == "systemd") chosen = service::Manager::systemd;
  if (manager == "launchd") chosen = service::Manager::launchd;
  return service::service_spec(home, machine::backend_binary(), chosen);
}

Result<int> install(const base::Home& home, bool print_only, const std::string& manager,
                    int max_wait_s) {
  if (!print_only && !manager.empty()) {
    return usage_error(command_name, Error{ErrorCode::invalid_argument,
                                           "--manager only goes with --print: a service is "
                                           "installed for this system's own manager"});
  }
  AVA_TRY(auto spec, spec_for(home, manager));
  if (print_only) {
    std::printf("# %s\n%s", spec.definition.c_str(), service::definition_text(spec).c_str());
    return 0;
  }
  if (::access(spec.backend.c_str(), X_OK) != 0) {
    return fail(ErrorCode::not_found, "cannot run " + spec.backend.string() + ": " +
                                          std::strerror(errno) +
                                          " (set AVA_BACKEND_BIN to the ava-backend to install)");
  }
  AVA_TRY(auto outcome, service::install(spec, std::chrono::seconds(max_wait_s)));
  if (outcome.stopped_detached) {
    std::printf("the ava-backend started by hand stopped; the service runs it from now on\n");
  }
  std::printf("%s %s (%s)\n", outcome.replaced ? "updated" : "installed", spec.name.c_str(),
              spec.definition.c_str());
  std::printf(
      "ava-backend is running at %s (pid %d); it starts at login and restarts if it "
      "fails\n",
      outcome.endpoint.url().c_str(), static_cast<int>(outcome.endpoint.pid));
  return 0;
}

Result<int> uninstall(const base::Home& home) {
  AVA_TRY(auto spec, spec_for(home));
  AVA_TRY_VOID(service::uninstall(spec));
  std::printf("removed %s; the backend is stopped (start one by hand with `ava backend start`)\n",
              spec.name.c_str());
  return 0;
}

// Exit 0 when the service runs, 3 when it does not (installed or not).
Result<int> status(const base::Home& home, bool json) {
  AVA_TRY(auto spec, spec_for(home));
  AVA_TRY(auto state, service::status(spec));
  const auto running = machine::find_running_backend(home);
  if (json) {
    nlohmann::json out{
        {"name", spec.name},
        {"manager", spec.manager == service::Manager::systemd ? "systemd" : "launchd"},
        {"definition", spec.definition.string()},
        {"installed", state.installed},
        {"enabled", state.enabled},
        {"active", state.active},
        {"detail", state.detail},
        {"home", home.root().string()},
        {"backendRunning", running.has_value()}};
    if (running) out["url"] = running->url();
    std::printf("%s\n", out.dump(2).c_str());
  } else {
    std::printf("service    %s (%s)\n", spec.name.c_str(),
                state.installed ? spec.definition.c_str() : "not installed");
    std::printf("state      %s%s\n", state.detail.c_str(),
                state.enabled ? ", starts at login" : "");
    if (running) {
      std::printf("backend    running at %s (pid %d)\n", running->url().c_str(),
                  static_cast<int>(running->pid));
    } else {
      std::printf("backend    not running\n");
    }
    if (!state.installed) std::printf("install it with `ava service install`\n");
  }
  return state.active ? 0 : 3;
}

// Replaces this process with the manager's log viewer.
Result<int> logs(const base::Home& home, int lines, bool follow) {
  AVA_TRY(auto spec, spec_for(home));
  const auto argv_text = service::logs_command(spec, lines, follow);
  std::vector<char*> argv;
  for (const auto& word : argv_text) argv.push_back(const_cast<char*>(word.c_str()));
  argv.push_back(nullptr);
  std::fflush(stdout);
  ::execvp(argv[0], argv.data());
  return fail(ErrorCode::unavailable,
              "cannot run " + argv_text.front() + ": " + std::strerror(errno));
}

}  // namespace

void add_service_commands(CLI::App& cli, CliContext& context) {
  auto* group = cli.add_subcommand(
      "service",
      "Run ava-backend as a user service (systemd / launchd): at login, restarted on "
      "failure");
  group->require_subcommand(1);
  auto print_only = std::make_shared<bool>(false);
  auto max_wait = std::make_shared<int>(600);
  auto json = std::make_shared<bool>(false);
  auto lines = std::make_shared<int>(100);
  auto follow = std::make_shared<bool>(false);
  auto* install_cmd = group->add_subcommand(
      "install",
      "Install, enable and start the service (a backend started by hand hands over "
      "once idle)");
  install_cmd->add_flag("--print", *print_only, "Only print the definition and where it goes");
  auto manager = std::make_shared<std::string>();
  install_cmd
      ->add_option("--manager", *manager,
                   "With --print: the definition for systemd or launchd (default: this system's)")
      ->check(CLI::IsMember({"systemd", "launchd"}));
  install_cmd
      ->add_option("--max-wait", *max_wait,
                   "Seconds to wait for a running backend's turns to end (default 600)")
      ->check(CLI::Range(1, 86400));
  auto* uninstall_cmd =
      group->add_subcommand("uninstall", "Stop and disable the service and remove its definition");
  auto* status_cmd = group->add_subcommand(
      "status", "Report the service and its backend (exit 3 when it does not run)");
  status_cmd->add_flag("--json", *json, "Machine-readable output");
  auto* logs_cmd = group->add_subcommand("logs", "Show the service's log (journalctl on Linux)");
  logs_cmd->add_option("-n,--lines", *lines, "Lines to show (default 100)")
      ->check(CLI::Range(1, 1000000));
  logs_cmd->add_flag("-f,--follow", *follow, "Keep printing new lines");

  auto with_home = [&context](const std::function<Result<int>(const base::Home&)>& run) {
    auto home = base::Home::resolve();
    finish(context, command_name, home ? run(*home) : std::unexpected(std::move(home).error()));
  };
  install_cmd->callback([with_home, print_only, manager, max_wait] {
    with_home(
        [&](const base::Home& home) { return install(home, *print_only, *manager, *max_wait); });
  });
  uninstall_cmd->callback([with_home] { with_home(uninstall); });
  status_cmd->callback([with_home, json] {
    with_home([&](const base::Home& home) { return status(home, *json); });
  });
  logs_cmd->callback([with_home, lines, follow] {
    with_home([&](const base::Home& home) { return logs(home, *lines, *follow); });
  });
}

}  // namespace ava::cli
