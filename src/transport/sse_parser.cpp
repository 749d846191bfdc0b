#include <charconv>
#include <string>

#include <fmt/format.h>

#include "ava/transport/sse.hpp"

namespace ava::transport {

namespace {

constexpr std::string_view utf8_bom = "\xEF\xBB\xBF";

}  // namespace

Result<void> SseParser::check_frame_size(std::size_t extra) const {
  if (line_.size() + data_.size() + event_name_.size() + extra > max_frame_bytes_) {
    return fail(ErrorCode::limit_exceeded,
                fmt::format("SSE event larger than {} bytes", max_frame_bytes_));
  }
  return {};
}

Result<void> SseParser::feed(std::string_view chunk, std::vector<SseEvent>& out) {
  if (failed_) return fail(ErrorCode::protocol, "SSE parser used after an error");
  // A BOM may only open the stream, and may itself be split across chunks.
  while (bom_bytes_checked_ < utf8_bom.size() && !chunk.empty()) {
    if (chunk.front() != utf8_bom[bom_bytes_checked_]) {
      // Not a BOM after all: give back the bytes swallowed so far.
      line_.append(utf8_bom.substr(0, bom_bytes_checked_));
      bom_bytes_checked_ = utf8_bom.size();
      break;
    }
    chunk.remove_prefix(1);
    ++bom_bytes_checked_;
  }
  if (skip_leading_lf_ && !chunk.empty()) {
    if (chunk.front() == '\n') chunk.remove_prefix(1);
    skip_leading_lf_ = false;
  }
  while (!chunk.empty()) {
    auto end = chunk.find_first_of("\r\n");
    if (end == std::string_view::npos) {
      if (auto size = check_frame_size(chunk.size()); !size) {
        failed_ = true;
        return size;
      }
      line_.append(chunk);
      return {};
    }
    std::string_view line = chunk.substr(0, end);
    bool carried = !line_.empty();
    if (carried) {
      if (auto size = check_frame_size(line.size()); !size) {
        failed_ = true;
        return size;
      }
      line_.append(line);
      line = line_;
    }
    if (auto processed = process_line(line, out); !processed) {
      failed_ = true;
      return processed;
    }
    if (carried) line_.clear();
    if (chunk[end] == '\r') {
      if (end + 1 == chunk.size()) {
        skip_leading_lf_ = true;  // the LF of a CRLF may open the next chunk
      } else if (chunk[end + 1] == '\n') {
        ++end;
      }
    }
    chunk.remove_prefix(end + 1);
  }
  return {};
}

Result<void> SseParser::finish(std::vector<SseEvent>& out) {
  if (failed_) return fail(ErrorCode::protocol, "SSE parser used after an error");
  if (bom_bytes_checked_ > 0 && bom_bytes_checked_ < utf8_bom.size()) {
    line_.append(utf8_bom.substr(0, bom_bytes_checked_));
  }
  bom_bytes_checked_ = utf8_bom.size();
  if (!line_.empty()) {
    std::string line = std::move(line_);
    line_.clear();
    AVA_TRY_VOID(process_line(line, out));
  }
  dispatch(out);
  return {};
}

Result<void> SseParser::process_line(std::string_view line, std::vector<SseEvent>& out) {
  if (line.empty()) {
    dispatch(out);
    return {};
  }
  // Every line, not only data: a field line that arrived whole in one large
  // chunk was never counted against the frame limit on its way in.
  if (line.size() > max_frame_bytes_) {
    return fail(ErrorCode::limit_exceeded,
                fmt::format("SSE line longer than {} bytes", max_frame_bytes_));
  }
  if (line.front() == ':') return {};  // comment, e.g. a keep-alive
  std::string_view field = line;
  std::string_view value;
  if (auto colon = line.find(':'); colon != std::string_view::npos) {
    field = line.substr(0, colon);
    value = line.substr(colon + 1);
    if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  }
  if (field == "data") {
    AVA_TRY_VOID(check_frame_size(value.size() + 1));
    if (has_data_) data_.push_back('\n');
    data_.append(value);
    has_data_ = true;
  } else if (field == "event") {
    event_name_.assign(value);
  } else if (field == "id") {
    // An id containing NUL is ignored, as the standard says.
    if (value.find('\0') == std::string_view::npos) last_event_id_.assign(value);
  } else if (field == "retry") {
    std::int64_t retry = 0;
    const char* first = value.data();
    const char* last = value.data() + value.size();
    auto [ptr, ec] = std::from_chars(first, last, retry);
    if (ec == std::errc{} && ptr == last && !value.empty() && value.front() != '-') {
      retry_ms_ = retry;
      event_retry_ms_ = retry;
    }
  }
  // Any other field is ignored.
  return {};
}

void SseParser::dispatch(std::vector<SseEvent>& out) {
  if (has_data_ || !event_name_.empty()) {
    out.push_back(SseEvent{.event = std::move(event_name_),
                           .data = std::move(data_),
                           .id = last_event_id_,
                           .retry_ms = event_retry_ms_});
  }
  event_name_.clear();
  data_.clear();
  has_data_ = false;
  event_retry_ms_.reset();
}

Result<std::vector<SseEvent>> parse_sse(std::string_view body, std::size_t max_frame_bytes) {
  SseParser parser(max_frame_bytes);
  std::vector<SseEvent> events;
  AVA_TRY_VOID(parser.feed(body, events));
  AVA_TRY_VOID(parser.finish(events));
  return events;
}

}  // namespace ava::transport
