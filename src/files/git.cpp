#include "files/git.hpp"

#include <chrono>

#include "ava/proc/capture.hpp"
#include "ava/proc/run.hpp"

namespace ava::files::git {
namespace {

namespace asio = boost::asio;

constexpr std::chrono::seconds git_timeout{20};

proc::RunOptions git_command(const std::filesystem::path& folder, std::vector<std::string> args) {
  proc::RunOptions options;
  options.spawn.argv = {"git", "-c", "core.fsmonitor=false", "-c", "core.quotePath=false"};
  options.spawn.argv.insert(options.spawn.argv.end(), args.begin(), args.end());
  options.spawn.cwd = folder;
  options.spawn.scrub_secrets = true;
  options.spawn.env["GIT_TERMINAL_PROMPT"] = "0";
  options.spawn.env["GIT_OPTIONAL_LOCKS"] = "0";
  options.spawn.env["LC_ALL"] = "C";
  options.timeout = git_timeout;
  return options;
}

// The NUL-separated names in `text`; a cut capture's marker and the names
// beside it are dropped.
std::vector<std::string> split_nul(const proc::CapturedOutput& output) {
  std::string_view text = output.text;
  if (output.truncated()) {
    const auto marker = text.find(proc::omitted_marker(output.omitted_bytes));
    text = text.substr(0, marker);
    const auto last = text.rfind('\0');
    text = last == std::string_view::npos ? std::string_view() : text.substr(0, last + 1);
  }
  std::vector<std::string> names;
  std::size_t start = 0;
  while (start < text.size()) {
    auto end = text.find('\0', start);
    if (end == std::string_view::npos) end = text.size();
    if (end > start) names.emplace_back(text.substr(start, end - start));
    start = end + 1;
  }
  return names;
}

}  // namespace

asio::awaitable<std::optional<std::set<std::string>>> ignored(
    const std::filesystem::path& folder, const std::vector<std::string>& paths) {
  auto options = git_command(folder, {"check-ignore", "-z", "--stdin"});
  options.spawn.stdin_mode = proc::StdinMode::pipe;
  for (const auto& path : paths) {
    options.stdin_bytes += path;
    options.stdin_bytes += '\0';
  }
  options.spawn.stderr_mode = proc::StderrMode::null;
  options.capture_limit = options.stdin_bytes.size() + 1024;
  auto run = co_await proc::run(std::move(options));
  // 0: some are ignored, 1: none is; anything else (128: not a work tree,
  // a dubious owner) means Git could not judge.
  if (!run || run->status.signal != 0 || (run->status.code != 0 && run->status.code != 1)) {
    co_return std::nullopt;
  }
  std::set<std::string> names;
  for (auto& name : split_nul(run->out)) names.insert(std::move(name));
  co_return names;
}

asio::awaitable<std::optional<FileList>> files(const std::filesystem::path& folder,
                                               std::size_t max_files) {
  auto options = git_command(
      folder, {"ls-files", "--cached", "--others", "--exclude-standard", "--deduplicate", "-z"});
  options.spawn.stderr_mode = proc::StderrMode::null;
  // Paths average well under 100 bytes; the bound only keeps memory finite.
  options.capture_limit = max_files * 256;
  auto run = co_await proc::run(std::move(options));
  if (!run || !run->status.success()) co_return std::nullopt;
  FileList list;
  list.paths = split_nul(run->out);
  list.truncated = run->out.truncated();
  if (list.paths.size() > max_files) {
    list.paths.resize(max_files);
    list.truncated = true;
  }
  co_return list;
}

}  // namespace ava::files::git
