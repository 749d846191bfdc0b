#include "server/subagent_logs.hpp"

#include <algorithm>
#include <set>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "ava/session/log_reader.hpp"

namespace ava::server {

namespace {

constexpr int kMaxDepth = 4;            // a subagent may start its own, not without end
constexpr std::size_t kMaxLogs = 4096;  // a hostile log cannot make this run long

// What a log says about itself and the subagents it started.
struct LogNames {
  std::string self;
  std::string parent;
  std::set<std::string> children;
};

LogNames read_names(const std::filesystem::path& log) {
  LogNames names;
  auto scan = session::read_log(log);
  if (!scan) return names;
  for (const auto& event : scan->events) {
    if (const auto* start = std::get_if<session::SessionStarted>(&event.body)) {
      names.self = start->session_id;
      names.parent = start->parent_session_id;
    } else if (const auto* usage = std::get_if<session::UsageRecorded>(&event.body)) {
      if (plain_session_id(usage->subagent)) names.children.insert(usage->subagent);
    } else if (const auto* result = std::get_if<session::ToolResult>(&event.body)) {
      // The `task` result: details.subagent.sessionId.
      const auto& details = result->details;
      if (!details.is_object() || !details.contains("subagent")) continue;
      const auto& subagent = details["subagent"];
      if (subagent.is_object() && subagent.contains("sessionId") &&
          subagent["sessionId"].is_string()) {
        auto id = subagent["sessionId"].get<std::string>();
        if (plain_session_id(id)) names.children.insert(std::move(id));
      }
    }
  }
  return names;
}

void collect(const LogNames& names, const std::filesystem::path& folder, int depth,
             std::set<std::filesystem::path>& found) {
  if (depth >= kMaxDepth || names.self.empty()) return;
  for (const auto& child : names.children) {
    if (found.size() >= kMaxLogs) return;
    auto path = folder / (child + ".jsonl.zst");
    if (found.contains(path)) continue;
    const auto child_names = read_names(path);
    if (child_names.parent != names.self) continue;
    found.insert(path);
    collect(child_names, folder, depth + 1, found);
  }
}

}  // namespace

bool plain_session_id(std::string_view id) {
  return !id.empty() && id.size() <= 64 && std::ranges::all_of(id, [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-';
  });
}

std::vector<std::filesystem::path> subagent_logs(const std::filesystem::path& log) {
  std::set<std::filesystem::path> found;
  collect(read_names(log), log.parent_path(), 0, found);
  return {found.begin(), found.end()};
}

}  // namespace ava::server
