#include "cli/prompt_output.hpp"

#include <fmt/format.h>

#include "ava/llm/event_json.hpp"
#include "ava/session/codec.hpp"

namespace ava::cli {

using nlohmann::json;

namespace {

// Anthropic's (and so Claude Code's) names for the token counts.
json usage_json(const llm::Usage& usage) {
  return {{"input_tokens", usage.input_tokens},
          {"output_tokens", usage.output_tokens},
          {"cache_read_input_tokens", usage.cache_read_tokens},
          {"cache_creation_input_tokens", usage.cache_write_tokens},
          {"reasoning_tokens", usage.reasoning_tokens}};
}

// Claude Code's result subtypes; `outcome` keeps Ava's finer word.
std::string_view subtype_of(std::string_view outcome, bool is_error) {
  if (!is_error) return "success";
  if (outcome == "max_steps") return "error_max_turns";
  return "error_during_execution";
}

// A streamed delta as a stream_event's "event"; nullopt for what the
// durable events carry anyway (complete calls, usage, the stop).
std::optional<json> delta_json(const llm::StreamEvent& event) {
  if (const auto* text = std::get_if<llm::TextDelta>(&event)) {
    return json{{"type", "text_delta"}, {"text", text->text}};
  }
  if (const auto* thinking = std::get_if<llm::ThinkingDelta>(&event)) {
    return json{{"type", "thinking_delta"}, {"text", thinking->text}};
  }
  if (const auto* start = std::get_if<llm::ToolCallStart>(&event)) {
    return json{{"type", "tool_call_start"}, {"call_id", start->id}, {"name", start->name}};
  }
  if (const auto* delta = std::get_if<llm::ToolCallDelta>(&event)) {
    return json{{"type", "tool_call_delta"},
                {"call_id", delta->id},
                {"arguments_fragment", delta->arguments_fragment}};
  }
  return std::nullopt;
}

// Only the message is printed; the code keeps what kind of end it was.
ErrorCode code_of(const std::optional<session::TurnEnded>& end) {
  if (!end) return ErrorCode::internal;
  switch (end->reason) {
    case session::EndReason::max_steps: return ErrorCode::limit_exceeded;
    case session::EndReason::interrupted: return ErrorCode::cancelled;
    default: return ErrorCode::unavailable;
  }
}

}  // namespace

void PromptOutput::line(const json& object) {
  const std::string text = object.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
}

void PromptOutput::init(const agent::Agent& agent, const std::vector<std::string>& tools) {
  if (format_ != OutputFormat::stream_json) return;
  const auto status = agent.status();
  std::lock_guard lock(mutex_);
  session_id_ = status.session_id;
  line({{"type", "system"},
        {"subtype", "init"},
        {"schema_version", headless_schema_version},
        {"session_id", status.session_id},
        {"log", agent.log_path().string()},
        {"provider", status.provider},
        {"model", status.model},
        {"tools", tools},
        {"permission_mode", status.permission_mode},
        {"sandbox", status.sandbox}});
}

void PromptOutput::on_event(const session::Event& event) {
  std::lock_guard lock(mutex_);
  if (const auto* message = std::get_if<session::AssistantMessage>(&event.body)) {
    std::string text;
    for (const auto& block : message->content) {
      if (const auto* part = std::get_if<llm::TextBlock>(&block)) text += part->text;
    }
    if (!text.empty()) last_text_ = std::move(text);
  } else if (const auto* started = std::get_if<session::TurnStarted>(&event.body)) {
    turn_id_ = started->turn_id;
    turn_end_.reset();
  } else if (std::holds_alternative<session::StepStarted>(event.body)) {
    ++steps_;
  } else if (const auto* usage = std::get_if<session::UsageRecorded>(&event.body)) {
    usage_ += usage->usage;
  } else if (const auto* ended = std::get_if<session::TurnEnded>(&event.body)) {
    turn_end_ = *ended;
  } else if (const auto* result = std::get_if<session::ToolResult>(&event.body)) {
    note_refusal(*result);
  } else if (const auto* blocked = std::get_if<session::InputBlocked>(&event.body)) {
    blocked_ = blocked->reason.empty() ? "no reason given" : blocked->reason;
  } else if (const auto* answered = std::get_if<session::CommandOutput>(&event.body)) {
    command_output_ = answered->output;
  } else if (const auto* error = std::get_if<session::ErrorOccurred>(&event.body)) {
    if (error->turn_id.empty()) untimely_error_ = error->message;
  }
  if (format_ == OutputFormat::stream_json) {
    const std::string encoded = session::encode_line(event);
    std::fwrite(encoded.data(), 1, encoded.size(), stdout);
    std::fflush(stdout);
  }
}

// A call the permission check did not let run (details.permission): listed
// in the result, and named on stderr in text mode so a script's user sees
// why a step did less than asked.
void PromptOutput::note_refusal(const session::ToolResult& result) {
  if (!result.details.is_object()) return;
  const auto permission = result.details.find("permission");
  if (permission == result.details.end() || !permission->is_object()) return;
  const auto text = [&](const char* key) {
    const auto it = permission->find(key);
    return it != permission->end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  json refusal{{"tool_use_id", result.call_id},
               {"tool_name", result.tool_name},
               {"verdict", text("verdict")},
               {"reason", text("reason")}};
  if (const std::string rule = text("rule"); !rule.empty()) refusal["rule"] = rule;
  if (format_ == OutputFormat::text) {
    std::fprintf(stderr, "ava: %s not run: %s\n", result.tool_name.c_str(),
                 text("verdict") == "ask" ? ("it needs approval (" + text("reason") +
                                             "); allow it with "
                                             "--allowed-tools or --permission-mode")
                                                .c_str()
                                          : text("reason").c_str());
  }
  refusals_.push_back(std::move(refusal));
}

void PromptOutput::on_live(const agent::LiveEvent& event) {
  if (partial_messages_ && format_ == OutputFormat::stream_json) {
    if (const auto* progress = std::get_if<agent::StreamProgress>(&event)) {
      if (auto delta = delta_json(progress->event)) {
        std::lock_guard lock(mutex_);
        line({{"type", "stream_event"},
              {"session_id", session_id_},
              {"turn_id", progress->turn_id},
              {"step", progress->step},
              {"event", std::move(*delta)}});
      }
      return;
    }
  }
  if (!verbose_) return;
  const auto* activity = std::get_if<agent::ToolActivity>(&event);
  if (!activity || activity->finished) return;
  std::lock_guard lock(mutex_);
  std::fprintf(stderr, "ava: %s\n", activity->label.c_str());
}

Result<int> PromptOutput::finish(const agent::Agent& agent, const llm::ModelInfo& model,
                                 std::int64_t duration_ms) {
  std::lock_guard lock(mutex_);
  const auto status = agent.status();
  std::string outcome = "error";
  std::string message = status.last_error;
  int exit_code = 1;
  if (turn_end_) {
    outcome = std::string(session::to_string(turn_end_->reason));
    if (message.empty()) message = turn_end_->message;
    if (turn_end_->reason == session::EndReason::completed) exit_code = 0;
    if (turn_end_->reason == session::EndReason::aborted) exit_code = 130;
  } else if (blocked_) {
    outcome = "blocked";
    message = "a UserPromptSubmit hook blocked the prompt: " + *blocked_;
  } else if (command_output_ && untimely_error_.empty()) {
    // A built-in answered without a turn: its answer is the result.
    outcome = "command";
    exit_code = 0;
    last_text_ = *command_output_;
  } else if (!untimely_error_.empty()) {
    message = untimely_error_;
  } else if (message.empty()) {
    message = "the turn did not finish";
  }
  const double cost = llm::cost_usd(model, usage_);
  if (format_ == OutputFormat::text) {
    if (!last_text_.empty()) {
      std::fputs(last_text_.c_str(), stdout);
      if (last_text_.back() != '\n') std::fputc('\n', stdout);
    }
  } else {
    const bool is_error = exit_code != 0;
    line({{"type", "result"},
          {"subtype", subtype_of(outcome, is_error)},
          {"schema_version", headless_schema_version},
          {"outcome", outcome},
          {"is_error", is_error},
          {"result", last_text_},
          {"error", is_error ? json(message) : json()},
          {"session_id", status.session_id},
          {"log", agent.log_path().string()},
          {"turn_id", turn_id_},
          {"num_turns", steps_},
          {"duration_ms", duration_ms},
          {"usage", usage_json(usage_)},
          {"total_cost_usd", model.known ? json(cost) : json()},
          {"permission_mode", status.permission_mode},
          {"sandbox", status.sandbox},
          {"permission_denials", refusals_}});
  }
  std::fflush(stdout);
  if (exit_code == 1 && !turn_end_ && blocked_) {
    return fail(ErrorCode::permission_denied, message);
  }
  if (exit_code == 1) {
    return fail(code_of(turn_end_), fmt::format("turn ended ({}): {}", outcome, message));
  }
  // Aborted on purpose: a note with its own exit code, not a failure.
  if (exit_code == 130) {
    std::fprintf(stderr, "ava: aborted; the session log is closed (continue with --session %s)\n",
                 status.session_id.c_str());
  }
  return exit_code;
}

}  // namespace ava::cli
