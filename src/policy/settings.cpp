#include "ava/policy/settings.hpp"

#include <nlohmann/json.hpp>

#include "ava/base/json.hpp"
#include "ava/base/private_file.hpp"

namespace ava::policy {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr std::size_t max_settings_bytes = std::size_t{1} << 20;

Result<void> add_rules(Effective& out, Verdict list, const json& block, const char* key,
                       const std::string& source) {
  auto it = block.find(key);
  if (it == block.end() || it->is_null()) return {};
  if (!it->is_array()) {
    return fail(ErrorCode::invalid_argument,
                source + ": permissions." + key + " must be a list of rules");
  }
  auto& target = list == Verdict::allow ? out.rules.allow
                 : list == Verdict::ask ? out.rules.ask
                                        : out.rules.deny;
  for (const auto& item : *it) {
    if (!item.is_string()) {
      return fail(ErrorCode::invalid_argument,
                  source + ": permissions." + key + " holds a rule that is not a string");
    }
    auto rule = parse_rule(item.get_ref<const std::string&>());
    if (!rule) return std::unexpected(std::move(rule).error().with_context(source));
    target.push_back(*rule);
    out.listed.push_back({.list = list, .rule = *rule, .source = source});
  }
  return {};
}

Result<void> add_file(Effective& out, const fs::path& file) {
  std::error_code ec;
  if (!fs::exists(file, ec)) return {};
  const std::string source = file.string();
  AVA_TRY(const std::string text, base::read_file_limited(file, max_settings_bytes));
  auto document =
      base::parse_json(text, base::JsonLimits{.max_depth = 32, .max_bytes = max_settings_bytes});
  if (!document) return std::unexpected(std::move(document).error().with_context(source));
  if (!document->is_object()) {
    return fail(ErrorCode::invalid_argument, source + ": settings must be a JSON object");
  }
  auto block = document->find("permissions");
  if (block == document->end() || block->is_null()) return {};
  if (!block->is_object()) {
    return fail(ErrorCode::invalid_argument, source + ": permissions must be an object");
  }
  AVA_TRY_VOID(add_rules(out, Verdict::allow, *block, "allow", source));
  AVA_TRY_VOID(add_rules(out, Verdict::ask, *block, "ask", source));
  AVA_TRY_VOID(add_rules(out, Verdict::deny, *block, "deny", source));
  if (auto mode = block->find("defaultMode"); mode != block->end() && !mode->is_null()) {
    if (!mode->is_string()) {
      return fail(ErrorCode::invalid_argument,
                  source + ": permissions.defaultMode must be a string");
    }
    auto parsed = parse_mode(mode->get_ref<const std::string&>());
    if (!parsed) return std::unexpected(std::move(parsed).error().with_context(source));
    out.rules.mode = *parsed;
    out.mode_source = source;
  }
  return {};
}

Result<void> add_flag_rules(Effective& out, Verdict list, const std::vector<std::string>& texts,
                            const std::string& source) {
  auto& target = list == Verdict::allow ? out.rules.allow : out.rules.deny;
  for (const auto& text : texts) {
    auto rule = parse_rule(text);
    if (!rule) return std::unexpected(std::move(rule).error().with_context(source));
    target.push_back(*rule);
    out.listed.push_back({.list = list, .rule = *rule, .source = source});
  }
  return {};
}

}  // namespace

Result<Effective> load_permissions(const fs::path& home, const fs::path& project,
                                   const Flags& flags) {
  Effective out;
  out.mode_source = "default";
  if (!home.empty()) AVA_TRY_VOID(add_file(out, home / "settings.json"));
  if (!project.empty()) {
    AVA_TRY_VOID(add_file(out, project / ".ava" / "settings.json"));
    AVA_TRY_VOID(add_file(out, project / ".ava" / "settings.local.json"));
  }
  AVA_TRY_VOID(add_flag_rules(out, Verdict::allow, flags.allowed, "--allowed-tools"));
  AVA_TRY_VOID(add_flag_rules(out, Verdict::deny, flags.disallowed, "--disallowed-tools"));
  if (flags.mode) {
    out.rules.mode = *flags.mode;
    out.mode_source = "--permission-mode";
  }
  return out;
}

}  // namespace ava::policy
