#pragma once

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "ava/base/error.hpp"
#include "ava/base/home.hpp"
#include "ava/machine/backend.hpp"

// `ava service ...`: ava-backend started at login by the user's service
// manager and restarted when it fails: a systemd user unit on Linux, a
// launchd agent on macOS. One service per AVA_HOME: the default home's is
// `ava-backend`, another home's carries a hash of its path, so two homes
// never share (or fight over) one unit.
namespace ava::service {

enum class Manager { systemd, launchd };

// What a service runs, and where its definition lives.
struct ServiceSpec {
  Manager manager = Manager::systemd;
  std::string name;                  // "ava-backend" or "ava-backend-1a2b3c4d"
  std::filesystem::path backend;     // absolute path of ava-backend
  std::filesystem::path home;        // AVA_HOME it serves
  bool default_home = true;          // $HOME/.ava: no AVA_HOME in its environment
  std::filesystem::path definition;  // the unit file or plist it writes
  std::filesystem::path log;         // launchd only: AVA_HOME/logs/backend.log
};

// The spec for this machine's manager (systemd on Linux, launchd on macOS).
// `env` supplies HOME and XDG_CONFIG_HOME; the backend path must be absolute
// and, like the home, printable in a unit (no control characters).
Result<ServiceSpec> service_spec(const base::Home& home, std::filesystem::path backend,
                                 Manager manager, const base::EnvLookup& env = base::process_env);
Manager native_manager();

// The definitions, as text. A path with spaces, quotes, `%` or `$` is quoted
// or escaped as systemd reads it; plist strings are XML-escaped.
std::string systemd_unit(const ServiceSpec& spec);
std::string launchd_plist(const ServiceSpec& spec);
std::string definition_text(const ServiceSpec& spec);

// What the manager says about a service.
struct ServiceStatus {
  bool installed = false;  // its definition file exists
  bool enabled = false;    // starts at login
  bool active = false;     // running now, as the manager sees it
  std::string detail;      // the manager's own words ("active (running)", "inactive", ...)
};

// Whether the user's service manager can be used here. systemd: `systemctl
// --user` answers (it cannot without a user session, e.g. in a container or
// over plain `su`); the error says why and names `ava backend start` as the
// way to run without one.
Result<void> manager_available(const ServiceSpec& spec);

// Writes the definition (0644, atomically), reloads the manager, enables the
// service and starts it. A backend already running for the home outside the
// service is first asked to stop once no turn runs (up to `max_wait`), so the
// service does not start into a home another process owns.
struct InstallOutcome {
  bool replaced = false;          // a definition was there before
  bool stopped_detached = false;  // a detached backend handed the home over
  machine::BackendEndpoint endpoint;
};
Result<InstallOutcome> install(const ServiceSpec& spec, std::chrono::seconds max_wait);

// Stops and disables the service and removes its definition. not_found when
// none is installed.
Result<void> uninstall(const ServiceSpec& spec);

Result<ServiceStatus> status(const ServiceSpec& spec);

// Restarts the service into the ava-backend it names (an update): with
// `when_idle`, the backend first stops once no turn runs (conflict, the old
// one still serving, when turns outlast max_wait), then the manager starts it
// again. Returns the new endpoint.
Result<machine::RestartOutcome> restart(const ServiceSpec& spec, const base::Home& home,
                                        bool when_idle, std::chrono::seconds max_wait);

// The command that shows the service's log: journalctl for systemd (the
// backend writes to stderr, which the journal keeps), `tail` of the log file
// for launchd. `follow` keeps printing.
std::vector<std::string> logs_command(const ServiceSpec& spec, int lines, bool follow);

}  // namespace ava::service
