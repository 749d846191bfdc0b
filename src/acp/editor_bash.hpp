#pragma once

#include <filesystem>
#include <memory>

#include "ava/acp/editor.hpp"
#include "ava/tool/tool.hpp"

namespace ava::acp {

// bash in the editor's terminal (terminal/create), embedded live in the
// call's report; the command runs through `ava sandbox-exec`.
std::unique_ptr<tool::Tool> make_editor_bash(std::shared_ptr<EditorLink> link,
                                             std::filesystem::path ava_executable);

}  // namespace ava::acp
