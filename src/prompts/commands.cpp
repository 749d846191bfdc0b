#include "ava/prompts/commands.hpp"

#include <algorithm>
#include <map>
#include <system_error>

#include <fmt/format.h>

#include "ava/base/utf8.hpp"
#include "ava/prompts/front_matter.hpp"
#include "ava/prompts/project_context.hpp"
#include "prompts/text.hpp"

namespace ava::prompts {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t max_template = std::size_t{64} * 1024;
constexpr std::size_t max_name = 64;
constexpr std::size_t max_commands = 500;  // per folder: a huge tree is not a command list

bool name_part(std::string_view part) {
  if (part.empty() || part.size() > max_name) return false;
  return std::ranges::all_of(part, [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-' || c == '.';
  });
}

std::optional<Command> read_command(const fs::path& file, std::string name, const char* scope) {
  std::size_t size = 0;
  auto text = read_head(file, max_template, size);
  if (!text || size > max_template) return std::nullopt;
  const FrontMatter front = parse_front_matter(*text);
  Command command{.name = std::move(name),
                  .description = std::string(front.field("description")),
                  .argument_hint = std::string(front.field("argument-hint")),
                  .allowed_tools = split_rules(front.field("allowed-tools")),
                  .model = std::string(front.field("model")),
                  .file = file,
                  .scope = scope};
  if (command.description.empty()) {
    // Claude Code shows the first line of the body instead.
    const std::string_view body = front.body(*text);
    command.description = std::string(base::utf8::truncate(body.substr(0, body.find('\n')), 120));
  }
  return command;
}

void collect(const fs::path& dir, const char* scope, std::map<std::string, Command>& into) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return;
  std::size_t seen = 0;
  auto add = [&](const fs::path& file, std::string name) {
    if (file.extension() != ".md" || !name_part(file.stem().string())) return;
    if (auto command = read_command(file, std::move(name), scope))
      into[command->name] = std::move(*command);
  };
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (++seen > max_commands) break;
    const fs::path& path = entry.path();
    if (entry.is_regular_file(ec)) {
      add(path, path.stem().string());
    } else if (entry.is_directory(ec) && name_part(path.filename().string())) {
      std::size_t inner = 0;
      for (const auto& nested : fs::directory_iterator(path, ec)) {
        if (++inner > max_commands) break;
        if (nested.is_regular_file(ec))
          add(nested.path(), path.filename().string() + ":" + nested.path().stem().string());
      }
    }
  }
}

// Shell-like words: quotes group and are removed, nothing is expanded.
std::vector<std::string> words(std::string_view text) {
  std::vector<std::string> out;
  std::string word;
  bool in_word = false;
  char quote = 0;
  for (const char c : text) {
    if (quote != 0) {
      if (c == quote) {
        quote = 0;
      } else {
        word += c;
      }
    } else if (c == '"' || c == '\'') {
      quote = c;
      in_word = true;
    } else if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) out.push_back(std::move(word));
      word.clear();
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (in_word) out.push_back(std::move(word));
  return out;
}

}  // namespace

std::vector<std::string> split_rules(std::string_view text) {
  std::vector<std::string> rules;
  int depth = 0;
  std::string current;
  auto flush = [&] {
    const auto rule = trim(current);
    if (!rule.empty()) rules.emplace_back(rule);
    current.clear();
  };
  for (const char c : text) {
    if (c == '(') ++depth;
    if (c == ')' && depth > 0) --depth;
    if (c == ',' && depth == 0) {
      flush();
    } else {
      current += c;
    }
  }
  flush();
  return rules;
}

std::vector<Command> discover_commands(const CommandPlaces& places) {
  std::map<std::string, Command> found;
  if (!places.home.empty()) collect(places.home / "commands", "user", found);
  const fs::path root = repository_root(places.cwd);
  collect(root / ".claude" / "commands", "project", found);
  collect(root / ".ava" / "commands", "project", found);
  std::vector<Command> out;
  for (auto& [name, command] : found) out.push_back(std::move(command));
  return out;
}

std::optional<SlashInput> parse_slash(std::string_view text) {
  const std::string_view trimmed = trim(text);
  if (!trimmed.starts_with('/')) return std::nullopt;
  const std::size_t end = std::min(trimmed.find_first_of(" \t\n"), trimmed.size());
  const std::string_view name = trimmed.substr(1, end - 1);
  const auto colon = name.find(':');
  const bool valid = colon == std::string_view::npos
                         ? name_part(name)
                         : name_part(name.substr(0, colon)) && name_part(name.substr(colon + 1));
  if (!valid || name.find('.') != std::string_view::npos) return std::nullopt;
  return SlashInput{.name = std::string(name), .arguments = std::string(trim(trimmed.substr(end)))};
}

std::string substitute(std::string_view body, std::string_view arguments) {
  const std::vector<std::string> positional = words(arguments);
  std::string out;
  bool used = false;
  for (std::size_t i = 0; i < body.size();) {
    if (body.substr(i).starts_with("$ARGUMENTS")) {
      out += arguments;
      i += 10;
      used = true;
    } else if (body.substr(i).starts_with("{args}")) {
      out += arguments;
      i += 6;
      used = true;
    } else if (body[i] == '$' && i + 1 < body.size() && body[i + 1] >= '1' && body[i + 1] <= '9' &&
               (i + 2 >= body.size() || body[i + 2] < '0' || body[i + 2] > '9')) {
      const auto index = static_cast<std::size_t>(body[i + 1] - '1');
      if (index < positional.size()) out += positional[index];
      i += 2;
      used = true;
    } else {
      out += body[i++];
    }
  }
  if (!used && !arguments.empty()) out += fmt::format("\n\nARGUMENTS: {}", arguments);
  return out;
}

Result<std::string> expand(const Command& command, std::string_view arguments) {
  std::size_t size = 0;
  auto text = read_head(command.file, max_template, size);
  if (!text) return fail(ErrorCode::not_found, "cannot read " + command.file.string());
  if (size > max_template) {
    return fail(ErrorCode::limit_exceeded,
                fmt::format("{} is larger than {} bytes", command.file.string(), max_template));
  }
  const FrontMatter front = parse_front_matter(*text);
  return substitute(front.body(*text), arguments);
}

}  // namespace ava::prompts
