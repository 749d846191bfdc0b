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

std::optional<std::string> read_bounded(const fs::path& file, std::size_t limit) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return std::nullopt;
  std::string text(limit + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  if (text.size() > limit) {
    text.resize(limit);
    text += fmt::format("\n[truncated: {} holds more than {} bytes]", file.string(), limit);
  }
  return text;
}

}  // namespace

std::optional<ProjectContext> find_project_context(const fs::path& cwd, std::size_t limit) {
  std::error_code ec;
  fs::path dir = fs::weakly_canonical(cwd, ec);
  if (ec) dir = cwd;
  for (;;) {
    for (const char* name : {"AGENTS.md", "CLAUDE.md"}) {
      const fs::path candidate = dir / name;
      if (!fs::is_regular_file(candidate, ec)) continue;
      if (auto text = read_bounded(candidate, limit)) {
        return ProjectContext{.file = candidate, .text = std::move(*text)};
      }
    }
    if (!dir.has_parent_path() || dir.parent_path() == dir) return std::nullopt;
    dir = dir.parent_path();
  }
}

std::string build_system_prompt(const PromptInputs& inputs) {
  std::string prompt(base_prompt);
  prompt += fmt::format("\n\nWorking directory: {}\nPlatform: Linux\n", inputs.cwd.string());
  if (inputs.project) {
    prompt += fmt::format(
        "\nProject instructions from {}:\n<project_instructions>\n{}\n</project_instructions>\n",
        inputs.project->file.string(), inputs.project->text);
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
