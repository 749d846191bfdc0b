// The memory tool: the model keeps notes across conversations through the
// prompts package's store (docs/workflows.md). Reads are reads; saving,
// updating and forgetting are edits of the note's file for the permission
// check, so a project's notes are inside the project and the user's are not.

#include <fmt/format.h>

#include "core.hpp"

namespace ava::agent {
namespace {

using nlohmann::json;

std::string string_or(const json& arguments, const char* name, std::string fallback = {}) {
  const auto it = arguments.find(name);
  return it != arguments.end() && it->is_string() ? it->get<std::string>() : fallback;
}

class MemoryTool final : public tool::Tool {
 public:
  explicit MemoryTool(prompts::MemoryPlaces places) : places_(std::move(places)) {}

  const tool::ToolSpec& spec() const override { return spec_; }

  boost::asio::awaitable<Result<tool::ToolResult>> execute(const json& arguments,
                                                           tool::ToolContext&) override {
    co_return run(arguments);
  }

 private:
  tool::ToolResult run(const json& arguments) const {
    const std::string action = string_or(arguments, "action");
    if (action == "list") return list();
    auto scope = prompts::parse_memory_scope(string_or(arguments, "scope", "project"));
    if (!scope) return tool::ToolResult::error(scope.error().message);
    const std::string name = string_or(arguments, "name");
    if (name.empty()) return tool::ToolResult::error("name is required for " + action);
    const auto where = fmt::format("{} note \"{}\"", prompts::to_string(*scope), name);
    if (action == "read") {
      auto text = prompts::read_memory(places_, *scope, name);
      if (!text) return tool::ToolResult::error(text.error().message);
      return tool::ToolResult::text(
          fmt::format("{} ({}): {}\n\n{}", where, text->note.file.string(), text->note.summary,
                      text->body),
          json{{"memory", name}, {"scope", prompts::to_string(*scope)}});
    }
    if (action == "forget") {
      auto moved = prompts::forget_memory(places_, *scope, name);
      if (!moved) return tool::ToolResult::error(moved.error().message);
      return tool::ToolResult::text(
          fmt::format("Forgot the {}: moved to {} (restore it by moving it back).", where,
                      moved->string()),
          json{{"memory", name}, {"scope", prompts::to_string(*scope)}, {"path", moved->string()}});
    }
    if (action != "save" && action != "update") {
      return tool::ToolResult::error("action is one of list, read, save, update, forget");
    }
    std::string summary = string_or(arguments, "summary");
    std::string body = string_or(arguments, "content");
    const bool update = action == "update";
    if (update) {
      // What the update leaves out stays as it was.
      auto old = prompts::read_memory(places_, *scope, name);
      if (!old) return tool::ToolResult::error(old.error().message);
      if (!arguments.contains("summary")) summary = old->note.summary;
      if (!arguments.contains("content")) body = old->body;
    }
    auto written = prompts::write_memory(
        places_,
        {.name = name, .scope = *scope, .summary = summary, .body = body, .replace = update});
    if (!written) return tool::ToolResult::error(written.error().message);
    return tool::ToolResult::text(
        fmt::format("{} the {} ({}).", update ? "Updated" : "Saved", where, written->file.string()),
        json{{"memory", name},
             {"scope", prompts::to_string(*scope)},
             {"path", written->file.string()}});
  }

  tool::ToolResult list() const {
    const auto notes = prompts::list_memory(places_);
    if (notes.empty()) return tool::ToolResult::text("No memory notes yet.");
    std::string text;
    for (const auto& note : notes) {
      text += fmt::format("- {} ({}, {} bytes): {}\n", note.name, prompts::to_string(note.scope),
                          note.bytes, note.summary);
    }
    return tool::ToolResult::text(std::move(text), json{{"notes", notes.size()}});
  }

  prompts::MemoryPlaces places_;
  tool::ToolSpec spec_{
      .name = "memory",
      .description =
          "Notes kept across conversations; their index is in the system prompt. Save what "
          "will matter later (the user's preferences, facts about the project not in its "
          "files), read a note before relying on it, update or forget notes that are wrong. "
          "scope: project (default) or user (every project).",
      .parameters = {{"type", "object"},
                     {"properties",
                      {{"action",
                        {{"type", "string"},
                         {"enum", {"list", "read", "save", "update", "forget"}}}},
                       {"name", {{"type", "string"}, {"description", "file name: a-z 0-9 . _ -"}}},
                       {"scope", {{"type", "string"}, {"enum", {"project", "user"}}}},
                       {"summary", {{"type", "string"}, {"description", "one line for the index"}}},
                       {"content", {{"type", "string"}, {"description", "the note, Markdown"}}}}},
                     {"required", {"action"}},
                     {"additionalProperties", false}},
      .category = tool::Category::fs};
};

}  // namespace

std::unique_ptr<tool::Tool> make_memory_tool(prompts::MemoryPlaces places) {
  return std::make_unique<MemoryTool>(std::move(places));
}

policy::ToolCall describe_memory_call(const json& arguments, const prompts::MemoryPlaces& places) {
  policy::ToolCall call{.tool = "memory", .category = policy::Category::read};
  const std::string action = string_or(arguments, "action");
  if (action == "list" || action == "read") return call;
  call.category = policy::Category::edit;
  const auto scope = prompts::parse_memory_scope(string_or(arguments, "scope", "project"));
  const std::string name = string_or(arguments, "name");
  if (scope && !name.empty()) {
    call.path = (prompts::memory_folder(places, *scope) / (name + ".md")).string();
  }
  return call;
}

}  // namespace ava::agent
