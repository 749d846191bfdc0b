#pragma once

#include <nlohmann/json.hpp>

#include "ava/base/limits.hpp"
#include "ava/tool/content.hpp"

namespace ava::mcp {

// Turns a CallToolResult into what the model sees, within the limits:
// - text: kept, invalid UTF-8 replaced; all text together is bounded by
//   limits.tool_output (head and tail kept, the cut marked);
// - image (png, jpeg, gif, webp up to limits.image_bytes): an image block;
//   other images, and audio, a line naming type and size (Ava has no audio
//   block for the model);
// - resource_link: a line with its name, URI, type and description;
// - embedded resource: its text under a header line, an image blob as an
//   image, another blob as a line naming it;
// - structuredContent: its JSON as text when no text block says it already
//   (the spec asks servers to send both), and in details.structuredContent;
// - isError: ToolResult::is_error, so the model reads the failure.
// Unknown content types become a line naming the type.
tool::ToolResult adapt_call_result(const nlohmann::json& result,
                                   const base::Limits& limits = base::Limits::defaults());

}  // namespace ava::mcp
