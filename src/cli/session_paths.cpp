#include "cli/session_paths.hpp"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <vector>

#include "ava/session/log_reader.hpp"

namespace ava::cli {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view log_suffix = ".jsonl.zst";
constexpr std::size_t head_bytes = std::size_t{256} * 1024;  // holds the first frame of any log
constexpr std::size_t max_candidates = 500;

// The events of a log's first frames: its session_started, and usually its
// first input. A short read first; a larger one when the first frame is big.
std::vector<session::Event> head_events(const fs::path& log) {
  for (const std::size_t bytes : {std::size_t{16} * 1024, head_bytes}) {
    std::ifstream in(log, std::ios::binary);
    std::string head(bytes, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<std::size_t>(in.gcount()));
    auto scan = session::scan_log(head);
    if (scan && !scan->events.empty()) return std::move(scan->events);
    if (head.size() < bytes) break;  // the whole file was read
  }
  return {};
}

const session::SessionStarted* started(const std::vector<session::Event>& events) {
  if (events.empty()) return nullptr;
  return std::get_if<session::SessionStarted>(&events.front().body);
}

// The logs of the sessions folder, most recently written first.
std::vector<std::pair<fs::file_time_type, fs::path>> logs_by_age(const base::Home& home) {
  std::error_code ec;
  std::vector<std::pair<fs::file_time_type, fs::path>> logs;
  for (const auto& entry : fs::directory_iterator(home.sessions(), ec)) {
    const auto name = entry.path().filename().string();
    if (!name.ends_with(log_suffix)) continue;
    logs.emplace_back(entry.last_write_time(ec), entry.path());
  }
  std::ranges::sort(logs, std::greater<>{});
  return logs;
}

std::int64_t unix_ms(fs::file_time_type time) {
  const auto system = std::chrono::file_clock::to_sys(time);
  return std::chrono::duration_cast<std::chrono::milliseconds>(system.time_since_epoch()).count();
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
  const auto wanted = fs::weakly_canonical(cwd, ec).string();
  const auto logs = logs_by_age(home);
  for (std::size_t i = 0; i < logs.size() && i < max_candidates; ++i) {
    const auto events = head_events(logs[i].second);
    const auto* start = started(events);
    // A subagent's log is part of its parent's conversation, not one to continue.
    if (start && start->cwd == wanted && start->parent_session_id.empty()) return logs[i].second;
  }
  return fail(ErrorCode::not_found, "no earlier session in " + wanted + " to continue");
}

std::vector<SessionSummary> list_sessions(const base::Home& home, const fs::path& cwd,
                                          std::size_t limit) {
  std::error_code ec;
  const auto wanted = cwd.empty() ? std::string() : fs::weakly_canonical(cwd, ec).string();
  std::vector<SessionSummary> found;
  for (const auto& [time, log] : logs_by_age(home)) {
    if (found.size() >= limit) break;
    const auto events = head_events(log);
    const auto* start = started(events);
    if (!start || !start->parent_session_id.empty()) continue;
    if (!wanted.empty() && start->cwd != wanted) continue;
    SessionSummary summary{.id = start->session_id,
                           .log = log,
                           .modified_ms = unix_ms(time),
                           .cwd = start->cwd,
                           .provider = start->provider,
                           .model = start->model,
                           .first_input = {}};
    for (const auto& event : events) {
      if (const auto* input = std::get_if<session::InputAcknowledged>(&event.body)) {
        summary.first_input = input->text;
        break;
      }
    }
    found.push_back(std::move(summary));
  }
  return found;
}

bool in_home_sessions(const base::Home& home, const fs::path& log) {
  std::error_code ec;
  const auto folder = fs::weakly_canonical(home.sessions(), ec);
  const auto parent = fs::weakly_canonical(log, ec).parent_path();
  return parent == folder;
}

}  // namespace ava::cli
