#pragma once

#include <filesystem>
#include <memory>

#include "ava/acp/editor.hpp"
#include "ava/tool/registry.hpp"

// Ava's built-in tools with the editor's file system and terminal behind
// them, where the editor offers them (docs/acp.md): same names, schemas
// and answers as the built-ins, so permissions, the log and the model see
// no difference.
namespace ava::acp {

struct EditorToolOptions {
  // `ava` itself: commands run in the editor's terminal through
  // `ava sandbox-exec`, which applies the conversation's sandbox and drops
  // secret-looking variables as the built-in bash does.
  std::filesystem::path ava_executable;
};

// read (fs/read_text_file: unsaved buffers included), write
// (fs/write_text_file), edit (both), bash (terminal/create, shown live in
// the editor); a capability the editor lacks leaves the built-in tool.
tool::ToolRegistry editor_tools(std::shared_ptr<EditorLink> link, EditorToolOptions options);

}  // namespace ava::acp
