#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>

#include "ava/base/error.hpp"
#include "ava/base/home.hpp"
#include "ava/machine/runtime_files.hpp"

// Finding, starting and stopping the persistent backend of an AVA_HOME:
// what `ava backend ...` does, without the printing, so every client of a
// machine (the CLI today; the desktop and remote machines next) shares it.
namespace ava::machine {

// Where ava-backend is: AVA_BACKEND_BIN, else beside the running binary.
std::filesystem::path backend_binary();

// The backend of `home` that answers its health route with the pid that
// backend.json names; nullopt when there is none (or only a stale file).
std::optional<BackendEndpoint> find_running_backend(const base::Home& home);

struct StartedBackend {
  BackendEndpoint endpoint;
  std::filesystem::path log;     // AVA_HOME/logs/backend.log
  bool already_running = false;  // found, not started
};

// Finds the running backend, else forks ava-backend detached (its own
// session, output to the log) and waits up to `deadline` until it answers.
// Fails when another API server owns the home, when the child exits during
// start-up (the message ends with the log's tail) or stays unhealthy.
Result<StartedBackend> start_backend(const base::Home& home, int port,
                                     std::chrono::seconds deadline = std::chrono::seconds(15));

enum class StopOutcome { stopped, not_running, removed_stale_file };

// Asks the backend to shut down (POST /api/shutdown, else SIGTERM to the
// owner) and waits up to `deadline` for the ownership lock to be released.
// Refuses to stop an owner that is not a backend (`ava --serve`).
Result<StopOutcome> stop_backend(const base::Home& home,
                                 std::chrono::seconds deadline = std::chrono::seconds(60));

// Restarts the backend into the ava-backend beside this binary (an update).
// `when_idle`: the running backend refuses new inputs and stops once no turn
// runs; if turns still run after `max_wait`, it takes inputs again, keeps
// running and this fails with conflict ("update pending"): a turn is never
// cancelled by a restart. Otherwise it stops as stop_backend does. Either
// way the new backend starts on `port` (0: any). Starts one when none runs.
struct RestartOutcome {
  StartedBackend started;
  bool was_running = false;
  std::chrono::milliseconds waited{0};  // for the running turns to end
};
Result<RestartOutcome> restart_backend(const base::Home& home, bool when_idle,
                                       std::chrono::seconds max_wait, int port);

// The when-idle half of a restart: asks `running` to stop once no turn runs
// and waits for the home to be released; conflict when turns outlast
// max_wait (the backend then keeps serving). Returns how long it waited.
Result<std::chrono::milliseconds> stop_when_idle(const base::Home& home,
                                                 const BackendEndpoint& running,
                                                 std::chrono::seconds max_wait);

// Waits until a backend of `home` answers (one a service manager starts).
Result<BackendEndpoint> wait_for_backend(const base::Home& home, std::chrono::seconds deadline);

// A one-time login URL for the backend's web UI (POST /api/login-codes).
Result<std::string> backend_login_url(const BackendEndpoint& backend);

}  // namespace ava::machine
