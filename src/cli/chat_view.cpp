// How `ava chat` shows a conversation on a terminal (chat_view.hpp).

#include "cli/chat_view.hpp"

#include <fmt/format.h>

#include "ava/base/clock.hpp"

namespace ava::cli {
namespace {

constexpr std::size_t max_diff_lines = 60;

template <class... Fs>
struct overload : Fs... {
  using Fs::operator()...;
};
template <class... Fs>
overload(Fs...) -> overload<Fs...>;

std::string thousands(std::int64_t value) {
  std::string digits = std::to_string(value);
  for (auto at = static_cast<std::ptrdiff_t>(digits.size()) - 3; at > 0; at -= 3) {
    digits.insert(static_cast<std::size_t>(at), ",");
  }
  return digits;
}

std::string text_of(const std::vector<content::ToolResultContent>& content) {
  std::string text;
  for (const auto& part : content) {
    if (const auto* block = std::get_if<content::TextBlock>(&part)) text += block->text;
  }
  return text;
}

std::string string_field(const nlohmann::json& object, const char* name) {
  if (!object.is_object()) return {};
  const auto it = object.find(name);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// The first `limit` lines of a diff, and how many were left out.
std::string bounded_diff(const std::string& diff, const ansi::Style& style) {
  std::string shown;
  std::size_t lines = 0;
  std::size_t start = 0;
  while (start < diff.size()) {
    auto end = diff.find('\n', start);
    if (end == std::string::npos) end = diff.size();
    if (lines < max_diff_lines) {
      shown += "    " + ansi::diff_line(std::string_view(diff).substr(start, end - start), style);
      shown += '\n';
    }
    ++lines;
    start = end + 1;
  }
  if (lines > max_diff_lines) {
    shown += ansi::paint(fmt::format("    … {} more lines", lines - max_diff_lines), "2", style);
    shown += '\n';
  }
  return shown;
}

}  // namespace

ChatView::ChatView(std::FILE* out, bool colour, bool status_line)
    : out_(out), colour_(colour), status_line_(status_line) {}

ansi::Style ChatView::style() const {
  return {.colour = colour_, .width = ansi::terminal_width(::fileno(out_))};
}

void ChatView::print(std::string_view text) {
  if (text.empty()) return;
  clear_status();
  std::fwrite(text.data(), 1, text.size(), out_);
  std::fflush(out_);
}

// The width is read again at every draw, so a resized terminal never gets a
// line that wraps (which \r could not take back).
void ChatView::status(std::string text) {
  if (!status_line_) return;
  const int width = ansi::terminal_width(::fileno(out_));
  text = ansi::one_line(ansi::sanitize(text), width - 2);
  if (text == status_shown_) return;
  std::fputs("\r\x1b[2K", out_);
  std::fputs(ansi::paint(text, "2", style()).c_str(), out_);
  std::fflush(out_);
  status_shown_ = std::move(text);
}

void ChatView::clear_status() {
  if (status_shown_.empty()) return;
  std::fputs("\r\x1b[2K", out_);
  std::fflush(out_);
  status_shown_.clear();
}

void ChatView::note(std::string_view text, std::string_view sgr) {
  end_stream();
  print(ansi::paint(ansi::sanitize(text), sgr, style()) + "\n");
}

void ChatView::error(std::string_view text) { note(text, "31"); }

void ChatView::turn_begins() {
  turn_usage_ = {};
  turn_started_ms_ = base::unix_ms_now();
  first_output_ms_ = 0;
  status("Thinking…");
}

void ChatView::stream_text(std::string_view delta) {
  if (!stream_) stream_.emplace(style());
  if (first_output_ms_ == 0) first_output_ms_ = base::unix_ms_now();
  streamed_ += delta;
  print(stream_->feed(delta));  // the stream makes each whole line safe
}

void ChatView::end_stream() {
  if (!stream_) return;
  std::string rest = stream_->finish();
  stream_.reset();
  print(rest);
}

void ChatView::settle() {
  end_stream();
  clear_status();
}

void ChatView::on_live(const agent::LiveEvent& event) {
  std::visit(overload{
                 [&](const agent::StreamProgress& progress) {
                   if (const auto* text = std::get_if<llm::TextDelta>(&progress.event)) {
                     thinking_ = false;
                     stream_text(text->text);
                   } else if (std::holds_alternative<llm::ThinkingDelta>(progress.event)) {
                     if (!thinking_ && !stream_) status("Thinking…");
                     thinking_ = true;
                   } else if (const auto* call = std::get_if<llm::ToolCallStart>(&progress.event)) {
                     end_stream();
                     status("Preparing " + call->name + "…");
                   }
                 },
                 [&](const agent::ToolActivity& activity) {
                   if (activity.finished) return;
                   labels_[activity.call_id] = activity.label;
                   end_stream();
                   status(activity.label + "…");
                 },
                 [&](const agent::StateChanged&) {},
             },
             event);
}

void ChatView::tool_line(const session::ToolResult& result) {
  auto found = labels_.find(result.call_id);
  std::string label = found != labels_.end() ? found->second : "Ran " + result.tool_name;
  if (found != labels_.end()) labels_.erase(found);
  const ansi::Style shown = style();
  const bool ok = result.status == session::ToolStatus::ok;
  std::string line = ok ? ansi::paint("✓", "32", shown) : ansi::paint("✗", "31", shown);
  line += " " + ansi::one_line(ansi::sanitize(label), shown.width - 4);
  const auto& details = result.details;
  if (details.is_object() && details.contains("exit_code") && details["exit_code"].is_number()) {
    const auto code = details["exit_code"].get<std::int64_t>();
    if (code != 0) line += ansi::paint(fmt::format("  exit {}", code), "31", shown);
  }
  if (!ok) {
    const std::string why = text_of(result.content);
    const std::string status(session::to_string(result.status));
    line += "\n    " +
            ansi::paint(ansi::one_line(ansi::sanitize(why.empty() ? status : why), shown.width - 6),
                        "2", shown);
  }
  print(line + "\n");
  const std::string diff = string_field(details, "diff");
  if (ok && !diff.empty()) print(bounded_diff(ansi::sanitize(diff), shown));
}

void ChatView::turn_ended(const session::TurnEnded& ended) {
  settle();
  const ansi::Style shown = style();
  if (ended.reason == session::EndReason::aborted) {
    print(ansi::paint("Turn aborted.", "33", shown) + "\n");
  } else if (ended.reason != session::EndReason::completed) {
    std::string why(session::to_string(ended.reason));
    if (!ended.message.empty()) why += ": " + ended.message;
    print(ansi::paint("Turn ended (" + ansi::sanitize(why) + ")", "31", shown) + "\n");
  }
  const auto now = base::unix_ms_now();
  std::string usage = fmt::format("{} in · {} out", thousands(turn_usage_.input_tokens),
                                  thousands(turn_usage_.output_tokens));
  if (turn_usage_.cache_read_tokens > 0) {
    usage += fmt::format(" · {} cached", thousands(turn_usage_.cache_read_tokens));
  }
  if (turn_started_ms_ > 0) usage += fmt::format(" · {:.1f}s", (now - turn_started_ms_) / 1000.0);
  print(ansi::paint(usage, "2", shown) + "\n");
}

void ChatView::on_event(const session::Event& event) {
  std::visit(
      overload{
          [&](const session::AssistantMessage& message) {
            // What the stream did not show: all of it from a provider that
            // does not stream, the rest when the deltas came on another
            // connection than the events (an attached chat) and lag behind.
            std::string whole;
            for (const auto& block : message.content) {
              if (const auto* text = std::get_if<content::TextBlock>(&block)) whole += text->text;
            }
            if (whole.size() > streamed_.size() && whole.starts_with(streamed_)) {
              stream_text(std::string_view(whole).substr(streamed_.size()));
            }
            end_stream();
            streamed_.clear();
            thinking_ = false;
          },
          [&](const session::ToolResult& result) { tool_line(result); },
          [&](const session::UsageRecorded& recorded) {
            if (recorded.subagent.empty()) turn_usage_ += recorded.usage;
          },
          [&](const session::TurnEnded& ended) { turn_ended(ended); },
          [&](const session::ErrorOccurred& failure) {
            error(failure.code.empty() ? failure.message : failure.code + ": " + failure.message);
          },
          [&](const session::InputBlocked& blocked) {
            error("Blocked by the " + blocked.hook + " hook: " + blocked.reason);
          },
          [&](const session::CommandOutput& output) {
            settle();
            print(ansi::markdown(ansi::sanitize(output.output), style()));
          },
          [&](const session::ModelChanged& changed) {
            note("Model: " + changed.provider + ":" + changed.model);
          },
          [&](const session::Compacted& compacted) {
            note(fmt::format("Context compacted ({} tokens before).",
                             thousands(compacted.tokens_before)));
          },
          [&](const session::StepStarted&) {
            if (!stream_) status("Thinking…");
          },
          [&](const auto&) {},
      },
      event.body);
}

std::string ChatView::approval_text(const session::ApprovalRequested& request) const {
  const ansi::Style shown = style();
  std::string what = string_field(request.arguments, "command");
  if (what.empty()) what = string_field(request.arguments, "path");
  if (what.empty() && !request.arguments.is_null()) what = request.arguments.dump();
  std::string text = ansi::paint("? ", "33;1", shown) +
                     ansi::paint(ansi::sanitize(request.tool_name), "1", shown) + " " +
                     ansi::one_line(ansi::sanitize(what), shown.width - 8) + "\n";
  if (!request.reason.empty()) {
    text += "  " + ansi::paint(ansi::sanitize(request.reason), "2", shown) + "\n";
  }
  // "Always" grants a rule; a call no rule can describe narrowly (a shell
  // line that hides what it runs) is offered none.
  if (request.suggested_rules.empty()) {
    text += "  [y] allow once   [n] deny\n";
  } else {
    text += fmt::format("  [y] allow once   [a] always allow {} in this conversation   [n] deny\n",
                        ansi::sanitize(request.suggested_rules.front()));
  }
  return text;
}

void ChatView::recap(const ChatBackend::Recap& last) {
  const ansi::Style shown = style();
  if (!last.input.empty()) {
    print(ansi::paint("You: " + ansi::one_line(ansi::sanitize(last.input), shown.width - 6), "2",
                      shown) +
          "\n");
  }
  if (!last.answer.empty()) print(ansi::markdown(ansi::sanitize(last.answer), shown));
}

}  // namespace ava::cli
