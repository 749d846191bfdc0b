// `ava chat` (and `ava -c`, `ava chat --resume`): a conversation at the
// terminal. The agent runs in this process (chat_session.hpp); this file is
// the loop between the line editor and the view.

#include <termios.h>
#include <unistd.h>

#include <cstdio>
#include <memory>

#include <fmt/format.h>

#include "ava/base/home.hpp"
#include "ava/base/version.hpp"
#include "ava/prompts/builtins.hpp"
#include "ava/prompts/commands.hpp"
#include "cli/chat_backend.hpp"
#include "cli/chat_view.hpp"
#include "cli/commands.hpp"
#include "cli/line_editor.hpp"
#include "cli/prompt_run.hpp"

namespace ava::cli {
namespace {

constexpr CommandName command_name{"chat"};
constexpr auto poll_interval = std::chrono::milliseconds(40);
// Two Ctrl-C this close together mean "quit", even when the first one's
// abort already ended the turn and the second lands at the prompt.
constexpr auto double_press = std::chrono::seconds(2);

// Keys typed while a turn runs are not echoed into the answer; they wait in
// the terminal's buffer for the next prompt.
class EchoOff {
 public:
  explicit EchoOff(bool terminal) : terminal_(terminal) { apply(); }
  ~EchoOff() { restore(); }
  EchoOff(const EchoOff&) = delete;
  EchoOff& operator=(const EchoOff&) = delete;

  // Echo back on (an approval's answer is typed), then off again.
  void restore() {
    if (active_) ::tcsetattr(STDIN_FILENO, TCSANOW, &saved_);
    active_ = false;
  }
  void apply() {
    if (!terminal_ || active_ || ::tcgetattr(STDIN_FILENO, &saved_) != 0) return;
    termios quiet = saved_;
    // Not canonical either: a Ctrl-D typed now must reach the next prompt
    // as the key it is (EOF there), not as an end-of-file the terminal holds.
    quiet.c_lflag &= ~static_cast<tcflag_t>(ECHO | ICANON);
    active_ = ::tcsetattr(STDIN_FILENO, TCSANOW, &quiet) == 0;
  }

 private:
  bool terminal_;
  termios saved_{};
  bool active_ = false;
};

enum class TurnOutcome { done, quit };

std::string trimmed(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return {};
  const auto last = text.find_last_not_of(" \t\r\n");
  return text.substr(first, last - first + 1);
}

class Chat {
 public:
  Chat(std::filesystem::path home, std::unique_ptr<ChatBackend> session)
      : home_(std::move(home)),
        session_(std::move(session)),
        view_(stdout, ansi::colour_wanted(STDOUT_FILENO), ansi::can_redraw(STDOUT_FILENO)),
        editor_(home_ / "chat_history", [this] { return completions(); }) {}

  int run();

 private:
  std::vector<std::string> completions() const;
  void banner();
  Result<void> restart();
  TurnOutcome run_turn();
  TurnOutcome answer(const session::ApprovalRequested& request, EchoOff& echo);
  TurnOutcome answer_pending();

  // Whether this Ctrl-C follows another within double_press; notes it.
  bool second_press();

  std::filesystem::path home_;
  std::unique_ptr<ChatBackend> session_;
  ChatView view_;
  LineEditor editor_;
  std::optional<std::chrono::steady_clock::time_point> last_interrupt_;
};

bool Chat::second_press() {
  const auto now = std::chrono::steady_clock::now();
  const bool second = last_interrupt_ && now - *last_interrupt_ < double_press;
  last_interrupt_ = now;
  return second;
}

std::vector<std::string> Chat::completions() const {
  std::vector<std::string> names{"exit", "quit"};
  for (const auto& builtin : prompts::builtin_commands()) names.emplace_back(builtin.name);
  for (const auto& command : prompts::discover_commands({session_->info().cwd, home_})) {
    names.push_back(command.name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

void Chat::banner() {
  const auto info = session_->info();
  const auto style = view_.style();
  std::string head = ansi::paint("ava", "1", style) + " " + std::string(base::version());
  head += "  " + ansi::sanitize(info.provider) + ":" + ansi::sanitize(info.model);
  head += "  " + ansi::sanitize(info.cwd.string());
  std::fputs((head + "\n").c_str(), stdout);
  std::string about = (info.existing ? "resumed " : "session ") + ansi::sanitize(info.session_id);
  if (!info.host.empty()) about += " · in " + ansi::sanitize(info.host);
  if (!info.permission_mode.empty()) about += " · " + info.permission_mode;
  about += " · /help · Ctrl-C aborts a turn · Ctrl-D quits · \\ at a line's end continues it";
  std::fputs((ansi::paint(about, "2", style) + "\n").c_str(), stdout);
  if (info.existing) view_.recap(session_->recap());
  std::fflush(stdout);
}

// /clear: the same options, a new conversation.
Result<void> Chat::restart() {
  auto fresh = session_->start_new();
  if (!fresh) return std::unexpected(fresh.error().error);
  session_ = std::move(*fresh);
  std::fputs("\n", stdout);
  banner();
  return {};
}

TurnOutcome Chat::answer(const session::ApprovalRequested& request, EchoOff& echo) {
  view_.settle();
  echo.restore();
  std::fputs(view_.approval_text(request).c_str(), stdout);
  std::fflush(stdout);
  agent::ApprovalAnswer answer;
  for (;;) {
    auto read = editor_.read_line(request.suggested_rules.empty() ? "  allow? [y/n] "
                                                                  : "  allow? [y/a/n] ");
    if (read.outcome == LineEditor::Outcome::interrupted) {
      LineEditor::take_interrupts();
      view_.note("Denied; aborting the turn.", "33");
      answer.message = "The user interrupted the turn.";
      (void)session_->decide(request.approval_id, answer);
      (void)session_->abort();
      break;
    }
    if (read.outcome == LineEditor::Outcome::end) return TurnOutcome::quit;
    const std::string choice = trimmed(read.text);
    if (choice == "y" || choice == "yes") {
      answer.decision = session::ApprovalDecision::allow;
    } else if ((choice == "a" || choice == "always") && !request.suggested_rules.empty()) {
      answer.decision = session::ApprovalDecision::allow;
      answer.scope = session::ApprovalScope::conversation;
    } else if (choice == "n" || choice == "no") {
      auto why = editor_.read_line("  why, for the model (optional): ");
      if (why.outcome == LineEditor::Outcome::line) answer.message = trimmed(why.text);
    } else {
      continue;
    }
    if (auto decided = session_->decide(request.approval_id, answer); !decided) {
      view_.error(decided.error().message);
    }
    break;
  }
  echo.apply();
  return TurnOutcome::done;
}

// A resumed conversation may be waiting for approvals asked before.
TurnOutcome Chat::answer_pending() {
  auto pending = session_->pending_approvals();
  if (pending.empty()) return TurnOutcome::done;
  EchoOff echo(false);
  for (const auto& request : pending) {
    if (answer(request, echo) == TurnOutcome::quit) return TurnOutcome::quit;
  }
  session_->watch_turn(pending.back().turn_id);
  view_.turn_begins();
  return run_turn();
}

// A Ctrl-C pressed since the input was read (even before this started)
// counts for this turn.
TurnOutcome Chat::run_turn() {
  EchoOff echo(editor_.interactive());
  for (;;) {
    if (const int count = LineEditor::take_interrupts(); count > 0) {
      if (count > 1 || second_press()) {
        view_.settle();
        return TurnOutcome::quit;
      }
      view_.note("Aborting the turn (Ctrl-C again to quit)…", "33");
      (void)session_->abort();
    }
    if (LineEditor::quit_requested()) return TurnOutcome::quit;
    auto item = session_->next(poll_interval);
    if (!item) continue;
    if (std::holds_alternative<ChatBackend::TurnDone>(*item)) {
      view_.settle();
      return TurnOutcome::done;
    }
    if (const auto* live = std::get_if<agent::LiveEvent>(&*item)) {
      view_.on_live(*live);
      continue;
    }
    const auto& event = std::get<session::Event>(*item);
    view_.on_event(event);
    if (const auto* request = std::get_if<session::ApprovalRequested>(&event.body)) {
      if (answer(*request, echo) == TurnOutcome::quit) return TurnOutcome::quit;
    }
  }
}

int Chat::run() {
  banner();
  if (answer_pending() == TurnOutcome::quit) return 130;
  for (;;) {
    auto read = editor_.read_input("› ", "… ");
    if (LineEditor::quit_requested()) return 0;
    if (read.outcome == LineEditor::Outcome::interrupted) {
      if (LineEditor::take_interrupts() > 1 || second_press()) return 130;
      view_.note("(Ctrl-C again to quit, or Ctrl-D, or /exit)");
      continue;
    }
    last_interrupt_.reset();
    if (read.outcome == LineEditor::Outcome::end) {
      if (editor_.interactive()) std::fputs("\n", stdout);
      return 0;
    }
    const std::string text = trimmed(read.text);
    if (text.empty()) continue;
    editor_.remember(read.text);
    if (text == "/exit" || text == "/quit") return 0;
    if (text == "/clear") {
      if (auto restarted = restart(); !restarted) {
        view_.error("ava chat: " + restarted.error().message);
        return 1;
      }
      continue;
    }
    view_.turn_begins();
    if (auto sent = session_->send(text); !sent) {
      view_.settle();
      view_.error(sent.error().message);
      continue;
    }
    if (run_turn() == TurnOutcome::quit) {
      LineEditor::exit_on_next_interrupt();
      return 130;
    }
    if (text == "/help") {
      view_.note(
          "In ava chat: /clear starts a new conversation, /exit quits, Tab completes a "
          "command, a line ending in \\ continues on the next.");
    }
  }
}

}  // namespace

Result<int> run_chat(const PromptFlags& flags, bool in_process) {
  LineEditor::install_signal_handlers();
  AVA_TRY(auto home, base::Home::resolve());
  auto session = open_chat_backend(flags, in_process);
  if (!session) {
    if (session.error().usage) return usage_error(command_name, session.error().error);
    return std::unexpected(std::move(session.error().error));
  }
  Chat chat(home.root(), std::move(*session));
  return chat.run();
}

void add_chat_options(CLI::App& app, PromptFlags& flags) {
  app.add_option("--model", flags.model, "Model (default: settings, then the provider's)");
  app.add_option("--provider", flags.provider,
                 "anthropic, openai, openai-responses, ollama, lmstudio, llamacpp, mock, or one "
                 "from settings.json");
  app.add_option("--cwd", flags.cwd, "Working directory of the agent (default: this one)");
  app.add_option("--max-steps", flags.max_steps, "Provider steps allowed per turn")
      ->check(CLI::Range(1, 100000));
  app.add_option("--system-prompt", flags.system_prompt, "Replace the system prompt");
  app.add_option("--append-system-prompt", flags.append_system_prompt,
                 "Text added to the end of the system prompt");
  app.add_option("--mcp-wait", flags.mcp_wait_ms,
                 "Milliseconds to wait for MCP servers to list their tools before the prompt")
      ->envname("AVA_MCP_WAIT_MS")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_flag("--no-mcp", flags.no_mcp, "Offer no MCP server tools");
  app.add_option("--permission-mode", flags.permission_mode,
                 "ask, accept-edits, plan or auto (default: settings, else ask)");
  app.add_option("--allowed-tools,--allowedTools", flags.allowed_tools,
                 "Rules to allow, e.g. 'bash(npm test:*)' (comma-separated or repeated)")
      ->allow_extra_args(false);
  app.add_option("--disallowed-tools,--disallowedTools", flags.disallowed_tools,
                 "Rules to deny, e.g. 'bash(git push*)' (comma-separated or repeated)")
      ->allow_extra_args(false);
  app.add_option("--sandbox", flags.sandbox,
                 "Where bash runs: read-only, workspace-write (default) or off")
      ->check(CLI::IsMember({"read-only", "workspace-write", "off"}));
}

void add_chat_commands(CLI::App& cli, CliContext& context) {
  auto flags = std::make_shared<PromptFlags>();
  auto resume = std::make_shared<std::vector<std::string>>();
  auto* chat = cli.add_subcommand(
      "chat", "Talk to the agent in this terminal (ava chat; ava chat --resume [ID]; ava -c)");
  add_chat_options(*chat, *flags);
  auto in_process = std::make_shared<bool>(false);
  chat->add_flag("--in-process", *in_process,
                 "Run the agent in this process even when a backend owns the home (a new "
                 "conversation only)");
  chat->add_option("--resume,-r", *resume,
                   "Continue a conversation: its id or log path; without one, the latest "
                   "started in this directory")
      ->expected(0, 1);
  chat->callback([chat, &context, flags, resume, in_process] {
    if (chat->count("--resume") > 0) {
      if (resume->empty() || resume->front().empty()) {
        flags->continue_latest = true;
      } else {
        flags->session = resume->front();
      }
    }
    finish(context, command_name, run_chat(*flags, *in_process));
  });
}

}  // namespace ava::cli
