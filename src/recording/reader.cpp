#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "ava/base/json.hpp"
#include "ava/recording/json.hpp"
#include "ava/recording/recording.hpp"

namespace ava::recording {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// A recording is read whole; these bound what a hostile folder can make it
// hold in memory.
constexpr std::uintmax_t max_file_bytes = std::uintmax_t{512} * 1024 * 1024;
constexpr std::size_t max_line_bytes = std::size_t{64} * 1024 * 1024;

Result<std::string> read_text(const fs::path& file) {
  std::error_code ec;
  const auto size = fs::file_size(file, ec);
  if (ec) return fail(ErrorCode::not_found, fmt::format("{}: {}", file.string(), ec.message()));
  if (size > max_file_bytes) {
    return fail(ErrorCode::limit_exceeded,
                fmt::format("{} is {} bytes; a recording file may hold {}", file.string(), size,
                            max_file_bytes));
  }
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in && !in.eof()) return fail(ErrorCode::io, "cannot read " + file.string());
  return std::move(text).str();
}

// Calls `each(json, line_number)` for every non-empty line.
template <class F>
Result<void> for_each_line(const fs::path& file, F&& each) {
  AVA_TRY(auto text, read_text(file));
  std::size_t start = 0;
  for (int number = 1; start < text.size(); ++number) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string_view line(text.data() + start, end - start);
    start = end + 1;
    if (line.empty()) continue;
    const auto where = [&](const Error& error) {
      return Error{error.code,
                   fmt::format("{} line {}: {}", file.filename().string(), number, error.message)};
    };
    auto parsed = base::parse_json(line, {.max_depth = 128, .max_bytes = max_line_bytes});
    if (!parsed) return std::unexpected(where(parsed.error()));
    if (auto done = each(*parsed); !done) return std::unexpected(where(done.error()));
  }
  return {};
}

Result<std::string> string_field(const json& value, const char* key) {
  auto field = base::json_field<std::string>(value, key);
  if (!field) return fail(ErrorCode::parse, fmt::format("{}: expected a string", key));
  return *field;
}

Result<Exchange> exchange_of(const json& line, int expected_index) {
  const auto index = base::json_field<int>(line, "index");
  if (!index || *index != expected_index) {
    return fail(ErrorCode::corrupt, fmt::format("expected exchange {}", expected_index));
  }
  Exchange exchange;
  exchange.request = line.value("request", json());
  AVA_TRY_VOID(decode_request(exchange.request));
  const auto events = line.find("events");
  if (events == line.end() || !events->is_array())
    return fail(ErrorCode::parse, "events: expected an array");
  for (const auto& event : *events) {
    AVA_TRY(auto decoded, decode_event(event));
    exchange.events.push_back(std::move(decoded));
  }
  if (const auto response = line.find("response"); response != line.end() && !response->is_null()) {
    AVA_TRY(auto decoded, decode_response(*response));
    exchange.response = std::move(decoded);
  }
  return exchange;
}

Result<ToolResponse> tool_response_of(const json& line) {
  ToolResponse tool;
  AVA_TRY(tool.call_id, string_field(line, "callId"));
  AVA_TRY(tool.name, string_field(line, "name"));
  AVA_TRY(tool.arguments, string_field(line, "arguments"));
  AVA_TRY(tool.status, string_field(line, "status"));
  AVA_TRY(tool.content, decode_tool_content(line.value("content", json())));
  tool.details = line.value("details", json());
  return tool;
}

}  // namespace

namespace {

json outcome_json(const Outcome& o) {
  return {{"reason", o.reason},
          {"text", o.text},
          {"exchanges", o.exchanges},
          {"toolCalls", o.tool_calls}};
}

Result<Outcome> outcome_from_json(const json& value) {
  Outcome o;
  AVA_TRY(o.reason, string_field(value, "reason"));
  AVA_TRY(o.text, string_field(value, "text"));
  o.exchanges = base::json_field<int>(value, "exchanges").value_or(0);
  o.tool_calls = base::json_field<int>(value, "toolCalls").value_or(0);
  return o;
}

}  // namespace

json to_json(const Manifest& m) {
  json out{{"format", m.format},        {"avaVersion", m.ava_version},
           {"sessionId", m.session_id}, {"cwd", m.cwd},
           {"prompt", m.prompt},        {"provider", m.provider},
           {"model", m.model},          {"contextWindow", m.context_window},
           {"maxSteps", m.max_steps},   {"createdMs", m.created_ms}};
  out["maxOutputTokens"] = m.max_output_tokens ? json(*m.max_output_tokens) : json();
  out["outcome"] = m.outcome ? outcome_json(*m.outcome) : json();
  out["turns"] = json::array();
  for (const auto& turn : m.turns) {
    out["turns"].push_back({{"prompt", turn.prompt},
                            {"outcome", turn.outcome ? outcome_json(*turn.outcome) : json()}});
  }
  if (!m.not_replayable.empty()) out["notReplayable"] = m.not_replayable;
  return out;
}

Result<Manifest> manifest_from_json(const json& value) {
  Manifest m;
  const auto format = base::json_field<int>(value, "format");
  if (!format) return fail(ErrorCode::parse, "format: expected an integer");
  if (*format != format_version) {
    return fail(
        ErrorCode::unsupported,
        fmt::format("recording format {} (this Ava reads format {})", *format, format_version));
  }
  AVA_TRY(m.ava_version, string_field(value, "avaVersion"));
  AVA_TRY(m.session_id, string_field(value, "sessionId"));
  AVA_TRY(m.cwd, string_field(value, "cwd"));
  AVA_TRY(m.prompt, string_field(value, "prompt"));
  AVA_TRY(m.provider, string_field(value, "provider"));
  AVA_TRY(m.model, string_field(value, "model"));
  m.context_window = base::json_field<std::int64_t>(value, "contextWindow").value_or(0);
  m.max_output_tokens = base::json_field<std::int64_t>(value, "maxOutputTokens");
  m.max_steps = base::json_field<int>(value, "maxSteps").value_or(0);
  m.created_ms = base::json_field<std::int64_t>(value, "createdMs").value_or(0);
  if (const auto outcome = value.find("outcome"); outcome != value.end() && !outcome->is_null()) {
    AVA_TRY(m.outcome, outcome_from_json(*outcome));
  }
  if (const auto turns = value.find("turns"); turns != value.end() && !turns->is_null()) {
    if (!turns->is_array()) return fail(ErrorCode::parse, "turns: expected an array");
    for (const auto& turn : *turns) {
      RecordedTurn recorded;
      AVA_TRY(recorded.prompt, string_field(turn, "prompt"));
      if (const auto o = turn.find("outcome"); o != turn.end() && !o->is_null()) {
        AVA_TRY(recorded.outcome, outcome_from_json(*o));
      }
      m.turns.push_back(std::move(recorded));
    }
  }
  m.not_replayable = base::json_field<std::string>(value, "notReplayable").value_or("");
  return m;
}

Result<Recording> load(const fs::path& dir) {
  Recording recording;
  {
    AVA_TRY(auto text, read_text(dir / "recording.json"));
    auto parsed = base::parse_json(text);
    if (!parsed) return fail(parsed.error().code, "recording.json: " + parsed.error().message);
    auto manifest = manifest_from_json(*parsed);
    if (!manifest)
      return fail(manifest.error().code, "recording.json: " + manifest.error().message);
    recording.manifest = std::move(*manifest);
  }
  AVA_TRY_VOID(for_each_line(dir / "exchanges.jsonl", [&](const json& line) -> Result<void> {
    AVA_TRY(auto exchange, exchange_of(line, static_cast<int>(recording.exchanges.size())));
    recording.exchanges.push_back(std::move(exchange));
    return {};
  }));
  AVA_TRY_VOID(for_each_line(dir / "tools.jsonl", [&](const json& line) -> Result<void> {
    AVA_TRY(auto tool, tool_response_of(line));
    if (recording.tools.contains(tool.call_id)) {
      return fail(ErrorCode::corrupt, fmt::format("call {} is recorded twice", tool.call_id));
    }
    recording.tools.emplace(tool.call_id, std::move(tool));
    return {};
  }));
  return recording;
}

}  // namespace ava::recording
