#include <string>

#include <fmt/format.h>

#include "ava/transport/sse.hpp"

namespace ava::transport {

namespace {

// Calls emit(line) for each line of text, treating CRLF, CR and LF alike.
template <class Emit>
void for_each_line(std::string_view text, Emit&& emit) {
  while (true) {
    auto end = text.find_first_of("\r\n");
    if (end == std::string_view::npos) {
      emit(text);
      return;
    }
    emit(text.substr(0, end));
    if (text[end] == '\r' && end + 1 < text.size() && text[end + 1] == '\n') ++end;
    text.remove_prefix(end + 1);
  }
}

bool has_line_break(std::string_view text) {
  return text.find_first_of("\r\n") != std::string_view::npos;
}

}  // namespace

Result<std::string> encode_sse(const SseFrame& frame, std::size_t max_frame_bytes) {
  if (has_line_break(frame.event)) {
    return fail(ErrorCode::invalid_argument, "SSE event name contains a line break");
  }
  if (has_line_break(frame.id)) {
    return fail(ErrorCode::invalid_argument, "SSE id contains a line break");
  }
  std::string out;
  out.reserve(frame.data.size() + frame.event.size() + frame.id.size() + 32);
  if (!frame.id.empty()) out.append("id: ").append(frame.id).push_back('\n');
  if (!frame.event.empty()) out.append("event: ").append(frame.event).push_back('\n');
  if (frame.retry_ms) out.append(fmt::format("retry: {}\n", *frame.retry_ms));
  for_each_line(frame.data,
                [&](std::string_view line) { out.append("data: ").append(line).push_back('\n'); });
  out.push_back('\n');
  if (out.size() > max_frame_bytes) {
    return fail(ErrorCode::limit_exceeded,
                fmt::format("SSE frame of {} bytes exceeds {}", out.size(), max_frame_bytes));
  }
  return out;
}

std::string encode_sse_comment(std::string_view text) {
  std::string out;
  for_each_line(text, [&](std::string_view line) {
    out.push_back(':');
    if (!line.empty()) out.append(" ").append(line);
    out.push_back('\n');
  });
  out.push_back('\n');
  return out;
}

}  // namespace ava::transport
