#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <system_error>

#include <fmt/format.h>

#include "ava/agent/prompt.hpp"
#include "ava/base/home.hpp"
#include "ava/prompts/front_matter.hpp"

namespace ava::agent {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using prompts::parse_front_matter;

constexpr std::size_t max_skill_file = std::size_t{256} * 1024;

Result<std::string> read_skill_file(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return fail(ErrorCode::not_found, "cannot read " + file.string());
  std::string text(max_skill_file + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  if (text.size() > max_skill_file) {
    return fail(ErrorCode::limit_exceeded,
                fmt::format("{} is larger than {} bytes", file.string(), max_skill_file));
  }
  return text;
}

class SkillTool final : public tool::Tool {
 public:
  explicit SkillTool(std::vector<Skill> skills) : skills_(std::move(skills)) {
    json names = json::array();
    for (const auto& skill : skills_) names.push_back(skill.name);
    spec_.parameters = {{"type", "object"},
                        {"properties", {{"name", {{"type", "string"}, {"enum", names}}}}},
                        {"required", {"name"}},
                        {"additionalProperties", false}};
  }

  const tool::ToolSpec& spec() const override { return spec_; }

  boost::asio::awaitable<Result<tool::ToolResult>> execute(const json& arguments,
                                                           tool::ToolContext&) override {
    const auto name = arguments.at("name").get<std::string>();
    const auto it = std::ranges::find(skills_, name, &Skill::name);
    if (it == skills_.end()) co_return tool::ToolResult::error("No skill named " + name);
    auto body = load_skill_body(*it);
    if (!body) co_return tool::ToolResult::error(body.error().message);
    co_return tool::ToolResult::text(fmt::format("Skill {} (files relative to {}):\n\n{}", it->name,
                                                 it->file.parent_path().string(), *body),
                                     json{{"skill", it->name}, {"path", it->file.string()}});
  }

 private:
  std::vector<Skill> skills_;
  tool::ToolSpec spec_{
      .name = "skill",
      .description = "Load the instructions of a skill listed in the system prompt.",
      .category = tool::Category::other,
      .read_only = true};
};

}  // namespace

std::vector<Skill> discover_skills(const std::vector<fs::path>& roots) {
  std::map<std::string, Skill> by_name;
  for (const auto& root : roots) {
    std::error_code ec;
    if (!fs::is_directory(root, ec)) continue;
    for (const auto& entry : fs::directory_iterator(root, ec)) {
      const fs::path file = entry.path() / "SKILL.md";
      std::error_code file_ec;
      if (!fs::is_regular_file(file, file_ec)) continue;
      auto text = read_skill_file(file);
      if (!text) continue;
      auto front = parse_front_matter(*text);
      Skill skill{.file = file};
      if (auto it = front.fields.find("name"); it != front.fields.end()) skill.name = it->second;
      if (skill.name.empty()) skill.name = entry.path().filename().string();
      if (auto it = front.fields.find("description"); it != front.fields.end()) {
        skill.description = it->second;
      }
      if (skill.description.empty()) continue;
      by_name[skill.name] = std::move(skill);
    }
  }
  std::vector<Skill> skills;
  skills.reserve(by_name.size());
  for (auto& [name, skill] : by_name) skills.push_back(std::move(skill));
  return skills;
}

fs::path project_root(const fs::path& cwd) {
  std::error_code ec;
  fs::path dir = fs::weakly_canonical(cwd, ec);
  if (ec) dir = cwd;
  for (fs::path probe = dir;; probe = probe.parent_path()) {
    if (fs::exists(probe / ".git", ec)) return probe;
    if (!probe.has_parent_path() || probe.parent_path() == probe) break;
  }
  return dir;
}

std::vector<fs::path> default_skill_roots(const fs::path& home, const fs::path& cwd,
                                          bool claude_folders) {
  const fs::path project = project_root(cwd);
  std::vector<fs::path> roots;
  const auto user_home = base::process_env("HOME");
  if (claude_folders && user_home && !user_home->empty()) {
    roots.push_back(fs::path(*user_home) / ".claude" / "skills");
  }
  roots.push_back(home / "skills");
  if (claude_folders) roots.push_back(project / ".claude" / "skills");
  roots.push_back(project / ".ava" / "skills");
  return roots;
}

Result<std::string> load_skill_body(const Skill& skill) {
  AVA_TRY(auto text, read_skill_file(skill.file));
  const auto front = parse_front_matter(text);
  return std::string(front.body(text));
}

std::unique_ptr<tool::Tool> make_skill_tool(std::vector<Skill> skills) {
  return std::make_unique<SkillTool>(std::move(skills));
}

}  // namespace ava::agent
