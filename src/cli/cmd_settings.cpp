// `ava settings show`: the effective user settings, settings.json with the
// active profile's file over it (docs/workflows.md), and where each value
// came from. Objects merge key by key; a list replaces the earlier one,
// except the lists that add up across files (permission rules, trusted
// projects, hooks), as the readers in llm and policy apply them.

#include <cstdio>
#include <memory>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ava/base/home.hpp"
#include "ava/base/json.hpp"
#include "ava/base/private_file.hpp"
#include "ava/base/text.hpp"
#include "cli/commands.hpp"

namespace ava::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr CommandName command_name{.name = "settings"};
constexpr std::size_t settings_limit = std::size_t{1} << 20;

struct SettingsFlags {
  bool json = false;
};

bool adds_up(const std::string& path) {
  return path == "permissions.allow" || path == "permissions.ask" || path == "permissions.deny" ||
         path == "trustedProjects" || path.starts_with("hooks.");
}

// Values under names like these are not printed (a header's token).
bool secret_name(std::string_view key) {
  const std::string lower = base::ascii_lower(key);
  for (const char* word : {"key", "secret", "token", "password", "authorization"}) {
    if (lower.find(word) != std::string::npos && lower != "apikeyenv") return true;
  }
  return false;
}

// Merges `layer` (from `source`) into `into`, recording each leaf's source.
void overlay(json& into, const json& layer, const std::string& source, const std::string& path,
             json& sources) {
  for (const auto& [key, value] : layer.items()) {
    const std::string at = path.empty() ? key : path + "." + key;
    if (value.is_object() && into.contains(key) && into[key].is_object()) {
      overlay(into[key], value, source, at, sources);
    } else if (value.is_array() && adds_up(at) && into.contains(key) && into[key].is_array()) {
      for (const auto& item : value) into[key].push_back(item);
      sources[at] = sources.value(at, std::string()) + ", " + source;
    } else {
      into[key] = value;
      sources[at] = source;
    }
  }
}

void redact(json& value, const std::string& key) {
  if (value.is_object()) {
    for (auto& [name, inner] : value.items()) redact(inner, name);
  } else if (value.is_array()) {
    for (auto& inner : value) redact(inner, key);
  } else if (value.is_string() && secret_name(key)) {
    value = "(hidden)";
  }
}

// One line per leaf: path = value   (source).
void print_leaves(const json& value, const std::string& path, const json& sources,
                  const std::string& inherited) {
  const std::string source = sources.value(path, inherited);
  if (value.is_object() && !value.empty()) {
    for (const auto& [key, inner] : value.items()) {
      print_leaves(inner, path.empty() ? key : path + "." + key, sources, source);
    }
    return;
  }
  std::fputs(fmt::format("{} = {}   ({})\n", path, value.dump(), source).c_str(), stdout);
}

Result<json> read_layer(const fs::path& file) {
  AVA_TRY(auto text, base::read_file_limited(file, settings_limit));
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) return json::object();
  auto document = base::parse_json(text);
  if (!document) return std::unexpected(std::move(document).error().with_context(file.string()));
  if (!document->is_object()) {
    return fail(ErrorCode::parse, file.string() + ": must hold a JSON object");
  }
  return *document;
}

Result<int> show(const SettingsFlags& flags) {
  AVA_TRY(auto home, base::Home::resolve());
  AVA_TRY(const auto profile, base::active_profile());
  AVA_TRY(const auto profile_file, base::profile_settings_file(home.root()));
  std::vector<fs::path> files;
  std::error_code ec;
  if (fs::exists(home.file("settings.json"), ec)) files.push_back(home.file("settings.json"));
  if (profile_file) files.push_back(*profile_file);
  json merged = json::object();
  json sources = json::object();
  for (const auto& file : files) {
    AVA_TRY(const json layer, read_layer(file));
    overlay(merged, layer, file.string(), "", sources);
  }
  redact(merged, "");
  if (flags.json) {
    json listed = json::array();
    for (const auto& file : files) listed.push_back(file.string());
    const json out{{"profile", profile ? json(*profile) : json()},
                   {"files", std::move(listed)},
                   {"settings", merged},
                   {"sources", sources}};
    std::printf("%s\n", out.dump(2).c_str());
    return 0;
  }
  std::printf("Profile: %s\n", profile ? profile->c_str() : "none (AVA_PROFILE or --profile)");
  for (const auto& file : files) std::printf("Read: %s\n", file.c_str());
  if (merged.empty()) {
    std::puts("No settings: every default applies.");
    return 0;
  }
  print_leaves(merged, "", sources, "");
  return 0;
}

}  // namespace

void add_settings_commands(CLI::App& cli, CliContext& context) {
  auto* settings = cli.add_subcommand("settings", "The settings in effect");
  settings->require_subcommand(1);
  auto flags = std::make_shared<SettingsFlags>();
  auto* command = settings->add_subcommand(
      "show", "Print the effective settings (settings.json, then the profile's) and their files");
  command->add_flag("--json", flags->json, "Print JSON");
  command->callback([&context, flags] { finish(context, command_name, show(*flags)); });
}

}  // namespace ava::cli
