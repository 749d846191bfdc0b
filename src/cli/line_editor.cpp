// `ava chat`'s prompt on libedit. Signals stay ours (rl_catch_signals = 0):
// Ctrl-C reaches the handler below, which only counts it, and because it is
// installed without SA_RESTART the terminal read fails with EINTR, so
// readline() returns at once and the chat decides what the key meant.

#include "cli/line_editor.hpp"

#include <fcntl.h>
#include <langinfo.h>
#include <unistd.h>

#include <atomic>
#include <clocale>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>

// libedit's readline.h uses FILE without including stdio.h.
#include <editline/readline.h>

namespace ava::cli {
namespace {

constexpr int history_entries = 1000;
constexpr std::size_t max_input_bytes = std::size_t{1} << 20;

volatile std::sig_atomic_t interrupts = 0;
volatile std::sig_atomic_t quit_signal = 0;
volatile std::sig_atomic_t exit_on_interrupt = 0;

void on_signal(int signal) {
  if (signal == SIGINT) {
    // Once the chat is quitting, a close that does not end is cut short.
    if (exit_on_interrupt != 0) ::_exit(130);
    interrupts = interrupts + 1;
  } else {
    quit_signal = 1;
  }
}

LineEditor::Completions* active_completions = nullptr;
std::vector<std::string> completion_words;

char* next_completion(const char* text, int state) {
  static std::size_t index = 0;
  if (state == 0) index = 0;
  const std::string_view prefix = text;
  while (index < completion_words.size()) {
    const std::string& word = completion_words[index++];
    if (word.starts_with(prefix)) return ::strdup(word.c_str());
  }
  return nullptr;
}

// Only a slash command at the start of the input completes; anywhere else
// Tab inserts nothing rather than file names the model never sees.
char** complete(const char* text, int start, int /*end*/) {
  rl_attempted_completion_over = 1;
  if (start != 0 || text[0] != '/' || active_completions == nullptr) return nullptr;
  completion_words.clear();
  for (auto& name : (*active_completions)()) completion_words.push_back("/" + name);
  return rl_completion_matches(text, next_completion);
}

}  // namespace

void LineEditor::install_signal_handlers() {
  struct sigaction action {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;  // no SA_RESTART: a blocked read returns EINTR
  ::sigaction(SIGINT, &action, nullptr);
  ::sigaction(SIGTERM, &action, nullptr);
  ::sigaction(SIGHUP, &action, nullptr);
}

int LineEditor::take_interrupts() {
  const int count = interrupts;
  interrupts = 0;
  return count;
}

bool LineEditor::quit_requested() { return quit_signal != 0; }

void LineEditor::exit_on_next_interrupt() { exit_on_interrupt = 1; }

LineEditor::LineEditor(std::filesystem::path history_file, Completions completions)
    : history_file_(std::move(history_file)), completions_(std::move(completions)) {
  interactive_ = ::isatty(STDIN_FILENO) != 0 && ::isatty(STDOUT_FILENO) != 0;
  if (!interactive_) return;
  // libedit decodes the prompt and the keys by the character type locale;
  // in the "C" locale it cannot take a UTF-8 prompt or input at all. The
  // user's locale, else C.UTF-8 (built into glibc): terminals speak UTF-8.
  // Only LC_CTYPE: numbers keep printing the same everywhere.
  if (::setlocale(LC_CTYPE, "") == nullptr || std::string_view(::nl_langinfo(CODESET)) != "UTF-8") {
    ::setlocale(LC_CTYPE, "C.UTF-8");
  }
  rl_readline_name = "ava";
  rl_catch_signals = 0;
  // libedit sets itself up at the first readline() unless told now; the
  // history calls below need it set up.
  ::rl_initialize();
  ::using_history();
  rl_completion_append_character = ' ';
  active_completions = &completions_;
  rl_attempted_completion_function = complete;
  stifle_history(history_entries);
  if (!history_file_.empty()) {
    // Created private before libedit writes prompts that may hold secrets.
    const int fd = ::open(history_file_.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    if (fd >= 0) ::close(fd);
    ::read_history(history_file_.c_str());
  }
}

LineEditor::~LineEditor() {
  if (active_completions == &completions_) active_completions = nullptr;
}

void LineEditor::remember(const std::string& input) {
  if (!interactive_ || input.empty()) return;
  ::add_history(input.c_str());
  if (!history_file_.empty()) ::write_history(history_file_.c_str());
}

LineEditor::Read LineEditor::read_one(std::string_view prompt) {
  if (!interactive_) {
    if (::isatty(STDIN_FILENO) != 0) {
      std::fputs(std::string(prompt).c_str(), stdout);
      std::fflush(stdout);
    }
    std::string line;
    if (!std::getline(std::cin, line)) {
      if (interrupts != 0) {
        std::cin.clear();
        return {Outcome::interrupted, {}};
      }
      return {Outcome::end, {}};
    }
    if (!line.empty() && line.back() == '\r') line.pop_back();
    return {Outcome::line, std::move(line)};
  }
  // A Ctrl-C that came between the turn's end and this prompt counts here.
  if (interrupts != 0) return {Outcome::interrupted, {}};
  const int before = interrupts;
  char* raw = ::readline(std::string(prompt).c_str());
  if (raw == nullptr) {
    if (interrupts != before) {
      std::fputc('\n', stdout);
      return {Outcome::interrupted, {}};
    }
    return {Outcome::end, {}};
  }
  std::string line(raw);
  std::free(raw);
  return {Outcome::line, std::move(line)};
}

LineEditor::Read LineEditor::read_input(std::string_view prompt, std::string_view continuation) {
  std::string text;
  std::string_view shown = prompt;
  for (;;) {
    Read part = read_one(shown);
    if (part.outcome != Outcome::line) return part;
    const bool continues = !part.text.empty() && part.text.back() == '\\';
    if (continues) part.text.pop_back();
    text += part.text;
    if (text.size() > max_input_bytes) {
      std::fputs("ava: an input is at most 1 MiB; it was not sent\n", stderr);
      return {Outcome::line, {}};
    }
    if (!continues) return {Outcome::line, std::move(text)};
    text.push_back('\n');
    shown = continuation;
  }
}

LineEditor::Read LineEditor::read_line(std::string_view prompt) { return read_one(prompt); }

}  // namespace ava::cli
