#include "ava/machine/backend.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include <fmt/format.h>

#include "ava/base/json.hpp"
#include "ava/machine/loopback_client.hpp"
#include "ava/machine/ownership.hpp"

namespace ava::machine {
namespace {

using namespace std::chrono_literals;

std::string log_tail(const std::filesystem::path& log) {
  std::FILE* file = std::fopen(log.c_str(), "r");
  if (file == nullptr) return "";
  std::fseek(file, -2048, SEEK_END);
  std::string text(2048, '\0');
  text.resize(std::fread(text.data(), 1, text.size(), file));
  std::fclose(file);
  return text;
}

// The detached child: its own session, no terminal, output to the log.
[[noreturn]] void exec_backend(const std::filesystem::path& binary,
                               const std::filesystem::path& log, const std::string& port) {
  ::setsid();
  const int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  const int log_fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (null_fd >= 0) ::dup2(null_fd, STDIN_FILENO);
  if (log_fd >= 0) {
    ::dup2(log_fd, STDOUT_FILENO);
    ::dup2(log_fd, STDERR_FILENO);
  }
  ::execl(binary.c_str(), "ava-backend", "--port", port.c_str(), static_cast<char*>(nullptr));
  std::fprintf(stderr, "ava: cannot run %s\n", binary.c_str());
  ::_exit(127);
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

}  // namespace

std::filesystem::path backend_binary() {
  if (const char* env = std::getenv("AVA_BACKEND_BIN"); env != nullptr && *env != '\0') return env;
  std::array<char, 4096> buffer{};
  const ssize_t n = ::readlink("/proc/self/exe", buffer.data(), buffer.size() - 1);
  if (n <= 0) return "ava-backend";
  return std::filesystem::path(std::string(buffer.data(), static_cast<std::size_t>(n)))
             .parent_path() /
         "ava-backend";
}

std::optional<BackendEndpoint> find_running_backend(const base::Home& home) {
  auto endpoint = read_backend_file(home);
  if (!endpoint) return std::nullopt;
  auto health = loopback_request(endpoint->port, "GET", "/api/health", endpoint->token, 2s);
  if (!health || health->status != 200) return std::nullopt;
  auto body = base::parse_json(health->body);
  if (!body || base::json_field<std::int64_t>(*body, "pid") != endpoint->pid) return std::nullopt;
  return *endpoint;
}

Result<StartedBackend> start_backend(const base::Home& home, int port,
                                     std::chrono::seconds deadline) {
  auto logs = home.ensure_dir("logs");
  if (!logs) return std::unexpected(std::move(logs).error());
  const auto log = *logs / "backend.log";
  if (auto running = find_running_backend(home)) {
    return StartedBackend{.endpoint = *running, .log = log, .already_running = true};
  }
  if (auto owner = probe_owner(home); owner && owner->has_value()) {
    return fail(
        ErrorCode::conflict,
        fmt::format("{} is owned by another API server (pid {}), not a backend that answers",
                    home.root().string(), owner->value().pid));
  }
  const auto binary = backend_binary();
  const std::string port_text = std::to_string(port);
  const pid_t child = ::fork();
  if (child < 0) return base::fail_errno("fork", errno);
  if (child == 0) exec_backend(binary, log, port_text);
  const auto until = std::chrono::steady_clock::now() + deadline;
  while (std::chrono::steady_clock::now() < until) {
    int status = 0;
    if (::waitpid(child, &status, WNOHANG) == child) {
      return fail(ErrorCode::unavailable,
                  fmt::format("ava-backend exited during start-up; {} ends with:\n{}", log.string(),
                              log_tail(log)));
    }
    if (auto running = find_running_backend(home); running && running->pid == child) {
      return StartedBackend{.endpoint = *running, .log = log};
    }
    std::this_thread::sleep_for(20ms);
  }
  return fail(ErrorCode::timeout,
              fmt::format("ava-backend (pid {}) did not become healthy within {} s; see {}", child,
                          deadline.count(), log.string()));
}

Result<StopOutcome> stop_backend(const base::Home& home, std::chrono::seconds deadline) {
  auto endpoint = read_backend_file(home);
  auto owner = probe_owner(home);
  if (!owner) return std::unexpected(std::move(owner).error());
  const bool owned = owner->has_value();
  const pid_t owner_pid = owned ? owner->value().pid : 0;
  if (!endpoint) {
    if (!owned) return StopOutcome::not_running;
    return fail(ErrorCode::conflict,
                fmt::format("pid {} owns {} but is not a backend (ava --serve?); stop it there",
                            owner_pid, home.root().string()));
  }
  if (!owned) {
    remove_backend_file(home);
    return StopOutcome::removed_stale_file;
  }
  auto reply = loopback_request(endpoint->port, "POST", "/api/shutdown", endpoint->token);
  if (!reply || reply->status != 202) {
    // Not answering: ask the owner to stop the way a service manager would.
    if (owner_pid > 0) ::kill(owner_pid, SIGTERM);
  }
  if (!wait_released(home, deadline)) {
    return fail(ErrorCode::timeout, fmt::format("ava-backend (pid {}) did not stop within {} s",
                                                owner_pid, deadline.count()));
  }
  return StopOutcome::stopped;
}

Result<std::chrono::milliseconds> stop_when_idle(const base::Home& home,
                                                 const BackendEndpoint& running,
                                                 std::chrono::seconds max_wait) {
  const auto started = std::chrono::steady_clock::now();
  const std::string body = fmt::format(R"({{"whenIdle":true,"maxWaitMs":{}}})",
                                       std::chrono::milliseconds(max_wait).count());
  auto reply = loopback_request(running.port, "POST", "/api/shutdown", running.token, body,
                                std::chrono::seconds(10));
  if (!reply) return std::unexpected(std::move(reply).error());
  if (reply->status != 202) {
    return fail(ErrorCode::protocol,
                fmt::format("the backend refused to restart when idle: {}", reply->body));
  }
  // The backend gives up waiting at max_wait; a little longer here sees
  // either its exit or its return to work.
  if (!wait_released(home, max_wait + std::chrono::seconds(5))) {
    return fail(ErrorCode::conflict,
                fmt::format("turns were still running after {} s: ava-backend (pid {}) keeps"
                            " running version {}; the update stays pending (try again later)",
                            max_wait.count(), running.pid, running.version));
  }
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                               started);
}

Result<BackendEndpoint> wait_for_backend(const base::Home& home, std::chrono::seconds deadline) {
  const auto until = std::chrono::steady_clock::now() + deadline;
  while (std::chrono::steady_clock::now() < until) {
    if (auto running = find_running_backend(home)) return *running;
    std::this_thread::sleep_for(50ms);
  }
  return fail(ErrorCode::timeout, fmt::format("no backend of {} answered within {} s",
                                              home.root().string(), deadline.count()));
}

Result<RestartOutcome> restart_backend(const base::Home& home, bool when_idle,
                                       std::chrono::seconds max_wait, int port) {
  RestartOutcome outcome;
  auto running = find_running_backend(home);
  outcome.was_running = running.has_value();
  if (running && when_idle) {
    AVA_TRY(outcome.waited, stop_when_idle(home, *running, max_wait));
  } else if (running) {
    AVA_TRY(auto stopped, stop_backend(home));
    (void)stopped;
  }
  AVA_TRY(outcome.started, start_backend(home, port));
  return outcome;
}

Result<std::string> backend_login_url(const BackendEndpoint& backend) {
  auto reply = loopback_request(backend.port, "POST", "/api/login-codes", backend.token);
  if (!reply) return std::unexpected(std::move(reply).error());
  if (reply->status != 201) {
    return fail(ErrorCode::protocol,
                fmt::format("the backend did not give a login code: {}", reply->body));
  }
  auto body = base::parse_json(reply->body);
  auto url = body ? base::json_field<std::string>(*body, "url") : std::nullopt;
  if (!url) return fail(ErrorCode::protocol, "the backend's login answer has no url");
  return *url;
}

}  // namespace ava::machine
