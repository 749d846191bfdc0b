#include "cli/session_paths.hpp"

#include <algorithm>
#include <fstream>
#include <vector>

#include "ava/session/log_reader.hpp"

namespace ava::cli {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view log_suffix = ".jsonl.zst";
constexpr std::size_t head_bytes = std::size_t{256} * 1024;  // holds the first frame of any log
constexpr std::size_t max_candidates = 500;

// The cwd a log's session started in, from its first frame only.
std::string started_in(const fs::path& log) {
  std::ifstream in(log, std::ios::binary);
  std::string head(head_bytes, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(in.gcount()));
  auto scan = session::scan_log(head);
  if (!scan || scan->events.empty()) return {};
  const auto* start = std::get_if<session::SessionStarted>(&scan->events.front().body);
  return start ? start->cwd : std::string();
}

}  // namespace

Result<fs::path> resolve_session(const base::Home& home, const std::string& arg) {
  if (arg.empty()) return fail(ErrorCode::invalid_argument, "--session needs an id or a path");
  const bool is_path = arg.find('/') != std::string::npos || arg.ends_with(".zst");
  const fs::path log = is_path ? fs::path(arg) : home.sessions() / (arg + std::string(log_suffix));
  std::error_code ec;
  if (!fs::is_regular_file(log, ec)) {
    return fail(ErrorCode::not_found, "no session log at " + log.string());
  }
  return fs::absolute(log, ec);
}

Result<fs::path> latest_session_for(const base::Home& home, const fs::path& cwd) {
  std::error_code ec;
  std::vector<std::pair<fs::file_time_type, fs::path>> logs;
  for (const auto& entry : fs::directory_iterator(home.sessions(), ec)) {
    const auto name = entry.path().filename().string();
    if (!name.ends_with(log_suffix)) continue;
    logs.emplace_back(entry.last_write_time(ec), entry.path());
  }
  std::ranges::sort(logs, std::greater<>{});
  const auto wanted = fs::weakly_canonical(cwd, ec).string();
  for (std::size_t i = 0; i < logs.size() && i < max_candidates; ++i) {
    if (started_in(logs[i].second) == wanted) return logs[i].second;
  }
  return fail(ErrorCode::not_found, "no earlier session in " + wanted + " to continue");
}

bool in_home_sessions(const base::Home& home, const fs::path& log) {
  std::error_code ec;
  const auto folder = fs::weakly_canonical(home.sessions(), ec);
  const auto parent = fs::weakly_canonical(log, ec).parent_path();
  return parent == folder;
}

}  // namespace ava::cli
