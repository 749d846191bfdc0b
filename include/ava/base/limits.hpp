#pragma once

#include <chrono>
#include <cstddef>

namespace ava::base {

inline constexpr std::size_t KiB = 1024;
inline constexpr std::size_t MiB = 1024 * KiB;

// Every explicit bound of the brief in one place. Whatever crosses a process
// or trust boundary (HTTP bodies, SSE frames, log records, tool output,
// decoded data) is checked against one of these and fails or is truncated
// with a marker; nothing grows without bound.
struct Limits {
  // HTTP
  std::size_t http_request_body = 8 * MiB;    // server: larger bodies get 413
  std::size_t http_response_body = 64 * MiB;  // client: non-streaming responses
  std::size_t http_header_bytes = 64 * KiB;
  std::chrono::seconds http_header_timeout{10};  // slow-loris guard

  // SSE
  std::size_t sse_frame = 4 * MiB;               // one event, parser and writer
  std::size_t sse_subscriber_backlog = 8 * MiB;  // past this a slow subscriber is cut

  // Session log
  std::size_t session_record = 4 * MiB;  // one encoded event; larger payloads are truncated

  // Tools
  std::size_t tool_output = 64 * KiB;       // text a tool result may return to the model
  std::size_t process_capture = 1 * MiB;    // captured stdout/stderr, head + tail kept
  std::size_t read_file_bytes = 256 * KiB;  // read tool, per call
  std::size_t edit_file_bytes = 64 * MiB;   // edit tool refuses larger files
  std::size_t image_bytes = 5 * MiB;        // decoded image content
  std::chrono::seconds bash_timeout{120};   // default; the model may ask for another
  std::chrono::seconds bash_timeout_max{1800};
  std::chrono::milliseconds kill_grace{2000};  // SIGTERM to the group, then SIGKILL

  // MCP
  std::size_t mcp_message = 16 * MiB;

  // Agent
  int max_steps_per_turn = 200;

  static const Limits& defaults() {
    static const Limits limits;
    return limits;
  }
};

}  // namespace ava::base
