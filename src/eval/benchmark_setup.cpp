// Tasks and candidates of `ava eval benchmark`: read once, checked strictly,
// and identified by hashes so a comparison can tell whether two samples ran
// the same thing.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <fstream>
#include <set>

#include <fmt/format.h>
#include <openssl/evp.h>

#include "ava/base/json.hpp"
#include "ava/base/private_file.hpp"
#include "ava/eval/benchmark.hpp"
#include "eval/process.hpp"

namespace ava::eval {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr std::size_t max_task_file = 1024 * 1024;
constexpr std::size_t max_prompt_file = 100 * 1024;  // it goes on a command line

class Sha256 {
 public:
  Sha256() : context_(EVP_MD_CTX_new()) { EVP_DigestInit_ex(context_, EVP_sha256(), nullptr); }
  ~Sha256() { EVP_MD_CTX_free(context_); }
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  void update(std::string_view bytes) { EVP_DigestUpdate(context_, bytes.data(), bytes.size()); }
  std::string hex() {
    std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
    unsigned int size = 0;
    EVP_DigestFinal_ex(context_, digest.data(), &size);
    std::string out;
    for (unsigned int i = 0; i < size; ++i) out += fmt::format("{:02x}", digest[i]);
    return out;
  }

 private:
  EVP_MD_CTX* context_;
};

std::string sha256_of(std::string_view bytes) {
  Sha256 hash;
  hash.update(bytes);
  return hash.hex();
}

// Every entry below `dir` with its kind, mode bits and content (or link
// target), in name order: two folders hash alike exactly when a copy of one
// would be the other.
Result<std::string> tree_sha256(const fs::path& dir) {
  std::error_code ec;
  std::vector<fs::path> entries;
  for (fs::recursive_directory_iterator it(dir, fs::directory_options::none, ec), end;
       !ec && it != end; it.increment(ec)) {
    entries.push_back(it->path());
  }
  if (ec) return fail(ErrorCode::io, fmt::format("cannot list {}: {}", dir.string(), ec.message()));
  std::sort(entries.begin(), entries.end());
  Sha256 tree;
  for (const auto& path : entries) {
    const std::string relative = path.lexically_relative(dir).generic_string();
    const auto status = fs::symlink_status(path, ec);
    if (ec)
      return fail(ErrorCode::io, fmt::format("cannot stat {}: {}", path.string(), ec.message()));
    std::string line;
    if (fs::is_symlink(status)) {
      line = fmt::format("l {} {}", relative, fs::read_symlink(path, ec).string());
    } else if (fs::is_directory(status)) {
      line = fmt::format("d {}", relative);
    } else if (fs::is_regular_file(status)) {
      AVA_TRY(auto content, file_sha256(path));
      const bool executable = (status.permissions() & fs::perms::owner_exec) != fs::perms::none;
      line = fmt::format("f {} {} {}", relative, executable ? "x" : "-", content);
    } else {
      return fail(ErrorCode::invalid_argument,
                  fmt::format("{} is not a file, folder or link", path.string()));
    }
    tree.update(line);
    tree.update(std::string_view("\0", 1));
  }
  return tree.hex();
}

Result<json> read_json_file(const fs::path& path, std::size_t limit) {
  AVA_TRY(auto text, base::read_file_limited(path, limit));
  auto parsed = base::parse_json(text);
  if (!parsed)
    return fail(parsed.error().code, fmt::format("{}: {}", path.string(), parsed.error().message));
  return std::move(*parsed);
}

Result<std::chrono::seconds> positive_seconds(const json& object, const char* key,
                                              std::chrono::seconds fallback) {
  if (!object.contains(key)) return fallback;
  const auto value = base::json_field<int>(object, key);
  if (!value || *value <= 0 || *value > 86'400) {
    return fail(ErrorCode::invalid_argument, fmt::format("{} must be 1 to 86400 seconds", key));
  }
  return std::chrono::seconds(*value);
}

Result<Task> task_from_json(const json& spec, const fs::path& dir) {
  static const std::set<std::string> known{"prompt", "grader", "timeoutSeconds",
                                           "graderTimeoutSeconds", "maxSteps"};
  if (!spec.is_object()) return fail(ErrorCode::invalid_argument, "task.json is not an object");
  for (const auto& [key, value] : spec.items()) {
    if (!known.contains(key))
      return fail(ErrorCode::invalid_argument, fmt::format("task.json: unknown field \"{}\"", key));
  }
  Task task{.name = dir.filename().string(), .dir = dir};
  const auto prompt = base::json_field<std::string>(spec, "prompt");
  if (!prompt || prompt->empty())
    return fail(ErrorCode::invalid_argument, "task.json: \"prompt\" must be a non-empty string");
  task.prompt = *prompt;
  const json grader = spec.value("grader", json());
  if (grader.is_string() && !grader.get_ref<const std::string&>().empty()) {
    task.grader = {"/bin/sh", "-c", grader.get<std::string>()};
  } else if (grader.is_array() && !grader.empty() &&
             std::all_of(grader.begin(), grader.end(),
                         [](const json& v) { return v.is_string(); })) {
    task.grader = grader.get<std::vector<std::string>>();
  } else {
    return fail(ErrorCode::invalid_argument,
                "task.json: \"grader\" must be a command string or a non-empty argv array");
  }
  AVA_TRY(task.timeout, positive_seconds(spec, "timeoutSeconds", task.timeout));
  AVA_TRY(task.grader_timeout, positive_seconds(spec, "graderTimeoutSeconds", task.grader_timeout));
  if (spec.contains("maxSteps")) {
    const auto steps = base::json_field<int>(spec, "maxSteps");
    if (!steps || *steps <= 0 || *steps > 10'000)
      return fail(ErrorCode::invalid_argument, "task.json: \"maxSteps\" must be 1 to 10000");
    task.max_steps = *steps;
  }
  return task;
}

std::string exe_dir() {
  std::error_code ec;
  return fs::read_symlink("/proc/self/exe", ec).parent_path().string();
}

Result<std::string> read_prompt_file(const std::string& path) {
  auto text = base::read_file_limited(path, max_prompt_file);
  if (!text)
    return fail(text.error().code, fmt::format("cannot read {}: {}", path, text.error().message));
  return std::move(*text);
}

Result<void> set_candidate_key(Candidate& candidate, const std::string& key,
                               const std::string& value) {
  if (key == "ava") {
    candidate.ava = fs::absolute(value);
  } else if (key == "provider") {
    candidate.provider = value;
  } else if (key == "model") {
    candidate.model = value;
  } else if (key == "base-url") {
    if (!value.starts_with("http://") && !value.starts_with("https://"))
      return fail(ErrorCode::invalid_argument, "base-url must start with http:// or https://");
    candidate.base_url = value;
  } else if (key == "max-steps") {
    int steps = 0;
    const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), steps);
    if (error != std::errc() || end != value.data() + value.size() || steps <= 0 || steps > 10'000)
      return fail(ErrorCode::invalid_argument, "max-steps must be 1 to 10000");
    candidate.max_steps = steps;
  } else if (key == "permission-mode") {
    candidate.permission_mode = value;
  } else if (key == "system-prompt-file") {
    AVA_TRY(candidate.system_prompt, read_prompt_file(value));
  } else if (key == "append-system-prompt-file") {
    AVA_TRY(candidate.append_system_prompt, read_prompt_file(value));
  } else if (key == "settings") {
    AVA_TRY(candidate.settings, read_json_file(value, max_task_file));
    if (!candidate.settings.is_object())
      return fail(ErrorCode::invalid_argument, fmt::format("{} is not a JSON object", value));
  } else {
    return fail(
        ErrorCode::invalid_argument,
        fmt::format("unknown key \"{}\" (ava, provider, model, base-url, max-steps, "
                    "permission-mode, system-prompt-file, append-system-prompt-file, settings)",
                    key));
  }
  return {};
}

bool valid_name(std::string_view name) {
  return !name.empty() && name.size() <= 64 && name.front() != '.' &&
         std::all_of(name.begin(), name.end(), [](char c) {
           return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
         });
}

}  // namespace

Result<std::string> file_sha256(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail(ErrorCode::io, fmt::format("cannot read {}", path.string()));
  Sha256 hash;
  std::array<char, 1 << 16> buffer{};
  while (in) {
    in.read(buffer.data(), buffer.size());
    hash.update(std::string_view(buffer.data(), static_cast<std::size_t>(in.gcount())));
  }
  if (in.bad()) return fail(ErrorCode::io, fmt::format("cannot read {}", path.string()));
  return hash.hex();
}

std::string file_stamp(const fs::path& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return {};
  return fmt::format("{}:{}:{}:{}.{}:{}.{}", info.st_dev, info.st_ino, info.st_size,
                     info.st_mtim.tv_sec, info.st_mtim.tv_nsec, info.st_ctim.tv_sec,
                     info.st_ctim.tv_nsec);
}

Result<Task> load_task(const fs::path& dir) {
  AVA_TRY(auto spec, read_json_file(dir / "task.json", max_task_file));
  auto task = task_from_json(spec, dir);
  if (!task)
    return fail(task.error().code,
                fmt::format("task {}: {}", dir.filename().string(), task.error().message));
  std::error_code ec;
  if (!fs::is_directory(dir / "repo", ec))
    return fail(ErrorCode::invalid_argument, fmt::format("task {}: no repo/ folder", task->name));
  if (!valid_name(task->name))
    return fail(
        ErrorCode::invalid_argument,
        fmt::format("task folder \"{}\": use letters, digits, '-', '_' and '.'", task->name));
  AVA_TRY(task->hash, tree_sha256(dir));
  return task;
}

Result<std::vector<Task>> load_tasks(const fs::path& dir) {
  std::error_code ec;
  std::vector<fs::path> folders;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_directory() && fs::exists(it->path() / "task.json")) folders.push_back(it->path());
  }
  if (ec) return fail(ErrorCode::io, fmt::format("cannot read {}: {}", dir.string(), ec.message()));
  if (folders.empty())
    return fail(ErrorCode::not_found,
                fmt::format("{} holds no task (a folder with task.json)", dir.string()));
  std::sort(folders.begin(), folders.end());
  std::vector<Task> tasks;
  for (const auto& folder : folders) {
    AVA_TRY(auto task, load_task(folder));
    tasks.push_back(std::move(task));
  }
  return tasks;
}

json Candidate::describe() const {
  json spec{{"provider", provider},
            {"model", model},
            {"baseUrl", base_url},
            {"maxSteps", max_steps ? json(*max_steps) : json()},
            {"permissionMode", permission_mode},
            {"systemPrompt", system_prompt},
            {"appendSystemPrompt", append_system_prompt},
            {"settings", settings}};
  return spec;
}

std::string Candidate::settings_hash() const { return sha256_of(describe().dump()); }

Result<Candidate> parse_candidate(std::string_view argument) {
  const auto equals = argument.find('=');
  if (equals == std::string_view::npos)
    return fail(
        ErrorCode::invalid_argument,
        fmt::format("candidate \"{}\": expected NAME=key=value,... or NAME=@FILE.json", argument));
  Candidate candidate{.name = std::string(argument.substr(0, equals)),
                      .ava = fs::path(exe_dir()) / "ava"};
  if (!valid_name(candidate.name))
    return fail(ErrorCode::invalid_argument,
                fmt::format("candidate name \"{}\": use letters, digits, '-', '_' and '.'",
                            candidate.name));
  const std::string spec(argument.substr(equals + 1));
  auto wrap = [&](Error error) {
    return fail(error.code, fmt::format("candidate {}: {}", candidate.name, error.message));
  };
  if (spec.starts_with("@")) {
    auto file = read_json_file(spec.substr(1), max_task_file);
    if (!file) return wrap(std::move(file.error()));
    if (!file->is_object())
      return wrap(Error{ErrorCode::invalid_argument, "the file is not a JSON object"});
    for (const auto& [key, value] : file->items()) {
      // In a file, settings may be the object itself rather than its path.
      if (key == "settings" && value.is_object()) {
        candidate.settings = value;
        continue;
      }
      std::string text = value.is_string() ? value.get<std::string>() : value.dump();
      if (auto set = set_candidate_key(candidate, key, text); !set)
        return wrap(std::move(set.error()));
    }
    return candidate;
  }
  std::size_t start = 0;
  while (start < spec.size()) {
    const auto comma = std::min(spec.find(',', start), spec.size());
    const std::string pair = spec.substr(start, comma - start);
    start = comma + 1;
    if (pair.empty()) continue;
    const auto eq = pair.find('=');
    if (eq == std::string::npos)
      return wrap(Error{ErrorCode::invalid_argument, fmt::format("\"{}\" is not key=value", pair)});
    if (auto set = set_candidate_key(candidate, pair.substr(0, eq), pair.substr(eq + 1)); !set)
      return wrap(std::move(set.error()));
  }
  return candidate;
}

Result<BinaryIdentity> identify_binary(const fs::path& ava) {
  std::error_code ec;
  if (!fs::is_regular_file(ava, ec) || ::access(ava.c_str(), X_OK) != 0)
    return fail(ErrorCode::not_found, fmt::format("{} is not an executable file", ava.string()));
  BinaryIdentity identity{.file_stamp = file_stamp(ava)};
  AVA_TRY(identity.sha256, file_sha256(ava));
  AVA_TRY(auto ran, run_sync({.spawn = {.argv = {ava.string(), "--version"}},
                              .timeout = std::chrono::seconds(30)}));
  if (!ran.status.success())
    return fail(ErrorCode::unavailable,
                fmt::format("{} --version: {}", ava.string(), ran.status.describe()));
  identity.version = ran.out.text;
  while (!identity.version.empty() &&
         std::isspace(static_cast<unsigned char>(identity.version.back())))
    identity.version.pop_back();
  return identity;
}

}  // namespace ava::eval
