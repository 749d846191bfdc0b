#include "ava/policy/settings.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "ava/base/home.hpp"
#include "ava/base/json.hpp"
#include "ava/base/private_file.hpp"
#include "ava/base/unique_fd.hpp"

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

Result<void> check_sandbox_mode(const std::string& mode, const std::string& source) {
  if (mode == "read-only" || mode == "workspace-write" || mode == "off") return {};
  return fail(ErrorCode::invalid_argument, source + ": unknown sandbox mode \"" +
                                               mode.substr(0, 100) +
                                               "\": use read-only, workspace-write or off");
}

Result<void> add_sandbox(Effective& out, const json& document, const std::string& source) {
  auto block = document.find("sandbox");
  if (block == document.end() || block->is_null()) return {};
  SandboxSettings& sandbox = out.sandbox;
  if (block->is_string()) {
    AVA_TRY_VOID(check_sandbox_mode(block->get<std::string>(), source));
    sandbox.mode = block->get<std::string>();
    sandbox.source = source;
    return {};
  }
  if (!block->is_object()) {
    return fail(ErrorCode::invalid_argument,
                source + ": sandbox must be a mode or an object {\"mode\", \"network\"}");
  }
  if (auto mode = block->find("mode"); mode != block->end() && !mode->is_null()) {
    if (!mode->is_string()) {
      return fail(ErrorCode::invalid_argument, source + ": sandbox.mode must be a string");
    }
    AVA_TRY_VOID(check_sandbox_mode(mode->get<std::string>(), source));
    sandbox.mode = mode->get<std::string>();
    sandbox.source = source;
  }
  if (auto network = block->find("network"); network != block->end() && !network->is_null()) {
    if (!network->is_boolean()) {
      return fail(ErrorCode::invalid_argument, source + ": sandbox.network must be true or false");
    }
    sandbox.network = network->get<bool>();
  }
  if (auto roots = block->find("writableRoots"); roots != block->end() && !roots->is_null()) {
    if (!roots->is_array()) {
      return fail(ErrorCode::invalid_argument,
                  source + ": sandbox.writableRoots must be a list of folders");
    }
    for (const auto& root : *roots) {
      if (!root.is_string() || root.get_ref<const std::string&>().empty() ||
          !fs::path(root.get_ref<const std::string&>()).is_absolute()) {
        return fail(ErrorCode::invalid_argument,
                    source + ": sandbox.writableRoots holds an entry that is not an absolute path");
      }
      sandbox.writable_roots.push_back(root.get<std::string>());
    }
  }
  return {};
}

Result<json> read_settings_document(const fs::path& file) {
  const std::string source = file.string();
  AVA_TRY(const std::string text, base::read_file_limited(file, max_settings_bytes));
  // An empty (or blank) file is empty settings, as llm's reader takes it: a
  // user who cleared the file gets the defaults, not an error.
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) return json::object();
  auto document =
      base::parse_json(text, base::JsonLimits{.max_depth = 32, .max_bytes = max_settings_bytes});
  if (!document) return std::unexpected(std::move(document).error().with_context(source));
  if (!document->is_object()) {
    return fail(ErrorCode::invalid_argument, source + ": settings must be a JSON object");
  }
  return std::move(*document);
}

// What the committed project file may not do on its own: allow rules, a
// mode broader than ask, a sandbox that is off or lets more through.
void narrow_untrusted(Effective& before, Effective& after, const std::string& source) {
  for (auto it = after.listed.begin() + static_cast<std::ptrdiff_t>(before.listed.size());
       it != after.listed.end();) {
    if (it->list != Verdict::allow) {
      ++it;
      continue;
    }
    after.ignored.push_back({.setting = "allow " + it->rule.text, .source = source});
    it = after.listed.erase(it);
  }
  after.rules.allow.resize(before.rules.allow.size());
  if (after.rules.mode == Mode::accept_edits || after.rules.mode == Mode::auto_) {
    if (after.mode_source == source) {
      after.ignored.push_back(
          {.setting = "defaultMode " + std::string(to_string(after.rules.mode)), .source = source});
      after.rules.mode = before.rules.mode;
      after.mode_source = before.mode_source;
    }
  }
  if (after.sandbox.source == source && after.sandbox.mode == "off") {
    after.ignored.push_back({.setting = "sandbox off", .source = source});
    after.sandbox.mode = before.sandbox.mode;
    after.sandbox.source = before.sandbox.source;
  }
  if (after.sandbox.network == true && before.sandbox.network != true) {
    after.ignored.push_back({.setting = "sandbox.network true", .source = source});
    after.sandbox.network = before.sandbox.network;
  }
  if (after.hooks.commands.size() > before.hooks.commands.size()) {
    for (auto it = after.hooks.commands.begin() +
                   static_cast<std::ptrdiff_t>(before.hooks.commands.size());
         it != after.hooks.commands.end(); ++it) {
      after.ignored.push_back(
          {.setting = "hook " + std::string(to_string(it->event)) + " " + it->command,
           .source = source});
    }
    after.hooks.commands.resize(before.hooks.commands.size());
  }
  if (after.sandbox.writable_roots.size() > before.sandbox.writable_roots.size()) {
    after.ignored.push_back({.setting = "sandbox.writableRoots", .source = source});
    after.sandbox.writable_roots = before.sandbox.writable_roots;
  }
}

// AVA_HOME/settings.json "trustedProjects": folders whose committed
// settings apply in full.
Result<bool> trusted_in(const fs::path& file, const fs::path& project) {
  std::error_code ec;
  if (!fs::exists(file, ec)) return false;
  AVA_TRY(const json settings, read_settings_document(file));
  const auto list = settings.find("trustedProjects");
  if (list == settings.end() || list->is_null()) return false;
  if (!list->is_array()) {
    return fail(ErrorCode::invalid_argument,
                file.string() + ": trustedProjects must be a list of folders");
  }
  const fs::path real = fs::weakly_canonical(project, ec);
  for (const auto& entry : *list) {
    if (!entry.is_string() || !fs::path(entry.get<std::string>()).is_absolute()) {
      return fail(ErrorCode::invalid_argument,
                  file.string() + ": trustedProjects holds an entry that is not an absolute path");
    }
    std::error_code entry_ec;
    if (fs::weakly_canonical(entry.get<std::string>(), entry_ec) == real) return true;
  }
  return false;
}

// The user's settings.json, then the active profile's (AVA_PROFILE).
Result<std::vector<fs::path>> user_files(const fs::path& home) {
  std::vector<fs::path> files{home / "settings.json"};
  AVA_TRY(auto profile, base::profile_settings_file(home));
  if (profile) files.push_back(*profile);
  return files;
}

Result<bool> trusted(const fs::path& home, const fs::path& project) {
  if (home.empty()) return false;
  AVA_TRY(const auto files, user_files(home));
  for (const auto& file : files) {
    AVA_TRY(const bool listed, trusted_in(file, project));
    if (listed) return true;
  }
  return false;
}

Result<void> add_file(Effective& out, const fs::path& file) {
  std::error_code ec;
  if (!fs::exists(file, ec)) return {};
  const std::string source = file.string();
  AVA_TRY(const json settings, read_settings_document(file));
  const json* document = &settings;
  AVA_TRY_VOID(add_sandbox(out, *document, source));
  if (auto hooks = document->find("hooks"); hooks != document->end()) {
    AVA_TRY_VOID(add_hooks(out.hooks, *hooks, source, out.unsupported_hooks));
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
  if (!home.empty()) {
    AVA_TRY(const auto files, user_files(home));
    for (const auto& file : files) AVA_TRY_VOID(add_file(out, file));
  }
  if (!project.empty()) {
    AVA_TRY(out.project_trusted, trusted(home, project));
    const fs::path committed = project / ".ava" / "settings.json";
    Effective before = out;
    AVA_TRY_VOID(add_file(out, committed));
    if (!out.project_trusted) narrow_untrusted(before, out, committed.string());
    AVA_TRY_VOID(add_file(out, project / ".ava" / "settings.local.json"));
  }
  AVA_TRY_VOID(add_flag_rules(out, Verdict::allow, flags.allowed, "--allowed-tools"));
  AVA_TRY_VOID(add_flag_rules(out, Verdict::deny, flags.disallowed, "--disallowed-tools"));
  if (flags.mode) {
    out.rules.mode = *flags.mode;
    out.mode_source = "--permission-mode";
  }
  if (flags.sandbox) {
    AVA_TRY_VOID(check_sandbox_mode(*flags.sandbox, "--sandbox"));
    out.sandbox.mode = *flags.sandbox;
    out.sandbox.source = "--sandbox";
  }
  return out;
}

fs::path project_rules_file(const fs::path& project) {
  return project / ".ava" / "settings.local.json";
}

Result<void> add_project_rule(const fs::path& project, Verdict list, const std::string& rule) {
  AVA_TRY_VOID(parse_rule(rule));
  const fs::path file = project_rules_file(project);
  std::error_code ec;
  fs::create_directories(file.parent_path(), ec);
  if (ec)
    return fail(ErrorCode::io,
                "cannot create " + file.parent_path().string() + ": " + ec.message());
  // One writer at a time across processes: the backend and `ava` may both add.
  const fs::path lock_path = file.parent_path() / ".settings.local.json.lock";
  base::UniqueFd lock(::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
  if (!lock.valid()) return base::fail_errno("open " + lock_path.string(), errno);
  while (::flock(lock.get(), LOCK_EX) != 0) {
    if (errno != EINTR) return base::fail_errno("lock " + lock_path.string(), errno);
  }
  json document = json::object();
  if (fs::exists(file, ec)) {
    AVA_TRY(document, read_settings_document(file));
  }
  json& block = document["permissions"];
  if (block.is_null()) block = json::object();
  if (!block.is_object()) {
    return fail(ErrorCode::invalid_argument, file.string() + ": permissions must be an object");
  }
  json& rules = block[std::string(to_string(list))];
  if (rules.is_null()) rules = json::array();
  if (!rules.is_array()) {
    return fail(ErrorCode::invalid_argument, file.string() + ": permissions." +
                                                 std::string(to_string(list)) +
                                                 " must be a list of rules");
  }
  if (std::ranges::find(rules, json(rule)) == rules.end()) rules.push_back(rule);
  return base::write_private_file(file, document.dump(2) + "\n");
}

}  // namespace ava::policy
