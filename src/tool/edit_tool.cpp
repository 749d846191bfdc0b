#include <fmt/format.h>

#include "ava/proc/capture.hpp"
#include "ava/tool/edit.hpp"
#include "ava/tool/files.hpp"
#include "ava/tool/registry.hpp"
#include "file_io.hpp"

namespace ava::tool {
namespace {

using nlohmann::json;

const char* const batch_schema = R"({
  "type": "object",
  "properties": {
    "path": {"type": "string"},
    "edits": {
      "type": "array",
      "minItems": 1,
      "items": {
        "type": "object",
        "properties": {"oldText": {"type": "string"}, "newText": {"type": "string"}},
        "required": ["oldText", "newText"],
        "additionalProperties": false
      }
    }
  },
  "required": ["path", "edits"],
  "additionalProperties": false
})";

// Older callers send one replacement (optionally everywhere).
const char* const legacy_schema = R"({
  "type": "object",
  "properties": {
    "path": {"type": "string"},
    "file_path": {"type": "string"},
    "old_string": {"type": "string"},
    "new_string": {"type": "string"},
    "replace_all": {"type": "boolean"}
  },
  "required": ["old_string", "new_string"],
  "additionalProperties": false
})";

}  // namespace

std::variant<EditPlan, ToolResult> plan_edit(const json& arguments, std::string_view original,
                                             std::string_view path_text,
                                             const std::filesystem::path& path,
                                             const base::Limits& limits) {
  Result<std::vector<Replacement>> located;
  if (!arguments.contains("edits")) {
    located = locate_legacy_edit(original,
                                 {arguments.at("old_string").get<std::string>(),
                                  arguments.at("new_string").get<std::string>()},
                                 arguments.value("replace_all", false));
  } else {
    std::vector<TextEdit> edits;
    for (const auto& edit : arguments.at("edits")) {
      edits.push_back(
          {edit.at("oldText").get<std::string>(), edit.at("newText").get<std::string>()});
    }
    located = locate_edits(original, edits);
  }
  if (!located) {
    return ToolResult::error(
        fmt::format("Edit of {} rejected:\n{}", path_text, located.error().message));
  }
  std::string updated = apply_replacements(original, *located);
  if (updated == original) {
    return ToolResult::error(fmt::format(
        "No change: the replacements leave {} as it is. No edits were applied.", path_text));
  }
  const std::string diff =
      proc::truncate_middle(unified_diff(original, *located, path_text), limits.tool_output);
  return EditPlan{
      .updated = std::move(updated),
      .report = ToolResult::text(
          fmt::format("Edited {}: {} replacement{}.", path_text, located->size(),
                      located->size() == 1 ? "" : "s"),
          {{"path", path.string()}, {"replacements", located->size()}, {"diff", diff}})};
}

namespace {

class EditTool final : public Tool {
 public:
  EditTool() {
    accepted_ = json{{"anyOf", json::array({spec_.parameters, json::parse(legacy_schema)})}};
  }

  const ToolSpec& spec() const override { return spec_; }
  const json& accepted_arguments() const override { return accepted_; }

  boost::asio::awaitable<Result<ToolResult>> execute(const json& arguments,
                                                     ToolContext& context) override {
    std::string path_text = arguments.value("path", arguments.value("file_path", std::string()));
    if (path_text.empty())
      co_return ToolResult::error("Invalid arguments for edit: path: is required");
    const auto path = file_io::resolve(context, path_text);
    auto original = file_io::read_file(path, context.limits.edit_file_bytes);
    if (!original) {
      co_return ToolResult::error(
          fmt::format("Cannot edit {}: {}", path_text, original.error().message));
    }

    auto planned = plan_edit(arguments, *original, path_text, path, context.limits);
    auto* plan = std::get_if<EditPlan>(&planned);
    if (plan == nullptr) co_return std::get<ToolResult>(std::move(planned));
    if (auto written = file_io::write_file_atomic(path, plan->updated); !written) {
      co_return ToolResult::error(
          fmt::format("Could not write {}: {}", path_text, written.error().message));
    }
    co_return std::move(plan->report);
  }

 private:
  ToolSpec spec_{.name = "edit",
                 .description =
                     "Replace exact text in a file. Each oldText must match exactly once in the "
                     "original file; edits must not overlap. All edits apply together or none.",
                 .parameters = json::parse(batch_schema),
                 .category = Category::fs};
  json accepted_;
};

}  // namespace

std::unique_ptr<Tool> make_edit_tool() { return std::make_unique<EditTool>(); }

}  // namespace ava::tool
