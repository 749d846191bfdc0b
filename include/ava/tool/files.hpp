#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <variant>

#include <nlohmann/json.hpp>

#include "ava/base/error.hpp"
#include "ava/base/limits.hpp"
#include "ava/tool/tool.hpp"

// The file tools' logic without their disk access, for tools that keep the
// same contract over another file system (an editor's buffers through ACP,
// src/acp/editor_tools.cpp).
namespace ava::tool {

// A path from the model: absolute, "~/..." (the user's home) or relative to
// the context's working folder.
std::filesystem::path resolve_path(const ToolContext& context, std::string_view path);

// The read tool's answer for text already in hand, for a read call's
// arguments (path, offset, limit; their defaults as the tool has them):
// numbered lines within the limits' output caps. `path`: the resolved one.
Result<ToolResult> read_text(std::string_view text, const nlohmann::json& arguments,
                             const std::filesystem::path& path, const base::Limits& limits);

// The write tool's answer once `bytes` bytes are written to `path`.
ToolResult write_report(std::string_view path_text, const std::filesystem::path& path,
                        std::size_t bytes, bool created);

// An edit call's arguments (either form the edit tool accepts) applied to
// a file's content: what to write and what to report once it is written,
// or the error the model sees (nothing matched, no change, ...).
struct EditPlan {
  std::string updated;
  ToolResult report;
};
std::variant<EditPlan, ToolResult> plan_edit(const nlohmann::json& arguments,
                                             std::string_view original, std::string_view path_text,
                                             const std::filesystem::path& path,
                                             const base::Limits& limits);

}  // namespace ava::tool
