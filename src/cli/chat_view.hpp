#pragma once

#include <cstdio>
#include <map>
#include <optional>
#include <string>

#include "ava/agent/agent.hpp"
#include "ava/ansi/render.hpp"
#include "ava/session/event.hpp"
#include "cli/chat_backend.hpp"

namespace ava::cli {

// What `ava chat` prints of a conversation: the streamed answer as Markdown
// for the terminal, one compact line per tool call (a coloured diff under an
// edit), errors, command output and a usage line after each turn. Called
// only from the thread that owns the terminal. Everything a model, tool or
// file produced goes through ansi::sanitize before it is shown.
class ChatView {
 public:
  // `status_line`: a transient line ("Thinking…", "Running bash: make")
  // redrawn in place; only on a terminal.
  ChatView(std::FILE* out, bool colour, bool status_line);

  void on_event(const session::Event& event);
  void on_live(const agent::LiveEvent& event);

  // The text of an approval request and the question under it.
  std::string approval_text(const session::ApprovalRequested& request) const;
  // A note of the chat's own ("aborting the turn", an error).
  void note(std::string_view text, std::string_view sgr = "2");
  void error(std::string_view text);
  // Ends the streamed text (closes an open code block) and the status line.
  void settle();
  // A recap of a resumed conversation: its last exchange.
  void recap(const ChatBackend::Recap& last);
  // Starts a turn's clock and usage line.
  void turn_begins();

  ansi::Style style() const;

 private:
  void print(std::string_view text);
  void status(std::string text);
  void clear_status();
  void stream_text(std::string_view delta);
  void end_stream();
  void tool_line(const session::ToolResult& result);
  void turn_ended(const session::TurnEnded& ended);

  std::FILE* out_;
  bool colour_;
  bool status_line_;
  std::string status_shown_;
  std::optional<ansi::MarkdownStream> stream_;
  std::string streamed_;  // this step's text shown from the stream so far
  bool thinking_ = false;
  std::map<std::string, std::string> labels_;  // call id -> "Running bash: make"
  llm::Usage turn_usage_;
  std::int64_t turn_started_ms_ = 0;
  std::int64_t first_output_ms_ = 0;
};

}  // namespace ava::cli
