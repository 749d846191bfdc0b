// `ava backend start|stop|status`: the persistent backend of this AVA_HOME.
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <thread>

#include <nlohmann/json.hpp>

#include "app/commands.hpp"
#include "app/loopback_client.hpp"
#include "app/ownership.hpp"
#include "app/runtime_files.hpp"
#include "ava/base/json.hpp"
#include "ava/base/open_url.hpp"

namespace ava::app {
namespace {

using namespace std::chrono_literals;

std::filesystem::path backend_binary() {
  if (const char* env = std::getenv("AVA_BACKEND_BIN"); env != nullptr && *env != '\0') return env;
  std::array<char, 4096> buffer{};
  const ssize_t n = ::readlink("/proc/self/exe", buffer.data(), buffer.size() - 1);
  if (n <= 0) return "ava-backend";
  return std::filesystem::path(std::string(buffer.data(), static_cast<std::size_t>(n)))
             .parent_path() /
         "ava-backend";
}

// The running backend of `home`, answering its health route; nullopt otherwise.
std::optional<BackendEndpoint> running_backend(const base::Home& home) {
  auto endpoint = read_backend_file(home);
  if (!endpoint) return std::nullopt;
  auto health = loopback_request(endpoint->port, "GET", "/api/health", endpoint->token, 2s);
  if (!health || health->status != 200) return std::nullopt;
  auto body = nlohmann::json::parse(health->body, nullptr, false);
  if (body.is_discarded() || body.value("pid", 0) != endpoint->pid) return std::nullopt;
  return *endpoint;
}

std::string log_tail(const std::filesystem::path& log) {
  std::FILE* file = std::fopen(log.c_str(), "r");
  if (file == nullptr) return "";
  std::fseek(file, -2048, SEEK_END);
  std::string text(2048, '\0');
  text.resize(std::fread(text.data(), 1, text.size(), file));
  std::fclose(file);
  return text;
}

int start(const base::Home& home, int port) {
  if (auto running = running_backend(home)) {
    std::printf("ava-backend is running at %s (pid %d)\n", running->url().c_str(),
                static_cast<int>(running->pid));
    return 0;
  }
  if (auto owner = probe_owner(home); owner && owner->has_value()) {
    std::fprintf(stderr,
                 "ava: %s is owned by another API server (pid %d), not a backend that answers\n",
                 home.root().c_str(), static_cast<int>(owner->value().pid));
    return 1;
  }
  auto logs = home.ensure_dir("logs");
  if (!logs) {
    std::fprintf(stderr, "ava: %s\n", logs.error().message.c_str());
    return 1;
  }
  const auto log = *logs / "backend.log";
  const auto binary = backend_binary();
  const std::string port_text = std::to_string(port);
  const pid_t child = ::fork();
  if (child < 0) {
    std::perror("ava: fork");
    return 1;
  }
  if (child == 0) {
    // Detached: its own session, no terminal, output to the log.
    ::setsid();
    const int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    const int log_fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (null_fd >= 0) ::dup2(null_fd, STDIN_FILENO);
    if (log_fd >= 0) {
      ::dup2(log_fd, STDOUT_FILENO);
      ::dup2(log_fd, STDERR_FILENO);
    }
    ::execl(binary.c_str(), "ava-backend", "--port", port_text.c_str(),
            static_cast<char*>(nullptr));
    std::fprintf(stderr, "ava: cannot run %s\n", binary.c_str());
    ::_exit(127);
  }
  const auto deadline = std::chrono::steady_clock::now() + 15s;
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    if (::waitpid(child, &status, WNOHANG) == child) {
      std::fprintf(stderr, "ava: ava-backend exited during start-up; %s ends with:\n%s",
                   log.c_str(), log_tail(log).c_str());
      return 1;
    }
    if (auto running = running_backend(home); running && running->pid == child) {
      std::printf("ava-backend is running at %s (pid %d, log %s)\n", running->url().c_str(),
                  static_cast<int>(child), log.c_str());
      return 0;
    }
    std::this_thread::sleep_for(20ms);
  }
  std::fprintf(stderr, "ava: ava-backend (pid %d) did not become healthy within 15 s; see %s\n",
               static_cast<int>(child), log.c_str());
  return 1;
}

bool wait_released(const base::Home& home, std::chrono::seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    auto owner = probe_owner(home);
    if (owner && !*owner) return true;
    std::this_thread::sleep_for(20ms);
  }
  return false;
}

int stop(const base::Home& home) {
  auto endpoint = read_backend_file(home);
  auto owner = probe_owner(home);
  if (!owner) {
    std::fprintf(stderr, "ava: %s\n", owner.error().message.c_str());
    return 1;
  }
  const bool owned = owner->has_value();
  const pid_t owner_pid = owned ? owner->value().pid : 0;
  if (!endpoint) {
    if (owned) {
      std::fprintf(stderr,
                   "ava: pid %d owns %s but is not a backend (ava --serve?); stop it there\n",
                   static_cast<int>(owner_pid), home.root().c_str());
      return 1;
    }
    std::printf("ava-backend is not running\n");
    return 0;
  }
  if (!owned) {
    remove_backend_file(home);
    std::printf("ava-backend is not running (removed a stale backend.json)\n");
    return 0;
  }
  auto reply = loopback_request(endpoint->port, "POST", "/api/shutdown", endpoint->token);
  if (!reply || reply->status != 202) {
    // Not answering: ask the owner to stop the way a service manager would.
    if (owner_pid > 0) ::kill(owner_pid, SIGTERM);
  }
  if (!wait_released(home, 60s)) {
    std::fprintf(stderr, "ava: ava-backend (pid %d) did not stop within 60 s\n",
                 static_cast<int>(owner_pid));
    return 1;
  }
  std::printf("ava-backend stopped\n");
  return 0;
}

int status(const base::Home& home, bool json) {
  auto running = running_backend(home);
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
int open_ui(const base::Home& home, bool open_browser) {
  auto running = running_backend(home);
  if (!running) {
    std::fprintf(stderr, "ava: ava-backend is not running (start it with `ava backend start`)\n");
    return 1;
  }
  auto reply = loopback_request(running->port, "POST", "/api/login-codes", running->token);
  if (!reply || reply->status != 201) {
    std::fprintf(stderr, "ava: the backend did not give a login code: %s\n",
                 reply ? reply->body.c_str() : reply.error().message.c_str());
    return 1;
  }
  auto body = base::parse_json(reply->body);
  const auto url = body ? base::json_field<std::string>(*body, "url") : std::nullopt;
  if (!url) {
    std::fprintf(stderr, "ava: the backend's login answer has no url\n");
    return 1;
  }
  std::printf("%s\n", url->c_str());
  std::fflush(stdout);
  if (open_browser) {
    if (auto opened = base::open_url(*url); !opened) {
      std::fprintf(stderr, "ava: %s\n", opened.error().message.c_str());
    }
  }
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
  auto no_open = std::make_shared<bool>(false);
  auto* open_cmd = backend->add_subcommand(
      "open", "Print (and open) a one-time login URL for the backend's web UI");
  open_cmd->add_flag("--no-open", *no_open, "Only print the URL");

  auto with_home = [&context](const std::function<int(const base::Home&)>& run) {
    auto home = base::Home::resolve();
    if (!home) {
      std::fprintf(stderr, "ava: %s\n", home.error().message.c_str());
      context.exit_code = 1;
      return;
    }
    context.exit_code = run(*home);
  };
  start_cmd->callback(
      [with_home, port] { with_home([&](const base::Home& home) { return start(home, *port); }); });
  stop_cmd->callback([with_home] { with_home(stop); });
  status_cmd->callback([with_home, json] {
    with_home([&](const base::Home& home) { return status(home, *json); });
  });
  open_cmd->callback([with_home, no_open] {
    with_home([&](const base::Home& home) { return open_ui(home, !*no_open); });
  });
}

}  // namespace ava::app
