#include "ava/acp/updates.hpp"

#include "ava/base/json.hpp"
#include "ava/prompts/builtins.hpp"
#include "ava/prompts/commands.hpp"

namespace ava::acp {

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

json text_block(std::string text) { return json{{"type", "text"}, {"text", std::move(text)}}; }

json chunk(const char* kind, std::string text) {
  return json{{"sessionUpdate", kind}, {"content", text_block(std::move(text))}};
}

std::string absolute(const std::string& path, const fs::path& cwd) {
  const fs::path given(path);
  return (given.is_absolute() ? given : cwd / given).lexically_normal().string();
}

std::string string_argument(const json& arguments, const char* key) {
  return base::json_value(arguments, key, std::string());
}

// What the call is about, for the editor's list: "bash: make test".
std::string title_of(const std::string& tool_name, const json& arguments) {
  for (const char* key : {"command", "path", "pattern", "url", "query", "description"}) {
    auto value = string_argument(arguments, key);
    if (value.empty()) continue;
    if (const auto line = value.find('\n'); line != std::string::npos) value.resize(line);
    if (value.size() > 120) value = value.substr(0, 117) + "...";
    return tool_name + ": " + value;
  }
  return tool_name;
}

// edit's {path, edits: [{oldText, newText}]} (or the legacy old_string /
// new_string pair) and write's {path, content} as ACP diff content.
json diff_content(const std::string& tool_name, const json& arguments, const std::string& path) {
  json out = json::array();
  if (path.empty()) return out;
  if (tool_name == "write") {
    out.push_back({{"type", "diff"},
                   {"path", path},
                   {"oldText", nullptr},
                   {"newText", string_argument(arguments, "content")}});
  } else if (tool_name == "edit") {
    const auto edits = base::json_value(arguments, "edits", json::array());
    if (edits.is_array()) {
      for (const auto& edit : edits) {
        if (!edit.is_object()) continue;
        out.push_back({{"type", "diff"},
                       {"path", path},
                       {"oldText", string_argument(edit, "oldText")},
                       {"newText", string_argument(edit, "newText")}});
      }
    }
    if (arguments.is_object() && arguments.contains("old_string")) {
      out.push_back({{"type", "diff"},
                     {"path", path},
                     {"oldText", string_argument(arguments, "old_string")},
                     {"newText", string_argument(arguments, "new_string")}});
    }
  }
  return out;
}

std::string result_text(const session::ToolResult& result) {
  std::string text;
  for (const auto& block : result.content) {
    if (const auto* part = std::get_if<content::TextBlock>(&block)) text += part->text;
  }
  return text;
}

json tool_result_update(const session::ToolResult& result, bool replay) {
  const bool ok = result.status == session::ToolStatus::ok;
  json update{{"sessionUpdate", "tool_call_update"},
              {"toolCallId", result.call_id},
              {"status", ok ? "completed" : "failed"}};
  // A command run in the editor's terminal: the terminal embedded while it
  // ran stays the content (the editor keeps its output); a replay has only
  // the text.
  const bool in_terminal =
      !replay && !base::json_value(result.details, "terminal_id", std::string()).empty();
  if (auto text = result_text(result); !text.empty() && !in_terminal) {
    update["content"] = json::array({{{"type", "content"}, {"content", text_block(text)}}});
  }
  if (!result.details.is_null()) update["rawOutput"] = result.details;
  return update;
}

}  // namespace

json available_commands_update(const fs::path& cwd, const fs::path& home) {
  json commands = json::array();
  auto add = [&commands](std::string name, std::string description, std::string hint) {
    json command{{"name", std::move(name)}, {"description", std::move(description)}};
    if (!hint.empty()) command["input"] = {{"hint", std::move(hint)}};
    commands.push_back(std::move(command));
  };
  for (const auto& builtin : prompts::builtin_commands()) {
    add(std::string(builtin.name), std::string(builtin.description),
        std::string(builtin.argument_hint));
  }
  for (auto& command : prompts::discover_commands({.cwd = cwd, .home = home})) {
    if (prompts::find_builtin(command.name)) continue;  // the built-in wins, as in the agent
    add(std::move(command.name), std::move(command.description), std::move(command.argument_hint));
  }
  return json{{"sessionUpdate", "available_commands_update"}, {"availableCommands", commands}};
}

std::string tool_kind(const std::string& tool_name) {
  if (tool_name == "read") return "read";
  if (tool_name == "edit" || tool_name == "write") return "edit";
  if (tool_name == "bash") return "execute";
  if (tool_name == "grep" || tool_name == "glob" || tool_name == "find" || tool_name == "ls") {
    return "search";
  }
  if (tool_name.find("fetch") != std::string::npos || tool_name == "web_search") return "fetch";
  return "other";
}

json tool_call_update(const std::string& call_id, const std::string& tool_name,
                      const json& arguments, const fs::path& cwd) {
  json update{{"sessionUpdate", "tool_call"},
              {"toolCallId", call_id},
              {"title", title_of(tool_name, arguments)},
              {"kind", tool_kind(tool_name)},
              {"status", "pending"},
              {"rawInput", arguments}};
  const auto path = string_argument(arguments, "path");
  const auto full = path.empty() ? std::string() : absolute(path, cwd);
  if (!full.empty()) update["locations"] = json::array({{{"path", full}}});
  if (auto diff = diff_content(tool_name, arguments, full); !diff.empty()) {
    update["content"] = std::move(diff);
  }
  return update;
}

std::vector<json> UpdateMapper::on_event(const session::Event& event, bool replay) {
  std::vector<json> out;
  if (const auto* input = std::get_if<session::InputAcknowledged>(&event.body)) {
    if (replay && !input->text.empty()) out.push_back(chunk("user_message_chunk", input->text));
  } else if (const auto* message = std::get_if<session::AssistantMessage>(&event.body)) {
    auto& streamed = steps_[{message->turn_id, message->step}];
    std::string text;
    std::string thinking;
    for (const auto& block : message->content) {
      if (const auto* part = std::get_if<content::TextBlock>(&block)) text += part->text;
      if (const auto* part = std::get_if<content::ThinkingBlock>(&block)) thinking += part->text;
    }
    // Only what the deltas did not bring; a final text that differs from
    // them (it replaced them) cannot be taken back and is not sent twice.
    auto rest = [](const std::string& whole, const std::string& sent) {
      return whole.starts_with(sent) ? whole.substr(sent.size()) : std::string();
    };
    if (auto more = rest(thinking, streamed.thinking); !more.empty()) {
      out.push_back(chunk("agent_thought_chunk", std::move(more)));
    }
    if (auto more = rest(text, streamed.text); !more.empty()) {
      out.push_back(chunk("agent_message_chunk", std::move(more)));
    }
    streamed.complete = true;
    for (const auto& block : message->content) {
      if (const auto* call = std::get_if<content::ToolCallBlock>(&block)) {
        auto arguments = base::parse_json(call->arguments).value_or(json::object());
        out.push_back(tool_call_update(call->id, call->name, arguments, cwd_));
      }
    }
  } else if (const auto* result = std::get_if<session::ToolResult>(&event.body)) {
    out.push_back(tool_result_update(*result, replay));
  } else if (const auto* output = std::get_if<session::CommandOutput>(&event.body)) {
    if (replay && !output->text.empty()) out.push_back(chunk("user_message_chunk", output->text));
    if (!output->output.empty()) out.push_back(chunk("agent_message_chunk", output->output));
  } else if (const auto* mode = std::get_if<session::PermissionModeChanged>(&event.body)) {
    if (!replay)
      out.push_back({{"sessionUpdate", "current_mode_update"}, {"currentModeId", mode->mode}});
  } else if (const auto* error = std::get_if<session::ErrorOccurred>(&event.body)) {
    out.push_back(chunk("agent_message_chunk", "\n\n[error] " + error->message));
  } else if (const auto* ended = std::get_if<session::TurnEnded>(&event.body)) {
    std::erase_if(steps_, [&](const auto& entry) { return entry.first.first == ended->turn_id; });
  }
  return out;
}

std::vector<json> UpdateMapper::on_live(const agent::LiveEvent& event) {
  std::vector<json> out;
  const auto* progress = std::get_if<agent::StreamProgress>(&event);
  if (progress == nullptr) return out;
  auto& streamed = steps_[{progress->turn_id, progress->step}];
  if (streamed.complete) return out;  // the whole message came first
  if (const auto* delta = std::get_if<llm::TextDelta>(&progress->event)) {
    streamed.text += delta->text;
    if (!delta->text.empty()) out.push_back(chunk("agent_message_chunk", delta->text));
  } else if (const auto* thought = std::get_if<llm::ThinkingDelta>(&progress->event)) {
    streamed.thinking += thought->text;
    if (!thought->text.empty()) out.push_back(chunk("agent_thought_chunk", thought->text));
  }
  return out;
}

}  // namespace ava::acp
