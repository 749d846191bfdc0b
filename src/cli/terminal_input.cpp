#include "cli/terminal_input.hpp"

#include <termios.h>
#include <unistd.h>

#include <cstdio>

namespace ava::cli {
namespace {

std::optional<std::string> ask(std::string_view prompt, bool echo) {
  FILE* tty = std::fopen("/dev/tty", "r+");
  if (tty == nullptr) return std::nullopt;
  // Echo goes off before the prompt shows: whoever answers it (a person or
  // a script watching for the prompt) types only after it, so no key is
  // echoed and none is flushed away. Keys typed before the prompt are
  // discarded, as getpass does, so a stray line never becomes the secret.
  termios saved{};
  const bool restore = !echo && ::tcgetattr(fileno(tty), &saved) == 0;
  if (restore) {
    termios quiet = saved;
    quiet.c_lflag &= ~static_cast<tcflag_t>(ECHO);
    ::tcsetattr(fileno(tty), TCSAFLUSH, &quiet);
  }
  std::fprintf(tty, "%.*s", static_cast<int>(prompt.size()), prompt.data());
  std::fflush(tty);
  char buffer[4096];
  const char* line = std::fgets(buffer, sizeof buffer, tty);
  if (restore) {
    ::tcsetattr(fileno(tty), TCSADRAIN, &saved);
    std::fprintf(tty, "\n");
  }
  std::fclose(tty);
  if (line == nullptr) return std::nullopt;
  std::string text(line);
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  return text;
}

}  // namespace

std::optional<std::string> ask_secret(std::string_view prompt) { return ask(prompt, false); }
std::optional<std::string> ask_line(std::string_view prompt) { return ask(prompt, true); }

}  // namespace ava::cli
