// Hands a URL to the desktop's browser. Only http(s) URLs go out: the ones
// opened here come from peers (an authorization server's metadata), and
// xdg-open would happily run a file: or a custom scheme's handler.

#include "ava/base/open_url.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

#include <cerrno>
#include <csignal>
#include <thread>
#include <vector>

#include "ava/base/text.hpp"

extern char** environ;  // NOLINT(readability-redundant-declaration): POSIX declares it nowhere

namespace ava::base {
namespace {

bool has_value(const EnvLookup& env, const char* name) {
  const auto value = env(name);
  return value && !value->empty();
}

// posix_spawn's two argument objects, released on every path.
struct SpawnParts {
  posix_spawn_file_actions_t actions{};
  posix_spawnattr_t attributes{};
  SpawnParts() {
    ::posix_spawn_file_actions_init(&actions);
    ::posix_spawnattr_init(&attributes);
  }
  ~SpawnParts() {
    ::posix_spawn_file_actions_destroy(&actions);
    ::posix_spawnattr_destroy(&attributes);
  }
  SpawnParts(const SpawnParts&) = delete;
  SpawnParts& operator=(const SpawnParts&) = delete;
};

int prepare(SpawnParts& parts) {
  auto* fa = &parts.actions;
  int rc = ::posix_spawn_file_actions_addopen(fa, 0, "/dev/null", O_RDONLY, 0);
  if (rc == 0) rc = ::posix_spawn_file_actions_addopen(fa, 1, "/dev/null", O_WRONLY, 0);
  if (rc == 0) rc = ::posix_spawn_file_actions_addopen(fa, 2, "/dev/null", O_WRONLY, 0);
  // Nothing of this process (sockets, pipes, the store) reaches the browser.
  if (rc == 0) rc = ::posix_spawn_file_actions_addclosefrom_np(fa, 3);
  // Its own session: a Ctrl-C in the terminal that ran ava leaves it alone.
  const short flags = POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
  if (rc == 0) rc = ::posix_spawnattr_setflags(&parts.attributes, flags);
  sigset_t signals;
  ::sigemptyset(&signals);
  if (rc == 0) rc = ::posix_spawnattr_setsigmask(&parts.attributes, &signals);
  ::sigfillset(&signals);
  if (rc == 0) rc = ::posix_spawnattr_setsigdefault(&parts.attributes, &signals);
  return rc;
}

}  // namespace

Result<void> check_browser_url(std::string_view url) {
  const std::string lower = ascii_lower(url.substr(0, 8));
  std::size_t rest = 0;
  if (lower.starts_with("https://")) {
    rest = 8;
  } else if (lower.starts_with("http://")) {
    rest = 7;
  } else {
    return fail(ErrorCode::invalid_argument, "only http and https URLs are opened in a browser");
  }
  for (const char c : url) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte <= 0x20 || byte == 0x7f) {
      return fail(ErrorCode::invalid_argument,
                  "a URL with spaces or control characters is not opened in a browser");
    }
  }
  const auto host_end = url.find_first_of("/?#", rest);
  if (url.substr(rest, host_end - rest).empty()) {
    return fail(ErrorCode::invalid_argument, "a URL without a host is not opened in a browser");
  }
  return {};
}

Result<void> open_url(std::string_view url, const OpenUrlOptions& options) {
  AVA_TRY_VOID(check_browser_url(url));
  if (!has_value(options.env, "DISPLAY") && !has_value(options.env, "WAYLAND_DISPLAY")) {
    return fail(ErrorCode::unavailable, "no display to open a browser on");
  }
  SpawnParts parts;
  if (const int rc = prepare(parts); rc != 0) return fail_errno("open a browser", rc);
  std::string program = options.program;
  std::string argument(url);
  std::vector<char*> argv{program.data(), argument.data(), nullptr};
  pid_t child = -1;
  const int rc = ::posix_spawnp(&child, program.c_str(), &parts.actions, &parts.attributes,
                                argv.data(), environ);
  if (rc != 0) return fail_errno("start " + program, rc);
  // xdg-open may stay until the browser it started exits; a thread of its
  // own waits for it, so it never lingers as a zombie and nobody blocks.
  std::thread([child] {
    int status = 0;
    while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
  }).detach();
  return {};
}

}  // namespace ava::base
