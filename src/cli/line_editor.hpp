#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace ava::cli {

// The prompt of `ava chat`: libedit's line editing and history when stdin
// and stdout are a terminal, plain lines otherwise (a pipe, a script).
class LineEditor {
 public:
  enum class Outcome { line, end, interrupted };
  struct Read {
    Outcome outcome = Outcome::end;
    std::string text;
  };
  // The words offered after a leading "/" (names without the slash), asked
  // for again at each completion so new command files show up.
  using Completions = std::function<std::vector<std::string>()>;

  // History is kept in `history_file` (created 0600) when it is not empty.
  LineEditor(std::filesystem::path history_file, Completions completions);
  ~LineEditor();
  LineEditor(const LineEditor&) = delete;
  LineEditor& operator=(const LineEditor&) = delete;

  bool interactive() const { return interactive_; }

  // One input: lines ending in a backslash continue on the next, joined
  // with newlines. `interrupted` when Ctrl-C (SIGINT, which the caller's
  // handler turned into interrupt_pending()) ended the read.
  Read read_input(std::string_view prompt, std::string_view continuation);
  // One line, not kept in the history (an approval's answer).
  Read read_line(std::string_view prompt);
  void remember(const std::string& input);

  // Installs a SIGINT/SIGTERM/SIGHUP handler that only counts (no
  // SA_RESTART, so a blocked read returns), and reads and clears the count.
  static void install_signal_handlers();
  static int take_interrupts();
  static bool quit_requested();  // SIGTERM or SIGHUP arrived
  // From now on Ctrl-C ends the process at once (exit 130): the chat is
  // already closing and the person does not want to wait.
  static void exit_on_next_interrupt();

 private:
  Read read_one(std::string_view prompt);

  std::filesystem::path history_file_;
  Completions completions_;
  bool interactive_ = false;
};

}  // namespace ava::cli
