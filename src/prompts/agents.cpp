#include "ava/prompts/agents.hpp"

#include <algorithm>
#include <map>
#include <system_error>

#include "ava/base/text.hpp"
#include "ava/prompts/commands.hpp"
#include "ava/prompts/front_matter.hpp"
#include "ava/prompts/project_context.hpp"
#include "prompts/text.hpp"

namespace ava::prompts {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t max_definition = std::size_t{64} * 1024;
constexpr std::size_t max_agents = 200;  // per folder

bool valid_name(std::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  return std::ranges::all_of(name, [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
  });
}

std::vector<AgentDefinition> builtins() {
  return {
      AgentDefinition{
          .name = "explore",
          .description = "Read-only research in the project: finds and reads code to answer a "
                         "question, and reports findings with file paths",
          .tools = std::vector<std::string>{"read", "bash"},
          .read_only = true,
          .instructions =
              "You are an exploration subagent. Answer the question you are given by reading "
              "the project: search with bash (rg, grep, find, git log) and read files. You "
              "cannot change anything: bash runs in a read-only sandbox. Finish with a concise "
              "report: what you found, with file paths and line numbers, and what you could "
              "not determine.",
          .scope = "builtin"},
      AgentDefinition{
          .name = "plan",
          .description = "Turns a task and what is known about it into a step-by-step plan; "
                         "uses no tools",
          .tools = std::vector<std::string>{},
          .read_only = true,
          .instructions =
              "You are a planning subagent. You have no tools. From the task and the context "
              "you are given, write a concise numbered plan: the steps, the files each one "
              "touches, how the result will be verified, and the open questions.",
          .scope = "builtin"},
  };
}

std::optional<AgentDefinition> read_definition(const fs::path& file, const char* scope) {
  std::size_t size = 0;
  auto text = read_head(file, max_definition, size);
  if (!text || size > max_definition) return std::nullopt;
  const FrontMatter front = parse_front_matter(*text);
  AgentDefinition definition{.name = std::string(front.field("name")),
                             .description = std::string(front.field("description")),
                             .model = std::string(front.field("model")),
                             .instructions = std::string(front.body(*text)),
                             .file = file,
                             .scope = scope};
  if (definition.name.empty()) definition.name = file.stem().string();
  if (!valid_name(definition.name) || definition.description.empty()) return std::nullopt;
  if (const auto tools = front.field("tools"); !trim(tools).empty()) {
    std::vector<std::string> names;
    for (const auto& written : split_rules(tools)) {
      if (auto name = agent_tool_name(written);
          !name.empty() && name != "task" && std::ranges::find(names, name) == names.end()) {
        names.push_back(std::move(name));
      }
    }
    definition.tools = std::move(names);
  }
  return definition;
}

void collect(const fs::path& dir, const char* scope, std::map<std::string, AgentDefinition>& into) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return;
  std::size_t seen = 0;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (++seen > max_agents) break;
    if (entry.path().extension() != ".md" || !entry.is_regular_file(ec)) continue;
    if (auto definition = read_definition(entry.path(), scope)) {
      into[definition->name] = std::move(*definition);
    }
  }
}

}  // namespace

std::string agent_tool_name(std::string_view written) {
  const std::string name = base::ascii_lower(trim(written));
  if (name.starts_with("mcp__")) return std::string(trim(written));  // as the server named it
  if (name == "read" || name == "write" || name == "edit" || name == "bash" || name == "skill" ||
      name == "memory") {
    return name;
  }
  if (name == "multiedit") return "edit";
  return {};
}

std::vector<AgentDefinition> discover_agents(const AgentPlaces& places) {
  std::map<std::string, AgentDefinition> found;
  if (!places.home.empty()) collect(places.home / "agents", "user", found);
  const fs::path root = repository_root(places.cwd);
  collect(root / ".claude" / "agents", "project", found);
  collect(root / ".ava" / "agents", "project", found);
  std::vector<AgentDefinition> out = builtins();
  for (auto& [name, definition] : found) {
    const bool builtin =
        std::ranges::any_of(out, [&](const AgentDefinition& known) { return known.name == name; });
    if (!builtin) out.push_back(std::move(definition));
  }
  return out;
}

}  // namespace ava::prompts
