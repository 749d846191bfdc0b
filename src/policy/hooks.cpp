// Hooks as Claude Code writes them: the settings block, the matcher, and
// the answer a hook gives (its exit code and what it printed).
#include "ava/policy/hooks.hpp"

#include <algorithm>
#include <array>
#include <cctype>

#include "ava/base/json.hpp"
#include "ava/base/utf8.hpp"
#include "policy/glob.hpp"

namespace ava::policy {
namespace {

using nlohmann::json;

constexpr std::array<std::pair<HookEvent, std::string_view>, 7> event_names{{
    {HookEvent::pre_tool_use, "PreToolUse"},
    {HookEvent::post_tool_use, "PostToolUse"},
    {HookEvent::user_prompt_submit, "UserPromptSubmit"},
    {HookEvent::stop, "Stop"},
    {HookEvent::session_start, "SessionStart"},
    {HookEvent::session_end, "SessionEnd"},
    {HookEvent::pre_compact, "PreCompact"},
}};

constexpr std::size_t max_reason = 2000;
constexpr std::size_t max_context = 10'000;
constexpr std::chrono::seconds max_timeout{600};

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string trimmed(std::string_view text, std::size_t limit = max_reason) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) {
    text.remove_prefix(1);
  }
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) {
    text.remove_suffix(1);
  }
  return std::string(base::utf8::truncate(text, limit));
}

std::string text_field(const json& object, const char* name, std::size_t limit = max_reason) {
  const auto it = object.find(name);
  return it != object.end() && it->is_string() ? trimmed(it->get<std::string>(), limit)
                                               : std::string();
}

// Claude Code caps what a hook adds to the context at 10,000 characters.
std::string bounded_context(std::string_view text) { return trimmed(text, max_context); }

bool tool_event(HookEvent event) {
  return event == HookEvent::pre_tool_use || event == HookEvent::post_tool_use;
}

}  // namespace

std::string_view to_string(HookEvent event) {
  for (const auto& [known, name] : event_names) {
    if (known == event) return name;
  }
  return "PreToolUse";
}

std::optional<HookEvent> parse_hook_event(std::string_view name) {
  for (const auto& [event, known] : event_names) {
    if (known == name) return event;
  }
  return std::nullopt;
}

bool hook_matches(std::string_view matcher, std::string_view tool) {
  if (matcher.empty() || matcher == "*" || matcher == ".*") return true;
  const std::string name = lower(tool);
  std::size_t at = 0;
  while (at <= matcher.size()) {
    const auto end = std::min(matcher.find('|', at), matcher.size());
    std::string alternative = lower(matcher.substr(at, end - at));
    // ".*" in a regular expression is "*" in a glob.
    for (auto dot = alternative.find(".*"); dot != std::string::npos;
         dot = alternative.find(".*", dot)) {
      alternative.replace(dot, 2, "*");
    }
    if (!alternative.empty() && glob_match(alternative, name, false)) return true;
    at = end + 1;
  }
  return false;
}

std::vector<const HookCommand*> Hooks::matching(HookEvent event, std::string_view tool) const {
  std::vector<const HookCommand*> found;
  for (const auto& command : commands) {
    if (command.event != event) continue;
    if (tool_event(event) && !hook_matches(command.matcher, tool)) continue;
    found.push_back(&command);
  }
  return found;
}

Result<void> add_hooks(Hooks& into, const json& block, const std::string& source,
                       std::vector<std::string>& unsupported) {
  if (block.is_null()) return {};
  if (!block.is_object())
    return fail(ErrorCode::invalid_argument, source + ": hooks must be an object");
  for (const auto& [name, entries] : block.items()) {
    const auto event = parse_hook_event(name);
    if (!event) {
      unsupported.push_back(name.substr(0, 64));
      continue;
    }
    if (!entries.is_array()) {
      return fail(ErrorCode::invalid_argument, source + ": hooks." + name + " must be a list");
    }
    for (const auto& entry : entries) {
      if (!entry.is_object()) {
        return fail(ErrorCode::invalid_argument,
                    source + ": hooks." + name + " holds an entry that is not an object");
      }
      const std::string matcher = entry.contains("matcher") && entry["matcher"].is_string()
                                      ? entry["matcher"].get<std::string>()
                                      : std::string();
      const auto list = entry.find("hooks");
      if (list == entry.end() || !list->is_array()) {
        return fail(ErrorCode::invalid_argument,
                    source + ": hooks." + name + "[].hooks must be a list of commands");
      }
      for (const auto& hook : *list) {
        if (!hook.is_object() || hook.value("type", std::string()) != "command" ||
            !hook.contains("command") || !hook["command"].is_string() ||
            hook["command"].get_ref<const std::string&>().empty()) {
          return fail(ErrorCode::invalid_argument,
                      source + ": hooks." + name +
                          " holds a hook that is not {\"type\": \"command\", \"command\": ...}");
        }
        HookCommand command{.event = *event,
                            .matcher = matcher,
                            .command = hook["command"].get<std::string>(),
                            .source = source};
        if (const auto timeout = hook.find("timeout"); timeout != hook.end()) {
          if (!timeout->is_number() || timeout->get<double>() <= 0) {
            return fail(
                ErrorCode::invalid_argument,
                source + ": hooks." + name + " timeout must be a positive number of seconds");
          }
          const double seconds = std::min(timeout->get<double>(), double(max_timeout.count()));
          command.timeout = std::chrono::milliseconds(static_cast<std::int64_t>(seconds * 1000));
        }
        into.commands.push_back(std::move(command));
      }
    }
  }
  return {};
}

HookReply read_hook_reply(HookEvent event, int exit_code, bool timed_out, std::string_view out,
                          std::string_view err) {
  if (timed_out) return {.outcome = "timeout", .reason = "the hook timed out"};
  if (exit_code == 2) {
    std::string reason = trimmed(err);
    if (reason.empty()) reason = "blocked by a hook";
    return {.outcome = "block", .reason = std::move(reason)};
  }
  if (exit_code != 0) {
    return {
        .outcome = "error",
        .reason = trimmed(err).empty() ? "exit code " + std::to_string(exit_code) : trimmed(err)};
  }
  const std::string text = trimmed(out);
  const bool prompt = event == HookEvent::user_prompt_submit;
  auto plain = [&] {
    return HookReply{.outcome = "ok",
                     .additional_context = prompt ? bounded_context(out) : std::string()};
  };
  if (text.empty() || text.front() != '{') return plain();
  auto parsed = base::parse_json(out, base::JsonLimits{.max_depth = 32, .max_bytes = 1 << 20});
  if (!parsed || !parsed->is_object()) return plain();
  const json& reply = *parsed;
  if (reply.value("continue", true) == false) {
    std::string reason = text_field(reply, "stopReason");
    return {.outcome = "block", .reason = reason.empty() ? "stopped by a hook" : reason};
  }
  if (event == HookEvent::pre_tool_use) {
    if (const auto specific = reply.find("hookSpecificOutput");
        specific != reply.end() && specific->is_object()) {
      const std::string decision = text_field(*specific, "permissionDecision");
      std::string reason = text_field(*specific, "permissionDecisionReason");
      std::optional<json> updated;
      if (const auto input = specific->find("updatedInput");
          input != specific->end() && input->is_object()) {
        updated = *input;
      }
      if (decision == "deny") return {.outcome = "deny", .reason = std::move(reason)};
      if (decision == "ask") {
        return {.outcome = "ask", .reason = std::move(reason), .updated_input = std::move(updated)};
      }
      if (decision == "allow") {
        return {
            .outcome = "allow", .reason = std::move(reason), .updated_input = std::move(updated)};
      }
      if (updated)
        return {.outcome = "rewrite", .reason = std::move(reason), .updated_input = updated};
    }
  }
  const std::string decision = text_field(reply, "decision");
  if (decision == "block") {
    std::string reason = text_field(reply, "reason");
    return {.outcome = "block", .reason = reason.empty() ? "blocked by a hook" : reason};
  }
  if (prompt) {
    if (const auto specific = reply.find("hookSpecificOutput");
        specific != reply.end() && specific->is_object()) {
      return {.outcome = "ok",
              .additional_context = text_field(*specific, "additionalContext", max_context)};
    }
  }
  // Claude Code's older PreToolUse answers.
  if (event == HookEvent::pre_tool_use && decision == "approve") {
    return {.outcome = "allow", .reason = text_field(reply, "reason")};
  }
  return {.outcome = "ok"};
}

std::string hook_tool_name(std::string_view tool) {
  if (tool == "bash") return "Bash";
  if (tool == "edit") return "Edit";
  if (tool == "write") return "Write";
  if (tool == "read") return "Read";
  return std::string(tool);
}

}  // namespace ava::policy
