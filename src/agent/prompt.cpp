#include "ava/agent/prompt.hpp"

#include <fstream>
#include <sstream>
#include <system_error>

#include <fmt/format.h>

namespace ava::agent {
namespace {

namespace fs = std::filesystem;

// Short on purpose: it is sent with every request of every turn. It asks for
// verification and honest reporting, and does not ask the model to narrate
// before tool calls (the UIs derive activity labels from tool events).
constexpr std::string_view base_prompt =
    R"(You are Ava, a coding agent working in the user's project on their machine. You act through tools: read and write files, make exact edits, and run shell commands with bash.

Work like a careful senior engineer:
- Understand before changing: read the relevant code; search with bash (rg, grep, find, git).
- Make the smallest change that fully solves the task and follow the project's conventions.
- Use edit for changes to existing files (each oldText must match exactly once) and write for new files.
- Verify your work: build, run the tests or the program where possible, and fix what fails.
- Call tools directly; there is no need to announce them first.
- Never claim something works without checking it. If you are blocked, say what blocks you.
- Do not run destructive commands (rm -rf, git reset --hard, force pushes) unless the user asked for them.
- When done, answer briefly: what changed, how it was verified, what is left.)";

}  // namespace

std::string build_system_prompt(const PromptInputs& inputs) {
  std::string prompt(base_prompt);
  prompt += fmt::format("\n\nWorking directory: {}\nPlatform: Linux\n", inputs.cwd.string());
  if (!inputs.project.text.empty()) {
    // Later files are more specific (a subfolder's, the user's, the local
    // one) and take precedence where they disagree.
    prompt += fmt::format(
        "\nProject instructions (later files take precedence):\n<project_instructions>\n{}"
        "</project_instructions>\n",
        inputs.project.text);
  }
  if (inputs.memory) {
    // Only the index: the model reads a note's body when it needs it.
    prompt += inputs.memory_index.empty()
                  ? "\nMemory: no notes yet. Save with the memory tool what later conversations "
                    "will need (the user's preferences, project facts not in the files).\n"
                  : "\nMemory notes (read one with the memory tool before relying on it):\n" +
                        inputs.memory_index;
  }
  if (!inputs.skills.empty()) {
    prompt += "\nSkills (load one with the skill tool when a task matches it):\n";
    for (const auto& skill : inputs.skills) {
      prompt += fmt::format("- {}: {}\n", skill.name, skill.description);
    }
  }
  return prompt;
}

}  // namespace ava::agent
