#include <pwd.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "ava/terminal/session.hpp"

namespace ava::terminal {
namespace {

bool usable_shell(const char* path) {
  return path != nullptr && path[0] == '/' && ::access(path, X_OK) == 0;
}

std::string user_shell() {
  // getpwuid_r: the server answers requests on several threads.
  passwd entry{};
  passwd* found = nullptr;
  std::vector<char> buffer(16384);
  if (::getpwuid_r(::getuid(), &entry, buffer.data(), buffer.size(), &found) == 0 &&
      found != nullptr && usable_shell(found->pw_shell)) {
    return found->pw_shell;
  }
  if (const char* shell = std::getenv("SHELL"); usable_shell(shell)) return shell;
  return "/bin/sh";
}

}  // namespace

std::vector<std::string> login_shell_command() { return {user_shell(), "-l"}; }

}  // namespace ava::terminal
