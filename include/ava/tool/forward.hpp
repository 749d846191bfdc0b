#pragma once

// Forward declarations of the tool package (namespace ava::tool).
namespace ava::tool {
class Tool;
class ToolRegistry;
class ToolSource;
struct Replacement;
struct TextEdit;
struct ToolContext;
struct ToolResult;
struct ToolSpec;
}  // namespace ava::tool
