// ~/.ssh/config, read the way OpenSSH reads it for the keywords Ava follows.
#include "ava/remote/ssh_config.hpp"

#include <glob.h>
#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>

#include "ava/base/private_file.hpp"

namespace ava::remote {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t max_config_bytes = 1 << 20;
constexpr int max_include_depth = 8;

std::string lower(std::string_view text) {
  std::string out(text);
  std::ranges::transform(out, out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r'; }

// "Keyword value", "Keyword=value", "Keyword = value"; values split at
// spaces except inside double quotes. false for a line with an open quote.
bool split_line(std::string_view line, std::string& keyword, std::vector<std::string>& args) {
  std::size_t i = 0;
  while (i < line.size() && is_space(line[i])) ++i;
  std::size_t start = i;
  while (i < line.size() && !is_space(line[i]) && line[i] != '=') ++i;
  keyword = lower(line.substr(start, i - start));
  while (i < line.size() && is_space(line[i])) ++i;
  if (i < line.size() && line[i] == '=') ++i;
  args.clear();
  while (i < line.size()) {
    while (i < line.size() && is_space(line[i])) ++i;
    if (i >= line.size() || line[i] == '#') break;
    std::string value;
    if (line[i] == '"') {
      std::size_t close = line.find('"', i + 1);
      if (close == std::string_view::npos) return false;
      value = std::string(line.substr(i + 1, close - i - 1));
      i = close + 1;
    } else {
      start = i;
      while (i < line.size() && !is_space(line[i])) ++i;
      value = std::string(line.substr(start, i - start));
    }
    args.push_back(std::move(value));
  }
  return true;
}

std::optional<std::uint16_t> parse_port(std::string_view text) {
  unsigned value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size() || value == 0 || value > 65535) {
    return std::nullopt;
  }
  return static_cast<std::uint16_t>(value);
}

std::optional<bool> parse_yes_no(std::string_view text) {
  std::string value = lower(text);
  if (value == "yes" || value == "true") return true;
  if (value == "no" || value == "false") return false;
  return std::nullopt;
}

// Every value is the first one obtained (OpenSSH's rule), except
// IdentityFile, which accumulates.
struct Resolution {
  const SshDestination* destination = nullptr;
  const SshConfigSources* sources = nullptr;
  bool active = true;  // lines before the first Host apply to every host
  std::optional<std::string> hostname, user, identity_agent, proxy_jump, proxy_command;
  std::optional<std::uint16_t> port;
  std::optional<bool> identities_only;
  std::vector<std::string> identity_files;
  std::optional<std::vector<std::string>> known_hosts;
  std::optional<int> alive, connect_timeout;
  std::vector<std::string> notes;
};

void note(Resolution& r, const std::string& origin, std::string_view text) {
  if (r.notes.size() < 32) r.notes.push_back(origin + ": " + std::string(text));
}

Result<void> apply_text(Resolution& r, std::string_view text, const std::string& origin, int depth);

Result<void> apply_include(Resolution& r, const std::vector<std::string>& args,
                           const std::string& origin, int depth) {
  if (depth >= max_include_depth) {
    return fail(ErrorCode::limit_exceeded, origin + ": Include nested deeper than " +
                                               std::to_string(max_include_depth) + " levels");
  }
  for (const auto& arg : args) {
    std::string pattern = arg;
    if (pattern.starts_with("~/")) {
      pattern = (r.sources->home / pattern.substr(2)).string();
    } else if (!pattern.starts_with('/')) {
      pattern = (r.sources->home / ".ssh" / pattern).string();
    }
    glob_t found{};
    if (::glob(pattern.c_str(), 0, nullptr, &found) == 0) {
      for (std::size_t i = 0; i < found.gl_pathc; ++i) {
        fs::path file = found.gl_pathv[i];
        auto content = base::read_file_limited(file, max_config_bytes);
        if (!content) {
          note(r, origin, "Include " + file.string() + " unreadable: " + content.error().message);
          continue;
        }
        bool saved = r.active;
        auto applied = apply_text(r, *content, file.string(), depth + 1);
        r.active = saved;
        if (!applied) {
          ::globfree(&found);
          return applied;
        }
      }
    }
    ::globfree(&found);
  }
  return {};
}

// Match blocks: `all`, `host` and `originalhost` are evaluated; anything
// else makes the block not apply, with a note.
bool match_applies(Resolution& r, const std::vector<std::string>& args, const std::string& origin) {
  if (args.size() == 1 && lower(args[0]) == "all") return true;
  if (args.size() == 2) {
    std::string criterion = lower(args[0]);
    std::vector<std::string> patterns;
    std::string item;
    for (char c : args[1] + ",") {
      if (c == ',') {
        if (!item.empty()) patterns.push_back(item);
        item.clear();
      } else {
        item += c;
      }
    }
    if (criterion == "originalhost") {
      return ssh_pattern_list_match(patterns, r.destination->host);
    }
    if (criterion == "host") {
      std::string host = r.hostname.value_or(r.destination->host);
      return ssh_pattern_list_match(patterns, host);
    }
  }
  note(r, origin, "a Match block Ava does not evaluate is skipped");
  return false;
}

Result<void> apply_line(Resolution& r, const std::string& keyword,
                        const std::vector<std::string>& args, const std::string& origin,
                        int depth) {
  if (keyword == "host") {
    r.active = ssh_pattern_list_match(args, r.destination->host);
    return {};
  }
  if (keyword == "match") {
    r.active = match_applies(r, args, origin);
    return {};
  }
  if (keyword == "include") {
    if (!r.active) return {};
    return apply_include(r, args, origin, depth);
  }
  if (!r.active || args.empty()) return {};
  const std::string& value = args[0];
  if (keyword == "hostname") {
    if (!r.hostname) r.hostname = value;
  } else if (keyword == "user") {
    if (!r.user) r.user = value;
  } else if (keyword == "port") {
    if (!r.port) {
      auto port = parse_port(value);
      if (!port) return fail(ErrorCode::invalid_argument, origin + ": bad Port '" + value + "'");
      r.port = port;
    }
  } else if (keyword == "identityfile") {
    if (r.identity_files.size() < 100) r.identity_files.push_back(value);
  } else if (keyword == "identitiesonly") {
    if (!r.identities_only) r.identities_only = parse_yes_no(value);
  } else if (keyword == "identityagent") {
    if (!r.identity_agent) r.identity_agent = value;
  } else if (keyword == "userknownhostsfile") {
    if (!r.known_hosts) r.known_hosts = args;
  } else if (keyword == "serveraliveinterval" || keyword == "connecttimeout") {
    auto& slot = keyword == "connecttimeout" ? r.connect_timeout : r.alive;
    int seconds = 0;
    auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), seconds);
    if (!slot && ec == std::errc{} && end == value.data() + value.size() && seconds >= 0) {
      slot = std::min(seconds, 3600);
    }
  } else if (keyword == "proxyjump") {
    if (!r.proxy_jump && lower(value) != "none") r.proxy_jump = value;
  } else if (keyword == "proxycommand") {
    if (!r.proxy_command && lower(value) != "none") {
      std::string command;
      for (const auto& arg : args) command += (command.empty() ? "" : " ") + arg;
      r.proxy_command = command;
    }
  }
  return {};
}

Result<void> apply_text(Resolution& r, std::string_view text, const std::string& origin,
                        int depth) {
  std::size_t line_number = 0;
  std::string keyword;
  std::vector<std::string> args;
  while (!text.empty()) {
    std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
    ++line_number;
    std::string where = origin + ":" + std::to_string(line_number);
    if (!split_line(line, keyword, args)) {
      return fail(ErrorCode::parse, where + ": unclosed quote");
    }
    if (keyword.empty() || keyword.starts_with('#')) continue;
    AVA_TRY_VOID(apply_line(r, keyword, args, where, depth));
  }
  return {};
}

// OpenSSH's % tokens and a leading ~; nullopt for a token Ava does not know.
std::optional<std::string> expand(std::string_view value, const SshTarget& target,
                                  const SshConfigSources& sources) {
  std::string out;
  if (value.starts_with("~/")) {
    out = sources.home.string() + "/";
    value.remove_prefix(2);
  }
  for (std::size_t i = 0; i < value.size(); ++i) {
    if (value[i] != '%') {
      out += value[i];
      continue;
    }
    if (++i >= value.size()) return std::nullopt;
    switch (value[i]) {
      case '%': out += '%'; break;
      case 'd': out += sources.home.string(); break;
      case 'u': out += sources.local_user; break;
      case 'h': out += target.host; break;
      case 'n': out += target.alias; break;
      case 'p': out += std::to_string(target.port); break;
      case 'r': out += target.user; break;
      default: return std::nullopt;
    }
  }
  return out;
}

}  // namespace

Result<SshDestination> parse_destination(std::string_view text) {
  SshDestination out;
  if (text.empty() || text.size() > 512) {
    return fail(ErrorCode::invalid_argument, "a machine address is [user@]host[:port]");
  }
  if (auto at = text.rfind('@'); at != std::string_view::npos) {
    out.user = std::string(text.substr(0, at));
    text.remove_prefix(at + 1);
    if (out.user->empty()) return fail(ErrorCode::invalid_argument, "empty user before '@'");
  }
  std::string_view port_text;
  if (text.starts_with('[')) {
    std::size_t close = text.find(']');
    if (close == std::string_view::npos) {
      return fail(ErrorCode::invalid_argument, "unclosed '[' in the machine address");
    }
    out.host = std::string(text.substr(1, close - 1));
    std::string_view rest = text.substr(close + 1);
    if (!rest.empty()) {
      if (rest[0] != ':') return fail(ErrorCode::invalid_argument, "expected ':port' after ']'");
      port_text = rest.substr(1);
    }
  } else if (auto colon = text.find(':'); colon != std::string_view::npos) {
    if (text.find(':', colon + 1) != std::string_view::npos) {
      return fail(ErrorCode::invalid_argument, "write an IPv6 address in brackets: [addr]:port");
    }
    out.host = std::string(text.substr(0, colon));
    port_text = text.substr(colon + 1);
  } else {
    out.host = std::string(text);
  }
  if (out.host.empty()) return fail(ErrorCode::invalid_argument, "the machine address has no host");
  for (char c : out.host) {
    if (std::isspace(static_cast<unsigned char>(c)) || c == '/' || c == '%' || c == '\0' ||
        c == '[' || c == ']') {
      return fail(ErrorCode::invalid_argument, "the host '" + out.host + "' is not a host name");
    }
  }
  if (out.host.starts_with('-') || (out.user && out.user->starts_with('-'))) {
    return fail(ErrorCode::invalid_argument, "a host or user may not start with '-'");
  }
  if (!port_text.empty() || text.ends_with(':')) {
    auto port = parse_port(port_text);
    if (!port) return fail(ErrorCode::invalid_argument, "the port must be 1-65535");
    out.port = port;
  }
  return out;
}

std::string to_string(const SshDestination& destination) {
  std::string out = destination.user ? *destination.user + "@" : "";
  bool brackets = destination.host.find(':') != std::string::npos;
  out += brackets ? "[" + destination.host + "]" : destination.host;
  if (destination.port) out += ":" + std::to_string(*destination.port);
  return out;
}

bool ssh_pattern_match(std::string_view pattern, std::string_view text) {
  // Iterative glob with one backtrack point: linear in practice, no recursion.
  std::size_t p = 0, t = 0, star = std::string_view::npos, mark = 0;
  auto same = [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) ==
           std::tolower(static_cast<unsigned char>(b));
  };
  while (t < text.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || same(pattern[p], text[t]))) {
      ++p;
      ++t;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

bool ssh_pattern_list_match(const std::vector<std::string>& patterns, std::string_view text) {
  bool matched = false;
  for (const auto& pattern : patterns) {
    if (pattern.starts_with('!')) {
      if (ssh_pattern_match(std::string_view(pattern).substr(1), text)) return false;
    } else if (ssh_pattern_match(pattern, text)) {
      matched = true;
    }
  }
  return matched;
}

Result<SshConfigSources> default_config_sources() {
  SshConfigSources sources;
  const passwd* entry = ::getpwuid(::getuid());
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    sources.home = home;
  } else if (entry != nullptr && entry->pw_dir != nullptr) {
    sources.home = entry->pw_dir;
  } else {
    return fail(ErrorCode::not_found, "neither $HOME nor a password entry names your home");
  }
  if (entry != nullptr && entry->pw_name != nullptr) {
    sources.local_user = entry->pw_name;
  } else if (const char* user = std::getenv("USER"); user != nullptr) {
    sources.local_user = user;
  }
  return sources;
}

namespace {

struct ConfigText {
  std::string origin;
  std::string text;
};

Result<SshTarget> resolve(const SshDestination& destination, const std::vector<ConfigText>& files,
                          const SshConfigSources& sources) {
  Resolution r;
  r.destination = &destination;
  r.sources = &sources;
  for (const auto& file : files) {
    r.active = true;  // each file starts outside any Host block
    AVA_TRY_VOID(apply_text(r, file.text, file.origin, 0));
  }

  SshTarget target;
  target.alias = destination.host;
  target.host = destination.host;
  if (r.hostname) {
    std::string host;
    for (std::size_t i = 0; i < r.hostname->size(); ++i) {
      char c = (*r.hostname)[i];
      if (c == '%' && i + 1 < r.hostname->size()) {
        char token = (*r.hostname)[++i];
        if (token == 'h')
          host += destination.host;
        else if (token == '%')
          host += '%';
        else
          return fail(ErrorCode::invalid_argument, "HostName uses an unknown % token");
      } else {
        host += c;
      }
    }
    target.host = host;
  }
  target.user = destination.user.value_or(r.user.value_or(sources.local_user));
  target.port = destination.port.value_or(r.port.value_or(22));
  target.identities_only = r.identities_only.value_or(false);
  target.server_alive_interval = r.alive.value_or(0);
  target.connect_timeout = r.connect_timeout.value_or(0);
  target.proxy_jump = r.proxy_jump;
  target.proxy_command = r.proxy_command;
  target.notes = std::move(r.notes);

  auto expand_into = [&](const std::string& raw, auto& out, std::string_view what) {
    if (auto expanded = expand(raw, target, sources)) {
      out.emplace_back(*expanded);
    } else {
      target.notes.push_back(std::string(what) + " '" + raw + "' uses a token Ava does not know");
    }
  };
  for (const auto& raw : r.identity_files) expand_into(raw, target.identity_files, "IdentityFile");
  if (r.identity_agent) {
    std::vector<std::string> agent;
    if (r.identity_agent->starts_with('$')) {
      const char* value = std::getenv(r.identity_agent->substr(1).c_str());
      if (value != nullptr) agent.emplace_back(value);
    } else {
      expand_into(*r.identity_agent, agent, "IdentityAgent");
    }
    if (!agent.empty()) target.identity_agent = agent.front();
  }
  if (r.known_hosts) {
    for (const auto& raw : *r.known_hosts) {
      if (lower(raw) != "none") expand_into(raw, target.known_hosts_files, "UserKnownHostsFile");
    }
  } else {
    target.known_hosts_files = {sources.home / ".ssh/known_hosts",
                                sources.home / ".ssh/known_hosts2"};
  }
  return target;
}

}  // namespace

Result<SshTarget> resolve_target_from_text(const SshDestination& destination,
                                           std::string_view config_text,
                                           const SshConfigSources& sources) {
  return resolve(destination, {ConfigText{"ssh config", std::string(config_text)}}, sources);
}

Result<SshTarget> resolve_target(const SshDestination& destination, const SshConfigSources& sources,
                                 const std::optional<fs::path>& extra_identity) {
  std::vector<ConfigText> files;
  fs::path user_config = sources.user_config.value_or(sources.home / ".ssh/config");
  fs::path system_config = sources.system_config.value_or("/etc/ssh/ssh_config");
  for (const auto& file : {user_config, system_config}) {
    std::error_code ec;
    if (!fs::exists(file, ec)) continue;
    AVA_TRY(auto content, base::read_file_limited(file, max_config_bytes));
    // The user's file comes first, so its values win.
    files.push_back({file.string(), std::move(content)});
  }
  AVA_TRY(auto target, resolve(destination, files, sources));
  if (extra_identity) target.identity_files.insert(target.identity_files.begin(), *extra_identity);
  if (target.identity_files.empty()) {
    for (const char* name : {"id_ed25519", "id_ecdsa", "id_ed25519_sk", "id_ecdsa_sk", "id_rsa"}) {
      target.identity_files.push_back(sources.home / ".ssh" / name);
    }
  }
  return target;
}

}  // namespace ava::remote
