// auth.json: API keys by provider name, owner-only (0600).
//   {"anthropic": {"apiKey": "sk-ant-..."}, "openrouter": {"apiKey": "..."}}
// Changes are read-modify-write under auth.json.lock (flock, 0600).

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <utility>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "ava/base/json.hpp"
#include "ava/base/private_file.hpp"
#include "llm/settings_files.hpp"

namespace ava::llm {

namespace detail {

namespace {

using nlohmann::json;

Result<std::string> read_all(int fd, const std::filesystem::path& path) {
  std::string text;
  char buffer[4096];
  while (true) {
    ssize_t got = ::read(fd, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return base::fail_errno("read " + path.string(), errno);
    if (got == 0) return text;
    text.append(buffer, static_cast<std::size_t>(got));
    if (text.size() > settings_file_limit) {
      return fail(ErrorCode::limit_exceeded, fmt::format("{}: larger than 1 MiB", path.string()));
    }
  }
}

// Writes the document next to `path` and renames it into place, so a crash
// leaves either the old file or the new one, never half of one.
Result<void> replace_file(const std::filesystem::path& path, const json& document) {
  std::string text;
  try {
    text = document.dump(2) + "\n";
  } catch (const json::type_error&) {
    return fail(ErrorCode::invalid_argument, "an API key must be valid UTF-8 text");
  }
  return base::write_private_file(path, text);
}

}  // namespace

bool valid_provider_name(std::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

Result<json> parse_json_document(std::string_view text, std::string_view origin, bool secret) {
  auto parsed =
      base::parse_json(text, base::JsonLimits{.max_depth = 64, .max_bytes = settings_file_limit});
  if (parsed) return parsed;
  std::string what = parsed.error().message;
  // "invalid JSON at byte 9: [json.exception.parse_error.101] parse error at line 2, ..."
  if (auto bracket = what.find("] "); bracket != std::string::npos &&
                                      what.find("[json.") != std::string::npos &&
                                      what.find("[json.") < bracket) {
    what.erase(0, bracket + 2);
  }
  if (auto excerpt = what.find("; last read"); secret && excerpt != std::string::npos)
    what.erase(excerpt);
  return fail(ErrorCode::parse, fmt::format("{}: not valid JSON: {}", origin, what));
}

Result<FileLock> lock_beside(const std::filesystem::path& file) {
  auto lock_path = file;
  lock_path += ".lock";
  FileLock lock;
  lock.fd.reset(::open(lock_path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!lock.fd.valid()) return base::fail_errno("open " + lock_path.string(), errno);
  // Every process on the home takes it before reading the file to change
  // it, so two saves at once each see the other's change.
  while (::flock(lock.fd.get(), LOCK_EX) != 0) {
    if (errno != EINTR) return base::fail_errno("lock " + lock_path.string(), errno);
  }
  return lock;
}

Result<json> read_auth_document(const std::filesystem::path& path) {
  const base::UniqueFd file(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  if (!file.valid() && errno == ENOENT) return json::object();
  if (!file.valid()) return base::fail_errno("open " + path.string(), errno);
  struct stat info {};
  if (::fstat(file.get(), &info) != 0) return base::fail_errno("stat " + path.string(), errno);
  if (!S_ISREG(info.st_mode)) {
    return fail(
        ErrorCode::permission_denied,
        fmt::format("{}: not a regular file; refusing to read credentials from it", path.string()));
  }
  if (info.st_uid != ::geteuid()) {
    return fail(ErrorCode::permission_denied,
                fmt::format("{}: owned by uid {}, not by you; refusing to read credentials from it",
                            path.string(), info.st_uid));
  }
  if ((info.st_mode & 0077) != 0) {
    // Readable by others: tighten at once rather than refuse, and say so.
    if (::fchmod(file.get(), 0600) != 0)
      return base::fail_errno("chmod 0600 " + path.string(), errno);
    spdlog::warn("{} was mode {:o}; tightened to 0600", path.string(), info.st_mode & 0777);
  }
  AVA_TRY(std::string text, read_all(file.get(), path));
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) return json::object();
  AVA_TRY(json document, parse_json_document(text, path.string(), true));
  if (!document.is_object()) {
    return fail(ErrorCode::parse, fmt::format("{}: must hold a JSON object", path.string()));
  }
  return document;
}

Result<void> load_auth_keys(const std::filesystem::path& path, Settings& settings) {
  AVA_TRY(json document, read_auth_document(path));
  for (const auto& [name, entry] : document.items()) {
    if (!entry.is_object() || !entry.contains("apiKey") || !entry["apiKey"].is_string()) {
      return fail(
          ErrorCode::parse,
          fmt::format("{}: {} must be an object with an \"apiKey\" string", path.string(), name));
    }
    settings.keys.insert_or_assign(name, base::Secret(entry["apiKey"].get<std::string>()));
  }
  return {};
}

}  // namespace detail

Result<void> save_api_key(const base::Home& home, std::string_view provider,
                          const base::Secret& key) {
  if (!detail::valid_provider_name(provider)) {
    return fail(ErrorCode::invalid_argument,
                fmt::format("'{}' is not a valid provider name", provider));
  }
  if (key.empty()) return fail(ErrorCode::invalid_argument, "an empty API key cannot be saved");
  // A key goes into an HTTP header: a space, a control character or a
  // non-ASCII byte is a paste gone wrong (or a header injection), not a key.
  for (const unsigned char c : key.reveal()) {
    if (c <= 0x20 || c >= 0x7f) {
      return fail(ErrorCode::invalid_argument,
                  "an API key is printable ASCII without spaces; this one is not (check what "
                  "was pasted)");
    }
  }
  if (key.reveal().size() > 4096) {
    return fail(ErrorCode::invalid_argument, "an API key longer than 4096 characters is refused");
  }
  auto path = home.file("auth.json");
  AVA_TRY(auto lock, detail::lock_beside(path));
  // A malformed file is not overwritten: it may hold keys the user wants back.
  AVA_TRY(nlohmann::json document, detail::read_auth_document(path));
  auto& entry = document[std::string(provider)];
  if (!entry.is_object()) entry = nlohmann::json::object();
  entry["apiKey"] = key.reveal();
  return detail::replace_file(path, document);
}

Result<void> remove_api_key(const base::Home& home, std::string_view provider) {
  auto path = home.file("auth.json");
  AVA_TRY(auto lock, detail::lock_beside(path));
  AVA_TRY(nlohmann::json document, detail::read_auth_document(path));
  auto found = document.find(std::string(provider));
  if (found == document.end())
    return fail(ErrorCode::not_found, fmt::format("no key is saved for '{}'", provider));
  document.erase(found);
  return detail::replace_file(path, document);
}

}  // namespace ava::llm
